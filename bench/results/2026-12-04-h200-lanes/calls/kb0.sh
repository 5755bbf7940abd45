#!/bin/bash
# kb0.sh SECONDS: all of level 2 at kb0, budget 8, with peers; resumes from
# /tmp/gw (a warm machine) or from .probe/gw-kb0.tar.xz (carried back)
left=$1
if [ ! -d /tmp/gw/opt-level2-kb0 ] && [ -f .probe/gw-kb0.tar.xz ]; then
  mkdir -p /tmp/gw && tar xJf .probe/gw-kb0.tar.xz -C /tmp/gw
  echo "resumed from the carried folder" >> $OUT/call.log
fi
LEVEL=2 SHAPES=kb0 BUDGET=8 TASK_LIST=.probe/kb0all.txt LEVEL_SECONDS=$left OPT_SECONDS=$((left * 60 / 100)) \
  WORK=/tmp/gw OUT=$OUT/kb0 PACK=$OUT/kb0 bash bench/run_gpu.sh level >> $OUT/call.log 2>&1
tar cJf $OUT/gw-kb0.tar.xz -C /tmp/gw opt-level2-kb0
