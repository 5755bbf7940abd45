/*
 * GPU test of the "reduce" op family: every op on random inputs (drawn on
 * the host from a fixed seed), run on the device through krl_op.run and
 * compared with its float64 golden version, on tiny shapes and on one
 * mid-size shape per op that takes the kernels' main paths (padding,
 * dilation, ceil_mode and clipped windows; 1-, 2- and 3-d pooling; the
 * rows/cols and split product reductions; CUB, innermost (each thread
 * shape PyTorch's rule picks: 16, 128 and 512 threads along a row) and
 * outer-dim scans, for cumsum and cumprod; flip, narrow and cat of 4- and
 * 1-byte elements, cat with its vector and scalar paths, cat of 3 inputs
 * (4- and 1-byte) and of 49 (DenseNet201's widest); logsumexp over
 * rows, over a middle dim and over size-1 dims, with -inf, +inf and NaN
 * rows, its temporaries grown and reused). Needs a GPU: skips (exit 77)
 * without one.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "krl/ops.h"
#include "gpuoptest.h"
#include "testutil.h"

/* ==== Random inputs ==== */

/* How an input is drawn: normal(0, 1), uniform(0.9, 1.1) (products),
 * uniform(0.99, 1.01) (long cumulative products), bernoulli(0.5),
 * normal(0, 20), and normal(0, 20) with elements 0..6 -inf, element 9
 * +inf and element 20 NaN (rows of 7: a -inf row, a row holding +inf, a
 * NaN row). */
typedef enum { D_NORMAL, D_NEAR1, D_NEAR1_TIGHT, D_BOOL, D_WIDE,
               D_SPECIAL } dist;

/* ==== One case ==== */

#define T(dt, dd, ...) gpuop_ten((dt), (dd), 0, __VA_ARGS__)

/*
 * Runs op `name` on the GPU (twice: left-zero semaphores and reused
 * outputs) and in golden float64 on the same inputs, and checks every
 * element of every output: abs(g - r) <= atol + rtol * abs(r) for f32
 * (NaN equal to NaN, -inf to -inf), equality for i64.
 */
