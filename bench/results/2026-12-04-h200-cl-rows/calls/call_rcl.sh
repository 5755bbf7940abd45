#!/bin/bash
# the builtin optimizer (budget 8) with peers on the problems the
# channels-last row kernels and the wider conv_bias rule change
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl KRL_TASKS=$PWD/tasks
L=$OUT/call.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $L
left=$(( ${TOTAL_S:-570} - ($(date +%s) - T0) ))
echo "level phase with $left s left" >> $L
LEVEL=2 SHAPES=kb1 BUDGET=8 TASK_LIST=.probe/rcl/${LIST:-list.txt} LEVEL_SECONDS=$left OPT_SECONDS=$((left * 72 / 100)) \
  WORK=/tmp/gw OUT=$OUT/lv PACK=$OUT/lv bash bench/run_gpu.sh level >> $L 2>&1
echo "done after $(( $(date +%s) - T0 )) s" >> $L
