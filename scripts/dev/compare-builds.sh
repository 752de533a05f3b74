#!/usr/bin/env bash
# Proves a change left ctxc's results alone: runs two builds over the corpus with the same
# settings (4 strategies x 2 targets, plus stats and check) and compares every output file and
# every JSON report, byte for byte, with the timings taken out of the reports.
#
#   scripts/dev/compare-builds.sh BASELINE_BIN CANDIDATE_BIN [CORPUS]
#
# Prints one line per setting and exits 1 at the first difference (diff shown).
set -euo pipefail

base=${1:?baseline binary}
cand=${2:?candidate binary}
corpus=${3:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/corpus}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Timings and absolute paths of the scratch folders are the only things allowed to differ.
normalise() {
    python3 -c '
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if not any(w in k.lower() for w in ("elapsed", "millis", "seconds", "duration", "timing", "timems"))}
    if isinstance(v, list):
        return [strip(x) for x in v]
    if isinstance(v, str):
        return v.replace(sys.argv[2], "OUT")
    return v
print(json.dumps(strip(json.load(open(sys.argv[1]))), indent=1, sort_keys=True))
' "$1" "$2"
}

run_both() {
    local name=$1
    shift
    for side in base cand; do
        local bin=$base
        [ "$side" = cand ] && bin=$cand
        local out=$work/$side/$name
        mkdir -p "$out"
        # The exit status is compared too: a refusal must stay a refusal.
        set +e
        "$bin" -q -j 2 "$@" --out-dir "$out/files" --report "$out/report.json" "$corpus" \
            >"$out/stdout" 2>"$out/stderr"
        echo $? >"$out/status"
        set -e
        [ -f "$out/report.json" ] && normalise "$out/report.json" "$out/files" >"$out/report.norm"
        rm -f "$out/report.json"
    done
    if diff -r "$work/base/$name" "$work/cand/$name" >"$work/diff" 2>&1; then
        echo "same: $name ($(find "$work/cand/$name/files" -type f 2>/dev/null | wc -l) outputs)"
    else
        echo "DIFFERENT: $name" >&2
        head -50 "$work/diff" >&2
        exit 1
    fi
}

for strategy in adaptive sliding-window observation-masking full-summary; do
    for ratio in 0.5 0.25; do
        run_both "$strategy-$ratio" compact --force --strategy "$strategy" --target-ratio "$ratio"
    done
done

for side in base cand; do
    bin=$base
    [ "$side" = cand ] && bin=$cand
    "$bin" -q stats --json "$corpus" >"$work/$side.stats" 2>&1 || true
    "$bin" -q check "$corpus" >"$work/$side.check" 2>&1 || true
done
for what in stats check; do
    if cmp -s "$work/base.$what" "$work/cand.$what"; then
        echo "same: $what"
    else
        echo "DIFFERENT: $what" >&2
        diff "$work/base.$what" "$work/cand.$what" | head -30 >&2
        exit 1
    fi
done
