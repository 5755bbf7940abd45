/*
 * kernelrl: private declarations of the "reduce" op family beyond the
 * first set (family_reduce.c, run_reduce.c, reduce2.cu; the cumulative
 * product's kernels are cumsum's, in scan.cu): pooling, product
 * reduction, cumulative product, and the copies the scan decompositions of
 * KernelBench need (flip, narrow, cat, fill, mul_mask).
 *
 * The kernel launchers follow kernels.h: each enqueues on `stream` (a
 * cudaStream_t) and returns the cudaError_t of its launch(es) as an int,
 * 0 on success. Sizes are int64.
 */
#ifndef KRL_OPS_REDUCE2_H
#define KRL_OPS_REDUCE2_H

#include <stdint.h>

#include "krl/opgeom.h"

#ifdef __cplusplus
extern "C" {
#endif


/* ==== Kernels (reduce2.cu; krl_k_cumprod in scan.cu) ==== */

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

/* y[i] = x[i] * (float)mask[i] (mask: bytes 0/1). */
int krl_k_mul_mask(const float *x, const unsigned char *mask, float *y,
                   int64_t n, void *stream);

#ifdef __cplusplus
}
#endif
#endif
