/*
 * kernelrl: private declarations of the op family "reduce" (family.c,
 * run.c, reduce.cu, reduce2.cu, scan.cu; docs/ops-reduce.md): reductions
 * over one dim, pooling, the product reduction, cumulative sums and
 * products, and the copies the scan decompositions of KernelBench need
 * (flip, narrow, cat, fill, mul_mask).
 *
 * Each kernel launcher enqueues on `stream` (a cudaStream_t) and returns
 * the cudaError_t of its launch(es) as an int, 0 on success; the drivers
 * turn it into KRL_ECUDA with the file and line. Sizes are int64: tensors
 * may exceed 2^31 elements.
 */
#ifndef KRL_OPS_REDUCE_H
#define KRL_OPS_REDUCE_H

#include <stdint.h>

#include "krl/opgeom.h"
#include "ops/ops_int.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Reductions over one dim (reduce.cu) ==== */

typedef enum krl_red_op {
	KRL_RED_SUM, KRL_RED_MEAN, KRL_RED_MAX, KRL_RED_MIN, KRL_RED_ARGMAX,
	KRL_RED_ARGMIN
} krl_red_op;

/* Reduces x viewed as [outer, r, inner] over r into y [outer, inner]
 * (float, or int64_t for arg*). scratch (scratch_bytes, zero-initialised
 * once by the context; its semaphores are left zero after every call)
 * holds per-block partials when one output is split over several blocks. */
int krl_k_reduce(krl_red_op op, const float *x, void *y, int64_t outer,
                 int64_t r, int64_t inner, void *scratch,
                 int64_t scratch_bytes, int sm_count, void *stream);

/* ==== Cumulative sum (scan.cu) ==== */

/* scratch (scratch_bytes) is CUB's temporary storage when the whole
 * tensor is one scan (outer == inner == 1). */
int krl_k_cumsum(const float *x, float *y, int64_t outer, int64_t r,
                 int64_t inner, void *scratch, int64_t scratch_bytes,
                 void *stream);

/* ==== Pooling, product, copies (reduce2.cu; krl_k_cumprod in scan.cu) ==== */

/* Max pooling of [planes, H, W] (1-d pooling is H = 1 with a 1 x k
 * window): one thread per output, values to y and the flat in-plane index
 * of the maximum to idx (int64), as max_pool2d_with_indices. */
int krl_k_max_pool2d(const float *x, float *y, int64_t *idx,
                     const krl_pool *g, void *stream);
/* Max pooling of [planes, T, H, W]: blocks of 32 x 8 over (W, H) of the
 * output, grid.z over (plane, T) in chunks of 65535. */
int krl_k_max_pool3d(const float *x, float *y, int64_t *idx,
                     const krl_pool *g, void *stream);
/* Average pooling; same launch classes as the max versions. */
int krl_k_avg_pool2d(const float *x, float *y, const krl_pool *g,
                     void *stream);
int krl_k_avg_pool3d(const float *x, float *y, const krl_pool *g,
                     void *stream);

/* Product over r of x viewed as [outer, r, inner] into y [outer, inner];
 * scratch as krl_k_reduce's (semaphores first, left zero). */
int krl_k_prod(const float *x, float *y, int64_t outer, int64_t r,
               int64_t inner, void *scratch, int64_t scratch_bytes,
               int sm_count, void *stream);

/* y [outer, sum of r, inner] = x[0] [outer, r[0], inner], then x[1], ...
 * along the middle dim (n >= 1 inputs), one launch per 64 inputs (grid.y
 * = input); for two inputs krl_k_cat2 is the tuned path. */
int krl_k_catn(const void *const *x, const int64_t *r, int n, void *y,
               int64_t outer, int64_t inner, int esize, int sm_count,
               void *stream);

/* Inclusive cumulative product along r (scan.cu, cumsum's kernels with a
 * product); scratch holds CUB's temporaries when the whole tensor is one
 * scan. */
int krl_k_cumprod(const float *x, float *y, int64_t outer, int64_t r,
                  int64_t inner, void *scratch, int64_t scratch_bytes,
                  void *stream);

/* y [outer, ry, inner] = x [outer, rx, inner] at index start + step * j
 * along the middle dim (flip: start = rx - 1, step = -1; narrow: step 1).
 * esize: bytes per element (1, 2, 4 or 8). */
int krl_k_gather_dim(const void *x, void *y, int64_t outer, int64_t rx,
                     int64_t ry, int64_t inner, int64_t start, int64_t step,
                     int esize, void *stream);

/* y [outer, ra + rb, inner] = a [outer, ra, inner] then b along the middle
 * dim, one launch for both (grid.y = input). */
int krl_k_cat2(const void *a, const void *b, void *y, int64_t outer,
               int64_t ra, int64_t rb, int64_t inner, int esize,
               int sm_count, void *stream);

/* y[i] = value for n floats. */
int krl_k_fill(float *y, int64_t n, float value, void *stream);
/* y[i] = v (0 or 1) over n bool bytes (torch.ones(..., dtype=bool)). */
int krl_k_fill_bool(unsigned char *y, int64_t n, int v, void *stream);

/* y[i] = x[i] * (float)mask[i] (mask: bytes 0/1). */
int krl_k_mul_mask(const float *x, const unsigned char *mask, float *y,
                   int64_t n, void *stream);

/* ==== GPU drivers (run.c) ==== */

KRL_RUN(sum); KRL_RUN(mean); KRL_RUN(max); KRL_RUN(min); KRL_RUN(argmax);
KRL_RUN(argmin); KRL_RUN(cumsum);
KRL_RUN(max_pool1d); KRL_RUN(max_pool2d); KRL_RUN(max_pool3d);
KRL_RUN(avg_pool1d); KRL_RUN(avg_pool2d); KRL_RUN(avg_pool3d);
KRL_RUN(prod); KRL_RUN(cumprod); KRL_RUN(flip); KRL_RUN(narrow);
KRL_RUN(cat); KRL_RUN(fill); KRL_RUN(mul_mask); KRL_RUN(logsumexp);

#ifdef __cplusplus
}
#endif
#endif
