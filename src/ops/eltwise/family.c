/*
 * kernelrl: the op family "eltwise" (docs/ops-eltwise.md): activations,
 * same-shape arithmetic, scalar elementwise ops, div/mul with b broadcast,
 * add/sub/minimum with both operands broadcast, dropout with a given mask,
 * the mask ops (eq_scalar, masked_fill, bitwise_not) and copy, each one
 * PyTorch eager kernel.
 *
 * This file holds every op's shape check, its float64 golden version and
 * the family's table. It is CPU-only: the fuzzers compile it with
 * -DKRL_OPS_NO_GPU, so the GPU drivers (run.c) appear only through
 * KRL_RUNFN. Golden versions compute the exact math function in double on
 * the (f32-rounded) inputs, with PyTorch's branch structure (softplus's
 * linear region, NaN passing through clamps) so that GPU results differ
 * from them by rounding only.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "ops/eltwise/eltwise.h"
#include "ops/ops_int.h"

#define D(t) ((double *)(t)->data)

/* ==== Check helpers ==== */

/* An optional attribute (required when `required`) that the GPU op uses
 * as a float: it must be finite as a float. */
static krl_err need_float(const char *op, const krl_attrs *a,
                          const char *key, int required, char *msg,
                          size_t cap)
{
	if (!krl_ops_attr_has(a, key)) {
		if (required)
			return krl_ops_fail(msg, cap, "%s: attribute %s is required", op,
			            key);
		return KRL_OK;
	}
	double v = krl_attrs_get(a, key, 0);
	if (!isfinite(v) || fabs(v) > FLT_MAX)
		return krl_ops_fail(msg, cap, "%s: %s=%g must be a finite float", op,
		            key, v);
	return KRL_OK;
}

/* An op with one required attribute, finite as a double. */
static krl_err unary_attr(const char *op, const char *const *names,
                          const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = krl_ops_check_unary(op, names, in, out, a, msg, cap);
	if (r)
		return r;
	if (!krl_ops_attr_has(a, names[0]))
		return krl_ops_fail(msg, cap, "%s: attribute %s is required", op,
		            names[0]);
	return krl_ops_need_finite(op, a, names[0], msg, cap);
}

/* ==== Checks ==== */

static const char *const k_none[] = { NULL };
static const char *const k_leaky[] = { "negative_slope", NULL };
static const char *const k_elu[] = { "alpha", NULL };
static const char *const k_softplus[] = { "beta", "threshold", NULL };
static const char *const k_hardtanh[] = { "min_val", "max_val", NULL };
static const char *const k_pow[] = { "exponent", NULL };

#define PLAIN_CHECK(name)                                                  \
	static krl_err check_##name(const krl_tensor *in,                  \
	                            const krl_tensor *out,                 \
	                            const krl_attrs *a, char *msg,         \
	                            size_t cap)                            \
	{                                                                  \
		return krl_ops_check_unary(#name, k_none, in, out, a, msg, cap);   \
	}
PLAIN_CHECK(sigmoid)
PLAIN_CHECK(tanh)
PLAIN_CHECK(selu)
PLAIN_CHECK(hardsigmoid)
PLAIN_CHECK(mish)

/* ==== relu, gelu, square, scale, add, sub, mul, div, copy ==== */

static const char *const k_gelu[] = { "tanh", NULL };
static const char *const k_alpha[] = { "alpha", NULL };

PLAIN_CHECK(relu)
PLAIN_CHECK(square)

static krl_err check_gelu(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = krl_ops_check_unary("gelu", k_gelu, in, out, a, msg, cap);
	return r ? r : krl_ops_need_flag("gelu", a, "tanh", msg, cap);
}

static krl_err check_scale(const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a, char *msg, size_t cap)
{
	return unary_attr("scale", k_alpha, in, out, a, msg, cap);
}

#define BINARY_CHECK(name)                                                 \
	static krl_err check_##name(const krl_tensor *in,                  \
	                            const krl_tensor *out,                 \
	                            const krl_attrs *a, char *msg,         \
	                            size_t cap)                            \
	{                                                                  \
		return krl_ops_check_binary(#name, k_none, in, out, a, msg,\
		                            cap);                          \
	}
BINARY_CHECK(add)
BINARY_CHECK(sub)
BINARY_CHECK(mul)
BINARY_CHECK(div)
BINARY_CHECK(xlogy)

static const char *const k_beta[] = { "beta", NULL };

static krl_err check_smooth_l1(const krl_tensor *in, const krl_tensor *out,
                               const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = krl_ops_check_binary("smooth_l1", k_beta, in, out, a, msg,
	                                 cap);
	if (r)
		return r;
	double beta = krl_attrs_get(a, "beta", 1);
	if (!isfinite(beta) || beta < 0)
		return krl_ops_fail(msg, cap, "smooth_l1: beta=%g must be a finite "
		            "number >= 0", beta);
	return KRL_OK;
}

/* ==== abs, sqrt, log, add_scalar, rsub_scalar, clamp_min ==== */

