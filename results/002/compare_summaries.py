# compare_summaries.py A/summary.json B/summary.json labelA labelB [m]: %diff of the 17 heuristics side by side,
# ranks, fails, Kendall tau-b between the two columns and each against the paper's Table I/II.
import json,sys
from itertools import combinations
PAPER1={'E-IE':53.93,'Y-IE':-11.82,'P-IE':-10.50,'E-IAY':-10.40,'Y-IAY':99.75,'P-IAY':125.27,'E-IY':-3.40,'Y-IY':113.01,'P-IY':145.78,'IE':0.0,'E-IP':19.35,'Y-IP':145.05,'P-IP':176.92,'IAY':13.59,'IY':24.22,'IP':52.03,'RANDOM':2124.42}
PAPER2={'Y-IE':-10.33,'P-IE':-8.62,'E-IAY':-6.10,'E-IY':8.04,'E-IP':29.68,'IAY':136.65,'IY':147.77}
def load(p,m):
    s=json.load(open(p))
    hs=s['heuristics']
    if m is not None and 'by_m' in s:
        for b in s['by_m']:
            if b.get('m')==m: hs=b['heuristics']
    return {h['name']:h for h in hs}
def taub(x,y):
    n=c=d=tx=ty=0
    for i,j in combinations(range(len(x)),2):
        a=(x[i]>x[j])-(x[i]<x[j]); b=(y[i]>y[j])-(y[i]<y[j])
        if a==0 and b==0: continue
        if a==0: tx+=1; continue
        if b==0: ty+=1; continue
        if a==b: c+=1
        else: d+=1
    return (c-d)/(((c+d+tx)*(c+d+ty))**0.5)
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
