#!/bin/bash
# every GPU test (bounded), a profile of prof9, the optimizer with peers on list4
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
P=$OUT/prof.log
while read t c; do
  echo "### $c $t" >> $P
  timeout 30 build/bench/plan_profile $t --shapes kb1 --reps 5 --top 4 --candidate .probe/prof9/$c.cu >> $P 2>&1
done < .probe/prof9/list.txt
L=$OUT/call.log
LEVEL=2 SHAPES=kb1 BUDGET=8 TASK_LIST=.probe/rcl/list4.txt LEVEL_SECONDS=150 OPT_SECONDS=110 \
  WORK=/tmp/gw OUT=$OUT/lv PACK=$OUT/lv bash bench/run_gpu.sh level >> $L 2>&1
echo "level done after $(( $(date +%s) - T0 )) s" >> $L
left=$(( ${TOTAL_S:-560} - ($(date +%s) - T0) ))
timeout $left bash bench/run_gpu.sh tests > $OUT/tests.out 2>&1
echo "tests rc $? after $(( $(date +%s) - T0 )) s" >> $OUT/tests.out
cp bench/out/gpu_tests.log bench/out/summary.txt $OUT/ 2>/dev/null