static void run_case(const char *name, const ten *ins, int nin,
                     const ten *outs, int nout, krl_attrs a, double atol,
                     double rtol)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	krl_tensor hin[KRL_MAX_CALL_IN], din[KRL_MAX_CALL_IN], hout[4], dout[4];
	void *raw[KRL_MAX_CALL_IN];
	a.nin = nin;
	for (int i = 0; i < nin; i++) {
		int64_t n = ten_numel(&ins[i]);
		size_t es = esize(ins[i].dt);
		double *h = malloc((size_t)(n ? n : 1) * sizeof(double));
		raw[i] = malloc((size_t)(n ? n : 1) * es);
		assert_non_null(h);
		assert_non_null(raw[i]);
		for (int64_t j = 0; j < n; j++) {
			switch (ins[i].dd) {
			case D_BOOL:
				((unsigned char *)raw[i])[j] = gpuop_urand() < 0.5;
				break;
			case D_NEAR1:
				((float *)raw[i])[j] = (float)(0.9 + 0.2 * gpuop_urand());
				break;
			case D_NEAR1_TIGHT:
				((float *)raw[i])[j] =
					(float)(0.99 + 0.02 * gpuop_urand());
				break;
			case D_WIDE:
				((float *)raw[i])[j] = (float)(20 * gpuop_nrand());
				break;
			case D_SPECIAL:
				((float *)raw[i])[j] =
					j < 7 ? -INFINITY : j == 9 ? INFINITY
					: j == 20 ? NAN
					: (float)(20 * gpuop_nrand());
				break;
			default:
				((float *)raw[i])[j] = (float)gpuop_nrand();
				break;
			}
			h[j] = as_double(raw[i], j, ins[i].dt);
		}
		hin[i] = host_tensor(&ins[i], h);
		din[i] = hin[i];
		void *dp = NULL;
		CK(cudaMalloc(&dp, (size_t)(n ? n : 1) * es));
		CK(cudaMemcpy(dp, raw[i], (size_t)n * es,
		              cudaMemcpyHostToDevice));
		din[i].data = dp;
	}
	for (int i = 0; i < nout; i++) {
		int64_t n = ten_numel(&outs[i]);
		hout[i] = host_tensor(&outs[i],
		                      calloc((size_t)(n ? n : 1), sizeof(double)));
		dout[i] = hout[i];
		void *dp = NULL;
		CK(cudaMalloc(&dp, (size_t)(n ? n : 1) * esize(outs[i].dt)));
		CK(cudaMemset(dp, 0xff, (size_t)n * esize(outs[i].dt)));
		dout[i].data = dp;
	}
	char msg[512] = "";
	krl_err r = op->check(hin, hout, &a, msg, sizeof msg);
	if (r)
		fprintf(stderr, "%s: check: %s\n", name, msg);
	assert_int_equal(r, KRL_OK);
	assert_int_equal(op->golden(hin, hout, &a), KRL_OK);
	for (int rep = 0; rep < 2; rep++) {
		krl_diag d;
		memset(&d, 0, sizeof d);
		r = op->run(g_ctx, din, dout, &a, &d);
		KRL_ASSERT_OK(r, &d);
	}
	CK(cudaStreamSynchronize(g_stream));
	int64_t bad = 0;
	for (int i = 0; i < nout; i++) {
		int64_t n = ten_numel(&outs[i]);
		size_t es = esize(outs[i].dt);
		void *got = malloc((size_t)(n ? n : 1) * es);
		assert_non_null(got);
		CK(cudaMemcpy(got, dout[i].data, (size_t)n * es,
		              cudaMemcpyDeviceToHost));
		const double *ref = hout[i].data;
		double max_abs = 0;
		for (int64_t j = 0; j < n; j++) {
			double g = as_double(got, j, outs[i].dt);
			int exact = outs[i].dt != KRL_F32;
			int same = g == ref[j] || (isnan(g) && isnan(ref[j]));
			double e = fabs(g - ref[j]);
			double lim = exact ? 0 : atol + rtol * fabs(ref[j]);
			if (!same && !(e <= lim)) {
				if (bad < 5)
					fprintf(stderr, "%s: output %d element "
					        "%lld: got %.9g, want %.9g\n",
					        name, i, (long long)j, g, ref[j]);
				bad++;
			}
			if (!same && isfinite(e) && e > max_abs)
				max_abs = e;
		}
		printf("%-10s out %d: %lld elements, max abs err %.3g\n", name,
		       i, (long long)n, max_abs);
		free(got);
		cudaFree(dout[i].data);
		free(hout[i].data);
	}
	for (int i = 0; i < nin; i++) {
		cudaFree(din[i].data);
		free(hin[i].data);
		free(raw[i]);
	}
	assert_int_equal(bad, 0);
}

/* The output size of one pooled dim (PyTorch's pooling_output_shape). */
static int64_t pout(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                    int ceil_mode)
{
	int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
	int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
	if (ceil_mode && (o - 1) * s >= in + p)
		o--;
	return o;
}

/* ==== Pooling ==== */

/* One pooling case: x [n, c, spatial...] of `rank` spatial dims. */
static void pool_case(const char *name, int rank, const int64_t *sp,
                      int64_t n, int64_t c, int64_t k, int64_t s, int64_t p,
                      int64_t d, int ceil_mode, int inc_pad)
{
	int avg = name[0] == 'a';
	ten x = T(KRL_F32, D_NORMAL, 2, n, c);
	ten y = x;
	x.ndim = y.ndim = 2 + rank;
	for (int i = 0; i < rank; i++) {
		x.dim[2 + i] = sp[i];
		y.dim[2 + i] = pout(sp[i], k, s, p, avg ? 1 : d, ceil_mode);
	}
	ten outs[2] = { y, y };
	outs[1].dt = KRL_I64;
	krl_attrs a = avg
		? A(5, "kernel_size", (double)k, "stride", (double)s, "padding",
		    (double)p, "ceil_mode", (double)ceil_mode,
		    "count_include_pad", (double)inc_pad)
		: A(5, "kernel_size", (double)k, "stride", (double)s, "padding",
		    (double)p, "dilation", (double)d, "ceil_mode",
		    (double)ceil_mode);
	run_case(name, &x, 1, outs, avg ? 1 : 2, a, 1e-6, 1e-5);
}

