/*
 * kernelrl: private header of the op family "eltwise" (docs/ops-eltwise.md).
 *
 * family.c (checks, golden versions, the op table) sees the GPU drivers of
 * run.c through the KRL_RUN prototypes below; the drivers call the kernel
 * launchers of elementwise.cu (arithmetic, binary and broadcast ops) and
 * eltwise.cu (the other unary ops). Free of CUDA includes so that the
 * CPU-only fuzzer build can include it.
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
	KRL_EW_ADD, KRL_EW_SUB, KRL_EW_MUL, KRL_EW_DIV, /* binary; MUL and */
	KRL_EW_XLOGY, KRL_EW_SMOOTH_L1                  /* DIV broadcast too */
} krl_ew_op;

/* y[i] = op(a[i]) or op(a[i], b[i]) (b unused for unary ops); alpha is
 * scale's factor or smooth_l1's beta. */
int krl_k_elementwise(krl_ew_op op, const float *a, const float *b,
                      float *y, int64_t n, float alpha, void *stream);

/* y[i] = a[i] op b[off(i)] for op KRL_EW_DIV or KRL_EW_MUL (others:
 * cudaErrorInvalidValue), with a of rank nd (<= KRL_MAX_DIM), dims dim[],
 * and b's element strides bstride[] along them (0 where b broadcasts). */
int krl_k_broadcast(krl_ew_op op, const float *a, const float *b, float *y,
                    int nd, const int64_t *dim, const int64_t *bstride,
                    void *stream);

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
	KRL_ELT_CLAMP_MIN     /* p0 = min */
} krl_elt_op;

/* y[i] = op(x[i]) for i < n. */
int krl_k_eltwise(krl_elt_op op, const float *x, float *y, int64_t n,
                  float p0, float p1, void *stream);

/* ==== Shared by family.c and run.c ==== */

/* stride[i] (a->ndim entries): b's element stride along a's dim i, 0 where
 * b broadcasts (b right-aligned to a, as div_bcast's check accepts). */
void krl_eltwise_bcast_strides(const krl_tensor *a, const krl_tensor *b,
                               int64_t *stride);

/* ==== GPU drivers (run.c) ==== */

KRL_RUN(relu); KRL_RUN(gelu); KRL_RUN(add); KRL_RUN(sub); KRL_RUN(mul);
KRL_RUN(div); KRL_RUN(square); KRL_RUN(scale); KRL_RUN(copy);
KRL_RUN(leaky_relu); KRL_RUN(sigmoid); KRL_RUN(tanh); KRL_RUN(selu);
KRL_RUN(elu); KRL_RUN(hardsigmoid); KRL_RUN(softplus); KRL_RUN(hardtanh);
KRL_RUN(pow_scalar); KRL_RUN(mish); KRL_RUN(abs); KRL_RUN(sqrt);
KRL_RUN(log); KRL_RUN(add_scalar); KRL_RUN(rsub_scalar); KRL_RUN(clamp_min);
KRL_RUN(xlogy); KRL_RUN(smooth_l1); KRL_RUN(div_bcast); KRL_RUN(mul_bcast);

#ifdef __cplusplus
}
#endif
#endif
