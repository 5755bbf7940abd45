/* Helpers shared by the GPU op tests: one stream and op context per test
 * executable (cmocka group setup/teardown), xorshift host random numbers,
 * shape and attribute builders, and a CUDA-call check. Each test sets
 * g_rng to its own seed before running. */
#ifndef KRL_GPUOPTEST_H
#define KRL_GPUOPTEST_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "krl/ops.h"
#include "optest.h"

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

/* A test case's shape: S(ndim, dims...) with every dim an int64_t (I(x)). */
typedef struct shape {
	int ndim;
	int64_t dim[KRL_MAX_DIM];
} shape;

shape S(int ndim, ...);
int64_t numel(const shape *s);

/* A test input or output: dtype, dims, and how a test draws it (dd: the
 * test's own enum; hi: its parameter where it has one, e.g. the bound of
 * drawn indices). */
typedef struct ten {
	krl_dtype dt;
	int dd;
	int64_t hi;
	int ndim;
	int64_t dim[KRL_MAX_DIM];
} ten;

/* ten(dt, dd, hi, ndim, dims...) with every dim an int64_t. */
ten gpuop_ten(krl_dtype dt, int dd, int64_t hi, int ndim, ...);
int64_t ten_numel(const ten *s);
/* Bytes per element of the dtypes the tests draw: i64 8, bool 1, else 4. */
size_t esize(krl_dtype t);
/* A krl_tensor of s's dtype and dims over data. */
krl_tensor host_tensor(const ten *s, void *data);
/* Element j of raw bytes of dtype dt (i64, bool, else f32) as a double. */
double as_double(const void *p, int64_t j, krl_dtype dt);

/* Op attributes: A(n, key0, (double)val0, key1, (double)val1, ...), the
 * CPU op tests' builder. */
#define A(...) optest_attrs(__VA_ARGS__)

/*
 * Runs op on in -> out (f32, n_out elements, device memory) with attrs
 * `base` plus algo = 0, 1, ..., 7 and checks the library's algorithm
 * choice: algo 0 runs; every other K either runs and agrees with algo 0
 * within rel * max |algo 0's output| everywhere, or fails with
 * KRL_EUNSUPPORTED naming how many the library offers, and then so does
 * every larger K. Returns how many ran.
 */
int gpuop_algo_sweep(const char *op, const krl_tensor *in, krl_tensor *out,
                     int64_t n_out, krl_attrs base, double rel);

/* A CUDA runtime call that must succeed; fails the cmocka test otherwise. */
#define CK(call)                                                            \
	do {                                                                \
		cudaError_t e_ = (call);                                    \
		if (e_ != cudaSuccess) {                                    \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__,        \
			        __LINE__, #call, cudaGetErrorString(e_));   \
			fail();                                             \
		}                                                           \
	} while (0)

#endif
