/*
 * Tests of the op library that need no GPU: every op's float64 golden
 * version against values computed by hand on small tensors, and every
 * check() accepting good shapes and rejecting bad ones with a clear
 * sentence.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "krl/ops.h"
#include "optest.h"
#include "testutil.h"

/* ==== Helpers ==== */

static void accepts(const char *name, const krl_tensor *in,
                    const krl_tensor *out, const krl_attrs *a)
{
	const krl_op *op = krl_op_find(name);
	char msg[512] = "";
	krl_err r = op->check(in, out, a, msg, sizeof msg);
	if (r)
		fprintf(stderr, "%s: unexpected rejection: %s\n", name, msg);
	assert_int_equal(r, KRL_OK);
}

/* ==== Registry ==== */

static void test_registry(void **state)
{
	(void)state;
	int n = 0;
	const krl_op *const *all = krl_op_all(&n);
	/* The first ops of the language, each found by name in its family
	 * (tests/ops/test_registry.c checks the families themselves). */
	assert_true(n >= 20);
	const char *names[] = { "gemm", "relu", "gelu", "add", "sub", "mul",
		"div", "square", "scale", "sum", "mean", "max", "min", "argmax",
		"argmin", "softmax", "log_softmax", "layernorm", "cumsum",
		"copy" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const krl_op *op = krl_op_find(names[i]);
		assert_non_null(op);
		assert_string_equal(op->name, names[i]);
		assert_non_null(op->check);
		assert_non_null(op->run);
		assert_non_null(op->golden);
		assert_non_null(op->doc);
	}
	assert_null(krl_op_find("no_such_op"));
	/* Every op in the registry is whole and found by its own name, once. */
	for (int i = 0; i < n; i++) {
		assert_non_null(all[i]->check);
		assert_non_null(all[i]->golden);
		assert_non_null(all[i]->run);
		assert_ptr_equal(krl_op_find(all[i]->name), all[i]);
	}
	assert_null(krl_op_find(NULL));
	assert_int_equal(krl_op_find("layernorm")->nin, 3);
	krl_attrs a = optest_attrs(1, "dim", -1.0);
	assert_true(krl_attrs_get(&a, "dim", 7) == -1.0);
	assert_true(krl_attrs_get(&a, "eps", 7) == 7.0);
	assert_true(krl_attrs_get(NULL, "eps", 3) == 3.0);
	double buf[1];
	krl_tensor s = optest_tensor(buf, 0);
	assert_int_equal(krl_tensor_numel(&s), 1);
	krl_tensor t = optest_tensor(buf, 3, I(2), I(3), I(4));
	assert_int_equal(krl_tensor_numel(&t), 24);
}

/* ==== GEMM ==== */

static void test_gemm(void **state)
{
	(void)state;
	double a[] = { 1, 2, 3, 4, 5, 6 };         /* 2x3 */
	double at[] = { 1, 4, 2, 5, 3, 6 };        /* its transpose, 3x2 */
	double b[] = { 7, 8, 9, 10, 11, 12 };      /* 3x2 */
	double bt[] = { 7, 9, 11, 8, 10, 12 };     /* its transpose, 2x3 */
	double want[] = { 58, 64, 139, 154 };
	double c[4];
	krl_tensor out = optest_tensor(c, 2, I(2), I(2));
	for (int ta = 0; ta < 2; ta++)
		for (int tb = 0; tb < 2; tb++) {
			krl_tensor in[2] = {
				ta ? optest_tensor(at, 2, I(3), I(2)) : optest_tensor(a, 2, I(2), I(3)),
				tb ? optest_tensor(bt, 2, I(2), I(3)) : optest_tensor(b, 2, I(3), I(2)),
			};
			krl_attrs at_ = optest_attrs(2, "ta", (double)ta, "tb",
			                      (double)tb);
			memset(c, 0, sizeof c);
			optest_golden("gemm", in, &out, &at_);
			optest_near(c, want, 4, 0);
		}
	/* alpha, and a batch of 2 with b broadcast */
	double a2[12];
	for (int i = 0; i < 6; i++) {
		a2[i] = a[i];
		a2[6 + i] = -a[i];
	}
	double c2[8];
	krl_tensor in2[2] = { optest_tensor(a2, 3, I(2), I(2), I(3)), optest_tensor(b, 2, I(3), I(2)) };
	krl_tensor out2 = optest_tensor(c2, 3, I(2), I(2), I(2));
	krl_attrs al = optest_attrs(1, "alpha", 0.5);
	optest_golden("gemm", in2, &out2, &al);
	double want2[] = { 29, 32, 69.5, 77, -29, -32, -69.5, -77 };
	optest_near(c2, want2, 8, 0);
	/* batched b as well */
	double b2[12];
	for (int i = 0; i < 6; i++) {
		b2[i] = b[i];
		b2[6 + i] = 1;
	}
	krl_tensor in3[2] = { optest_tensor(a2, 3, I(2), I(2), I(3)),
	                      optest_tensor(b2, 3, I(2), I(3), I(2)) };
	optest_golden("gemm", in3, &out2, NULL);
	double want3[] = { 58, 64, 139, 154, -6, -6, -15, -15 };
	optest_near(c2, want3, 8, 0);
}

