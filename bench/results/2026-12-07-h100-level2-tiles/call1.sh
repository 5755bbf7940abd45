#!/bin/bash
set -u
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_TASKS=$PWD/tasks KRL_CACHE_DIR=/tmp/kc
T0=$(date +%s); el() { echo $(($(date +%s) - T0)); }
nvidia-smi --query-gpu=name --format=csv,noheader; cat .commit
echo "== plan_profile at $(el) s"
for f in t91 h91 t49 h49 t34 h34 g60nchw g60nhwc_y h60 g19nchw g19nhwc_y h19; do
  n=$(echo $f | sed "s/^[a-z]*\([0-9]*\).*/\1/")
  echo "-- $f"
  timeout 40 build/bench/plan_profile level2/$n --shapes kb1 --top 4 --candidate .probe/$f.cu 2>&1 | grep -vE "^\s*$|by op|calls" | head -6
done 2>&1 | tee $OUT/profile7.txt | grep -E "^--|whole|^    [0-9]"
echo "== batch at $(el) s"
timeout 200 build/krl batch .probe/batch7.txt --shapes tiny,kb0,kb1 --json > $OUT/batch7.jsonl 2> $OUT/batch7.err
echo "batch exit $?"; tail -2 $OUT/batch7.err
python3 - <<'PY'
import json,os
for l in open(os.environ['OUT']+'/batch7.jsonl'):
    try: r=json.loads(l)
    except Exception: continue
    print(r.get('task','?')[:40], r.get('verdict'), r.get('speedup'), str(r.get('reason',''))[:100])
PY
echo "done at $(el) s"
echo "== level1 35 at $(el) s"
timeout 40 build/bench/plan_profile level1/35 --shapes kb1 --top 6 --candidate .probe/g1_35.cu 2>&1 | grep -vE "^\s*$" | head -12 | tee $OUT/profile7-l1.txt
