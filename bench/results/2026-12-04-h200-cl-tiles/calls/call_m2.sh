#!/bin/bash
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks
P=$OUT/prof.log
while read t c; do
  echo "### $c $t" >> $P
  timeout 40 build/bench/plan_profile $t --shapes kb1 --reps 5 --top 4 --candidate .probe/${PROF}/$c.cu >> $P 2>&1
done < .probe/${PROF}/list.txt
echo "done after $(( $(date +%s) - T0 )) s" >> $P
N=$OUT/ncu.log
for v in t2; do
echo "=== 5.$v" >> $N
timeout 100 ncu --clock-control none --kernel-name regex:k1_map --launch-skip 1 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy build/bench/plan_profile level2/5_convtranspose2d_subtract_tanh --shapes kb1 --reps 1 --candidate .probe/${PROF}/5.$v.cu >> $N 2>&1
echo "ncu rc $? after $(( $(date +%s) - T0 )) s" >> $N
done
PY=$(ls /opt/torch/.venv/bin/python3 2>/dev/null || which python3)
export TORCHINDUCTOR_CACHE_DIR=/tmp/ind
TORCH_LOGS=output_code timeout 200 $PY bench/torch_kernels.py --compile .kb/kb1/level2/5_ConvTranspose2d_Subtract_Tanh.py .kb/kb1/level2/1_Conv2D_ReLU_BiasAdd.py > $OUT/tk.log 2>&1
echo "torch rc $? after $(( $(date +%s) - T0 )) s" >> $N
timeout 100 ncu --clock-control none --kernel-name regex:triton_poi_fused_convolution_sub_tanh --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy $PY bench/torch_kernels.py --compile .kb/kb1/level2/5_ConvTranspose2d_Subtract_Tanh.py >> $N 2>&1
echo "ncu2 rc $? after $(( $(date +%s) - T0 )) s" >> $N
