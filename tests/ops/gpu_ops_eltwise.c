/*
 * GPU test of the op family "eltwise": every op on random inputs (drawn on
 * the host from a fixed seed), run on the device through krl_op.run and
 * compared with its float64 golden version, on a tiny shape, on a mid-size
 * shape with a partial last block (vectorised path plus scalar tail), and
 * with pointers one float off 16-byte alignment (the scalar kernel). NaN
 * inputs must give NaN where the golden op does. The ops the norm and loss
 * tasks use (abs, sqrt, log, the scalar ops, xlogy, smooth_l1, and
 * div/mul with b broadcast) run on several shapes, binary ones with two
 * inputs; add/sub/minimum with both operands broadcast over shapes that
 * make each side broadcast (ranks differing, 0-dim operands, sizes past a
 * block), dropout_apply with a bool keep-mask, and the mask ops
 * (eq_scalar whole and on strided leading slices, masked_fill with
 * broadcast masks and -inf, bitwise_not) exactly, their bool outputs
 * read back as bytes. Needs a GPU: skips (exit 77) without one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "krl/ops.h"
#include "gpuoptest.h"
#include "testutil.h"

/* ==== Random inputs ==== */

/* How inputs are drawn: normal(0, 1), normal(0, 12) (reaches softplus's
 * threshold and the saturated tails), |normal| (for sqrt/rsqrt/pow),
 * normal(0, 1) with every 97th element NaN, uniform 0.5 .. 1.5 (for
 * log, xlogy and divisors), and a bool keep-mask bernoulli(0.8) (a 1-byte
 * input of run_nary). */
typedef enum { D_NORMAL, D_WIDE, D_POSITIVE, D_NAN, D_UNIT, D_MASK,
	D_SMALLINT } dist;

/* Element j of an input drawn from dd. */
static double draw(dist dd, int64_t j)
{
	if (dd == D_UNIT)
		return 0.5 + gpuop_urand();
	if (dd == D_MASK)
		return gpuop_urand() < 0.8 ? 1.0 : 0.0;
	if (dd == D_SMALLINT) /* 0, 1 or 2 as floats: equalities happen */
		return floor(gpuop_urand() * 3);
	double v = gpuop_nrand();
	if (dd == D_WIDE)
		v *= 12;
	else if (dd == D_POSITIVE)
		v = fabs(v);
	else if (dd == D_NAN && j % 97 == 5)
		v = NAN;
	return v;
}

#define A0 A(0)
#define A1(k, v) A(1, (k), (double)(v))
#define A2(k0, v0, k1, v1) A(2, (k0), (double)(v0), (k1), (double)(v1))

/* ==== One case ==== */

/*
 * Runs op `name` on x [rows, cols] drawn from dd, on the GPU (x and y
 * placed `off` floats past an aligned allocation) and in golden float64,
 * and checks every element: abs(g - r) <= atol + rtol * abs(r), or both
 * NaN. Runs the GPU op twice, so a second call on the same buffers works.
 */
