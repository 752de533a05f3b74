"""Usage: python3 scripts/fuzz.py BINARY CASES [SECONDS]  (from the crate dir, ../shared beside it).

Mutates corpus files and runs JSONTestSuite cases through ctxc check/stats/compact; reports crashes
(exit status other than 0, 1, 2, death by signal, a panic message) and hangs (over 120 s). Stops
starting new cases after SECONDS when given (CI runs it for a minute). The seed is FUZZ_SEED, or
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

def cases():
    """The JSONTestSuite cases, shuffled, then mutated corpus files, made one at a time."""
    suite_cases = [(os.path.basename(p), open(p, 'rb').read()) for p in suite]
    random.shuffle(suite_cases)
    yield from suite_cases[:N]
    for _ in range(N - len(suite_cases)):
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
            failed = r.returncode not in (0, 1, 2) or b'panicked' in r.stderr
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
