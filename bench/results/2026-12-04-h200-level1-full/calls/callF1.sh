#!/bin/bash
# session 2026-12-04b full run, part 1: all of level 1 at kb1, budget 12,
# peers in the same session (bench/run_gpu.sh level), resumable in
# .gpuwork on this warm machine
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit)
LEVEL=1 SHAPES=kb1 BUDGET=12 REASONS=bench/reasons-level1-kb1.txt LEVEL_SECONDS=${LS:-565} OPT_SECONDS=${OS:-545} \
  PEERS_BUDGET=3 OUT=$OUT/l1 PACK=$OUT/l1 bash bench/run_gpu.sh level > $OUT/call.log 2>&1
echo "phase done after $(( $(date +%s) - T0 )) s" >> $OUT/call.log
cp /tmp/krl-cache/ceilings-*.json $OUT/ 2>/dev/null
