"""The ctxc Python package: the API, parity with the `ctxc` command over corpus conversations,
and bad input.

The CLI is $CTXC_BIN, else target/release/ctxc, else target/debug/ctxc of the repository
(scripts/ci/python-tests.sh builds it). The corpus is $CTXC_CORPUS, else ../shared/corpus beside
the repository; parity tests are skipped without it.
"""

import copy
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import ctxc

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("CTXC_CORPUS", REPO.parent / "shared" / "corpus"))
TAU = CORPUS / "openai-chat" / "tau-bench" / "gpt-4o-airline.json"


def cli_binary():
    given = os.environ.get("CTXC_BIN")
    if given:
        return Path(given)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("release", "debug"):
        path = target / profile / "ctxc"
        if path.exists():
            return path
    pytest.skip("no ctxc binary: build it with `cargo build --release`")


def load(path):
    """A corpus file as Python values: a JSON document, or the list of a JSONL file's lines."""
    text = path.read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def parse_output(text):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        # JSONL lines end at "\n" only (str.splitlines also breaks at U+2028 and others, which
        # JSON strings hold as they are).
        return [json.loads(line) for line in text.split("\n") if line.strip()]


def run_cli(path, *flags):
    """`ctxc compact FLAGS -o - --json PATH`: (output values, the file's report)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CTXC_")}
    done = subprocess.run(
        [str(cli_binary()), "compact", "--no-config", *flags, "--json", "-o", "-", str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    # With the transcript on standard output, the report goes to standard error.
    start = done.stderr.index("{")
    report = json.loads(done.stderr[start:])
    return done.stdout, report["files"][0]


def tau_runs():
    if not TAU.exists():
        pytest.skip(f"no corpus at {CORPUS}")
    return json.loads(TAU.read_text(encoding="utf-8"))


def small_chat():
    return [
        {"role": "system", "content": "You are a helpful airline agent."},
        {"role": "user", "content": "I want to change my flight to next Tuesday, please."},
        {"role": "assistant", "content": "Sure. What is your booking reference?"},
        {"role": "user", "content": "It is ABC123. My name is Ada Lovelace."},
        {"role": "assistant", "content": "Thanks, Ada. Looking up booking ABC123 now."},
        {"role": "user", "content": "Also, can I add a checked bag to the new flight?"},
        {"role": "assistant", "content": "Yes, a checked bag costs $35 on that route."},
        {"role": "user", "content": "Great, book it with the bag."},
    ] * 4


# --- the API ---------------------------------------------------------------------------------


def test_compact_returns_messages_in_the_shape_given_and_a_report():
    messages = small_chat()
    before = copy.deepcopy(messages)
    done = ctxc.compact(messages, target_ratio=0.5, force=True)
    assert messages == before, "the input is never modified"
    assert isinstance(done.messages, list)
    assert all(isinstance(m, dict) and "role" in m for m in done.messages)
    r = done.report
    assert r["status"] == "compacted"
    assert r["format"] == "openai"
    assert r["contextTokensBefore"] == ctxc.count_tokens(messages)
    assert r["contextTokensAfter"] == ctxc.count_tokens(done.messages)
    assert r["contextTokensAfter"] < r["contextTokensBefore"]
    assert r["steps"] and {"strategy", "tokensBefore", "tokensAfter"} <= set(r["steps"][0])
    assert "compacted" in repr(done)


def test_nothing_fires_without_force():
    messages = small_chat()
    done = ctxc.compact(messages)
    assert done.report["status"] == "unchanged"
    assert done.messages == messages


def test_a_dict_container_and_text_keep_their_shape():
    container = {"messages": small_chat()}
    done = ctxc.compact(container, target_ratio=0.5, force=True)
    assert isinstance(done.messages, dict) and "messages" in done.messages
    text = json.dumps(small_chat())
    done_text = ctxc.compact(text, target_ratio=0.5, force=True)
    assert isinstance(done_text.messages, str)
    assert json.loads(done_text.messages) == done.messages["messages"]


def test_settings_are_the_config_keys():
    messages = small_chat()
    a = ctxc.compact(messages, force=True, target_tokens=200, strategy="truncate")
    assert [s["strategy"] for s in a.report["steps"]] == ["truncate"]
    b = ctxc.compact(messages, force=True, target_ratio=0.5, keep_recent_count=2, strategy=["truncate"])
    assert b.report["messagesAfter"] <= a.report["messagesBefore"]
    with pytest.raises(ctxc.CtxcError, match="unknown field `no_such_key`") as e:
        ctxc.compact(messages, no_such_key=1)
    assert e.value.step == "settings"
    with pytest.raises(ctxc.CtxcError, match="target_ratio must be above 0"):
        ctxc.compact(messages, target_ratio=1.5)
    with pytest.raises(ctxc.CtxcError, match="not both"):
        ctxc.compact(messages, target_ratio=0.5, target_tokens=10)
    with pytest.raises(ctxc.CtxcError, match="unknown model"):
        ctxc.compact(messages, model="no-such-model")
    with pytest.raises(ctxc.CtxcError, match="only the extractive summarizer"):
        ctxc.compact(messages, summarizer="openai", summary_model="gpt-4o-mini")


def test_count_tokens():
    assert ctxc.count_tokens("") == 0
    assert ctxc.count_tokens("hello world") == 2
    assert ctxc.count_tokens("hello world", model="gpt-4") == 2
    messages = small_chat()
    n = ctxc.count_tokens(messages)
    # Text plus per-message overhead and reply priming.
    assert n > sum(ctxc.count_tokens(m["content"]) for m in messages)
    assert ctxc.count_tokens({"messages": messages}) == n


def test_check_gives_findings_with_lines_and_indexes():
    assert ctxc.check(small_chat()) == []
    broken = [
        {"role": "user", "content": "run it"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_9", "content": "a b c"},
    ]
    findings = ctxc.check(broken)
    assert findings, "a tool result without its call is a finding"
    assert all(set(f) == {"line", "index", "message"} for f in findings)
    assert any(f["index"] in (1, 2) and f["line"] == f["index"] + 1 for f in findings)
    assert ctxc.check([1, 2])[0]["message"].startswith("cannot tell the format")


def test_calls_are_thread_safe():
    messages = small_chat()
    expected = ctxc.compact(messages, target_ratio=0.5, force=True).messages
    results = []

    def work():
        for _ in range(5):
            results.append(ctxc.compact(messages, target_ratio=0.5, force=True).messages)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 20 and all(r == expected for r in results)


def _tokens_after(runs):
    return ctxc.compact(runs, target_ratio=0.5, force=True).report["contextTokensAfter"]


def test_a_process_forked_after_a_call_compacts_too():
    """multiprocessing forks by default on Linux: the child must not wait for threads of the
    parent's that it does not have."""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork here")
    runs = tau_runs()[:20]
    expected = _tokens_after(runs)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply_async(_tokens_after, (runs,)).get(timeout=120) == expected


