/*
 * Tests of the op family "eltwise" that need no GPU: every op's float64
 * golden version against values worked out from the closed forms (sigmoid(0)
 * = 1/2, selu(1) = scale, softplus's linear region, pow's special
 * exponents, xlogy's zero and NaN cases, smooth_l1's two branches, b
 * broadcast along rows, columns and as a scalar, NaN passing through; both
 * operands broadcast for add/sub/minimum_bcast, ranks differing and 0-dim
 * operands; hardswish's three pieces, exp, minimum/maximum with a scalar
 * keeping NaN, dropout_apply's float scale and its NaN where a dropped x is
 * not finite; eq_scalar on a whole tensor and on a leading slice with the
 * value rounded to float, masked_fill with a broadcast mask, -inf and in
 * place, bitwise_not), and every check accepting good calls and rejecting bad ones
 * with the sentence asserted.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "krl/ops.h"
#include "optest.h"
#include "testutil.h"

/* ==== Helpers ==== */

/* n key/value pairs (const char *, double). */
static krl_attrs A(int n, ...)
{
	krl_attrs a;
	memset(&a, 0, sizeof a);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		a.key[i] = va_arg(ap, const char *);
		a.val[i] = va_arg(ap, double);
	}
	va_end(ap);
	a.n = n;
	return a;
}

/* Runs op `name`'s check and golden on x[n] (a [n] tensor) and compares
 * with want[n]: within tol, and NaN exactly where want is NaN. */
static void expect(const char *name, krl_attrs a, const double *x,
                   const double *want, int n, double tol)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	double in[16], out[16];
	assert_true(n <= 16);
	memcpy(in, x, (size_t)n * sizeof(double));
	for (int i = 0; i < n; i++)
		out[i] = -12345.0;
	krl_tensor ti = optest_tensor(in, 1, I(n)), to = optest_tensor(out, 1, I(n));
	char msg[512] = "";
	krl_err r = op->check(&ti, &to, &a, msg, sizeof msg);
	if (r)
		fprintf(stderr, "%s: check failed: %s\n", name, msg);
	assert_int_equal(r, KRL_OK);
	assert_int_equal(op->golden(&ti, &to, &a), KRL_OK);
	for (int i = 0; i < n; i++) {
		int ok = isnan(want[i]) ? isnan(out[i])
		                        : fabs(out[i] - want[i]) <= tol;
		if (!ok)
			fprintf(stderr, "%s: element %d (x = %.17g): got %.17g, "
			        "want %.17g\n", name, i, x[i], out[i], want[i]);
		assert_true(ok);
	}
}

/* check() must fail with a message containing `want`. */
static void rejects(const char *name, const krl_tensor *in,
                    const krl_tensor *out, krl_attrs a, const char *want)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	char msg[512] = "";
	krl_err r = op->check(in, out, &a, msg, sizeof msg);
	if (r != KRL_EINVAL || !strstr(msg, want))
		fprintf(stderr, "%s: expected rejection with \"%s\", got %d "
		        "\"%s\"\n", name, want, r, msg);
	assert_int_equal(r, KRL_EINVAL);
	assert_non_null(strstr(msg, want));
}

static void accepts(const char *name, const krl_tensor *in,
                    const krl_tensor *out, krl_attrs a)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	char msg[512] = "";
	krl_err r = op->check(in, out, &a, msg, sizeof msg);
	if (r)
		fprintf(stderr, "%s: unexpected rejection: %s\n", name, msg);
	assert_int_equal(r, KRL_OK);
}

#define N(arr) ((int)(sizeof(arr) / sizeof((arr)[0])))

/* The family's activations: one input, same shape, checked alike below. */
static const char *const g_ops[] = {
	"leaky_relu", "sigmoid", "tanh", "elu", "selu", "hardsigmoid",
	"softplus", "hardtanh", "pow_scalar", "mish",
};

/* Every op of the family, with its number of inputs. */
static const struct { const char *name; int nin; } g_all[] = {
	{ "relu", 1 }, { "gelu", 1 }, { "add", 2 }, { "sub", 2 },
	{ "mul", 2 }, { "div", 2 }, { "square", 1 }, { "scale", 1 },
	{ "copy", 1 }, { "leaky_relu", 1 }, { "sigmoid", 1 }, { "tanh", 1 },
	{ "elu", 1 }, { "selu", 1 }, { "hardsigmoid", 1 }, { "softplus", 1 },
	{ "hardtanh", 1 }, { "pow_scalar", 1 }, { "mish", 1 }, { "abs", 1 },
	{ "sqrt", 1 }, { "log", 1 }, { "add_scalar", 1 },
	{ "rsub_scalar", 1 }, { "clamp_min", 1 }, { "xlogy", 2 },
	{ "smooth_l1", 2 }, { "div_bcast", 2 }, { "mul_bcast", 2 },
	{ "add_bcast", 2 }, { "sub_bcast", 2 }, { "minimum_bcast", 2 },
	{ "minimum_scalar", 1 }, { "maximum_scalar", 1 }, { "hardswish", 1 },
	{ "exp", 1 }, { "dropout_apply", 2 }, { "eq_scalar", 1 },
	{ "masked_fill", 2 }, { "bitwise_not", 1 },
};

/* The family's ops the optimizer keeps whole (KRL_OPCAP_LIBRARY); the
 * others lower (masked_fill as a where over its bool mask, eq_scalar as a
 * bool comparison where y is x's shape, else its call): bitwise_not (bool
 * to bool) has no lowering yet. */
