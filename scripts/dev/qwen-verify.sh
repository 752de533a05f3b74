#!/usr/bin/env bash
# Loads every output ctxc writes for the Qwen Code fixtures with the client's own loader: each
# strategy at 0.5 and 0.25 over fixtures/qwen/resumed.jsonl, compressed.jsonl, long.jsonl and
# the repair of unanswered.jsonl, each read back by scripts/dev/qwen_session_context.mjs, which
# must find the chain whole, the pairs valid (before the client's own send-time repair), the
# task first, the latest prompt sent and the session listed with its prompt as title.
# Usage: QWEN_CODE_DIR=<@qwen-code/qwen-code 0.24.4 package dir> scripts/dev/qwen-verify.sh [CTXC]
set -euo pipefail
cd "$(dirname "$0")/../.."
ctxc=${1:-target/debug/ctxc}
export PATH="$(scripts/ci/node.sh):$PATH"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$ctxc" repair fixtures/qwen/unanswered.jsonl -o "$out/repaired.jsonl" >/dev/null
strategies="adaptive strip-payloads dedup trim-outputs trim-calls sliding-window importance
  key-events incremental selective observation-masking full-summary truncate drop-stored"
n=0 bad=0 summaries=0
for input in fixtures/qwen/resumed.jsonl fixtures/qwen/compressed.jsonl fixtures/qwen/long.jsonl "$out/repaired.jsonl"; do
  base=$(basename "$input")
  case $base in
    compressed.jsonl) task="<state_snapshot>" latest="Thanks. Summarize" ;;
    long.jsonl) task="Read the long file" latest="Which file is shorter" ;;
    *) task="What is in notes.txt" latest="Good. What was the first command" ;;
  esac
  for s in $strategies; do
    for r in 0.5 0.25; do
      o="$out/${base%.*}.$s.$r.jsonl"
      "$ctxc" compact --force --strategy "$s" --target-ratio "$r" "$input" -o "$o" >/dev/null
      n=$((n + 1))
      node scripts/dev/qwen_session_context.mjs "$o" >"$o.ctx"
      if ! python3 - "$o.ctx" "$task" "$latest" <<'P'; then
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
if not d["loaded"] or d["gaps"]: bad.append("chain")
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
echo "qwen-verify: $n outputs loaded by Qwen Code's own loader, $bad failing, $summaries with the summary sent"
[ "$bad" -eq 0 ]
