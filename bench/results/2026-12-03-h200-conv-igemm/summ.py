import json, sys
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except Exception: continue
    t = r.get('timing') or {}
    ms = lambda k: (t.get(k) or {}).get('median')
    print('%-60s %-28s %-8s ref %8s cand %8s x %6s  %s' % (r.get('task'), r.get('candidate','').split('/')[-1][-8:], r.get('verdict'),
          ms('ref_ms'), ms('cand_ms'), (t.get('speedup') or {}).get('median'), '' if r.get('verdict') == 'ok' else (r.get('message') or '')[:160]))
