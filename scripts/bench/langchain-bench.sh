#!/usr/bin/env bash
# The tau-bench job against LangChain (not CI): the 200 tau-bench conversations of the corpus
# compacted to 50% of their tokens, whole process, pinned to one core — ctxc's adaptive
# compaction against LangChain `trim_messages` with an exact tiktoken o200k counter
# (scripts/bench/langchain_bench.py). Installs langchain-core and tiktoken from PyPI into a scratch
# venv; tiktoken reads o200k from the copy the tiktoken-rs crate ships (no download).
# Usage: scripts/bench/langchain-bench.sh [RUNS] [SCRATCH_DIR]   (run from the crate directory)
set -euo pipefail
runs=${1:-5}
scratch=${2:-$(mktemp -d /tmp/ctxc-langchain-bench.XXXXXX)}
input=../shared/corpus/openai-chat/tau-bench/gpt-4o-airline.json
mkdir -p "$scratch/tiktoken"
if [ ! -x "$scratch/venv/bin/python" ]; then
  python3 -m venv "$scratch/venv"
  "$scratch/venv/bin/pip" install -q langchain-core tiktoken
fi
# tiktoken's cache names a file by the SHA-1 of its download address; it checks the content's hash.
bpe=$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -path '*tiktoken-rs-*/assets/o200k_base.tiktoken' | head -1)
url=https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken
cp "$bpe" "$scratch/tiktoken/$(printf '%s' "$url" | sha1sum | cut -d' ' -f1)"
export TIKTOKEN_CACHE_DIR=$scratch/tiktoken
cargo build -q --release --bin ctxc
pin=()
if command -v taskset >/dev/null; then pin=(taskset -c 0); fi
time_one() { # label, command...: appends "label seconds peak_kb" to $scratch/times
  local label=$1
  shift
  /usr/bin/time -f "$label %e %M" -a -o "$scratch/times" "${pin[@]}" "$@" >/dev/null 2>&1
}
: >"$scratch/times"
for _ in $(seq "$runs"); do
  time_one ctxc target/release/ctxc compact -q --force --force-overwrite --target-ratio 0.5 \
    -o "$scratch/ctxc-out.json" "$input"
  time_one langchain "$scratch/venv/bin/python" scripts/bench/langchain_bench.py "$input" \
    "$scratch/langchain-out.json" 0.5
done
python3 - "$scratch/times" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
med = {}
for label in ("ctxc", "langchain"):
    secs = [float(r[1]) for r in rows if r[0] == label]
    kb = [int(r[2]) for r in rows if r[0] == label]
    med[label] = statistics.median(secs)
    print(f"{label:<10} median {med[label]:.3f} s  peak {statistics.median(kb) / 1024:.1f} MiB  ({len(secs)} runs)")
print(f"LangChain / ctxc: {med['langchain'] / med['ctxc']:.2f}x")
EOF
