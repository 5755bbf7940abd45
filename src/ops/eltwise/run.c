/*
 * kernelrl: GPU drivers of the op family "eltwise" (docs/ops-eltwise.md).
 *
 * Each driver turns the op's attributes into the kernel's float parameters
 * the way PyTorch turns its Scalars into the float opmath type, launches
 * one kernel of eltwise.cu or elementwise.cu on the context's stream, and
 * turns a launch
 * error into KRL_ECUDA with the place it happened. Shapes and attributes
 * are assumed to have passed the op's check (family.c).
 */
#include <cuda_runtime.h>

#include "ops/eltwise/eltwise.h"
#include "ops/ops_int.h"
#include "runtime/cudacheck.h"

#define F(t) ((float *)(t)->data)

/* One launch of op over every element of out[0], reading in[0]. */
static krl_err elt(krl_opctx *c, krl_elt_op op, const krl_tensor *in,
                   const krl_tensor *out, float p0, float p1, krl_diag *d)
{
	CUDA_TRY(d, krl_k_eltwise(op, F(&in[0]), F(&out[0]),
	                           krl_tensor_numel(&out[0]), p0, p1,
	                           c->stream));
	return KRL_OK;
}

static float attr_f(const krl_attrs *a, const char *key, double dflt)
{
	return (float)krl_attrs_get(a, key, dflt);
}

KRL_RUN(leaky_relu)
{
	return elt(c, KRL_ELT_LEAKY_RELU, in, out,
	           attr_f(a, "negative_slope", 0.01), 0.f, d);
}

KRL_RUN(sigmoid)
{
	return elt(c, KRL_ELT_SIGMOID, in, out, 0.f, 0.f, d);
}

KRL_RUN(tanh)
{
	return elt(c, KRL_ELT_TANH, in, out, 0.f, 0.f, d);
}

KRL_RUN(mish)
{
	return elt(c, KRL_ELT_MISH, in, out, 0.f, 0.f, d);
}

/* elu_kernel forms negcoef = alpha * scale as a product of two floats;
 * volatile keeps the product in float on any evaluation method. */
static krl_err elu(krl_opctx *c, const krl_tensor *in, const krl_tensor *out,
                   double alpha, double scale, krl_diag *d)
{
	volatile float fa = (float)alpha, fs = (float)scale;
	volatile float negcoef = fa * fs;
	return elt(c, KRL_ELT_ELU, in, out, negcoef, fs, d);
}

KRL_RUN(elu)
{
	return elu(c, in, out, krl_attrs_get(a, "alpha", 1.0), 1.0, d);
}

KRL_RUN(selu)
{
	return elu(c, in, out, KRL_SELU_ALPHA, KRL_SELU_SCALE, d);
}

KRL_RUN(hardsigmoid)
{
	return elt(c, KRL_ELT_HARDSIGMOID, in, out, 0.f, 0.f, d);
}

KRL_RUN(softplus)
{
	return elt(c, KRL_ELT_SOFTPLUS, in, out, attr_f(a, "beta", 1.0),
	           attr_f(a, "threshold", 20.0), d);
}

KRL_RUN(hardtanh)
{
	return elt(c, KRL_ELT_HARDTANH, in, out, attr_f(a, "min_val", -1.0),
	           attr_f(a, "max_val", 1.0), d);
}

KRL_RUN(pow_scalar)
{
	return elt(c, KRL_ELT_POW_SCALAR, in, out,
	           attr_f(a, "exponent", 1.0), 0.f, d);
}

KRL_RUN(abs) { return elt(c, KRL_ELT_ABS, in, out, 0.f, 0.f, d); }
KRL_RUN(sqrt) { return elt(c, KRL_ELT_SQRT, in, out, 0.f, 0.f, d); }
KRL_RUN(log) { return elt(c, KRL_ELT_LOG, in, out, 0.f, 0.f, d); }

KRL_RUN(add_scalar)
{
	return elt(c, KRL_ELT_ADD_SCALAR, in, out, attr_f(a, "alpha", 0), 0.f,
	           d);
}

KRL_RUN(rsub_scalar)
{
	return elt(c, KRL_ELT_RSUB_SCALAR, in, out, attr_f(a, "alpha", 0),
	           0.f, d);
}

KRL_RUN(clamp_min)
{
	return elt(c, KRL_ELT_CLAMP_MIN, in, out, attr_f(a, "min", 0), 0.f, d);
}

KRL_RUN(minimum_scalar)
{
	return elt(c, KRL_ELT_MINIMUM, in, out, attr_f(a, "value", 0), 0.f, d);
}

KRL_RUN(maximum_scalar)
{
	return elt(c, KRL_ELT_MAXIMUM, in, out, attr_f(a, "value", 0), 0.f, d);
}

KRL_RUN(hardswish)
{
	return elt(c, KRL_ELT_HARDSWISH, in, out, 0.f, 0.f, d);
}

KRL_RUN(exp) { return elt(c, KRL_ELT_EXP, in, out, 0.f, 0.f, d); }

/* ==== Arithmetic, binary and broadcast ops (elementwise.cu), copy ==== */

/* Deliberate twin: the one-line KRL_RUN drivers here and in reduce/run.c have
 * the same shape by design: one row per op, calling its family's helper. */
static krl_err ew(krl_opctx *c, krl_ew_op op, const krl_tensor *in,
                  const krl_tensor *out, int binary, float alpha,
                  krl_diag *d)
{
	CUDA_TRY(d, krl_k_elementwise(op, F(&in[0]), binary ? F(&in[1]) : NULL,
	                               F(&out[0]), krl_tensor_numel(&out[0]),
	                               alpha, c->stream));
	return KRL_OK;
}

