#!/usr/bin/env bash
# Try ctxc on object storage without an account: starts the S3 stand-in (moto's server, which
# scripts/ci/s3-standin.sh installs) on loopback with one bucket, and prints the variables that
# point ctxc at it. The server runs on in the background; the last line printed stops it.
# Usage: eval "$(scripts/dev/s3-try-locally.sh [BUCKET])"      (BUCKET defaults to ctxc-try)
#        then: ctxc compact s3://ctxc-try/in/ --out-dir s3://ctxc-try/out/ …
# Environment: CTXC_S3_VENV (where the stand-in is installed), PORT (default: a free one).
set -euo pipefail
bucket=${1:-ctxc-try}
server=$("$(dirname "$0")/../ci/s3-standin.sh")
python=$(dirname "$server")/python
port=${PORT:-$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
log=${TMPDIR:-/tmp}/ctxc-s3-try-$port.log
nohup "$server" -H 127.0.0.1 -p "$port" >"$log" 2>&1 </dev/null &
pid=$!
endpoint=http://127.0.0.1:$port
"$python" - "$endpoint" "$bucket" <<'PY'
import sys, time, urllib.request
endpoint, bucket = sys.argv[1], sys.argv[2]
for _ in range(300):
    try:
        urllib.request.urlopen(urllib.request.Request(f"{endpoint}/{bucket}", method="PUT"))
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit(f"the S3 stand-in did not start at {endpoint}")
PY
cat <<VARS
# The S3 stand-in runs at $endpoint (pid $pid, log $log) with the bucket s3://$bucket/
export AWS_ENDPOINT_URL=$endpoint
export AWS_ALLOW_HTTP=true
export AWS_ACCESS_KEY_ID=test
export AWS_SECRET_ACCESS_KEY=test
export AWS_REGION=us-east-1
# Stop it with: kill $pid
VARS
