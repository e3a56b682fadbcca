#!/usr/bin/env python3
import json,sys,math
from itertools import combinations
# scenario_summary.py results.jsonl... [--m M] [--cap C]: §VII.A metrics per heuristic, tau-b vs paper, worst per-scenario rd
from paper002 import PAPER1, PAPER2, taub
PAPER2={**PAPER2,'IE':0.0}
args=sys.argv[1:]; M=None; CAP=1000000
if '--m' in args: i=args.index('--m'); M=int(args[i+1]); del args[i:i+2]
if '--cap' in args: i=args.index('--cap'); CAP=int(args[i+1]); del args[i:i+2]
rows=[]
for f in args:
    for l in open(f):
        r=json.loads(l)['result']
        if M is None or r['m']==M: rows.append(r)
H=rows[0]['heuristics']; ie=H.index('IE')
res={}
for hi,h in enumerate(H):
    rds=[];fails=wins=w30=inst=0
    for r in rows:
        sh=sr=n=0
        for t in r['makespan']:
            a,b=t[hi],t[ie]; inst+=1
            fails+=a>=CAP; wins+=a<=b; w30+=a<=1.3*b
            if a<CAP and b<CAP: sh+=a;sr+=b;n+=1
        if n: mh,mr=sh/n,sr/n; rds.append(((mh-mr)/min(mh,mr),r['ncom'],r['wmin'],r['scenario']))
    v=[x[0] for x in rds]; mean=sum(v)/len(v); sd=math.sqrt(sum((x-mean)**2 for x in v)/len(v))
    res[h]=dict(fails=fails,diff=100*mean,wins=100*wins/inst,w30=100*w30/inst,sd=sd,worst=sorted(rds)[-1],best=sorted(rds)[0],inst=inst,sc=len(v))
paper=PAPER1 if M!=10 else PAPER2
print(f"{len(rows)} scenarios, {res['IE']['inst']} instances")
print(f"{'heur':7s} {'fails':>5s} {'%diff':>8s} {'%wins':>6s} {'%w30':>6s} {'stdv':>6s} | paper %diff | worst rd (ncom,wmin,sc)   best rd")
for h in sorted(H,key=lambda h:res[h]['diff']):
    x=res[h]; p=paper.get(h); ps=f"{p:8.2f}" if p is not None else ' '*8
    w=x['worst']; b=x['best']
    print(f"{h:7s} {x['fails']:5d} {x['diff']:8.2f} {x['wins']:6.2f} {x['w30']:6.2f} {x['sd']:6.2f} | {ps} | {w[0]:7.2f} ({w[1]},{w[2]},{w[3]}) {b[0]:7.2f}")
pn=[h for h in H if h in paper]
print(f"tau-b vs paper ({len(pn)}): {taub([res[h]['diff'] for h in pn],[paper[h] for h in pn]):.3f}")
