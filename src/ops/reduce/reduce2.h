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

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Pooling geometry (family_reduce.c) ==== */

/* One pooling call, square in every spatial dim as nn.MaxPoolNd /
 * nn.AvgPoolNd with int arguments: kernel k, stride s, padding p,
 * dilation d (1 for average pooling). */
typedef struct krl_pool {
	int rank;                 /* 1, 2 or 3 spatial dims */
	int64_t k, s, p, d;
	int ceil_mode;
	int count_include_pad;    /* avg only */
	int64_t divisor;          /* avg only: divisor_override, 0 = none */
	int64_t planes;           /* product of the leading (N, C) dims */
	int64_t in[3], out[3];    /* spatial sizes, outermost first */
} krl_pool;

/* PyTorch's pooling_output_shape: floor (or ceil) of
 * (in + 2p - d(k-1) - 1) / s + 1, minus one when ceil mode would start the
 * last window past the input and its left padding. */
int64_t krl_pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p,
                          int64_t d, int ceil_mode);

/* Fills g from the attributes and x's shape (rank = the op's rank,
 * avg = 1 for average pooling). Assumes check() accepted them. */
struct krl_attrs;
void krl_pool_geom(const struct krl_attrs *a, const int64_t *xdim, int ndim,
                   int rank, int avg, krl_pool *g);

/* The float64 golden pooling of x [g->planes, *g->in] into
 * [g->planes, *g->out] (row-major doubles), as PyTorch's kernels compute
 * it: max pooling writes each window's maximum to y and its flat in-plane
 * index to idx (NaN wins: the window's last NaN); average pooling writes
 * the mean to y (idx unused; a window with no tap inside the input gives
 * 0). y or idx may be NULL when not wanted. The golden ops and the
 * optimizer's graph interpreter (src/opt/interp.c) both run this. */
void krl_pool_golden(const krl_pool *g, int avg, const double *x, double *y,
                     double *idx);

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
