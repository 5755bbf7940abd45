#!/bin/bash
# The GPU session script: run on the GPU machine from the repository root,
# after building here and bundling (see ../shared/device/README.md):
#   cmake --build build -j2 && ../shared/device/bundle .devlibs build/krl build/tests/*/gpu_* build/bench/eval_speed
#   device run: bash bench/run_gpu.sh   (carry: build, .devlibs)
# Writes logs and JSON results under $OUT (default bench/out).
set -uo pipefail
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.devlibs:${LD_LIBRARY_PATH:-}
export KRL_CACHE_DIR=${KRL_CACHE_DIR:-/tmp/krl-cache}
export KRL_BIN=$PWD/build/krl
what=${1:-all}
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	git rev-parse HEAD 2>/dev/null || echo "commit: $(cat .commit 2>/dev/null)"
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
} | tee "$OUT/env.txt"

if [[ $what == all || $what == tests ]]; then
	ctest --test-dir build -L gpu --output-on-failure --timeout 900 2>&1 | tee "$OUT/gpu_tests.log" | tail -40
fi
if [[ $what == all || $what == bench ]]; then
	./build/bench/eval_speed --no-evals --reps 5 --json "$OUT/nvrtc.json" 2>&1 | tee "$OUT/nvrtc.txt"
	for s in kb0 kb1; do
		t0=$(date +%s.%N)
		./build/krl batch examples/level1/EXPECTED --shapes tiny,$s --json \
			> "$OUT/batch_$s.jsonl" 2> "$OUT/batch_$s.err"
		t1=$(date +%s.%N)
		echo "batch $s: $(tail -1 "$OUT/batch_$s.err") in $(echo "$t1 - $t0" | bc) s" | tee -a "$OUT/summary.txt"
	done
	for c in 19_relu 23_softmax; do
		for i in 1 2 3 4 5; do
			./build/krl eval level1/$c examples/level1/$c.fast.cu --shapes kb1 --json >> "$OUT/stability.jsonl"
		done
	done
fi