static void test_gemm_check(void **state)
{
	(void)state;
	krl_tensor in[2] = { optest_tensor(NULL, 2, I(64), I(32)), optest_tensor(NULL, 2, I(31), I(16)) };
	krl_tensor out = optest_tensor(NULL, 2, I(64), I(16));
	optest_rejects("gemm", in, &out, NULL, "gemm: a is [64, 32] but b is "
	        "[31, 16]: inner dimensions differ");
	in[1].dim[0] = 32;
	accepts("gemm", in, &out, NULL);
	out.dim[1] = 17;
	optest_rejects("gemm", in, &out, NULL, "gemm: c is [64, 17] but a [64, 32] "
	        "@ b [32, 16] gives [64, 16]");
	out.dim[1] = 16;
	krl_attrs t = optest_attrs(1, "tb", 1.0);
	optest_rejects("gemm", in, &out, &t, "(tb=1)");
	krl_attrs bad = optest_attrs(1, "ta", 2.0);
	optest_rejects("gemm", in, &out, &bad, "gemm: ta must be 0 or 1");
	krl_attrs unk = optest_attrs(1, "beta", 1.0);
	optest_rejects("gemm", in, &out, &unk, "gemm: unknown attribute 'beta' "
	        "(allowed: ta, tb, alpha, algo)");
	/* algo: which of cuBLASLt's heuristic results, 0 to 7 */
	krl_attrs al = optest_attrs(1, "algo", 3.0);
	char amsg[512] = "";
	assert_int_equal(krl_op_find("gemm")->check(in, &out, &al, amsg,
	                                            sizeof amsg), KRL_OK);
	krl_attrs al8 = optest_attrs(1, "algo", 8.0);
	optest_rejects("gemm", in, &out, &al8, "gemm: algo=8 must be an integer "
	        "from 0 to 7");
	krl_attrs alh = optest_attrs(1, "algo", 0.5);
	optest_rejects("gemm", in, &out, &alh, "gemm: algo=0.5 must be an integer");
	in[0].dtype = KRL_F16;
	optest_rejects("gemm", in, &out, NULL, "gemm: a must be f32, not f16");
	in[0].dtype = KRL_F32;
	/* batches: equal, or none on b */
	krl_tensor bi[2] = { optest_tensor(NULL, 3, I(3), I(4), I(5)),
	                     optest_tensor(NULL, 3, I(3), I(5), I(6)) };
	krl_tensor bo = optest_tensor(NULL, 3, I(3), I(4), I(6));
	accepts("gemm", bi, &bo, NULL);
	bi[1] = optest_tensor(NULL, 2, I(5), I(6));
	accepts("gemm", bi, &bo, NULL);
	bi[1] = optest_tensor(NULL, 3, I(2), I(5), I(6));
	optest_rejects("gemm", bi, &bo, NULL, "batch dim 0 differs");
	krl_tensor vi[2] = { optest_tensor(NULL, 1, I(5)), optest_tensor(NULL, 2, I(5), I(6)) };
	optest_rejects("gemm", vi, &bo, NULL, "gemm: a is [5] but must have at "
	        "least 2 dims");
}

