#!/bin/bash
# The GPU session script: run on the GPU machine from the repository root,
# after building here and bundling (see ../shared/device/README.md):
#   cmake --build build -j2
#   ../shared/device/bundle .devlibs build/krl build/tests/*_gpu_* build/bench/*
#   device run: bash bench/run_gpu.sh [PHASE...]   (carry: build, .devlibs)
# Phases (default: tests nvrtc examples stability adversarial faults
# optimize): those, and refself (every level-1 task's reference plan judged
# as a candidate against itself at tiny,kb0, stress draws on: refself.jsonl);
# refs (every task's reference timed at kb0
# and kb1: refs_kb0.jsonl, refs_kb1.jsonl); torch (bench/ref_vs_torch.py at
# kb1, needs KernelBench's level1/*.py under $KB/kb1, default .kb/kb1:
# ref_vs_torch_kb1.jsonl); gen (candidates under $GEN, default .gen, named
# after their level-1 task, judged at tiny,kb1: gen.jsonl); floor
# (bench/launch_floor: the timing floor of a 1 MiB call under the judge's
# protocol, and how buffer placement moves it: launch_floor.jsonl).
# level1 (the builtin optimizer over all of level 1 at kb1, or the
# problems in $LEVEL1_TASKS, resumable across calls: see below).
# PACK=NAME packs every file under $OUT but
# summary.txt into NAME.tar.gz (the device tool brings back 8 files).
# Other files under $OUT (default bench/out):
# summary.txt, gpu_tests.log, nvrtc.json, batch_kb0.jsonl, batch_kb1.jsonl,
# adversarial.jsonl, fault_batch.jsonl, rollouts.jsonl (the stability
# records are summarised as a table in summary.txt).
set -uo pipefail
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.devlibs:${LD_LIBRARY_PATH:-}
export KRL_CACHE_DIR=${KRL_CACHE_DIR:-/tmp/krl-cache}
export KRL_BIN=$PWD/build/krl
export KRL_COMMIT=${KRL_COMMIT:-$(cat .commit 2>/dev/null)}
S=$OUT/summary.txt
tmp=$(mktemp -d)
phases=${*:-tests nvrtc examples stability adversarial faults optimize}
has() { [[ " $phases " == *" $1 "* ]]; }
secs() { awk "BEGIN{print $2 - $1}"; }
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	echo "commit $(cat .commit 2>/dev/null || git rev-parse HEAD 2>/dev/null)"
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
} >> "$S"

if has tests; then
	for t in build/tests/*_gpu_*; do
		timeout 600 "$t" >> "$OUT/gpu_tests.log" 2>&1
		rc=$?
		echo "$(basename "$t"): exit $rc" | tee -a "$S"
	done
	# cuDNN's legacy path (KRL_CUDNN_V7=1, docs/ops-conv.md) as well.
	KRL_CUDNN_V7=1 timeout 600 build/tests/ops_gpu_ops_conv >> "$OUT/gpu_tests.log" 2>&1
	echo "ops_gpu_ops_conv KRL_CUDNN_V7=1: exit $?" | tee -a "$S"
fi
if has floor; then
	./build/bench/launch_floor > "$OUT/launch_floor.jsonl" 2>> "$S"
	echo "launch_floor: exit $?, $(wc -l < "$OUT/launch_floor.jsonl") rows" | tee -a "$S"
fi
if has nvrtc; then
	./build/bench/eval_speed --no-evals --reps 5 --json "$OUT/nvrtc.json" 2>&1 | tee -a "$S"
fi
if has examples; then
	for s in kb0 kb1; do
		t0=$(date +%s.%N)
		./build/krl batch examples/level1/EXPECTED --shapes tiny,$s --json \
			> "$OUT/batch_$s.jsonl" 2>> "$S"
		echo "examples tiny,$s: $(secs "$t0" "$(date +%s.%N)") s, $(wc -l < "$OUT/batch_$s.jsonl") records" | tee -a "$S"
	done
fi
if has stability; then
	for c in 19_relu 23_softmax 2_matmul; do
		for i in 1 2 3 4 5; do
			./build/krl eval level1/$c examples/level1/$c.fast.cu --shapes kb1 --json >> "$tmp/stability.jsonl" 2>> "$S"
		done
	done
	env -u LD_LIBRARY_PATH python3 bench/summarize.py "$tmp/stability.jsonl" >> "$S"
fi
if has adversarial; then
	t0=$(date +%s.%N)
	./build/krl batch tests/adversarial/EXPECTED --shapes tiny,kb0 --budget 1 \
		--min-pairs 6 --timeout 3 --compile-timeout 5 --json \
		> "$OUT/adversarial.jsonl" 2>> "$S"
	echo "adversarial: $(secs "$t0" "$(date +%s.%N)") s, $(wc -l < "$OUT/adversarial.jsonl") records, $(grep -c '"as_expected":true' "$OUT/adversarial.jsonl") as expected" | tee -a "$S"
fi
if has refself; then
	# The reference judged against itself: each level-1 task's plan,
	# written as a candidate (no kernels: library calls only).
	d=$tmp/refself
	mkdir -p "$d"
	: > "$d/EXPECTED"
	for f in tasks/level1/*.task; do
		n=$(basename "$f" .task)
		{
			echo "/* the reference plan of level1/$n, as a candidate */"
			echo "/*@plan"
			awk '/^plan[ \t]*$/ { p = 1; next } /^end[ \t]*$/ { p = 0 } p' "$f"
			echo "@*/"
		} > "$d/$n.cu"
		echo "$n.cu level1/$n ok" >> "$d/EXPECTED"
	done
	t0=$(date +%s.%N)
	./build/krl batch "$d/EXPECTED" --shapes tiny,kb0 --budget 0.5 \
		--min-pairs 6 --json > "$OUT/refself.jsonl" 2>> "$S"
	echo "refself tiny,kb0: $(secs "$t0" "$(date +%s.%N)") s, $(wc -l < "$OUT/refself.jsonl") records, $(grep -c '"as_expected":true' "$OUT/refself.jsonl") ok" | tee -a "$S"
