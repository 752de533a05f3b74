"""Usage: python3 scripts/ci/fuzz.py BINARY CASES [SECONDS]  (from the crate dir, ../shared beside it).

Mutates corpus files and the Parquet fixtures (fixtures/parquet/: their footer, its key-value
metadata with Arrow's schema, and their pages; one case in four) and runs JSONTestSuite cases
through ctxc check/stats/compact; reports crashes
(exit status other than 0, 1, 2, death by signal, a panic message, an internal error: a panic a
worker caught) and hangs (over 120 s). Stops starting new cases after SECONDS when given (CI runs it for a minute). The seed is FUZZ_SEED, or
the time, and is printed so a crash can be replayed. Crashing inputs are kept in fuzz-crashes/.
Exits 1 when anything crashed or hung."""
import os, random, subprocess, sys, glob, shutil, tempfile, time
B = sys.argv[1]; N = int(sys.argv[2])
budget = float(sys.argv[3]) if len(sys.argv) > 3 else None
seed = int(os.environ.get('FUZZ_SEED', int(time.time())))
print(f'fuzz: seed {seed} (FUZZ_SEED={seed} replays it)', flush=True)
random.seed(seed)
corpus = sorted(p for p in glob.glob('../shared/corpus/**/*', recursive=True)
                if os.path.isfile(p) and p.endswith(('.jsonl', '.json', '.traj')) and os.path.getsize(p) < 400_000)
suite = sorted(glob.glob('../shared/jsontestsuite/test_parsing/*.json'))
datasets = sorted(glob.glob('fixtures/parquet/*.parquet'))
work = tempfile.mkdtemp()
kept = 'fuzz-crashes'

def deep_value(b):
    """Replaces one string value with balanced nesting up to 1,000,000 deep: deep values inside
    a record (not only around the file) must not overflow the stack."""
    at = b.find(b'":"', random.randrange(len(b) or 1))
    if at < 0:
        return b
    n = random.randint(1000, 1_000_000)
    opener, closer = random.choice([(b'[', b']'), (b'{"a":', b'}')])
    end = b.find(b'"', at + 3)
    if end < 0:
        return b
    return b[:at + 2] + opener * n + b'0' + closer * n + b[end + 1:]

def mutate(b):
    if random.random() < 0.1:
        # Wrap the whole file in closed nesting, up to 40,000 deep.
        n = random.randint(1000, 40000)
        return b'[' * n + b + b']' * n
    if random.random() < 0.1:
        return deep_value(b)
    b = bytearray(b)
    for _ in range(random.randint(1, 6)):
        op = random.random(); i = random.randrange(len(b) or 1)
        if op < 0.25 and b: del b[i:i + random.randint(1, 40)]
        elif op < 0.5: b[i:i] = random.choice([b'[' * 5000, b'{"a":' * 3000, b'"\\ud800"', b'1e400', b'\\', b'"', b'\n', b'\r\n', b'\xff', b'null', b',', b'{}', b'[]', b'\\u'])
        elif op < 0.75 and b: b[i] = random.randrange(256)
        else:
            j = random.randrange(len(b) or 1); b[i:i] = b[j:j + random.randint(1, 200)]
    return bytes(b)

def mutate_parquet(b):
    """One to four changes aimed at a Parquet file's parts: the footer's length and magic, its
    thrift metadata, the base64 of its ARROW:schema, or the pages before it; or the file cut."""
    b = bytearray(b)
    n = len(b)
    footer_len = int.from_bytes(b[n - 8:n - 4], 'little') if n >= 12 else 0
    meta_start = max(4, n - 8 - footer_len)
    for _ in range(random.randint(1, 4)):
        op = random.random()
        if op < 0.1:
            # The footer's length: off by a little, or anything.
            value = random.choice([footer_len + random.randint(-8, 8), random.randrange(1 << 32)])
            b[n - 8:n - 4] = (value % (1 << 32)).to_bytes(4, 'little')
        elif op < 0.4 and meta_start < n - 8:
            # The thrift metadata: a flipped, zeroed or maxed byte.
            i = random.randrange(meta_start, n - 8)
            b[i] = random.choice([random.randrange(256), 0, 0xff, b[i] ^ (1 << random.randrange(8))])
        elif op < 0.65:
            # Arrow's schema, base64 in the metadata: a character changed (same length, so the
            # thrift around it still reads).
            at = b.rfind(b'ARROW:schema')
            if at >= 0:
                i = random.randrange(at + 16, min(n - 8, at + 16 + 4000))
                b[i] = random.choice(b'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=')
        elif op < 0.9 and meta_start > 4:
            # A page: a byte flipped, or a run zeroed.
            i = random.randrange(4, meta_start)
            if random.random() < 0.5:
                b[i] ^= 1 << random.randrange(8)
            else:
                b[i:i + 16] = bytes(len(b[i:i + 16]))
        else:
            # Cut short, the magic kept at the end or not: the last change.
            cut = random.randrange(4, n)
            return bytes(b[:cut]) + (b'PAR1' if random.random() < 0.5 else b'')
    return bytes(b)

def cases():
    """The JSONTestSuite cases, shuffled, then mutated corpus files, made one at a time."""
    suite_cases = [(os.path.basename(p), open(p, 'rb').read()) for p in suite]
    random.shuffle(suite_cases)
    yield from suite_cases[:N]
    for _ in range(N - len(suite_cases)):
        if datasets and random.random() < 0.25:
            p = random.choice(datasets)
            yield os.path.basename(p), mutate_parquet(open(p, 'rb').read())
            continue
        p = random.choice(corpus)
        yield os.path.basename(p), mutate(open(p, 'rb').read())

started = time.monotonic()
crashes = 0; runs = 0; done = 0
for k, (name, data) in enumerate(cases()):
    if budget is not None and time.monotonic() - started > budget:
        break
    path = os.path.join(work, f'c{k}_' + name.replace(' ', '_'))
    open(path, 'wb').write(data)
    for cmd in (['check', '-q'], ['stats', '-q'], ['compact', '-q', '--force', '--allow-findings', '-o', '-']):
        runs += 1
        try:
            r = subprocess.run([B] + cmd + [path], capture_output=True, timeout=120)
            # A panic a worker caught is reported as an internal error: a crash all the same.
            failed = r.returncode not in (0, 1, 2) or b'panicked' in r.stderr or b'internal error' in r.stderr
            why = (r.returncode, r.stderr[-300:])
        except subprocess.TimeoutExpired:
            failed, why = True, ('HANG', b'over 120 s')
        if failed:
            crashes += 1
            os.makedirs(kept, exist_ok=True)
            keep = os.path.join(kept, f'crash_{k}_' + name)
            shutil.copy(path, keep)
            print('CRASH', why[0], cmd, keep, why[1], flush=True)
    os.remove(path)
    done += 1
print(f'fuzz: cases {done} runs {runs} crashes {crashes} in {time.monotonic() - started:.0f} s')
shutil.rmtree(work)
sys.exit(1 if crashes else 0)
