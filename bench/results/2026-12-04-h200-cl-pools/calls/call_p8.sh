#!/bin/bash
# profile (prof8), then the optimizer with peers on list3
set -u
T0=$(date +%s)
PROF=prof8 bash .probe/call_prof7.sh
mv build/.. 2>/dev/null
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl KRL_TASKS=$PWD/tasks
L=$OUT/call.log
left=$(( ${TOTAL_S:-560} - ($(date +%s) - T0) ))
echo "level phase with $left s left" >> $L
LEVEL=2 SHAPES=kb1 BUDGET=8 TASK_LIST=.probe/rcl/list3.txt LEVEL_SECONDS=$left OPT_SECONDS=$((left * 75 / 100)) \
  WORK=/tmp/gw OUT=$OUT/lv PACK=$OUT/lv bash bench/run_gpu.sh level >> $L 2>&1
echo "done after $(( $(date +%s) - T0 )) s" >> $L