/* ==== Elementwise ==== */

static void test_elementwise(void **state)
{
	(void)state;
	double x[] = { -2, -0.5, 0, 1, 3 };
	double y[5];
	krl_tensor in = optest_tensor(x, 1, I(5)), out = optest_tensor(y, 1, I(5));
	optest_golden("relu", &in, &out, NULL);
	double relu[] = { 0, 0, 0, 1, 3 };
	optest_near(y, relu, 5, 0);
	optest_golden("square", &in, &out, NULL);
	double sq[] = { 4, 0.25, 0, 1, 9 };
	optest_near(y, sq, 5, 0);
	krl_attrs al = optest_attrs(1, "alpha", -3.0);
	optest_golden("scale", &in, &out, &al);
	double sc[] = { 6, 1.5, 0, -3, -9 };
	optest_near(y, sc, 5, 0);
	optest_golden("copy", &in, &out, NULL);
	optest_near(y, x, 5, 0);

	double g1[] = { 1.0, -1.0, 0.0 }, gy[3];
	krl_tensor gi = optest_tensor(g1, 1, I(3)), go = optest_tensor(gy, 1, I(3));
	optest_golden("gelu", &gi, &go, NULL);
	double ge[] = { 0.8413447460685429, -0.15865525393145707, 0 };
	optest_near(gy, ge, 3, 1e-15);
	krl_attrs th = optest_attrs(1, "tanh", 1.0);
	optest_golden("gelu", &gi, &go, &th);
	assert_true(fabs(gy[0] - 0.8411919906082768) < 1e-15);

	double a[] = { 1, 2, 3, -4 }, b[] = { 4, -8, 0.5, 2 }, r[4];
	krl_tensor bin[2] = { optest_tensor(a, 2, I(2), I(2)), optest_tensor(b, 2, I(2), I(2)) };
	krl_tensor bo = optest_tensor(r, 2, I(2), I(2));
	optest_golden("add", bin, &bo, NULL);
	optest_near(r, (double[]){ 5, -6, 3.5, -2 }, 4, 0);
	optest_golden("sub", bin, &bo, NULL);
	optest_near(r, (double[]){ -3, 10, 2.5, -6 }, 4, 0);
	optest_golden("mul", bin, &bo, NULL);
	optest_near(r, (double[]){ 4, -16, 1.5, -8 }, 4, 0);
	optest_golden("div", bin, &bo, NULL);
	optest_near(r, (double[]){ 0.25, -0.25, 6, -2 }, 4, 0);
}

static void test_elementwise_check(void **state)
{
	(void)state;
	krl_tensor in[2] = { optest_tensor(NULL, 2, I(4), I(8)), optest_tensor(NULL, 2, I(4), I(9)) };
	krl_tensor out = optest_tensor(NULL, 2, I(4), I(8));
	optest_rejects("add", in, &out, NULL, "add: a is [4, 8] but b is [4, 9]: "
	        "shapes must be equal");
	in[1].dim[1] = 8;
	accepts("mul", in, &out, NULL);
	out.dim[0] = 5;
	optest_rejects("div", in, &out, NULL, "div: a and b are [4, 8] but y is "
	        "[5, 8]");
	optest_rejects("relu", in, &out, NULL, "relu: x is [4, 8] but y is [5, 8]: "
	        "shapes must be equal");
	out.dim[0] = 4;
	optest_rejects("scale", in, &out, NULL, "scale: attribute alpha is required");
	krl_attrs dim = optest_attrs(1, "dim", 0.0);
	optest_rejects("relu", in, &out, &dim, "relu: unknown attribute 'dim' (it "
	        "takes none)");
	krl_attrs th = optest_attrs(1, "tanh", 0.5);
	optest_rejects("gelu", in, &out, &th, "gelu: tanh must be 0 or 1");
	/* copy: any dtype, reshape allowed */
	krl_tensor ci = optest_tensor(NULL, 2, I(4), I(8)), co = optest_tensor(NULL, 1, I(32));
	ci.dtype = co.dtype = KRL_I64;
	accepts("copy", &ci, &co, NULL);
	co.dim[0] = 33;
	optest_rejects("copy", &ci, &co, NULL, "copy: x is [4, 8] but y is [33]: "
	        "element counts differ");
	co.dtype = KRL_F32;
	optest_rejects("copy", &ci, &co, NULL, "copy: x is i64 but y is f32");
}

