#!/usr/bin/env python3
"""Compares two builtin-optimizer runs of the same problems (issue 15's
check that a refactor keeps the optimizer's plans).

    python3 bench/compare_runs.py BEFORE_DIR AFTER_DIR

Each directory holds what bench/run_gpu.sh's level1 phase brings back:
optimize-kb1.txt (the printed table: speedup and "what the best did") and
level1-kb1.db (the store). For every problem of AFTER it prints the best
speedup before and after, whether the best plan's description is the same,
and, from the stores, in how many of the slots both runs made the same
candidate (content hash) and the first slot where they differ. The builtin
search is seeded, so two runs of the same code propose the same candidates
until a measured speedup picks a different base; a changed candidate
before any such divergence means the optimizer itself changed.
"""
import re
import sqlite3
import sys


def table(d):
    rows = {}
    pat = re.compile(r'(\S+)\s+\S+\s+\S+\s+(\S+)x \[([^\]]+)\]\s+(\d+%)\s+(.*)')
    with open(f'{d}/optimize-kb1.txt') as f:
        for line in f:
            m = pat.match(line.rstrip())
            if m and m.group(1).startswith('level'):
                rows[m.group(1)] = (float(m.group(2)), m.group(3), m.group(5))
    return rows


def slots(d):
    c = sqlite3.connect(f'{d}/level1-kb1.db')
    out = {}
    for task, slot, cand in c.execute(
            'select task, slot, cand_hash from evaluations order by id'):
        out.setdefault(task, []).append((slot, cand))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = table(sys.argv[1]), table(sys.argv[2])
    sa, sb = slots(sys.argv[1]), slots(sys.argv[2])
    same_plans = same_slots = common = 0
    for k in b:
        if k not in a:
            print(f'{k}: not in {sys.argv[1]}')
            continue
        (x, _, pa), (y, ci, pb) = a[k], b[k]
        ea, eb = sa.get(k, []), sb.get(k, [])
        n = min(len(ea), len(eb))
        same = [ea[i][1] == eb[i][1] for i in range(n)]
        first = next((eb[i][0] for i in range(n) if not same[i]), '-')
        same_plans += pa == pb
        same_slots += sum(same)
        common += n
        print(f'{k:40s} {x:8.3f} -> {y:8.3f} [{ci}] {100 * (y / x - 1):+5.1f}%'
              f'  plan {"same" if pa == pb else "CHANGED"}'
              f'  slots {sum(same)}/{n} same, first differing {first}')
        if pa != pb:
            print(f'    before: {pa}\n    after:  {pb}')
    print(f'{same_plans} of {len(b)} best plans described the same; '
          f'{same_slots} of {common} slots made the same candidate')


if __name__ == '__main__':
    main()