static const char *const k_min[] = { "min", NULL };

PLAIN_CHECK(abs)
PLAIN_CHECK(sqrt)
PLAIN_CHECK(log)

static krl_err check_add_scalar(const krl_tensor *in, const krl_tensor *out,
                                const krl_attrs *a, char *msg, size_t cap)
{
	return unary_attr("add_scalar", k_alpha, in, out, a, msg, cap);
}

static krl_err check_rsub_scalar(const krl_tensor *in, const krl_tensor *out,
                                 const krl_attrs *a, char *msg, size_t cap)
{
	return unary_attr("rsub_scalar", k_alpha, in, out, a, msg, cap);
}

static krl_err check_clamp_min(const krl_tensor *in, const krl_tensor *out,
                               const krl_attrs *a, char *msg, size_t cap)
{
	return unary_attr("clamp_min", k_min, in, out, a, msg, cap);
}

/* ==== exp, hardswish, minimum_scalar, maximum_scalar ==== */

static const char *const k_value[] = { "value", NULL };

PLAIN_CHECK(exp)
PLAIN_CHECK(hardswish)

/* `value` is required and the kernel takes it as a float. */
#define VALUE_CHECK(name)                                                  \
	static krl_err check_##name(const krl_tensor *in,                  \
	                            const krl_tensor *out,                 \
	                            const krl_attrs *a, char *msg,         \
	                            size_t cap)                            \
	{                                                                  \
		krl_err r = krl_ops_check_unary(#name, k_value, in, out, a,\
		                                msg, cap);                 \
		return r ? r : need_float(#name, a, "value", 1, msg, cap); \
	}
VALUE_CHECK(minimum_scalar)
VALUE_CHECK(maximum_scalar)

/* ==== dropout_apply ==== */

static const char *const k_p[] = { "p", NULL };

float krl_eltwise_dropout_scale(double p)
{
	volatile float keep = (float)(1.0 - p);
	return (float)(1.0 / (double)keep);
}

/* x (f32), mask (bool, x's shape) -> y (f32, x's shape); p in [0, 1). */
static krl_err check_dropout_apply(const krl_tensor *in,
                                   const krl_tensor *out,
                                   const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "dropout_apply";
	char s1[KRL_SHAPE_CAP], s2[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_p, a, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "x", &in[0], KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "mask", &in[1], KRL_BOOL, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "y", &out[0], KRL_F32, msg, cap)))
		return r;
	if (!krl_ops_attr_has(a, "p"))
		return krl_ops_fail(msg, cap, "%s: attribute p is required (the "
		            "drop probability)", op);
	double p = krl_attrs_get(a, "p", 0);
	if (!(p >= 0 && p < 1) || !isfinite(krl_eltwise_dropout_scale(p)))
		return krl_ops_fail(msg, cap, "%s: p=%g must be in [0, 1) (y = "
		            "x / (1 - p) where the mask keeps x)", op, p);
	if (!krl_ops_same_shape(&in[0], &in[1]))
		return krl_ops_fail(msg, cap, "%s: x is %s but mask is %s: shapes "
		            "must be equal", op, KRL_SHAPE(&in[0], s1),
		            KRL_SHAPE(&in[1], s2));
	if (!krl_ops_same_shape(&in[0], &out[0]))
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: shapes must "
		            "be equal", op, KRL_SHAPE(&in[0], s1),
		            KRL_SHAPE(&out[0], s2));
	return KRL_OK;
}

/* ==== The activations ==== */

static krl_err check_leaky_relu(const krl_tensor *in, const krl_tensor *out,
                                const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = krl_ops_check_unary("leaky_relu", k_leaky, in, out, a, msg, cap);
	return r ? r : need_float("leaky_relu", a, "negative_slope", 0, msg,
	                          cap);
}

static krl_err check_elu(const krl_tensor *in, const krl_tensor *out,
                         const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = krl_ops_check_unary("elu", k_elu, in, out, a, msg, cap);
	return r ? r : need_float("elu", a, "alpha", 0, msg, cap);
}

static krl_err check_softplus(const krl_tensor *in, const krl_tensor *out,
                              const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "softplus";
	krl_err r;
	if ((r = krl_ops_check_unary(op, k_softplus, in, out, a, msg, cap)) ||
	    (r = need_float(op, a, "beta", 0, msg, cap)) ||
	    (r = need_float(op, a, "threshold", 0, msg, cap)))
		return r;
	if ((float)krl_attrs_get(a, "beta", 1.0) == 0.f)
		return krl_ops_fail(msg, cap, "%s: beta must not be 0 (the result "
		            "divides by it)", op);
	return KRL_OK;
}