static void run_case(const char *name, int64_t rows, int64_t cols,
                     krl_attrs a, dist dd, int off, double atol,
                     double rtol)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	int64_t n = rows * cols;
	double *hx = malloc((size_t)n * sizeof(double));
	double *hy = malloc((size_t)n * sizeof(double));
	float *fx = malloc((size_t)n * sizeof(float));
	float *got = malloc((size_t)n * sizeof(float));
	assert_non_null(hx);
	assert_non_null(hy);
	assert_non_null(fx);
	assert_non_null(got);
	for (int64_t j = 0; j < n; j++) {
		double v = draw(dd, j);
		fx[j] = (float)v;
		hx[j] = (double)fx[j];
	}
	float *dx = NULL, *dy = NULL;
	CK(cudaMalloc((void **)&dx, (size_t)(n + off) * sizeof(float)));
	CK(cudaMalloc((void **)&dy, (size_t)(n + off) * sizeof(float)));
	CK(cudaMemcpy(dx + off, fx, (size_t)n * sizeof(float),
	              cudaMemcpyHostToDevice));
	CK(cudaMemset(dy, 0xff, (size_t)(n + off) * sizeof(float)));

	krl_tensor tx, ty;
	memset(&tx, 0, sizeof tx);
	tx.dtype = KRL_F32;
	tx.ndim = 2;
	tx.dim[0] = rows;
	tx.dim[1] = cols;
	ty = tx;
	tx.data = hx;
	ty.data = hy;
	char msg[512] = "";
	krl_err r = op->check(&tx, &ty, &a, msg, sizeof msg);
	if (r)
		fprintf(stderr, "%s: check: %s\n", name, msg);
	assert_int_equal(r, KRL_OK);
	assert_int_equal(op->golden(&tx, &ty, &a), KRL_OK);

	krl_tensor gx = tx, gy = ty;
	gx.data = dx + off;
	gy.data = dy + off;
	for (int rep = 0; rep < 2; rep++) {
		krl_diag d;
		memset(&d, 0, sizeof d);
		r = op->run(g_ctx, &gx, &gy, &a, &d);
		KRL_ASSERT_OK(r, &d);
	}
	CK(cudaStreamSynchronize(g_stream));
	CK(cudaMemcpy(got, dy + off, (size_t)n * sizeof(float),
	              cudaMemcpyDeviceToHost));

	int64_t bad = 0, worst = -1;
	double max_abs = 0, max_rel = 0, worst_ex = 0;
	for (int64_t j = 0; j < n; j++) {
		double g = got[j], ref = hy[j];
		if (isnan(ref) || isnan(g)) {
			if (!(isnan(ref) && isnan(g)) && bad++ == 0)
				worst = j;
			continue;
		}
		double e = fabs(g - ref);
		double lim = atol + rtol * fabs(ref);
		if (!(e <= lim)) {
			bad++;
			if (worst < 0 || e - lim > worst_ex) {
				worst = j;
				worst_ex = e - lim;
			}
		}
		if (isfinite(e)) {
			if (e > max_abs)
				max_abs = e;
			if (ref != 0 && e / fabs(ref) > max_rel)
				max_rel = e / fabs(ref);
		}
	}
	printf("%-12s [%lldx%lld]%s %-28s max_abs %.3g max_rel %.3g%s\n",
	       name, (long long)rows, (long long)cols, off ? " +1" : "   ",
	       a.n ? a.key[0] : "", max_abs, max_rel, bad ? "  FAIL" : "");
	if (bad)
		fprintf(stderr, "%s: %lld of %lld elements outside atol=%g "
		        "rtol=%g; worst at %lld: x %.9g, gpu %.9g, golden "
		        "%.9g\n", name, (long long)bad, (long long)n, atol,
		        rtol, (long long)worst, hx[worst], (double)got[worst],
		        hy[worst]);
	cudaFree(dx);
	cudaFree(dy);
	free(hx);
	free(hy);
	free(fx);
	free(got);
	assert_int_equal(bad, 0);
}

/*
 * Runs op `name` on inputs of shapes ins[nin] (input i drawn from dd[i];
 * f32, or bool bytes for D_MASK) into one output of shape outs, on the
 * GPU and in golden float64, and checks every output element with
 * abs(g - r) <= atol + rtol * abs(r). Runs the GPU op twice.
 */
