#!/bin/bash
# where the time goes: plan_profile of our candidates (NCHW, nhwc, nhwc_y)
# and torch.profiler of PyTorch eager and torch.compile on problems 1 and 5
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl KRL_TASKS=$PWD/tasks
L=$OUT/prof.log
for t in level2/1_conv2d_relu_biasadd level2/5_convtranspose2d_subtract_tanh; do
  echo "### plan_profile $t reference" >> $L
  timeout 60 build/bench/plan_profile $t --shapes kb1 --reps 5 --top 8 >> $L 2>&1
done
for c in p1.def p1.nhwc p1.nhwcy; do
  echo "### plan_profile level2/1 $c" >> $L
  timeout 60 build/bench/plan_profile level2/1_conv2d_relu_biasadd --shapes kb1 --reps 5 --top 8 --candidate .probe/prof/$c.cu >> $L 2>&1
done
for c in p5.def p5.nhwcy; do
  echo "### plan_profile level2/5 $c" >> $L
  timeout 60 build/bench/plan_profile level2/5_convtranspose2d_subtract_tanh --shapes kb1 --reps 5 --top 8 --candidate .probe/prof/$c.cu >> $L 2>&1
done
K=.kb/kb1/level2
echo "### torch eager" >> $L
env -u LD_LIBRARY_PATH timeout 120 python3 bench/torch_kernels.py $K/1_Conv2D_ReLU_BiasAdd.py $K/5_ConvTranspose2d_Subtract_Tanh.py >> $L 2>&1
echo "### torch compile" >> $L
env -u LD_LIBRARY_PATH timeout 240 python3 bench/torch_kernels.py --compile $K/1_Conv2D_ReLU_BiasAdd.py $K/5_ConvTranspose2d_Subtract_Tanh.py $K/4_Conv2d_Mish_Mish.py $K/16_ConvTranspose2d_Mish_Add_Hardtanh_Scaling.py >> $L 2>&1
echo "done after $(( $(date +%s) - T0 )) s" >> $L