def test_importing_ctxc_never_imports_langchain():
    code = "import ctxc, sys; assert not any(m.startswith('langchain') for m in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)


# --- the hand-over: values to text and back ------------------------------------------------

# What ctxc.dumps must write: the json module's text with ctxc's options (JSON.stringify's).
ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def encoded(value):
    if isinstance(value, dict):
        return ENCODER.encode(value) + "\n"
    return "".join(ENCODER.encode(e) + "\n" for e in value)


class Label(str):
    def __str__(self):
        return "not this"


class Count(int):
    def __repr__(self):
        return "not this"


class Ratio(float):
    def __repr__(self):
        return "not this"


def awkward_values():
    """Values whose JSON text has a rule of its own: escapes, non-ASCII, line separators, big
    ints and float forms, keys that are no str, tuples, subclasses of the leaf types."""
    return [
        {"role": "user", "content": 'quote " back \\ slash / \n\r\t\b\f \x00\x1f\x7f é ☃ 😀 \u2028\u2029\x85'},
        {"role": "assistant", "content": None, "n": [0, -1, 2**63, -(2**70), 10**40, True, False]},
        {"floats": [0.0, -0.0, 1.0, 0.1, 1e16, 1.5e-5, 1e-7, 123456789.125, 1e300, 5e-324]},
        {1: "int key", 2.5: "float key", None: "null key", False: "bool key"},
        {"tuple": (1, ("a", "b")), "empty": [{}, [], ()], "nested": {"a": {"b": {"c": [1]}}}},
        {Label("role"): Label("user"), "count": Count(7), "ratio": Ratio(0.25)},
    ]


