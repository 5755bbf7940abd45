#!/bin/bash
# plan_profile of the channels-last plans (150 s at most), then the
# builtin optimizer (budget 8) with peers on the problems the channels-last
# row kernels and the wider conv_bias rule change
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl KRL_TASKS=$PWD/tasks
L=$OUT/call.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $L
P=$OUT/prof.log
while read t c; do
  [ $(( $(date +%s) - T0 )) -gt ${PROF_S:-150} ] && break
  echo "### $c $t" >> $P
  timeout 30 build/bench/plan_profile $t --shapes kb1 --reps 5 --top 10 --candidate .probe/${PROF:-prof5}/$c.cu >> $P 2>&1
done < .probe/${PROF:-prof5}/list.txt
left=$(( ${TOTAL_S:-580} - ($(date +%s) - T0) ))
echo "level phase with $left s left" >> $L
LEVEL=2 SHAPES=kb1 BUDGET=8 TASK_LIST=.probe/rcl/${LIST:-list3.txt} LEVEL_SECONDS=$left OPT_SECONDS=$((left * 75 / 100)) \
  WORK=/tmp/gw OUT=$OUT/lv PACK=$OUT/lv bash bench/run_gpu.sh level >> $L 2>&1
echo "done after $(( $(date +%s) - T0 )) s" >> $L
