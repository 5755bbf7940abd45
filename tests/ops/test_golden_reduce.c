/*
 * CPU tests of the "reduce" op family (src/ops/reduce/family.c): every
 * golden op against values computed by hand (pooling with padding,
 * dilation, ceil_mode, count_include_pad and divisor_override; prod,
 * cumprod, flip, narrow, cat (of 2, 3 and 5 inputs), fill, mul_mask; logsumexp over either dim,
 * with large values and PyTorch's -inf, +inf and NaN rows), and the checks
 * accepting
 * good calls and rejecting bad ones with the sentence asserted.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "krl/ops.h"
#include "optest.h"
#include "testutil.h"

/* ==== Helpers ==== */

static krl_tensor T(double *data, krl_dtype dt, int ndim, ...)
{
	krl_tensor t;
	memset(&t, 0, sizeof t);
	t.data = data;
	t.dtype = dt;
	t.ndim = ndim;
	va_list ap;
	va_start(ap, ndim);
	for (int i = 0; i < ndim; i++)
		t.dim[i] = va_arg(ap, int64_t);
	va_end(ap);
	return t;
}

#define F KRL_F32

/* ==== Registry ==== */

static void test_registry(void **state)
{
	(void)state;
	const char *names[] = { "max_pool1d", "max_pool2d", "max_pool3d",
		"avg_pool1d", "avg_pool2d", "avg_pool3d", "prod", "cumprod",
		"flip", "narrow", "cat", "fill", "mul_mask", "logsumexp" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const krl_op *op = krl_op_find(names[i]);
		assert_non_null(op);
		assert_string_equal(op->name, names[i]);
		assert_non_null(op->check);
		assert_non_null(op->run);
		assert_non_null(op->golden);
		assert_non_null(op->doc);
	}
	assert_int_equal(krl_op_find("max_pool2d")->nout, 2);
	assert_int_equal(krl_op_find("fill")->nin, 0);
	const krl_op *cat = krl_op_find("cat");
	assert_int_equal(cat->nin, KRL_OP_AT_LEAST(2));
	assert_false(krl_op_takes_nin(cat, 1));
	assert_true(krl_op_takes_nin(cat, 2));
	assert_true(krl_op_takes_nin(cat, 49));
	assert_true(krl_op_takes_nin(cat, KRL_MAX_CALL_IN));
	assert_false(krl_op_takes_nin(cat, KRL_MAX_CALL_IN + 1));
	assert_true(krl_op_takes_nin(krl_op_find("fill"), 0));
	assert_false(krl_op_takes_nin(krl_op_find("fill"), 1));
	assert_int_equal(krl_op_find("logsumexp")->caps &
	                 (KRL_OPCAP_LOWER | KRL_OPCAP_LIBRARY),
	                 KRL_OPCAP_LOWER);
}

/* ==== Max pooling ==== */