static krl_err check_hardtanh(const krl_tensor *in, const krl_tensor *out,
                              const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "hardtanh";
	krl_err r;
	if ((r = krl_ops_check_unary(op, k_hardtanh, in, out, a, msg, cap)) ||
	    (r = need_float(op, a, "min_val", 0, msg, cap)) ||
	    (r = need_float(op, a, "max_val", 0, msg, cap)))
		return r;
	double lo = krl_attrs_get(a, "min_val", -1.0);
	double hi = krl_attrs_get(a, "max_val", 1.0);
	if (lo > hi)
		return krl_ops_fail(msg, cap, "%s: min_val=%g is above max_val=%g", op,
		            lo, hi);
	return KRL_OK;
}

static krl_err check_pow_scalar(const krl_tensor *in, const krl_tensor *out,
                                const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = krl_ops_check_unary("pow_scalar", k_pow, in, out, a, msg, cap);
	return r ? r : need_float("pow_scalar", a, "exponent", 1, msg, cap);
}

/* ==== Golden versions ==== */

/* golden_NAME, the float64 version of op NAME. */
#define GOLDEN(name)                                                       \
	static krl_err golden_##name(const krl_tensor *in,                 \
	                             const krl_tensor *out,                \
	                             const krl_attrs *a)

static double gelu_erf(double x)
{
	return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

static double gelu_tanh(double x)
{
	const double k = sqrt(2.0 / M_PI);
	return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
}

GOLDEN(relu)
{
	int64_t n = krl_tensor_numel(&in[0]);
	for (int64_t i = 0; i < n; i++) {
		double x = D(&in[0])[i];
		D(&out[0])[i] = isnan(x) ? x : (x > 0 ? x : 0.0);
	}
	return KRL_OK;
}

GOLDEN(gelu)
{
	int64_t n = krl_tensor_numel(&in[0]);
	int tanh_ = krl_attrs_get(a, "tanh", 0) != 0;
	for (int64_t i = 0; i < n; i++) {
		double x = D(&in[0])[i];
		D(&out[0])[i] = tanh_ ? gelu_tanh(x) : gelu_erf(x);
	}
	return KRL_OK;
}

GOLDEN(square)
{
	int64_t n = krl_tensor_numel(&in[0]);
	for (int64_t i = 0; i < n; i++)
		D(&out[0])[i] = D(&in[0])[i] * D(&in[0])[i];
	return KRL_OK;
}

GOLDEN(scale)
{
	int64_t n = krl_tensor_numel(&in[0]);
	double alpha = krl_attrs_get(a, "alpha", 1);
	for (int64_t i = 0; i < n; i++)
		D(&out[0])[i] = alpha * D(&in[0])[i];
	return KRL_OK;
}

GOLDEN(copy)
{
	memmove(out[0].data, in[0].data,
	        (size_t)krl_tensor_numel(&in[0]) * sizeof(double));
	return KRL_OK;
}

#define BINARY_GOLDEN(name, expr)                                          \
	GOLDEN(name)                                                       \
	{                                                                  \
		int64_t n = krl_tensor_numel(&in[0]);                      \
		const double *x = D(&in[0]), *y = D(&in[1]);               \
		for (int64_t i = 0; i < n; i++)                            \
			D(&out[0])[i] = (expr);                            \
		return KRL_OK;                                             \
	}
BINARY_GOLDEN(add, x[i] + y[i])
BINARY_GOLDEN(sub, x[i] - y[i])
BINARY_GOLDEN(mul, x[i] * y[i])
BINARY_GOLDEN(div, x[i] / y[i])

/* Defines golden_NAME: y[i] = EXPR over double x, with the attribute
 * values bound by DECL. */
#define UNARY_GOLDEN(name, decl, expr)                                     \
	static krl_err golden_##name(const krl_tensor *in,                 \
	                             const krl_tensor *out,                \
	                             const krl_attrs *a)                   \
	{                                                                  \
		(void)a;                                                   \
		decl;                                                      \
		int64_t n = krl_tensor_numel(&in[0]);                      \
		const double *px = D(&in[0]);                              \
		double *py = D(&out[0]);                                   \
		for (int64_t i = 0; i < n; i++) {                          \
			double x = px[i];                                  \
			py[i] = (expr);                                    \
		}                                                          \
		return KRL_OK;                                             \
	}

static double clamp_nan(double x, double lo, double hi)
{
	if (isnan(x))
		return x;
	return x < lo ? lo : (x > hi ? hi : x);
}

UNARY_GOLDEN(leaky_relu,
             double slope = krl_attrs_get(a, "negative_slope", 0.01),
             x > 0 ? x : x * slope)
UNARY_GOLDEN(sigmoid, (void)0, 1.0 / (1.0 + exp(-x)))
UNARY_GOLDEN(tanh, (void)0, tanh(x))
UNARY_GOLDEN(elu, double alpha = krl_attrs_get(a, "alpha", 1.0),
             x > 0 ? x : alpha * expm1(x))
UNARY_GOLDEN(selu, (void)0,
             KRL_SELU_SCALE * (x > 0 ? x : KRL_SELU_ALPHA * expm1(x)))
