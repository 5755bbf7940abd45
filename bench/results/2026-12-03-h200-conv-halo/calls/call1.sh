#!/bin/bash
# halo-form sweep: batch at tiny,kb1, then PyTorch's peers for the same tasks
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl KRL_TASKS=$PWD/tasks
L=$OUT/call.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $L
cd .probe/h
( time timeout ${BATCH_S:-330} ../../build/krl batch batch.txt --shapes tiny,kb1 --json > $OUT/batch.jsonl ) 2>> $L
cd ../..
left=$(( ${TOTAL_S:-570} - ($(date +%s) - T0) ))
echo "peers with $left s left" >> $L
if [ $left -gt 60 ]; then
  ( time env -u LD_LIBRARY_PATH timeout $left python3 bench/peers.py --list .probe/h/list.txt --shapes kb1 --kb .kb/kb1 --out $OUT/peers.jsonl \
      --compile-workers 8 --cache-dir /tmp/ind --deadline $((left - 20)) --commit $(cat .commit) ) >> $L 2>&1
fi
echo "done after $(( $(date +%s) - T0 )) s" >> $L
