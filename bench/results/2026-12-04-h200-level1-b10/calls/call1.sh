#!/bin/bash
# session 2026-12-04c call 1: runtime_gpu_check (read ceiling method 5),
# hinge loss (100) variants: steps in flight, grid, chunking, __ldcs;
# PyTorch eager and torch.compile kernels of 57/71/78/87/6/100; SASS of 100's variants
set -u
T0=$(date +%s)
tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
L=$OUT/call.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >> $L
timeout 120 build/tests/runtime_gpu_check > $OUT/runtime_gpu_check.log 2>&1
echo "runtime_gpu_check rc $? after $(( $(date +%s) - T0 )) s" >> $L
timeout 150 build/krl batch .probe/s6/batch1.txt --json > $OUT/batch1.jsonl 2> $OUT/batch1.err
echo "batch rc $? after $(( $(date +%s) - T0 )) s" >> $L
cp /tmp/krl-cache/ceilings-*.json $OUT/ 2>/dev/null
ND=$(find / -name nvdisasm -type f 2>/dev/null | head -1); echo "nvdisasm: $ND" >> $L
CO=$(find / -name cuobjdump -type f 2>/dev/null | head -1); echo "cuobjdump: $CO" >> $L
for c in .probe/s6/*.cubin; do [ -n "$ND" ] && $ND -c $c > $OUT/$(basename $c .cubin).sass 2>&1; done
K=.kb/kb1/level1
P="$K/100_HingeLoss.py $K/71_conv_transposed_2D__asymmetric_input__square_kernel.py $K/78_conv_transposed_2D_asymmetric_input_asymmetric_kernel___padded__.py $K/57_conv_transposed_2D__square_input__square_kernel.py $K/87_conv_pointwise_2D.py $K/6_Matmul_with_large_K_dimension_.py"
timeout 150 env -u LD_LIBRARY_PATH /opt/torch/.venv/bin/python bench/torch_kernels.py --compile $P > $OUT/compile_kernels.log 2>&1
echo "compile kernels rc $? after $(( $(date +%s) - T0 )) s" >> $L
timeout 60 env -u LD_LIBRARY_PATH /opt/torch/.venv/bin/python bench/torch_kernels.py $P > $OUT/eager_kernels.log 2>&1
echo "eager kernels rc $? after $(( $(date +%s) - T0 )) s" >> $L