UNARY_GOLDEN(hardsigmoid, (void)0, clamp_nan(x + 3.0, 0.0, 6.0) / 6.0)
UNARY_GOLDEN(softplus,
             double beta = krl_attrs_get(a, "beta", 1.0);
             double thr = krl_attrs_get(a, "threshold", 20.0),
             x * beta > thr ? x : log1p(exp(beta * x)) / beta)
UNARY_GOLDEN(hardtanh,
             double lo = krl_attrs_get(a, "min_val", -1.0);
             double hi = krl_attrs_get(a, "max_val", 1.0),
             clamp_nan(x, lo, hi))
/* x * tanh(softplus(x)), softplus linear above PyTorch's threshold 20
 * (where tanh is 1 in double anyway). */
UNARY_GOLDEN(mish, (void)0, x * tanh(x > 20.0 ? x : log1p(exp(x))))
/* pow(x, 0) is 1 even for NaN, as PyTorch's fill_(1); pow(x, 1) is x. */
UNARY_GOLDEN(pow_scalar, double e = krl_attrs_get(a, "exponent", 1.0),
             e == 1.0 ? x : pow(x, e))
UNARY_GOLDEN(abs, (void)0, fabs(x))
UNARY_GOLDEN(sqrt, (void)0, sqrt(x))
UNARY_GOLDEN(log, (void)0, log(x))
UNARY_GOLDEN(add_scalar, double al = krl_attrs_get(a, "alpha", 0), x + al)
UNARY_GOLDEN(rsub_scalar, double al = krl_attrs_get(a, "alpha", 0), al - x)
UNARY_GOLDEN(exp, (void)0, exp(x))
/* a true division by 6, NaN kept by the clamp */
UNARY_GOLDEN(hardswish, (void)0, x * clamp_nan(x + 3.0, 0.0, 6.0) / 6.0)
/* torch.minimum / maximum with a scalar: a NaN x is the result */
UNARY_GOLDEN(minimum_scalar, double v = krl_attrs_get(a, "value", 0),
             isnan(x) ? x : fmin(x, v))
UNARY_GOLDEN(maximum_scalar, double v = krl_attrs_get(a, "value", 0),
             isnan(x) ? x : fmax(x, v))

/* x * mask * scale, scale the float one of the GPU op: a dropped NaN or
 * inf is NaN, as in fused_dropout. */
GOLDEN(dropout_apply)
{
	int64_t n = krl_tensor_numel(&in[0]);
	double scale = krl_eltwise_dropout_scale(krl_attrs_get(a, "p", 0));
	for (int64_t i = 0; i < n; i++)
		D(&out[0])[i] = D(&in[0])[i] *
		                (D(&in[1])[i] != 0 ? 1.0 : 0.0) * scale;
	return KRL_OK;
}

/* NaN propagates, as torch.clamp_min does */
UNARY_GOLDEN(clamp_min, double lo = krl_attrs_get(a, "min", 0),
             isnan(x) ? x : fmax(x, lo))

/* torch.xlogy: NaN y propagates, else 0 where x == 0. */
static double xlogy(double x, double y)
{
	if (isnan(y))
		return y;
	return x == 0 ? 0.0 : x * log(y);
}
BINARY_GOLDEN(xlogy, xlogy(x[i], y[i]))

GOLDEN(smooth_l1)
{
	int64_t n = krl_tensor_numel(&in[0]);
	double beta = krl_attrs_get(a, "beta", 1);
	for (int64_t i = 0; i < n; i++) {
		double z = fabs(D(&in[0])[i] - D(&in[1])[i]);
		D(&out[0])[i] = z < beta ? 0.5 * z * z / beta : z - 0.5 * beta;
	}
	return KRL_OK;
}

/* ==== Broadcast ops: div_bcast (one way), mul_bcast (one or two way),
 * add_bcast, sub_bcast, minimum_bcast (two way) ==== */

/* The numpy broadcast of a and b (right-aligned; each pair of dims equal
 * or one of them 1) into *bc; 0 when they do not broadcast. */
static int broadcast_shape(const krl_tensor *a, const krl_tensor *b,
                           krl_tensor *bc)
{
	int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
	memset(bc, 0, sizeof *bc);
	bc->dtype = a->dtype;
	bc->ndim = nd;
	for (int i = 0; i < nd; i++) {
		int ia = a->ndim - nd + i, ib = b->ndim - nd + i;
		int64_t da = ia >= 0 ? a->dim[ia] : 1;
		int64_t db = ib >= 0 ? b->dim[ib] : 1;
		if (da != db && da != 1 && db != 1)
			return 0;
		bc->dim[i] = da == 1 ? db : da;
	}
	return 1;
}

/* a, b -> y, all f32. One way (two_way 0: div_bcast): b broadcasts to a
 * (rank of b at most a's, each dim of b equal to a's or 1) and y is
 * shaped like a. Two way (1): y has the broadcast shape of a and b.
 * Either (2: mul_bcast): one way when b broadcasts to a, else two way. */
