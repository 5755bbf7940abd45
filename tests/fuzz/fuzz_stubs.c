/*
 * kernelrl fuzzing: stand-ins for the op library's GPU drivers.
 *
 * The fuzz targets compile the parsers, the validator and the op registry
 * (src/ops/ops.c, which holds every op's shape check) straight into each
 * executable, without libkrl and its CUDA objects. The registry's table also
 * names each op's GPU driver (src/ops/run.c, gemm.c); nothing under fuzzing
 * runs an op, so these stubs only satisfy the linker and say so if called.
 */
#include "ops/ops_int.h"

#define KRL_FUZZ_STUB(name) \
	KRL_RUN(name) { return KRL_ENODEVICE; }

KRL_FUZZ_STUB(gemm)
KRL_FUZZ_STUB(relu)
KRL_FUZZ_STUB(gelu)
KRL_FUZZ_STUB(add)
KRL_FUZZ_STUB(sub)
KRL_FUZZ_STUB(mul)
KRL_FUZZ_STUB(div)
KRL_FUZZ_STUB(square)
KRL_FUZZ_STUB(scale)
KRL_FUZZ_STUB(sum)
KRL_FUZZ_STUB(mean)
KRL_FUZZ_STUB(max)
KRL_FUZZ_STUB(min)
KRL_FUZZ_STUB(argmax)
KRL_FUZZ_STUB(argmin)
KRL_FUZZ_STUB(softmax)
KRL_FUZZ_STUB(log_softmax)
KRL_FUZZ_STUB(layernorm)
KRL_FUZZ_STUB(cumsum)
KRL_FUZZ_STUB(copy)