/* ==== Reductions ==== */

static void test_reductions(void **state)
{
	(void)state;
	double x[12];
	for (int i = 0; i < 12; i++)
		x[i] = i + 1;
	double y[4];
	krl_tensor in = optest_tensor(x, 3, I(2), I(3), I(2));
	krl_attrs d1 = optest_attrs(1, "dim", 1.0);
	krl_tensor keep = optest_tensor(y, 3, I(2), I(1), I(2));
	optest_golden("sum", &in, &keep, &d1);
	optest_near(y, (double[]){ 9, 12, 27, 30 }, 4, 0);
	krl_tensor drop = optest_tensor(y, 2, I(2), I(2));
	memset(y, 0, sizeof y);
	optest_golden("sum", &in, &drop, &d1);
	optest_near(y, (double[]){ 9, 12, 27, 30 }, 4, 0);
	optest_golden("mean", &in, &drop, &d1);
	optest_near(y, (double[]){ 3, 4, 9, 10 }, 4, 1e-15);
	optest_golden("max", &in, &drop, &d1);
	optest_near(y, (double[]){ 5, 6, 11, 12 }, 4, 0);
	optest_golden("min", &in, &drop, &d1);
	optest_near(y, (double[]){ 1, 2, 7, 8 }, 4, 0);
	krl_attrs dm1 = optest_attrs(1, "dim", -1.0);
	double y6[6];
	krl_tensor o6 = optest_tensor(y6, 2, I(2), I(3));
	optest_golden("sum", &in, &o6, &dm1);
	optest_near(y6, (double[]){ 3, 7, 11, 15, 19, 23 }, 6, 0);

	/* mean of everything into [] */
	double m[] = { 1, 2, 3, 4 }, s;
	krl_tensor mi = optest_tensor(m, 2, I(2), I(2)), mo = optest_tensor(&s, 0);
	optest_golden("mean", &mi, &mo, NULL);
	assert_true(s == 2.5);

	/* arg*: ties give the first index */
	double t[] = { 1, 3, 3, 2, 2, 1 }, ix[3];
	krl_tensor ti = optest_tensor(t, 2, I(2), I(3));
	krl_tensor to = optest_tensor(ix, 1, I(2));
	to.dtype = KRL_I64;
	optest_golden("argmax", &ti, &to, &d1);
	optest_near(ix, (double[]){ 1, 0 }, 2, 0);
	optest_golden("argmin", &ti, &to, &d1);
	optest_near(ix, (double[]){ 0, 2 }, 2, 0);
	krl_attrs d0 = optest_attrs(1, "dim", 0.0);
	krl_tensor to3 = optest_tensor(ix, 2, I(1), I(3));
	to3.dtype = KRL_I64;
	optest_golden("argmax", &ti, &to3, &d0);
	optest_near(ix, (double[]){ 1, 0, 0 }, 3, 0);
	optest_golden("argmin", &ti, &to3, &d0);
	optest_near(ix, (double[]){ 0, 1, 1 }, 3, 0);
}

