#!/bin/bash
# session 2026-12-04c call 3: total kernels with stepped coordinates (100, 94, 96): steps, grid, launch bounds
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
L=$OUT/call.log
timeout 250 build/krl batch .probe/s7/batch.txt --json > $OUT/batch.jsonl 2> $OUT/batch.err
echo "batch rc $? after $(( $(date +%s) - T0 )) s" >> $L
