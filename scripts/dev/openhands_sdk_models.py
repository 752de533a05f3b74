#!/usr/bin/env python3
"""OpenHands V1 (software-agent-sdk) events through the SDK's own models.

    PYTHONHASHSEED=0 scripts/dev/openhands_sdk_models.py make > fixtures/openhands_sdk/conversation.json
    PYTHONHASHSEED=0 scripts/dev/openhands_sdk_models.py make-jsonl > fixtures/openhands_sdk/conversation.jsonl
    PYTHONHASHSEED=0 scripts/dev/openhands_sdk_models.py make-linked > fixtures/openhands_sdk/linked.json
    scripts/dev/openhands_sdk_models.py check out/*.json out/*.jsonl

`make` builds a conversation with the SDK's event classes (a system prompt with a tool, the
user's task, terminal actions and observations, parallel calls of one response, an agent error, a
condenser's `Condensation` with its summary, more steps with long outputs, the agent's reply) and prints the events
as a JSON array of `model_dump(exclude_none=True)`, the form the SDK persists each event in
(`make-jsonl`: one compact event per line, as `model_dump_json` writes an event file).

`check` reads event lists (a JSON array, JSONL one event per line, or records holding them
under `history`/`events`/`items`), validates every event with `Event.model_validate`, builds
the view (`View.from_events`: condensations applied, summaries inserted at their offsets,
unmatched calls dropped) and the messages the model is sent (`events_to_messages`). It fails
when an event does not validate, when the view had to drop an event to repair pairing (the
file's pairing is broken), when a tool message answers no earlier call, or when a file holding
a ctxc summary does not send it.

Not run by CI (the SDK pulls litellm and more). Checked with openhands-sdk and
openhands-tools 1.58.2 in a Python 3.12 virtual environment (`pip install openhands-sdk
openhands-tools`); set LITELLM_LOCAL_MODEL_COST_MAP=True offline.
"""
import json
import logging
import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENHANDS_SUPPRESS_BANNER", "1")

from openhands.sdk.context.view import View  # noqa: E402
from openhands.sdk.event import (  # noqa: E402
    ActionEvent,
    AgentErrorEvent,
    Condensation,
    CondensationRequest,
    ConversationStateUpdateEvent,
    Event,
    LLMConvertibleEvent,
    MessageEvent,
    ObservationEvent,
    PauseEvent,
    SystemPromptEvent,
    UserRejectObservation,
)
from openhands.sdk.llm import (  # noqa: E402
    ImageContent,
    Message,
    MessageToolCall,
    TextContent,
    ThinkingBlock,
)
from openhands.tools.terminal import TerminalAction, TerminalObservation  # noqa: E402

MARKER = "[ctxc summary]"


def text(t):
    return [TextContent(text=t)]


def observe(add, action, output):
    """The terminal's observation of `action`: `output`, exit code 0."""
    add(
        ObservationEvent,
        tool_name="terminal",
        tool_call_id=action.tool_call_id,
        action_id=action.id,
        observation=TerminalObservation.from_text(text=output, command=action.action.command, exit_code=0),
    )


