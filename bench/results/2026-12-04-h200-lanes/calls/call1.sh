#!/bin/bash
# call 1: profiles (lane-shared view indices, row.colthread, kb0 GEMM algorithms), then the GPU tests + adversarial
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
P=$OUT/prof.log
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >> $P
while read t c s; do
  echo "### $c $t $s" >> $P
  timeout 30 build/bench/plan_profile $t --shapes $s --reps 7 --top 4 --candidate .probe/c1/$c.cu >> $P 2>&1
done < .probe/c1/list.txt
echo "profile done after $(( $(date +%s) - T0 )) s" >> $P
left=$(( ${TOTAL_S:-570} - ($(date +%s) - T0) ))
timeout $left bash bench/run_gpu.sh tests adversarial > $OUT/tests.out 2>&1
echo "tests rc $? after $(( $(date +%s) - T0 )) s" >> $OUT/tests.out
cp bench/out/gpu_tests.log bench/out/summary.txt bench/out/adversarial.jsonl $OUT/ 2>/dev/null
