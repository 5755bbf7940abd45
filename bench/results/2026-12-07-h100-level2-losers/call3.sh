#!/bin/bash
set -u
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_TASKS=$PWD/tasks KRL_CACHE_DIR=/tmp/kc
T0=$(date +%s); el() { echo $(($(date +%s) - T0)); }
nvidia-smi --query-gpu=name --format=csv,noheader; cat .commit
for f in p34nchw p34l8 p34l16 p60c p60pers p60e2 p60e4p p60math p5 p5cf p5i p5cfi p5fast p4 p4fast p16 p16fast p93 p54; do
  n=$(echo $f | sed 's/p\([0-9]*\).*/\1/')
  echo "-- $f"
  timeout 40 build/bench/plan_profile level2/$n --shapes kb1 --top 4 --candidate .probe/$f.cu 2>&1 | grep -vE "^\s*$|by op|calls" | head -6
done 2>&1 | tee $OUT/profile3.txt | grep -E "^--|whole|^    [0-9]"
echo "done at $(el) s"
echo "== ncu at $(el) s"
N=$OUT/ncu.log; which ncu >> $N 2>&1
nc() { timeout 100 ncu --clock-control none --kernel-name regex:$2 --launch-skip 1 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy --section SchedulerStats build/bench/plan_profile level2/$1 --shapes kb1 --reps 1 --candidate .probe/$3.cu >> $N 2>&1; echo "ncu $3 $2 rc $? at $(el) s" | tee -a $N; }
nc 60 k2_map p60c
nc 52 k1_pass1 p52
nc 34 k1_row p34nchw
nc 5 k1_map p5
grep -E "^\s+k[0-9]|ncu |Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Registers Per|Achieved Occupancy|Issued Warp|No Eligible|One or More|Theoretical Occ|Warp Cycles Per Issued" $N | head -120
echo "done at $(el) s"