static const char *const g_library[] = { "bitwise_not" };

/* ==== Registry ==== */

static void test_registry(void **state)
{
	(void)state;
	for (int i = 0; i < N(g_ops); i++) {
		const krl_op *op = krl_op_find(g_ops[i]);
		assert_non_null(op);
		assert_string_equal(op->name, g_ops[i]);
		assert_int_equal(op->nin, 1);
		assert_int_equal(op->nout, 1);
		assert_non_null(op->check);
		assert_non_null(op->run);
		assert_non_null(op->golden);
		assert_non_null(op->doc);
		assert_non_null(op->attr_names);
	}
	/* every op of the family is registered in it, lowerable */
	for (int i = 0; i < N(g_all); i++) {
		const krl_op *op = krl_op_find(g_all[i].name);
		if (!op)
			fprintf(stderr, "%s: not registered\n", g_all[i].name);
		assert_non_null(op);
		assert_string_equal(op->family, "eltwise");
		assert_int_equal(op->nin, g_all[i].nin);
		assert_int_equal(op->nout, 1);
		assert_non_null(op->check);
		assert_non_null(op->golden);
		assert_non_null(op->run);
		int want = KRL_OPCAP_LOWER;
		for (int k = 0; k < N(g_library); k++)
			if (g_library[k] && strcmp(op->name, g_library[k]) == 0)
				want = KRL_OPCAP_LIBRARY;
		assert_int_equal(op->caps & (KRL_OPCAP_LOWER | KRL_OPCAP_LIBRARY),
		                 want);
	}
}

/* ==== Golden values ==== */

static void test_leaky_relu(void **state)
{
	(void)state;
	double x[] = { -2, -0.5, 0, 3, NAN, -0.0 };
	double w[] = { -0.02, -0.005, 0, 3, NAN, 0 };
	expect("leaky_relu", A(1, "negative_slope", 0.01), x, w, N(x), 1e-17);
	/* default slope 0.01; another slope */
	expect("leaky_relu", A(0), x, w, N(x), 1e-17);
	double w2[] = { -0.4, -0.1, 0, 3, NAN, 0 };
	expect("leaky_relu", A(1, "negative_slope", 0.2), x, w2, N(x), 1e-16);
}

static void test_sigmoid(void **state)
{
	(void)state;
	double x[] = { 0, 1, -1, 2, -800, 800, NAN };
	/* 1 / (1 + e^-1), 1 / (1 + e), 1 / (1 + e^-2) */
	double w[] = { 0.5, 0.7310585786300049, 0.2689414213699951,
	               0.8807970779778823, 0, 1, NAN };
	expect("sigmoid", A(0), x, w, N(x), 1e-15);
}

static void test_tanh(void **state)
{
	(void)state;
	double x[] = { 0, 0.5, -1, 3, 50, NAN };
	double w[] = { 0, 0.46211715726000974, -0.7615941559557649,
	               0.9950547536867305, 1, NAN };
	expect("tanh", A(0), x, w, N(x), 1e-15);
}

static void test_elu_selu(void **state)
{
	(void)state;
	double x[] = { -1, 0, 2, -2, NAN };
	/* e^-1 - 1; alpha 0.5: 0.5 (e^-2 - 1) */
	double w[] = { -0.6321205588285577, 0, 2, -0.8646647167633873, NAN };
	expect("elu", A(0), x, w, N(x), 1e-15);
	expect("elu", A(1, "alpha", 1.0), x, w, N(x), 1e-15);
	double w5[] = { -0.31606027941427884, 0, 2, -0.43233235838169365,
	                NAN };
	expect("elu", A(1, "alpha", 0.5), x, w5, N(x), 1e-15);

	double xs[] = { 1, 0, -1, 2.5, -0.5, -50, NAN };
	/* scale, 0, scale * alpha * (e^-1 - 1), 2.5 scale,
	 * scale * alpha * (e^-0.5 - 1), -scale * alpha */
	double ws[] = { 1.0507009873554805, 0, -1.1113307378125625,
	                2.626752468388701, -0.6917581878028713,
	                -1.7580993408473766, NAN };
	expect("selu", A(0), xs, ws, N(xs), 1e-15);
}

static void test_hardsigmoid(void **state)
{
	(void)state;
	double x[] = { -4, -3, 0, 1.5, 3, 5, -1.5, NAN };
	double w[] = { 0, 0, 0.5, 0.75, 1, 1, 0.25, NAN };
	expect("hardsigmoid", A(0), x, w, N(x), 1e-16);
}

static void test_softplus(void **state)
{
	(void)state;
	/* ln 2; above the threshold: x itself; at it (20 > 20 is false):
	 * log1p(e^20); log1p(e^-1) */
	double x[] = { 0, 30, 20, -1, NAN };
	double w[] = { 0.6931471805599453, 30, 20.000000002061153,
	               0.31326168751822286, NAN };
	expect("softplus", A(0), x, w, N(x), 1e-14);
	expect("softplus", A(2, "beta", 1.0, "threshold", 20.0), x, w, N(x),
	       1e-14);
	/* beta 2: log1p(e^2) / 2; beta 2, threshold 1: 2 * 1 > 1, linear */
	double x2[] = { 1 };
	double w2[] = { 1.0634640055214863 };
	expect("softplus", A(1, "beta", 2.0), x2, w2, 1, 1e-15);
	double w3[] = { 1 };
	expect("softplus", A(2, "beta", 2.0, "threshold", 1.0), x2, w3, 1,
	       0);
}