def make():
    ids = iter(f"00000000-0000-4000-8000-{n:012d}" for n in range(1, 1000))
    clock = iter(f"2026-06-16T05:{m:02d}:00.000000" for m in range(60))
    events = []

    def add(cls, **kw):
        events.append(cls(id=next(ids), timestamp=next(clock), **kw))
        return events[-1]

    add(ConversationStateUpdateEvent, source="environment", key="execution_status", value="running")
    add(
        SystemPromptEvent,
        system_prompt=TextContent(text="You are OpenHands agent, a helpful AI assistant that can interact with a computer to solve tasks."),
        tools=[],
    )
    add(
        MessageEvent,
        source="user",
        llm_message=Message(role="user", content=text("The tests in tests/test_dates.py fail since the upgrade. Find out why and fix parse_date in src/dates.py.")),
    )

    def step(response, thought, commands, outputs, error=None):
        calls = []
        for k, command in enumerate(commands):
            call_id = f"call_{response}_{k}"
            args = json.dumps({"command": command, "security_risk": "LOW"})
            calls.append(
                add(
                    ActionEvent,
                    thought=text(thought) if k == 0 else [],
                    action=TerminalAction(command=command),
                    tool_name="terminal",
                    tool_call_id=call_id,
                    tool_call=MessageToolCall(id=call_id, name="terminal", arguments=args, origin="completion"),
                    llm_response_id=f"resp-{response}",
                )
            )
        for action, output in zip(calls, outputs):
            if output is None:
                add(
                    AgentErrorEvent,
                    tool_name="terminal",
                    tool_call_id=action.tool_call_id,
                    error=error,
                )
                continue
            observe(add, action, output)

    listing = "\n".join(f"-rw-r--r-- 1 user user {100 + 37 * k} Jun 16 05:3{k % 10} module_{k}.py" for k in range(40))
    step(1, "Let me look at the repository layout first.", ["ls -la src tests"], [listing])
    test_log = "\n".join(
        [f"tests/test_dates.py::test_case_{k} FAILED" for k in range(30)]
        + ["E   ValueError: time data '2024-02-30' does not match format '%Y-%m-%d'"] * 12
    )
    step(2, "I will run the failing tests and read the module side by side.", ["python -m pytest tests/test_dates.py -q", "cat src/dates.py"], [test_log, "import datetime\n\ndef parse_date(s):\n    return datetime.datetime.strptime(s, '%Y-%m-%d')\n" * 6])
    step(3, "Let me check the installed dateutil.", ["pip show python-dateutil"], [None], error="Tool 'terminal' timed out after 120 seconds")
    add(ConversationStateUpdateEvent, source="environment", key="stats", value={"usage_to_metrics": {}})
    forgotten = [e.id for e in events[3:9]]
    add(
        Condensation,
        forgotten_event_ids=set(forgotten),
        summary="The agent listed src and tests, then ran tests/test_dates.py: every case fails with ValueError on invalid dates such as '2024-02-30'.",
        summary_offset=2,
        llm_response_id="resp-condenser-1",
    )
    source = "\n".join(f"def helper_{k}(value):\n    # Normalise field {k} of a parsed date.\n    return int(value) % {k + 7}\n" for k in range(45))
    step(4, "Let me read the whole module before editing it.", ["cat -n src/dates.py"], [source])
    history = "\n".join(f"{k:07x} dates: change {k} to the parser ({'strict' if k % 3 else 'lenient'} mode)" for k in range(60))
    step(5, "When did parse_date change? The git log of the file will say.", ["git log --oneline -- src/dates.py"], [history])
    step(6, "parse_date must reject impossible dates explicitly; I will patch it.", ["sed -i 's/return datetime/return validated(datetime/' src/dates.py", "git diff --stat"], ["", " src/dates.py | 4 +++-\n 1 file changed, 3 insertions(+), 1 deletion(-)"])
    step(7, "Now the tests again.", ["python -m pytest tests/test_dates.py -q"], ["30 passed in 0.41s"])
    add(
        MessageEvent,
        source="agent",
        llm_message=Message(role="assistant", content=text("parse_date now validates the date before returning it; tests/test_dates.py passes (30 tests).")),
        llm_response_id="resp-8",
    )
    add(ConversationStateUpdateEvent, source="environment", key="execution_status", value="finished")
    return [e.model_dump(mode="json", exclude_none=True) for e in events]