static void run_nary_t(const char *name, const shape *ins, const dist *dd,
                       int nin, shape outs, krl_dtype ot, krl_attrs a,
                       double atol, double rtol)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	krl_tensor hin[2], din[2], hout, dout;
	assert_true(nin <= 2);
	for (int i = 0; i < nin; i++) {
		int64_t n = numel(&ins[i]);
		int mask = dd[i] == D_MASK;
		size_t es = mask ? 1 : sizeof(float);
		double *h = malloc((size_t)(n ? n : 1) * sizeof(double));
		float *f = malloc((size_t)(n ? n : 1) * sizeof(float));
		unsigned char *m = malloc((size_t)(n ? n : 1));
		assert_non_null(h);
		assert_non_null(f);
		assert_non_null(m);
		for (int64_t j = 0; j < n; j++) {
			f[j] = (float)draw(dd[i], j);
			m[j] = f[j] != 0;
			h[j] = (double)f[j];
		}
		memset(&hin[i], 0, sizeof hin[i]);
		hin[i].data = h;
		hin[i].dtype = mask ? KRL_BOOL : KRL_F32;
		hin[i].ndim = ins[i].ndim;
		memcpy(hin[i].dim, ins[i].dim, sizeof ins[i].dim);
		din[i] = hin[i];
		void *dp = NULL;
		size_t bytes = (size_t)n * es;
		CK(cudaMalloc(&dp, bytes ? bytes : 8));
		CK(cudaMemcpy(dp, mask ? (void *)m : (void *)f, bytes,
		              cudaMemcpyHostToDevice));
		din[i].data = dp;
		free(f);
		free(m);
	}
	int64_t no = numel(&outs);
	memset(&hout, 0, sizeof hout);
	hout.dtype = ot;
	hout.ndim = outs.ndim;
	memcpy(hout.dim, outs.dim, sizeof outs.dim);
	hout.data = calloc((size_t)(no ? no : 1), sizeof(double));
	assert_non_null(hout.data);
	dout = hout;
	void *dp = NULL;
	CK(cudaMalloc(&dp, (size_t)(no ? no : 1) * sizeof(float)));
	CK(cudaMemset(dp, 0xff, (size_t)no * sizeof(float)));
	dout.data = dp;

	char msg[512] = "";
	krl_err r = op->check(hin, &hout, &a, msg, sizeof msg);
	if (r)
		fprintf(stderr, "%s: check: %s\n", name, msg);
	assert_int_equal(r, KRL_OK);
	assert_int_equal(op->golden(hin, &hout, &a), KRL_OK);
	for (int rep = 0; rep < 2; rep++) {
		krl_diag d;
		memset(&d, 0, sizeof d);
		r = op->run(g_ctx, din, &dout, &a, &d);
		KRL_ASSERT_OK(r, &d);
	}
	CK(cudaStreamSynchronize(g_stream));
	float *got = malloc((size_t)(no ? no : 1) * sizeof(float));
	assert_non_null(got);
	if (ot == KRL_BOOL) { /* bytes, compared as 0/1 */
		unsigned char *gb = malloc((size_t)(no ? no : 1));
		assert_non_null(gb);
		CK(cudaMemcpy(gb, dp, (size_t)no, cudaMemcpyDeviceToHost));
		for (int64_t j = 0; j < no; j++)
			got[j] = gb[j] > 1 ? -1.f : (float)gb[j]; /* 0xff: unwritten */
		free(gb);
	} else {
		CK(cudaMemcpy(got, dp, (size_t)no * sizeof(float),
		              cudaMemcpyDeviceToHost));
	}

	const double *ref = hout.data;
	int64_t bad = 0, worst = -1;
	double max_abs = 0, worst_ex = 0;
	for (int64_t j = 0; j < no; j++) {
		double e = fabs((double)got[j] - ref[j]);
		double lim = atol + rtol * fabs(ref[j]);
		if (!(e <= lim) && !(isnan(got[j]) && isnan(ref[j])) &&
		    !((double)got[j] == ref[j])) { /* equal infinities pass */
			bad++;
			if (worst < 0 || e - lim > worst_ex) {
				worst = j;
				worst_ex = e - lim;
			}
		}
		if (isfinite(e) && e > max_abs)
			max_abs = e;
	}
	printf("%-12s nin %d, %lld elements   max_abs %.3g%s\n", name, nin,
	       (long long)no, max_abs, bad ? "  FAIL" : "");
	if (bad)
		fprintf(stderr, "%s: %lld of %lld elements outside atol=%g "
		        "rtol=%g; worst at %lld: gpu %.9g, golden %.9g\n", name,
		        (long long)bad, (long long)no, atol, rtol,
		        (long long)worst, (double)got[worst], ref[worst]);
	for (int i = 0; i < nin; i++) {
		cudaFree(din[i].data);
		free(hin[i].data);
	}
	cudaFree(dp);
	free(hout.data);
	free(got);
	assert_int_equal(bad, 0);
}

/* run_nary_t with an f32 output. */
static void run_nary(const char *name, const shape *ins, const dist *dd,
                     int nin, shape outs, krl_attrs a, double atol,
                     double rtol)
{
	run_nary_t(name, ins, dd, nin, outs, KRL_F32, a, atol, rtol);
}

/* A unary op of run_nary: x -> y of x's shape. */
static void nary1(const char *name, shape x, krl_attrs a, dist d,
                  double atol, double rtol)
{
	run_nary(name, &x, &d, 1, x, a, atol, rtol);
}

/* ==== Tests ==== */

/* One op on the tiny, the mid-size and the misaligned shapes. */
static void all_shapes(const char *name, krl_attrs a, dist dd, double atol,
                       double rtol)
{
	run_case(name, 3, 5, a, dd, 0, atol, rtol);
	run_case(name, 1000, 1003, a, dd, 0, atol, rtol);
	run_case(name, 7, 333, a, dd, 1, atol, rtol);
}

