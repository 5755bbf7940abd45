#!/bin/bash
# session 2026-12-04c full run: all of level 1 at kb1, budget 10, peers in
# the same session (bench/run_gpu.sh level), resumable in .gpuwork on this
# warm machine; OS/LS: the call's search and phase seconds
set -u
T0=$(date +%s)
[ -d build/.gpuok ] || { tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build && mkdir -p build/.gpuok; }
export KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit)
LEVEL=1 SHAPES=kb1 BUDGET=10 REASONS=bench/reasons-level1-kb1.txt LEVEL_SECONDS=${LS:-570} OPT_SECONDS=${OS:-410} \
  PEERS_BUDGET=2 OUT=$OUT/l1 PACK=$OUT/l1 bash bench/run_gpu.sh level > $OUT/call.log 2>&1
echo "phase done after $(( $(date +%s) - T0 )) s" >> $OUT/call.log
cp /tmp/krl-cache/ceilings-*.json $OUT/ 2>/dev/null
