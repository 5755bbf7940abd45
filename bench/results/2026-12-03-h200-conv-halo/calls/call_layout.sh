#!/bin/bash
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl KRL_TASKS=$PWD/tasks
L=$OUT/call.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $L
cd .probe/cl
( time timeout ${BATCH_S:-330} ../../build/krl batch b2.txt --shapes tiny,kb1 --json > $OUT/cl.jsonl ) 2>> $L
echo "done after $(( $(date +%s) - T0 )) s" >> $L