def test_dumps_writes_what_the_json_module_writes():
    values = awkward_values()
    assert ctxc.dumps(values) == encoded(values)
    assert ctxc.dumps(tuple(values)) == encoded(values)
    assert ctxc.dumps({"messages": values}) == encoded({"messages": values})
    assert ctxc.dumps([]) == ""
    # Every escaped character at every place of the first words of a string, beside ASCII,
    # non-ASCII and other escaped characters (the walk looks at eight bytes at a time).
    for filler in ("abcdefghijklmnopqrstuvwx", "é☃😀" * 5, "\x1f\"\\" * 6):
        for special in ("\x00", "\x08", "\n", "\x1f", '"', "\\", " ", "\x7f", "é"):
            strings = [filler[:i] + special + filler[i:] for i in range(len(filler) + 1)]
            values = [{"role": "user", "content": text} for text in strings]
            assert ctxc.dumps(values) == encoded(values)


@pytest.mark.parametrize("name", [n for n in [
    "openai-chat/tau-bench/gpt-4o-airline.json",
    "claude-code/spotter/tool_heavy.jsonl",
    "codex-rollout/ccusage/session-alpha.jsonl",
    "sharegpt/llamafactory/glaive_toolcall_en_demo.json",
    "swe-agent/ctf__crypto__katy.traj",
    "openhands/trajs/basic.json",
]])
def test_dumps_writes_what_the_json_module_writes_for_corpus_files(name):
    _, value = corpus_value(name)
    assert ctxc.dumps(value) == encoded(value)


def containers(value, found=None):
    """The ids of every dict and list in a value, with the objects (kept alive)."""
    found = {} if found is None else found
    if isinstance(value, dict):
        found[id(value)] = value
        for v in value.values():
            containers(v, found)
    elif isinstance(value, (list, tuple)):
        found[id(value)] = value
        for v in value:
            containers(v, found)
    return found


def test_the_output_shares_no_container_with_the_input():
    """Kept messages come back as copies (not read again from text): changing the output can
    never change what was given, at any depth."""
    runs = tau_runs()[:20]
    before = copy.deepcopy(runs)
    done = ctxc.compact(runs, target_ratio=0.5, force=True)
    assert done.report["messagesAfter"] > 0
    given = containers(runs)
    assert not set(containers(done.messages)) & set(given)
    for run in done.messages:
        run["info"]["changed"] = True
        for message in run["traj"]:
            message["content"] = "changed"
            message.setdefault("tool_calls", []).append({"changed": True})
    assert runs == before
    # Nothing fires: every value comes back copied, none shared.
    unchanged = ctxc.compact(runs)
    assert unchanged.report["status"] == "unchanged"
    assert unchanged.messages == runs
    assert not set(containers(unchanged.messages)) & set(given)


def test_the_output_equals_the_output_text_read_by_the_json_module():
    """Kept values are given back as `json.loads` would read their text: a tuple as a list, a
    key as a str, a str or number subclass as its plain value."""
    # Long enough (128 bytes and more) to be copied rather than read again when kept.
    long = " ".join(["Please keep every detail of this request in mind."] * 3)
    messages = [
        {"role": "system", "content": "You are a helpful airline agent. " + long, "meta": (1, 2)},
        {"role": Label("user"), "content": long, 7: Count(3), "weight": Ratio(0.5)},
    ] + small_chat()[1:]
    for given in (messages, tuple(messages), {"messages": messages}):
        done = ctxc.compact(given, target_ratio=0.5, force=True)
        text = ctxc.compact(ctxc.dumps(given), target_ratio=0.5, force=True).messages
        expected = parse_output(text)
        if isinstance(given, tuple):
            assert isinstance(done.messages, tuple)
            assert list(done.messages) == expected
        else:
            assert done.messages == expected
        kept = done.messages["messages"] if isinstance(given, dict) else done.messages
        first = kept[0]
        assert type(first["meta"]) is list
        second = next(m for m in kept if "weight" in m)
        assert type(second["role"]) is str and type(second["7"]) is int
        assert type(second["weight"]) is float
    # Unchanged: every value is a copy of what was given, made plain as json.loads makes it.
    done = ctxc.compact(messages)
    assert done.report["status"] == "unchanged"
    assert done.messages == parse_output(ctxc.dumps(messages))
    assert type(done.messages[0]["meta"]) is list
    assert type(done.messages[1]["role"]) is str and done.messages[1]["7"] == 3
    assert type(done.messages[1]["7"]) is int and type(done.messages[1]["weight"]) is float


