#!/bin/bash
# session call 3: pool profiles (old vs new), 73 with PyTorch's cuDNN,
# level-1 pool searches with peers, then the GPU tests
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
P=$OUT/prof.log
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >> $P
while read t c s; do
  echo "### $c $t $s" >> $P
  timeout 40 build/bench/plan_profile $t --shapes $s --reps 7 --top 4 --candidate .probe/s3/$c.cu >> $P 2>&1
done < .probe/s3/list.txt
echo "profile done after $(( $(date +%s) - T0 )) s" >> $P
T73=level1/73_conv_transpose3d_strided_padded_grouped
TL=$(env -u LD_LIBRARY_PATH python3 -c 'import nvidia.cudnn as c, os; print(os.path.join(list(c.__path__)[0], "lib"))' 2>>$P)
echo "torch cudnn lib: $TL: $(ls $TL 2>&1 | tr '\n' ' ')" >> $P
echo "### ref-cudnn-torch $T73 kb1" >> $P
LD_LIBRARY_PATH=$TL:$PWD/.devlibs timeout 60 build/bench/plan_profile $T73 --shapes kb1 --reps 7 --top 4 >> $P 2>&1
echo "### ref-cudnn-system $T73 kb1" >> $P
timeout 60 build/bench/plan_profile $T73 --shapes kb1 --reps 7 --top 4 >> $P 2>&1
L=$OUT/call.log
LEVEL=1 SHAPES=kb1 BUDGET=16 TASK_LIST=.probe/s3/l1search.txt LEVEL_SECONDS=170 OPT_SECONDS=110 \
  WORK=/tmp/gw3 OUT=$OUT/l1 PACK=$OUT/l1 bash bench/run_gpu.sh level >> $L 2>&1
echo "l1 done after $(( $(date +%s) - T0 )) s" >> $L
left=$(( ${TOTAL_S:-575} - ($(date +%s) - T0) ))
timeout $left bash bench/run_gpu.sh tests > $OUT/tests.out 2>&1
echo "tests rc $? after $(( $(date +%s) - T0 )) s" >> $OUT/tests.out
cp bench/out/gpu_tests.log bench/out/summary.txt $OUT/ 2>/dev/null
