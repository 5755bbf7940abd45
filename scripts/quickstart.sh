#!/bin/bash
# The main job: installs what is missing, builds krl, and judges a bundled
# example candidate (ReLU, KernelBench level 1 problem 19) against the eager
# reference at KernelBench's current sizes (kb1), checking kb0 too.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target krl-cli
./build/krl eval level1/19_relu examples/level1/19_relu.fast.cu --shapes kb0,kb1 "$@"
