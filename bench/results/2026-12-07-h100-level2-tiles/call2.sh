#!/bin/bash
set -u
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_TASKS=$PWD/tasks KRL_CACHE_DIR=/tmp/kc
T0=$(date +%s); el() { echo $(($(date +%s) - T0)); }
nvidia-smi --query-gpu=name --format=csv,noheader; cat .commit
for f in g60nchw g60nhwc_y g19nchw g19nhwc_y u91 v91; do
  n=$(echo $f | sed "s/^[a-z]*\([0-9]*\).*/\1/")
  echo "-- $f"
  timeout 40 build/bench/plan_profile level2/$n --shapes kb1 --top 6 --candidate .probe/$f.cu 2>&1 | grep -vE "^\s*$|by op|calls" | head -8
done 2>&1 | tee $OUT/profile8.txt | grep -E "^--|whole|^    [0-9]"
echo "== batch at $(el) s"
timeout 100 build/krl batch .probe/batch8.txt --shapes tiny,kb0,kb1 --json > $OUT/batch8.jsonl 2> $OUT/batch8.err
echo "batch exit $?"; tail -2 $OUT/batch8.err
python3 - <<'PY'
import json,os
for l in open(os.environ['OUT']+'/batch8.jsonl'):
    try: r=json.loads(l)
    except Exception: continue
    print(r.get('task','?')[:40], r.get('verdict'), str(r.get('message',''))[:300])
PY
echo "done at $(el) s"
