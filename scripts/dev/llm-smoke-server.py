"""llama.cpp's OpenAI- and Anthropic-compatible server for scripts/llm-smoke.sh.

    python llm-smoke-server.py MODEL.gguf PORT ALIAS THREADS

Serves MODEL as ALIAS on 127.0.0.1:PORT with xllamacpp (llama.cpp's C++ server in a prebuilt
wheel) until SIGTERM or SIGINT. The server logs to stderr, one "total time" line per request
it finishes: the smoke test counts them.
"""

import signal
import sys

import xllamacpp


def main() -> None:
    model, port, alias, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    stop = {signal.SIGTERM, signal.SIGINT}
    # Blocked before the server's threads start, so they inherit the mask and the signal
    # reaches sigwait below instead of ending the process in the middle of an answer.
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    params = xllamacpp.CommonParams()
    params.model.path = model
    params.model_alias = {alias}
    params.hostnames = ["127.0.0.1"]
    params.port = port
    # The model's training context.
    params.n_ctx = 8192
    # One slot: the smoke test sends one request at a time (--llm-concurrency 1).
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    server = xllamacpp.Server(params)
    print(f"llm-smoke: serving {model} as {alias} at {server.listening_address}", flush=True)
    signal.sigwait(stop)


if __name__ == "__main__":
    main()