static void test_activations(void **state)
{
	(void)state;
	dist ds[] = { D_NORMAL, D_WIDE, D_NAN };
	for (int i = 0; i < 3; i++) {
		dist dd = ds[i];
		all_shapes("leaky_relu", A1("negative_slope", 0.01), dd, 0,
		           2e-7);
		all_shapes("leaky_relu", A1("negative_slope", -0.3), dd, 0,
		           2e-7);
		all_shapes("sigmoid", A0, dd, 1e-7, 1e-6);
		all_shapes("tanh", A0, dd, 1e-7, 1e-6);
		all_shapes("elu", A1("alpha", 1.0), dd, 1e-7, 1e-6);
		all_shapes("elu", A1("alpha", 0.37), dd, 1e-7, 1e-6);
		all_shapes("selu", A0, dd, 1e-7, 1e-6);
		all_shapes("hardsigmoid", A0, dd, 0, 3e-7);
		all_shapes("softplus", A0, dd, 1e-7, 1e-6);
		all_shapes("softplus", A2("beta", 2.0, "threshold", 5.0), dd,
		           1e-7, 1e-6);
		all_shapes("mish", A0, dd, 1e-7, 1e-6);
		all_shapes("hardtanh", A0, dd, 0, 0);
		all_shapes("hardtanh", A2("min_val", 0.0, "max_val", 6.0), dd,
		           0, 0);
	}
}

static void test_scalar_ops(void **state)
{
	(void)state;
	dist ds[] = { D_NORMAL, D_NAN };
	for (int i = 0; i < 2; i++) {
		/* abs and add_scalar as the softsign and new-GELU plans use
		 * them */
		all_shapes("abs", A0, ds[i], 0, 0);
		all_shapes("add_scalar", A1("alpha", 1.0), ds[i], 0, 1.2e-7);
		/* -0.3f is 1.2e-8 off -0.3: absolute near x = 0.3 */
		all_shapes("add_scalar", A1("alpha", -0.3), ds[i], 3e-8,
		           1.2e-7);
		all_shapes("rsub_scalar", A1("alpha", 1.0), ds[i], 1e-7, 1e-6);
		all_shapes("clamp_min", A1("min", 0.0), ds[i], 0, 0);
		all_shapes("pow_scalar", A1("exponent", 3.0), ds[i], 0, 2.5e-7);
		all_shapes("pow_scalar", A1("exponent", 2.0), ds[i], 0, 1.2e-7);
		all_shapes("pow_scalar", A1("exponent", 1.0), ds[i], 0, 0);
		all_shapes("pow_scalar", A1("exponent", 0.0), ds[i], 0, 0);
		all_shapes("pow_scalar", A1("exponent", -1.0), ds[i], 0,
		           1.2e-7);
		all_shapes("pow_scalar", A1("exponent", -2.0), ds[i], 0,
		           2.5e-7);
	}
	/* sqrt, rsqrt and powf of negatives are NaN on both sides; keep most
	 * inputs positive so the values are checked */
	all_shapes("pow_scalar", A1("exponent", 0.5), D_POSITIVE, 0, 1.2e-7);
	all_shapes("sqrt", A0, D_POSITIVE, 0, 1.2e-7);
	all_shapes("log", A0, D_POSITIVE, 1e-7, 1e-6);
	all_shapes("pow_scalar", A1("exponent", -0.5), D_POSITIVE, 0, 5e-7);
	all_shapes("pow_scalar", A1("exponent", 2.5), D_POSITIVE, 1e-30,
	           1e-6);
	all_shapes("pow_scalar", A1("exponent", 0.5), D_NORMAL, 0, 1.2e-7);
}