/* Deliberate twin: the check prologue is the same shape as other ops' checks
 * (keys, dtypes, then shapes) by design; the shared steps are krl_ops_*
 * helpers, the names and messages are this op's own. */
static krl_err check_bcast(const char *op, int two_way, const krl_tensor *in,
                           const krl_tensor *out, const krl_attrs *a,
                           char *msg, size_t cap)
{
	const krl_tensor *ta = &in[0], *tb = &in[1];
	char s1[KRL_SHAPE_CAP], s2[KRL_SHAPE_CAP], s3[KRL_SHAPE_CAP];
	char s4[KRL_SHAPE_CAP];
	krl_tensor bc;
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_none, a, msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap,
				  "a", ta, "b", tb, "y", &out[0], NULL)))
		return r;
	/* mul_bcast (two_way 2): one way while b broadcasts to a, else two
	 * way (NetVLAD's a_sum [B, 1, K] * clusters2 [1, D, K]) */
	if (two_way == 2)
		two_way = broadcast_shape(ta, tb, &bc) &&
		          !krl_ops_same_shape(&bc, ta);
	if (two_way) {
		if (!broadcast_shape(ta, tb, &bc))
			return krl_ops_fail(msg, cap, "%s: a %s and b %s do not "
			            "broadcast (right-aligned, each pair of dims "
			            "equal or one of them 1)", op,
			            KRL_SHAPE(ta, s1), KRL_SHAPE(tb, s2));
		if (!krl_ops_same_shape(&bc, &out[0]))
			return krl_ops_fail(msg, cap, "%s: a %s and b %s broadcast "
			            "to %s, so y must be %s, not %s", op,
			            KRL_SHAPE(ta, s1), KRL_SHAPE(tb, s2),
			            KRL_SHAPE(&bc, s3), s3,
			            KRL_SHAPE(&out[0], s4));
		return KRL_OK;
	}
	int ok = tb->ndim <= ta->ndim && broadcast_shape(ta, tb, &bc) &&
	         krl_ops_same_shape(&bc, ta);
	if (!ok)
		return krl_ops_fail(msg, cap, "%s: b %s does not broadcast to a %s "
		            "(right-aligned, each dim of b equal to a's or 1)",
		            op, KRL_SHAPE(tb, s2), KRL_SHAPE(ta, s1));
	if (!krl_ops_same_shape(ta, &out[0]))
		return krl_ops_fail(msg, cap, "%s: a is %s but y is %s: y must be shaped "
		            "like a", op, KRL_SHAPE(ta, s1), KRL_SHAPE(&out[0], s2));
	return KRL_OK;
}

void krl_eltwise_bcast_strides(const krl_tensor *a, const krl_tensor *b,
                               int64_t *stride)
{
	int64_t s = 1;
	for (int i = a->ndim - 1; i >= 0; i--) {
		int j = i - (a->ndim - b->ndim);
		if (j < 0 || b->dim[j] == 1) {
			stride[i] = 0;
		} else {
			stride[i] = s;
			s *= b->dim[j];
		}
	}
}

/* copy allows any dtype (the same on both sides) and a reshape: y = x
 * element for element in row-major order. */
static krl_err check_copy(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP];
	krl_err r = krl_ops_check_keys("copy", k_none, a, msg, cap);
	if (r)
		return r;
	if (in[0].dtype != out[0].dtype)
		return krl_ops_fail(msg, cap, "copy: x is %s but y is %s: dtypes must "
		            "be equal", krl_dtype_name(in[0].dtype),
		            krl_dtype_name(out[0].dtype));
	if (krl_tensor_numel(&in[0]) != krl_tensor_numel(&out[0]))
		return krl_ops_fail(msg, cap, "copy: x is %s but y is %s: element "
		            "counts differ", KRL_SHAPE(&in[0], sx),
		            KRL_SHAPE(&out[0], sy));
	return KRL_OK;
}

/* The offset of y's element i in an operand with strides `stride` along
 * y's dims. */
static int64_t bcast_off(const krl_tensor *y, const int64_t *stride,
                         int64_t i)
{
	int64_t off = 0;
	for (int k = y->ndim - 1; k >= 0; k--) {
		off += (i % y->dim[k]) * stride[k];
		i /= y->dim[k];
	}
	return off;
}

/* torch.minimum: a NaN operand is the result. */
static double min_nan(double x, double y)
{
	if (isnan(x))
		return x;
	return isnan(y) ? y : fmin(x, y);
}

/* y = a op b with both broadcast to y's shape; op a krl_ew_op of the
 * five broadcast ones. */