def random_value(rnd, depth=0):
    """A JSON-able value of every kind the walk treats apart: escapes, non-ASCII, big ints,
    float forms, keys that are no str, tuples; nested a few levels."""
    chars = ["a", " ", "\n", "\t", '"', "\\", "/", "\x00", "\x1f", "\x7f", "é", "☃", "😀", "\u2028"]

    def text():
        return "".join(rnd.choice(chars) for _ in range(rnd.randint(0, 24)))

    def number():
        return rnd.choice(
            [rnd.randint(-(10**6), 10**6), rnd.randint(-(10**30), 10**30), rnd.uniform(-1e9, 1e9),
             rnd.uniform(0, 1) * 10.0 ** rnd.randint(-20, 20), -0.0, 1e16, 5e-324]
        )

    c = rnd.random()
    if depth > 3 or c < 0.4:
        return rnd.choice([None, True, False, text(), number()])
    if c < 0.7:
        keys = [text(), text(), rnd.choice([1, 2.5, True, None, 10**20, text()])]
        return {rnd.choice(keys): random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 4))}
    items = [random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 4))]
    return tuple(items) if rnd.random() < 0.2 else items


def test_random_values_hand_over_as_the_json_module_writes_and_reads_them():
    import random

    rnd = random.Random(22)
    for _ in range(2000):
        values = [random_value(rnd) for _ in range(rnd.randint(1, 3))]
        assert ctxc.dumps(values) == encoded(values)
    for _ in range(40):
        messages = [{"role": "system", "content": "Be brief. " * 20, "meta": random_value(rnd)}]
        for _ in range(rnd.randint(2, 10)):
            messages.append({"role": "user", "content": "Edit src/a.rs. " * rnd.randint(1, 20),
                             "meta": random_value(rnd)})
            messages.append({"role": "assistant", "content": "Done. " * rnd.randint(1, 20),
                             "extra": [random_value(rnd), random_value(rnd)]})
        done = ctxc.compact(messages, force=True, target_ratio=0.5)
        text = ctxc.compact(ctxc.dumps(messages), force=True, target_ratio=0.5)
        assert done.messages == parse_output(text.messages)


def corpus_files():
    if not CORPUS.exists():
        return []
    return sorted(
        str(p.relative_to(CORPUS))
        for p in CORPUS.rglob("*")
        if p.is_file() and p.suffix in (".json", ".jsonl", ".traj")
    )


@pytest.mark.parametrize("name", corpus_files())
def test_every_corpus_file_compacts_as_its_text_does(name):
    """Given as values, every corpus file compacts to what its text (ctxc.dumps) compacts to,
    read by json.loads, or fails the same way; and the result shares no dict or list with the
    values (the kept parts are copies)."""
    _, value = corpus_value(name)
    for strategy in ("adaptive", "truncate"):
        try:
            done = ctxc.compact(value, force=True, target_ratio=0.5, strategy=strategy)
        except ctxc.CtxcError as e:
            with pytest.raises(ctxc.CtxcError) as from_text:
                ctxc.compact(ctxc.dumps(value), force=True, target_ratio=0.5, strategy=strategy)
            assert str(from_text.value) == str(e)
            continue
        text = ctxc.compact(ctxc.dumps(value), force=True, target_ratio=0.5, strategy=strategy)
        assert done.messages == parse_output(text.messages)
        same = [k for k in done.report if k not in PLACE_OR_TIME]
        assert {k: done.report[k] for k in same} == {k: text.report[k] for k in same}
        assert not set(containers(done.messages)) & set(containers(value))


def test_line_separators_inside_strings_stay_inside_them():
    """U+2028, U+0085 and friends are line breaks to str.splitlines, not to JSONL."""
    messages = small_chat()
    messages[1] = {"role": "user", "content": "one\u2028two\x85three\x1cfour"}
    done = ctxc.compact(messages, target_ratio=0.5, force=True)
    assert done.messages == parse_output(
        ctxc.compact(ctxc.dumps(messages), target_ratio=0.5, force=True).messages
    )
    assert messages[1] in done.messages


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [42, None, 3.5, b"[]", {1, 2}])
def test_a_value_that_is_no_conversation_is_a_type_error(value):
    with pytest.raises(TypeError, match="ctxc takes a list"):
        ctxc.compact(value)


