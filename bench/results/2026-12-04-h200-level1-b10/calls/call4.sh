#!/bin/bash
# session 2026-12-04c call 4: split-K 3xTF32 GEMM (6); nsys kernel breakdown of the
# transposed convolutions (57/71/78 in NCHW and NHWC) and 87
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
L=$OUT/call.log
timeout 120 build/krl batch .probe/s8/batch.txt --json > $OUT/batch.jsonl 2> $OUT/batch.err
echo "batch rc $? after $(( $(date +%s) - T0 )) s" >> $L
NS=$(ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys 2>/dev/null | head -1)
[ -z "$NS" ] && NS=$(find / -name nsys -type f 2>/dev/null | head -1)
echo "nsys: $NS" >> $L
if [ -n "$NS" ]; then
 for c in t57_nhwc t57_nchw t71_nhwc t78_nhwc c87; do
  case $c in t57*) t=level1/57_conv_transpose2d;; t71*) t=level1/71_conv_transpose2d_asym_input;; t78*) t=level1/78_conv_transpose2d_padded;; c87) t=level1/87_conv_pointwise2d;; esac
  timeout 60 $NS profile -o /tmp/p_$c --force-overwrite true build/krl eval $t .probe/s8/$c.cu --min-pairs 3 > /dev/null 2>&1
  timeout 60 $NS stats -r cuda_gpu_kern_sum -f csv /tmp/p_$c.nsys-rep > $OUT/k_$c.csv 2>&1
  echo "$c done after $(( $(date +%s) - T0 )) s" >> $L
 done
fi
