#!/usr/bin/env bash
# Loads every output ctxc writes for the Gemini CLI fixtures with the client's own loader:
# each strategy at 0.5 and 0.25 over fixtures/gemini/resumed.jsonl, legacy.json and the repair
# of unanswered.jsonl, each read back by scripts/dev/gemini_session_context.mjs, which must find
# the pairs valid, the task first, the latest prompt sent and the session listed with a title.
# Usage: GEMINI_CLI_DIR=<@google/gemini-cli 0.61.0 package dir> scripts/dev/gemini-verify.sh [CTXC]
set -euo pipefail
cd "$(dirname "$0")/../.."
ctxc=${1:-target/debug/ctxc}
export PATH="$(scripts/ci/node.sh):$PATH"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$ctxc" repair fixtures/gemini/unanswered.jsonl -o "$out/repaired.jsonl" >/dev/null
strategies="adaptive strip-payloads dedup trim-outputs trim-calls sliding-window importance
  key-events incremental selective observation-masking full-summary truncate drop-stored"
n=0 bad=0 summaries=0
for input in fixtures/gemini/resumed.jsonl fixtures/gemini/legacy.json "$out/repaired.jsonl"; do
  base=$(basename "$input")
  case $base in
    legacy.json) task="What is in notes.txt" latest="Good. What was the first command" ;;
    *) task="Inspect this project" latest="Thanks. Summarize" ;;
  esac
  for s in $strategies; do
    for r in 0.5 0.25; do
      o="$out/${base%.*}.$s.$r.${base##*.}"
      "$ctxc" compact --force --strategy "$s" --target-ratio "$r" "$input" -o "$o" >/dev/null
      n=$((n + 1))
      node scripts/dev/gemini_session_context.mjs "$o" >"$o.ctx"
      if ! python3 - "$o.ctx" "$task" "$latest" <<'P'; then
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
if d["unanswered"] or d["faults"]: bad.append("pairs")
if not (d["listed"] and d["listed"]["title"]): bad.append("not listed")
if not d["first"].startswith(sys.argv[2]): bad.append("task")
if not any(t.startswith(sys.argv[3]) for t in d["texts"]): bad.append("latest prompt")
if bad: sys.exit(print(sys.argv[1], bad) or 1)
P
        bad=$((bad + 1))
      fi
      grep -q '\[ctxc summary\]' "$o.ctx" && summaries=$((summaries + 1))
    done
  done
done
echo "gemini-verify: $n outputs loaded by Gemini CLI's own loader, $bad failing, $summaries with the summary sent"
[ "$bad" -eq 0 ]