def test_an_element_that_is_not_json_is_a_type_error_naming_it():
    messages = small_chat()[:2] + [{"role": "user", "content": object()}]
    before = list(messages)
    with pytest.raises(TypeError, match=r"messages\[2\] is not JSON"):
        ctxc.compact(messages, force=True)
    assert messages == before
    with pytest.raises(ctxc.CtxcError, match=r"messages\[0\] is not JSON"):
        ctxc.compact([{"role": "user", "content": float("nan")}])
    with pytest.raises(TypeError, match=r"messages\[1\] is not JSON: keys must be str"):
        ctxc.compact([{"role": "user", "content": "a"}, {("a",): 1}])
    with pytest.raises(TypeError, match=r"messages is not JSON: Object of type bytes"):
        ctxc.count_tokens({"messages": [{"role": "user", "content": b"x"}]})


def test_a_circular_or_unencodable_value_is_a_ctxc_error_naming_the_element():
    looped = {"role": "user", "content": []}
    looped["content"].append(looped)
    messages = [{"role": "user", "content": "a"}, looped]
    with pytest.raises(ctxc.CtxcError, match=r"messages\[1\] is not JSON: Circular reference") as e:
        ctxc.compact(messages, force=True)
    assert e.value.step == "parse"
    deep = {"role": "user", "content": "a"}
    for _ in range(600):
        deep = {"x": deep}
    with pytest.raises(ctxc.CtxcError, match=r"messages\[0\] is not JSON: nested more than"):
        ctxc.check([deep])
    with pytest.raises(ctxc.CtxcError, match=r"messages\[0\] is not JSON: .*surrogates"):
        ctxc.dumps([{"role": "user", "content": "\ud800"}])
    with pytest.raises(ctxc.CtxcError, match=r"messages is not JSON: Out of range float"):
        ctxc.compact({"messages": [{"role": "user", "content": "a", "x": float("inf")}]})


@pytest.mark.parametrize(
    "value, match",
    [
        ([1, 2], "cannot tell the format"),
        ({"x": 1}, "cannot tell the format"),
        ([], "empty"),
        ("not json", "."),
    ],
)
def test_what_ctxc_cannot_read_is_a_ctxc_error(value, match):
    before = copy.deepcopy(value)
    with pytest.raises(ctxc.CtxcError, match=match) as e:
        ctxc.compact(value, force=True, target_ratio=0.5)
    assert isinstance(e.value, ValueError)
    assert e.value.step == "parse"
    assert value == before


def test_a_broken_conversation_fails_check_with_its_line_and_index_and_is_not_modified():
    broken = small_chat()[:4] + [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_9", "content": "a b c"},
    ] + small_chat()
    before = copy.deepcopy(broken)
    with pytest.raises(ctxc.CtxcError, match="fails `ctxc check`") as e:
        ctxc.compact(broken, force=True, target_ratio=0.5)
    assert e.value.step == "check"
    assert e.value.line >= 1 and e.value.index == e.value.line - 1
    assert str(e.value).startswith(f"line {e.value.line}: ")
    assert broken == before


# --- parity with the CLI ---------------------------------------------------------------------

# What differs between two runs on the same text: where the report says the output went, and
# the time taken.
PLACE_OR_TIME = {"path", "output", "timeMs"}

# JSON documents (a list of conversations, a container) and JSONL sessions (a list of records).
PARITY = [
    "openai-chat/tau-bench/gpt-4o-airline.json",
    "claude-code/spotter/tool_heavy.jsonl",
    "claude-code/spotter/short.jsonl",
    "claude-code/claude-code-transcripts/sample_session.jsonl",
    "claude-code/claude-code-log/representative_messages.jsonl",
    "claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-a7be2f0.jsonl",
    "codex-rollout/ccusage/session-alpha.jsonl",
    "openhands/resolver/output.jsonl",
    "sharegpt/llamafactory/glaive_toolcall_en_demo.json",
    "swe-agent/ctf__crypto__katy.traj",
    "openhands/trajs/basic.json",
]

STRATEGIES = ["adaptive", "truncate", "sliding-window"]


def corpus_value(name):
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"no corpus file {path}")
    return path, load(path)