static void test_reduction_check(void **state)
{
	(void)state;
	krl_tensor x = optest_tensor(NULL, 3, I(2), I(3), I(4));
	krl_tensor y = optest_tensor(NULL, 2, I(2), I(4));
	krl_attrs d1 = optest_attrs(1, "dim", 1.0);
	accepts("sum", &x, &y, &d1);
	krl_tensor k = optest_tensor(NULL, 3, I(2), I(1), I(4));
	accepts("max", &x, &k, &d1);
	krl_tensor bad = optest_tensor(NULL, 2, I(2), I(3));
	optest_rejects("sum", &x, &bad, &d1, "sum: x is [2, 3, 4] and dim=1, so y "
	        "must be [2, 1, 4] or [2, 4], not [2, 3]");
	optest_rejects("min", &x, &y, NULL, "min: attribute dim is required");
	krl_attrs d3 = optest_attrs(1, "dim", 3.0);
	optest_rejects("sum", &x, &y, &d3, "sum: dim=3 is out of range for x "
	        "[2, 3, 4] (rank 3: use -3 .. 2)");
	krl_attrs dh = optest_attrs(1, "dim", 0.5);
	optest_rejects("sum", &x, &y, &dh, "out of range");
	optest_rejects("argmax", &x, &y, &d1, "argmax: y must be i64, not f32");
	y.dtype = KRL_I64;
	accepts("argmin", &x, &y, &d1);
	y.dtype = KRL_F32;
	krl_tensor s = optest_tensor(NULL, 0);
	accepts("mean", &x, &s, NULL);
	optest_rejects("mean", &x, &y, NULL, "mean: without dim it averages all of "
	        "x [2, 3, 4] into one element, so y must be [], not [2, 4]");
	accepts("mean", &x, &y, &d1);
}

/* ==== Softmax, cumsum, layernorm ==== */

static void test_softmax(void **state)
{
	(void)state;
	double x[] = { 1, 2, 3 }, y[3];
	krl_tensor in = optest_tensor(x, 1, I(3)), out = optest_tensor(y, 1, I(3));
	krl_attrs d0 = optest_attrs(1, "dim", 0.0);
	optest_golden("softmax", &in, &out, &d0);
	optest_near(y, (double[]){ 0.09003057317038046, 0.24472847105479767,
	                    0.6652409557748219 }, 3, 1e-15);
	optest_golden("log_softmax", &in, &out, &d0);
	optest_near(y, (double[]){ -2.40760596444438, -1.4076059644443801,
	                    -0.40760596444438013 }, 3, 1e-14);
	/* along dim 0 of a 3x2: each column is [1, 2, 3] */
	double x2[] = { 1, 1, 2, 2, 3, 3 }, y2[6];
	krl_tensor i2 = optest_tensor(x2, 2, I(3), I(2)), o2 = optest_tensor(y2, 2, I(3), I(2));
	optest_golden("softmax", &i2, &o2, &d0);
	optest_near(y2, (double[]){ 0.09003057317038046, 0.09003057317038046,
	                     0.24472847105479767, 0.24472847105479767,
	                     0.6652409557748219, 0.6652409557748219 }, 6,
	     1e-15);
	krl_tensor o3 = optest_tensor(y2, 2, I(2), I(3));
	optest_rejects("softmax", &i2, &o3, &d0, "softmax: x is [3, 2] but y is "
	        "[2, 3]: shapes must be equal");
	optest_rejects("log_softmax", &i2, &o2, NULL, "log_softmax: attribute dim "
	        "is required");
}

static void test_cumsum(void **state)
{
	(void)state;
	double x[] = { 1, 2, 3, 4, 5, 6 }, y[6];
	krl_tensor i1 = optest_tensor(x, 1, I(4)), o1 = optest_tensor(y, 1, I(4));
	krl_attrs d0 = optest_attrs(1, "dim", 0.0), dm1 = optest_attrs(1, "dim", -1.0);
	optest_golden("cumsum", &i1, &o1, &dm1);
	optest_near(y, (double[]){ 1, 3, 6, 10 }, 4, 0);
	krl_tensor i2 = optest_tensor(x, 2, I(2), I(3)), o2 = optest_tensor(y, 2, I(2), I(3));
	optest_golden("cumsum", &i2, &o2, &d0);
	optest_near(y, (double[]){ 1, 2, 3, 5, 7, 9 }, 6, 0);
	optest_golden("cumsum", &i2, &o2, &dm1);
	optest_near(y, (double[]){ 1, 3, 6, 4, 9, 15 }, 6, 0);
	krl_attrs d2 = optest_attrs(1, "dim", 2.0);
	optest_rejects("cumsum", &i2, &o2, &d2, "cumsum: dim=2 is out of range");
}

