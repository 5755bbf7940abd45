/*
 * kernelrl: the op family "eltwise" (src/ops/ops_int.h, "Op families";
 * docs/ops-eltwise.md): unary activations and scalar elementwise ops, each
 * one PyTorch eager kernel.
 *
 * This file holds every op's shape check, its float64 golden version and
 * the table krl_ops_eltwise[]. It is CPU-only: the fuzzers compile it with
 * -DKRL_OPS_NO_GPU, so the GPU drivers (run_eltwise.c) appear only through
 * KRL_RUNFN. Golden versions compute the exact math function in double on
 * the (f32-rounded) inputs, with PyTorch's branch structure (softplus's
 * linear region, NaN passing through clamps) so that GPU results differ
 * from them by rounding only.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ops/eltwise/eltwise.h"
#include "ops/ops_int.h"

#define D(t) ((double *)(t)->data)

/* ==== Check helpers ==== */

static int attr_has(const krl_attrs *a, const char *key)
{
	return !isnan(krl_attrs_get(a, key, NAN));
}

/* An optional attribute (required when `required`) that the GPU op uses
 * as a float: it must be finite as a float. */
static krl_err need_float(const char *op, const krl_attrs *a,
                          const char *key, int required, char *msg,
                          size_t cap)
{
	if (!attr_has(a, key)) {
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

/* x -> y, both f32, same shape, attribute keys from `keys`. */
static krl_err check_unary(const char *op, const char *const *keys,
                           const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a, char *msg, size_t cap)
{
	char sx[160], sy[160];
	krl_err r = krl_ops_check_keys(op, keys, a, msg, cap);
	if (r)
		return r;
	if (in[0].dtype != KRL_F32)
		return krl_ops_fail(msg, cap, "%s: x must be f32, not %s", op,
		            krl_dtype_name(in[0].dtype));
	if (out[0].dtype != KRL_F32)
		return krl_ops_fail(msg, cap, "%s: y must be f32, not %s", op,
		            krl_dtype_name(out[0].dtype));
	if (!krl_ops_same_shape(&in[0], &out[0]))
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: shapes must be "
		            "equal", op, KRL_SHAPE(&in[0], sx), KRL_SHAPE(&out[0], sy));
	return KRL_OK;
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
		return check_unary(#name, k_none, in, out, a, msg, cap);   \
	}
PLAIN_CHECK(sigmoid)
PLAIN_CHECK(tanh)
PLAIN_CHECK(selu)
PLAIN_CHECK(hardsigmoid)

static krl_err check_leaky_relu(const krl_tensor *in, const krl_tensor *out,
                                const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = check_unary("leaky_relu", k_leaky, in, out, a, msg, cap);
	return r ? r : need_float("leaky_relu", a, "negative_slope", 0, msg,
	                          cap);
}

static krl_err check_elu(const krl_tensor *in, const krl_tensor *out,
                         const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = check_unary("elu", k_elu, in, out, a, msg, cap);
	return r ? r : need_float("elu", a, "alpha", 0, msg, cap);
}

static krl_err check_softplus(const krl_tensor *in, const krl_tensor *out,
                              const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "softplus";
	krl_err r;
	if ((r = check_unary(op, k_softplus, in, out, a, msg, cap)) ||
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
	if ((r = check_unary(op, k_hardtanh, in, out, a, msg, cap)) ||
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
	krl_err r = check_unary("pow_scalar", k_pow, in, out, a, msg, cap);
	return r ? r : need_float("pow_scalar", a, "exponent", 1, msg, cap);
}

/* ==== Golden versions ==== */

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
/* pow(x, 0) is 1 even for NaN, as PyTorch's fill_(1); pow(x, 1) is x. */
UNARY_GOLDEN(pow_scalar, double e = krl_attrs_get(a, "exponent", 1.0),
             e == 1.0 ? x : pow(x, e))

/* ==== Table ==== */

#define OP(nm, keys, dc)                                                   \
	static const krl_op op_##nm = { #nm, 1, 1, keys, dc, check_##nm,   \
	                                KRL_RUNFN(krl_run_##nm),           \
	                                golden_##nm, NULL, "eltwise",      \
	                                KRL_OPCAP_LOWER }

OP(leaky_relu, k_leaky, "y = x > 0 ? x : negative_slope * x "
   "(negative_slope 0.01)");
OP(sigmoid, k_none, "y = 1 / (1 + exp(-x))");
OP(tanh, k_none, "y = tanh(x)");
OP(elu, k_elu, "y = x > 0 ? x : alpha * (exp(x) - 1) (alpha 1)");
OP(selu, k_none, "y = scale * (x > 0 ? x : alpha * (exp(x) - 1)), alpha = "
   "1.6732632423543772848, scale = 1.0507009873554804934");
OP(hardsigmoid, k_none, "y = min(max(x + 3, 0), 6) / 6");
OP(softplus, k_softplus, "y = beta x > threshold ? x : log(1 + exp(beta x)) "
   "/ beta (beta 1, threshold 20)");
OP(hardtanh, k_hardtanh, "y = min(max(x, min_val), max_val), NaN kept "
   "(min_val -1, max_val 1)");
OP(pow_scalar, k_pow, "y = x ** exponent (x*x for 2, x*x*x for 3, sqrt for "
   "0.5, as torch.pow)");

const krl_op *const krl_ops_eltwise[] = {
	&op_leaky_relu, &op_sigmoid, &op_tanh, &op_elu, &op_selu,
	&op_hardsigmoid, &op_softplus, &op_hardtanh, &op_pow_scalar, NULL,
};