static void test_pool(void **state)
{
	(void)state;
	/* KernelBench's windows on tiny inputs, then ceil_mode, stride 1
	 * with dilation, and a mid-size shape per op */
	pool_case("max_pool1d", 1, (int64_t[]){ 101 }, 3, 5, 4, 2, 2, 3, 0, 1);
	pool_case("max_pool1d", 1, (int64_t[]){ 100 }, 2, 3, 3, 2, 1, 1, 1, 1);
	pool_case("max_pool1d", 1, (int64_t[]){ 65536 }, 4, 8, 8, 1, 4, 3, 0, 1);
	pool_case("max_pool2d", 2, (int64_t[]){ 33, 47 }, 2, 3, 3, 2, 1, 2, 0, 1);
	pool_case("max_pool2d", 2, (int64_t[]){ 30, 31 }, 2, 3, 3, 2, 1, 1, 1, 1);
	pool_case("max_pool2d", 2, (int64_t[]){ 512, 512 }, 2, 8, 4, 1, 1, 1, 0, 1);
	pool_case("max_pool3d", 3, (int64_t[]){ 9, 11, 13 }, 2, 3, 3, 2, 1, 3, 0, 1);
	pool_case("max_pool3d", 3, (int64_t[]){ 8, 9, 10 }, 1, 2, 2, 2, 1, 1, 1, 1);
	pool_case("max_pool3d", 3, (int64_t[]){ 64, 64, 64 }, 2, 16, 3, 2, 1, 3, 0, 1);
	pool_case("avg_pool1d", 1, (int64_t[]){ 101 }, 3, 5, 4, 2, 1, 1, 0, 1);
	pool_case("avg_pool1d", 1, (int64_t[]){ 100 }, 2, 3, 3, 2, 1, 1, 1, 0);
	pool_case("avg_pool1d", 1, (int64_t[]){ 65536 }, 4, 8, 8, 1, 4, 1, 0, 1);
	pool_case("avg_pool2d", 2, (int64_t[]){ 37, 50 }, 2, 3, 3, 3, 0, 1, 0, 1);
	pool_case("avg_pool2d", 2, (int64_t[]){ 30, 31 }, 2, 3, 3, 2, 1, 1, 1, 0);
	pool_case("avg_pool2d", 2, (int64_t[]){ 1024, 1000 }, 2, 4, 11, 11, 0, 1, 0, 1);
	pool_case("avg_pool3d", 3, (int64_t[]){ 9, 10, 11 }, 2, 3, 3, 2, 1, 1, 0, 1);
	pool_case("avg_pool3d", 3, (int64_t[]){ 8, 9, 10 }, 1, 2, 9, 3, 4, 1, 1, 0);
	pool_case("avg_pool3d", 3, (int64_t[]){ 64, 64, 128 }, 2, 16, 3, 2, 1, 1, 0, 1);
}

/* ==== prod, cumprod ==== */

static void test_prod(void **state)
{
	(void)state;
	const int64_t sh[][3] = {
		{ 3, 37, 45 },      /* cols, scalar loads */
		{ 16, 256, 256 },   /* cols, float4: KernelBench kb0 */
		{ 2, 4096, 8 },     /* cols, split over blocks */
		{ 45, 1001, 1 },    /* rows, unaligned */
		{ 2, 65536, 1 },    /* rows, split over blocks */
	};
	for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++) {
		ten x = T(KRL_F32, D_NEAR1, 3, sh[i][0], sh[i][1], sh[i][2]);
		ten y = T(KRL_F32, D_NORMAL, 2, sh[i][0], sh[i][2]);
		dist dd = sh[i][1] > 4096 ? D_NEAR1_TIGHT : D_NEAR1;
		x.dd = dd;
		run_case("prod", &x, 1, &y, 1, A(1, "dim", 1.0), 1e-7, 2e-4);
	}
}

