#!/bin/bash
# where the time goes: plan_profile of the channels-last row-kernel plans
# and their NCHW alternatives; torch.compile's kernels on the same problems
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl KRL_TASKS=$PWD/tasks
L=$OUT/prof.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $L
while read t c; do
  [ $(( $(date +%s) - T0 )) -gt 240 ] && break
  echo "### $c $t" >> $L
  timeout 40 build/bench/plan_profile $t --shapes kb1 --reps 5 --top 10 --candidate .probe/prof3/$c.cu >> $L 2>&1
done < .probe/prof3/list.txt
K=.kb/kb1/level2
echo "### torch compile" >> $L
left=$(( 560 - ($(date +%s) - T0) ))
env -u LD_LIBRARY_PATH timeout $left python3 bench/torch_kernels.py --compile $K/34_ConvTranspose3d_LayerNorm_GELU_Scaling.py $K/91_ConvTranspose2d_Softmax_BiasAdd_Scaling_Sigmoid.py $K/52_Conv2d_Activation_BatchNorm.py $K/3_ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU.py $K/17_Conv2d_InstanceNorm_Divide.py >> $L 2>&1
echo "done after $(( $(date +%s) - T0 )) s" >> $L