/* mish(x) = x tanh(log(1 + e^x)) = x ((1 + e^x)^2 - 1) / ((1 + e^x)^2 + 1),
 * the values below from the second form; above softplus's threshold 20 it
 * is x; far below zero x tanh(e^x) ~ x e^x (-30 e^-30). */
static void test_mish(void **state)
{
	(void)state;
	double x[] = { 0, 1, -1, 2.5, -3, 30, -30, NAN };
	double w[] = { 0, 0.8650983882673103, -0.30340146137410895,
	               2.4713923045578814, -0.1456474612756242, 30,
	               -2.8072868906520526e-12, NAN };
	expect("mish", A(0), x, w, N(x), 1e-15);
	const krl_op *op = krl_op_find("mish");
	assert_string_equal(op->family, "eltwise");
	/* the optimizer lowers it (src/opt/lower.c) */
	assert_true(op->caps & KRL_OPCAP_LOWER);
	assert_false(op->caps & KRL_OPCAP_LIBRARY);
}

static void test_hardtanh(void **state)
{
	(void)state;
	double x[] = { -2, -0.5, 0.5, 2, -1, 1, NAN };
	double w[] = { -1, -0.5, 0.5, 1, -1, 1, NAN };
	expect("hardtanh", A(0), x, w, N(x), 0);
	expect("hardtanh", A(2, "min_val", -1.0, "max_val", 1.0), x, w, N(x),
	       0);
	/* ReLU6 */
	double x6[] = { -3, 3, 7, NAN };
	double w6[] = { 0, 3, 6, NAN };
	expect("hardtanh", A(2, "min_val", 0.0, "max_val", 6.0), x6, w6,
	       N(x6), 0);
}

/* abs and add_scalar as the softsign and new-GELU plans use them. */
static void test_abs_add_scalar(void **state)
{
	(void)state;
	double x[] = { -2.5, 0, 3, -0.0, NAN };
	double w[] = { 2.5, 0, 3, 0, NAN };
	expect("abs", A(0), x, w, N(x), 0);
	double xa[] = { -1, 0.5, NAN };
	double wa[] = { 0, 1.5, NAN };
	expect("add_scalar", A(1, "alpha", 1.0), xa, wa, N(xa), 0);
	double wb[] = { -3.5, -2, NAN };
	expect("add_scalar", A(1, "alpha", -2.5), xa, wb, N(xa), 0);
}

static void test_pow_scalar(void **state)
{
	(void)state;
	double x3[] = { 2, -1.5, 0, NAN };
	double w3[] = { 8, -3.375, 0, NAN };
	expect("pow_scalar", A(1, "exponent", 3.0), x3, w3, N(x3), 0);
	double x2[] = { -3, 0.5 };
	double w2[] = { 9, 0.25 };
	expect("pow_scalar", A(1, "exponent", 2.0), x2, w2, N(x2), 0);
	double xh[] = { 4, 2.25, -1 };
	double wh[] = { 2, 1.5, NAN };
	expect("pow_scalar", A(1, "exponent", 0.5), xh, wh, N(xh), 0);
	double wr[] = { 0.25, 1 / 2.25, -1 };
	expect("pow_scalar", A(1, "exponent", -1.0), xh, wr, N(xh), 1e-16);
	double wm2[] = { 1.0 / 16, 1 / (2.25 * 2.25), 1 };
	expect("pow_scalar", A(1, "exponent", -2.0), xh, wm2, N(xh), 1e-16);
	/* pow(x, 0) is 1 even for NaN (PyTorch fills ones); pow(x, 1) is x */
	double x0[] = { 5, NAN, 0 };
	double w0[] = { 1, 1, 1 };
	expect("pow_scalar", A(1, "exponent", 0.0), x0, w0, N(x0), 0);
	double w1[] = { 5, NAN, 0 };
	expect("pow_scalar", A(1, "exponent", 1.0), x0, w1, N(x0), 0);
	double xg[] = { 4 };
	double wg[] = { 32 };
	expect("pow_scalar", A(1, "exponent", 2.5), xg, wg, 1, 1e-13);
}

/* ==== abs, sqrt, log, the scalar ops, xlogy, smooth_l1 ==== */

static void test_scalar_elementwise(void **state)
{
	(void)state;
	double x[] = { -2, 4, M_E, NAN }, y[4];
	krl_tensor in = optest_tensor(x, 1, I(4)), out = optest_tensor(y, 1, I(4));
	krl_attrs none = optest_attrs(0);
	optest_golden("abs", &in, &out, &none);
	optest_near(y, (double[]){ 2, 4, M_E }, 3, 0);
	optest_golden("sqrt", &in, &out, &none);
	assert_true(isnan(y[0]));
	optest_near(y + 1, (double[]){ 2 }, 1, 1e-15);
	optest_golden("log", &in, &out, &none);
	optest_near(y + 2, (double[]){ 1 }, 1, 1e-15);
	krl_attrs al = optest_attrs(1, "alpha", 0.5);
	optest_golden("add_scalar", &in, &out, &al);
	optest_near(y, (double[]){ -1.5, 4.5 }, 2, 0);
	optest_golden("rsub_scalar", &in, &out, &al);
	optest_near(y, (double[]){ 2.5, -3.5 }, 2, 0);
	krl_attrs mn = optest_attrs(1, "min", 0.0);
	optest_golden("clamp_min", &in, &out, &mn);
	optest_near(y, (double[]){ 0, 4, M_E }, 3, 0);
	assert_true(isnan(y[3]));

	rejects("add_scalar", &in, &out, none, "alpha is required");
	krl_attrs inf = optest_attrs(1, "alpha", INFINITY);
	rejects("rsub_scalar", &in, &out, inf, "finite");
	krl_tensor o3 = optest_tensor(y, 1, I(3));
	rejects("abs", &in, &o3, none, "shapes must be equal");
	krl_tensor i64 = in;
	i64.dtype = KRL_I64;
	rejects("sqrt", &i64, &out, none, "x must be f32, not i64");
}

