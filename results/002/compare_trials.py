# compare_trials.py OLD1.jsonl[,OLD2.jsonl...] NEW.jsonl: checks that the first trials of every unit
# of a campaign run with more trials equal (makespans and configuration counts of the 17
# heuristics) the units of an earlier run with fewer trials (trial k has the same streams).
import json,sys
old={}
for f in sys.argv[1].split(','):
    for l in open(f):
        r=json.loads(l); x=r['result']; old[(x['m'],x['ncom'],x['wmin'],x['scenario'])]=x
n=same=0
for l in open(sys.argv[2]):
    r=json.loads(l); x=r['result']; k=(x['m'],x['ncom'],x['wmin'],x['scenario'])
    if k not in old: continue
    o=old[k]; t=len(o['makespan'])
    n+=1
    if x['makespan'][:t]==o['makespan'] and x['configs'][:t]==o['configs']: same+=1
    else: print('DIFF',k)
print(f'{same} of {n} common units: first {t} trials identical (makespans and config counts)')
