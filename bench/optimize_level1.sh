#!/bin/bash
# The builtin optimizer over level-1 problems on the GPU machine (issue 6):
#   bash bench/optimize_level1.sh OUTDIR BUDGET SHAPES [TASK...]
# (no TASK: every level-1 task). $KRL_OPT_ARGS, when set, is added to the
# krl optimize command line (e.g. "--min-pairs 10 --weights FILE").
# Appends one JSON line per problem to OUTDIR/optimize-level1-SHAPES.jsonl (the fields of krl optimize
# --results) and writes the printed table to OUTDIR/optimize-SHAPES.txt.
# The store and candidates stay in OUTDIR/work (a rerun resumes).
set -uo pipefail
out=$1 budget=$2 shapes=$3
shift 3
mkdir -p "$out/work"
export KRL_COMMIT=${KRL_COMMIT:-$(cat .commit 2>/dev/null)}
if [ $# -eq 0 ]; then
	set -- $(cd tasks && ls level1/*.task | sed 's/\.task$//')
fi
t0=$(date +%s.%N)
# shellcheck disable=SC2086 # KRL_OPT_ARGS is split into options on purpose
./build/krl optimize "$@" --budget "$budget" --shapes "$shapes" ${KRL_OPT_ARGS:-} \
	--store "$out/work/krl.db" --work-dir "$out/work/cands" \
	--results "$out/optimize-level1-$shapes.jsonl" \
	> "$out/optimize-$shapes.txt" 2> "$out/work/optimize.err"
rc=$?
echo "optimize: $# problems, budget $budget, $shapes: exit $rc, $(awk "BEGIN{print $(date +%s.%N) - $t0}") s"
tail -n 3 "$out/work/optimize.err"
