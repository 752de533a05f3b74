#!/usr/bin/env bash
# Compact a directory of transcripts with a Slurm job array of 8 tasks:
#   sbatch examples/slurm-array.sh transcripts/ out/
# Each task takes its share with `--shard auto` (index and count come from SLURM_ARRAY_TASK_ID,
# _MIN and _MAX) and keeps its own resume manifest, so `--requeue` after a preemption skips the
# files a task had finished. When all tasks are done, merge their reports:
#   ctxc report merge reports/shard-*.json --json > report.json
#SBATCH --job-name=ctxc-compact
#SBATCH --array=0-7
#SBATCH --cpus-per-task=2
#SBATCH --mem=1G
#SBATCH --requeue
#SBATCH --output=logs/ctxc-%A_%a.log
set -euo pipefail
in=${1:?usage: sbatch slurm-array.sh INPUT_DIR OUT_DIR}
out=${2:?usage: sbatch slurm-array.sh INPUT_DIR OUT_DIR}
mkdir -p "$out" manifests reports
exec ctxc compact "$in" --out-dir "$out" --target-ratio 0.5 -q \
  --shard auto \
  --resume-from "manifests/shard-$SLURM_ARRAY_TASK_ID.jsonl" \
  --report "reports/shard-$SLURM_ARRAY_TASK_ID.json"
