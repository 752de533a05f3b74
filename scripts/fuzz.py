"""Usage: python3 scripts/fuzz.py BINARY CASES  (from the crate dir, with ../shared beside it).

Mutates corpus files and runs JSONTestSuite cases through ctxc check/stats/compact; reports crashes
(exit status other than 0, 1, 2, or death by signal)."""
import os, random, subprocess, sys, glob, shutil, tempfile
B = sys.argv[1]; N = int(sys.argv[2])
random.seed(12)
corpus = [p for p in glob.glob('../shared/corpus/**/*', recursive=True)
          if os.path.isfile(p) and p.endswith(('.jsonl', '.json', '.traj')) and os.path.getsize(p) < 400_000]
suite = sorted(glob.glob('../shared/jsontestsuite/test_parsing/*.json'))
work = tempfile.mkdtemp()
def mutate(b):
    if random.random() < 0.1:
        # Wrap the whole file in closed nesting, up to 40,000 deep.
        n = random.randint(1000, 40000)
        return b'[' * n + b + b']' * n
    b = bytearray(b)
    for _ in range(random.randint(1, 6)):
        op = random.random(); i = random.randrange(len(b) or 1)
        if op < 0.25 and b: del b[i:i + random.randint(1, 40)]
        elif op < 0.5: b[i:i] = random.choice([b'[' * 5000, b'{"a":' * 3000, b'"\\ud800"', b'1e400', b'\\', b'"', b'\n', b'\xff', b'null', b',', b'{}', b'[]', b'\\u'])
        elif op < 0.75 and b: b[i] = random.randrange(256)
        else:
            j = random.randrange(len(b) or 1); b[i:i] = b[j:j + random.randint(1, 200)]
    return bytes(b)
cases = []
for p in suite: cases.append((os.path.basename(p), open(p, 'rb').read()))
while len(cases) < N:
    p = random.choice(corpus)
    cases.append((os.path.basename(p), mutate(open(p, 'rb').read())))
crashes = 0; runs = 0
for k, (name, data) in enumerate(cases):
    path = os.path.join(work, f'c{k}_' + name.replace(' ', '_'))
    open(path, 'wb').write(data)
    for cmd in (['check', '-q'], ['stats', '-q'], ['compact', '-q', '--force', '--allow-findings', '-o', '-']):
        r = subprocess.run([B] + cmd + [path], capture_output=True, timeout=120)
        runs += 1
        if r.returncode not in (0, 1, 2) or b'panicked' in r.stderr:
            crashes += 1
            keep = f'crash_{k}_' + name
            shutil.copy(path, keep)
            print('CRASH', r.returncode, cmd, keep, r.stderr[-300:], flush=True)
    os.remove(path)
print(f'cases {len(cases)} runs {runs} crashes {crashes}')
shutil.rmtree(work)
