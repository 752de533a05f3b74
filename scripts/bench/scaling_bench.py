"""Scaling and peer bench (issue 28): whole-process timings of one ctxc build, side by side.

- Scaling: `stats` and `compact --dry-run --force --target-ratio 0.5` over the corpus copied
  REPEAT times into one folder, at each --jobs in JOBS. Speed-ups are over --jobs 1.
- The machine's ceiling, for each command: N independent processes each doing the whole
  `--jobs 1` job over the repeated corpus, started at once, against one alone (N = each --jobs
  value). Nothing is shared between them but the machine, so N x (one alone) / (N at once) is
  the most N threads could gain on this very work here (shared caches, memory bandwidth, clock
  speed under load); "reached" is the --jobs N speed-up as a share of it.
- One core (taskset -c 0): `stats` of the largest Claude Code session, `compact` of it at 50%
  writing its output, and, when COZEMPIC names its binary, cozempic `treat -rx standard
  --execute` on a fresh copy (what it does to a session the user keeps). Ratios to stats and to
  ctxc's written compaction.

Each row is a median of RUNS runs after one warm-up (page cache). Prints one table; exits 1
when a ctxc run fails for a reason other than the corpus's own refused files (exit 1 with
findings is how compact reports those).

Usage: python3 scripts/bench/scaling_bench.py --ctxc BIN --corpus DIR [--repeat 16] [--jobs 1 4 16]
         [--runs 3] [--cozempic BIN]
(the 2-core CI machines can run it too, with --jobs 1 2; a 16-core machine shows the targets.)
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv, runs, env=None, before=None, ok=(0, 1)):
    """Median wall seconds and median CPU seconds (user + system, all threads) of `argv` over
    `runs` runs, after one warm-up run. An exit status outside `ok` stops the bench: a run
    that failed early would pass for a fast one."""
    walls, cpus = [], []
    for i in range(runs + 1):
        if before:
            before()
        start, start_cpu = time.perf_counter(), children_cpu()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        wall, cpu = time.perf_counter() - start, children_cpu() - start_cpu
        if done.returncode not in ok:
            sys.exit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
        if i:
            walls.append(wall)
            cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus)


def repeated_corpus(corpus, repeat, into):
    """The corpus's transcripts copied `repeat` times, each copy in its own folder."""
    for i in range(repeat):
        shutil.copytree(corpus, into / f"copy{i:02}", ignore=shutil.ignore_patterns("*.md"))
    files = [p for p in into.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def at_once(argv, n, runs, ok):
    """Median wall seconds of `n` processes of `argv` started together, after a warm-up."""
    walls = []
    for i in range(runs + 1):
        start = time.perf_counter()
        procs = [subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                 for _ in range(n)]
        for proc in procs:
            _, err = proc.communicate()
            if proc.returncode not in ok:
                sys.exit(f"{' '.join(argv)} exited {proc.returncode}: {err.decode()[-2000:]}")
        if i:
            walls.append(time.perf_counter() - start)
    return statistics.median(walls)


def ceiling(commands, rows, big, args):
    """The ceiling rows: N independent processes each doing the whole `--jobs 1` job (own count
    cache; the files read-only, one page cache), started at once, against one alone. Nothing is
    shared but the machine, so N x (one alone) / (N at once) is what N cores give this very
    work at all (shared caches, memory bandwidth, clock speed under load); the `--jobs N`
    speed-up is shown as a share of it."""
    print("ceiling: N independent `--jobs 1` runs of the same job at once, N x (one alone) / "
          "(N at once); --jobs N speed-up as a share of it")
    for name, base, ok in commands:
        argv = base + ["--jobs", "1", str(big)]
        alone = rows[(name, 1)][0] if (name, 1) in rows else at_once(argv, 1, args.runs, ok)
        most = {n: n * alone / at_once(argv, n, args.runs, ok) if n > 1 else 1.0
                for n in args.jobs}
        first = rows[(name, args.jobs[0])][0]
        share = {n: first / rows[(name, n)][0] / (most[n] / most[args.jobs[0]])
                 for n in args.jobs}
        print(f"{name:<10}" + "".join(f"{most[n]:>25.1f}x" for n in args.jobs))
        print(f"{'  reached':<10}" + "".join(f"{share[n]:>26.0%}" for n in args.jobs))


def largest_claude_session(corpus):
    sessions = list((corpus / "claude-code").rglob("*.jsonl"))
    return max(sessions, key=lambda p: p.stat().st_size)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ctxc", required=True)
    ap.add_argument("--corpus", required=True, type=Path)
    ap.add_argument("--repeat", type=int, default=16)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cozempic")
    args = ap.parse_args()
    ctxc = str(Path(args.ctxc).resolve())
    tmp = Path(tempfile.mkdtemp(prefix="ctxc-scaling."))
    try:
        run(args, ctxc, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(args, ctxc, tmp):
    big = tmp / "corpus"
    files, size = repeated_corpus(args.corpus, args.repeat, big)
    print(f"{os.cpu_count()} CPUs; corpus x{args.repeat}: {files} files, {size / 1e6:.0f} MB; "
          f"median of {args.runs} runs after a warm-up")
    compact = [ctxc, "compact", "-q", "--no-config", "--dry-run", "--force", "--target-ratio",
               "0.5"]
    stats = [ctxc, "stats", "-q"]
    rows = {}
    # stats reads every corpus file (exit 0); compact refuses the corpus's broken ones (exit 1).
    commands = (("stats", stats, (0,)), ("compact", compact, (0, 1)))
    for name, base, ok in commands:
        for jobs in args.jobs:
            rows[(name, jobs)] = timed(base + ["--jobs", str(jobs), str(big)], args.runs, ok=ok)
    print("wall seconds, speed-up over the first column, CPU seconds (all threads)")
    print(f"{'command':<10}" + "".join(f"{'--jobs ' + str(j):>26}" for j in args.jobs))
    for name in ("stats", "compact"):
        first = rows[(name, args.jobs[0])][0]
        cells = "".join(f"{rows[(name, j)][0]:>8.3f} s {first / rows[(name, j)][0]:>5.1f}x "
                        f"{rows[(name, j)][1]:>6.2f} s CPU" for j in args.jobs)
        print(f"{name:<10}{cells}")
    ceiling(commands, rows, big, args)

    session = largest_claude_session(args.corpus)
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    mb = session.stat().st_size / 1e6
    one = {
        "stats": timed(pin + stats + [str(session)], 5, ok=(0,))[0],
        "compact, written": timed(
            pin + [ctxc, "compact", "-q", "--no-config", "--force", "--force-overwrite",
                   "--target-ratio", "0.5", "--jobs", "1", "-o", str(tmp / "out.jsonl"),
                   str(session)], 5)[0],
    }
    if args.cozempic:
        home = tmp / "home"
        home.mkdir()
        copy = home / "session.jsonl"

        def fresh():
            shutil.copyfile(session, copy)

        env = dict(os.environ, HOME=str(home))
        one["cozempic treat -rx standard"] = timed(
            pin + [args.cozempic, "treat", str(copy), "-rx", "standard", "--execute"], 5,
            env=env, before=fresh, ok=(0,))[0]
    print(f"one core{' (taskset -c 0)' if pin else ''}, {session.name} ({mb:.1f} MB), "
          "median of 5:")
    for name, wall in one.items():
        print(f"  {name:<30} {wall * 1000:8.1f} ms  {wall / one['stats']:5.2f}x stats  "
              f"{wall / one['compact, written']:5.2f}x compact")


if __name__ == "__main__":
    main()