static void bcast_golden(const krl_tensor *in, const krl_tensor *out,
                         krl_ew_op op)
{
	int64_t sa[KRL_MAX_DIM], sb[KRL_MAX_DIM];
	krl_eltwise_bcast_strides(&out[0], &in[0], sa);
	krl_eltwise_bcast_strides(&out[0], &in[1], sb);
	int64_t n = krl_tensor_numel(&out[0]);
	for (int64_t i = 0; i < n; i++) {
		double x = D(&in[0])[bcast_off(&out[0], sa, i)];
		double y = D(&in[1])[bcast_off(&out[0], sb, i)];
		double v;
		switch (op) {
		case KRL_EW_DIV: v = x / y; break;
		case KRL_EW_MUL: v = x * y; break;
		case KRL_EW_ADD: v = x + y; break;
		case KRL_EW_SUB: v = x - y; break;
		default: v = min_nan(x, y); break;
		}
		D(&out[0])[i] = v;
	}
}

/* check_NAME and golden_NAME of a broadcast op (two_way as check_bcast's:
 * 0 b to a, 1 both operands broadcast, 2 either). */
#define BCAST_OP(name, two_way, op)                                        \
	static krl_err check_##name(const krl_tensor *in,                  \
	                            const krl_tensor *out,                 \
	                            const krl_attrs *a, char *msg,         \
	                            size_t cap)                            \
	{                                                                  \
		return check_bcast(#name, two_way, in, out, a, msg, cap);  \
	}                                                                  \
	GOLDEN(name)                                                       \
	{                                                                  \
		(void)a;                                                   \
		bcast_golden(in, out, op);                                 \
		return KRL_OK;                                             \
	}
BCAST_OP(div_bcast, 0, KRL_EW_DIV)
BCAST_OP(mul_bcast, 2, KRL_EW_MUL)
BCAST_OP(add_bcast, 1, KRL_EW_ADD)
BCAST_OP(sub_bcast, 1, KRL_EW_SUB)
BCAST_OP(minimum_bcast, 1, KRL_EW_MIN)

/* ==== Masks: eq_scalar, masked_fill, bitwise_not ==== */

/* `value` of eq_scalar and masked_fill: required; a float or +-inf (the
 * kernels take it as a float, as PyTorch casts the Python scalar to the
 * float opmath type; NaN is refused: it compares equal to nothing and a
 * fill with it is not a level-3 need). */
static krl_err need_fill_value(const char *op, const krl_attrs *a,
                               char *msg, size_t cap)
{
	if (!krl_ops_attr_has(a, "value"))
		return krl_ops_fail(msg, cap, "%s: attribute value is required",
		            op);
	double v = krl_attrs_get(a, "value", 0);
	if (isnan(v) || (isfinite(v) && fabs(v) > FLT_MAX))
		return krl_ops_fail(msg, cap, "%s: value=%g must be a float or "
		            "+-inf", op, v);
	return KRL_OK;
}

/* The value as the kernels see it: rounded to float. */
static double fill_value(const krl_attrs *a)
{
	return (double)(float)krl_attrs_get(a, "value", 0);
}

/* eq_scalar: x (f32) -> y (bool), y = (x[:d0, :d1, ...] == value) with
 * d the dims of y: y is x's shape, or of x's rank with every dim at most
 * x's (the leading corner of x, as `t[:, :, :T, :T] == v` on a strided
 * slice). */
static krl_err check_eq_scalar(const krl_tensor *in, const krl_tensor *out,
                               const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "eq_scalar";
	const krl_tensor *x = &in[0], *y = &out[0];
	char s1[KRL_SHAPE_CAP], s2[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_value, a, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "x", x, KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "y", y, KRL_BOOL, msg, cap)) ||
	    (r = need_fill_value(op, a, msg, cap)))
		return r;
	int ok = x->ndim == y->ndim;
	for (int i = 0; ok && i < x->ndim; i++)
		ok = y->dim[i] <= x->dim[i];
	if (!ok)
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: y must be "
		            "x's shape or a leading slice of it (same rank, "
		            "each dim at most x's)", op, KRL_SHAPE(x, s1),
		            KRL_SHAPE(y, s2));
	return KRL_OK;
}

GOLDEN(eq_scalar)
{
	const krl_tensor *x = &in[0], *y = &out[0];
	double v = fill_value(a);
	int64_t n = krl_tensor_numel(y), xs[KRL_MAX_DIM], st = 1;
	for (int k = x->ndim - 1; k >= 0; k--) {
		xs[k] = st;
		st *= x->dim[k];
	}
	for (int64_t i = 0; i < n; i++)
		D(y)[i] = D(x)[bcast_off(y, xs, i)] == v ? 1.0 : 0.0;
	return KRL_OK;
}

/* masked_fill: x (f32), mask (bool, broadcast to x: right-aligned, rank
 * at most x's, each dim x's or 1) -> y (f32, x's shape; may be x),
 * y = mask ? value : x. */
