"""Peer benchmark helper (see peer-bench.sh): for each Claude Code session, run a peer on a
scratch copy, measure its output with ctxc (tokens: `ctxc stats`; retention:
`examples/peer_retention`, verbatim: a summary's artifact index not counted), run ctxc's
default at the peer's achieved token budget, measure its output the same way, and print both
side by side with a verdict per session: does ctxc keep at least as many verbatim paths and
commands as the peer? Sessions under 1 MB are left out (issue 40's bench)."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

# Absolute: the peers run in their scratch directories.
CTXC, RETENTION, BIN, SCRATCH = (Path(a).absolute() for a in sys.argv[1:5])
SESSIONS = [Path(a) for a in sys.argv[5:] if Path(a).stat().st_size >= 1 << 20]
KINDS = ["paths", "commands", "errors", "userRequests"]


def tokens(path):
    out = subprocess.run([CTXC, "stats", "--json", path], capture_output=True, check=True)
    return json.loads(out.stdout)["files"][0]["contextTokens"]


def retention(original, rewritten):
    out = subprocess.run([RETENTION, original, rewritten], capture_output=True, check=True)
    return json.loads(out.stdout)["verbatim"]


def cozempic(copy, work):
    subprocess.run([BIN / "cozempic", "treat", str(copy), "-rx", "standard", "--execute"],
                   capture_output=True, check=True, cwd=work, env={"HOME": str(work), "PATH": str(BIN)})
    return copy


def aichat(copy, work):
    out_dir = work / "out"
    out_dir.mkdir()
    subprocess.run([BIN / "aichat", "trim", str(copy), "--simple-ui", "-o", str(out_dir)],
                   capture_output=True, check=True, cwd=work, env={"HOME": str(work), "PATH": str(BIN)},
                   input=b"")
    made = sorted(out_dir.glob("*.jsonl"))
    if not made:
        raise RuntimeError("aichat wrote no file")
    return made[0]


def ctxc_at(session, budget, work):
    # The budget is ctxc's own count of the peer's output (`stats`), so the target is too:
    # without --raw-tokens it would be read as the provider-calibrated figure, a smaller budget.
    # The output is written to a scratch copy and measured as the peer's is.
    mine = work / "ctxc"
    mine.mkdir()
    copy = mine / session.name
    shutil.copy(session, copy)
    subprocess.run([CTXC, "compact", "--force", "-q", "--raw-tokens", "--target-tokens",
                    str(budget), copy], capture_output=True, check=True)
    out = copy.with_name(copy.stem + ".compact" + copy.suffix)
    return tokens(out), retention(session, out)


def cell(counts, kind):
    kept, total = counts[kind]
    return f"{kept}/{total}"


rows, sums = [], {}
for peer_name, peer in [("cozempic treat -rx standard", cozempic), ("aichat trim", aichat)]:
    for session in SESSIONS:
        work = SCRATCH / f"{peer.__name__}-{session.parent.name}-{session.stem}"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        copy = work / session.name
        shutil.copy(session, copy)
        try:
            result = peer(copy, work)
        except Exception as e:  # a peer that fails on a session is reported, not fatal
            rows.append((peer_name, session.name, f"peer failed: {e}"))
            continue
        before = tokens(session)
        budget = tokens(result)
        peer_counts = retention(session, result)
        ours, our_counts = ctxc_at(session, budget, work)
        rows.append((peer_name, session.name, before, budget, peer_counts, ours, our_counts))
        for who, counts in [(peer_name, peer_counts), ("ctxc@" + peer_name, our_counts)]:
            total = sums.setdefault(who, {k: [0, 0] for k in KINDS})
            for k in KINDS:
                total[k][0] += counts[k][0]
                total[k][1] += counts[k][1]

print("Verbatim facts kept (p/c/e/u: paths, commands, errors, user requests; an artifact index not counted)")
print()
print("| peer | session | tokens before | peer tokens | peer p/c/e/u | ctxc tokens | ctxc p/c/e/u | ctxc ≥ peer (paths, commands) |")
print("|---|---|---|---|---|---|---|---|")
for row in rows:
    if len(row) == 3:
        print(f"| {row[0]} | {row[1]} | {row[2]} | | | | | |")
        continue
    peer_name, name, before, budget, pc, ours, oc = row
    fmt = lambda c: " ".join(cell(c, k) for k in KINDS)
    wins = all(oc[k][0] >= pc[k][0] for k in ["paths", "commands"])
    print(f"| {peer_name} | {name} | {before} | {budget} | {fmt(pc)} | {ours} | {fmt(oc)} | {'yes' if wins else 'no'} |")
print()
print("| totals | paths | commands | errors | user requests |")
print("|---|---|---|---|---|")
for who, total in sums.items():
    print(f"| {who} | " + " | ".join(f"{total[k][0]}/{total[k][1]}" for k in KINDS) + " |")