fi
if has faults; then
	bash bench/fault_batch.sh "$tmp" 2>&1 | tee -a "$S"
	cp "$tmp/fault_batch.jsonl" "$OUT/"
fi
if has refs; then
	mapfile -t ids < <(cd tasks && ls level*/*.task | sed "s/\.task$//")
	for s in kb0 kb1; do
		t0=$(date +%s.%N)
		./build/krl time-ref "${ids[@]}" --shapes $s --reps ${REPS:-20} --json \
			> "$OUT/refs_$s.jsonl" 2>> "$S"
		echo "refs $s: exit $?, $(wc -l < "$OUT/refs_$s.jsonl") of ${#ids[@]} tasks timed, $(secs "$t0" "$(date +%s.%N)") s" | tee -a "$S"
	done
fi
if has torch; then
	t0=$(date +%s.%N)
	env -u LD_LIBRARY_PATH python3 bench/ref_vs_torch.py --kernelbench "${KB:-.kb}/kb1" \
		--shapes kb1 --krl-times "$OUT/refs_kb1.jsonl" --reps ${REPS:-20} \
		--out "$OUT/ref_vs_torch_kb1.jsonl" 2>&1 | tail -40 | tee -a "$S"
	echo "torch kb1: $(secs "$t0" "$(date +%s.%N)") s" | tee -a "$S"
fi
if has gen; then
	# Candidates written by the optimizer's tests (KRL_GEN_DIR=.gen), each
	# named after its task: judged at tiny and kb1.
	for f in ${GEN:-.gen}/*.cu; do
		t=$(basename "$f" .cu)
		./build/krl eval "level1/$t" "$f" --shapes tiny,kb1 --json >> "$OUT/gen.jsonl" 2>> "$S"
		echo "gen $t: exit $?" | tee -a "$S"
	done
	env -u LD_LIBRARY_PATH python3 bench/summarize.py "$OUT/gen.jsonl" 2>&1 | tee -a "$S"
fi
if has optimize; then
	bash bench/optimize_llm.sh "$tmp" 2>&1 | tee -a "$S"
	cp "$tmp/rollouts.jsonl" "$OUT/" 2>/dev/null
fi
if has level1; then
	# The builtin optimizer over all of level 1 at kb1 (budget 32, the
	# settings of bench/results/optimize-level1-kb1.jsonl), resumable
	# across calls: the store lives in $WORK (default .gpuwork, ignored,
	# kept on a warm machine; carry it back otherwise) and the run stops
	# after $LEVEL1_SECONDS so that the call ends in time. $LEVEL1_TASKS
	# (task ids, space-separated) limits it to those problems.
	w=${WORK:-.gpuwork}/level1-kb1
	mkdir -p "$w"
	# shellcheck disable=SC2086 # LEVEL1_TASKS is split into ids on purpose
	KRL_OPT_ARGS="--min-pairs 10 --patience 3" timeout "${LEVEL1_SECONDS:-540}" \
		bash bench/optimize_level1.sh "$w" 32 kb1 ${LEVEL1_TASKS:-} 2>&1 | tee -a "$S"
	echo "level1 kb1: $(wc -l < "$w/optimize-level1-kb1.jsonl") result lines so far" | tee -a "$S"
	cp "$w/optimize-level1-kb1.jsonl" "$w/optimize-kb1.txt" "$OUT/" 2>/dev/null
	cp "$w/work/krl.db" "$OUT/level1-kb1.db" 2>/dev/null
	cp "$w/work/optimize.err" "$OUT/level1-kb1.err" 2>/dev/null
fi
# Everything but the summary in one archive: the device tool brings back
# at most 8 files.
if [ -n "${PACK:-}" ]; then
	(cd "$OUT" && find . -maxdepth 1 -type f ! -name summary.txt ! -name '*.tar.gz' \
		-printf '%f\n' | tar -czf "$PACK.tar.gz" -T - && \
		find . -maxdepth 1 -type f ! -name summary.txt ! -name '*.tar.gz' -delete)
fi
rm -rf "$tmp"
tail -40 "$S"