static krl_err check_masked_fill(const krl_tensor *in, const krl_tensor *out,
                                 const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "masked_fill";
	const krl_tensor *x = &in[0], *m = &in[1], *y = &out[0];
	char s1[KRL_SHAPE_CAP], s2[KRL_SHAPE_CAP];
	krl_tensor bc;
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_value, a, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "x", x, KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "mask", m, KRL_BOOL, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "y", y, KRL_F32, msg, cap)) ||
	    (r = need_fill_value(op, a, msg, cap)))
		return r;
	if (!(m->ndim <= x->ndim && broadcast_shape(x, m, &bc) &&
	      krl_ops_same_shape(&bc, x)))
		return krl_ops_fail(msg, cap, "%s: mask %s does not broadcast to "
		            "x %s (right-aligned, each dim of mask equal to "
		            "x's or 1)", op, KRL_SHAPE(m, s2), KRL_SHAPE(x, s1));
	if (!krl_ops_same_shape(x, y))
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: y must be "
		            "shaped like x", op, KRL_SHAPE(x, s1),
		            KRL_SHAPE(y, s2));
	return KRL_OK;
}

GOLDEN(masked_fill)
{
	int64_t sm[KRL_MAX_DIM];
	krl_eltwise_bcast_strides(&in[0], &in[1], sm);
	double v = fill_value(a);
	int64_t n = krl_tensor_numel(&out[0]);
	for (int64_t i = 0; i < n; i++) {
		double m = D(&in[1])[bcast_off(&in[0], sm, i)];
		D(&out[0])[i] = m != 0 ? v : D(&in[0])[i];
	}
	return KRL_OK;
}

/* bitwise_not: x (bool) -> y (bool), same shape: ~x, logical not. */
static krl_err check_bitwise_not(const krl_tensor *in, const krl_tensor *out,
                                 const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "bitwise_not";
	char s1[KRL_SHAPE_CAP], s2[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_none, a, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "x", &in[0], KRL_BOOL, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "y", &out[0], KRL_BOOL, msg, cap)))
		return r;
	if (!krl_ops_same_shape(&in[0], &out[0]))
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: shapes must "
		            "be equal", op, KRL_SHAPE(&in[0], s1),
		            KRL_SHAPE(&out[0], s2));
	return KRL_OK;
}

GOLDEN(bitwise_not)
{
	(void)a;
	int64_t n = krl_tensor_numel(&out[0]);
	for (int64_t i = 0; i < n; i++)
		D(&out[0])[i] = D(&in[0])[i] != 0 ? 0.0 : 1.0;
	return KRL_OK;
}

/* ==== Table ==== */

/* Table rows: one declaration per op, the same shape by design (a row is
 * the op's name, arity, attribute keys, caps and doc; duplicates lists them
 * as twins, deliberately). */

#define EW_OP(nm, nin, keys, caps, dc) \
	KRL_OP(nm, nin, 1, keys, "eltwise", caps, NULL, dc)

EW_OP(relu, 1, k_none, KRL_OPCAP_LOWER, "y = max(x, 0)");
EW_OP(gelu, 1, k_gelu, KRL_OPCAP_LOWER, "y = 0.5 x (1 + erf(x / sqrt 2)); "
      "tanh=1: the tanh approximation");
EW_OP(add, 2, k_none, KRL_OPCAP_LOWER, "y = a + b (same shapes)");
EW_OP(sub, 2, k_none, KRL_OPCAP_LOWER, "y = a - b (same shapes)");
EW_OP(mul, 2, k_none, KRL_OPCAP_LOWER, "y = a * b (same shapes)");
EW_OP(div, 2, k_none, KRL_OPCAP_LOWER, "y = a / b (same shapes)");
EW_OP(square, 1, k_none, KRL_OPCAP_LOWER, "y = x * x");
EW_OP(scale, 1, k_alpha, KRL_OPCAP_LOWER, "y = alpha * x");
EW_OP(copy, 1, k_none, KRL_OPCAP_LOWER, "y = x (any dtype; y may be a "
      "reshape of x)");
EW_OP(leaky_relu, 1, k_leaky, KRL_OPCAP_LOWER, "y = x > 0 ? x : "
      "negative_slope * x (negative_slope 0.01)");
EW_OP(sigmoid, 1, k_none, KRL_OPCAP_LOWER, "y = 1 / (1 + exp(-x))");
EW_OP(tanh, 1, k_none, KRL_OPCAP_LOWER, "y = tanh(x)");
EW_OP(elu, 1, k_elu, KRL_OPCAP_LOWER, "y = x > 0 ? x : alpha * (exp(x) - 1) "
      "(alpha 1)");
EW_OP(selu, 1, k_none, KRL_OPCAP_LOWER, "y = scale * (x > 0 ? x : alpha * "
      "(exp(x) - 1)), alpha = 1.6732632423543772848, scale = "
      "1.0507009873554804934");
EW_OP(hardsigmoid, 1, k_none, KRL_OPCAP_LOWER, "y = min(max(x + 3, 0), 6) / "
      "6");
EW_OP(softplus, 1, k_softplus, KRL_OPCAP_LOWER, "y = beta x > threshold ? x "
      ": log(1 + exp(beta x)) / beta (beta 1, threshold 20)");
EW_OP(hardtanh, 1, k_hardtanh, KRL_OPCAP_LOWER, "y = min(max(x, min_val), "
      "max_val), NaN kept (min_val -1, max_val 1)");