def assert_same(value, strategy, cli_text, cli_report, *, layout_free=False):
    """`ctxc.compact(value)` gives the CLI's messages and report (`layout_free`: but the
    figures that depend on the bytes of the text, which differ)."""
    before = copy.deepcopy(value)
    if cli_report["status"] == "failed":
        with pytest.raises(ctxc.CtxcError) as e:
            ctxc.compact(value, force=True, target_ratio=0.5, strategy=strategy)
        assert e.value.message == cli_report["error"]
        assert e.value.step == cli_report["failedStep"]
        assert value == before
        return
    done = ctxc.compact(value, force=True, target_ratio=0.5, strategy=strategy)
    assert value == before, "the input is never modified"
    if isinstance(value, str):
        assert done.messages == cli_text
    else:
        assert done.messages == parse_output(cli_text)
    skip = PLACE_OR_TIME | ({"bytesBefore", "bytesAfter"} if layout_free else set())
    lib = {k: v for k, v in done.report.items() if k not in skip}
    cli = {k: v for k, v in cli_report.items() if k not in skip}
    assert lib == cli


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("name", PARITY)
def test_parity_with_the_cli_on_the_same_text(name, strategy, tmp_path):
    """The value is given to the library; the CLI compacts a file holding the text the library
    compacts (ctxc.dumps: JSONL for a list, one line for a dict)."""
    _, value = corpus_value(name)
    file = tmp_path / ("input.jsonl" if isinstance(value, list) else "input.json")
    file.write_text(ctxc.dumps(value), encoding="utf-8")
    flags = ("--force", "--target-ratio", "0.5", "--strategy", strategy)
    cli_text, cli_report = run_cli(file, *flags)
    assert_same(value, strategy, cli_text, cli_report)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("name", [n for n in PARITY if n.endswith(".jsonl")])
def test_parity_with_the_cli_on_a_session_file(name, strategy):
    """A JSONL session's records, given as a list, compact as the file does: the same lines."""
    path, value = corpus_value(name)
    flags = ("--force", "--target-ratio", "0.5", "--strategy", strategy)
    cli_text, cli_report = run_cli(path, *flags)
    assert_same(value, strategy, cli_text, cli_report, layout_free=True)


@pytest.mark.parametrize("name", [n for n in PARITY if not n.endswith(".jsonl")])
def test_parity_with_the_cli_on_a_file_given_as_text(name):
    """A file's text, given as a str, compacts byte for byte as the CLI compacts the file."""
    path, _ = corpus_value(name)
    cli_text, cli_report = run_cli(path, "--force", "--target-ratio", "0.5")
    assert_same(path.read_text(encoding="utf-8"), "adaptive", cli_text, cli_report)


def test_tau_bench_run_by_run_counts_as_the_whole_file():
    runs = tau_runs()[:20]
    whole = ctxc.compact(runs, force=True, target_ratio=0.5).report
    parts = [ctxc.compact(r["traj"], force=True, target_ratio=0.5).report for r in runs]
    assert whole["contextTokensBefore"] == sum(p["contextTokensBefore"] for p in parts)
    assert whole["contextTokensAfter"] == sum(p["contextTokensAfter"] for p in parts)


# --- the LangChain drop-in -------------------------------------------------------------------


def test_langchain_trim_takes_and_returns_langchain_messages():
    messages_module = pytest.importorskip("langchain_core.messages")
    import ctxc.langchain

    runs = tau_runs()
    messages = messages_module.convert_to_messages(runs[0]["traj"])
    before = [m.model_copy(deep=True) for m in messages]
    kept = ctxc.langchain.trim(messages, max_tokens=2000)
    assert messages == before, "the input is never modified"
    assert all(isinstance(m, messages_module.BaseMessage) for m in kept)
    assert isinstance(kept[0], messages_module.SystemMessage)
    assert ctxc.count_tokens(messages_module.convert_to_openai_messages(kept)) <= 2000
    kept, report = ctxc.langchain.trim_with_report(messages, max_tokens=2000)
    assert report["status"] == "compacted" and report["contextTokensAfter"] <= 2000
    # Within the budget already: the same messages back.
    assert ctxc.langchain.trim(messages, max_tokens=10**6) == messages


