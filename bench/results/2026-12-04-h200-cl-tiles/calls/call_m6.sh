#!/bin/bash
# bn problems at kb1 (+ level-1 33), then a kb0 slice, all with peers
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks
P=$OUT/prof.log
while read t c; do
  echo "### $c $t" >> $P
  timeout 30 build/bench/plan_profile $t --shapes kb1 --reps 5 --top 6 --candidate .probe/m6/$c.cu >> $P 2>&1
done < .probe/m6/list.txt
echo "profile done after $(( $(date +%s) - T0 )) s" >> $P
export KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
L=$OUT/call.log
TOT=${TOTAL_S:-420}
LEVEL=2 SHAPES=kb1 BUDGET=8 TASK_LIST=.probe/m6/bn.txt LEVEL_SECONDS=100 OPT_SECONDS=65 \
  WORK=/tmp/gw OUT=$OUT/bn PACK=$OUT/bn bash bench/run_gpu.sh level >> $L 2>&1
echo "bn done after $(( $(date +%s) - T0 )) s" >> $L
LEVEL=1 SHAPES=kb1 BUDGET=32 TASK_LIST=.probe/m6/l1.txt LEVEL_SECONDS=50 OPT_SECONDS=35 \
  WORK=/tmp/gw OUT=$OUT/l1 PACK=$OUT/l1 bash bench/run_gpu.sh level >> $L 2>&1
echo "l1 done after $(( $(date +%s) - T0 )) s" >> $L
left=$(( TOT - ($(date +%s) - T0) ))
LEVEL=2 SHAPES=kb0 BUDGET=8 TASK_LIST=.probe/m6/kb0.txt LEVEL_SECONDS=$left OPT_SECONDS=$((left * 60 / 100)) \
  WORK=/tmp/gw OUT=$OUT/kb0 PACK=$OUT/kb0 bash bench/run_gpu.sh level >> $L 2>&1
echo "done after $(( $(date +%s) - T0 )) s" >> $L
PY=$(ls /opt/torch/.venv/bin/python3 2>/dev/null || which python3)
timeout 45 env -u LD_LIBRARY_PATH $PY bench/torch_kernels.py --compile .kb/kb1/level2/6_Conv3d_Softmax_MaxPool_MaxPool.py .kb/kb1/level2/38_ConvTranspose3d_AvgPool_Clamp_Softmax_Multiply.py .kb/kb1/level2/58_ConvTranspose3d_LogSumExp_HardSwish_Subtract_Clamp.py > $OUT/torch_compile_kernels.log 2>&1
echo "torch kernels rc $? after $(( $(date +%s) - T0 )) s" >> $L
