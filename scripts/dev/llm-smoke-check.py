"""Checks one run of scripts/dev/llm-smoke.sh: were the summaries written by the model?

    python llm-smoke-check.py OUTPUT REPORT.json MODEL SERVED_BEFORE SERVED_AFTER

OUTPUT is ctxc's compacted transcript (JSON or JSONL), REPORT its `--report` JSON, MODEL the
`--summary-model`, SERVED_* the requests the server's log showed finished before and after the
run. Prints each summary and a line of figures on stderr; prints what is wrong on stdout and
exits 1, or exits 0 when every summary in OUTPUT says the model wrote it ("written by MODEL for
ctxc.", not the extractive summarizer's ", by ctxc."), the report counts as many and no
fallback, and the server finished at least as many requests as ctxc counted model calls.
"""

import json
import sys

MARKER = "[ctxc summary]"
SHOWN = 1500


def strings(value):
    """Every string in a JSON value, depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)


def summaries_in(path):
    """The text of every ctxc summary in a JSON or JSONL transcript, from its marker on."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        docs = [json.loads(text)]
    except json.JSONDecodeError:
        docs = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [s[s.index(MARKER) :] for d in docs for s in strings(d) if MARKER in s]


def problems_of(summaries, file, model, served):
    """What says that a summary did not come from the model, in words."""
    problems = []
    if not summaries:
        problems.append(
            f"no {MARKER} message in the output (status {file['status']}, "
            f"{file['summaryRequests']} summaries asked for, {file['llmCalls']} model calls; "
            "a summary no shorter than what it replaces is not kept)"
        )
    for s in summaries:
        intro = s[len(MARKER) :].strip().splitlines()[0]
        if not intro.endswith(f"written by {model} for ctxc."):
            who = "the extractive summarizer" if intro.endswith(", by ctxc.") else "not the model"
            problems.append(f"a summary was written by {who}: {intro!r}")
    if file.get("summaryFallbacks"):
        problems.append(f"fallbacks: {file['summaryFallbacks']}")
    if file["summaries"] != len(summaries):
        problems.append(
            f"the report counts {file['summaries']} summaries, the output holds {len(summaries)}"
        )
    if served < max(file["llmCalls"], 1):
        problems.append(
            f"the server logged {served} finished requests, ctxc counted {file['llmCalls']} model calls"
        )
    return problems


def main() -> int:
    out, report, model = sys.argv[1:4]
    served = int(sys.argv[5]) - int(sys.argv[4])
    summaries = summaries_in(out)
    with open(report, encoding="utf-8") as f:
        file = json.load(f)["files"][0]
    for s in summaries:
        print(s[:SHOWN] + (" [...]" if len(s) > SHOWN else ""), end="\n\n", file=sys.stderr)
    print(
        f"{len(summaries)} summaries in the output, {file['llmCalls']} model calls "
        f"({file['llmPromptTokens']} prompt + {file['llmCompletionTokens']} completion tokens), "
        f"{served} requests finished in the server log, context tokens "
        f"{file['contextTokensBefore']} -> {file['contextTokensAfter']}",
        file=sys.stderr,
    )
    problems = problems_of(summaries, file, model, served)
    print("; ".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
