#!/usr/bin/env bash
# The S3 stand-in the object-storage tests (tests/cli/s3.rs) and scripts/bench/s3-bench.sh start:
# moto's server (`moto[server]` from PyPI, pinned), installed into a scratch venv at
# $CTXC_S3_VENV (default: $CARGO_TARGET_DIR/s3-standin, i.e. target/s3-standin). It only
# installs; the tests start `moto_server` on a free loopback port and stop it. Re-running
# keeps a venv that already has the pinned version and whose moto_server still runs (a venv's
# scripts name its interpreter by absolute path: a moved target/ breaks them); it replaces only
# a folder that is a venv (or empty), never another folder $CTXC_S3_VENV happens to name. Needs
# python3 (3.9 or later) with venv and pip access to PyPI. Prints the path of the moto_server it installed.
# Usage: scripts/ci/s3-standin.sh   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/../.."
moto_version=5.2.5
venv=${CTXC_S3_VENV:-${CARGO_TARGET_DIR:-$PWD/target}/s3-standin}
python=${PYTHON:-python3}
if ! "$venv/bin/python" -c "import moto, sys; sys.exit(moto.__version__ != '$moto_version')" 2>/dev/null ||
  ! "$venv/bin/moto_server" --help >/dev/null 2>&1; then
  if [ -e "$venv" ] && [ ! -f "$venv/pyvenv.cfg" ] && [ -n "$(ls -A "$venv" 2>/dev/null)" ]; then
    echo "s3-standin: $venv is not a venv; not replacing it (set CTXC_S3_VENV to a scratch folder)" >&2
    exit 1
  fi
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "moto[server]==$moto_version"
fi
echo "$venv/bin/moto_server"
