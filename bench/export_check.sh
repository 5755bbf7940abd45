#!/bin/bash
# bench/export_check.sh: the acceptance of `krl export --to torch` on the GPU
# machine (docs/export.md): for each task, optimize it (resumable, stored
# in $DB), export its best stored candidate --to torch, and check the
# package against KernelBench's Model with bench/check_export.py (5 seeds,
# the task's tolerance, the BENCHMARKING.md timing, drift from krl's
# speedup). Also exports each --to cuda and runs its sample (make && run).
#
#   bash bench/fetch_kb.sh && cmake --build build -j
#   bash bench/export_check.sh [TASK...]
# Env: DB (krl.db), OUT (bench/out/export), BUDGET (krl optimize --budget,
# 8), SHAPES (kb1), OPTIMIZE (1; 0: use what the store has).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
DB=${DB:-krl.db}
OUT=${OUT:-bench/out/export}
BUDGET=${BUDGET:-8}
SHAPES=${SHAPES:-kb1}
OPTIMIZE=${OPTIMIZE:-1}
tasks=("$@")
if [ ${#tasks[@]} -eq 0 ]; then
	# the quickstart's five, and five level-1 GEMM/conv problems
	tasks=(level1/19_relu level1/23_softmax level1/40_layernorm
	       level1/94_mse_loss level1/95_cross_entropy
	       level1/1_square_matmul level1/2_matmul level1/18_matmul_tt
	       level1/63_conv2d_square level1/87_conv_pointwise2d)
fi
mkdir -p "$OUT"
fail=0
for t in "${tasks[@]}"; do
	dir="$OUT/${t//\//_}"
	if [ "$OPTIMIZE" = 1 ]; then
		./build/krl optimize "$t" --budget "$BUDGET" --shapes "$SHAPES" \
			--db "$DB" --results "$OUT/optimize.jsonl" || fail=1
	fi
	rm -rf "$dir.torch" "$dir.cuda"
	if ! ./build/krl export "$t" --db "$DB" --shapes "$SHAPES" --to torch "$dir.torch"; then
		echo "{\"task\": \"$t\", \"error\": \"export failed\"}" >> "$OUT/check.jsonl"
		fail=1
		continue
	fi
	# PyTorch with its own CUDA libraries (not a staged .devlibs)
	env -u LD_LIBRARY_PATH python3 bench/check_export.py "$dir.torch" --out "$OUT/check.jsonl" || fail=1
	if ./build/krl export "$t" --db "$DB" --shapes "$SHAPES" --to cuda "$dir.cuda" &&
	   make -C "$dir.cuda" NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}" \
		> "$dir.cuda/make.log" 2>&1 &&
	   (cd "$dir.cuda" && h=$(ls krl_*.h) && "./${h%.h}" > run.log 2>&1); then
		echo "$t: --to cuda sample: $(tail -1 "$dir.cuda/run.log")"
	else
		echo "$t: --to cuda sample FAILED (see $dir.cuda/)"
		fail=1
	fi
done
exit $fail
