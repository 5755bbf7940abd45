/*
 * kernelrl: private header of the op family "eltwise" (docs/ops-eltwise.md).
 *
 * family.c (checks, golden versions, the op table) sees the GPU drivers of
 * run.c through the KRL_RUN prototypes below; the drivers call the kernel
 * launchers of elementwise.cu (arithmetic, binary and broadcast ops) and
 * eltwise.cu (the other unary ops, the mask ops). The reduce family's
 * logsumexp driver calls these launchers too (its abs, ==inf,
 * masked_fill, broadcast sub, exp, log and add are the kernels of this
 * family). Free of CUDA includes so that the CPU-only fuzzer build can
 * include it.
 */
#ifndef KRL_OPS_ELTWISE_H
#define KRL_OPS_ELTWISE_H

#include <stdint.h>

#include "krl/opgeom.h"
#include "ops/ops_int.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Kernels ====
 *
 * Each launcher enqueues its kernel on `stream` (a cudaStream_t) and
 * returns the cudaError_t of the launch (cudaGetLastError right after it)
 * as an int, 0 on success; n <= 0 launches nothing. Sizes are int64. */

/* The arithmetic ops (elementwise.cu). */
typedef enum krl_ew_op {
	KRL_EW_RELU, KRL_EW_GELU, KRL_EW_GELU_TANH, KRL_EW_SQUARE,
	KRL_EW_SCALE,                                   /* unary */
	KRL_EW_ADD, KRL_EW_SUB, KRL_EW_MUL, KRL_EW_DIV, /* binary; these */
	KRL_EW_MIN,                                     /* five broadcast */
	KRL_EW_XLOGY, KRL_EW_SMOOTH_L1                  /* too */
} krl_ew_op;

/* y[i] = op(a[i]) or op(a[i], b[i]) (b unused for unary ops); alpha is
 * scale's factor or smooth_l1's beta. */
int krl_k_elementwise(krl_ew_op op, const float *a, const float *b,
                      float *y, int64_t n, float alpha, void *stream);

/* y[i] = a[aoff(i)] op b[boff(i)] for op KRL_EW_ADD, _SUB, _MUL, _DIV or
 * _MIN (others: cudaErrorInvalidValue), with the contiguous y of rank nd
 * (<= KRL_MAX_DIM) and dims dim[], and a's and b's element strides
 * astride[], bstride[] along them (0 where the operand broadcasts). */
int krl_k_broadcast(krl_ew_op op, const float *a, const float *b, float *y,
                    int nd, const int64_t *dim, const int64_t *astride,
                    const int64_t *bstride, void *stream);

/* The activations (eltwise.cu). */

/* The unary ops of the family. p0 and p1 are the op's parameters, already
 * converted to float the way PyTorch converts a Scalar to the float
 * opmath type (see each case in eltwise.cu). */
typedef enum krl_elt_op {
	KRL_ELT_LEAKY_RELU,   /* p0 = negative_slope */
	KRL_ELT_SIGMOID,
	KRL_ELT_TANH,
	KRL_ELT_ELU,          /* p0 = alpha * scale, p1 = scale (input_scale 1) */
	KRL_ELT_HARDSIGMOID,
	KRL_ELT_SOFTPLUS,     /* p0 = beta, p1 = threshold */
	KRL_ELT_HARDTANH,     /* p0 = min_val, p1 = max_val */
	KRL_ELT_POW_SCALAR,   /* p0 = exponent */
	KRL_ELT_MISH,
	KRL_ELT_ABS, KRL_ELT_SQRT, KRL_ELT_LOG,
	KRL_ELT_ADD_SCALAR,   /* p0 = alpha */
	KRL_ELT_RSUB_SCALAR,  /* p0 = alpha */
	KRL_ELT_CLAMP_MIN,    /* p0 = min */
	KRL_ELT_HARDSWISH, KRL_ELT_EXP,
	KRL_ELT_MINIMUM,      /* p0 = the scalar (NaN-propagating min) */
	KRL_ELT_MAXIMUM       /* p0 = the scalar (NaN-propagating max) */
} krl_elt_op;