static void test_binary(void **state)
{
	(void)state;
	double a[] = { 0, 2, 1, 0 }, b[] = { 0, M_E, NAN, 5 }, y[4];
	krl_tensor in[2] = { optest_tensor(a, 1, I(4)), optest_tensor(b, 1, I(4)) };
	krl_tensor out = optest_tensor(y, 1, I(4));
	krl_attrs none = optest_attrs(0);
	optest_golden("xlogy", in, &out, &none);
	optest_near(y, (double[]){ 0, 2 }, 2, 1e-15);
	assert_true(isnan(y[2]));
	optest_near(y + 3, (double[]){ 0 }, 1, 0);

	/* |a - b| = 0.5, 3, 1, 1.5 */
	double p[] = { 0, 0, 1, 2 }, t[] = { 0.5, 3, 0, 0.5 };
	krl_tensor pt[2] = { optest_tensor(p, 1, I(4)), optest_tensor(t, 1, I(4)) };
	krl_attrs b1 = optest_attrs(1, "beta", 1.0);
	optest_golden("smooth_l1", pt, &out, &b1);
	optest_near(y, (double[]){ 0.125, 2.5, 0.5, 1.0 }, 4, 1e-15);
	krl_attrs b2 = optest_attrs(1, "beta", 2.0);
	optest_golden("smooth_l1", pt, &out, &b2);
	optest_near(y, (double[]){ 0.0625, 2.0, 0.25, 0.5625 }, 4, 1e-15);
	optest_golden("smooth_l1", pt, &out, &none); /* beta defaults to 1 */
	optest_near(y, (double[]){ 0.125, 2.5, 0.5, 1.0 }, 4, 1e-15);
	krl_attrs bn = optest_attrs(1, "beta", -1.0);
	rejects("smooth_l1", pt, &out, bn, "beta=-1");
	krl_tensor short_[2] = { optest_tensor(p, 1, I(4)), optest_tensor(t, 1, I(3)) };
	rejects("xlogy", short_, &out, none, "shapes must be equal");
}

static void test_broadcast(void **state)
{
	(void)state;
	double a[] = { 1, 2, 3, 4, 5, 6 }, y[6];
	krl_attrs none = optest_attrs(0);
	krl_tensor out = optest_tensor(y, 2, I(2), I(3));
	/* b [3] along the last dim */
	double b3[] = { 1, 2, 4 };
	krl_tensor r3[2] = { optest_tensor(a, 2, I(2), I(3)), optest_tensor(b3, 1, I(3)) };
	optest_golden("div_bcast", r3, &out, &none);
	optest_near(y, (double[]){ 1, 1, 0.75, 4, 2.5, 1.5 }, 6, 1e-15);
	optest_golden("mul_bcast", r3, &out, &none);
	optest_near(y, (double[]){ 1, 4, 12, 4, 10, 24 }, 6, 0);
	/* b [2, 1]: one value per row */
	double b21[] = { 2, -1 };
	krl_tensor c21[2] = { optest_tensor(a, 2, I(2), I(3)), optest_tensor(b21, 2, I(2), I(1)) };
	optest_golden("div_bcast", c21, &out, &none);
	optest_near(y, (double[]){ 0.5, 1, 1.5, -4, -5, -6 }, 6, 0);
	/* b [1, 3] and b [] */
	krl_tensor c13[2] = { optest_tensor(a, 2, I(2), I(3)), optest_tensor(b3, 2, I(1), I(3)) };
	optest_golden("mul_bcast", c13, &out, &none);
	optest_near(y, (double[]){ 1, 4, 12, 4, 10, 24 }, 6, 0);
	double two[] = { 2 };
	krl_tensor cs[2] = { optest_tensor(a, 2, I(2), I(3)), optest_tensor(two, 0) };
	optest_golden("div_bcast", cs, &out, &none);
	optest_near(y, (double[]){ 0.5, 1, 1.5, 2, 2.5, 3 }, 6, 0);
	/* b equal to a */
	krl_tensor eq[2] = { optest_tensor(a, 2, I(2), I(3)), optest_tensor(a, 2, I(2), I(3)) };
	optest_golden("div_bcast", eq, &out, &none);
	optest_near(y, (double[]){ 1, 1, 1, 1, 1, 1 }, 6, 0);

	krl_tensor bad[2] = { optest_tensor(a, 2, I(2), I(3)), optest_tensor(b21, 1, I(2)) };
	rejects("div_bcast", bad, &out, none, "does not broadcast");
	krl_tensor big[2] = { optest_tensor(a, 1, I(6)), optest_tensor(a, 2, I(1), I(6)) };
	krl_tensor o6 = optest_tensor(y, 1, I(6));
	rejects("div_bcast", big, &o6, none, "does not broadcast");
	/* mul_bcast broadcasts both ways where b does not fit a */
	rejects("mul_bcast", big, &o6, none, "mul_bcast: a [6] and b [1, 6] "
	        "broadcast to [1, 6], so y must be [1, 6], not [6]");
	double c2[] = { 10, 20, 30 };
	krl_tensor two_way[2] = { optest_tensor(b21, 3, I(2), I(1), I(1)),
	                          optest_tensor(c2, 3, I(1), I(3), I(1)) };
	krl_tensor o231 = optest_tensor(y, 3, I(2), I(3), I(1));
	optest_golden("mul_bcast", two_way, &o231, &none);
	optest_near(y, (double[]){ 20, 40, 60, -10, -20, -30 }, 6, 0);
	krl_tensor o6x = optest_tensor(y, 1, I(6));
	krl_tensor nob[2] = { optest_tensor(a, 2, I(2), I(3)),
	                      optest_tensor(b21, 2, I(1), I(2)) };
	rejects("mul_bcast", nob, &o6x, none, "does not broadcast");
	krl_tensor o32 = optest_tensor(y, 2, I(3), I(2));
	rejects("mul_bcast", r3, &o32, none, "shaped like a");
}

