#!/bin/bash
set -u
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_TASKS=$PWD/tasks KRL_CACHE_DIR=/tmp/kc
T0=$(date +%s); el() { echo $(($(date +%s) - T0)); }
nvidia-smi --query-gpu=name --format=csv,noheader; cat .commit
echo "== batch at $(el) s"
timeout 200 build/krl batch .probe/batch.txt --shapes tiny,kb0,kb1 --json > $OUT/batch4.jsonl 2> $OUT/batch4.err
echo "batch exit $?"; tail -2 $OUT/batch4.err
python3 - <<'PY'
import json,os
for l in open(os.environ['OUT']+'/batch4.jsonl'):
    try: r=json.loads(l)
    except Exception: continue
    print(r.get('task','?')[:40], r.get('verdict'), str(r.get('reason',''))[:120])
PY
echo "== plan_profile at $(el) s"
for f in q34nchw q34u q60 q60u q60u2 p52 p52c2k p52c1k q52u p5 q5u q16 q93 q32 q47; do
  n=$(echo $f | sed 's/[pq]\([0-9]*\).*/\1/')
  echo "-- $f"
  timeout 40 build/bench/plan_profile level2/$n --shapes kb1 --top 4 --candidate .probe/$f.cu 2>&1 | grep -vE "^\s*$|by op|calls" | head -6
done 2>&1 | tee $OUT/profile4.txt | grep -E "^--|whole|^    [0-9]"
echo "done at $(el) s"
