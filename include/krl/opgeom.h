/*
 * kernelrl: what the op library shares with the optimizer (src/opt/):
 * the geometry of convolution and pooling calls and the constants of the
 * ops' semantics, defined once by their families (src/ops/<family>/) and
 * used by the golden ops, the GPU drivers, the optimizer's graph
 * interpreter and its code generators alike. Everything else of an op
 * family is private to src/ops/.
 */
#ifndef KRL_OPGEOM_H
#define KRL_OPGEOM_H

#include <stdint.h>

#include "krl/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Constants of the ops' semantics ==== */

/* SELU's alpha and scale (Klambauer et al. 2017) as PyTorch spells them
 * (Activation.cpp), to full double precision. */
#define KRL_SELU_ALPHA 1.6732632423543772848170429916717
#define KRL_SELU_SCALE 1.0507009873554804934193349852946

/* nll_loss skips targets equal to this (PyTorch's default ignore_index). */
#define KRL_NLL_IGNORE (-100)

/* dropout_apply's scale for drop probability p: the keep probability
 * rounded to float, 1 / keep taken in double and rounded to float, as
 * PyTorch's fused dropout kernel forms it (src/ops/eltwise/family.c). */
float krl_eltwise_dropout_scale(double p);

/* ==== Convolution geometry (src/ops/conv/) ==== */

/* The geometry of one convolution call, spatial dims in order (1D: w; 2D:
 * h, w; 3D: d, h, w). For conv, x has cin channels and y cout; w is
 * [cout, cin / groups, k...]. For conv_transpose, w is [cin, cout / groups,
 * k...] (PyTorch's ConvTranspose layout) and opad is the output padding. */
typedef struct krl_conv_geom {
	int transposed;
	int nsp;                        /* spatial dims: 1, 2 or 3 */
	int64_t n, cin, cout, groups;
	int64_t in[3], k[3], out[3];    /* spatial sizes of x, w and y */
	int64_t stride[3], pad[3], dil[3], opad[3];
} krl_conv_geom;

/* Fills *g from x = in[0], w = in[1] and the attributes (the spatial
 * output sizes computed, not read from y). Assumes nothing: returns 0 when
 * the ranks and attribute values make a geometry (out sizes may still be
 * < 1), -1 when x's rank is not 3..5 or w's differs. */
int krl_conv_geom_get(int transposed, const krl_tensor *in,
                      const krl_attrs *a, krl_conv_geom *g);

/* PyTorch's ConvParams::is_depthwise (Convolution.cpp): not transposed,
 * groups == Cin > 1 (and Cout a multiple of Cin, which the check already
 * requires). For fp32 NCHW tensors use_cudnn_depthwise is false, so these
 * run conv_depthwise2d (1D and 2D: view4d comes before the backend choice)
 * or conv_depthwise3d: kernelrl's depthwise.cu, whose one algorithm runs
 * on the NCHW tensors whatever the `algo` and `layout` attributes say. */
static inline int krl_conv_is_depthwise(const krl_conv_geom *g)
{
	return !g->transposed && g->groups > 1 && g->groups == g->cin;
}

/* ==== Pooling geometry (src/ops/reduce/) ==== */

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
void krl_pool_geom(const krl_attrs *a, const int64_t *xdim, int ndim,
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

#ifdef __cplusplus
}
#endif
#endif
