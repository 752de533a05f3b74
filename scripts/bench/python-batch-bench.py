"""compact_batch bench (issue 22): throughput per core against the CLI on the same Parquet file,
and Ray Data's rows/s at 1..N workers.

The file: the 200 tau-bench conversations of the corpus, repeated REPEAT times, as a
list-of-struct `messages` column beside an `id`, in row groups of 200, zstd. Every job compacts
it to 50% of its tokens (--force: every row is compacted).

- CLI: `ctxc compact data.parquet -o out.parquet --force --target-ratio 0.5` as a process,
  pinned to one core ($CTXC_BIN, else target/release/ctxc). Its CPU seconds and
  compact_batch's are compared (wall seconds are printed too): on a shared machine, wall time
  measures the other jobs as much as this one.
- compact_batch: the same, in this process, pinned to the same core: pyarrow reads the file,
  `ctxc.compact_batch` compacts the table, pyarrow writes it (zstd); and compact_batch alone.
- Ray Data: `read_parquet → map_batches(ctxc.compact_batch, batch_format="pyarrow") →
  write_parquet` with `ray.init(num_cpus=W)` for each W in WORKERS, each task on one thread
  (RAYON_NUM_THREADS=1 in the workers), timed from read to the last file written (Ray's start
  not included). Ray reads the same rows split into 32 files, then repartitions them into 64
  blocks: Ray Data 2.60 reads a dataset of a few MB in one task (files are grouped up to its
  target block size, and `override_num_blocks` does not split them), so without the
  repartition one worker gets all the work whatever num_cpus is. CTXC_BENCH_RAY_ONLY=1 skips
  the one-core part.

Needs ctxc (pip install ./python), pyarrow and, for the Ray part, ray[data]. The corpus is
../shared/corpus, or $CTXC_CORPUS.
Usage: python scripts/bench/python-batch-bench.py [REPEAT] [RUNS] [WORKERS...]   (from the crate
directory; defaults: 5, 3, 1 2)
"""

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = Path(os.environ.get("CTXC_CORPUS", HERE.parents[2] / "shared/corpus"))
TAU = CORPUS / "openai-chat/tau-bench/gpt-4o-airline.json"


def cpu_seconds():
    """CPU seconds of this process (all its threads) and of its waited-for children."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def median_time(job, runs):
    """Median wall and CPU seconds of `job` (after a warm-up run: page cache, token tables,
    imports). CPU seconds are the fair measure on a machine other jobs share."""
    job()
    walls, cpus = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), cpu_seconds()
        job()
        walls.append(time.perf_counter() - start)
        cpus.append(cpu_seconds() - start_cpu)
    return statistics.median(walls), statistics.median(cpus)


def main():
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    workers = [int(w) for w in sys.argv[3:]] or [1, 2]
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = Path(tempfile.mkdtemp(prefix="ctxc-batch-bench."))
    trajs = [run["traj"] for run in json.loads(TAU.read_text(encoding="utf-8"))]
    rows = [{"id": i, "messages": t} for i, t in enumerate(trajs * repeat)]
    data = tmp / "data.parquet"
    pq.write_table(pa.Table.from_pylist(rows), data, row_group_size=200, compression="zstd")
    n = len(rows)
    print(f"{n} conversations ({data.stat().st_size / 1e6:.1f} MB Parquet), 50%, --force, "
          f"median of {runs} runs")

    parts = tmp / "parts"
    parts.mkdir()
    table = pa.Table.from_pylist(rows)
    per_part = -(-n // 32)
    for k in range(32):
        pq.write_table(table.slice(k * per_part, per_part), parts / f"part-{k:02}.parquet",
                       row_group_size=200, compression="zstd")
    if os.environ.get("CTXC_BENCH_RAY_ONLY") != "1":
        one_core(data, tmp, n, runs)
    ray_data(parts, tmp, n, runs, workers)
    shutil.rmtree(tmp, ignore_errors=True)


def one_core(data, tmp, n, runs):
    """The CLI and compact_batch on one pinned core, CPU seconds side by side."""
    import pyarrow.parquet as pq

    # One core for the CLI and compact_batch alike; compact_batch's threads are made on its
    # first call, after this, so there is one.
    all_cpus = os.sched_getaffinity(0)
    core = sorted(all_cpus)[0]
    os.sched_setaffinity(0, {core})
    import ctxc

    binary = Path(os.environ.get("CTXC_BIN", HERE.parents[1] / "target/release/ctxc"))
    out = tmp / "out.parquet"

    def cli():
        subprocess.run(
            [str(binary), "compact", "-q", "--no-config", "--force", "--force-overwrite",
             "--target-ratio", "0.5", str(data), "-o", str(out)],
            check=True,
        )

    def in_process():
        table = pq.read_table(data)
        done = ctxc.compact_batch(table, target_ratio=0.5, force=True)
        pq.write_table(done, tmp / "py.parquet", row_group_size=200, compression="zstd")

    table = pq.read_table(data)

    def batch_only():
        ctxc.compact_batch(table, target_ratio=0.5, force=True)

    results = {}
    if binary.exists():
        results["CLI process (read, compact, write)"] = median_time(cli, runs)
    results["compact_batch (read, compact, write)"] = median_time(in_process, runs)
    results["compact_batch (compact only)"] = median_time(batch_only, runs)
    print(f"one core (cpu {core}); wall seconds, CPU seconds, rows per CPU second:")
    cli = results.get("CLI process (read, compact, write)")
    for label, (wall, cpu) in results.items():
        ratio = f"  {cpu / cli[1]:.2f}x the CLI's CPU time" if cli else ""
        print(f"  {label:<38} {wall:7.3f} s  {cpu:7.3f} s CPU  {n / cpu:8.1f} rows/s{ratio}")

    os.sched_setaffinity(0, all_cpus)


def ray_data(parts, tmp, n, runs, workers):
    """Ray Data's rows/s at each worker count, over the dataset in `parts`."""
    import ctxc

    try:
        import ray
    except ImportError:
        print("ray not installed: no Ray Data figures")
        return
    print("Ray Data, read_parquet → map_batches(compact_batch) → write_parquet:")
    for w in workers:
        ray.init(num_cpus=w, include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": {"RAYON_NUM_THREADS": "1"}})
        ray.data.DataContext.get_current().enable_progress_bars = False

        def ray_job():
            dest = tmp / "ray-out"
            shutil.rmtree(dest, ignore_errors=True)
            (
                ray.data.read_parquet(str(parts))
                .repartition(64)
                .map_batches(ctxc.compact_batch, batch_format="pyarrow",
                             fn_kwargs={"target_ratio": 0.5, "force": True})
                .write_parquet(str(dest))
            )

        wall, _ = median_time(ray_job, runs)
        ray.shutdown()
        print(f"  {w} worker(s): {wall:7.3f} s  {n / wall:8.1f} rows/s")


if __name__ == "__main__":
    main()
