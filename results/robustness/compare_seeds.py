# compare_seeds.py A/summary.json B/summary.json: for two runs of `volsched exp robustness`
# on the same grid and variants (e.g. two seeds), Kendall's tau-b between the same variant's
# scores in A and B (over every heuristic: how much of a ranking is sampling noise), and each
# variant's tau-b against the reference variant over the heuristics whose name does not start
# with RANDOM (the RANDOM family is within a point of itself and its order is mostly noise).
import itertools, json, sys

def taub(a, b):
    c = d = ta = tb = 0
    for i, j in itertools.combinations(range(len(a)), 2):
        x = (a[i] > a[j]) - (a[i] < a[j])
        y = (b[i] > b[j]) - (b[i] < b[j])
        if x == 0 and y == 0:
            continue
        if x == 0:
            ta += 1
        elif y == 0:
            tb += 1
        elif x * y > 0:
            c += 1
        else:
            d += 1
    return (c - d) / ((c + d + ta) * (c + d + tb)) ** 0.5

A, B = (json.load(open(p)) for p in sys.argv[1:3])
if A['heuristics'] != B['heuristics']:
    sys.exit('the two runs have different heuristics')
keep = [i for i, h in enumerate(A['heuristics']) if not h.startswith('RANDOM')]
va = {v['name']: v['score'] for v in A['variants']}
vb = {v['name']: v['score'] for v in B['variants']}
ref = A['reference']
print(f"| variant | tau-b A vs B (all {len(A['heuristics'])}) | tau-b vs {ref}, without RANDOM*: A | B |")
print('|---|---:|---:|---:|')
for name in va:
    if name not in vb:
        continue
    sub = lambda s: [s[i] for i in keep]
    print(f"| {name} | {taub(va[name], vb[name]):.3f} | {taub(sub(va[name]), sub(va[ref])):.3f} | {taub(sub(vb[name]), sub(vb[ref])):.3f} |")
