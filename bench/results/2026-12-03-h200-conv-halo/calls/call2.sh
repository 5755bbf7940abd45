#!/bin/bash
# call 2: def / gather / halo on the 14 halo tasks (tiny,kb1); then the
# optimizer (budget 8) with peers on level 2's list $LIST
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl KRL_TASKS=$PWD/tasks
L=$OUT/call.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $L
if [ -n "${CMP:-}" ]; then
  cd .probe/$CMP
  ( time timeout ${BATCH_S:-150} ../../build/krl batch batch.txt --shapes tiny,kb1 --json > $OUT/cmp.jsonl ) 2>> $L
  cd ../..
fi
left=$(( ${TOTAL_S:-575} - ($(date +%s) - T0) ))
echo "level phase with $left s left" >> $L
LEVEL=2 SHAPES=kb1 BUDGET=8 TASK_LIST=.probe/$LIST LEVEL_SECONDS=$left OPT_SECONDS=$((left * 72 / 100)) \
  WORK=/tmp/gw OUT=$OUT/lv PACK=$OUT/lv bash bench/run_gpu.sh level >> $L 2>&1
echo "done after $(( $(date +%s) - T0 )) s" >> $L