static void test_max_pool1d(void **state)
{
	(void)state;
	double x[] = { 1, 5, 2, 4, 3 };
	double y[5], ix[5];
	krl_tensor in = T(x, F, 3, I(1), I(1), I(5));

	/* k=2 s=2 p=1: windows {pad, 1}, {5, 2}, {4, 3} */
	krl_tensor out[2] = { T(y, F, 3, I(1), I(1), I(3)),
	                      T(ix, KRL_I64, 3, I(1), I(1), I(3)) };
	krl_attrs a = optest_attrs(3, "kernel_size", 2.0, "stride", 2.0, "padding",
	                    1.0);
	optest_golden("max_pool1d", &in, out, &a);
	optest_near(y, (double[]){ 1, 5, 4 }, 3, 0);
	optest_near(ix, (double[]){ 0, 1, 3 }, 3, 0);

	/* k=2 s=1 p=1 d=2: taps (j-1, j+1) */
	out[0].dim[2] = out[1].dim[2] = 5;
	a = optest_attrs(4, "kernel_size", 2.0, "stride", 1.0, "padding", 1.0,
	          "dilation", 2.0);
	optest_golden("max_pool1d", &in, out, &a);
	optest_near(y, (double[]){ 5, 2, 5, 3, 4 }, 5, 0);
	optest_near(ix, (double[]){ 1, 2, 1, 4, 3 }, 5, 0);

	/* ceil_mode keeps the partial last window {3}; floor drops it */
	out[0].dim[2] = out[1].dim[2] = 3;
	a = optest_attrs(2, "kernel_size", 2.0, "ceil_mode", 1.0);
	optest_golden("max_pool1d", &in, out, &a);
	optest_near(y, (double[]){ 5, 4, 3 }, 3, 0);
	optest_near(ix, (double[]){ 1, 3, 4 }, 3, 0);
	a = optest_attrs(1, "kernel_size", 2.0);
	optest_rejects("max_pool1d", &in, out, &a, "max_pool1d: x is [1, 1, 5], so "
	        "y must be [1, 1, 2], not [1, 1, 3]");

	/* NaN wins, as in PyTorch */
	double xn[] = { 1, NAN, 2, 0 };
	krl_tensor inn = T(xn, F, 2, I(1), I(4));
	krl_tensor on[2] = { T(y, F, 2, I(1), I(2)),
	                     T(ix, KRL_I64, 2, I(1), I(2)) };
	a = optest_attrs(1, "kernel_size", 2.0);
	optest_golden("max_pool1d", &inn, on, &a);
	assert_true(isnan(y[0]));
	assert_true(y[1] == 2);
	optest_near(ix, (double[]){ 1, 2 }, 2, 0);
}

