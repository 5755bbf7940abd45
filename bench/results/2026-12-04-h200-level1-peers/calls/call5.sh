#!/bin/bash
# session call 5: the register-window pools, a thread per cached column
# and the new roofline ceilings judged; level-1 searches of the changed
# problems with peers; level 2's changed column kernels searched with peers
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
build/krl batch .probe/s5/batch.txt --json > $OUT/batch.jsonl 2> $OUT/batch.err
echo "batch rc $? after $(( $(date +%s) - T0 )) s" >> $OUT/call.log
cat /tmp/krl-cache/ceilings-*.json > $OUT/ceilings.json 2>/dev/null
timeout 60 build/tests/judge_gpu_eval > $OUT/gpu_eval.log 2>&1
echo "gpu_eval rc $? after $(( $(date +%s) - T0 )) s" >> $OUT/call.log
LEVEL=1 SHAPES=kb1 BUDGET=16 TASK_LIST=.probe/s5/l1.txt REASONS=bench/reasons-level1-kb1.txt LEVEL_SECONDS=90 OPT_SECONDS=60 \
  WORK=/tmp/gw5 OUT=$OUT/l1 PACK=$OUT/l1 bash bench/run_gpu.sh level >> $OUT/call.log 2>&1
echo "l1 done after $(( $(date +%s) - T0 )) s" >> $OUT/call.log
left=$(( ${TOTAL_S:-215} - ($(date +%s) - T0) ))
LEVEL=2 SHAPES=kb1 BUDGET=8 TASK_LIST=.probe/s5/l2.txt LEVEL_SECONDS=$left OPT_SECONDS=$((left * 6 / 10)) \
  WORK=/tmp/gw5 OUT=$OUT/l2 PACK=$OUT/l2 bash bench/run_gpu.sh level >> $OUT/call.log 2>&1
echo "done after $(( $(date +%s) - T0 )) s" >> $OUT/call.log
