#!/bin/bash
# session call 1: level-1 problems where the peers may win, kb1 budget 16 with peers
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
L=$OUT/call.log
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,driver_version --format=csv >> $L
LEVEL=1 SHAPES=kb1 BUDGET=16 TASK_LIST=.probe/s1/list.txt LEVEL_SECONDS=${TOTAL_S:-560} OPT_SECONDS=360 \
  WORK=/tmp/gw OUT=$OUT/l1 PACK=$OUT/l1 bash bench/run_gpu.sh level >> $L 2>&1
echo "done after $(( $(date +%s) - T0 )) s" >> $L
