#!/bin/bash
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks
P=$OUT/prof.log
while read t c; do
  echo "### $c $t" >> $P
  timeout 40 build/bench/plan_profile $t --shapes kb1 --reps 5 --top 4 --candidate .probe/m5/$c.cu >> $P 2>&1
done < .probe/m5/list.txt
echo "profile done after $(( $(date +%s) - T0 )) s" >> $P
timeout 120 build/tests/opt_gpu_gemm_epi > $OUT/gemm_epi.log 2>&1
echo "opt_gpu_gemm_epi exit $? after $(( $(date +%s) - T0 )) s" >> $OUT/gemm_epi.log
export KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
L=$OUT/call.log
left=$(( ${TOTAL_S:-570} - ($(date +%s) - T0) ))
echo "level phase with $left s left" >> $L
LEVEL=2 SHAPES=kb1 BUDGET=8 TASK_LIST=.probe/m5/listD.txt LEVEL_SECONDS=$left OPT_SECONDS=$((left * 72 / 100)) \
  WORK=/tmp/gw OUT=$OUT/lv PACK=$OUT/lv bash bench/run_gpu.sh level >> $L 2>&1
echo "done after $(( $(date +%s) - T0 )) s" >> $L