static void test_loss_ops(void **state)
{
	(void)state;
	shape sh[] = { S(2, I(3), I(7)), S(2, I(1000), I(1003)) };
	for (int s = 0; s < 2; s++) {
		nary1("abs", sh[s], A(0), D_NORMAL, 0, 0);
		nary1("sqrt", sh[s], A(0), D_UNIT, 1e-7, 1e-6);
		nary1("log", sh[s], A(0), D_UNIT, 1e-7, 1e-6);
		nary1("add_scalar", sh[s], A(1, "alpha", 1e-5), D_NORMAL, 1e-7,
		    1e-6);
		nary1("rsub_scalar", sh[s], A(1, "alpha", 1.0), D_NORMAL, 1e-7,
		    1e-6);
		nary1("clamp_min", sh[s], A(1, "min", 0.0), D_NORMAL, 0, 0);
		shape two[2] = { sh[s], sh[s] };
		dist pp[2] = { D_UNIT, D_UNIT }, nn[2] = { D_NORMAL, D_NORMAL };
		run_nary("xlogy", two, pp, 2, sh[s], A(0), 1e-7, 1e-6);
		run_nary("smooth_l1", two, nn, 2, sh[s], A(1, "beta", 1.0),
		         1e-7, 1e-6);
	}
	/* a tail that is not a multiple of 4 */
	nary1("abs", S(1, I(4099)), A(0), D_NORMAL, 0, 0);
}

static void test_broadcast(void **state)
{
	(void)state;
	struct { shape a, b; } c[] = {
		{ S(2, I(33), I(70)), S(1, I(70)) },
		{ S(2, I(33), I(70)), S(2, I(1), I(70)) },
		{ S(2, I(33), I(1001)), S(2, I(33), I(1)) },
		{ S(4, I(3), I(5), I(7), I(33)), S(4, I(3), I(1), I(7), I(33)) },
		{ S(2, I(33), I(70)), S(0) },
		{ S(2, I(128), I(1)), S(2, I(128), I(1)) },
		{ S(2, I(1000), I(1000)), S(1, I(1000)) },
	};
	dist d[2] = { D_NORMAL, D_UNIT };
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		shape in[2] = { c[i].a, c[i].b };
		run_nary("div_bcast", in, d, 2, c[i].a, A(0), 1e-7, 1e-6);
		run_nary("mul_bcast", in, d, 2, c[i].a, A(0), 1e-7, 1e-6);
	}
}

/* hardswish, exp, minimum/maximum with a scalar. */
static void test_new_unary(void **state)
{
	(void)state;
	dist ds[] = { D_NORMAL, D_WIDE, D_NAN };
	for (int i = 0; i < 3; i++) {
		/* x + 3 rounds to half an ulp of 4 near x = -3, times |x| / 6 */
		all_shapes("hardswish", A0, ds[i], 2e-7, 5e-7);
		all_shapes("exp", A0, ds[i], 1e-30, 3e-7);
		all_shapes("minimum_scalar", A1("value", 0.5), ds[i], 0, 0);
		all_shapes("maximum_scalar", A1("value", -0.25), ds[i], 0, 0);
	}
}

/* add_bcast, sub_bcast, minimum_bcast, mul_bcast: a and b -> their
 * broadcast shape. */
static void test_broadcast_two_way(void **state)
{
	(void)state;
	struct { shape a, b, y; } c[] = {
		{ S(2, I(33), I(1)), S(1, I(70)), S(2, I(33), I(70)) },
		{ S(1, I(70)), S(2, I(33), I(1)), S(2, I(33), I(70)) },
		{ S(4, I(3), I(1), I(7), I(1)), S(3, I(5), I(1), I(33)),
		  S(4, I(3), I(5), I(7), I(33)) },
		{ S(0), S(2, I(33), I(70)), S(2, I(33), I(70)) },
		{ S(2, I(33), I(70)), S(0), S(2, I(33), I(70)) },
		{ S(0), S(0), S(0) },
		{ S(2, I(1000), I(1003)), S(2, I(1000), I(1003)),
		  S(2, I(1000), I(1003)) },
		/* a bias [C, 1, 1] against [N, C, H, W] both ways round */
		{ S(4, I(16), I(64), I(31), I(33)), S(3, I(64), I(1), I(1)),
		  S(4, I(16), I(64), I(31), I(33)) },
		{ S(3, I(64), I(1), I(1)), S(4, I(16), I(64), I(31), I(33)),
		  S(4, I(16), I(64), I(31), I(33)) },
	};
	dist nn[2] = { D_NORMAL, D_NORMAL }, nan2[2] = { D_NAN, D_NAN };
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		shape in[2] = { c[i].a, c[i].b };
		run_nary("add_bcast", in, nn, 2, c[i].y, A(0), 0, 1.2e-7);
		run_nary("sub_bcast", in, nn, 2, c[i].y, A(0), 0, 1.2e-7);
		run_nary("minimum_bcast", in, nan2, 2, c[i].y, A(0), 0, 0);
		/* a product rounds once, as a sum does */
		run_nary("mul_bcast", in, nn, 2, c[i].y, A(0), 0, 1.2e-7);
	}
	/* NetVLAD (L3 46/47): a_sum [B, 1, K] * clusters2 [1, D, K] */
	shape nv[2] = { S(3, I(64), I(1), I(32)), S(3, I(1), I(512), I(32)) };
	run_nary("mul_bcast", nv, nn, 2, S(3, I(64), I(512), I(32)), A(0), 0,
	         1.2e-7);
}

