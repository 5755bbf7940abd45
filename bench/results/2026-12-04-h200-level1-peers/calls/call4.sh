#!/bin/bash
# session call 4: hand-written probes judged (register windows for 1-d
# pools, a thread per column for RMSNorm), 73's cuDNN library check, and the
# level-1 problems call 1 did not reach, with peers
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
build/krl batch .probe/s4/batch.txt --json > $OUT/batch.jsonl 2> $OUT/batch.err
echo "batch rc $? after $(( $(date +%s) - T0 )) s" >> $OUT/call.log
T73=level1/73_conv_transpose3d_strided_padded_grouped
TL=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
{ ldd build/krl | grep -i cudnn; readelf -d build/krl | grep -i path; ls -la /usr/lib/x86_64-linux-gnu/libcudnn.so* 2>&1 | head -3; } > $OUT/ldd.txt 2>&1
LD_LIBRARY_PATH=$TL:$PWD/.devlibs ldd build/krl | grep -i cudnn >> $OUT/ldd.txt 2>&1
LD_LIBRARY_PATH=$TL:$PWD/.devlibs CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGDEST_DBG=$OUT/cudnn73_torchlib.log timeout 60 build/bench/plan_profile $T73 --shapes kb1 --reps 3 --top 2 > $OUT/p73_torchlib.out 2>&1
grep -m3 "CuDNN (v" $OUT/cudnn73_torchlib.log >> $OUT/ldd.txt; grep "engine_id" $OUT/cudnn73_torchlib.log | sort | uniq -c >> $OUT/ldd.txt; rm -f $OUT/cudnn73_torchlib.log
LD_PRELOAD=$TL/libcudnn.so.9 LD_LIBRARY_PATH=$TL:$PWD/.devlibs timeout 60 build/bench/plan_profile $T73 --shapes kb1 --reps 7 --top 2 > $OUT/p73_preload.out 2>&1
echo "73 done after $(( $(date +%s) - T0 )) s" >> $OUT/call.log
LEVEL=1 SHAPES=kb1 BUDGET=16 TASK_LIST=.probe/s4/l1rest.txt LEVEL_SECONDS=200 OPT_SECONDS=120 \
  WORK=/tmp/gw4 OUT=$OUT/l1 PACK=$OUT/l1 bash bench/run_gpu.sh level >> $OUT/call.log 2>&1
echo "done after $(( $(date +%s) - T0 )) s" >> $OUT/call.log