def test_langchain_trim_takes_trim_messages_arguments_and_agrees_with_it_when_nothing_is_over():
    lc = pytest.importorskip("langchain_core.messages")
    import ctxc.langchain

    messages = lc.convert_to_messages(tau_runs()[0]["traj"])

    def per_message(message: lc.BaseMessage) -> int:
        return len(str(message.content)) // 4 + 3

    def ours(msgs):
        return ctxc.count_tokens(lc.convert_to_openai_messages(msgs))

    counters = [(len, len(messages)), ("approximate", 10**6), (per_message, 10**6)]
    counters.append((ours, ours(messages)))
    for counter, room in counters:
        for rules in [
            {},
            {"include_system": True, "start_on": "human"},
            {"end_on": ("human", "tool")},
            {"strategy": "first", "end_on": "ai"},
        ]:
            theirs = lc.trim_messages(messages, max_tokens=room, token_counter=counter, **rules)
            kept = ctxc.langchain.trim(messages, room, token_counter=counter, **rules)
            assert kept == theirs, (counter, rules)
    # ctxc's own count, by default or by model name, is the one trim_messages gets from `ours`.
    room = ours(messages)
    assert ctxc.langchain.trim(messages, room, token_counter="gpt-4o") == messages
    assert ctxc.langchain.trim(messages, room - 1) != messages


def test_langchain_trim_first_is_trim_messages_first():
    lc = pytest.importorskip("langchain_core.messages")
    import ctxc.langchain

    messages = lc.convert_to_messages(tau_runs()[1]["traj"])
    for room in (1, 500, 2000, 4000):
        for rules in [{}, {"allow_partial": True}, {"end_on": "human"}]:
            theirs = lc.trim_messages(
                messages, max_tokens=room, token_counter="approximate", strategy="first", **rules
            )
            kept, report = ctxc.langchain.trim_with_report(
                messages, room, token_counter="approximate", strategy="first", **rules
            )
            assert (kept, report) == (theirs, None), (room, rules)
    # The same argument errors as trim_messages.
    with pytest.raises(ValueError, match="start_on"):
        ctxc.langchain.trim(messages, 500, strategy="first", start_on="human")
    with pytest.raises(ValueError, match="compaction="):
        ctxc.langchain.trim(messages, 500, strategy="adaptive")


def test_langchain_trim_last_over_budget_compacts_then_keeps_trim_messages_rules():
    lc = pytest.importorskip("langchain_core.messages")
    import ctxc.langchain

    messages = lc.convert_to_messages(tau_runs()[0]["traj"])
    before = [m.model_copy(deep=True) for m in messages]

    def ours(msgs):
        return ctxc.count_tokens(lc.convert_to_openai_messages(msgs))

    for counter, room in [(None, 2000), ("approximate", 2500), (len, 12), (ours, 2000)]:
        rules = {"include_system": True, "start_on": "human", "end_on": ("human", "tool")}
        kept, report = ctxc.langchain.trim_with_report(
            messages, room, token_counter=counter, **rules
        )
        theirs = lc.trim_messages(
            messages, max_tokens=room, token_counter=counter or ours, **rules
        )
        assert messages == before, "the input is never modified"
        assert report["status"] == "compacted", counter
        count = len(kept) if counter is len else (
            lc.utils.count_tokens_approximately(kept) if counter == "approximate" else ours(kept)
        )
        assert count <= room, (counter, count)
        assert isinstance(kept[0], lc.SystemMessage) and isinstance(kept[1], lc.HumanMessage)
        # The latest message trim_messages keeps is kept as it is.
        assert kept[-1] == theirs[-1], counter
        # trim_messages drops the task (the first user message); ctxc keeps it.
        task = messages[1]
        assert task in kept and task not in theirs, counter


# --- docs/python.md ----------------------------------------------------------------------------


GUIDE_CHECKS = """
import pyarrow.parquet as _pq

assert done.report["status"] in ("compacted", "unchanged")
assert out["error"].to_pylist() == [None, None]
assert out["tokens_after"].to_pylist()[0] <= out["tokens_before"].to_pylist()[0]
_expected = sorted(out.to_pylist(), key=lambda r: r["id"])
for _engine in ("compacted-ray", "compacted-spark"):
    _got = sorted(_pq.read_table(_engine).to_pylist(), key=lambda r: r["id"])
    assert _got == _expected, _engine
assert ds.to_list() == _expected
spark.stop()
ray.shutdown()
print("docs/python.md examples: ok")
"""


