#!/bin/bash
# session 2026-12-04b call 3: generated registered columns (36), batched output passes (24, 23)
# batched output passes (24, 23), 94/96 against the method-4 ceilings
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
L=$OUT/call.log
timeout 200 build/krl batch .probe/s1/batch3.txt --json > $OUT/batch3.jsonl 2> $OUT/batch3.err
echo "batch rc $? after $(( $(date +%s) - T0 )) s" >> $L
cp /tmp/krl-cache/ceilings-*.json $OUT/ 2>/dev/null
