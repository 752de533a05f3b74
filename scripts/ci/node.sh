#!/usr/bin/env bash
# Prints a directory to put first on PATH so that `node` is as new as tests/e2e's pinned
# clients need (the highest `engines.node` in tests/e2e/package-lock.json; Claude Code 2.1.330
# asks for 22): the system's own node when it is new enough (prints nothing), else Node.js
# $CTXC_NODE_VERSION from the npm registry (the `node-linux-<arch>` package carries the official
# binary), installed once into $CARGO_TARGET_DIR/node (default target/node). Needs npm.
# Usage: export PATH="$(scripts/ci/node.sh):$PATH"   (from the crate directory)
set -euo pipefail
cd "$(dirname "$0")/../.."
version=${CTXC_NODE_VERSION:-22.23.3}
lock=tests/e2e/package-lock.json
need=$(grep -o '"node": *">= *[0-9]*' "$lock" | grep -o '[0-9]*$' | sort -n | tail -1)
have=$(node --version 2>/dev/null || echo v0)
major=${have#v}
major=${major%%.*}
if [ "$major" -ge "$need" ] 2>/dev/null; then
  exit 0
fi
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "ci: no Node.js package for $(uname -m); install Node.js $need+" >&2; exit 1 ;;
esac
prefix=${CARGO_TARGET_DIR:-$PWD/target}/node
bin=$prefix/node_modules/node-linux-$arch/bin
if [ "$("$bin/node" --version 2>/dev/null)" != "v$version" ]; then
  echo "ci: node $have is older than the $need+ tests/e2e needs: installing Node.js $version from the npm registry" >&2
  npm install --silent --no-save --no-audit --no-fund --prefix "$prefix" "node-linux-$arch@$version" >&2
fi
echo "$bin"
