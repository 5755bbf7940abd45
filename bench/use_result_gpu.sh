#!/bin/bash
# bench/use_result_gpu.sh: issue 19's acceptance on the GPU machine, in
# phases that each fit one device call (docs/export.md, docs/serve.md,
# docs/report.md):
#
#   serve   krl serve's load test against the real judge (service_gpu_serve:
#           SERVE_N requests from 32 clients, the evaluations at
#           SERVE_SHAPES), its throughput line to $OUT/serve.jsonl
#   export  bench/export_check.sh: optimize the ten export problems
#           (resumable in $OUT/krl.db), export each --to torch and check it
#           against KernelBench's Model, export --to cuda and run its sample
#   peers   bench/peers.py on the same ten problems (PyTorch eager, CUDA
#           graph, torch.compile), for the report's peer columns
#
#   bash bench/use_result_gpu.sh [PHASE...]      (default: serve peers)
# Env: OUT (bench/out/use), SERVE_N (500), SERVE_SHAPES (tiny,kb0),
# SHAPES (kb1), BUDGET (8), DB ($OUT/krl.db), OPTIMIZE (1; 0: export what
# DB holds), TASKS (the ten below), PACK (NAME: everything under $OUT
# packed into $OUT/NAME.tar.gz, the export packages' libraries left out;
# the device tool brings back 8 files a call and no deep folders). Needs build/ (a GPU build), .kb (bench/fetch_kb.sh)
# and, for export, nvcc. The report itself is made from $OUT/krl.db and the
# results files with `krl report` where Chromium is (scripts/deps.sh --test).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
OUT=${OUT:-bench/out/use}
SHAPES=${SHAPES:-kb1}
BUDGET=${BUDGET:-8}
mkdir -p "$OUT"
DB=${DB:-$OUT/krl.db}
# the commit the results name: staged builds carry it in .commit
[ -z "${KRL_COMMIT:-}" ] && [ -f .commit ] && export KRL_COMMIT=$(cat .commit)
phases=${*:-serve peers}
has() { [[ " $phases " == *" $1 "* ]]; }
tasks=(level1/19_relu level1/23_softmax level1/40_layernorm
       level1/94_mse_loss level1/95_cross_entropy
       level1/1_square_matmul level1/2_matmul level1/18_matmul_tt
       level1/63_conv2d_square level1/87_conv_pointwise2d)
# shellcheck disable=SC2206 # a list of ids on purpose
[ -n "${TASKS:-}" ] && tasks=($TASKS)
fail=0
if has serve; then
	t0=$(date +%s)
	KRL_SERVE_LOAD_N=${SERVE_N:-500} KRL_SERVE_SHAPES=${SERVE_SHAPES:-tiny,kb0} \
	KRL_SERVE_RESULTS="$OUT/serve.jsonl" KRL_BIN=build/krl \
		timeout 580 build/tests/service_gpu_serve > "$OUT/serve.log" 2>&1 || fail=1
	echo "serve: exit $fail, $(( $(date +%s) - t0 )) s; $(grep -E 'evaluations per minute' "$OUT/serve.log")"
fi
if has peers; then
	t0=$(date +%s)
	env -u LD_LIBRARY_PATH python3 bench/peers.py --shapes "$SHAPES" --out "$OUT/peers_$SHAPES.jsonl" \
		--resume "${tasks[@]}" > "$OUT/peers.log" 2>&1 || fail=1
	echo "peers: $(wc -l < "$OUT/peers_$SHAPES.jsonl") lines, $(( $(date +%s) - t0 )) s"
fi
if has export; then
	t0=$(date +%s)
	KRL_OPS_LIB=${KRL_OPS_LIB:-$root/build/libkrl_ops.so} \
	DB="$DB" OUT="$OUT/export" BUDGET=$BUDGET SHAPES=$SHAPES \
		bash bench/export_check.sh "${tasks[@]}" > "$OUT/export.log" 2>&1 || fail=1
	echo "export: $(( $(date +%s) - t0 )) s"
	grep -E "sample|FAILED|error" "$OUT/export.log" | tail -20
fi
if [ -n "${PACK:-}" ]; then
	(cd "$OUT" && tar -czf "$PACK.tar.gz" --exclude='*.so' --exclude='*.o' \
		--exclude="$PACK.tar.gz" . ) || fail=1
fi
exit $fail
