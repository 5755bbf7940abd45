#!/bin/bash
# bench/export_level.sh: kernelrl's side of a level run measured the way
# PyTorch users (and CUDA-L1's numbers) see it: each problem's best stored
# candidate exported `--to torch` (docs/export.md) and its ModelNew timed
# against KernelBench's Model, eager, in one PyTorch process
# (bench/check_export.py: correctness on --seeds seeds, then
# ../shared/BENCHMARKING.md's timing of both sides). Run on the GPU
# machine after a level phase, from the repository root, with the build
# unpacked as bench/run_gpu.sh does:
#
#   OUT=$OUT bash bench/export_level.sh .gpuwork/opt-level2-kb0 kb0 [TASK...]
#   OUT=$OUT bash bench/export_level.sh DIR_OF_CANDIDATES kb0 [TASK...]
#
# WORK is the level phase's work folder (its store, WORK/work/krl.db, and
# WORK/done.txt, the problems with a result line; TASK... narrows them),
# or a folder of candidate files named by task, LEVEL_N_NAME.cu (as
# best-kb0.tar.xz in bench/results/2026-12-07-h100-level2-73c970d: each is
# exported with --candidate, so meta.json has no krl speedup to drift
# from). The packages go to WORK/export.
# Writes $OUT/export-SET.jsonl (check_export's line a problem, or
# {"task", "error"} where the export or its build failed) and prints the
# geometric mean of the speedups over eager (a problem that failed counts
# 1.0, as CUDA-L1's comparison counts its failures). Environment: SEEDS
# (2), SECS (0.5: seconds of timed calls a side), JOBS (nvcc builds at once,
# the CPUs).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
work=${1:?usage: bash bench/export_level.sh WORK SET [TASK...]}
set_=${2:?usage: bash bench/export_level.sh WORK SET [TASK...]}
shift 2
OUT=${OUT:-bench/out}
db=$work/work/krl.db
pk=$work/export
res=$OUT/export-$set_.jsonl
# from: --db STORE, or a candidate file a task (cands[task])
declare -A cands=()
if [ ! -f "$db" ]; then
	db=
	for f in "$work"/*.cu; do
		[ -f "$f" ] || continue
		b=$(basename "$f" .cu)
		cands[${b%%_*}/${b#*_}]=$f
	done
	if [ ${#cands[@]} -eq 0 ]; then
		echo "export_level: no store at $work/work/krl.db and no candidate files $work/*.cu" >&2
		exit 1
	fi
fi
mkdir -p "$OUT" "$pk"
rm -f "$res"
tasks=("$@")
# krl itself needs the build's bundled libraries (bench/run_gpu.sh)
export LD_LIBRARY_PATH=$PWD/.devlibs:${LD_LIBRARY_PATH:-}
if [ ${#tasks[@]} -eq 0 ]; then
	if [ -n "$db" ]; then
		mapfile -t tasks < "$work/done.txt"
	else
		mapfile -t tasks < <(printf '%s\n' "${!cands[@]}" | sort -V)
	fi
fi
t0=$(date +%s)
# 1. export (CPU, milliseconds each)
ok=()
for t in "${tasks[@]}"; do
	d=$pk/${t//\//_}
	rm -rf "$d"
	if [ -n "$db" ]; then
		from=(--db "$db")
	elif [ -n "${cands[$t]:-}" ]; then
		from=(--candidate "${cands[$t]}")
	else
		from=(--candidate "$work/${t//\//_}.cu")   # missing: krl says so
	fi
	if err=$(./build/krl export "$t" "${from[@]}" --shapes "$set_" --to torch "$d" 2>&1 >/dev/null); then
		ok+=("$d")
	else
		python3 -c 'import json,sys; print(json.dumps({"task": sys.argv[1], "error": "export: " + sys.argv[2][-300:]}))' \
			"$t" "$err" >> "$res"
	fi
done
# 2. build every export's library at once (make lib; the package would
# build it on first use, one at a time)
printf '%s\n' "${ok[@]}" | xargs -P "${JOBS:-$(nproc)}" -I{} sh -c \
	'make -s -C {}/krl_*/csrc lib > {}/build.log 2>&1 || echo "build failed: {}"'
echo "export_level: ${#ok[@]} of ${#tasks[@]} exported and built, $(($(date +%s) - t0)) s"
# 3. check and time them in one PyTorch process (without the kernelrl
# build's library path: PyTorch brings its own CUDA libraries)
env -u LD_LIBRARY_PATH python3 - "$res" "${SEEDS:-2}" "${SECS:-0.5}" "${ok[@]}" <<'EOF'
import json, math, os, sys
sys.path.insert(0, "bench")
import check_export
res, seeds, budget, pkgs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
for p in pkgs:
    try:
        check_export.main([p, "--seeds", seeds, "--budget", budget, "--no-compile",
                           "--no-graph", "--out", res])
    except BaseException as e:  # one problem's failure is its line, not the run's end
        with open(res, "a") as f:
            f.write(json.dumps({"package": p, "error": repr(e)[:300]}) + "\n")
    sys.stdout.flush()
EOF
python3 - "$res" "${#tasks[@]}" <<'EOF'
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sp = [r["speedup_vs_eager"] for r in rows if r.get("correct") and r.get("speedup_vs_eager")]
n = int(sys.argv[2])
fail = n - len(sp)
g = math.exp(sum(math.log(s) for s in sp) / n) if n else float("nan")
g_ok = math.exp(sum(math.log(s) for s in sp) / len(sp)) if sp else float("nan")
print(f"export_level: {len(sp)} of {n} exported ModelNew correct and timed; "
      f"geometric mean over PyTorch eager {g:.3f}x with the {fail} others as 1.0, "
      f"{g_ok:.3f}x over the {len(sp)}")
EOF
echo "export_level: $(($(date +%s) - t0)) s"
