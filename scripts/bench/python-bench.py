"""In-process bench (issue 22): the 200 tau-bench conversations of the corpus compacted to 50% of
their tokens by `ctxc.compact`, against LangChain `trim_messages` with an exact tiktoken o200k
counter (the LangChain side is scripts/bench/langchain_bench.py's `trim`, as the process-level bench
runs it), in one Python process pinned to one core. Both start from the parsed file and end
with OpenAI chat dicts; neither reads nor writes a file in the timed part.

ctxc is timed two ways: the whole file in one call (`ctxc.compact(runs)`), and one call per
conversation (`ctxc.compact(run["traj"])`, as an agent loop calls it); and, for comparison, the
CLI as a process on the file ($CTXC_BIN, else target/release/ctxc), on the same core. The
medians are of warm runs: ctxc's process-wide count cache already holds every text (an agent
loop's repeated history); each row also shows its first run, the first ctxc call with an empty
cache and the tokenizer's set-up. `count_tokens` and `check` of the whole file are timed too.

Beside each wall time is the CPU time of the calling thread ("caller"): the package's own cost.
The Rust pipeline runs on ctxc's threads while the caller waits with the GIL released, so what
the caller spends is the hand-over: the values written as JSON text, the output built as values,
the Python wrapper. "list -> text" is the caller time of `ctxc.check(runs)`, which makes the
same walk and hands the text to the Rust reader; "output -> list" is the one call's caller time
less that.

Needs `ctxc` (pip install ./python), langchain-core and tiktoken in the running Python; tiktoken
reads o200k from the copy the tiktoken-rs crate ships (no download).
Usage: python scripts/bench/python-bench.py [RUNS] [CORPUS_FILE]   (from the crate directory)
"""

import glob
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_INPUT = HERE.parents[2] / "shared/corpus/openai-chat/tau-bench/gpt-4o-airline.json"


def tiktoken_offline():
    """Points tiktoken's cache at the o200k table the tiktoken-rs crate ships."""
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        return
    cargo = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    found = glob.glob(f"{cargo}/registry/src/*/tiktoken-rs-*/assets/o200k_base.tiktoken")
    if not found:
        return
    cache = tempfile.mkdtemp(prefix="ctxc-bench-tiktoken.")
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    name = hashlib.sha1(url.encode()).hexdigest()
    Path(cache, name).write_bytes(Path(found[0]).read_bytes())
    os.environ["TIKTOKEN_CACHE_DIR"] = cache


def main():
    runs_n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    source = Path(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_INPUT
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    tiktoken_offline()
    sys.dont_write_bytecode = True
    sys.path.insert(0, str(HERE))
    import langchain_bench  # noqa: E402  (needs TIKTOKEN_CACHE_DIR set first)

    import ctxc

    runs = json.loads(source.read_text(encoding="utf-8"))
    ratio = 0.5

    compacted = {}

    def ctxc_whole():
        done = ctxc.compact(runs, target_ratio=ratio, force=True)
        compacted.setdefault("runs", done.messages)
        return done.report["contextTokensBefore"], done.report["contextTokensAfter"]

    def ctxc_each():
        before = after = 0
        for run in runs:
            r = ctxc.compact(run["traj"], target_ratio=ratio, force=True).report
            before += r["contextTokensBefore"]
            after += r["contextTokensAfter"]
        return before, after

    def langchain():
        before = after = 0
        for run in runs:
            _, b, a = langchain_bench.trim(run["traj"], ratio)
            before += b
            after += a
        return before, after

    jobs = {
        "ctxc (one call)": ctxc_whole,
        "ctxc (per conversation)": ctxc_each,
        "ctxc.count_tokens": lambda: (ctxc.count_tokens(runs), 0),
        "ctxc.check": lambda: (len(ctxc.check(runs)), 0),
        "langchain": langchain,
    }
    binary = Path(os.environ.get("CTXC_BIN", HERE.parents[1] / "target/release/ctxc"))
    if binary.exists():
        out = Path(tempfile.mkdtemp(prefix="ctxc-bench.")) / "out.json"

        def cli_process():
            # The process-level job of scripts/bench/langchain-bench.sh, on the same core.
            subprocess.run(
                [str(binary), "compact", "-q", "--no-config", "--force", "--force-overwrite",
                 "--target-ratio", str(ratio), "-o", str(out), str(source)],
                check=True,
            )
            return None

        jobs["ctxc CLI (process)"] = cli_process
    # One warm-up each: imports, token tables, tiktoken's table; and, for ctxc, the count cache
    # the process keeps from call to call (filled by the first job's first call). Its time is
    # shown too: what a process's first call costs.
    tokens, first = {}, {}
    for label, job in jobs.items():
        start = time.perf_counter()
        tokens[label] = job()
        first[label] = time.perf_counter() - start
    times = {label: [] for label in jobs}
    caller = {label: [] for label in jobs}
    for _ in range(runs_n):
        for label, job in jobs.items():
            start, start_cpu = time.perf_counter(), time.thread_time()
            job()
            caller[label].append(time.thread_time() - start_cpu)
            times[label].append(time.perf_counter() - start)
    med = {label: statistics.median(times[label]) for label in jobs}
    cpu = {label: statistics.median(caller[label]) for label in jobs}
    lc = med["langchain"]
    print(f"{len(runs)} conversations at {ratio:.0%}, one core, median of {runs_n} runs:")
    rows = list(jobs)
    rows[1:1] = ["  of which list -> text", "  of which output -> list"]
    derived = {
        "  of which list -> text": cpu["ctxc.check"],
        "  of which output -> list": cpu["ctxc (one call)"] - cpu["ctxc.check"],
    }
    for label in rows:
        if label in derived:
            print(f"  {label:<26} {'':>9}   caller {derived[label] * 1000:7.1f} ms")
            continue
        shown = "" if label.startswith(" ") or label.startswith("ctxc.") else (
            f"(first run {first[label]:.3f} s)"
        )
        counted = (
            f"tokens {tokens[label][0]} -> {tokens[label][1]} (own count)"
            if tokens[label] and not label.startswith("ctxc.")
            else ""
        )
        own = "" if label == "ctxc CLI (process)" else f"caller {cpu[label] * 1000:7.1f} ms"
        ratio_lc = "" if label == "langchain" else f"LangChain / this: {lc / med[label]:.1f}x"
        print(
            f"  {label:<26} {med[label]:7.3f} s   {own:<18} {shown:<20} {counted:<42} {ratio_lc}"
        )


if __name__ == "__main__":
    main()
