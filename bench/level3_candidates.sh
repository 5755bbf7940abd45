#!/bin/bash
# Level 3's default candidates, judged before any search (docs/optimizer.md,
# "Level 3: what comes next"): for every level-3 task at kb1, the builtin
# optimizer's default choice, lib.layout=nhwc_xy where that writes another
# candidate, and row.tail=off with both layouts on a few networks; each
# judged at tiny,kb1 against the reference (krl batch, the task's timing
# mode: graph for level 3), then plan_profile on two networks; 34 (its
# rnn_tanh call) also with lib.rnn=persist and small_h.
#
#   bash bench/level3_candidates.sh gen DIR         candidates + DIR/all.batch
#   bash bench/level3_candidates.sh judge DIR OUT   (GPU) OUT/batch.jsonl, profiles
#
# gen needs build/bench/regen_candidate (here or on the GPU machine: stage
# it with scripts/stage_gpu.sh); judge needs build/krl and
# build/bench/plan_profile. SECONDS_BATCH (default 380) bounds the batch.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
export KRL_TASKS=${KRL_TASKS:-$PWD/tasks}
cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
	sed -n 2,15p "$0"
	exit 2
fi
regen() { # TASK CHOICE FILE
	./build/bench/regen_candidate "level3/$1" kb1 -c "krl-choice: $2" > "$3" 2> "${3%.cu}.err"
}
case $cmd in
gen)
	mkdir -p "$dir"
	for f in tasks/level3/*.task; do
		t=$(basename "$f" .task)
		case $t in *kb0_*) continue ;; esac
		regen "$t" "" "$dir/$t.def.cu" || echo "gen: $t default failed" >&2
		regen "$t" "lib.layout=nhwc_xy" "$dir/$t.xy.cu" || echo "gen: $t nhwc_xy failed" >&2
		cmp -s "$dir/$t.def.cu" "$dir/$t.xy.cu" && rm -f "$dir/$t.xy.cu" "$dir/$t.xy.err"
	done
	for t in 9_resnet18 10_resnet101 7_googlenet_inception_v1 20_mobilenet_v2; do
		regen "$t" "row.tail=off" "$dir/$t.defoff.cu"
		regen "$t" "lib.layout=nhwc_xy row.tail=off" "$dir/$t.xyoff.cu"
	done
	# 34's recurrence (rule recurrence: one rnn_tanh call) in cuDNN's
	# persistent forms
	for v in persist small_h; do
		regen 34_vanilla_rnn_hidden "lib.rnn=$v" "$dir/34_vanilla_rnn_hidden.$v.cu"
	done
	# defaults first, then nhwc_xy, then the row.tail=off ones, then 34's
	(cd "$dir" && for v in def xy defoff xyoff persist small_h; do
		for c in *."$v".cu; do
			[ -e "$c" ] || continue
			t=${c%."$v".cu}
			echo "$c level3/$t ok"
		done
	done) > "$dir/all.batch"
	echo "$(wc -l < "$dir/all.batch") candidates in $dir/all.batch"
	;;
judge)
	out=${3:-bench/out}
	mkdir -p "$out"
	t0=$(date +%s)
	timeout "${SECONDS_BATCH:-380}" ./build/krl batch "$dir/all.batch" --shapes tiny,kb1 \
		--budget 3 --min-pairs 10 --json > "$out/batch.jsonl" 2> "$out/batch.err"
	echo "batch: exit $?, $(wc -l < "$out/batch.jsonl") records, $(($(date +%s) - t0)) s" | tee -a "$out/summary.txt"
	for t in 9_resnet18 7_googlenet_inception_v1; do
		for v in def xy; do
			[ -f "$dir/$t.$v.cu" ] || continue
			timeout 25 ./build/bench/plan_profile "level3/$t" --shapes kb1 --reps 5 \
				--top 25 --candidate "$dir/$t.$v.cu" > "$out/prof_$t.$v.txt" 2>&1
		done
	done
	timeout 20 ./build/bench/plan_profile level3/9_resnet18 --shapes kb1 --reps 5 \
		--top 25 > "$out/prof_9_resnet18.ref.txt" 2>&1
	echo "judge: $(($(date +%s) - t0)) s" | tee -a "$out/summary.txt"
	;;
*)
	sed -n 2,15p "$0"
	exit 2
	;;
esac