/* dropout_apply: x * mask * float scale, NaN where a dropped x is NaN. */
static void test_dropout_apply(void **state)
{
	(void)state;
	shape sh[] = { S(2, I(3), I(7)), S(2, I(1000), I(1003)),
	               S(1, I(4099)) };
	for (int s = 0; s < 3; s++) {
		shape in[2] = { sh[s], sh[s] };
		dist d[2] = { D_NAN, D_MASK };
		run_nary("dropout_apply", in, d, 2, sh[s], A(1, "p", 0.2), 0,
		         6e-8);
		run_nary("dropout_apply", in, d, 2, sh[s], A(1, "p", 0.1), 0,
		         6e-8);
		run_nary("dropout_apply", in, d, 2, sh[s], A(1, "p", 0.0), 0, 0);
	}
}

/* The mask ops, exact: eq_scalar on whole tensors (vector and tail
 * blocks) and on leading slices read strided (the causal buffer's
 * [:, :, :T, :T]); masked_fill with a same-shape mask, the causal mask
 * broadcast over batch and heads with -inf, and a middle-dim broadcast;
 * bitwise_not on bool bytes. */
static void test_masks(void **state)
{
	(void)state;
	dist si = D_SMALLINT;
	shape whole[] = { S(2, I(3), I(7)), S(2, I(1000), I(1003)),
	                  S(1, I(4099)) };
	for (int s = 0; s < 3; s++)
		run_nary_t("eq_scalar", &whole[s], &si, 1, whole[s], KRL_BOOL,
		           A1("value", 1), 0, 0);
	struct { shape x, y; } sl[] = {
		{ S(4, I(1), I(1), I(64), I(64)), S(4, I(1), I(1), I(37), I(37)) },
		{ S(2, I(5), I(300)), S(2, I(3), I(257)) },
		{ S(3, I(4), I(9), I(1024)), S(3, I(4), I(9), I(512)) },
	};
	for (int s = 0; s < 3; s++)
		run_nary_t("eq_scalar", &sl[s].x, &si, 1, sl[s].y, KRL_BOOL,
		           A1("value", 0), 0, 0);
	struct { shape x, m; } mf[] = {
		{ S(2, I(1000), I(1003)), S(2, I(1000), I(1003)) },
		{ S(4, I(4), I(3), I(64), I(64)), S(4, I(1), I(1), I(64), I(64)) },
		{ S(3, I(7), I(5), I(33)), S(2, I(5), I(1)) },
		{ S(2, I(3), I(7)), S(2, I(3), I(7)) },
	};
	for (int s = 0; s < 4; s++) {
		shape in[2] = { mf[s].x, mf[s].m };
		dist d[2] = { D_NAN, D_MASK };
		run_nary("masked_fill", in, d, 2, mf[s].x,
		         A1("value", -INFINITY), 0, 0);
		run_nary("masked_fill", in, d, 2, mf[s].x, A1("value", 0.1), 0,
		         0);
	}
	dist mk = D_MASK;
	for (int s = 0; s < 3; s++)
		run_nary_t("bitwise_not", &whole[s], &mk, 1, whole[s], KRL_BOOL,
		           A0, 0, 0);
}

int main(void)
{
	g_rng = 0x2545f4914f6cdd1dull;
	krl_test_require_gpu("gpu_ops_eltwise");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_activations),
		cmocka_unit_test(test_scalar_ops),
		cmocka_unit_test(test_loss_ops),
		cmocka_unit_test(test_broadcast),
		cmocka_unit_test(test_new_unary),
		cmocka_unit_test(test_broadcast_two_way),
		cmocka_unit_test(test_dropout_apply),
		cmocka_unit_test(test_masks),
	};
	return cmocka_run_group_tests(tests, gpuop_setup, gpuop_teardown);
}