/* add_bcast, sub_bcast, minimum_bcast: both operands broadcast. */
static void test_broadcast_two_way(void **state)
{
	(void)state;
	krl_attrs none = optest_attrs(0);
	double y[12];
	/* a [2, 1] + b [3] -> [2, 3]: a along rows, b along columns */
	double a21[] = { 1, 2 }, b3[] = { 10, 20, 30 };
	krl_tensor ab[2] = { optest_tensor(a21, 2, I(2), I(1)),
	                     optest_tensor(b3, 1, I(3)) };
	krl_tensor o23 = optest_tensor(y, 2, I(2), I(3));
	optest_golden("add_bcast", ab, &o23, &none);
	optest_near(y, (double[]){ 11, 21, 31, 12, 22, 32 }, 6, 0);
	/* b [3] - a [2, 1]: the full-rank operand second */
	krl_tensor ba[2] = { optest_tensor(b3, 1, I(3)),
	                     optest_tensor(a21, 2, I(2), I(1)) };
	optest_golden("sub_bcast", ba, &o23, &none);
	optest_near(y, (double[]){ 9, 19, 29, 8, 18, 28 }, 6, 0);
	/* a [2, 1, 2] + b [3, 1] -> [2, 3, 2] */
	double a212[] = { 1, 2, 3, 4 }, b31[] = { 0, 10, 20 };
	krl_tensor c3[2] = { optest_tensor(a212, 3, I(2), I(1), I(2)),
	                     optest_tensor(b31, 2, I(3), I(1)) };
	krl_tensor o232 = optest_tensor(y, 3, I(2), I(3), I(2));
	optest_golden("add_bcast", c3, &o232, &none);
	optest_near(y, (double[]){ 1, 2, 11, 12, 21, 22, 3, 4, 13, 14, 23, 24 },
	            12, 0);
	/* 0-dim operands: [] - [2], and [] - [] -> [] */
	double five[] = { 5 }, b2[] = { 1, 2 };
	krl_tensor s2[2] = { optest_tensor(five, 0), optest_tensor(b2, 1, I(2)) };
	krl_tensor o2 = optest_tensor(y, 1, I(2));
	optest_golden("sub_bcast", s2, &o2, &none);
	optest_near(y, (double[]){ 4, 3 }, 2, 0);
	krl_tensor ss[2] = { optest_tensor(five, 0), optest_tensor(b2, 0) };
	krl_tensor o0 = optest_tensor(y, 0);
	optest_golden("sub_bcast", ss, &o0, &none);
	optest_near(y, (double[]){ 4 }, 1, 0);
	/* minimum with a 0-dim b; NaN from either side propagates */
	double m4[] = { 1, NAN, 3, -1 }, half[] = { 0.5 }, nan1[] = { NAN };
	krl_tensor mn[2] = { optest_tensor(m4, 2, I(2), I(2)),
	                     optest_tensor(half, 0) };
	krl_tensor o22 = optest_tensor(y, 2, I(2), I(2));
	optest_golden("minimum_bcast", mn, &o22, &none);
	optest_near(y, (double[]){ 0.5 }, 1, 0);
	assert_true(isnan(y[1]));
	optest_near(y + 2, (double[]){ 0.5, -1 }, 2, 0);
	krl_tensor mb[2] = { optest_tensor(b2, 1, I(2)), optest_tensor(nan1, 0) };
	optest_golden("minimum_bcast", mb, &o2, &none);
	assert_true(isnan(y[0]) && isnan(y[1]));

	/* shapes that do not broadcast, and a y of the wrong shape */
	double a6[] = { 1, 2, 3, 4, 5, 6 };
	krl_tensor bad[2] = { optest_tensor(a6, 2, I(2), I(3)),
	                      optest_tensor(b2, 1, I(2)) };
	rejects("add_bcast", bad, &o23, none, "add_bcast: a [2, 3] and b [2] do "
	        "not broadcast");
	krl_tensor o32 = optest_tensor(y, 2, I(3), I(2));
	rejects("sub_bcast", ab, &o32, none, "sub_bcast: a [2, 1] and b [3] "
	        "broadcast to [2, 3], so y must be [2, 3], not [3, 2]");
	krl_tensor o3 = optest_tensor(y, 1, I(3));
	rejects("minimum_bcast", ab, &o3, none, "so y must be [2, 3], not [3]");
	krl_tensor hb[2] = { ab[0], ab[1] };
	hb[1].dtype = KRL_F16;
	rejects("add_bcast", hb, &o23, none, "add_bcast: b must be f32, not f16");
}

