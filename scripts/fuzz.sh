#!/bin/bash
# Builds the libFuzzer targets of tests/fuzz/ (clang, ASan + UBSan) in
# build-fuzz/ and fuzzes each for SECONDS_PER_TARGET seconds (default 60),
# starting from a temporary copy of its seed corpus so that the repository's
# corpus is left as it is. Exits non-zero on any crash, leak, UB report,
# timeout or out-of-memory, after printing the reproducer's path (kept under
# build-fuzz/artifacts/). docs/fuzzing.md says how to replay one.
#
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET]
#   KRL_FUZZ_TARGETS="task program" bash scripts/fuzz.sh 10
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
targets=${KRL_FUZZ_TARGETS:-task candidate program reference extract srccheck}
build=build-fuzz
jobs=$(nproc)
fuzz=tests/fuzz

command -v clang >/dev/null 2>&1 ||
	{ echo "fuzz.sh: clang is required (scripts/deps.sh --test installs it)" >&2; exit 1; }

# tests/fuzz is a CMake project of its own (it needs neither CUDA nor the
# other libraries); a build-fuzz/ configured from elsewhere is started over.
if [ -f "$build/CMakeCache.txt" ] &&
   ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$PWD/$fuzz" "$build/CMakeCache.txt"; then
	rm -rf "$build"
fi
CC=clang cmake -S "$fuzz" -B "$build" >/dev/null
cmake --build "$build" -j"$jobs" >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
opts=(-timeout=10 -rss_limit_mb=2048)

# Prints what failed in log $2 of target $1 and where its reproducer is; the
# whole log is kept next to the reproducer (the temp dir goes away).
report() {
	local t=$1 log=$2 art=$3
	cp "$log" "$art/fuzz_$t.log"
	grep -E "ERROR: |runtime error: |SUMMARY: |broken promise" "$log" |
		head -10 || true
	echo "fuzz_$t FAILED: log $art/fuzz_$t.log"
	for f in $(grep -oE "Test unit written to [^ ]+" "$log" | awk '{print $5}'); do
		echo "  reproducer: $f"
		echo "  replay:     $build/fuzz_$t $f"
	done
}

failed=0
for t in $targets; do
	bin="$build/fuzz_$t"
	art="$PWD/$build/artifacts/$t"
	log="$work/$t.log"
	mkdir -p "$art" "$work/$t"
	# First replay the reproducers of past bugs, whatever their size.
	if [ -d "$fuzz/crashes/$t" ] &&
	   ! "$bin" -runs=0 "${opts[@]}" -artifact_prefix="$art/" \
	     "$fuzz/crashes/$t" >"$log" 2>&1; then
		echo "== fuzz_$t: a reproducer in $fuzz/crashes/$t fails again"
		report "$t" "$log" "$art"
		failed=1
		continue
	fi
	echo "== fuzz_$t: ${secs}s"
	cp -R "$fuzz/corpus/$t/." "$work/$t/"
	# The project's own files are seeds too, read where they live: the
	# tasks for the task parsers, the candidates for the candidate ones.
	case $t in
	task|reference) cp tasks/level*/*.task "$work/$t/" ;;
	candidate|program|srccheck) cp examples/level*/*.cu tests/adversarial/*.cu "$work/$t/" ;;
	esac
	if "$bin" "$work/$t" -dict="$fuzz/$t.dict" -max_total_time="$secs" \
	   "${opts[@]}" -print_final_stats=1 -artifact_prefix="$art/" \
	   >"$log" 2>&1; then
		grep -E "^#[0-9]+[[:space:]]+DONE" "$log" | tail -1 || true
		grep -E "stat::number_of_executed_units" "$log" || true
	else
		report "$t" "$log" "$art"
		failed=1
	fi
done
exit $failed
