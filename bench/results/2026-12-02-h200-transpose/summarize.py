import json, math, sys
B, P = sys.argv[1], sys.argv[2]
rows = {}
for l in open(B):
    r = json.loads(l)
    form = r['candidate'].split('/')[-1].split('.')[-2]
    t = r.get('timing') or {}
    rows.setdefault(r['task'], {})[form] = (r['verdict'], (t.get('cand_ms') or {}).get('median'), (t.get('ref_ms') or {}).get('median'))
peers = {}
for l in open(P):
    p = json.loads(l)
    best = min(x for x in (p.get('torch_eager_ms'), p.get('torch_graph_ms'), p.get('torch_compile_ms')) if x)
    peers[p['task']] = (p.get('torch_compile_ms'), best)
print("| problem | ref ms | NCHW best ms | nhwc_y chan8 ms | nhwc_y tile ms | ours best ms | best of PyTorch ms | ours vs best of PyTorch | verdicts |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
g_old = []; g_new = []; g_cl = []; verd = set()
for t in sorted(rows, key=lambda x: int(x.split('/')[1].split('_')[0])):
    f = rows[t]
    ms = {k: v[1] for k, v in f.items() if v[0] == 'ok' and v[1]}
    for v in f.values(): verd.add(v[0])
    ref = next(v[2] for v in f.values() if v[2])
    ours = min(ms.values())
    pb = peers.get(t, (None, None))[1]
    cell = lambda k: f"{ms[k]:.4f}" if k in ms else ("-" if k not in f else f[k][0])
    vs = f"{pb/ours:.3f}" if pb else "-"
    print(f"| {t} | {ref:.4f} | {cell('best')} | {cell('chan8')} | {cell('tile')} | {ours:.4f} | {pb if pb is None else round(pb,4)} | {vs} | {','.join(v[0] for v in f.values())} |")
    if pb and 'best' in ms:
        g_old.append(pb/ms['best']); g_new.append(pb/ours)
    if 'chan8' in ms and 'best' in ms: g_cl.append(ms['best']/ms['chan8'])
gm = lambda a: math.exp(sum(map(math.log, a))/len(a))
print(f"\ngeomean over {len(g_old)}: vs best of PyTorch, NCHW best alone {gm(g_old):.3f}; best of the three plans {gm(g_new):.3f}; NCHW best / nhwc_y chan8 {gm(g_cl):.3f} over {len(g_cl)}; verdicts {verd}")
ti = [rows[t]['chan8'][1]/rows[t]['tile'][1] for t in rows if 'tile' in rows[t] and rows[t]['tile'][0]=='ok' and rows[t]['chan8'][0]=='ok']
print(f"chan8 / tile over {len(ti)}: {gm(ti):.3f}, min {min(ti):.3f} max {max(ti):.3f}")
