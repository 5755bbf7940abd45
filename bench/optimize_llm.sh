#!/bin/bash
# bench/optimize_llm: `krl optimize --policy llm` on the GPU machine against
# a recorded-completion server (bench/mockllm_server, tests/data/llm/
# gpu_fixture.json) on 3 problems with the real judge; one run is killed
# with SIGKILL in the middle and resumed. Checks that every evaluation is
# stored once, that the resumed run lost and repeated nothing, and that the
# exported rollouts' rewards equal the stored ones.
#   bash bench/optimize_llm.sh [OUTDIR]
set -uo pipefail
out=${1:-${OUT:-bench/out}}
mkdir -p "$out"
db=$out/optimize.db
rm -f "$db" "$db"-wal "$db"-shm
work=$(mktemp -d)
./build/bench/mockllm_server tests/data/llm/gpu_fixture.json > "$work/url" 2> "$work/server.err" &
server=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -1 "$work/url")
echo "server $url"
common=(--policy llm --base-url "$url" --model recorded --rounds 2 --group 4
	--shapes tiny,kb0 --budget 2 --db "$db" --work-dir "$work/cands")
status=0
./build/krl optimize level1/19_relu "${common[@]}" || status=1
./build/krl optimize level1/94_mse_loss "${common[@]}" || status=1
# The softmax run is killed once it has committed 3 evaluations.
./build/krl optimize level1/23_softmax "${common[@]}" &
victim=$!
env -u LD_LIBRARY_PATH python3 - "$db" <<'PY'
import sqlite3, sys, time
for _ in range(1200):
    try:
        c = sqlite3.connect(sys.argv[1], timeout=5)
        n = c.execute("select count(*) from evaluations e join runs r on r.id = e.run_id "
                      "where r.name = 'level1/23_softmax/rl'").fetchone()[0]
        c.close()
        if n >= 3:
            break
    except sqlite3.Error:
        pass
    time.sleep(0.05)
PY
kill -9 $victim
wait $victim 2>/dev/null
env -u LD_LIBRARY_PATH python3 - "$db" > "$out/before_kill.json" <<'PY'
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = c.execute("select e.id, e.slot, e.verdict, e.reward from evaluations e join runs r "
                 "on r.id = e.run_id where r.name = 'level1/23_softmax/rl' order by e.id").fetchall()
print(json.dumps(rows))
PY
echo "killed the softmax run after $(env -u LD_LIBRARY_PATH python3 -c "import json;print(len(json.load(open('$out/before_kill.json'))))") evaluations; resuming"
./build/krl optimize level1/23_softmax "${common[@]}" || status=1
./build/krl export-rollouts --db "$db" --out "$out/rollouts.jsonl" || status=1
kill $server; wait $server 2>/dev/null
env -u LD_LIBRARY_PATH python3 - "$db" "$out/rollouts.jsonl" "$out/before_kill.json" <<'PY' || status=1
import json, sqlite3, sys
db, roll, before = sys.argv[1:4]
c = sqlite3.connect(db)
runs = c.execute("select id, name, status from runs").fetchall()
rows = c.execute("select e.id, r.name, e.slot, e.verdict, e.speedup, e.reward, e.advantage "
                 "from evaluations e join runs r on r.id = e.run_id order by e.id").fetchall()
ex = [json.loads(l) for l in open(roll)]
ok = True
def check(cond, what):
    global ok
    print(("PASS " if cond else "FAIL ") + what)
    ok = ok and cond
check(len(runs) == 3 and all(s == "done" for _, _, s in runs), f"3 runs, all done: {runs}")
check(len(rows) == 24, f"24 evaluations stored (3 problems x 2 rounds x 4): {len(rows)}")
slots = [(r[1], r[2]) for r in rows]
check(len(set(slots)) == len(slots), "no slot evaluated twice")
b = json.loads(open(before).read())
after = {r[0]: r for r in rows}
check(all(i in after and after[i][2] == s and after[i][3] == v and after[i][5] == rw
          for i, s, v, rw in b), f"the {len(b)} evaluations committed before kill -9 are unchanged")
check(len(ex) == len(rows), f"{len(ex)} rollouts exported")
check(all(abs(e["reward"] - r[5]) == 0 and e["slot"] == r[2] for e, r in zip(ex, rows)),
      "exported rewards equal the stored rewards")
check(all(r[6] is not None for r in rows), "every evaluation has its group-relative advantage")
verdicts = {}
for r in rows:
    verdicts[r[3]] = verdicts.get(r[3], 0) + 1
best = max((r[4] for r in rows if r[3] == "ok"), default=0)
print("verdicts:", verdicts, "best speedup", best)
sys.exit(0 if ok else 1)
PY
echo "optimize_llm: $([ $status = 0 ] && echo PASS || echo FAIL)"
rm -rf "$work"
exit $status
