#!/bin/bash
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks
P=$OUT/prof.log
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >> $P
while read t c; do
  echo "### $c $t" >> $P
  timeout 40 build/bench/plan_profile $t --shapes kb1 --reps 5 --top 4 --candidate .probe/${PROF}/$c.cu >> $P 2>&1
done < .probe/${PROF}/list.txt
echo "done after $(( $(date +%s) - T0 )) s" >> $P
N=$OUT/ncu.log
for v in def w32 tile; do
echo "=== 5.$v" >> $N
timeout 100 ncu --clock-control none --kernel-name regex:k1_map --launch-skip 1 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy build/bench/plan_profile level2/5_convtranspose2d_subtract_tanh --shapes kb1 --reps 1 --candidate .probe/${PROF}/5.$v.cu >> $N 2>&1
echo "ncu rc $? after $(( $(date +%s) - T0 )) s" >> $N
done
