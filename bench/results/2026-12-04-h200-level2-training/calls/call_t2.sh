#!/bin/bash
# resume level-2 training, then the held-out comparison at budget 8 (both resumable)
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks
export KRL_COMMIT=$(cat .commit)
W=/tmp/tw; mkdir -p $W
[ -f .probe/t/train.db.xz ] && xz -dc .probe/t/train.db.xz > $W/train.db
[ -f .probe/t/eval.db.xz ] && xz -dc .probe/t/eval.db.xz > $W/eval.db
[ -f .probe/t/level2.weights ] && cp .probe/t/level2.weights $W/level2.weights
L=$OUT/train.log
TOT=${TOTAL_S:-540}
if [ -n "${GPUTEST:-}" ]; then
  timeout 60 build/tests/ops_gpu_ops_matmul > $OUT/gpu_ops_matmul.log 2>&1
  echo "gpu_ops_matmul rc $? after $(( $(date +%s) - T0 )) s" >> $L
fi
left=$(( TOT - 20 - ($(date +%s) - T0) ))
timeout $left build/krl train --level 2 --shapes kb0 --budget 16 --seed 1 \
  --weights policy/builtin.weights --weights-out $W/level2.weights \
  --store $W/train.db --work-dir $W/cands >> $L 2>&1
rc=$?
echo "train rc $rc after $(( $(date +%s) - T0 )) s" >> $L
cp $W/level2.weights $OUT/ 2>/dev/null
xz -T0 -c $W/train.db > $OUT/train.db.xz
if [ $rc = 0 ]; then
  left=$(( TOT - 15 - ($(date +%s) - T0) ))
  E=$OUT/eval.log
  timeout $left build/krl train --eval --level 2 --shapes kb0 --budget ${EVAL_BUDGET:-8} --seed 1 \
    --weights $W/level2.weights --results $OUT/eval-b${EVAL_BUDGET:-8}.json \
    --store $W/eval.db --work-dir $W/ecands >> $E 2>&1
  echo "eval rc $? after $(( $(date +%s) - T0 )) s" >> $E
  xz -T0 -c $W/eval.db > $OUT/eval.db.xz
fi
echo "done after $(( $(date +%s) - T0 )) s" >> $L