EW_OP(pow_scalar, 1, k_pow, KRL_OPCAP_LOWER, "y = x ** exponent (x*x for 2, "
      "x*x*x for 3, sqrt for 0.5, as torch.pow)");
EW_OP(mish, 1, k_none, KRL_OPCAP_LOWER, "y = x * tanh(softplus(x)), "
      "softplus linear above 20 (F.mish)");
EW_OP(abs, 1, k_none, KRL_OPCAP_LOWER, "y = |x|");
EW_OP(sqrt, 1, k_none, KRL_OPCAP_LOWER, "y = sqrt(x)");
EW_OP(log, 1, k_none, KRL_OPCAP_LOWER, "y = log(x)");
EW_OP(add_scalar, 1, k_alpha, KRL_OPCAP_LOWER, "y = x + alpha");
EW_OP(rsub_scalar, 1, k_alpha, KRL_OPCAP_LOWER, "y = alpha - x");
EW_OP(clamp_min, 1, k_min, KRL_OPCAP_LOWER, "y = max(x, min) (NaN "
      "propagates)");
EW_OP(xlogy, 2, k_none, KRL_OPCAP_LOWER, "y = a * log(b), 0 where a == 0 "
      "(torch.xlogy)");
EW_OP(smooth_l1, 2, k_beta, KRL_OPCAP_LOWER, "y = 0.5 (a-b)^2 / beta where "
      "|a-b| < beta, else |a-b| - 0.5 beta (beta 1; smooth_l1_loss "
      "unreduced)");
EW_OP(div_bcast, 2, k_none, KRL_OPCAP_LOWER, "y = a / b, b broadcast to a");
EW_OP(mul_bcast, 2, k_none, KRL_OPCAP_LOWER, "y = a * b, b broadcast to a, "
      "or both broadcast as add_bcast");
EW_OP(add_bcast, 2, k_none, KRL_OPCAP_LOWER, "y = a + b, both broadcast "
      "numpy-style (right-aligned, dims equal or 1, [] ok); y has the "
      "broadcast shape");
EW_OP(sub_bcast, 2, k_none, KRL_OPCAP_LOWER, "y = a - b, both broadcast "
      "as add_bcast");
EW_OP(minimum_bcast, 2, k_none, KRL_OPCAP_LOWER, "y = torch.minimum(a, "
      "b), both broadcast as add_bcast, NaN propagates");
EW_OP(minimum_scalar, 1, k_value, KRL_OPCAP_LOWER, "y = min(x, value), "
      "NaN propagates (torch.min with a scalar tensor)");
EW_OP(maximum_scalar, 1, k_value, KRL_OPCAP_LOWER, "y = max(x, value), "
      "NaN propagates");
EW_OP(hardswish, 1, k_none, KRL_OPCAP_LOWER, "y = x * min(max(x + 3, 0), "
      "6) / 6 (F.hardswish)");
EW_OP(exp, 1, k_none, KRL_OPCAP_LOWER, "y = exp(x)");
EW_OP(dropout_apply, 2, k_p, KRL_OPCAP_LOWER, "y = x * mask / (1 - p) "
      "(mask bool, x's shape, drawn bernoulli(1 - p); scale rounded to "
      "float, as F.dropout in training)");
EW_OP(eq_scalar, 1, k_value, KRL_OPCAP_LOWER, "y (bool) = x == value "
      "(value a float or +-inf); y x's shape or, same rank, a leading "
      "slice of it: y = x[:d0, :d1, ...] == value, d y's dims");
EW_OP(masked_fill, 2, k_value, KRL_OPCAP_LOWER, "y = mask ? value : x "
      "(x f32, mask bool broadcast to x right-aligned, value a float or "
      "+-inf such as -inf; y may be x: Tensor.masked_fill_)");
EW_OP(bitwise_not, 1, k_none, KRL_OPCAP_LIBRARY, "y = ~x on bool (logical "
      "not), x and y bool of one shape");

static const krl_op *const ops[] = {
	&op_relu, &op_gelu, &op_add, &op_sub, &op_mul, &op_div, &op_square,
	&op_scale, &op_copy, &op_leaky_relu, &op_sigmoid, &op_tanh, &op_elu,
	&op_selu, &op_hardsigmoid, &op_softplus, &op_hardtanh, &op_pow_scalar,
	&op_mish, &op_abs, &op_sqrt, &op_log, &op_add_scalar, &op_rsub_scalar,
	&op_clamp_min, &op_xlogy, &op_smooth_l1, &op_div_bcast, &op_mul_bcast,
	&op_add_bcast, &op_sub_bcast, &op_minimum_bcast, &op_minimum_scalar,
	&op_maximum_scalar, &op_hardswish, &op_exp, &op_dropout_apply,
	&op_eq_scalar, &op_masked_fill, &op_bitwise_not, NULL,
};

const krl_op_family krl_family_eltwise = { "eltwise", ops, NULL };