/* hardswish, exp, minimum/maximum with a scalar. */
static void test_hardswish_exp_minmax(void **state)
{
	(void)state;
	double x[] = { -4, -3, -1, 0, 1, 3, 4, NAN };
	double w[] = { 0, 0, -1.0 / 3, 0, 2.0 / 3, 3, 4, NAN };
	expect("hardswish", A(0), x, w, 8, 1e-15);
	double xe[] = { 0, 1, -INFINITY, M_LN2 };
	double we[] = { 1, M_E, 0, 2 };
	expect("exp", A(0), xe, we, 4, 1e-15);
	double xm[] = { -1, 0.5, 2, NAN };
	expect("minimum_scalar", A(1, "value", 0.5), xm,
	       (double[]){ -1, 0.5, 0.5, NAN }, 4, 0);
	expect("maximum_scalar", A(1, "value", 0.5), xm,
	       (double[]){ 0.5, 0.5, 2, NAN }, 4, 0);
	double buf[4];
	krl_tensor t = optest_tensor(buf, 1, I(4));
	rejects("minimum_scalar", &t, &t, A(0),
	        "minimum_scalar: attribute value is required");
	rejects("maximum_scalar", &t, &t, A(1, "value", INFINITY),
	        "maximum_scalar: value=inf must be a finite float");
	rejects("maximum_scalar", &t, &t, A(1, "min", 1.0),
	        "maximum_scalar: unknown attribute 'min' (allowed: value)");
	rejects("exp", &t, &t, A(1, "value", 1.0),
	        "exp: unknown attribute 'value' (it takes none)");
}

/* dropout_apply: y = x * mask * scale with the float scale. */
static void test_dropout_apply(void **state)
{
	(void)state;
	double x[] = { 1, -2, 3, NAN, INFINITY, 9 }, m[] = { 1, 0, 1, 0, 0, 1 };
	double y[6];
	krl_tensor in[2] = { optest_tensor(x, 1, I(6)), optest_tensor(m, 1, I(6)) };
	in[1].dtype = KRL_BOOL;
	krl_tensor out = optest_tensor(y, 1, I(6));
	/* p = 0.2: 1 / (float)0.8 rounds to 1.25 in float */
	krl_attrs p2 = optest_attrs(1, "p", 0.2);
	optest_golden("dropout_apply", in, &out, &p2);
	optest_near(y, (double[]){ 1.25, 0, 3.75 }, 3, 0);
	/* a dropped NaN or inf is NaN (x * 0), as fused_dropout's product */
	assert_true(isnan(y[3]) && isnan(y[4]));
	optest_near(y + 5, (double[]){ 11.25 }, 1, 0);
	/* p = 0.1: the float scale is 1.1111111640930176, not 1/0.9 */
	krl_attrs p1 = optest_attrs(1, "p", 0.1);
	optest_golden("dropout_apply", in, &out, &p1);
	optest_near(y + 5, (double[]){ 10.000000476837158 }, 1, 1e-12);
	krl_attrs p0 = optest_attrs(1, "p", 0.0);
	optest_golden("dropout_apply", in, &out, &p0);
	optest_near(y, (double[]){ 1, 0, 3 }, 3, 0);

	rejects("dropout_apply", in, &out, optest_attrs(1, "p", 1.0),
	        "dropout_apply: p=1 must be in [0, 1)");
	rejects("dropout_apply", in, &out, optest_attrs(1, "p", -0.5),
	        "dropout_apply: p=-0.5 must be in [0, 1)");
	rejects("dropout_apply", in, &out, optest_attrs(0),
	        "dropout_apply: attribute p is required");
	krl_tensor mf[2] = { in[0], in[1] };
	mf[1].dtype = KRL_F32;
	rejects("dropout_apply", mf, &out, p2,
	        "dropout_apply: mask must be bool, not f32");
	krl_tensor ms[2] = { in[0], optest_tensor(m, 1, I(5)) };
	ms[1].dtype = KRL_BOOL;
	rejects("dropout_apply", ms, &out, p2,
	        "dropout_apply: x is [6] but mask is [5]: shapes must be equal");
	krl_tensor o5 = optest_tensor(y, 1, I(5));
	rejects("dropout_apply", in, &o5, p2,
	        "dropout_apply: x is [6] but y is [5]: shapes must be equal");
}

/* eq_scalar (whole tensor and a leading slice read strided), masked_fill
 * (same shape, the causal mask broadcast over a batch, -inf, in place)
 * and bitwise_not, with the checks' sentences. */