static void test_layernorm(void **state)
{
	(void)state;
	double x[] = { 1, 2, 3, 4, 6, 8 }, w[] = { 1, 2, 0.5 },
	       b[] = { 0, 1, -1 }, y[6];
	krl_tensor in[3] = { optest_tensor(x, 2, I(2), I(3)), optest_tensor(w, 1, I(3)), optest_tensor(b, 1, I(3)) };
	krl_tensor out = optest_tensor(y, 2, I(2), I(3));
	/* eps = 0: both rows normalise to [-sqrt(1.5), 0, sqrt(1.5)] */
	krl_attrs e0 = optest_attrs(1, "eps", 0.0);
	optest_golden("layernorm", in, &out, &e0);
	double r = 1.224744871391589;
	double want[] = { -r, 1, 0.5 * r - 1, -r, 1, 0.5 * r - 1 };
	optest_near(y, want, 6, 1e-14);
	/* default eps 1e-5: row 0 var 2/3, row 1 var 8/3 */
	optest_golden("layernorm", in, &out, NULL);
	double r0 = 1 / sqrt(2.0 / 3 + 1e-5), r1 = 2 / sqrt(8.0 / 3 + 1e-5);
	optest_near(y, (double[]){ -r0, 1, 0.5 * r0 - 1, -r1, 1, 0.5 * r1 - 1 }, 6,
	     1e-14);
	/* axes=2 over a [2, 3] tail */
	krl_tensor in2[3] = { optest_tensor(x, 2, I(2), I(3)), optest_tensor(w, 2, I(1), I(3)),
	                      optest_tensor(b, 1, I(3)) };
	krl_attrs ax2 = optest_attrs(1, "axes", 2.0);
	optest_rejects("layernorm", in2, &out, &ax2, "layernorm: x is [2, 3] and "
	        "axes=2, so w must be [2, 3], not [1, 3]");
	in2[1] = optest_tensor(x, 2, I(2), I(3));
	optest_rejects("layernorm", in2, &out, NULL, "layernorm: x is [2, 3] and "
	        "axes=2, so b must be [2, 3], not [3]");
	krl_attrs ax3 = optest_attrs(1, "axes", 3.0);
	optest_rejects("layernorm", in, &out, &ax3, "layernorm: axes=3 must be an "
	        "integer in 1 .. 2");
	double x3[12], w3[6], b3[6], y3[12];
	for (int i = 0; i < 12; i++)
		x3[i] = i * i % 7;
	for (int i = 0; i < 6; i++) {
		w3[i] = 1;
		b3[i] = 0;
	}
	krl_tensor in3[3] = { optest_tensor(x3, 3, I(2), I(2), I(3)),
	                      optest_tensor(w3, 2, I(2), I(3)), optest_tensor(b3, 2, I(2), I(3)) };
	krl_tensor out3 = optest_tensor(y3, 3, I(2), I(2), I(3));
	optest_golden("layernorm", in3, &out3, NULL);
	for (int row = 0; row < 2; row++) {
		double m = 0, v = 0;
		for (int j = 0; j < 6; j++)
			m += y3[row * 6 + j];
		for (int j = 0; j < 6; j++)
			v += y3[row * 6 + j] * y3[row * 6 + j];
		assert_true(fabs(m) < 1e-12);
		assert_true(fabs(v / 6 - 1) < 1e-4);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_gemm),
		cmocka_unit_test(test_gemm_check),
		cmocka_unit_test(test_elementwise),
		cmocka_unit_test(test_elementwise_check),
		cmocka_unit_test(test_reductions),
		cmocka_unit_test(test_reduction_check),
		cmocka_unit_test(test_softmax),
		cmocka_unit_test(test_cumsum),
		cmocka_unit_test(test_layernorm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
