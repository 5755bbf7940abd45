#!/bin/bash
# Issue 21's acceptance session on the GPU machine, in one call: run from
# the repository root after `PACK=1 scripts/stage_gpu.sh` here and
# `tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build` there
# (carry .gpu.tar.xz and .kb).
#
#   OUT=DIR bash bench/level3_session.sh
#
# In order (a call cut short keeps the stages before it: everything under
# $OUT/o is packed into $OUT/level3.tar.gz, with summary.txt beside it,
# after each stage; the device tool brings back 8 files):
# 1. every level-3 reference at kb1 and kb0, in stream and graph mode
#    (bench/run_gpu.sh refs);
# 2. the reference judged against itself in graph mode on ten networks at
#    tiny,kb1 (refself; issue 21: within 1% of 1.0);
# 3. PyTorch's eager and graph peers at $PEER_SETS (default kb1), with the
#    peers table comparing each mode's references (bench/run_gpu.sh peers);
# 4. examples/level3 at tiny,kb1 (their default timing: graph);
# 5. the GPU tests named in $TESTS (default: those whose code changed
#    since the last GPU run), each bounded by 150 s;
# 6. level 2's linear problems' references at kb1 (stream), to re-check
#    parity after a change to linear's cuBLASLt workspace ($L2_LINEAR=0
#    skips it).
set -uo pipefail
OUT=${OUT:-bench/out}
O=$OUT/o
mkdir -p "$O"
export LD_LIBRARY_PATH=$PWD/.devlibs:${LD_LIBRARY_PATH:-}
export KRL_CACHE_DIR=${KRL_CACHE_DIR:-/tmp/krl-cache}
export KRL_COMMIT=${KRL_COMMIT:-$(cat .commit 2>/dev/null)}
S=$O/summary.txt
t0=$(date +%s)
# pack: everything so far into $OUT/level3.tar.gz and summary.txt beside
# it, after every stage, so that a call cut short still brings back what
# was measured.
pack() {
	tar czf "$OUT/level3.tar.gz" -C "$O" . 2>/dev/null
	cp "$S" "$OUT/summary.txt"
}
LEVEL=3 REF_SETS="kb1 kb0" REF_MODES="stream graph" REFS_SECONDS=${REFS_SECONDS:-120} \
	OUT=$O bash bench/run_gpu.sh refs
pack
LEVEL=3 ONLY='^level3/(1|3|4|8|9|11|13|17|19|21)_' REFSELF_SETS=tiny,kb1 TIMING=graph \
	OUT=$O bash bench/run_gpu.sh refself
LEVEL=3 PEERS=eager,graph PEER_SETS="${PEER_SETS:-kb1}" PEERS_SECONDS=${PEERS_SECONDS:-100} \
	PEERS_BUDGET=4 OUT=$O bash bench/run_gpu.sh peers
pack
t1=$(date +%s)
./build/krl batch examples/level3/EXPECTED --shapes tiny,kb1 --json \
	> "$O/batch_level3_kb1.jsonl" 2>> "$S"
echo "examples level3 tiny,kb1: $(($(date +%s) - t1)) s, $(grep -c '"as_expected":true' "$O/batch_level3_kb1.jsonl") of $(wc -l < "$O/batch_level3_kb1.jsonl") as expected" | tee -a "$S"
pack
for t in ${TESTS:-judge_gpu_graph ops_gpu_ops_conv ops_gpu_ops_matmul runtime_gpu_check \
	judge_gpu_eval}; do
	timeout 150 "build/tests/$t" >> "$O/gpu_tests.log" 2>&1
	echo "$t: exit $?" | tee -a "$S"
	pack
done
if [ "${L2_LINEAR:-1}" = 1 ]; then
	LEVEL=2 REF_SETS=kb1 REFS_SECONDS=90 \
	ONLY='^level2/(9|12|18|22|28|29|30|33|37|39|40|41|45|51|53|55|56|59|62|63|64|66|68|70|75|80|81|84|86|88|94|95|97|98|99)_' \
		OUT=$O bash bench/run_gpu.sh refs
fi
echo "session: $(($(date +%s) - t0)) s" | tee -a "$S"
pack
