# compare_summaries.py A/summary.json B/summary.json labelA labelB [m]: %diff of the 17 heuristics side by side,
# ranks, fails, Kendall tau-b between the two columns and each against the paper's Table I/II.
import json,sys
from itertools import combinations
from paper002 import PAPER1, PAPER2, taub
def load(p,m):
    s=json.load(open(p))
    hs=s['heuristics']
    if m is not None and 'by_m' in s:
        for b in s['by_m']:
            if b.get('m')==m: hs=b['heuristics']
    return {h['name']:h for h in hs}
a,b,la,lb=sys.argv[1:5]; m=int(sys.argv[5]) if len(sys.argv)>5 else None
A,B=load(a,m),load(b,m)
paper=PAPER1 if m!=10 else PAPER2
names=sorted(A,key=lambda n:A[n]['pct_diff'] if A[n]['pct_diff'] is not None else 1e9)
ra={n:i+1 for i,n in enumerate(names)}
rb={n:i+1 for i,n in enumerate(sorted(B,key=lambda n:B[n]['pct_diff']))}
print(f'| heuristic | {la} %diff | rank | #fails | {lb} %diff | rank | #fails | paper %diff |')
print('|---|---:|---:|---:|---:|---:|---:|---:|')
for n in names:
    p=paper.get(n); ps=f'{p:.2f}' if p is not None else ''
    print(f"| {n} | {A[n]['pct_diff']:.2f} | {ra[n]} | {A[n]['fails']} | {B[n]['pct_diff']:.2f} | {rb[n]} | {B[n]['fails']} | {ps} |")
print()
print(f'instances: {la} {A[names[0]]["instances"]}, {lb} {B[names[0]]["instances"]}')
print(f'tau-b {la} vs {lb} (17): {taub([A[n]["pct_diff"] for n in names],[B[n]["pct_diff"] for n in names]):.2f}')
pn=[n for n in names if n in paper]
print(f'tau-b {la} vs paper ({len(pn)}): {taub([A[n]["pct_diff"] for n in pn],[paper[n] for n in pn]):.2f}')
print(f'tau-b {lb} vs paper ({len(pn)}): {taub([B[n]["pct_diff"] for n in pn],[paper[n] for n in pn]):.2f}')
