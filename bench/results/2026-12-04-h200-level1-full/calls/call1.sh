#!/bin/bash
# session 2026-12-04b call 1: probes for 36/24/23 (krl batch), searches
# with peers of the depthwise (82-86), grouped transposed (72, 73, 75) and
# two-input reductions (94, 96), judge_gpu_eval (new ceilings)
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
L=$OUT/call.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >> $L
timeout 120 build/krl batch .probe/s1/batch.txt --json > $OUT/batch.jsonl 2> $OUT/batch.err
echo "batch rc $? after $(( $(date +%s) - T0 )) s" >> $L
cp /tmp/krl-cache/ceilings-*.json $OUT/ 2>/dev/null
LEVEL=1 SHAPES=kb1 BUDGET=16 TASK_LIST=.probe/s1/l1.txt LEVEL_SECONDS=270 OPT_SECONDS=190 \
  WORK=/tmp/gw1 OUT=$OUT/l1 PACK=$OUT/l1 bash bench/run_gpu.sh level >> $L 2>&1
echo "level done after $(( $(date +%s) - T0 )) s" >> $L
timeout 90 build/tests/judge_gpu_eval > $OUT/judge_gpu_eval.log 2>&1
echo "judge_gpu_eval rc $? after $(( $(date +%s) - T0 )) s" >> $L
