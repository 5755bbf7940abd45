import json, math, sys
d=sys.argv[1]
b={}
for l in open(d+'/batch.jsonl'):
    r=json.loads(l); t=r.get('timing') or {}
    kind='ig' if '.ig.' in r['candidate'] else 'def'
    b.setdefault(r['task'],{})[kind]=(r['verdict'], (t.get('cand_ms') or {}).get('median'), (t.get('ref_ms') or {}).get('median'), (r.get('message') or '')[:200])
p={}
for l in open(d+'/peers.jsonl'):
    r=json.loads(l); p[r['task']]=r
lv={1:[],2:[]}; lvb={1:[],2:[]}; lvd={1:[],2:[]}
for t in sorted(b, key=lambda s:(s.split('/')[0], int(s.split('/')[1].split('_')[0].replace('kb0','')))):
    d_=b[t].get('def'); i=b[t].get('ig')
    best=p.get(t,{}).get('best_torch_ms')
    iok = i and i[0]=='ok' and i[1]
    ours = min([x for x in [d_[1] if d_ and d_[0]=='ok' else None, i[1] if iok else None] if x])
    L=int(t[5])
    if best:
        lv[L].append(best/ours); lvd[L].append(best/d_[1]); 
    print('%-52s def %7.3f  ig %-4s %7s  ig/def %5s  best_torch %7s (%s)  def_vs %5s ig_vs %5s' % (t[:52], d_[1] or 0, i[0][:4] if i else '-', '%.3f'%i[1] if i and i[1] else '-', '%.2f'%(d_[1]/i[1]) if d_ and i and i[1] and d_[1] else '-', '%.3f'%best if best else '-', p.get(t,{}).get('best_torch_peer','-')[:3], '%.2f'%(best/d_[1]) if best else '-', '%.2f'%(best/i[1]) if best and iok else '-'))
g=lambda v: math.exp(sum(map(math.log,v))/len(v)) if v else float('nan')
for L in (1,2):
    print('level %d: %d problems with peers; gmean vs best torch: default %.3f, best of default/igemm %.3f; below 0.97: %d' % (L, len(lv[L]), g(lvd[L]), g(lv[L]), sum(1 for x in lv[L] if x<0.97)))
