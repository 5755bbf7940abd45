/*
 * CPU tests of the "shape" op family (src/ops/shape/family.c): pad, roll,
 * index_select and permute against values worked out by hand (pads of 1, 2 and 3
 * dims, the fill value rounded to f32, cropping by negative amounts;
 * rolls with negative and wrapping shifts, over the flat tensor, one dim
 * and two; indices repeated and out of order, along dim 0 and the last
 * dim, out of range; 2-D transposes, a 3-D cycle, ShuffleNet's channel
 * shuffle and a rank-8 reversal checked by coordinates), their checks
 * rejecting bad calls with the sentence
 * asserted, and the three ops called from a task's plan and run through
 * the golden executor.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "krl/lang.h"
#include "krl/ops.h"
#include "krl/runtime.h"
#include "optest.h"
#include "testutil.h"

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

static void test_registry(void **state)
{
	(void)state;
	const char *names[] = { "pad", "roll", "index_select", "permute" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const krl_op *op = krl_op_find(names[i]);
		assert_non_null(op);
		assert_string_equal(op->family, "shape");
		assert_int_equal(op->caps, KRL_OPCAP_LIBRARY);
		assert_non_null(op->run);
		assert_non_null(op->golden);
	}
	assert_int_equal(krl_op_find("index_select")->nin, 2);
}

/* ==== pad ==== */

