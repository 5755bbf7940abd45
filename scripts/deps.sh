#!/bin/bash
# Installs the Debian packages kernelrl builds against (the CUDA toolkit is
# expected at /usr/local/cuda). Safe to run again; does nothing when all are
# present.
set -euo pipefail
pkgs=(cmake make gcc g++ pkg-config libjansson-dev libcmocka-dev libssl-dev libsqlite3-dev libcurl4-openssl-dev libmicrohttpd-dev clang libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
if ! command -v nvcc >/dev/null 2>&1; then
	if [ -x /usr/local/cuda/bin/nvcc ]; then
		echo "note: add /usr/local/cuda/bin to PATH"
	else
		echo "error: the CUDA toolkit (nvcc, NVRTC, cuBLASLt) is required" >&2
		exit 1
	fi
fi
