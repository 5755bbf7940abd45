#!/bin/bash
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
L=$OUT/call.log
timeout 200 build/krl batch .probe/s6/batch1.txt --json > $OUT/batch1.jsonl 2> $OUT/batch1.err
echo "batch rc $? after $(( $(date +%s) - T0 )) s" >> $L
mkdir -p $OUT/tools; cp /usr/local/cuda-13.0/bin/nvdisasm /usr/local/cuda-13.0/bin/cuobjdump $OUT/tools/