def test_the_guide_examples_run(tmp_path):
    """The Python blocks of docs/python.md, in order, as one program run in a
    scratch directory by a Python of its own (they start Ray and Spark and write files there),
    then checks of what they made: the engines' rows are compact_batch's."""
    guide = (REPO / "docs" / "python.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in guide.split("```python\n")[1:]]
    assert len(blocks) >= 6
    code = "".join(blocks)
    for module, used in [
        ("langchain_core", "langchain"),
        ("pyarrow", "pyarrow"),
        ("ray.data", "ray.data"),
        ("pyspark", "pyspark"),
        ("datasets", "from datasets"),
    ]:
        if used in code and not os.environ.get("CTXC_ENGINES_REQUIRED"):
            pytest.importorskip(module)
    program = tmp_path / "guide_examples.py"
    program.write_text(code + GUIDE_CHECKS, encoding="utf-8")
    env = dict(os.environ)
    env.update(
        HF_DATASETS_CACHE=str(tmp_path / "hf-cache"),
        # Spark's Python workers run this Python, where ctxc is installed.
        PYSPARK_PYTHON=sys.executable,
    )
    done = subprocess.run(
        [sys.executable, str(program)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-5000:]
    assert "docs/python.md examples: ok" in done.stdout


def broken_dataset():
    """Four tau-bench conversations, one `{"messages": [...]}` per element; the third answers a
    call nobody made (its first tool result's id renamed)."""
    rows = [{"messages": copy.deepcopy(run["traj"])} for run in tau_runs()[:4]]
    tool = next(m for m in rows[2]["messages"] if m["role"] == "tool")
    tool["tool_call_id"] = "call_nobody_made"
    return rows


def test_on_findings_keep_leaves_a_broken_conversation_and_compacts_the_others():
    rows = broken_dataset()
    given = copy.deepcopy(rows)
    for kwargs in ({}, {"on_findings": "keep"}):
        out = ctxc.compact(rows, target_ratio=0.5, force=True, **kwargs)
        assert rows == given
        assert out.messages[2] == rows[2], "the broken conversation is left as it was"
        for i in (0, 1, 3):
            assert len(json.dumps(out.messages[i])) < len(json.dumps(rows[i])), i
        assert out.report["conversationsCompacted"] == 3
        assert "call_nobody_made" in json.dumps(out.report["notes"])


def test_on_findings_refuse_and_allow():
    rows = broken_dataset()
    with pytest.raises(ctxc.CtxcError) as refused:
        ctxc.compact(rows, target_ratio=0.5, force=True, on_findings="refuse")
    assert "fails `ctxc check`" in refused.value.message
    assert refused.value.index == 2 and refused.value.line == 3

    allowed = ctxc.compact(rows, target_ratio=0.5, force=True, on_findings="allow")
    assert allowed.report["conversationsCompacted"] == 4
    assert len(json.dumps(allowed.messages[2])) < len(json.dumps(rows[2]))


def test_a_single_broken_conversation_is_refused_unless_allowed():
    broken = broken_dataset()[2]["messages"]
    with pytest.raises(ctxc.CtxcError) as refused:
        ctxc.compact(broken, target_ratio=0.5, force=True)
    assert "fails `ctxc check`" in refused.value.message
    out = ctxc.compact(broken, target_ratio=0.5, force=True, on_findings="allow")
    assert out.report["status"] == "compacted"


def test_allow_findings_is_a_deprecated_on_findings_allow():
    rows = broken_dataset()
    allowed = ctxc.compact(rows, target_ratio=0.5, force=True, on_findings="allow")
    with pytest.warns(DeprecationWarning, match="on_findings='allow'"):
        old = ctxc.compact(rows, target_ratio=0.5, force=True, allow_findings=True)
    assert old.messages == allowed.messages
    # Both at once is refused, as --allow-findings with --on-findings is.
    with pytest.raises(ctxc.CtxcError) as both:
        ctxc.compact(rows, force=True, allow_findings=True, on_findings="keep")
    assert both.value.step == "settings"


def test_an_unknown_on_findings_names_the_choices():
    with pytest.raises(ctxc.CtxcError) as bad:
        ctxc.compact(small_chat(), on_findings="ignore")
    assert bad.value.step == "settings"
    assert "expected one of keep, refuse, allow" in bad.value.message
