/* Helpers shared by the GPU op tests: one stream and op context per test
 * executable (cmocka group setup/teardown) and xorshift host random
 * numbers. Each test sets g_rng to its own seed before running. */
#ifndef KRL_GPUOPTEST_H
#define KRL_GPUOPTEST_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "krl/ops.h"

extern cudaStream_t g_stream;
extern krl_opctx *g_ctx;
extern uint64_t g_rng;

/* Uniform in [0, 1) from g_rng. */
double gpuop_urand(void);
/* Standard normal (Box-Muller) from g_rng. */
double gpuop_nrand(void);
/* cmocka group hooks: create / free g_stream and g_ctx. */
int gpuop_setup(void **state);
int gpuop_teardown(void **state);

#endif
