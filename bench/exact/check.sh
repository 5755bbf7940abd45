#!/bin/bash
# The float64 candidates of bench/exact judged at kb1 (20 seeds, the
# stress draws, one hidden set; no timing): see README.md. Run from the
# repository root on the GPU machine after the usual unpacking of the
# build (bench/run_gpu.sh); SEEDS overrides the 20.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
export LD_LIBRARY_PATH=$PWD/.devlibs:${LD_LIBRARY_PATH:-}
export KRL_TASKS=${KRL_TASKS:-$PWD/tasks}
for f in bench/exact/*.fp64.cu; do
	n=$(basename "$f" | cut -d_ -f1)
	echo "== level2/$n: $f"
	build/krl eval "level2/$n" "$f" --shapes kb1 --seeds "${SEEDS:-20}" \
		--no-timing --timeout 30 --json | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
print("verdict", r.get("verdict"), json.dumps(r.get("failure", {}))[:400])
for c in r.get("checks", []) or []:
    print("  ", c.get("set"), json.dumps(c.get("outputs")), [s.get("kind") for s in c.get("stress", []) or []])
'
done