static void test_pad(void **state)
{
	(void)state;
	double x[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	double y[32];

	/* 1 dim, value fill */
	krl_tensor in = T(x, F, 1, I(3)), out = T(y, F, 1, I(6));
	krl_attrs a = optest_attrs(3, "pad0", 1.0, "pad1", 2.0, "value", 9.0);
	optest_golden("pad", &in, &out, &a);
	optest_near(y, (double[]){ 9, 1, 2, 3, 9, 9 }, 6, 0);

	/* 2 dims: last dim 1 before, dim 0 one after; value 0 by default */
	in = T(x, F, 2, I(2), I(3));
	out = T(y, F, 2, I(3), I(4));
	a = optest_attrs(4, "pad0", 1.0, "pad1", 0.0, "pad2", 0.0, "pad3", 1.0);
	optest_golden("pad", &in, &out, &a);
	optest_near(y, (double[]){ 0, 1, 2, 3, 0, 4, 5, 6, 0, 0, 0, 0 }, 12, 0);

	/* 3 dims of [1, 1, 2] -> [3, 2, 3], only y[1][1][0..1] from x */
	in = T(x, F, 3, I(1), I(1), I(2));
	out = T(y, F, 3, I(3), I(2), I(3));
	a = optest_attrs(7, "pad0", 0.0, "pad1", 1.0, "pad2", 1.0, "pad3", 0.0,
	                 "pad4", 1.0, "pad5", 1.0, "value", -1.0);
	optest_golden("pad", &in, &out, &a);
	for (int i = 0; i < 18; i++)
		assert_true(y[i] == (i == 9 ? 1 : i == 10 ? 2 : -1));

	/* padding the middle dim of a [2, 1, 2] keeps the leading dim */
	in = T(x, F, 3, I(2), I(1), I(2));
	out = T(y, F, 3, I(2), I(2), I(2));
	a = optest_attrs(4, "pad0", 0.0, "pad1", 0.0, "pad2", 1.0, "pad3", 0.0);
	optest_golden("pad", &in, &out, &a);
	optest_near(y, (double[]){ 0, 0, 1, 2, 0, 0, 3, 4 }, 8, 0);

	/* negative amounts crop; the value is rounded to f32 */
	in = T(x, F, 2, I(2), I(4));
	out = T(y, F, 2, I(2), I(4));
	a = optest_attrs(3, "pad0", -1.0, "pad1", 1.0, "value", 0.1);
	optest_golden("pad", &in, &out, &a);
	optest_near(y, (double[]){ 2, 3, 4, (float)0.1, 6, 7, 8, (float)0.1 },
	            8, 0);
	assert_true(y[3] != 0.1);
	out = T(y, F, 2, I(2), I(1));
	a = optest_attrs(2, "pad0", -1.0, "pad1", -2.0);
	optest_golden("pad", &in, &out, &a);
	optest_near(y, (double[]){ 2, 6 }, 2, 0);

	/* errors */
	in = T(x, F, 1, I(3));
	out = T(y, F, 1, I(5));
	a = optest_attrs(2, "pad0", 1.0, "pad1", 2.0);
	optest_rejects("pad", &in, &out, &a, "pad: x is [3], so y must be [6], "
	               "not [5]");
	a = optest_attrs(1, "pad0", 2.0);
	optest_rejects("pad", &in, &out, &a, "pad: pad0 has no pad1: amounts come "
	               "in (before, after) pairs per dim");
	a = optest_attrs(3, "pad0", 1.0, "pad1", 1.0, "pad3", 1.0);
	optest_rejects("pad", &in, &out, &a, "pad: pad3 is given but pad2 is not");
	a = optest_attrs(4, "pad0", 1.0, "pad1", 1.0, "pad2", 0.0, "pad3", 1.0);
	optest_rejects("pad", &in, &out, &a, "pad: x is [3] but pad0 .. pad3 pad 2 "
	               "dims");
	a = optest_attrs(2, "pad0", -2.0, "pad1", -2.0);
	optest_rejects("pad", &in, &out, &a, "pad: x is [3]: dim 0 padded by -2 and "
	               "-2 would have a negative size");
	out = T(y, F, 1, I(1));
	a = optest_attrs(2, "pad0", 5.0, "pad1", -7.0);
	optest_rejects("pad", &in, &out, &a, "pad: x is [3]: dim 0 (padded by 5 "
	               "and -7) is cropped by 7, more than its size");
	out = T(y, F, 1, I(5));
	a = optest_attrs(2, "pad0", 1.5, "pad1", 1.0);
	optest_rejects("pad", &in, &out, &a, "pad: pad0=1.5 must be an integer");
	a = optest_attrs(3, "pad0", 1.0, "pad1", 1.0, "value", INFINITY);
	optest_rejects("pad", &in, &out, &a, "pad: value must be a finite number");
	a = optest_attrs(1, "left", 1.0);
	optest_rejects("pad", &in, &out, &a, "pad:");
	krl_tensor xi = T(x, KRL_I64, 1, I(3));
	a = optest_attrs(2, "pad0", 1.0, "pad1", 1.0);
	optest_rejects("pad", &xi, &out, &a, "pad: x must be f32, not i64");
}

/* ==== roll ==== */

static void test_roll(void **state)
{
	(void)state;
	double x[] = { 0, 1, 2, 3, 4 };
	double y[8];
	krl_tensor in = T(x, F, 1, I(5)), out = T(y, F, 1, I(5));
	struct {
		double shift;
		double want[5];
	} one[] = {
		{ 2, { 3, 4, 0, 1, 2 } }, { -1, { 1, 2, 3, 4, 0 } },
		{ 7, { 3, 4, 0, 1, 2 } }, { -6, { 1, 2, 3, 4, 0 } },
		{ 0, { 0, 1, 2, 3, 4 } }, { 5, { 0, 1, 2, 3, 4 } },
	};
	for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
		krl_attrs a = optest_attrs(2, "dim0", 0.0, "shift0", one[i].shift);
		optest_golden("roll", &in, &out, &a);
		optest_near(y, one[i].want, 5, 0);
	}

	double m[] = { 1, 2, 3, 4, 5, 6 };
	in = T(m, F, 2, I(2), I(3));
	out = T(y, F, 2, I(2), I(3));
	/* without dims: the flat tensor */
	krl_attrs a = optest_attrs(1, "shift0", 1.0);
	optest_golden("roll", &in, &out, &a);
	optest_near(y, (double[]){ 6, 1, 2, 3, 4, 5 }, 6, 0);
	/* the last dim by a negative index */
	a = optest_attrs(2, "dim0", -1.0, "shift0", 1.0);
	optest_golden("roll", &in, &out, &a);
	optest_near(y, (double[]){ 3, 1, 2, 6, 4, 5 }, 6, 0);
	/* two dims: rows down by 1, then columns left by 1 */
	a = optest_attrs(4, "dim0", 0.0, "shift0", 1.0, "dim1", 1.0,
	                 "shift1", -1.0);
	optest_golden("roll", &in, &out, &a);
	optest_near(y, (double[]){ 5, 6, 4, 2, 3, 1 }, 6, 0);
	/* one dim twice: the shifts add */
	a = optest_attrs(4, "dim0", 1.0, "shift0", 1.0, "dim1", 1.0,
	                 "shift1", 1.0);
	optest_golden("roll", &in, &out, &a);
	optest_near(y, (double[]){ 2, 3, 1, 5, 6, 4 }, 6, 0);
	/* any dtype */
	krl_tensor ii = T(m, KRL_I64, 2, I(2), I(3));
	krl_tensor io = T(y, KRL_I64, 2, I(2), I(3));
	a = optest_attrs(2, "dim0", 0.0, "shift0", 3.0);
	optest_golden("roll", &ii, &io, &a);
	optest_near(y, (double[]){ 4, 5, 6, 1, 2, 3 }, 6, 0);

	/* errors */
	a = optest_attrs(1, "dim0", 0.0);
	optest_rejects("roll", &in, &out, &a, "roll: attribute shift0 is required");
	a = optest_attrs(3, "dim0", 0.0, "shift0", 1.0, "dim1", 1.0);
	optest_rejects("roll", &in, &out, &a, "roll: dim1 needs shift1");
	a = optest_attrs(3, "dim0", 0.0, "shift0", 1.0, "shift1", 1.0);
	optest_rejects("roll", &in, &out, &a, "roll: shift1 needs dim1");
	a = optest_attrs(3, "shift0", 1.0, "dim1", 1.0, "shift1", 1.0);
	optest_rejects("roll", &in, &out, &a, "roll: dim1 needs dim0");
	a = optest_attrs(2, "dim0", 2.0, "shift0", 1.0);
	optest_rejects("roll", &in, &out, &a, "roll: dim0=2 must be an integer in "
	               "-2 .. 1");
	a = optest_attrs(2, "dim0", 0.0, "shift0", 0.5);
	optest_rejects("roll", &in, &out, &a, "roll: shift0=0.5 must be an integer");
	a = optest_attrs(2, "dim0", 0.0, "shift0", 1.0);
	out = T(y, F, 2, I(3), I(2));
	optest_rejects("roll", &in, &out, &a, "roll: x is [2, 3] but y is [3, 2]: "
	               "shapes must be equal");
	optest_rejects("roll", &in, &io, &a, "roll: x is f32 but y is i64: dtypes "
	               "must be equal");
}

