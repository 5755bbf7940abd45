#!/bin/bash
set -u
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
LEVEL=2 SHAPES=kb1 BUDGET=8 TASK_LIST=bench/l2-conv-fwd33.txt LEVEL_SECONDS=320 OPT_SECONDS=225 WORK=/tmp/gw OUT=$OUT/l2 PACK=l2 bash bench/run_gpu.sh level > $OUT/l2.log 2>&1
LEVEL=1 SHAPES=kb1 BUDGET=8 TASK_LIST=.probe/l1conv.txt  (level1-conv14.txt here) LEVEL_SECONDS=150 OPT_SECONDS=100 WORK=/tmp/gw OUT=$OUT/l1 PACK=l1 bash bench/run_gpu.sh level > $OUT/l1.log 2>&1
tail -25 $OUT/l2.log; tail -25 $OUT/l1.log
