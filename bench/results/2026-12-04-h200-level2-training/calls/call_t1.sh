#!/bin/bash
# level-2 training at kb0, budget 16, from the level-1 weights
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks
export KRL_COMMIT=$(cat .commit)
W=/tmp/tw; mkdir -p $W
[ -f .probe/t/train.db.xz ] && xz -dc .probe/t/train.db.xz > $W/train.db
[ -f .probe/t/level2.weights ] && cp .probe/t/level2.weights $W/level2.weights
L=$OUT/train.log
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >> $L 2>&1
TS=${TRAIN_S:-470}
timeout $TS build/krl train --level 2 --shapes kb0 --budget 16 --seed 1 \
  --weights policy/builtin.weights --weights-out $W/level2.weights \
  --store $W/train.db --work-dir $W/cands >> $L 2>&1
echo "train rc $? after $(( $(date +%s) - T0 )) s" >> $L
cp $W/level2.weights $OUT/ 2>/dev/null
sqlite3 $W/train.db "select count(*), count(distinct run_id) from evaluations" >> $L 2>&1
xz -T0 -c $W/train.db > $OUT/train.db.xz
echo "done after $(( $(date +%s) - T0 )) s" >> $L
