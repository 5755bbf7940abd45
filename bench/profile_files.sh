#!/bin/bash
# plan_profile of candidate files, each line of LIST 'TASK SET FILE'
# (FILE relative to LIST's folder, or a tarball's member with TARBALL):
# the whole plan's time and the kernels' lines, twice in turn (a second
# pass shows the spread). For the GPU machine, after the usual unpacking
# of the build (bench/run_gpu.sh):
#
#   OUT=$OUT bash bench/profile_files.sh LIST [TARBALL]
#
# Writes $OUT/profiles.txt (one 'FILE whole plan ... ms' line a file and
# pass, then each profile). SECONDS_EACH (default 30) bounds a profile.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
list=${1:-}
if [ -z "$list" ] || [ ! -f "$list" ]; then
	sed -n 2,12p "$0"
	exit 2
fi
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.devlibs:${LD_LIBRARY_PATH:-}
export KRL_CACHE_DIR=${KRL_CACHE_DIR:-/tmp/krl-cache}
export KRL_TASKS=${KRL_TASKS:-$PWD/tasks}
dir=$(dirname "$list")
if [ -n "${2:-}" ]; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	tar xJf "$2" -C "$dir" || exit 1
fi
P=$OUT/profiles.txt
: > "$P"
for pass in 1 2; do
	grep -v '^#' "$list" | while read -r task set_ file; do
		[ -n "$file" ] || continue
		prof=$(timeout "${SECONDS_EACH:-30}" build/bench/plan_profile "$task" \
			--shapes "$set_" --top 6 --candidate "$dir/$file" 2>&1)
		echo "$file pass $pass: $(echo "$prof" | grep -o 'whole plan [0-9.]* ms' | head -1)" | tee -a "$P"
		echo "$prof" | sed 's/^/    /' >> "$P"
	done
done
