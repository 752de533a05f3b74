#!/usr/bin/env bash
# The Python package's tests (python/tests): builds and installs `pip install ./python` into a
# scratch venv made afresh, with the engines compact_batch is tested in (Ray Data, Spark,
# Hugging Face datasets: python/requirements-engines.txt), builds the ctxc binary the parity
# tests compare with (unless $CTXC_BIN names one), and runs pytest. Rust builds go to
# $CARGO_TARGET_DIR (default: target/ of this crate), the venv to $CTXC_PY_SCRATCH (default:
# $CARGO_TARGET_DIR/python-tests). Needs python3 (3.9 or later) with venv, pip access to PyPI
# (maturin; pytest; langchain-core, for the LangChain drop-in; the engines), and Java 17 or
# later for Spark (`java`, or $JAVA_HOME). The corpus is ../shared/corpus, or $CTXC_CORPUS;
# without it the parity tests are skipped.
# Usage: scripts/ci/python-tests.sh [PYTEST_ARGS...]   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
scratch=${CTXC_PY_SCRATCH:-$CARGO_TARGET_DIR/python-tests}
python=${PYTHON:-python3}
# The extension crate is its own workspace: the CLI crate's `cargo fmt` does not see it.
cargo fmt --manifest-path python/Cargo.toml -- --check
rm -rf "$scratch/venv"
mkdir -p "$scratch"
"$python" -m venv "$scratch/venv"
# The extension is built with cargo's dev profile (python/Cargo.toml: optimised, as the root
# crate's dev dependencies are) into $CARGO_TARGET_DIR: after `cargo test` there, only PyO3, ctxc
# and the extension are compiled, where a release wheel would build every dependency again.
# CTXC_PY_PROFILE=release builds the wheel a user gets.
export MATURIN_PEP517_ARGS="--profile ${CTXC_PY_PROFILE:-dev}"
"$scratch/venv/bin/pip" install -q --disable-pip-version-check ./python pytest langchain-core \
  -r python/requirements-engines.txt
# The engines were installed: a test that cannot import one fails instead of skipping.
export CTXC_ENGINES_REQUIRED=1
# The CLI the parity tests compare with: $CTXC_BIN when given (CI passes the one its tests
# built), else a release build.
if [ -z "${CTXC_BIN:-}" ]; then
  cargo build -q --release --locked --bin ctxc
  CTXC_BIN=$CARGO_TARGET_DIR/release/ctxc
fi
export CTXC_BIN
# Run from the scratch directory: `import ctxc` must find the installed package, never the
# python/ctxc folder (which has no native module).
cd "$scratch"
exec "$scratch/venv/bin/python" -m pytest -q -p no:cacheprovider "$OLDPWD/python/tests" "$@"
