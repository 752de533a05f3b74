#!/usr/bin/env bash
# Peer benchmark (not CI): ctxc's default against cozempic and claude-code-tools (aichat
# trim) at the same model-visible token budget, on scratch copies of the corpus's real
# Claude Code sessions of 1 MB or more, verbatim facts counted. Installs both peers from
# PyPI into a venv under target/.
# Usage: scripts/bench/peer-bench.sh [SCRATCH_DIR]   (run from the crate directory)
set -euo pipefail
scratch=${1:-$(mktemp -d /tmp/ctxc-peer-bench.XXXXXX)}
mkdir -p "$scratch"
# The peers' venv stays under target/, where `cargo bench --bench process` finds cozempic for
# its peer row.
venv=${CTXC_PEER_VENV:-target/peer/venv}
if [ ! -x "$venv/bin/cozempic" ] || [ ! -x "$venv/bin/aichat" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q cozempic claude-code-tools
fi
cargo build -q --release --bin ctxc --example peer_retention
sessions=$(find ../shared/corpus/claude-code -name '*.jsonl' -size +1023k | sort)
# shellcheck disable=SC2086
python3 scripts/bench/peer_bench.py target/release/ctxc target/release/examples/peer_retention \
  "$venv/bin" "$scratch/runs" $sessions
