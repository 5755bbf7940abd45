#!/bin/bash
# One device call that times what a change to level 3's candidates did,
# before a search: run from the repository root on the GPU machine after
# `PACK=1 bash scripts/stage_gpu.sh` here and `tar xJf .gpu.tar.xz && rm -rf
# build && mv .gpubuild build` there (carry .gpu.tar.xz and .kb).
#
#   OUT=DIR bash bench/level3_probe.sh
#
# In order (everything under $OUT/o is packed into $OUT/probe.tar.gz after
# each stage, summary.txt beside it: the device tool brings back 8 files,
# and a call cut short keeps the stages before):
# 1. the GPU tests in $TESTS (default opt_gpu_gemm_epi: the generated
#    kernels the CPU stand-in checks only in part), each bounded by 150 s;
# 2. for each problem in $PROBLEMS (names of level $LEVEL, default 3:
#    another level's problems are probed the same way), its default candidate
#    and one per choice line in $ALTS (';'-separated, default
#    "perm.impl=lib;gemm.impl=lib"; a choice that writes the default's text
#    is dropped), and one per macro in $DEFS (';'-separated "NAME VALUE"
#    lines: the default's text with `#define NAME VALUE` after its header
#    comment, e.g. DEFS="KRL_GEMM_WG 0" for the GEMM body's mma.sync form;
#    with DEFS_BASE set to one of $ALTS, that choice's text instead of the
#    default's),
#    written here by build/bench/regen_candidate at kb1 and
#    judged at tiny,kb1 (krl batch, level 3's graph timing), bounded by
#    $JUDGE_SECONDS (default 240);
# 3. plan_profile of the defaults of $PROFILE (default: the first three
#    problems), and of their DEFS_BASE choice where set, 40 s each;
# 4. PyTorch's peers of $PROBLEMS at kb1 (bench/run_gpu.sh peers, 15
#    compile workers) until $END (default 560) seconds into the call.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-bench/out}
O=$OUT/o
mkdir -p "$O/c"
export LD_LIBRARY_PATH=$PWD/.devlibs:${LD_LIBRARY_PATH:-}
export KRL_CACHE_DIR=${KRL_CACHE_DIR:-/tmp/krl-cache}
export KRL_TASKS=${KRL_TASKS:-$PWD/tasks}
S=$OUT/summary.txt
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
pack() { tar czf "$OUT/probe.tar.gz" -C "$O" . ; }
trap pack EXIT
L=${LEVEL:-3}
PROBLEMS=${PROBLEMS:-"49_mamba2_return_final_state 50_relu_self_attention 48_mamba2_return_y 31_vision_attention 1_mlp 2_shallow_wide_mlp 28_vision_transformer 29_swin_mlp 30_swin_transformer_v2 32_convolutional_vision_transformer 43_mingpt_causal_attention 44_mingpt_block 46_netvlad_ghost_clusters 47_netvlad_no_ghost_clusters"}
ALTS=${ALTS:-"perm.impl=lib;gemm.impl=lib"}
echo "commit $(cat .commit 2>/dev/null); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)" | tee -a "$S"

for t in ${TESTS:-opt_gpu_gemm_epi}; do
	KRL_BIN=$PWD/build/krl timeout 150 "build/tests/$t" > "$O/$t.log" 2>&1
	echo "test $t: exit $? at $(el) s" | tee -a "$S"
done
pack

: > "$O/c.batch"
for p in $PROBLEMS; do
	./build/bench/regen_candidate "level$L/$p" kb1 -c "krl-choice:" > "$O/c/$p.def.cu" 2>> "$O/gen.err" &&
		echo "c/$p.def.cu level$L/$p ok" >> "$O/c.batch"
	IFS=';' read -ra alts <<< "$ALTS"
	for a in "${alts[@]}"; do
		n=$(echo "$a" | tr -c 'a-z0-9\n' '_')
		f=$O/c/$p.$n.cu
		./build/bench/regen_candidate "level$L/$p" kb1 -c "krl-choice: $a" > "$f" 2>> "$O/gen.err" || continue
		# the same text but the choice line: the default's candidate
		if cmp -s <(sed 1,3d "$f") <(sed 1,3d "$O/c/$p.def.cu"); then
			rm -f "$f"
			continue
		fi
		echo "c/$p.$n.cu level$L/$p ok" >> "$O/c.batch"
	done
	[ -f "$O/c/$p.def.cu" ] || continue
	base=$O/c/$p.def.cu
	if [ -n "${DEFS_BASE:-}" ]; then
		b=$O/c/$p.$(echo "$DEFS_BASE" | tr -c 'a-z0-9\n' '_').cu
		[ -f "$b" ] && base=$b
	fi
	IFS=';' read -ra defs <<< "${DEFS:-}"
	for m in "${defs[@]}"; do
		n=$(echo "$m" | tr -c 'A-Za-z0-9\n' '_')
		awk -v m="$m" '{ print } !d && /^ \*\/$/ { print "#define " m; d = 1 }' \
			"$base" > "$O/c/$p.D$n.cu"
		echo "c/$p.D$n.cu level$L/$p ok" >> "$O/c.batch"
	done
done
echo "candidates: $(wc -l < "$O/c.batch") at $(el) s" | tee -a "$S"
(cd "$O" && timeout "${JUDGE_SECONDS:-240}" "$OLDPWD/build/krl" batch c.batch --shapes tiny,kb1 \
	--budget 3 --min-pairs 10 --json) > "$O/judge.jsonl" 2> "$O/judge.err"
echo "judge: exit $? at $(el) s, $(wc -l < "$O/judge.jsonl") records" | tee -a "$S"
pack

n=0
for p in ${PROFILE:-$(echo "$PROBLEMS" | cut -d' ' -f1-3)}; do
	[ $((${END:-560} - $(el))) -gt 60 ] || break
	timeout 40 build/bench/plan_profile "level$L/$p" --shapes kb1 --top 15 \
		--candidate "$O/c/$p.def.cu" > "$O/prof_$p.txt" 2>&1
	echo "profile $p: exit $? at $(el) s" | tee -a "$S"
	b=$O/c/$p.$(echo "${DEFS_BASE:-}" | tr -c 'a-z0-9\n' '_').cu
	if [ -n "${DEFS_BASE:-}" ] && [ -f "$b" ]; then
		timeout 40 build/bench/plan_profile "level$L/$p" --shapes kb1 --top 15 \
			--candidate "$b" > "$O/prof_$p.base.txt" 2>&1
		echo "profile $p ($DEFS_BASE): exit $? at $(el) s" | tee -a "$S"
	fi
	n=$((n + 1))
done
pack

left=$((${END:-560} - $(el)))
if [ "$left" -gt 60 ] && [ -d "${KB:-.kb}/kb1" ]; then
	for p in $PROBLEMS; do echo "level$L/$p"; done > "$O/peer.list"
	LEVEL=$L PEER_SETS=kb1 TASK_LIST=$O/peer.list PEERS_WORKERS=15 \
		PEERS_SECONDS=$left OUT=$O/peers bash bench/run_gpu.sh peers \
		> "$O/peers_phase.log" 2>&1
	echo "peers: exit $? at $(el) s" | tee -a "$S"
fi
