#!/bin/bash
# The GPU session script: run on the GPU machine from the repository root,
# after building here and bundling (see ../shared/device/README.md):
#   cmake --build build -j2
#   ../shared/device/bundle .devlibs build/krl build/tests/*_gpu_* build/bench/*
#   device run: bash bench/run_gpu.sh [PHASE...]   (carry: build, .devlibs)
# Phases (default: tests nvrtc examples stability adversarial faults
# optimize): those, and refself (every selected task's reference plan,
# level $LEVEL (default 1), judged as a candidate against itself at
# $REFSELF_SETS (default tiny,kb0) in timing mode $TIMING (default stream),
# stress draws on: refself.jsonl, refself_level3_graph.jsonl ...);
# refs (every selected task's reference timed with krl time-ref at each set
# of $REF_SETS, default "kb0 kb1", in each timing mode of $REF_MODES,
# default stream ("stream graph": both; graph adds _graph to the names):
# refs_kb0.jsonl, refs_kb1.jsonl for level 1, refs_level2_kb0.jsonl ... for
# another level); torch
# (bench/ref_vs_torch.py at each set of $TORCH_SETS, default kb1, on the
# KernelBench files under $KB/SET, default .kb/kb1 (bench/fetch_kb.sh makes
# .kb; carry it): ref_vs_torch_kb1.jsonl, ref_vs_torch_level2_kb1.jsonl;
# it reuses the refs file of the same call, or times the references first);
# peers (bench/peers.py: PyTorch eager, CUDA graph and torch.compile on
# level $LEVEL, default 2, at $PEER_SETS, default kb1, resumable across
# calls: peers_level2_kb1.jsonl and its table peers_level2_kb1.md; see
# below); gen (candidates under $GEN, default .gen, named
# after their level-1 task, judged at tiny,kb1: gen.jsonl); floor
# (bench/launch_floor: the timing floor of a 1 MiB call under the judge's
# protocol, and how buffer placement moves it: launch_floor.jsonl).
# level1 (the builtin optimizer over all of level 1 at kb1, or the
# problems in $LEVEL1_TASKS, resumable across calls: see below); level
# (the builtin optimizer over level $LEVEL, default 1, at $SHAPES, default
# kb1, budget $BUDGET, default 32, then bench/peers.py on the problems it
# finished, each on the device its result was measured on (one peers.py
# per device at once), in the same call, and bench/join_peers.py: results
# with peer columns, optimize-level2-kb1.jsonl and its figures
# optimize-level2-kb1.md;
# resumable across calls; see below); train (krl train on level $LEVEL,
# default 2, then krl train --eval at budget 32 with --at 4,8; resumable;
# see below).
# The task selection of refs, torch and peers (docs/peers.md): LEVEL (refs
# and torch default 1, peers 2), or TASKS, a glob under tasks/ ('level2/*'),
# or TASK_LIST, a file of task ids; then ONLY, a regex on task ids
# (kbtasks.py --only); then TASKS_FROM/TASKS_TO, 1-based
# positions in that list in suite order (bench/kbtasks.py), the same tasks in
# every phase, so that a level can be split across device calls; a slice
# adds _FROM-TO to the file names. REFS_SECONDS / TORCH_SECONDS bound each
# set's run (lines already written are kept).
# PACK=NAME packs every file under $OUT but
# summary.txt into NAME.tar.gz (the device tool brings back 8 files).
# Other files under $OUT (default bench/out):
# summary.txt, gpu_tests.log, nvrtc.json, batch_kb0.jsonl, batch_kb1.jsonl
# (examples/level1; batch_level2_kb0.jsonl ... for $EXAMPLE_LEVELS, default "1 2 3"),
# adversarial.jsonl, fault_batch.jsonl, rollouts.jsonl (the stability
# records are summarised as a table in summary.txt).
set -uo pipefail
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.devlibs:${LD_LIBRARY_PATH:-}
export KRL_CACHE_DIR=${KRL_CACHE_DIR:-/tmp/krl-cache}
export KRL_BIN=$PWD/build/krl
export KRL_COMMIT=${KRL_COMMIT:-$(cat .commit 2>/dev/null)}
# This device call, recorded with the optimize results and the peers
# (bench/join_peers.py tells whether both ran in one call).
export KRL_SESSION=${KRL_SESSION:-$(date -u +%Y%m%dT%H%M%SZ)-$(hostname)-$$}
S=$OUT/summary.txt
tmp=$(mktemp -d)
phases=${*:-tests nvrtc examples stability adversarial faults optimize}
has() { [[ " $phases " == *" $1 "* ]]; }
secs() { awk "BEGIN{print $2 - $1}"; }
py() { env -u LD_LIBRARY_PATH python3 "$@"; }
# select_ids LEVEL [SET]: the selected task ids, one a line, in suite
# order; with SET (kb0, kb1), without the other revision's programs.
select_ids() {
	local sel=()
	if [ -n "${TASKS:-}" ]; then
		# shellcheck disable=SC2086 # TASKS is a glob on purpose
		mapfile -t sel < <(cd tasks && printf '%s\n' $TASKS | sed -n 's/\.task$//p')
		[ ${#sel[@]} -gt 0 ] || return 1
	elif [ -z "${TASK_LIST:-}" ]; then
		sel=(--level "$1")
	fi
	py bench/kbtasks.py "${sel[@]}" ${TASK_LIST:+--list "$TASK_LIST"} \
		${ONLY:+--only "$ONLY"} \
		${TASKS_FROM:+--from "$TASKS_FROM"} ${TASKS_TO:+--to "$TASKS_TO"} \
		${2:+--shapes "$2"}
}
# sel_tag LEVEL: the selection's part of the output file names ("" for all
# of level 1, as before; _level2; _sel for TASKS/TASK_LIST/ONLY; then
# _FROM-TO).
sel_tag() {
	local t=""
	[ "$1" != 1 ] && t=_level$1
	[ -n "${TASKS:-}${TASK_LIST:-}${ONLY:-}" ] && t=_sel
	[ -n "${TASKS_FROM:-}${TASKS_TO:-}" ] && t=${t}_${TASKS_FROM:-1}-${TASKS_TO:-end}
	echo "$t"
}
# time_refs SET FILE [MODE]: krl time-ref of the selected ids ($ids) into
# FILE, in timing mode MODE (default stream; graph: --timing graph), and a
# copy in $WORK/refs for a later call's torch phase on the same machine.
time_refs() {
	local t0 mode=${3:-stream}
	t0=$(date +%s.%N)
	${REFS_SECONDS:+timeout "$REFS_SECONDS"} ./build/krl time-ref "${ids[@]}" \
		--shapes "$1" --reps "${REPS:-20}" --timing "$mode" --json > "$2" 2>> "$S"
	echo "refs $1 $mode: exit $?, $(wc -l < "$2") of ${#ids[@]} tasks timed, $(secs "$t0" "$(date +%s.%N)") s" | tee -a "$S"
	mkdir -p "${WORK:-.gpuwork}/refs"
	cp "$2" "${WORK:-.gpuwork}/refs/"
	echo "${KRL_COMMIT:-}" > "${WORK:-.gpuwork}/refs/$(basename "$2" .jsonl).commit"
}
# run_peers LIST SET FILE SECONDS [DEVICE [NDEV]]: bench/peers.py on the
# task ids in LIST at shape set SET, resuming FILE, starting no problem
# after SECONDS; a new process goes on after a problem that broke the CUDA
# context (exit 3), up to three times. The Inductor/Triton cache is
# $PEERS_CACHE (default $WORK/inductor); $PEERS_WORKERS (default 8)
# processes compile every remaining problem first (at most 60% of the
# time); $PEERS limits the peers (eager,graph,compile), $PEERS_BUDGET the
# seconds per problem. DEVICE: time on that CUDA device (peers.py --device;
# default 0, the default device). NDEV: how many run_peers run at once, one
# per device (run_peers_by_device): each takes 1/NDEV of the compile
# workers and of the CPUs, logs to peers.devDEVICE.log and names its
# device in the summary.
run_peers() {
	local t0 left rc try cw=${PEERS_WORKERS:-8} ndev=${6:-1}
	local log=$OUT/peers.log on=${5:+ on device $5} extra=()
	[ -n "${5:-}" ] && extra+=(--device "$5")
	if [ "$ndev" -gt 1 ]; then
		# The machine's CPUs and host memory hold PEERS_WORKERS compile
		# workers in all, whatever the number of devices.
		if [ "$cw" -gt 0 ]; then
			cw=$((cw / ndev))
			[ "$cw" -ge 1 ] || cw=1
		fi
		extra+=(--cpu-share "$(awk "BEGIN{print 1/$ndev}")")
		log=$OUT/peers.dev$5.log
	fi
	t0=$(date +%s)
	for try in 1 2 3; do
		left=$(($4 - ($(date +%s) - t0)))
		[ "$left" -gt 30 ] || break
		py bench/peers.py --list "$1" --shapes "$2" \
			--kb "${KB:-.kb}/$2" --out "$3" --resume \
			--compile-workers "$cw" \
			--cache-dir "${PEERS_CACHE:-${WORK:-.gpuwork}/inductor}" \
			--deadline "$left" ${PEERS:+--peers "$PEERS"} \
			${PEERS_BUDGET:+--budget "$PEERS_BUDGET"} ${KRL_COMMIT:+--commit "$KRL_COMMIT"} \
			"${extra[@]}" >> "$log" 2>&1
		rc=$?
		echo "peers $2$on (try $try): exit $rc, $( [ -f "$3" ] && wc -l < "$3" || echo 0) lines in $(basename "$3") ($(wc -l < "$1") tasks selected, both revisions), $(($(date +%s) - t0)) s" | tee -a "$S"
		# 3: a problem broke the CUDA context; a new process resumes.
		[ "$rc" = 3 ] || break
	done
}
# run_peers_by_device RESULTS LIST SET FILE SECONDS: the peers of the task
# ids in LIST, each timed on the device its latest line in RESULTS (krl
# optimize --results) at SET names (issue 20: a problem's peers on the GPU
# its result was measured on). With one device (the common case, and
# every result of krl before it recorded devices): run_peers on LIST into
# FILE, as before (on that device). With several: LIST split by device
# (bench/split_by_device.py, the tasks FILE already holds left out), one
# run_peers per device at once, each into FILE.devD.jsonl with its own log,
# then their lines merged into FILE (only those FILE lacks, so a rerun
# adds nothing twice). A per-device file an earlier call left unmerged (a
# kill) is merged first.
run_peers_by_device() {
	local res=$1 list=$2 set_=$3 file=$4 secs=$5 base=${4%.jsonl} d n=0
	local devs=() pids=()
	local parts=("$base".dev*.jsonl)
	[ -e "${parts[0]}" ] || parts=()
	if [ ${#parts[@]} -gt 0 ]; then
		echo "peers $set_: $(py bench/split_by_device.py merge "$file" "${parts[@]}") lines of earlier per-device files merged into $(basename "$file")" | tee -a "$S"
	fi
	mapfile -t devs < <(py bench/split_by_device.py split "$res" "$set_" \
		"$list" "$base" --skip "$file")
	if [ ${#devs[@]} -le 1 ]; then
		# Device 0 (or none left to time): exactly the call of before.
		d=${devs[0]:-0}
		[ "$d" = 0 ] && d=
		run_peers "$list" "$set_" "$file" "$secs" ${d:+"$d"}
		return
	fi
	for d in "${devs[@]}"; do n=$((n + $(wc -l < "$base.dev$d.txt"))); done
	echo "peers $set_: $n tasks on ${#devs[@]} devices (${devs[*]}), one bench/peers.py each" | tee -a "$S"
	for d in "${devs[@]}"; do
		run_peers "$base.dev$d.txt" "$set_" "$base.dev$d.jsonl" "$secs" "$d" "${#devs[@]}" &
		pids+=($!)
	done
	wait "${pids[@]}"
	parts=()
	for d in "${devs[@]}"; do parts+=("$base.dev$d.jsonl"); done
	echo "peers $set_: $(py bench/split_by_device.py merge "$file" "${parts[@]}") lines merged from ${#devs[@]} devices into $(basename "$file"), $(wc -l < "$file") in all" | tee -a "$S"
}
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	echo "session $KRL_SESSION"
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
	# level 1 keeps its old file names (batch_kb0.jsonl); level N adds _levelN
	for lv in ${EXAMPLE_LEVELS:-1 2 3}; do
		sfx=; [ "$lv" = 1 ] || sfx=_level$lv
		for s in kb0 kb1; do
			t0=$(date +%s.%N)
			./build/krl batch "examples/level$lv/EXPECTED" --shapes tiny,$s --json \
				> "$OUT/batch${sfx}_$s.jsonl" 2>> "$S"
			echo "examples level$lv tiny,$s: $(secs "$t0" "$(date +%s.%N)") s, $(wc -l < "$OUT/batch${sfx}_$s.jsonl") records" | tee -a "$S"
		done
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
	# The reference judged against itself: each selected task's plan
	# (LEVEL, default 1, and the selection of refs), written as a
	# candidate (no kernels: library calls only), at $REFSELF_SETS
	# (default tiny,kb0) in timing mode $TIMING (default stream):
	# refself.jsonl for level 1, refself_level3_graph.jsonl ...
	lvl=${LEVEL:-1}
	tag=$(sel_tag "$lvl")
	m=${TIMING:-stream}
	mt=; [ "$m" = stream ] || mt=_$m
	mapfile -t ids < <(select_ids "$lvl")
	d=$tmp/refself
	mkdir -p "$d"
	: > "$d/EXPECTED"
	for id in "${ids[@]}"; do
		n=$(basename "$id")
		{
			echo "/* the reference plan of $id, as a candidate */"
			echo "/*@plan"
			awk '/^plan[ \t]*$/ { p = 1; next } /^end[ \t]*$/ { p = 0 } p' "tasks/$id.task"
			echo "@*/"
		} > "$d/$n.cu"
		echo "$n.cu $id ok" >> "$d/EXPECTED"
	done
	f=$OUT/refself${tag}${mt}.jsonl
	t0=$(date +%s.%N)
	./build/krl batch "$d/EXPECTED" --shapes "${REFSELF_SETS:-tiny,kb0}" --budget 0.5 \
		--min-pairs 6 --timing "$m" --json > "$f" 2>> "$S"
	echo "refself $lvl ${REFSELF_SETS:-tiny,kb0} $m: $(secs "$t0" "$(date +%s.%N)") s, $(wc -l < "$f") records, $(grep -c '"as_expected":true' "$f") ok" | tee -a "$S"
fi
if has faults; then
	bash bench/fault_batch.sh "$tmp" 2>&1 | tee -a "$S"
	cp "$tmp/fault_batch.jsonl" "$OUT/"
fi
if has refs; then
	lvl=${LEVEL:-1}
	tag=$(sel_tag "$lvl")
	mapfile -t ids < <(select_ids "$lvl")
	for s in ${REF_SETS:-kb0 kb1}; do
		for m in ${REF_MODES:-stream}; do
			mt=; [ "$m" = stream ] || mt=_$m
			time_refs "$s" "$OUT/refs${tag}${mt}_$s.jsonl" "$m"
		done
	done
fi
if has torch; then
	lvl=${LEVEL:-1}
	tag=$(sel_tag "$lvl")
	mapfile -t ids < <(select_ids "$lvl")
	printf '%s\n' "${ids[@]}" > "$tmp/ids.txt"
	for s in ${TORCH_SETS:-kb1}; do
		# The references of this call's refs phase, or of an earlier call
		# on this machine at this commit, or timed now.
		refs=$OUT/refs${tag}_$s.jsonl
		kept=${WORK:-.gpuwork}/refs/refs${tag}_$s
		if [ ! -s "$refs" ] && [ -s "$kept.jsonl" ] &&
			[ "$(cat "$kept.commit" 2>/dev/null)" = "${KRL_COMMIT:-}" ]; then
			cp "$kept.jsonl" "$refs"
			echo "torch $s: the references of an earlier call ($kept.jsonl)" | tee -a "$S"
		fi
		[ -s "$refs" ] || time_refs "$s" "$refs"
		t0=$(date +%s.%N)
		${TORCH_SECONDS:+timeout "$TORCH_SECONDS"} env -u LD_LIBRARY_PATH \
			python3 bench/ref_vs_torch.py --list "$tmp/ids.txt" \
			--kernelbench "${KB:-.kb}/$s" --shapes "$s" --krl-times "$refs" \
			--reps "${REPS:-20}" --out "$OUT/ref_vs_torch${tag}_$s.jsonl" 2>&1 |
			tail -40 | tee -a "$S"
		echo "torch $s: $(secs "$t0" "$(date +%s.%N)") s" | tee -a "$S"
	done
fi
if has peers; then
	# PyTorch's peers (bench/peers.py, docs/peers.md). The results file
	# lives in $WORK/peers (default .gpuwork, ignored, kept on a warm
	# machine; carry .gpuwork/peers back otherwise) and each call resumes
	# it, so a level runs over several calls at one commit: a file of
	# another commit is moved aside first. Each call stops starting
	# problems after $PEERS_SECONDS (default 540); run_peers (above) says
	# the rest.
	lvl=${LEVEL:-2}
	rtag=$(sel_tag "$lvl") # the refs phase's names (level 1: none)
	tag=$rtag
	[ "$lvl" = 1 ] && [ -z "${TASKS:-}${TASK_LIST:-}" ] && tag=_level1$tag
	mapfile -t ids < <(select_ids "$lvl")
	printf '%s\n' "${ids[@]}" > "$tmp/ids.txt"
	w=${WORK:-.gpuwork}/peers
	mkdir -p "$w"
	commit=${KRL_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}
	for s in ${PEER_SETS:-kb1}; do
		f=peers${tag}_$s
		if [ -s "$w/$f.jsonl" ] && [ "$(cat "$w/$f.commit" 2>/dev/null)" != "$commit" ]; then
			mv "$w/$f.jsonl" "$w/$f.$(cat "$w/$f.commit" 2>/dev/null || echo old).jsonl"
		fi
		echo "$commit" > "$w/$f.commit"
		run_peers "$tmp/ids.txt" "$s" "$w/$f.jsonl" "${PEERS_SECONDS:-540}"
		cp "$w/$f.jsonl" "$OUT/"
		refs=()
		for rf in "$OUT/refs${rtag}_$s.jsonl" "$OUT/refs${rtag}_graph_$s.jsonl"; do
			[ -s "$rf" ] && refs+=(--refs "$rf")
		done
		py bench/peer_table.py "$OUT/$f.jsonl" "${refs[@]}" --out "$OUT/$f.md"
		grep -E '^- (CUDA graph|torch.compile|best of|failures|kernelrl)' "$OUT/$f.md" | tee -a "$S"
	done
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
	KRL_OPT_ARGS="--min-pairs 10 --patience 3" OPT_SECONDS=${LEVEL1_SECONDS:-540} \
		bash bench/optimize_level1.sh "$w" 32 kb1 ${LEVEL1_TASKS:-} 2>&1 | tee -a "$S"
	echo "level1 kb1: $(wc -l < "$w/optimize-level1-kb1.jsonl") result lines so far" | tee -a "$S"
	cp "$w/optimize-level1-kb1.jsonl" "$w/optimize-kb1.txt" "$OUT/" 2>/dev/null
	cp "$w/work/krl.db" "$OUT/level1-kb1.db" 2>/dev/null
	cp "$w/work/optimize.err" "$OUT/level1-kb1.err" 2>/dev/null
fi
if has level; then
	# The builtin optimizer over a level (LEVEL, default 1) at a shape set
	# (SHAPES, kb0 or kb1, default kb1), BUDGET evaluations per problem
	# (default 32; KRL_OPT_ARGS default "--min-pairs 10 --patience 3"), on
	# the selection of refs/torch/peers (LEVEL, TASKS, TASK_LIST, ONLY,
	# TASKS_FROM/TASKS_TO); then, in the same call, PyTorch's peers
	# (bench/peers.py) of the problems that have a result, then
	# bench/join_peers.py: $OUT/optimize-level2-kb1.jsonl, the results with
	# peer columns, and its table and figures in .md. The store, the raw
	# results and the peers live in $WORK/opt-level2-kb1 (kept on a warm
	# machine; carry it back otherwise), one folder per level and set
	# whatever the selection, so slices run in successive calls add up to
	# one file (the figures cover every problem done so far; the selected
	# ones without a result are listed); a folder of another commit is
	# moved aside first. The selection must be of LEVEL (TASKS='level2/*'
	# needs LEVEL=2). LEVEL_SECONDS (default 540) bounds the
	# phase: krl optimize stops after OPT_SECONDS (default 60% of it), the
	# peers start no problem after the rest; the joiner always runs.
	# REASONS: a file of 'TASK reason' lines for the problems below parity.
	lvl=${LEVEL:-1}
	s=${SHAPES:-kb1}
	name=level$lvl-$s
	w=${WORK:-.gpuwork}/opt-$name
	commit=${KRL_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}
	if [ -d "$w" ] && [ "$(cat "$w/commit" 2>/dev/null)" != "$commit" ]; then
		mv "$w" "$w.$(cat "$w/commit" 2>/dev/null || echo old).$$"
	fi
	mkdir -p "$w"
	echo "$commit" > "$w/commit"
	mapfile -t ids < <(select_ids "$lvl" "$s" 2>/dev/null)
	printf '%s\n' "${ids[@]}" > "$w/selected.txt"
	t0=$(date +%s)
	total=${LEVEL_SECONDS:-540}
	if [ ${#ids[@]} -eq 0 ] || [ -z "${ids[0]}" ]; then
		echo "level $lvl $s: no task selected; phase skipped" | tee -a "$S"
	else
		KRL_OPT_ARGS=${KRL_OPT_ARGS:---min-pairs 10 --patience 3} \
			OPT_SECONDS=${OPT_SECONDS:-$((total * 6 / 10))} \
			bash bench/optimize_level.sh "$lvl" "$w" "${BUDGET:-32}" "$s" \
			--list "$w/selected.txt" 2>&1 | tee -a "$S"
		res=$w/optimize-level$lvl-$s.jsonl
		f=peers_level${lvl}_$s
		# The peers of the selected problems that have a result line, each
		# on the device its result was measured on.
		if [ -s "$w/done.txt" ]; then
			run_peers_by_device "$res" "$w/done.txt" "$s" "$w/$f.jsonl" \
				$((total - ($(date +%s) - t0)))
		fi
		touch "$w/$f.jsonl" "$res"
		py bench/join_peers.py "$res" --peers "$w/$f.jsonl" \
			--expect "$w/selected.txt" ${REASONS:+--reasons "$REASONS"} \
			--out "$OUT/optimize-$name.jsonl" --md "$OUT/optimize-$name.md" 2>&1 |
			tee -a "$S"
		cp "$w/$f.jsonl" "$OUT/optimize-$name.peers.jsonl"
		cp "$w/optimize-level$lvl-$s.txt" "$OUT/optimize-$name.txt" 2>/dev/null
		cp "$w/work/krl.db" "$OUT/$name.db" 2>/dev/null
		cp "$w/work/optimize.err" "$OUT/$name.err" 2>/dev/null
		echo "level $lvl $s: $(($(date +%s) - t0)) s in this phase" | tee -a "$S"
	fi
fi
if has train; then
	# The builtin policy's training and its held-out comparison (docs/rl.md,
	# docs/optimizer.md section 5): krl train --level LEVEL (default 2) at
	# TRAIN_SHAPES (default kb0), TRAIN_BUDGET evaluations a task (default
	# 16), seed TRAIN_SEED (default 1), from the weights TRAIN_FROM
	# (default policy/builtin.weights), into $WORK/train-levelN/levelN.weights,
	# round 0 as ROUND0 says (fixed, the default, or policy: krl train
	# --round0, for training and the comparison alike),
	# stopped after TRAIN_SECONDS (default 480); when it has finished,
	# krl train --eval on the held-out part at EVAL_BUDGET (default 32)
	# with --at EVAL_AT (default 4,8), stopped after EVAL_SECONDS (default
	# 480). Both resume from their stores ($WORK/train-levelN/*.db; a
	# later call on a fresh machine resumes from TRAIN_RESUME, a carried
	# folder holding the train.db.xz and eval.db.xz an earlier call left
	# under $OUT: training replays its finished runs, learning included,
	# and so writes the same weights again). Files: train_levelN.log,
	# levelN.weights, eval_levelN.log, eval_levelN-bB.json, and the stores
	# as train.db.xz and eval.db.xz. EVAL_ONLY=1: no training; the
	# comparison of the TRAIN_FROM weights themselves (the shipped file by
	# default: issue 17's figure at the commit of a run).
	lvl=${LEVEL:-2}
	w=${WORK:-.gpuwork}/train-level$lvl
	mkdir -p "$w"
	for f in train.db eval.db; do
		if [ -n "${TRAIN_RESUME:-}" ] && [ ! -f "$w/$f" ] &&
		   [ -f "$TRAIN_RESUME/$f.xz" ]; then
			xz -dc "$TRAIN_RESUME/$f.xz" > "$w/$f"
		fi
	done
	t0=$(date +%s)
	ew=$w/level$lvl.weights
	if [ "${EVAL_ONLY:-0}" = 1 ]; then
		ew=${TRAIN_FROM:-policy/builtin.weights}
		rc=0
	else
		timeout "${TRAIN_SECONDS:-480}" ./build/krl train \
			--level "$lvl" --shapes "${TRAIN_SHAPES:-kb0}" \
			--budget "${TRAIN_BUDGET:-16}" --seed "${TRAIN_SEED:-1}" \
			--weights "${TRAIN_FROM:-policy/builtin.weights}" \
			--round0 "${ROUND0:-fixed}" --weights-out "$w/level$lvl.weights" --store "$w/train.db" \
			--work-dir "$w/cands" >> "$OUT/train_level$lvl.log" 2>&1
		rc=$?
		echo "train level $lvl: exit $rc, $(($(date +%s) - t0)) s" | tee -a "$S"
		cp "$w/level$lvl.weights" "$OUT/" 2>/dev/null
		xz -T0 -c "$w/train.db" > "$OUT/train.db.xz"
	fi
	if [ "$rc" = 0 ]; then
		t0=$(date +%s)
		eb=${EVAL_BUDGET:-32}
		timeout "${EVAL_SECONDS:-480}" ./build/krl train --eval \
			--level "$lvl" --shapes "${TRAIN_SHAPES:-kb0}" --budget "$eb" \
			--at "${EVAL_AT:-4,8}" --seed "${TRAIN_SEED:-1}" \
			--round0 "${ROUND0:-fixed}" \
			--weights "$ew" \
			--results "$OUT/eval_level$lvl-b$eb.json" --store "$w/eval.db" \
			--work-dir "$w/ecands" >> "$OUT/eval_level$lvl.log" 2>&1
		echo "eval level $lvl: exit $?, $(($(date +%s) - t0)) s" | tee -a "$S"
		xz -T0 -c "$w/eval.db" > "$OUT/eval.db.xz"
	fi
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