static void test_masks(void **state)
{
	(void)state;
	/* x [3, 4] = tril(ones) with a NaN: eq 0 marks the upper triangle */
	double x[12] = { 1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, NAN };
	double m[12];
	krl_tensor tx = optest_tensor(x, 2, I(3), I(4));
	krl_tensor tm = optest_tensor(m, 2, I(3), I(4));
	tm.dtype = KRL_BOOL;
	krl_attrs v0 = optest_attrs(1, "value", 0.0);
	optest_golden("eq_scalar", &tx, &tm, &v0);
	optest_near(m, (double[]){ 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0 }, 12, 0);
	/* the leading [2, 2] slice, x[:2, :2] == 0, row stride 4 */
	krl_tensor ts = optest_tensor(m, 2, I(2), I(2));
	ts.dtype = KRL_BOOL;
	optest_golden("eq_scalar", &tx, &ts, &v0);
	optest_near(m, (double[]){ 0, 1, 0, 0 }, 4, 0);
	/* value rounds to float first: 0.1 matches (float)0.1, not 0.1 */
	double xf[2] = { (double)0.1f, 0.1 }, mf[2];
	krl_tensor txf = optest_tensor(xf, 1, I(2)), tmf = optest_tensor(mf, 1, I(2));
	tmf.dtype = KRL_BOOL;
	krl_attrs v01 = optest_attrs(1, "value", 0.1);
	optest_golden("eq_scalar", &txf, &tmf, &v01);
	optest_near(mf, (double[]){ 1, 0 }, 2, 0);
	krl_tensor big = optest_tensor(m, 2, I(4), I(4));
	big.dtype = KRL_BOOL;
	rejects("eq_scalar", &tx, &big, v0, "eq_scalar: x is [3, 4] but y is "
	        "[4, 4]: y must be x's shape or a leading slice of it");
	rejects("eq_scalar", &tx, &tx, v0, "eq_scalar: y must be bool, not f32");
	rejects("eq_scalar", &tx, &tm, optest_attrs(0),
	        "eq_scalar: attribute value is required");
	/* an attribute of NaN reads as absent (krl_ops_attr_has) */
	rejects("eq_scalar", &tx, &tm, optest_attrs(1, "value", (double)NAN),
	        "eq_scalar: attribute value is required");
	rejects("eq_scalar", &tx, &tm, optest_attrs(1, "value", 1e300),
	        "must be a float or +-inf");

	/* masked_fill: a [2, 2] mask over a [3, 2, 2] x, value -inf */
	double a[12], mk[4] = { 0, 1, 0, 0 }, y[12];
	for (int i = 0; i < 12; i++)
		a[i] = i + 1;
	krl_tensor fin[2] = { optest_tensor(a, 3, I(3), I(2), I(2)),
	                      optest_tensor(mk, 2, I(2), I(2)) };
	fin[1].dtype = KRL_BOOL;
	krl_tensor fout = optest_tensor(y, 3, I(3), I(2), I(2));
	krl_attrs ninf = optest_attrs(1, "value", -INFINITY);
	optest_golden("masked_fill", fin, &fout, &ninf);
	for (int i = 0; i < 12; i++) {
		if (i % 4 == 1)
			assert_true(isinf(y[i]) && y[i] < 0);
		else
			assert_true(y[i] == a[i]);
	}
	/* a [3, 1, 2] mask (broadcast along the middle dim), value 0.5, in
	 * place (y is x) */
	double mk2[6] = { 1, 0, 0, 0, 0, 1 };
	krl_tensor fin2[2] = { fin[0], optest_tensor(mk2, 3, I(3), I(1), I(2)) };
	fin2[1].dtype = KRL_BOOL;
	krl_attrs half = optest_attrs(1, "value", 0.5);
	optest_golden("masked_fill", fin2, &fin[0], &half);
	optest_near(a, (double[]){ 0.5, 2, 0.5, 4, 5, 6, 7, 8, 9, 0.5, 11, 0.5 },
	            12, 0);
	krl_tensor fbad[2] = { fin[0], optest_tensor(mk, 2, I(2), I(1)) };
	fbad[1].dtype = KRL_BOOL;
	accepts("masked_fill", fbad, &fout, half);
	fbad[1] = optest_tensor(mk, 1, I(3));
	fbad[1].dtype = KRL_BOOL;
	rejects("masked_fill", fbad, &fout, half, "masked_fill: mask [3] does "
	        "not broadcast to x [3, 2, 2]");
	fbad[1] = optest_tensor(mk, 4, I(1), I(3), I(2), I(2));
	fbad[1].dtype = KRL_BOOL;
	rejects("masked_fill", fbad, &fout, half, "masked_fill: mask [1, 3, 2, "
	        "2] does not broadcast to x [3, 2, 2]");
	fbad[1] = fin[1];
	fbad[1].dtype = KRL_F32;
	rejects("masked_fill", fbad, &fout, half,
	        "masked_fill: mask must be bool, not f32");
	krl_tensor o2 = optest_tensor(y, 2, I(6), I(2));
	rejects("masked_fill", fin, &o2, half, "masked_fill: x is [3, 2, 2] but "
	        "y is [6, 2]: y must be shaped like x");

	/* bitwise_not: logical not of bool bytes */
	double b[4] = { 0, 1, 1, 0 }, nb[4];
	krl_tensor tb = optest_tensor(b, 1, I(4)), tnb = optest_tensor(nb, 1, I(4));
	tb.dtype = tnb.dtype = KRL_BOOL;
	optest_golden("bitwise_not", &tb, &tnb, &(krl_attrs){ 0 });
	optest_near(nb, (double[]){ 1, 0, 0, 1 }, 4, 0);
	krl_tensor tf = optest_tensor(b, 1, I(4));
	rejects("bitwise_not", &tf, &tnb, optest_attrs(0),
	        "bitwise_not: x must be bool, not f32");
	krl_tensor t3 = optest_tensor(nb, 1, I(3));
	t3.dtype = KRL_BOOL;
	rejects("bitwise_not", &tb, &t3, optest_attrs(0),
	        "bitwise_not: x is [4] but y is [3]: shapes must be equal");
}

