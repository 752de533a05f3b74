"""The driver of scripts/bench/s3-bench.sh: starts an S3-compatible server on free loopback ports
(SeaweedFS's `weed mini`, or moto's server), uploads a flattened copy of the corpus (or another
directory) to s3://bench/in/, times `ctxc compact --force --target-ratio 0.5` (and `ctxc
stats`) on the local copy and on the bucket, alternating, REPS times each, and checks that the
bucket's outputs are byte-identical to the local ones.
Usage: python s3_bench.py CTXC seaweedfs|moto SERVER_BINARY REPS CORPUS"""

import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import boto3

ctxc, kind, server_bin, reps, corpus = sys.argv[1:6]
reps = int(reps)
KEYS = dict(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench")


def free_port():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def start_server(data):
    """The server process and its S3 endpoint's port."""
    if kind == "moto":
        port = free_port()
        args = [server_bin, "-H", "127.0.0.1", "-p", str(port)]
        env = dict(os.environ)
    else:
        # `weed mini` runs master, volume, filer and S3 gateway in one process; every port is
        # given (each has a gRPC twin) so that no default collides with another run here. The
        # keys in its environment become its one S3 identity, so requests are signed and checked.
        names = ["master", "volume", "filer", "s3", "admin"]
        ports = {f"{n}.port{g}": free_port() for n in names for g in ("", ".grpc")}
        port = ports["s3.port"]
        args = [server_bin, "mini", f"-dir={data}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                "-admin.ui=false", "-webdav=false", "-s3.port.iceberg=0", "-s3.port.lance=0",
                *(f"-{name}={p}" for name, p in ports.items()),
                *os.environ.get("CTXC_S3_BENCH_WEED_ARGS", "").split()]
        env = dict(os.environ, **KEYS)
    log = open(os.path.join(data, "..", "server.log"), "w")
    return subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT), port


work = tempfile.mkdtemp(prefix="ctxc-s3-bench-")
os.mkdir(os.path.join(work, "data"))
started = time.perf_counter()
server, port = start_server(os.path.join(work, "data"))
try:
    endpoint = f"http://127.0.0.1:{port}"
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                      aws_access_key_id="bench", aws_secret_access_key="bench")
    # Up once the bucket can be made (the S3 port opens before the filer behind it is ready).
    for _ in range(600):
        try:
            s3.create_bucket(Bucket="bench")
            break
        except Exception:
            if server.poll() is not None:
                with open(os.path.join(work, "server.log")) as log:
                    sys.exit(f"the {kind} server stopped:\n{log.read()[-2000:]}")
            time.sleep(0.1)
    print(f"{kind} ready in {time.perf_counter() - started:.1f} s")
    env = dict(os.environ, AWS_ENDPOINT_URL=endpoint, AWS_ALLOW_HTTP="true",
               AWS_REGION="us-east-1", **KEYS)
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

    # What the server alone needs to serve every object once, and to take one object back
    # for each, 8 requests at a time (as ctxc's read-ahead and uploads ask): the floor under
    # the S3 runs (`stats` makes the GETs, `compact` both), whatever the client.
    keys = [f"in/{name}" for name in sorted(os.listdir(inputs))]
    gets, puts = [], []
    for r in range(reps):
        began = time.perf_counter()
        with ThreadPoolExecutor(8) as pool:
            bodies = list(pool.map(lambda k: s3.get_object(Bucket="bench", Key=k)["Body"].read(), keys))
        gets.append(time.perf_counter() - began)
        began = time.perf_counter()
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda kb: s3.put_object(Bucket="bench", Key=f"floor-{r}/{kb[0]}", Body=kb[1]),
                          zip(keys, bodies)))
        puts.append(time.perf_counter() - began)
    print(f"{kind} alone (boto3, 8 requests at a time): {len(keys)} GETs "
          f"{statistics.median(gets):.2f} s, {len(keys)} PUTs {statistics.median(puts):.2f} s")

    def server_cpu():
        """The server's CPU seconds so far (user + system), from /proc."""
        with open(f"/proc/{server.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    cpu = {}  # (command, "local" or "s3") -> [(ctxc CPU s, server CPU s)]

    def timed(args, command, where):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        served = server_cpu()
        began = time.perf_counter()
        done = subprocess.run([ctxc, "-q", *args], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - began
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        own = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        cpu.setdefault((command, where), []).append((own, server_cpu() - served))
        if done.returncode not in (0, 1):
            sys.exit(f"ctxc {' '.join(args)}: exit {done.returncode}: {done.stderr.decode()}")
        return elapsed

    for command in ("compact", "stats"):
        local, remote = [], []
        for r in range(reps):
            if command == "compact":
                common = ["compact", "--force", "--target-ratio", "0.5"]
                local.append(timed([*common, "--out-dir", f"{work}/out-{r}", inputs], command, "local"))
                remote.append(timed([*common, "--out-dir", f"s3://bench/out-{r}/", "s3://bench/in/"],
                                    command, "s3"))
            else:
                local.append(timed(["stats", inputs], command, "local"))
                remote.append(timed(["stats", "s3://bench/in/"], command, "s3"))
        lm, rm = statistics.median(local), statistics.median(remote)
        print(f"{command:8} local {lm:6.2f} s   s3 {rm:6.2f} s   ratio {rm / lm:.2f}   "
              f"(local {' '.join(f'{t:.2f}' for t in local)}; s3 {' '.join(f'{t:.2f}' for t in remote)})")
        # Where the time goes: CPU of ctxc itself and of the server during each run (medians).
        for where in ("local", "s3"):
            own = statistics.median(c for c, _ in cpu[(command, where)])
            served = statistics.median(s for _, s in cpu[(command, where)])
            print(f"{'':8} {where:5} CPU: ctxc {own:.2f} s, {kind} {served:.2f} s")

    # The bucket's outputs must be the local run's, byte for byte: a server that lost or
    # mangled a request would otherwise look fast.
    local_out = os.path.join(work, "out-0")
    expected = {}
    for root, _, names in os.walk(local_out):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                expected[os.path.relpath(path, local_out)] = f.read()
    listed = s3.get_paginator("list_objects_v2").paginate(Bucket="bench", Prefix="out-0/")
    got = {o["Key"][len("out-0/"):]: s3.get_object(Bucket="bench", Key=o["Key"])["Body"].read()
           for page in listed for o in page.get("Contents", [])}
    if got != expected:
        differ = sorted(set(got) ^ set(expected)) or sorted(k for k in got if got[k] != expected[k])
        sys.exit(f"the bucket's outputs differ from the local ones: {differ[:5]}")
    print(f"outputs: the bucket's {len(got)} objects equal the local run's files, byte for byte")
finally:
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    shutil.rmtree(work, ignore_errors=True)
