#!/bin/bash
# bench/fault_batch: 200 full evaluations (tiny shapes, short timing), 20% of
# them faulty (hangs, traps, illegal and misaligned addresses, device memory
# exhaustion), in one `krl batch`. Passes when every evaluation has a record
# with its expected verdict: none lost, krl never down.
#   bash bench/fault_batch.sh [OUTDIR]   (on the GPU machine; krl in build/)
set -uo pipefail
out=${1:-${OUT:-bench/out}}
mkdir -p "$out"
manifest=$out/fault_batch.manifest
good=(
	"examples/level1/19_relu.fast.cu level1/19_relu ok"
	"examples/level1/26_gelu.fast.cu level1/26_gelu ok"
	"examples/level1/23_softmax.fast.cu level1/23_softmax ok"
	"examples/level1/94_mse_loss.fast.cu level1/94_mse_loss ok"
	"examples/level1/47_sum_dim.fast.cu level1/47_sum_dim ok"
	"examples/level1/51_argmax_dim.fast.cu level1/51_argmax_dim ok"
	"examples/level1/89_cumsum.fast.cu level1/89_cumsum ok"
	"examples/level1/40_layernorm.fast.cu level1/40_layernorm ok"
)
bad=(
	"bench/faults/spin.cu level1/19_relu timeout"
	"bench/faults/trap.cu level1/19_relu launch_error"
	"bench/faults/oom.cu level1/19_relu launch_error"
	"bench/faults/far_write.cu level1/19_relu launch_error"
	"examples/level1/4_matvec.wrong.cu level1/4_matvec launch_error"
	"examples/level1/51_argmax_dim.wrong.cu level1/51_argmax_dim launch_error"
)
: > "$manifest"
for i in $(seq 0 199); do
	if (( i % 5 == 4 )); then
		echo "$PWD/${bad[$(( (i / 5) % ${#bad[@]} ))]}" >> "$manifest"
	else
		echo "$PWD/${good[$(( i % ${#good[@]} ))]}" >> "$manifest"
	fi
done
t0=$(date +%s.%N)
./build/krl batch "$manifest" --shapes tiny --budget 0.5 --min-pairs 5 \
	--timeout 2 --json > "$out/fault_batch.jsonl" 2> "$out/fault_batch.err"
rc=$?
t1=$(date +%s.%N)
records=$(wc -l < "$out/fault_batch.jsonl")
expected=$(grep -c '"as_expected": *true\|"as_expected":true' "$out/fault_batch.jsonl")
echo "fault batch: $records records of 200, $expected as expected, krl exit $rc, $(awk "BEGIN{print $t1 - $t0}") s"
tail -1 "$out/fault_batch.err"
[ "$records" = 200 ] && [ "$expected" = 200 ]
