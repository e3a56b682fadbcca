# wmin_trend.py A/figure2.csv B/figure2.csv labelA labelB m: %diff of Y-IE, P-IE, E-IE, E-IAY
# against w_min for two runs side by side, and IE's rank among the 17 at each w_min.
import csv,sys
def load(p,m):
    out={}
    for r in csv.DictReader(open(p)):
        if int(r['m'])==m:
            out[int(r['wmin'])]={k:float(v) for k,v in r.items() if k not in('m','wmin') and v!=''}
    return out
a,b,la,lb,m=sys.argv[1],sys.argv[2],sys.argv[3],sys.argv[4],int(sys.argv[5])
A,B=load(a,m),load(b,m)
hs=['Y-IE','P-IE','E-IE','E-IAY']
print('| w_min | '+' | '.join(f'{h} {la}' for h in hs)+' | IE rank '+la+' | '+' | '.join(f'{h} {lb}' for h in hs)+' | IE rank '+lb+' |')
print('|---:|'+'---:|'*(2*len(hs)+2))
def rank(d): return 1+sum(1 for k,v in d.items() if v<d['IE'])
for w in sorted(A):
    if w not in B: continue
    print(f'| {w} | '+' | '.join(f'{A[w][h]:.1f}' for h in hs)+f' | {rank(A[w])} | '+' | '.join(f'{B[w][h]:.1f}' for h in hs)+f' | {rank(B[w])} |')
