#!/usr/bin/env bash
# Times `ctxc compact` (and `ctxc stats`) over the same copy of the corpus, from local files and
# from an S3 stand-in on loopback (moto's server, installed by scripts/s3-standin.sh), in
# alternating turns: whole-process wall time, median of REPS runs each, and their ratio. The
# issue asks for the object-storage run within 1.3x of local files. Not part of CI.
# Usage: scripts/s3-bench.sh [REPS [DIR]]   (default 5 and ../shared/corpus: the .json, .jsonl,
# .traj and .parquet files under DIR; CTXC_BIN=PATH times another build, default
# target/release/ctxc, built when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
bin=${CTXC_BIN:-$PWD/target/release/ctxc}
if [ ! -x "$bin" ]; then
  cargo build --release --locked --bin ctxc
fi
moto=$(scripts/s3-standin.sh)
exec "$(dirname "$moto")/python" scripts/s3_bench.py "$bin" "$moto" "$reps" "${2:-../shared/corpus}"