KRL_RUN(relu) { return ew(c, KRL_EW_RELU, in, out, 0, 1.f, d); }
KRL_RUN(square) { return ew(c, KRL_EW_SQUARE, in, out, 0, 1.f, d); }
KRL_RUN(add) { return ew(c, KRL_EW_ADD, in, out, 1, 1.f, d); }
KRL_RUN(sub) { return ew(c, KRL_EW_SUB, in, out, 1, 1.f, d); }
KRL_RUN(mul) { return ew(c, KRL_EW_MUL, in, out, 1, 1.f, d); }
KRL_RUN(div) { return ew(c, KRL_EW_DIV, in, out, 1, 1.f, d); }
KRL_RUN(xlogy) { return ew(c, KRL_EW_XLOGY, in, out, 1, 0.f, d); }

KRL_RUN(smooth_l1)
{
	return ew(c, KRL_EW_SMOOTH_L1, in, out, 1, attr_f(a, "beta", 1), d);
}

/* a and b broadcast to y's shape (the check has accepted the shapes; for
 * div_bcast and mul_bcast y is shaped like a, so a's strides are
 * contiguous). */
static krl_err bcast(krl_opctx *c, krl_ew_op op, const krl_tensor *in,
                     const krl_tensor *out, krl_diag *d)
{
	int64_t sa[KRL_MAX_DIM], sb[KRL_MAX_DIM];
	krl_eltwise_bcast_strides(&out[0], &in[0], sa);
	krl_eltwise_bcast_strides(&out[0], &in[1], sb);
	CUDA_TRY(d, krl_k_broadcast(op, F(&in[0]), F(&in[1]), F(&out[0]),
	                             out[0].ndim, out[0].dim, sa, sb,
	                             c->stream));
	return KRL_OK;
}

KRL_RUN(div_bcast) { return bcast(c, KRL_EW_DIV, in, out, d); }
KRL_RUN(mul_bcast) { return bcast(c, KRL_EW_MUL, in, out, d); }
KRL_RUN(add_bcast) { return bcast(c, KRL_EW_ADD, in, out, d); }
KRL_RUN(sub_bcast) { return bcast(c, KRL_EW_SUB, in, out, d); }
KRL_RUN(minimum_bcast) { return bcast(c, KRL_EW_MIN, in, out, d); }

/* dropout_apply: fused_dropout's float scale, 1.0 / (float)(1 - p)
 * computed in double and rounded to float (krl_eltwise_dropout_scale). */
KRL_RUN(dropout_apply)
{
	CUDA_TRY(d, krl_k_masked(KRL_MASK_SCALE, F(&in[0]),
	                          (const unsigned char *)in[1].data,
	                          F(&out[0]), krl_tensor_numel(&out[0]),
	                          krl_eltwise_dropout_scale(
	                                  krl_attrs_get(a, "p", 0)),
	                          c->stream));
	return KRL_OK;
}

KRL_RUN(gelu)
{
	int t = krl_attrs_get(a, "tanh", 0) != 0;
	return ew(c, t ? KRL_EW_GELU_TANH : KRL_EW_GELU, in, out, 0, 1.f, d);
}

KRL_RUN(scale)
{
	return ew(c, KRL_EW_SCALE, in, out, 0,
	          (float)krl_attrs_get(a, "alpha", 1), d);
}

/* A contiguous device-to-device copy, as copy_ of same-dtype contiguous
 * tensors is in PyTorch. */
KRL_RUN(copy)
{
	size_t bytes = (size_t)krl_tensor_numel(&in[0]) *
	               krl_dtype_size(in[0].dtype);
	if (bytes == 0 || in[0].data == out[0].data)
		return KRL_OK;
	CUDA_TRY(d, cudaMemcpyAsync(out[0].data, in[0].data, bytes,
	                             cudaMemcpyDeviceToDevice,
	                             (cudaStream_t)c->stream));
	return KRL_OK;
}

/* `t == value` into bool bytes; y a leading slice of x reads x strided
 * (x's row-major strides along y's dims). */
KRL_RUN(eq_scalar)
{
	const krl_tensor *x = &in[0], *y = &out[0];
	int64_t xs[KRL_MAX_DIM], st = 1;
	for (int k = x->ndim - 1; k >= 0; k--) {
		xs[k] = st;
		st *= x->dim[k];
	}
	CUDA_TRY(d, krl_k_eq_scalar_strided(F(x), (unsigned char *)y->data,
	                                     y->ndim, y->dim, xs,
	                                     attr_f(a, "value", 0), c->stream));
	return KRL_OK;
}

/* masked_fill_: the mask's strides along x's dims, 0 where it
 * broadcasts. */
KRL_RUN(masked_fill)
{
	int64_t sm[KRL_MAX_DIM];
	krl_eltwise_bcast_strides(&in[0], &in[1], sm);
	CUDA_TRY(d, krl_k_masked_fill_bcast(F(&in[0]),
	                                     (const unsigned char *)in[1].data,
	                                     F(&out[0]), in[0].ndim, in[0].dim,
	                                     sm, attr_f(a, "value", 0),
	                                     c->stream));
	return KRL_OK;
}

KRL_RUN(bitwise_not)
{
	(void)a;
	CUDA_TRY(d, krl_k_bitwise_not((const unsigned char *)in[0].data,
	                               (unsigned char *)out[0].data,
	                               krl_tensor_numel(&out[0]), c->stream));
	return KRL_OK;
}
