#!/bin/bash
# Installs what kernelrl builds against from the distribution's packages
# (Debian, or Ubuntu), leaving alone what is already there: a tool found on
# PATH (cmake 3.24 or newer), a library that pkg-config finds. Safe to run
# again; does nothing when all is present. The CUDA toolkit with cuDNN is
# expected at /usr/local/cuda (or cuDNN from NVIDIA's packages).
#
#   bash scripts/deps.sh          what building krl needs (the quickstart)
#   bash scripts/deps.sh --test   and what the tests need (clang, libFuzzer,
#                                 and Debian's chromium for krl report's
#                                 headless check: about 1m40s with apt-get
#                                 update on a Debian 12 machine)
set -euo pipefail

cmake_ok() {
	command -v cmake >/dev/null 2>&1 || return 1
	local v
	v=$(cmake --version | awk 'NR == 1 { print $3 }')
	[ "$(printf '%s\n' 3.24 "$v" | sort -V | head -n 1)" = 3.24 ]
}
has() { command -v "$1" >/dev/null 2>&1; }
pc() { has pkg-config && pkg-config --exists "$1"; }
fuzzer_rt() {
	local f
	f=$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null) &&
		[ -f "$f" ]
}

# package|how to tell it is present
checks=(
	"cmake|cmake_ok"
	"make|has make"
	"gcc|has gcc"
	"g++|has g++"
	"pkg-config|has pkg-config"
	"libjansson-dev|pc jansson"
	"libcmocka-dev|pc cmocka"
	"libssl-dev|pc openssl"
	"libsqlite3-dev|pc sqlite3"
	"libcurl4-openssl-dev|pc libcurl"
	"libmicrohttpd-dev|pc libmicrohttpd"
)
if [ "${1:-}" = --test ]; then
	checks+=("clang|has clang" "libclang-rt-14-dev|fuzzer_rt")
fi

missing=()
for c in "${checks[@]}"; do
	eval "${c#*|}" || missing+=("${c%%|*}")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# Headless Chromium renders krl report's page in a test
# (tests/report/test_chromium.c). Debian packages it as chromium; where
# that does not install (Ubuntu ships it as a snap) the test skips itself
# with a line saying so, and nothing else depends on it.
if [ "${1:-}" = --test ] && ! has chromium && ! has chromium-browser; then
	echo "installing: chromium (krl report's headless check)"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	{ $SUDO apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium; } ||
		echo "note: chromium did not install; report_test_chromium will skip" >&2
fi

if ! has nvcc; then
	if [ -x /usr/local/cuda/bin/nvcc ]; then
		echo "note: add /usr/local/cuda/bin to PATH"
	else
		echo "error: the CUDA toolkit (nvcc, NVRTC, cuBLASLt) is required" >&2
		exit 1
	fi
fi
if ! echo '#include <cudnn.h>' |
	cc -E -I/usr/local/cuda/include -x c - >/dev/null 2>&1; then
	echo "error: cuDNN's headers (cudnn.h) were not found in /usr/local/cuda/include" \
		"or the compiler's include path; install cuDNN 9 for your CUDA version" >&2
	exit 1
fi