/* ==== index_select ==== */

static void test_index_select(void **state)
{
	(void)state;
	double x[] = { 1, 2, 3, 4, 5, 6 };
	double y[16];
	/* dim 0, indices repeated and out of order (table[idx]) */
	double ix[] = { 2, 0, 2, 1 };
	krl_tensor in[2] = { T(x, F, 2, I(3), I(2)), T(ix, KRL_I64, 1, I(4)) };
	krl_tensor out = T(y, F, 2, I(4), I(2));
	krl_attrs a = optest_attrs(1, "dim", 0.0);
	optest_golden("index_select", in, &out, &a);
	optest_near(y, (double[]){ 5, 6, 1, 2, 5, 6, 3, 4 }, 8, 0);

	/* the last dim, by a negative dim */
	double iy[] = { 2, 2, 0 };
	in[0] = T(x, F, 2, I(2), I(3));
	in[1] = T(iy, KRL_I64, 1, I(3));
	out = T(y, F, 2, I(2), I(3));
	a = optest_attrs(1, "dim", -1.0);
	optest_golden("index_select", in, &out, &a);
	optest_near(y, (double[]){ 3, 3, 1, 6, 6, 4 }, 6, 0);

	/* no indices: an empty y */
	in[1] = T(iy, KRL_I64, 1, I(0));
	out = T(y, F, 2, I(2), I(0));
	optest_golden("index_select", in, &out, &a);

	/* an index out of range: the golden version fails */
	const krl_op *op = krl_op_find("index_select");
	double bad[] = { 0, 3 };
	in[1] = T(bad, KRL_I64, 1, I(2));
	out = T(y, F, 2, I(2), I(2));
	assert_int_equal(op->check(in, &out, &a, NULL, 0), KRL_OK);
	assert_int_equal(op->golden(in, &out, &a), KRL_EINVAL);
	bad[1] = -1;
	assert_int_equal(op->golden(in, &out, &a), KRL_EINVAL);

	/* errors */
	in[1] = T(ix, KRL_I64, 1, I(4));
	out = T(y, F, 2, I(2), I(3));
	optest_rejects("index_select", in, &out, &a, "index_select: x is [2, 3] and "
	               "idx has 4 indices, so y must be [2, 4], not [2, 3]");
	in[1] = T(ix, KRL_I64, 2, I(2), I(2));
	optest_rejects("index_select", in, &out, &a, "index_select: idx is [2, 2] "
	               "but must be 1-D");
	in[1] = T(ix, F, 1, I(4));
	optest_rejects("index_select", in, &out, &a, "index_select: idx must be "
	               "i64, not f32");
	in[1] = T(ix, KRL_I64, 1, I(4));
	a = optest_attrs(1, "dim", 2.0);
	optest_rejects("index_select", in, &out, &a, "index_select: dim=2 is out of "
	               "range");
	optest_rejects("index_select", in, &out, NULL, "index_select: attribute dim "
	               "is required");
	in[0] = T(x, F, 2, I(0), I(3));
	a = optest_attrs(1, "dim", 0.0);
	optest_rejects("index_select", in, &out, &a, "index_select: x is [0, 3]: "
	               "cannot select from dim 0 of size 0");
}