def make_linked():
    """A second conversation, in the newer SDKs' linked form (each event's `parent_id` the one
    before it): thinking blocks, an image in the user's message, a rejected action, a pause
    and a condensation request, a first condensation and a second one that also forgets the
    first one's summary (`<id>-summary`)."""
    ids = iter(f"10000000-0000-4000-8000-{n:012d}" for n in range(1, 1000))
    clock = iter(f"2026-07-01T09:{m:02d}:00.000000" for m in range(60))
    events = []

    def add(cls, **kw):
        parent = events[-1].id if events else None
        events.append(cls(id=next(ids), timestamp=next(clock), parent_id=parent, **kw))
        return events[-1]

    def call(response, k, command, thought=None, thinking=None):
        call_id = f"toolu_{response}_{k}"
        return add(
            ActionEvent,
            thought=text(thought) if thought else [],
            thinking_blocks=[ThinkingBlock(thinking=thinking, signature="sig-" + call_id)] if thinking else [],
            action=TerminalAction(command=command),
            tool_name="terminal",
            tool_call_id=call_id,
            tool_call=MessageToolCall(id=call_id, name="terminal", arguments=json.dumps({"command": command}), origin="completion"),
            llm_response_id=f"msg_{response}",
        )

    add(SystemPromptEvent, system_prompt=TextContent(text="You are OpenHands agent."), tools=[])
    add(
        MessageEvent,
        source="user",
        llm_message=Message(role="user", content=[TextContent(text="The chart in docs/plot.png is wrong: the y axis should start at zero. Fix scripts/plot.py."), ImageContent(image_urls=["data:image/png;base64," + "iVBORw0KGgo" * 40])]),
    )
    a = call(1, 0, "cat scripts/plot.py", "I will read the plotting script.", "The user wants the axis fixed.")
    observe(add, a, "\n".join(f"ax.plot(xs[{k}], ys[{k}], label='series {k}')" for k in range(50)))
    add(CondensationRequest)
    a = call(2, 0, "rm -rf build/", "Clearing the old build first.")
    add(UserRejectObservation, tool_name="terminal", tool_call_id=a.tool_call_id, action_id=a.id, rejection_reason="Do not delete the build directory.")
    first = add(
        Condensation,
        forgotten_event_ids={e.id for e in events[2:4]},
        summary="The agent read scripts/plot.py: fifty ax.plot calls, one per series.",
        summary_offset=2,
        llm_response_id="condenser-1",
    )
    add(PauseEvent)
    add(MessageEvent, source="user", llm_message=Message(role="user", content=text("Go on, but keep build/.")))
    a = call(3, 0, "grep -n set_ylim scripts/plot.py", "Where is the axis range set?", "Look for set_ylim.")
    b = call(3, 1, "git log --oneline -5 -- scripts/plot.py")
    observe(add, a, "\n".join(f"{200 + k}: ax.set_ylim(bottom=min(ys[{k}]))" for k in range(30)))
    observe(add, b, "\n".join(f"{k:07x} plot: tweak series {k}" for k in range(5)))
    a = call(4, 0, "sed -i 's/bottom=min(ys\\[k\\])/bottom=0/' scripts/plot.py", "Pin the bottom at zero.")
    observe(add, a, "")
    add(
        Condensation,
        forgotten_event_ids={first.id + "-summary"} | {e.id for e in events[5:7]},
        summary="The agent read scripts/plot.py (fifty ax.plot calls); the user refused deleting build/.",
        summary_offset=2,
        llm_response_id="condenser-2",
    )
    a = call(5, 0, "python scripts/plot.py && python -c 'print(open(\"docs/plot.png\",\"rb\").read(4))'", "Regenerate the chart.")
    observe(add, a, "\\x89PNG")
    add(MessageEvent, source="agent", llm_message=Message(role="assistant", content=text("The y axis of docs/plot.png now starts at zero (scripts/plot.py pins bottom=0).")), llm_response_id="msg_6")
    return [e.model_dump(mode="json", exclude_none=True) for e in events]


def lists(path):
    text = open(path).read()
    if path.endswith(".jsonl"):
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        if rows and "kind" in rows[0]:
            yield rows
            return
    else:
        rows = json.loads(text)
        if isinstance(rows, list) and rows and "kind" in rows[0]:
            yield rows
            return
        rows = rows if isinstance(rows, list) else [rows]
    for row in rows:
        for key in ("history", "events", "items"):
            if isinstance(row.get(key), list) and row[key]:
                yield row[key]
                break


class Dropped(logging.Handler):
    """Counts the view's warnings that it dropped events to repair a property."""

    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        if "enforced" in record.getMessage():
            self.messages.append(record.getMessage())


def check(paths):
    dropped = Dropped()
    logging.getLogger("openhands.sdk.context.view.view").addHandler(dropped)
    failed = 0
    for path in paths:
        for raw in lists(path):
            dropped.messages.clear()
            try:
                events = [Event.model_validate(e) for e in raw]
                view = View.from_events(events)
                messages = LLMConvertibleEvent.events_to_messages(list(view.events))
            except Exception as e:  # noqa: BLE001
                print(f"{path}: does not load: {e!r}"[:400])
                failed += 1
                continue
            problems = list(dropped.messages)
            calls = set()
            for m in messages:
                for c in m.tool_calls or []:
                    calls.add(c.id)
                if m.role == "tool" and m.tool_call_id not in calls:
                    problems.append(f"tool result {m.tool_call_id} answers no earlier call")
            sent = " ".join(c.text for m in messages for c in m.content if isinstance(c, TextContent))
            if any(MARKER in (e.get("summary") or "") for e in raw) and MARKER not in sent:
                problems.append("the ctxc summary is not sent")
            for p in problems:
                print(f"{path}: {p}")
            failed += bool(problems)
            print(f"{path}: {len(events)} events, {len(view.events)} in view, {len(messages)} messages{'' if not problems else ' FAILED'}")
    return failed


if __name__ == "__main__":
    if sys.argv[1:2] == ["make"]:
        print(json.dumps(make(), indent=2, ensure_ascii=False))
    elif sys.argv[1:2] == ["make-linked"]:
        print(json.dumps(make_linked(), indent=2, ensure_ascii=False))
    elif sys.argv[1:2] == ["make-jsonl"]:
        for event in make():
            print(json.dumps(event, ensure_ascii=False, separators=(",", ":")))
    elif sys.argv[1:2] == ["check"]:
        sys.exit(1 if check(sys.argv[2:]) else 0)
    else:
        sys.exit(__doc__)