static void test_cumprod(void **state)
{
	(void)state;
	ten x = T(KRL_F32, D_NEAR1_TIGHT, 2, I(5), I(9001));
	run_case("cumprod", &x, 1, &x, 1, A(1, "dim", 1.0), 1e-6, 2e-4);
	x = T(KRL_F32, D_NEAR1_TIGHT, 2, I(128), I(4000));
	run_case("cumprod", &x, 1, &x, 1, A(1, "dim", 1.0), 1e-6, 2e-4);
	x = T(KRL_F32, D_NEAR1_TIGHT, 1, I(100003));   /* CUB */
	run_case("cumprod", &x, 1, &x, 1, A(1, "dim", 0.0), 1e-6, 1e-3);
	x = T(KRL_F32, D_NEAR1_TIGHT, 3, I(3), I(700), I(45));  /* outer dim */
	run_case("cumprod", &x, 1, &x, 1, A(1, "dim", 1.0), 1e-6, 2e-4);
	x = T(KRL_F32, D_NEAR1_TIGHT, 2, I(2048), I(1000)); /* 16 x 32 */
	run_case("cumprod", &x, 1, &x, 1, A(1, "dim", 1.0), 1e-6, 2e-4);
	x = T(KRL_F32, D_NEAR1_TIGHT, 2, I(4096), I(3));    /* 512 x 1 */
	run_case("cumprod", &x, 1, &x, 1, A(1, "dim", -1.0), 1e-6, 2e-4);
}

/* cumsum's kernels (scan.cu) at the thread shapes PyTorch's rule picks:
 * rows about as many as their length give 16 x 32 threads (KernelBench's
 * 32768 x 32768), long rows 512 x 1, a row length 2^10 times shorter than
 * the row count also 512 x 1 (its unsigned arithmetic wraps), in between
 * 128 x 4. */
static void test_cumsum(void **state)
{
	(void)state;
	struct { int64_t rows, n; double atol; } c[] = {
		{ 2048, 1000, 2e-3 },   /* 16 x 32, rows in 32 chunks */
		{ 2048, 999, 2e-3 },    /* the last chunk partial */
		{ 4096, 2, 1e-5 },      /* 512 x 1 by the wrap */
		{ 64, 3000, 5e-3 },     /* 128 x 4 */
		{ 5, 9001, 5e-3 },      /* 512 x 1 */
		{ 1000, 1, 1e-6 },      /* rows of one element */
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		ten x = T(KRL_F32, D_NORMAL, 2, c[i].rows, c[i].n);
		run_case("cumsum", &x, 1, &x, 1, A(1, "dim", 1.0), c[i].atol,
		         1e-4);
	}
}

/* ==== Copies ==== */

