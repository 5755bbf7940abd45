#!/bin/bash
# Times stored candidates against the same choices written by this build:
# for each candidate of a results folder's tarball (files SET-N-topK.cu,
# SET kb0 or kb1, N a level-2 problem number, as
# bench/results/2026-12-07-h100-level2-3312295/losers.tar.xz), its
# "krl-choice:" line regenerated here at SET (build/bench/regen_candidate),
# then plan_profile of both at SET and krl batch of the regenerated ones
# at tiny and SET. For the GPU machine, one device call, after `PACK=1 bash
# scripts/stage_gpu.sh` here and `tar xJf .gpu.tar.xz && rm -rf build &&
# mv .gpubuild build` there (carry .gpu.tar.xz and .kb):
#
#   OUT=$OUT bash bench/retime_stored.sh TARBALL [PATTERN]
#
# PATTERN (a shell glob, default '*-top1.cu') picks the files. Writes
# $OUT/retime.txt (the plans' whole times, old then new, and the batch's
# verdicts) and $OUT/retime-profiles.txt (the kernels of each). LEVEL
# (default 2) names the problems' level; SECONDS_EACH (default 40) bounds
# each profile, BATCH_SECONDS (default 200) the batch.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
tarball=${1:-}
pat=${2:-'*-top1.cu'}
if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
	sed -n 2,18p "$0"
	exit 2
fi
OUT=${OUT:-bench/out}
L=${LEVEL:-2}
W=$(mktemp -d)
mkdir -p "$OUT" "$W/old" "$W/new"
export LD_LIBRARY_PATH=$PWD/.devlibs:${LD_LIBRARY_PATH:-}
export KRL_CACHE_DIR=${KRL_CACHE_DIR:-/tmp/krl-cache}
export KRL_TASKS=${KRL_TASKS:-$PWD/tasks}
tar xJf "$tarball" -C "$W/old" || exit 1
R=$OUT/retime.txt
P=$OUT/retime-profiles.txt
: > "$R"
: > "$P"
whole() { grep -o 'whole plan [0-9.]* ms' | head -1; }
for f in "$W"/old/$pat; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .cu)
	set_=${b%%-*}
	rest=${b#*-}
	n=${rest%%-*}
	task=$(ls tasks/level$L/ | grep "^${n}_" | head -1)
	task=level$L/${task%.task}
	line=$(grep -m1 -o 'krl-choice:.*' "$f")
	if ! ./build/bench/regen_candidate "$task" "$set_" -c "$line" > "$W/new/$b.cu" 2> /dev/null; then
		echo "$b: regen failed" >> "$R"
		continue
	fi
	echo "$b.cu $task ok" >> "$W/new/batch-$set_.txt"
	for side in old new; do
		echo "== $b $side ($line)" >> "$P"
		timeout "${SECONDS_EACH:-40}" build/bench/plan_profile "$task" \
			--shapes "$set_" --top 6 --candidate "$W/$side/$b.cu" >> "$P" 2>&1
	done
	echo "$b $task at $set_: old $(sed -n "/^== $b old/,/^== /p" "$P" | whole), new $(sed -n "/^== $b new/,\$p" "$P" | whole)" >> "$R"
done
for bf in "$W"/new/batch-*.txt; do
	[ -f "$bf" ] || continue
	s=$(basename "$bf" .txt)
	s=${s#batch-}
	timeout "${BATCH_SECONDS:-200}" build/krl batch "$bf" --shapes "tiny,$s" --json \
		> "$W/$s.jsonl" 2>> "$P"
	python3 - "$W/$s.jsonl" >> "$R" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    try:
        r = json.loads(l)
    except ValueError:
        continue
    print("judged", r.get("task", "?"), r.get("shapes", ""), r.get("verdict"),
          str(r.get("message", ""))[:200])
PY
done
cat "$R"
rm -rf "$W"
