#!/bin/bash
# The float64 candidates of bench/exact judged at kb1 (20 seeds, the
# stress draws, one hidden set; no timing): see README.md. Each candidate
# is NN_name.part.cu with gemm64.cuh put after its first comment (a
# candidate is one self-contained file; the GEMM tile is kept once here).
# Run from anywhere on the GPU machine after the usual unpacking of the
# build (bench/run_gpu.sh); SEEDS overrides the 20. With --write DIR, only
# writes the assembled candidates into DIR (no GPU needed).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
here=bench/exact
assemble() {	# part.cu -> the candidate on stdout
	sed -n '1,/\*\//p' "$1"
	cat "$here/gemm64.cuh"
	sed '1,/\*\//d' "$1"
}
if [ "${1:-}" = "--write" ]; then
	mkdir -p "${2:?--write DIR}" || exit 1
	for p in "$here"/*.part.cu; do
		assemble "$p" > "$2/$(basename "$p" .part.cu).fp64.cu"
	done
	exit 0
fi
export LD_LIBRARY_PATH=$PWD/.devlibs:${LD_LIBRARY_PATH:-}
export KRL_TASKS=${KRL_TASKS:-$PWD/tasks}
W=$(mktemp -d)
for p in "$here"/*.part.cu; do
	n=$(basename "$p" | cut -d_ -f1)
	f=$W/$(basename "$p" .part.cu).fp64.cu
	assemble "$p" > "$f"
	echo "== level2/$n: $(basename "$f")"
	build/krl eval "level2/$n" "$f" --shapes kb1 --seeds "${SEEDS:-20}" \
		--no-timing --timeout 30 --json | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
f = r.get("failure", {}) or {}
dr = f.get("draw", {}) or {}
print("verdict", r.get("verdict"), json.dumps({k: v for k, v in f.items() if k != "draw"})[:400])
for k in ("ill_conditioned", "well_conditioned"):
    if k in dr:
        print("   failed draw", dr.get("kind"), k, json.dumps(dr[k])[:400])
for c in r.get("checks", []) or []:
    print("  ", c.get("set"), json.dumps(c.get("outputs")), [s.get("kind") for s in c.get("stress", []) or []])
    for s in c.get("stress", []) or []:
        if "ill_conditioned" in s:
            print("     ", s.get("kind"), "ill_conditioned", json.dumps(s["ill_conditioned"])[:400])
'
done
rm -rf "$W"