static void test_copies(void **state)
{
	(void)state;
	ten x = T(KRL_F32, D_NORMAL, 2, I(5), I(9001));
	run_case("flip", &x, 1, &x, 1, A(1, "dim", 1.0), 0, 0);
	ten x3 = T(KRL_F32, D_NORMAL, 3, I(3), I(70), I(47));
	run_case("flip", &x3, 1, &x3, 1, A(1, "dim", 1.0), 0, 0);
	run_case("flip", &x3, 1, &x3, 1, A(1, "dim", 0.0), 0, 0);

	ten xs = T(KRL_F32, D_NORMAL, 2, I(5), I(9000));
	run_case("narrow", &x, 1, &xs, 1, A(2, "dim", 1.0, "start", 0.0), 0, 0);
	run_case("narrow", &x, 1, &xs, 1, A(2, "dim", 1.0, "start", 1.0), 0, 0);

	ten cin[2] = { T(KRL_F32, D_NORMAL, 2, I(5), I(1)), xs };
	run_case("cat", cin, 2, &x, 1, A(1, "dim", 1.0), 0, 0);
	ten c3[2] = { T(KRL_F32, D_NORMAL, 3, I(3), I(7), I(47)), x3 };
	ten y3 = T(KRL_F32, D_NORMAL, 3, I(3), I(77), I(47));
	run_case("cat", c3, 2, &y3, 1, A(1, "dim", 1.0), 0, 0);

	ten z = T(KRL_F32, D_NORMAL, 2, I(5), I(1));
	run_case("fill", NULL, 0, &z, 1, A(1, "value", 0.0), 0, 0);
	ten big = T(KRL_F32, D_NORMAL, 2, I(37), I(1001));
	run_case("fill", NULL, 0, &big, 1, A(1, "value", -1.5), 0, 0);
	/* bool: torch.ones(T, T, dtype=bool) (4 bytes a thread, tail) */
	ten bb = T(KRL_BOOL, D_BOOL, 2, I(37), I(1001));
	run_case("fill", NULL, 0, &bb, 1, A(1, "value", 1.0), 0, 0);
	ten b7 = T(KRL_BOOL, D_BOOL, 1, I(7));
	run_case("fill", NULL, 0, &b7, 1, A(1, "value", 0.0), 0, 0);

	ten mm[2] = { x, T(KRL_BOOL, D_BOOL, 2, I(5), I(9001)) };
	run_case("mul_mask", mm, 2, &x, 1, A(0), 0, 0);

	/* 91/92's copies at a mid size: flip and narrow of rows of 4096, cat
	 * of a column and [rows, 4095] (cat's 16-byte loads; 63 rows leave a
	 * tail of 3 elements in the column and 1 in the other input) */
	ten r = T(KRL_F32, D_NORMAL, 2, I(63), I(4096));
	ten rs = T(KRL_F32, D_NORMAL, 2, I(63), I(4095));
	run_case("flip", &r, 1, &r, 1, A(1, "dim", 1.0), 0, 0);
	run_case("narrow", &r, 1, &rs, 1, A(2, "dim", 1.0, "start", 0.0), 0, 0);
	ten rc[2] = { T(KRL_F32, D_NORMAL, 2, I(63), I(1)), rs };
	run_case("cat", rc, 2, &r, 1, A(1, "dim", 1.0), 0, 0);
	/* 1-byte elements: the scalar cat kernel */
	ten b = T(KRL_BOOL, D_BOOL, 3, I(4), I(33), I(5));
	ten bs = T(KRL_BOOL, D_BOOL, 3, I(4), I(30), I(5));
	ten by = T(KRL_BOOL, D_BOOL, 3, I(4), I(63), I(5));
	run_case("flip", &b, 1, &b, 1, A(1, "dim", 1.0), 0, 0);
	run_case("narrow", &b, 1, &bs, 1, A(2, "dim", 1.0, "start", 2.0), 0,
	         0);
	ten bc[2] = { b, bs };
	run_case("cat", bc, 2, &by, 1, A(1, "dim", 1.0), 0, 0);
}

/* Variadic cat (one launch per batch of inputs): 3 inputs along a middle
 * dim with vector tails (f32) and scalar (bool); 4 along dim 0; 49 along
 * channels as DenseNet201's last dense block cats them (64 channels, then
 * 48 of 32), at kb-like 7 x 7 planes and batch 2. */
