#!/bin/bash
# The builtin optimizer over level-1 problems on the GPU machine (issue 6),
# under its old name and arguments:
#   bash bench/optimize_level1.sh OUTDIR BUDGET SHAPES [TASK...]
# (no TASK: every level-1 task). It is bench/optimize_level.sh 1 (which
# see: KRL_OPT_ARGS, OPT_SECONDS, resuming), plus the printed table copied
# to OUTDIR/optimize-SHAPES.txt, the name bench/compare_runs.py reads.
# Results: OUTDIR/optimize-level1-SHAPES.jsonl.
set -uo pipefail
if [ $# -lt 3 ]; then
	echo "usage: bash bench/optimize_level1.sh OUTDIR BUDGET SHAPES [TASK...]" >&2
	exit 2
fi
bash bench/optimize_level.sh 1 "$@"
rc=$?
cp "$1/optimize-level1-$3.txt" "$1/optimize-$3.txt" 2>/dev/null
exit $rc
