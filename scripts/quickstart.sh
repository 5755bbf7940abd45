#!/bin/bash
# The main job: installs what is missing, builds krl, and optimizes five
# KernelBench level-1 problems with the builtin policy at KernelBench's
# current sizes (kb1), 8 judged candidates each, printing a table of
# reference time, best time, speedup [95% CI], roofline fraction and what the
# best candidate does. Extra arguments go to krl optimize.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target krl-cli
./build/krl optimize level1/19_relu level1/23_softmax level1/40_layernorm \
	level1/94_mse_loss level1/95_cross_entropy --budget 8 --shapes kb1 "$@"