/* ==== Checks ==== */

static void test_checks(void **state)
{
	(void)state;
	double buf[1] = { 0 };
	krl_tensor x = optest_tensor(buf, 2, I(2), I(3)), y = optest_tensor(buf, 2, I(2), I(3));
	krl_tensor yt = optest_tensor(buf, 2, I(3), I(2));
	krl_tensor s = optest_tensor(buf, 0), v = optest_tensor(buf, 1, I(6));

	/* every op: plain shapes, and a scalar, pass; shapes must match */
	for (int i = 0; i < N(g_ops); i++) {
		krl_attrs a = A(0);
		if (strcmp(g_ops[i], "pow_scalar") == 0)
			a = A(1, "exponent", 3.0);
		accepts(g_ops[i], &x, &y, a);
		accepts(g_ops[i], &s, &s, a);
		char want[128];
		snprintf(want, sizeof want, "%s: x is [2, 3] but y is [3, 2]: "
		         "shapes must be equal", g_ops[i]);
		rejects(g_ops[i], &x, &yt, a, want);
		snprintf(want, sizeof want, "%s: x is [2, 3] but y is [6]",
		         g_ops[i]);
		rejects(g_ops[i], &x, &v, a, want);
		krl_tensor h = x;
		h.dtype = KRL_F16;
		snprintf(want, sizeof want, "%s: x must be f32, not f16",
		         g_ops[i]);
		rejects(g_ops[i], &h, &y, a, want);
		krl_tensor yi = y;
		yi.dtype = KRL_I64;
		snprintf(want, sizeof want, "%s: y must be f32, not i64",
		         g_ops[i]);
		rejects(g_ops[i], &x, &yi, a, want);
	}

	/* attributes */
	rejects("mish", &x, &y, A(1, "beta", 1.0),
	        "mish: unknown attribute 'beta' (it takes none)");
	rejects("sigmoid", &x, &y, A(1, "alpha", 1.0),
	        "sigmoid: unknown attribute 'alpha' (it takes none)");
	rejects("selu", &x, &y, A(1, "alpha", 1.0),
	        "selu: unknown attribute 'alpha' (it takes none)");
	rejects("leaky_relu", &x, &y, A(1, "slope", 0.1),
	        "leaky_relu: unknown attribute 'slope' (allowed: "
	        "negative_slope)");
	accepts("leaky_relu", &x, &y, A(1, "negative_slope", 0.1));
	rejects("leaky_relu", &x, &y, A(1, "negative_slope", INFINITY),
	        "leaky_relu: negative_slope=inf must be a finite float");
	accepts("elu", &x, &y, A(1, "alpha", 0.5));
	rejects("elu", &x, &y, A(1, "alpha", 1e39),
	        "elu: alpha=1e+39 must be a finite float");
	accepts("softplus", &x, &y, A(2, "beta", 2.0, "threshold", 10.0));
	rejects("softplus", &x, &y, A(1, "beta", 0.0),
	        "softplus: beta must not be 0");
	rejects("softplus", &x, &y, A(1, "limit", 0.0),
	        "softplus: unknown attribute 'limit' (allowed: beta, "
	        "threshold)");
	accepts("hardtanh", &x, &y, A(2, "min_val", 0.0, "max_val", 6.0));
	accepts("hardtanh", &x, &y, A(2, "min_val", 2.0, "max_val", 2.0));
	rejects("hardtanh", &x, &y, A(2, "min_val", 1.0, "max_val", -1.0),
	        "hardtanh: min_val=1 is above max_val=-1");
	rejects("hardtanh", &x, &y, A(1, "max_val", -2.0),
	        "hardtanh: min_val=-1 is above max_val=-2");
	rejects("pow_scalar", &x, &y, A(0),
	        "pow_scalar: attribute exponent is required");
	rejects("pow_scalar", &x, &y, A(1, "exp", 2.0),
	        "pow_scalar: unknown attribute 'exp' (allowed: exponent)");
	accepts("pow_scalar", &x, &y, A(1, "exponent", -0.5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_leaky_relu),
		cmocka_unit_test(test_sigmoid),
		cmocka_unit_test(test_tanh),
		cmocka_unit_test(test_elu_selu),
		cmocka_unit_test(test_hardsigmoid),
		cmocka_unit_test(test_softplus),
		cmocka_unit_test(test_mish),
		cmocka_unit_test(test_hardtanh),
		cmocka_unit_test(test_abs_add_scalar),
		cmocka_unit_test(test_pow_scalar),
		cmocka_unit_test(test_scalar_elementwise),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_broadcast),
		cmocka_unit_test(test_broadcast_two_way),
		cmocka_unit_test(test_hardswish_exp_minmax),
		cmocka_unit_test(test_dropout_apply),
		cmocka_unit_test(test_masks),
		cmocka_unit_test(test_checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