/* ==== permute ==== */

static void test_permute(void **state)
{
	(void)state;
	double x[720], y[720];
	for (int i = 0; i < 720; i++)
		x[i] = i;

	/* a 2-D transpose of [2, 3] */
	krl_tensor in = T(x, F, 2, I(2), I(3)), out = T(y, F, 2, I(3), I(2));
	krl_attrs a = optest_attrs(2, "p0", 1.0, "p1", 0.0);
	optest_golden("permute", &in, &out, &a);
	optest_near(y, (double[]){ 0, 3, 1, 4, 2, 5 }, 6, 0);

	/* [2, 3, 2] by (2, 0, 1): y[k][i][j] = x[i][j][k] */
	in = T(x, F, 3, I(2), I(3), I(2));
	out = T(y, F, 3, I(2), I(2), I(3));
	a = optest_attrs(3, "p0", 2.0, "p1", 0.0, "p2", 1.0);
	optest_golden("permute", &in, &out, &a);
	optest_near(y, (double[]){ 0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11 }, 12,
	            0);

	/* the identity is a copy; an i64 tensor moves as it is */
	in = T(x, KRL_I64, 2, I(3), I(4));
	out = T(y, KRL_I64, 2, I(3), I(4));
	a = optest_attrs(2, "p0", 0.0, "p1", 1.0);
	optest_golden("permute", &in, &out, &a);
	optest_near(y, x, 12, 0);

	/* ShuffleNet's channel shuffle: [1, g=2, 3, 2] (c = 6 channels of 2
	 * pixels) by (0, 2, 1, 3): channel order 0 3 1 4 2 5 */
	in = T(x, F, 4, I(1), I(2), I(3), I(2));
	out = T(y, F, 4, I(1), I(3), I(2), I(2));
	a = optest_attrs(4, "p0", 0.0, "p1", 2.0, "p2", 1.0, "p3", 3.0);
	optest_golden("permute", &in, &out, &a);
	optest_near(y, (double[]){ 0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11 }, 12,
	            0);

	/* rank 8, reversed, dims 1 2 3 1 2 1 2 5 (120 elements): y at
	 * coordinates c is x at c reversed */
	int64_t dx[8] = { 1, 2, 3, 1, 2, 1, 2, 5 };
	in = T(x, F, 8, dx[0], dx[1], dx[2], dx[3], dx[4], dx[5], dx[6], dx[7]);
	out = T(y, F, 8, dx[7], dx[6], dx[5], dx[4], dx[3], dx[2], dx[1], dx[0]);
	a = optest_attrs(8, "p0", 7.0, "p1", 6.0, "p2", 5.0, "p3", 4.0,
	                 "p4", 3.0, "p5", 2.0, "p6", 1.0, "p7", 0.0);
	optest_golden("permute", &in, &out, &a);
	for (int e = 0; e < 120; e++) {
		int64_t c[8], k = e, f = 0;
		for (int i = 7; i >= 0; i--) {
			c[i] = k % out.dim[i];
			k /= out.dim[i];
		}
		for (int i = 7; i >= 0; i--)   /* x's dim j = y's dim 7 - j */
			f = f * dx[7 - i] + c[i];
		assert_true(y[e] == x[f]);
	}

	/* errors */
	in = T(x, F, 2, I(2), I(3));
	out = T(y, F, 2, I(2), I(3));
	a = optest_attrs(2, "p0", 1.0, "p1", 0.0);
	optest_rejects("permute", &in, &out, &a, "permute: x is [2, 3], so y must "
	               "be [3, 2], not [2, 3]");
	a = optest_attrs(1, "p0", 1.0);
	optest_rejects("permute", &in, &out, &a, "permute: x is [2, 3], so p0 .. "
	               "p1 are required and p1 is missing");
	a = optest_attrs(3, "p0", 1.0, "p1", 0.0, "p2", 2.0);
	optest_rejects("permute", &in, &out, &a, "permute: x is [2, 3], so p0 .. "
	               "p1 are given and p2 is one too many");
	a = optest_attrs(2, "p0", 1.0, "p1", 1.0);
	optest_rejects("permute", &in, &out, &a, "permute: dim 1 is named twice");
	a = optest_attrs(2, "p0", 2.0, "p1", 0.0);
	optest_rejects("permute", &in, &out, &a, "permute: p0=2 must be an integer "
	               "in 0 .. 1");
	a = optest_attrs(2, "p0", -1.0, "p1", 0.0);
	optest_rejects("permute", &in, &out, &a, "permute: p0=-1 must be an "
	               "integer in 0 .. 1");
	a = optest_attrs(2, "p0", 0.0, "q1", 1.0);
	optest_rejects("permute", &in, &out, &a, "permute:");
	krl_tensor oi = T(y, KRL_I64, 2, I(2), I(3));
	a = optest_attrs(2, "p0", 0.0, "p1", 1.0);
	optest_rejects("permute", &in, &oi, &a, "permute: x is f32 but y is i64: "
	               "dtypes must be equal");
	krl_tensor s = T(x, F, 0), so = T(y, F, 0);
	optest_rejects("permute", &s, &so, NULL, "permute: x is a scalar");
}

