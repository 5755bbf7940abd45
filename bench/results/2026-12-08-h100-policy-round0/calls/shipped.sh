#!/bin/bash
export LD_LIBRARY_PATH=$PWD/.devlibs:${LD_LIBRARY_PATH:-}
export KRL_CACHE_DIR=/tmp/krl-cache KRL_COMMIT=$(cat .commit)
mkdir -p /tmp/w && xz -dc .accept/eval.db.xz > /tmp/w/eval.db
timeout 140 ./build/krl train --eval --level 2 --shapes kb0 --budget 8 --at 4 --seed 1 --round0 policy \
  --weights policy/builtin.weights --results $OUT/eval_shipped-b8.json --store /tmp/w/eval.db --work-dir /tmp/w/c > $OUT/eval_shipped.log 2>&1
echo "rc $?" >> $OUT/eval_shipped.log
