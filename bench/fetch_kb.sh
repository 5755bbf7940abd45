#!/bin/bash
# bench/fetch_kb.sh: exports KernelBench's problem files (levels 1-3) from a
# local git copy of ScalingIntelligence/KernelBench into the ignored folder
# .kb/, the way bench/peers.py and bench/ref_vs_torch.py read them:
#   .kb/kb1/level{1,2,3}/*.py   KernelBench HEAD        (the kb1 shape set)
#   .kb/kb0/level{1,2,3}/*.py   KernelBench b08d959^    (the kb0 shape set)
# and .kb/kb{0,1}/REVISION (the commit each was exported from). The files
# are read at run time and never committed (docs/peers.md); carry .kb to
# the GPU machine. No network: the source is a local bare mirror (default
# below) or a checkout given as the first argument; the output folder is
# the second (default .kb in the repository root). Re-running replaces it.
#
#   bash bench/fetch_kb.sh [KERNELBENCH_GIT [OUT]]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-/work/.mirror/ScalingIntelligence+KernelBench/repo}
out=${2:-$root/.kb}
# A checkout's git directory is its .git; a bare mirror is its own.
if [ -d "$src/.git" ]; then
	src=$src/.git
fi
if ! git --git-dir="$src" rev-parse --verify -q "HEAD^{commit}" > /dev/null 2>&1; then
	echo "fetch_kb: $src is not a git repository" >&2
	exit 1
fi
export_rev() { # export_rev REV DIR: KernelBench/level{1,2,3} of REV into DIR
	local rev=$1 dir=$2 commit
	commit=$(git --git-dir="$src" rev-parse --verify "$rev^{commit}") || {
		echo "fetch_kb: revision $rev not in $src" >&2
		return 1
	}
	rm -rf "$dir"
	mkdir -p "$dir"
	git --git-dir="$src" archive --format=tar "$commit" \
		KernelBench/level1 KernelBench/level2 KernelBench/level3 |
		tar -x -C "$dir" --strip-components=1
	echo "$commit $rev" > "$dir/REVISION"
	local l
	for l in 1 2 3; do
		printf 'fetch_kb: %s level%s: %s files (%s)\n' "$(basename "$dir")" "$l" \
			"$(find "$dir/level$l" -name '*.py' | wc -l)" "${commit:0:7}"
	done
}
export_rev HEAD "$out/kb1"
export_rev 'b08d959^' "$out/kb0"