/* ==== In a plan ==== */

static const char plan_task[] =
	"task shape_ops\n"
	"shapes kb0 n=2 m=3\nshapes kb1 n=2 m=3\nshapes tiny n=2 m=3\n"
	"input x f32 [n, m] normal(0, 1)\n"
	"input idx i64 [4] randint(0, 2)\n"
	"output y f32 [3, 6]\n"
	"output z f32 [n, m]\n"
	"output w f32 [4, m]\n"
	"output v f32 [m, n]\n"
	"tolerance atol=0 rtol=0\n"
	"plan\n"
	"  call pad(x) -> y pad0=1 pad1=2 pad2=0 pad3=1 value=-0.5\n"
	"  call roll(x) -> z dim0=0 shift0=-1 dim1=1 shift1=4\n"
	"  call index_select(x, idx) -> w dim=0\n"
	"  call permute(x) -> v p0=1 p1=0\n"
	"end\n";

static void test_in_plan(void **state)
{
	(void)state;
	krl_task *t;
	krl_program *p;
	krl_diag d;
	KRL_ASSERT_OK(krl_task_parse("s.task", plan_task, strlen(plan_task), &t,
	                             &d), &d);
	krl_limits lim = krl_limits_sm90();
	KRL_ASSERT_OK(krl_program_build(t, NULL, "tiny", &lim, &p, &d), &d);
	assert_int_equal(p->nbody, 4);
	double x[] = { 1, 2, 3, 4, 5, 6 }, idx[] = { 1, 1, 0, 1 };
	double y[18], z[6], w[12], v[6];
	double *bufs[] = { x, idx, y, z, w, v };
	assert_true(p->nbufs >= 6);
	KRL_ASSERT_OK(krl_exec_golden(p, bufs, &d), &d);
	double h = (float)-0.5;
	optest_near(y, (double[]){ h, 1, 2, 3, h, h, h, 4, 5, 6, h, h,
	                           h, h, h, h, h, h }, 18, 0);
	/* rows up by one, columns right by 4 = by 1 */
	optest_near(z, (double[]){ 6, 4, 5, 3, 1, 2 }, 6, 0);
	optest_near(w, (double[]){ 4, 5, 6, 4, 5, 6, 1, 2, 3, 4, 5, 6 }, 12, 0);
	optest_near(v, (double[]){ 1, 4, 2, 5, 3, 6 }, 6, 0);
	krl_program_free(p);
	krl_task_free(t);

	/* a bad call is an invalid plan naming the op's sentence */
	char bad[sizeof plan_task];
	memcpy(bad, plan_task, sizeof plan_task);
	char *at = strstr(bad, "pad2=0 pad3=1");
	memcpy(at, "pad2=0 pad3=2", 13);
	KRL_ASSERT_OK(krl_task_parse("s.task", bad, strlen(bad), &t, &d), &d);
	assert_int_equal(krl_program_build(t, NULL, "tiny", &lim, &p, &d),
	                 KRL_EINVAL);
	assert_non_null(strstr(d.msg, "pad: x is [2, 3], so y must be [4, 6], "
	                       "not [3, 6]"));
	krl_task_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_pad),
		cmocka_unit_test(test_roll),
		cmocka_unit_test(test_index_select),
		cmocka_unit_test(test_permute),
		cmocka_unit_test(test_in_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