/* y[i] = op(x[i]) for i < n. */
int krl_k_eltwise(krl_elt_op op, const float *x, float *y, int64_t n,
                  float p0, float p1, void *stream);

/* Ops of a float x and a bool mask m (bytes 0/1) of one shape (eltwise.cu).
 * KRL_MASK_SCALE: y = x * m * p (fused_dropout's arithmetic, p the float
 * scale 1/(1-p)); KRL_MASK_FILL: y = m ? p : x (masked_fill_ with a
 * scalar; y may be x). */
typedef enum krl_mask_op { KRL_MASK_SCALE, KRL_MASK_FILL } krl_mask_op;
int krl_k_masked(krl_mask_op op, const float *x, const unsigned char *m,
                 float *y, int64_t n, float p, void *stream);

/* m[i] = x[i] == v as a bool byte (the comparison kernel of `t == v`). */
int krl_k_eq_scalar(const float *x, unsigned char *m, int64_t n, float v,
                    void *stream);

/* masked_fill_ with the mask broadcast to x: y[i] = m[moff(i)] ? v : x[i]
 * over the contiguous x and y of rank nd and dims dim[] (y may be x),
 * mstride[] the mask's element strides along them (0 where it
 * broadcasts). */
int krl_k_masked_fill_bcast(const float *x, const unsigned char *m, float *y,
                            int nd, const int64_t *dim,
                            const int64_t *mstride, float v, void *stream);

/* m[i] = x[xoff(i)] == v over the contiguous bool m of rank nd and dims
 * dim[], xstride[] x's element strides along them (a slice of a larger
 * x). */
int krl_k_eq_scalar_strided(const float *x, unsigned char *m, int nd,
                            const int64_t *dim, const int64_t *xstride,
                            float v, void *stream);

/* y[i] = !x[i] on bool bytes (y may be x). */
int krl_k_bitwise_not(const unsigned char *x, unsigned char *y, int64_t n,
                      void *stream);

/* ==== Shared by family.c and run.c ==== */

/* stride[i] (a->ndim entries): b's element stride along a's dim i, 0 where
 * b broadcasts (b right-aligned to a with a->ndim >= b->ndim, each dim of
 * b equal to a's or 1; a is the broadcast shape). */
void krl_eltwise_bcast_strides(const krl_tensor *a, const krl_tensor *b,
                               int64_t *stride);

/* krl_eltwise_dropout_scale: include/krl/opgeom.h (the optimizer uses it). */

/* ==== GPU drivers (run.c) ==== */

KRL_RUN(relu); KRL_RUN(gelu); KRL_RUN(add); KRL_RUN(sub); KRL_RUN(mul);
KRL_RUN(div); KRL_RUN(square); KRL_RUN(scale); KRL_RUN(copy);
KRL_RUN(leaky_relu); KRL_RUN(sigmoid); KRL_RUN(tanh); KRL_RUN(selu);
KRL_RUN(elu); KRL_RUN(hardsigmoid); KRL_RUN(softplus); KRL_RUN(hardtanh);
KRL_RUN(pow_scalar); KRL_RUN(mish); KRL_RUN(abs); KRL_RUN(sqrt);
KRL_RUN(log); KRL_RUN(add_scalar); KRL_RUN(rsub_scalar); KRL_RUN(clamp_min);
KRL_RUN(xlogy); KRL_RUN(smooth_l1); KRL_RUN(div_bcast); KRL_RUN(mul_bcast);
KRL_RUN(add_bcast); KRL_RUN(sub_bcast); KRL_RUN(minimum_bcast);
KRL_RUN(minimum_scalar); KRL_RUN(maximum_scalar); KRL_RUN(hardswish);
KRL_RUN(exp); KRL_RUN(dropout_apply); KRL_RUN(eq_scalar);
KRL_RUN(masked_fill); KRL_RUN(bitwise_not);

#ifdef __cplusplus
}
#endif
#endif
