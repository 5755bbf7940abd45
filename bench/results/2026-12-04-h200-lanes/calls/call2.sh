#!/bin/bash
# call 2: pool profiles (loop vs literal taps), level-3 lstm algo 0/1, then
# krl optimize --budget 8 + peers on the changed level-2 problems at kb1,
# then all of level 2 at kb0 (resumed by call 3)
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
P=$OUT/prof.log
while read t c s; do
  echo "### $c $t $s" >> $P
  timeout 30 build/bench/plan_profile $t --shapes $s --reps 7 --top 4 --candidate .probe/c2/$c.cu >> $P 2>&1
done < .probe/c2/list.txt
echo "profile done after $(( $(date +%s) - T0 )) s" >> $P
L=$OUT/call.log
LEVEL=2 SHAPES=kb1 BUDGET=8 TASK_LIST=.probe/c2/kb1.txt LEVEL_SECONDS=270 OPT_SECONDS=200 \
  WORK=/tmp/gw OUT=$OUT/kb1 PACK=$OUT/kb1 bash bench/run_gpu.sh level >> $L 2>&1
echo "kb1 done after $(( $(date +%s) - T0 )) s" >> $L
bash .probe/kb0.sh $(( ${TOTAL_S:-565} - ($(date +%s) - T0) ))
echo "done after $(( $(date +%s) - T0 )) s" >> $L
