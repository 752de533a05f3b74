#!/usr/bin/env bash
# `ctxc fit` checked by Hugging Face's own Python stack (docs/training.md): the corpus's
# SWE-agent, OpenHands, tau-bench, Claude Code and Codex files fitted at --max-len 4096 and
# 8192 with the Qwen3 tokenizer and template, then every sample re-counted by the `tokenizers`
# package on the template rendered by Jinja2 (scripts/ci/fit_check.py). Needs python3 with venv
# and pip access to PyPI; the binary is $CTXC_BIN (default target/debug/ctxc).
# Usage: scripts/ci/fit-check.sh   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/../.."
ctxc=${CTXC_BIN:-$PWD/target/debug/ctxc}
scratch=${CARGO_TARGET_DIR:-$PWD/target}/fit-check
rm -rf "$scratch"
mkdir -p "$scratch"
python3 -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install -q --disable-pip-version-check tokenizers==0.23.3 jinja2==3.1.6
tk=fixtures/tokenizers/qwen3/tokenizer.json
corpus=../shared/corpus
for n in 4096 8192; do
  "$ctxc" fit -q "$corpus/swe-agent" "$corpus/openhands" "$corpus/openai-chat/tau-bench" \
    "$corpus/claude-code/spotter" "$corpus/codex-rollout" \
    --max-len "$n" --tokenizer-file "$tk" -o "$scratch/samples-$n.jsonl"
  "$scratch/venv/bin/python" scripts/ci/fit_check.py "$scratch/samples-$n.jsonl" --max-len "$n" \
    --tokenizer-file "$tk"
done