static void test_max_pool2d_3d(void **state)
{
	(void)state;
	double x[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	double y[8], ix[8];
	krl_tensor in = T(x, F, 4, I(1), I(1), I(3), I(3));
	krl_tensor out[2] = { T(y, F, 4, I(1), I(1), I(2), I(2)),
	                      T(ix, KRL_I64, 4, I(1), I(1), I(2), I(2)) };
	krl_attrs a = optest_attrs(2, "kernel_size", 2.0, "stride", 1.0);
	optest_golden("max_pool2d", &in, out, &a);
	optest_near(y, (double[]){ 5, 6, 8, 9 }, 4, 0);
	optest_near(ix, (double[]){ 4, 5, 7, 8 }, 4, 0);

	/* 3-d: a 2x2x2 cube; k=2 s=2 gives its maximum; with p=1 every
	 * window holds one corner of the cube */
	double c[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	krl_tensor in3 = T(c, F, 4, I(1), I(2), I(2), I(2));
	krl_tensor o3[2] = { T(y, F, 4, I(1), I(1), I(1), I(1)),
	                     T(ix, KRL_I64, 4, I(1), I(1), I(1), I(1)) };
	a = optest_attrs(1, "kernel_size", 2.0);
	optest_golden("max_pool3d", &in3, o3, &a);
	assert_true(y[0] == 8 && ix[0] == 7);
	for (int i = 0; i < 2; i++)
		o3[i].dim[1] = o3[i].dim[2] = o3[i].dim[3] = 2;
	a = optest_attrs(2, "kernel_size", 2.0, "padding", 1.0);
	optest_golden("max_pool3d", &in3, o3, &a);
	optest_near(y, c, 8, 0);
	optest_near(ix, (double[]){ 0, 1, 2, 3, 4, 5, 6, 7 }, 8, 0);
}

/* ==== Average pooling ==== */

static void test_avg_pool(void **state)
{
	(void)state;
	double x[] = { 1, 2, 3, 4, 5 };
	double y[8];
	krl_tensor in = T(x, F, 2, I(1), I(5));
	krl_tensor out = T(y, F, 2, I(1), I(3));
	/* k=3 s=2 p=1: {pad,1,2}/3, {2,3,4}/3, {4,5,pad}/3 */
	krl_attrs a = optest_attrs(3, "kernel_size", 3.0, "stride", 2.0, "padding",
	                    1.0);
	optest_golden("avg_pool1d", &in, &out, &a);
	optest_near(y, (double[]){ 1, 3, 3 }, 3, 1e-15);
	a = optest_attrs(4, "kernel_size", 3.0, "stride", 2.0, "padding", 1.0,
	          "count_include_pad", 0.0);
	optest_golden("avg_pool1d", &in, &out, &a);
	optest_near(y, (double[]){ 1.5, 3, 4.5 }, 3, 1e-15);
	a = optest_attrs(4, "kernel_size", 3.0, "stride", 2.0, "padding", 1.0,
	          "divisor_override", 4.0);
	optest_golden("avg_pool1d", &in, &out, &a);
	optest_near(y, (double[]){ 0.75, 2.25, 2.25 }, 3, 1e-15);
	/* ceil_mode: the last window {5} is clipped to the input (no
	 * padding), so it divides by 1 */
	a = optest_attrs(2, "kernel_size", 2.0, "ceil_mode", 1.0);
	optest_golden("avg_pool1d", &in, &out, &a);
	optest_near(y, (double[]){ 1.5, 3.5, 5 }, 3, 1e-15);

	double x2[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	krl_tensor in2 = T(x2, F, 3, I(1), I(3), I(3));
	krl_tensor o2 = T(y, F, 3, I(1), I(2), I(2));
	a = optest_attrs(2, "kernel_size", 2.0, "stride", 1.0);
	optest_golden("avg_pool2d", &in2, &o2, &a);
	optest_near(y, (double[]){ 3, 4, 6, 7 }, 4, 1e-15);

	double c[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	krl_tensor in3 = T(c, F, 5, I(1), I(1), I(2), I(2), I(2));
	krl_tensor o3 = T(y, F, 5, I(1), I(1), I(1), I(1), I(1));
	a = optest_attrs(1, "kernel_size", 2.0);
	optest_golden("avg_pool3d", &in3, &o3, &a);
	assert_true(y[0] == 4.5);
	/* p=1: each window holds one element and 7 padding cells */
	o3.dim[2] = o3.dim[3] = o3.dim[4] = 2;
	a = optest_attrs(2, "kernel_size", 2.0, "padding", 1.0);
	optest_golden("avg_pool3d", &in3, &o3, &a);
	optest_near(y, (double[]){ 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1 },
	     8, 1e-15);
	a = optest_attrs(3, "kernel_size", 2.0, "padding", 1.0, "count_include_pad",
	          0.0);
	optest_golden("avg_pool3d", &in3, &o3, &a);
	optest_near(y, c, 8, 1e-15);
}

static void test_pool_check(void **state)
{
	(void)state;
	krl_tensor in = T(NULL, F, 4, I(2), I(3), I(8), I(8));
	krl_tensor out[2] = { T(NULL, F, 4, I(2), I(3), I(4), I(4)),
	                      T(NULL, KRL_I64, 4, I(2), I(3), I(4), I(4)) };
	krl_attrs a = optest_attrs(2, "kernel_size", 2.0, "padding", 2.0);
	optest_rejects("max_pool2d", &in, out, &a, "max_pool2d: padding=2 must be at "
	        "most half the kernel size (2)");
	a = optest_attrs(0);
	optest_rejects("max_pool2d", &in, out, &a, "max_pool2d: attribute "
	        "kernel_size is required");
	a = optest_attrs(1, "kernel_size", 2.0);
	out[1].dtype = KRL_F32;
	optest_rejects("max_pool2d", &in, out, &a, "max_pool2d: idx must be i64, not "
	        "f32");
	out[1].dtype = KRL_I64;
	out[1].dim[3] = 5;
	optest_rejects("max_pool2d", &in, out, &a, "max_pool2d: idx must be [2, 3, "
	        "4, 4] like y, not [2, 3, 4, 5]");
	a = optest_attrs(2, "kernel_size", 2.0, "dilation", 2.0);
	optest_rejects("avg_pool2d", &in, out, &a, "avg_pool2d: unknown attribute "
	        "'dilation'");
	a = optest_attrs(2, "kernel_size", 2.0, "stride", 0.0);
	optest_rejects("avg_pool2d", &in, out, &a, "avg_pool2d: stride=0 must be an "
	        "integer in 1 ..");
	krl_tensor small = T(NULL, F, 3, I(1), I(2), I(2));
	a = optest_attrs(1, "kernel_size", 3.0);
	optest_rejects("avg_pool2d", &small, out, &a, "does not fit");
	krl_tensor flat = T(NULL, F, 1, I(8));
	a = optest_attrs(1, "kernel_size", 2.0);
	optest_rejects("max_pool1d", &flat, out, &a, "max_pool1d: x is [8] but must "
	        "have 2 or 3 dims");
}

/* ==== prod, cumprod ==== */

static void test_prod_cumprod(void **state)
{
	(void)state;
	double x[] = { 1, 2, 3, 4, 5, 6 };
	double y[6];
	krl_tensor in = T(x, F, 2, I(2), I(3));
	krl_tensor out = T(y, F, 1, I(2));
	krl_attrs a = optest_attrs(1, "dim", 1.0);
	optest_golden("prod", &in, &out, &a);
	optest_near(y, (double[]){ 6, 120 }, 2, 0);
	out = T(y, F, 2, I(1), I(3));
	a = optest_attrs(1, "dim", -2.0);
	optest_golden("prod", &in, &out, &a);
	optest_near(y, (double[]){ 4, 10, 18 }, 3, 0);
	out = T(y, F, 1, I(2));
	optest_rejects("prod", &in, &out, &a, "prod: x is [2, 3] and dim=0, so y "
	        "must be [1, 3] or [3], not [2]");

	out = T(y, F, 2, I(2), I(3));
	a = optest_attrs(1, "dim", 1.0);
	optest_golden("cumprod", &in, &out, &a);
	optest_near(y, (double[]){ 1, 2, 6, 4, 20, 120 }, 6, 0);
	a = optest_attrs(1, "dim", 0.0);
	optest_golden("cumprod", &in, &out, &a);
	optest_near(y, (double[]){ 1, 2, 3, 4, 10, 18 }, 6, 0);
	a = optest_attrs(0);
	optest_rejects("cumprod", &in, &out, &a, "cumprod: attribute dim is "
	        "required");
}

/* ==== logsumexp ==== */

static void test_logsumexp(void **state)
{
	(void)state;
	double x[] = { 0, 0, 0, 1, 2, 3 };
	double y[6];
	krl_tensor in = T(x, F, 2, I(2), I(3));
	/* rows: log 3, and 3 + log(e^-2 + e^-1 + 1); y keeps dim as 1 */
	krl_tensor out = T(y, F, 2, I(2), I(1));
	krl_attrs a = optest_attrs(1, "dim", 1.0);
	optest_golden("logsumexp", &in, &out, &a);
	optest_near(y, (double[]){ 1.0986122886681098, 3.4076059644443806 }, 2,
	            1e-14);
	/* columns: log(1 + e^k), dim dropped */
	out = T(y, F, 1, I(3));
	a = optest_attrs(1, "dim", -2.0);
	optest_golden("logsumexp", &in, &out, &a);
	optest_near(y, (double[]){ 1.3132616875182228, 2.1269280110429727,
	                           3.048587351573742 }, 3, 1e-14);
	/* no overflow (the max is subtracted first); a row of -inf is
	 * -inf; a row holding +inf is +inf; NaN propagates */
	double z[] = { 1000, 1000, -INFINITY, -INFINITY, INFINITY, -INFINITY,
	               1, NAN };
	krl_tensor zin = T(z, F, 2, I(4), I(2));
	out = T(y, F, 1, I(4));
	a = optest_attrs(1, "dim", 1.0);
	optest_golden("logsumexp", &zin, &out, &a);
	optest_near(y, (double[]){ 1000.6931471805599 }, 1, 1e-12);
	assert_true(isinf(y[1]) && y[1] < 0);
	assert_true(isinf(y[2]) && y[2] > 0);
	assert_true(isnan(y[3]));

	out = T(y, F, 1, I(2));
	a = optest_attrs(1, "dim", 0.0);
	optest_rejects("logsumexp", &in, &out, &a, "logsumexp: x is [2, 3] and "
	        "dim=0, so y must be [1, 3] or [3], not [2]");
	a = optest_attrs(0);
	optest_rejects("logsumexp", &in, &out, &a, "logsumexp: attribute dim is "
	        "required");
	krl_tensor e = T(x, F, 2, I(2), I(0)), eo = T(y, F, 1, I(2));
	a = optest_attrs(1, "dim", 1.0);
	optest_rejects("logsumexp", &e, &eo, &a, "logsumexp: x is [2, 0]: "
	        "cannot reduce over dim 1 of size 0");
}

/* ==== Copies ==== */

static void test_copies(void **state)
{
	(void)state;
	double x[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	double y[12];
	krl_tensor in = T(x, F, 2, I(2), I(4));
	krl_tensor out = T(y, F, 2, I(2), I(4));
	krl_attrs a = optest_attrs(1, "dim", 1.0);
	optest_golden("flip", &in, &out, &a);
	optest_near(y, (double[]){ 4, 3, 2, 1, 8, 7, 6, 5 }, 8, 0);
	a = optest_attrs(1, "dim", 0.0);
	optest_golden("flip", &in, &out, &a);
	optest_near(y, (double[]){ 5, 6, 7, 8, 1, 2, 3, 4 }, 8, 0);

	out = T(y, F, 2, I(2), I(2));
	a = optest_attrs(2, "dim", 1.0, "start", 1.0);
	optest_golden("narrow", &in, &out, &a);
	optest_near(y, (double[]){ 2, 3, 6, 7 }, 4, 0);
	a = optest_attrs(2, "dim", 1.0, "start", 3.0);
	optest_rejects("narrow", &in, &out, &a, "narrow: start=3 + length 2 runs "
	        "past dim 1 of x [2, 4]");
	out.dim[0] = 3;
	a = optest_attrs(2, "dim", 1.0, "start", 0.0);
	optest_rejects("narrow", &in, &out, &a, "narrow: y must be [2, 2], not "
	        "[3, 2]");

	double z[] = { -1, -2 };
	krl_tensor cin[2] = { T(z, F, 2, I(2), I(1)), in };
	out = T(y, F, 2, I(2), I(5));
	a = optest_attrs(1, "dim", 1.0);
	optest_golden("cat", cin, &out, &a);
	optest_near(y, (double[]){ -1, 1, 2, 3, 4, -2, 5, 6, 7, 8 }, 10, 0);
	out = T(y, F, 2, I(2), I(6));
	optest_rejects("cat", cin, &out, &a, "cat: y must be [2, 5], not [2, 6]");
	cin[0] = T(z, F, 2, I(1), I(2));
	optest_rejects("cat", cin, &out, &a, "cat: a is [1, 2] but b is [2, 4]: they "
	        "may differ only in dim 1");

	out = T(y, F, 2, I(2), I(3));
	a = optest_attrs(1, "value", 2.5);
	optest_golden("fill", NULL, &out, &a);
	optest_near(y, (double[]){ 2.5, 2.5, 2.5, 2.5, 2.5, 2.5 }, 6, 0);
	a = optest_attrs(1, "value", INFINITY);
	optest_rejects("fill", NULL, &out, &a, "fill: value must be a finite number");
	out = T(y, KRL_BOOL, 1, I(3)); /* torch.ones(3, dtype=bool) */
	a = optest_attrs(1, "value", 1.0);
	optest_golden("fill", NULL, &out, &a);
	optest_near(y, (double[]){ 1, 1, 1 }, 3, 0);
	a = optest_attrs(1, "value", 0.5); /* nonzero: true */
	optest_golden("fill", NULL, &out, &a);
	optest_near(y, (double[]){ 1, 1, 1 }, 3, 0);
	out = T(y, KRL_I64, 1, I(3));
	optest_rejects("fill", NULL, &out, &a, "fill: y must be f32, not i64");

	double m[] = { 1, 0, 1, 0, 0, 1, 1, 0 };
	krl_tensor min_[2] = { in, T(m, KRL_BOOL, 2, I(2), I(4)) };
	out = T(y, F, 2, I(2), I(4));
	optest_golden("mul_mask", min_, &out, NULL);
	optest_near(y, (double[]){ 1, 0, 3, 0, 0, 6, 7, 0 }, 8, 0);
	min_[1].dtype = KRL_F32;
	optest_rejects("mul_mask", min_, &out, NULL, "mul_mask: mask must be bool, "
	        "not f32");
}

/* cat of 3 inputs along dim 0 and of 5 along dim 1 (a->nin the count),
 * and the check's sentences naming input k. */
static void test_cat_n(void **state)
{
	(void)state;
	double x1[] = { 1, 2 }, x2[] = { 3, 4, 5, 6 }, x3[] = { 7, 8 };
	double y[16];
	krl_tensor in3[3] = { T(x1, F, 2, I(1), I(2)), T(x2, F, 2, I(2), I(2)),
	                      T(x3, F, 2, I(1), I(2)) };
	krl_tensor out = T(y, F, 2, I(4), I(2));
	krl_attrs a = optest_attrs(1, "dim", 0.0);
	a.nin = 3;
	optest_golden("cat", in3, &out, &a);
	optest_near(y, (double[]){ 1, 2, 3, 4, 5, 6, 7, 8 }, 8, 0);

	/* [2, 1], [2, 2], [2, 1], [2, 3], [2, 1] -> [2, 8] along dim -1 */
	double p[] = { 1, 2 }, q[] = { 3, 4, 5, 6 }, r[] = { 7, 8 };
	double s[] = { 9, 10, 11, 12, 13, 14 }, t[] = { 15, 16 };
	krl_tensor in5[5] = { T(p, F, 2, I(2), I(1)), T(q, F, 2, I(2), I(2)),
	                      T(r, F, 2, I(2), I(1)), T(s, F, 2, I(2), I(3)),
	                      T(t, F, 2, I(2), I(1)) };
	out = T(y, F, 2, I(2), I(8));
	a = optest_attrs(1, "dim", -1.0);
	a.nin = 5;
	optest_golden("cat", in5, &out, &a);
	optest_near(y, (double[]){ 1, 3, 4, 7, 9, 10, 11, 15,
	                           2, 5, 6, 8, 12, 13, 14, 16 }, 16, 0);

	out.dim[1] = 7;
	optest_rejects("cat", in5, &out, &a, "cat: y must be [2, 8], not [2, 7]");
	out.dim[1] = 8;
	in5[3].dim[0] = 3;
	optest_rejects("cat", in5, &out, &a, "cat: input 1 is [2, 1] but input 4 "
	        "is [3, 3]: they may differ only in dim 1");
	in5[3].dim[0] = 2;
	in5[2].dtype = KRL_I64;
	optest_rejects("cat", in5, &out, &a, "cat: input 1 is f32 but input 3 is "
	        "i64: the inputs and y must have one dtype");
	in5[2].dtype = F;
	out.dtype = KRL_I64;
	optest_rejects("cat", in5, &out, &a, "cat: the inputs are f32 but y is "
	        "i64: the inputs and y must have one dtype");
	out.dtype = F;
	a.nin = KRL_MAX_CALL_IN + 1;
	optest_rejects("cat", in5, &out, &a, "cat: 65 inputs, at most 64");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_max_pool1d),
		cmocka_unit_test(test_max_pool2d_3d),
		cmocka_unit_test(test_avg_pool),
		cmocka_unit_test(test_pool_check),
		cmocka_unit_test(test_prod_cumprod),
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_cat_n),
		cmocka_unit_test(test_logsumexp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
