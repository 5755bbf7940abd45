#!/bin/bash
# The builtin optimizer over one level's problems on the GPU machine
# (issues 6, 17, 18):
#   bash bench/optimize_level.sh LEVEL OUTDIR BUDGET SHAPES [SELECTION...]
# SELECTION is bench/kbtasks.py's (task ids, --only REGEX, --list FILE,
# --from I --to J; --shapes SET also drops the tasks of the other
# revision's program); none: every task of LEVEL, in suite order.
# Appends one JSON line per problem to OUTDIR/optimize-levelLEVEL-SHAPES.jsonl
# (the fields of krl optimize --results, plus gpu and session, stamped by
# bench/stamp_results.py) and the printed table to
# OUTDIR/optimize-levelLEVEL-SHAPES.txt; the selected tasks that have a
# line, one a line, to OUTDIR/done.txt. Resumable: a task that already has
# a line at SHAPES is not run again, and the store and candidates stay in
# OUTDIR/work, so a problem cut off by a kill or OPT_SECONDS resumes where
# it stopped.
# Environment: KRL_OPT_ARGS, added to the krl optimize command line (e.g.
# "--min-pairs 10 --patience 3"); OPT_SECONDS, the seconds krl optimize may
# run in this call (default: no limit; the lines written are kept and
# stamped); KRL_SESSION, the device call's id (bench/run_gpu.sh sets it);
# KRL_COMMIT (default .commit); WORKERS, krl optimize's --workers (unset:
# no --workers, krl's default, one worker per visible GPU when there are
# several problems, docs/workers.md). Every result line names the device
# it was measured on, and bench/run_gpu.sh's level phase times each
# problem's peers on that device (bench/split_by_device.py), so spreading
# the search over the GPUs keeps each comparison on one GPU.
set -uo pipefail
if [ $# -lt 4 ]; then
	echo "usage: bash bench/optimize_level.sh LEVEL OUTDIR BUDGET SHAPES [SELECTION...]" >&2
	exit 2
fi
level=$1 out=$2 budget=$3 shapes=$4
shift 4
py() { env -u LD_LIBRARY_PATH python3 "$@"; }
mkdir -p "$out/work"
export KRL_COMMIT=${KRL_COMMIT:-$(cat .commit 2>/dev/null)}
res=$out/optimize-level$level-$shapes.jsonl
# The timing set: the last of "tiny,kb1".
set_=${shapes##*,}
mapfile -t sel < <(py bench/kbtasks.py --level "$level" "$@")
if [ ${#sel[@]} -eq 0 ]; then
	echo "optimize level $level: no task selected ($*)" >&2
	exit 2
fi
# done_ids: the problems that have a result line at this set, one a line.
done_ids() {
	py -c '
import json, sys
try:
    for ln in open(sys.argv[1]):
        try:
            r = json.loads(ln)
        except ValueError:
            continue
        if isinstance(r, dict) and (r.get("shapes") or "").split(",")[-1] == sys.argv[2]:
            print(r.get("problem"))
except OSError:
    pass
' "$res" "$set_"
}
# have: how many of the selection have a line.
have() { printf '%s\n' "${sel[@]}" | grep -cxF -f <(done_ids; echo /); }
mapfile -t todo < <(printf '%s\n' "${sel[@]}" | grep -vxF -f <(done_ids; echo /))
t0=$(date +%s.%N)
rc=0
if [ ${#todo[@]} -gt 0 ]; then
	# shellcheck disable=SC2086 # KRL_OPT_ARGS is split into options on purpose
	${OPT_SECONDS:+timeout "$OPT_SECONDS"} ./build/krl optimize "${todo[@]}" \
		--budget "$budget" --shapes "$shapes" ${WORKERS:+--workers "$WORKERS"} ${KRL_OPT_ARGS:-} \
		--store "$out/work/krl.db" --work-dir "$out/work/cands" \
		--results "$res" \
		>> "$out/optimize-level$level-$shapes.txt" 2>> "$out/work/optimize.err"
	rc=$?
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
py bench/stamp_results.py "$res" gpu="$gpu" session="${KRL_SESSION:-}" 2>/dev/null
# The selected tasks that have a result line now (bench/run_gpu.sh's level
# phase times their peers).
printf '%s\n' "${sel[@]}" | grep -xF -f <(done_ids; echo /) > "$out/done.txt"
note=
[ "$rc" = 124 ] && note=": OPT_SECONDS reached"
echo "optimize level $level $shapes, budget $budget: ${#sel[@]} selected, $((${#sel[@]} - ${#todo[@]})) done before, ${#todo[@]} run now (exit $rc$note), $(have) of ${#sel[@]} with a result line, $(awk "BEGIN{print $(date +%s.%N) - $t0}") s"
if [ -s "$out/work/optimize.err" ]; then tail -n 3 "$out/work/optimize.err"; fi
exit 0
