#!/bin/bash
# Builds kernelrl and runs its tests: every CPU test, the GPU tests (each
# skips itself with a SKIP line where no GPU exists), then the CPU tests once
# more under AddressSanitizer and UBSan. ctest runs the tests side by side,
# one per core (the slow ones come as parts: tests/CMakeLists.txt); the
# tests keep their temporary files in folders of their own (mkdtemp) and
# bind no fixed port, and the NVRTC cache they share writes each entry by
# rename, so they do not conflict.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh --test
export PATH=/usr/local/cuda/bin:$PATH
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build -j"$jobs" --output-on-failure

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DKRL_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
# opt_test_codegen_sim (its parts) is left out here: it runs generated
# kernels that it compiles at run time with the host compiler into shared
# objects outside the sanitizers' view (LeakSanitizer reports that object's arenas); the
# Release pass above runs it.
ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --test-dir build-asan -j"$jobs" -L cpu -E '^opt_test_codegen_sim_' \
	--output-on-failure

# Fuzz each parser target for a short fixed time (docs/fuzzing.md).
bash scripts/fuzz.sh "${KRL_FUZZ_SECONDS:-30}"
