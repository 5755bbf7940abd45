#!/bin/bash
# first call: GPU tests, adversarial, exact candidates, export of kb0 best
set -u
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/call.log 2>&1
t0=$(date +%s)
OUT=$OUT bash bench/run_gpu.sh tests adversarial >> $OUT/call.log 2>&1
echo "tests+adversarial rc $? $(( $(date +%s)-t0 )) s" >> $OUT/call.log
export LD_LIBRARY_PATH=$PWD/.devlibs:${LD_LIBRARY_PATH:-}
export KRL_BIN=$PWD/build/krl
t1=$(date +%s)
bash bench/exact/check.sh > $OUT/exact.log 2>&1
echo "exact rc $? $(( $(date +%s)-t1 )) s" >> $OUT/call.log
t2=$(date +%s)
mkdir -p /tmp/c && tar xJf bench/results/2026-12-07-h100-level2-73c970d/best-kb0.tar.xz -C /tmp/c && OUT=$OUT bash bench/export_level.sh /tmp/c/best-kb0 kb0 > $OUT/export.log 2>&1
echo "export rc $? $(( $(date +%s)-t2 )) s" >> $OUT/call.log
cd $OUT && tar czf logs.tar.gz --exclude=logs.tar.gz --exclude=call.log --exclude=summary.txt --exclude=exact.log --exclude=export.log --exclude=export-kb0.jsonl --exclude=adversarial.jsonl * 2>/dev/null; ls -la >> call.log
