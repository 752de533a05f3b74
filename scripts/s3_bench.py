"""The driver of scripts/s3-bench.sh: starts moto's server on a free loopback port, uploads a
flattened copy of the corpus (or another directory) to s3://bench/in/, and times `ctxc compact --force --target-ratio
0.5` (and `ctxc stats`) on the local copy and on the bucket, alternating, REPS times each.
Usage: python s3_bench.py CTXC MOTO_SERVER REPS CORPUS"""

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import boto3

ctxc, moto_server, reps, corpus = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

sock = socket.socket()
sock.bind(("127.0.0.1", 0))
port = sock.getsockname()[1]
sock.close()
endpoint = f"http://127.0.0.1:{port}"
server = subprocess.Popen(
    [moto_server, "-H", "127.0.0.1", "-p", str(port)],
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
work = tempfile.mkdtemp(prefix="ctxc-s3-bench-")
try:
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    env = dict(os.environ)
    env.update(
        AWS_ENDPOINT_URL=endpoint,
        AWS_ALLOW_HTTP="true",
        AWS_ACCESS_KEY_ID="bench",
        AWS_SECRET_ACCESS_KEY="bench",
        AWS_REGION="us-east-1",
    )
    s3 = boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id="bench",
        aws_secret_access_key="bench",
        region_name="us-east-1",
    )
    s3.create_bucket(Bucket="bench")
    inputs = os.path.join(work, "in")
    os.mkdir(inputs)
    total = 0
    for root, _, names in os.walk(corpus):
        for name in names:
            if not name.endswith((".json", ".jsonl", ".traj", ".parquet")):
                continue
            path = os.path.join(root, name)
            flat = os.path.relpath(path, corpus).replace(os.sep, "__")
            shutil.copyfile(path, os.path.join(inputs, flat))
            with open(path, "rb") as f:
                s3.put_object(Bucket="bench", Key=f"in/{flat}", Body=f.read())
            total += os.path.getsize(path)
    count = len(os.listdir(inputs))
    print(f"{count} files, {total / 1e6:.1f} MB; {ctxc}; {reps} runs each, alternating")

    # What the stand-in alone needs to serve every object once, and to take one object back
    # for each, 8 requests at a time (as ctxc's read-ahead and uploads ask): the floor under
    # the S3 runs (`stats` makes the GETs, `compact` both), whatever the client.
    from concurrent.futures import ThreadPoolExecutor

    keys = [f"in/{name}" for name in sorted(os.listdir(inputs))]
    gets, puts = [], []
    for r in range(reps):
        started = time.perf_counter()
        with ThreadPoolExecutor(8) as pool:
            bodies = list(pool.map(lambda k: s3.get_object(Bucket="bench", Key=k)["Body"].read(), keys))
        gets.append(time.perf_counter() - started)
        started = time.perf_counter()
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda kb: s3.put_object(Bucket="bench", Key=f"floor-{r}/{kb[0]}", Body=kb[1]),
                          zip(keys, bodies)))
        puts.append(time.perf_counter() - started)
    print(f"stand-in alone, 8 requests at a time: {len(keys)} GETs {statistics.median(gets):.2f} s, "
          f"{len(keys)} PUTs {statistics.median(puts):.2f} s")

    def timed(args):
        started = time.perf_counter()
        done = subprocess.run([ctxc, "-q", *args], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - started
        if done.returncode not in (0, 1):
            sys.exit(f"ctxc {' '.join(args)}: exit {done.returncode}: {done.stderr.decode()}")
        return elapsed

    for command in ("compact", "stats"):
        local, remote = [], []
        for r in range(reps):
            if command == "compact":
                common = ["compact", "--force", "--target-ratio", "0.5"]
                local.append(timed([*common, "--out-dir", f"{work}/out-{r}", inputs]))
                remote.append(timed([*common, "--out-dir", f"s3://bench/out-{r}/", "s3://bench/in/"]))
            else:
                local.append(timed(["stats", inputs]))
                remote.append(timed(["stats", "s3://bench/in/"]))
        lm, rm = statistics.median(local), statistics.median(remote)
        print(f"{command:8} local {lm:6.2f} s   s3 {rm:6.2f} s   ratio {rm / lm:.2f}   "
              f"(local {' '.join(f'{t:.2f}' for t in local)}; s3 {' '.join(f'{t:.2f}' for t in remote)})")
finally:
    server.terminate()
    server.wait()
    shutil.rmtree(work, ignore_errors=True)
