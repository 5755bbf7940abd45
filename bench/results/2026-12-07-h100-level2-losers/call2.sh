#!/bin/bash
set -u
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_TASKS=$PWD/tasks KRL_CACHE_DIR=/tmp/kc
T0=$(date +%s); el() { echo $(($(date +%s) - T0)); }
nvidia-smi --query-gpu=name --format=csv,noheader; cat .commit
echo "== batch at $(el) s"
timeout 200 build/krl batch .probe/batch.txt --shapes tiny,kb0,kb1 --json > $OUT/batch.jsonl 2> $OUT/batch.err
echo "batch exit $?"; tail -3 $OUT/batch.err
python3 - <<'PY'
import json,os
for l in open(os.environ['OUT']+'/batch.jsonl'):
    try: r=json.loads(l)
    except Exception: continue
    print(r.get('task','?')[:40], r.get('verdict'), r.get('speedup'), r.get('best_ms') or r.get('ms'), str(r.get('reason',''))[:100])
PY
echo "== plan_profile at $(el) s"
for f in p60c p60cnhwc p34nchw p34nhwc p49nhwc p91nhwc p5a1 p5a2 p93a1 p93a2 p54a1 p54a2 p4a1 p4a2 p32a1 p32a2 p91a1 p91a2; do
  n=$(echo $f | sed 's/p\([0-9]*\).*/\1/')
  echo "-- $f"
  timeout 40 build/bench/plan_profile level2/$n --shapes kb1 --top 4 --candidate .probe/$f.cu 2>&1 | grep -vE "^\s*$|by op|calls" | head -7
done 2>&1 | tee $OUT/profile2.txt | grep -E "^--|whole|^    [0-9]"
echo "done at $(el) s"
