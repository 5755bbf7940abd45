/*
 * kernelrl: private declarations of the op family "conv" (docs/ops-conv.md).
 *
 * family.c owns the ops' table, their checks and float64 golden versions,
 * and the geometry every part shares (krl_conv_geom_get); run.c the GPU
 * drivers through cuDNN; depthwise.cu the depthwise kernels and
 * conv_layout.cu the layout changes (conv_layout.h). Nothing here is
 * visible outside src/ops/.
 */
#ifndef KRL_OPS_CONV_H
#define KRL_OPS_CONV_H

#include <stdint.h>

#include "ops/conv/conv_layout.h"
#include "krl/opgeom.h"
#include "ops/ops_int.h"


#ifdef __cplusplus
extern "C" {
#endif

/* ==== Depthwise convolution (depthwise.cu) ==== */

/* One depthwise convolution (groups == cin; PyTorch's conv_depthwise2d /
 * conv_depthwise3d): x [n, cin, in...], w [cout, 1, k...] with cout a
 * multiple of cin, y [n, cout, out...], all packed. The spatial arrays hold
 * nsp (2 or 3) entries, (d,) h, w. x and y must have at most 2^31 - 1
 * elements each (the kernels index in 32 bits; callers split the batch). */
typedef struct krl_dwconv {
	int nsp;
	int n, cin, cout;
	int in[3], out[3], k[3], stride[3], pad[3], dil[3];
} krl_dwconv;

/* y = depthwise_conv(x, w), plus b[channel] when b is not NULL. */
int krl_k_conv_depthwise(const krl_dwconv *g, const float *x,
                         const float *w, const float *b, float *y,
                         void *stream);


/* ==== Layout changes of the convolutions (conv_layout.cu) ==== */

/* out[b, q, r] = in[b, r, q] (+ add[q] when add is not NULL) for in
 * [nb, nr, nq] and out [nb, nq, nr], both packed: a batch of matrix
 * transposes (conv_layout.h says which ones the convolutions make). Each
 * matrix must have fewer than 2^31 * 1024 elements (its 32 x 32 tiles are
 * counted in an int). */
int krl_k_transpose(const float *in, float *out, int64_t nb, int64_t nr,
                    int64_t nq, const float *add, void *stream);

#ifdef __cplusplus
}
#endif

/* GPU drivers (run.c): y = conv(x, w) [+ b] through cuDNN. */
KRL_RUN(conv); KRL_RUN(conv_bias); KRL_RUN(conv_transpose);
KRL_RUN(conv_transpose_bias);

/* Frees the family's state in a krl_opctx: the cuDNN handle, workspace
 * and plan cache (run.c). */
void krl_conv_state_free(void *state);

#endif