static void test_cat_n(void **state)
{
	(void)state;
	ten c3[3] = { T(KRL_F32, D_NORMAL, 3, I(3), I(5), I(49)),
	              T(KRL_F32, D_NORMAL, 3, I(3), I(13), I(49)),
	              T(KRL_F32, D_NORMAL, 3, I(3), I(2), I(49)) };
	ten y3 = T(KRL_F32, D_NORMAL, 3, I(3), I(20), I(49));
	run_case("cat", c3, 3, &y3, 1, A(1, "dim", 1.0), 0, 0);
	ten b3[3] = { T(KRL_BOOL, D_BOOL, 3, I(4), I(3), I(5)),
	              T(KRL_BOOL, D_BOOL, 3, I(4), I(1), I(5)),
	              T(KRL_BOOL, D_BOOL, 3, I(4), I(7), I(5)) };
	ten by = T(KRL_BOOL, D_BOOL, 3, I(4), I(11), I(5));
	run_case("cat", b3, 3, &by, 1, A(1, "dim", -2.0), 0, 0);
	ten r4[4] = { T(KRL_F32, D_NORMAL, 2, I(1), I(1001)),
	              T(KRL_F32, D_NORMAL, 2, I(7), I(1001)),
	              T(KRL_F32, D_NORMAL, 2, I(2), I(1001)),
	              T(KRL_F32, D_NORMAL, 2, I(3), I(1001)) };
	ten ry = T(KRL_F32, D_NORMAL, 2, I(13), I(1001));
	run_case("cat", r4, 4, &ry, 1, A(1, "dim", 0.0), 0, 0);
	ten d[49];
	d[0] = T(KRL_F32, D_NORMAL, 4, I(2), I(64), I(7), I(7));
	for (int k = 1; k < 49; k++)
		d[k] = T(KRL_F32, D_NORMAL, 4, I(2), I(32), I(7), I(7));
	ten dy = T(KRL_F32, D_NORMAL, 4, I(2), I(64 + 48 * 32), I(7), I(7));
	run_case("cat", d, 49, &dy, 1, A(1, "dim", 1.0), 0, 0);
}

/* logsumexp: PyTorch's nine kernels against the float64 golden. */
static void test_logsumexp(void **state)
{
	(void)state;
	struct { ten x, y; int dim; } c[] = {
		{ T(KRL_F32, D_SPECIAL, 2, I(5), I(7)),
		  T(KRL_F32, D_NORMAL, 2, I(5), I(1)), 1 },
		{ T(KRL_F32, D_WIDE, 2, I(5), I(7)),
		  T(KRL_F32, D_NORMAL, 1, I(7)), 0 },
		{ T(KRL_F32, D_NORMAL, 1, I(129)), T(KRL_F32, D_NORMAL, 0), 0 },
		/* size-1 dim (18's chain), then rows of 8192 (64's) */
		{ T(KRL_F32, D_NORMAL, 2, I(33), I(1)),
		  T(KRL_F32, D_NORMAL, 2, I(33), I(1)), 1 },
		{ T(KRL_F32, D_WIDE, 2, I(64), I(8192)),
		  T(KRL_F32, D_NORMAL, 2, I(64), I(1)), 1 },
		/* over channels (43's, 92's): inner dims contiguous */
		{ T(KRL_F32, D_NORMAL, 4, I(3), I(64), I(17), I(65)),
		  T(KRL_F32, D_NORMAL, 4, I(3), I(1), I(17), I(65)), 1 },
		{ T(KRL_F32, D_WIDE, 3, I(2), I(16), I(3969)),
		  T(KRL_F32, D_NORMAL, 2, I(2), I(3969)), 1 },
		/* smaller again: the grown temporaries reused */
		{ T(KRL_F32, D_SPECIAL, 2, I(5), I(7)),
		  T(KRL_F32, D_NORMAL, 1, I(5)), -1 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		run_case("logsumexp", &c[i].x, 1, &c[i].y, 1,
		         A(1, "dim", (double)c[i].dim), 1e-5, 1e-6);
}

int main(void)
{
	g_rng = 0x2545f4914f6cdd1dull;
	krl_test_require_gpu("gpu_ops_reduce");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_prod),
		cmocka_unit_test(test_cumprod),
		cmocka_unit_test(test_cumsum),
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_cat_n),
		cmocka_unit_test(test_logsumexp),
	};
	return cmocka_run_group_tests(tests, gpuop_setup, gpuop_teardown);
}
