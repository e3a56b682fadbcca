#!/usr/bin/env python3
import json,sys,math,glob
# makespan_ratio.py A.jsonl B.jsonl [--m M]: per heuristic, geometric mean over the scenarios common to A and B of mean_B/mean_A
# (trials where both succeed), and how many scenarios B is slower in.
args=sys.argv[1:]; M=None
if '--m' in args: i=args.index('--m'); M=int(args[i+1]); del args[i:i+2]
def load(p):
    d={}
    for f in glob.glob(p):
        for l in open(f):
            r=json.loads(l)['result']
            if M is None or r['m']==M: d[(r['m'],r['ncom'],r['wmin'],r['scenario'])]=r
    return d
A,B=load(args[0]),load(args[1]); keys=sorted(set(A)&set(B))
H=A[keys[0]]['heuristics']; cap=1000000
print(f"{len(keys)} common scenarios")
for i,h in enumerate(H):
    ls=[];slower=0
    for k in keys:
        a=[(x[i],y[i]) for x,y in zip(A[k]['makespan'],B[k]['makespan']) if x[i]<cap and y[i]<cap]
        if not a: continue
        ma=sum(x for x,_ in a)/len(a); mb=sum(y for _,y in a)/len(a)
        ls.append(math.log(mb/ma)); slower+=mb>ma
    print(f"{h:7s} geo-mean B/A {math.exp(sum(ls)/len(ls)):.3f}  B slower in {slower}/{len(ls)}")
