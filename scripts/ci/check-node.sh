#!/usr/bin/env bash
# Checks that Node.js and npm are there, and that node is as new as the end-to-end test's pinned
# clients need: the highest `engines.node` (">=N") in tests/e2e/package-lock.json (Claude Code
# 2.1.330 asks for 22). `npm ci` only warns about an older node, and the test then fails far
# from the cause, so .ci/run checks first.
set -euo pipefail
cd "$(dirname "$0")/../.."
lock=tests/e2e/package-lock.json
need=$(grep -o '"node": *">= *[0-9]*' "$lock" | grep -o '[0-9]*$' | sort -n | tail -1)
command -v node >/dev/null 2>&1 || {
  echo "ci: node is missing: tests/e2e needs Node.js $need+ and npm (engines in $lock)" >&2
  exit 1
}
command -v npm >/dev/null 2>&1 || {
  echo "ci: npm is missing: tests/e2e needs Node.js $need+ and npm (engines in $lock)" >&2
  exit 1
}
have=$(node --version)
major=${have#v}
major=${major%%.*}
if ! [ "$major" -ge "$need" ] 2>/dev/null; then
  echo "ci: node $have is too old: tests/e2e's pinned clients need Node.js $need+ (engines in $lock); install a newer Node.js" >&2
  exit 1
fi
echo "ci: node $have (tests/e2e needs $need+)"
