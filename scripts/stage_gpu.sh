#!/bin/bash
# Stages what a GPU run needs into .gpubuild (the binaries, laid out as in
# build/) and .devlibs (their shared libraries), small enough to carry to
# the GPU machine (../shared/device/README.md; at most 64 MiB in all). On
# the GPU machine: rm -rf build && mv .gpubuild build && bash bench/run_gpu.sh
#
#   bash scripts/stage_gpu.sh [BINARY...]   (default: all of them below;
#   name fewer when the working tree and they pass the 64 MiB a call carries)
#
# With PACK=1 both folders also go into one xz archive, .gpu.tar.xz (the
# binaries share most of their bytes: 41 MiB of them packed to 2.2 MiB,
# .devlibs' 18 to 6), so that every GPU test fits in one call: carry
# .gpu.tar.xz instead of the folders and run `tar xJf .gpu.tar.xz` there
# first.
set -euo pipefail
cd "$(dirname "$0")/.."
bins=(build/krl build/libkrl_ops.so build/tests/*_gpu_* build/bench/eval_speed build/bench/mockllm_server
      build/bench/launch_floor build/bench/plan_profile build/bench/regen_candidate)
[ $# -gt 0 ] && bins=("$@")
rm -rf .gpubuild
for b in "${bins[@]}"; do
	mkdir -p ".gpubuild/$(dirname "${b#build/}")"
	cp "$b" ".gpubuild/${b#build/}"
done
git rev-parse HEAD > .commit
../shared/device/bundle .devlibs "${bins[@]}"
du -sh .gpubuild .devlibs
if [ "${PACK:-0}" = 1 ]; then
	tar cJf .gpu.tar.xz .gpubuild .devlibs .commit
	du -sh .gpu.tar.xz
fi
