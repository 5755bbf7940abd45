/*
 * kernelrl: private declarations of the op family "conv" (docs/ops-conv.md).
 *
 * family_conv.c owns the ops' table, their checks and float64 golden
 * versions, and the geometry every part shares (krl_conv_geom_get);
 * run_conv.c the GPU drivers through cuDNN. Nothing here is visible outside
 * src/ops/.
 */
#ifndef KRL_OPS_CONV_H
#define KRL_OPS_CONV_H

#include <stdint.h>

#include "ops/conv/conv_layout.h"
#include "ops/ops_int.h"

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

/* GPU drivers (run_conv.c): y = conv(x, w) [+ b] through cuDNN. */
KRL_RUN(conv); KRL_RUN(conv_bias); KRL_RUN(conv_transpose);
KRL_RUN(conv_transpose_bias);

#endif
