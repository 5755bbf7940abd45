#!/bin/bash
# session call 2: profiles (column cache, pool windows of the set, softmaxes,
# 73's cuDNN engines and PyTorch's), then searches of the changed problems
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
P=$OUT/prof.log
T73=level1/73_conv_transpose3d_strided_padded_grouped
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >> $P
while read t c s; do
  echo "### $c $t $s" >> $P
  timeout 40 build/bench/plan_profile $t --shapes $s --reps 7 --top 4 --candidate .probe/s2/$c.cu >> $P 2>&1
done < .probe/s2/list.txt
echo "### ref $T73 kb1" >> $P
timeout 40 build/bench/plan_profile $T73 --shapes kb1 --reps 7 --top 4 >> $P 2>&1
echo "### ref-v7 $T73 kb1" >> $P
KRL_CUDNN_V7=1 timeout 40 build/bench/plan_profile $T73 --shapes kb1 --reps 7 --top 4 >> $P 2>&1
echo "profile done after $(( $(date +%s) - T0 )) s" >> $P
# cuDNN's own log of the engines: ours (reference) and PyTorch's
CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGDEST_DBG=$OUT/cudnn_krl73.log timeout 60 build/bench/plan_profile $T73 --shapes kb1 --reps 2 --top 2 > $OUT/krl73.out 2>&1
env -u LD_LIBRARY_PATH CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGDEST_DBG=$OUT/cudnn_torch73.log timeout 120 python3 .probe/s2/torch73.py .kb/kb1/level1/73_*.py > $OUT/torch73.out 2>&1
env -u LD_LIBRARY_PATH timeout 120 python3 .probe/s2/torch73.py .kb/kb1/level1/73_*.py >> $OUT/torch73.out 2>&1
for f in $OUT/cudnn_*.log; do gzip -f $f; done
echo "logs done after $(( $(date +%s) - T0 )) s" >> $P
L=$OUT/call.log
left=$(( ${TOTAL_S:-560} - ($(date +%s) - T0) ))
LEVEL=1 SHAPES=kb1 BUDGET=16 TASK_LIST=.probe/s2/search.txt LEVEL_SECONDS=$left OPT_SECONDS=$((left * 6 / 10)) \
  WORK=/tmp/gw2 OUT=$OUT/l1 PACK=$OUT/l1 bash bench/run_gpu.sh level >> $L 2>&1
echo "done after $(( $(date +%s) - T0 )) s" >> $L
