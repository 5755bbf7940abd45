#!/bin/bash
# The GPU session script: run on the GPU machine from the repository root,
# after building here and bundling (see ../shared/device/README.md):
#   cmake --build build -j2
#   ../shared/device/bundle .devlibs build/krl build/tests/*_gpu_* build/bench/eval_speed
#   device run: bash bench/run_gpu.sh [tests|bench|stability|all]  (carry: build, .devlibs)
# Writes at most six files under $OUT (default bench/out): summary.txt,
# gpu_tests.log, nvrtc.json, batch_kb0.jsonl, batch_kb1.jsonl, stability.jsonl.
set -uo pipefail
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.devlibs:${LD_LIBRARY_PATH:-}
export KRL_CACHE_DIR=${KRL_CACHE_DIR:-/tmp/krl-cache}
export KRL_BIN=$PWD/build/krl
what=${1:-all}
S=$OUT/summary.txt
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	echo "commit $(cat .commit 2>/dev/null || git rev-parse HEAD 2>/dev/null)"
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
} >> "$S"

if [[ $what == all || $what == tests ]]; then
	for t in build/tests/*_gpu_*; do
		timeout 600 "$t" >> "$OUT/gpu_tests.log" 2>&1
		echo "$(basename "$t"): exit $?" | tee -a "$S"
	done
fi
if [[ $what == all || $what == bench ]]; then
	./build/bench/eval_speed --no-evals --reps 5 --json "$OUT/nvrtc.json" 2>&1 | tee -a "$S"
	for s in kb0 kb1; do
		t0=$(date +%s.%N)
		./build/krl batch examples/level1/EXPECTED --shapes tiny,$s --json \
			> "$OUT/batch_$s.jsonl" 2>> "$S"
		t1=$(date +%s.%N)
		echo "batch tiny,$s: $(awk "BEGIN{print $t1 - $t0}") s for $(wc -l < "$OUT/batch_$s.jsonl") evaluations" | tee -a "$S"
	done
fi
if [[ $what == all || $what == stability ]]; then
	for c in 19_relu 23_softmax 2_matmul; do
		for i in 1 2 3 4 5; do
			./build/krl eval level1/$c examples/level1/$c.fast.cu --shapes kb1 --json >> "$OUT/stability.jsonl" 2>> "$S"
		done
	done
fi
tail -30 "$S"
