/*
 * GPU test of the op family "norm": every op on random inputs (drawn on
 * the host from a fixed seed), run on the device through krl_op.run and
 * compared with the float64 golden version, on tiny odd shapes and on one
 * mid-size shape per op that takes its main kernel paths (split
 * reductions, vectorised and scalar rows, partial attention tiles), and
 * batchnorm and groupnorm on each of the paths PyTorch takes (cuDNN,
 * channels-last, GroupNorm1dForward). Every case runs twice: both calls
 * must match the golden and each other. The elementwise ops the norm
 * tasks use are tested in gpu_ops_eltwise.c.
 * Needs a GPU: skips (exit 77) without one.
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

/* How an input is drawn: normal, class indices below `hi` (i64), or
 * normal with a +1 shift (norm weights). */
typedef enum { D_NORMAL, D_CLASS, D_WEIGHT } dist;

/* ==== One case ==== */

/* Elements of got (no of them) outside atol + rtol * abs(ref); *worst
 * gets the index of the worst one (or -1), max_abs and max_rel the largest
 * finite errors. */
static int64_t count_bad(const float *got, const double *ref, int64_t no,
                         double atol, double rtol, int64_t *worst,
                         double *max_abs, double *max_rel)
{
	int64_t bad = 0;
	double worst_ex = 0;
	*worst = -1;
	*max_abs = 0;
	*max_rel = 0;
	for (int64_t j = 0; j < no; j++) {
		double e = fabs((double)got[j] - ref[j]);
		double lim = atol + rtol * fabs(ref[j]);
		if (!(e <= lim)) {
			bad++;
			if (*worst < 0 || e - lim > worst_ex) {
				*worst = j;
				worst_ex = e - lim;
			}
		}
		if (isfinite(e)) {
			if (e > *max_abs)
				*max_abs = e;
			if (ref[j] != 0 && e / fabs(ref[j]) > *max_rel)
				*max_rel = e / fabs(ref[j]);
		}
	}
	return bad;
}

/*
 * Runs op `name` on the GPU and in golden float64 on the same inputs
 * (input i drawn from dd[i]; D_CLASS draws i64 indices below `hi`) and
 * checks every output element with abs(g - r) <= atol + rtol * abs(r).
 * Runs the GPU op twice (semaphores, scratch and the ops' state reused),
 * the output poisoned with NaN before each call: both calls must pass,
 * and the second must repeat the first (to 1e-6 relative: state such as
 * batchnorm's running statistics must not reach the output).
 */
static void run_case(const char *name, const shape *ins, const dist *dd,
                     int nin, shape outs, krl_attrs a, int64_t hi,
                     double atol, double rtol)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	krl_tensor hin[4], din[4], hout, dout;
	for (int i = 0; i < nin; i++) {
		int64_t n = numel(&ins[i]);
		int is64 = dd[i] == D_CLASS;
		double *h = malloc((size_t)(n ? n : 1) * sizeof(double));
		void *f = malloc((size_t)(n ? n : 1) * 8);
		assert_non_null(h);
		assert_non_null(f);
		for (int64_t j = 0; j < n; j++) {
			if (is64) {
				int64_t c = (int64_t)(gpuop_urand() * (double)hi);
				((int64_t *)f)[j] = c;
				h[j] = (double)c;
				continue;
			}
			double v = dd[i] == D_WEIGHT ? 1 + 0.5 * gpuop_nrand()
			         : gpuop_nrand();
			((float *)f)[j] = (float)v;
			h[j] = (double)((float *)f)[j];
		}
		memset(&hin[i], 0, sizeof hin[i]);
		hin[i].data = h;
		hin[i].dtype = is64 ? KRL_I64 : KRL_F32;
		hin[i].ndim = ins[i].ndim;
		memcpy(hin[i].dim, ins[i].dim, sizeof ins[i].dim);
		din[i] = hin[i];
		void *dp = NULL;
		size_t bytes = (size_t)n * (is64 ? 8 : 4);
		CK(cudaMalloc(&dp, bytes ? bytes : 8));
		CK(cudaMemcpy(dp, f, bytes, cudaMemcpyHostToDevice));
		din[i].data = dp;
		free(f);
	}
	int64_t no = numel(&outs);
	memset(&hout, 0, sizeof hout);
	hout.dtype = KRL_F32;
	hout.ndim = outs.ndim;
	memcpy(hout.dim, outs.dim, sizeof outs.dim);
	hout.data = calloc((size_t)no, sizeof(double));
	dout = hout;
	void *dp = NULL;
	CK(cudaMalloc(&dp, (size_t)no * 4));
	dout.data = dp;

	char msg[512] = "";
	krl_err r = op->check(hin, &hout, &a, msg, sizeof msg);
	if (r)
		fprintf(stderr, "%s: check: %s\n", name, msg);
	assert_int_equal(r, KRL_OK);
	assert_int_equal(op->golden(hin, &hout, &a), KRL_OK);
	const double *ref = hout.data;
	float *got[2];
	int64_t bad = 0, worst = -1, differ = 0;
	int wrep = 0;
	double max_abs = 0, max_rel = 0;
	for (int rep = 0; rep < 2; rep++) {
		CK(cudaMemset(dp, 0xff, (size_t)no * 4));
		krl_diag d;
		memset(&d, 0, sizeof d);
		r = op->run(g_ctx, din, &dout, &a, &d);
		KRL_ASSERT_OK(r, &d);
		CK(cudaStreamSynchronize(g_stream));
		got[rep] = malloc((size_t)no * 4);
		assert_non_null(got[rep]);
		CK(cudaMemcpy(got[rep], dp, (size_t)no * 4,
		              cudaMemcpyDeviceToHost));
		int64_t w;
		double ma, mr;
		int64_t b = count_bad(got[rep], ref, no, atol, rtol, &w, &ma,
		                      &mr);
		if (b > bad || rep == 0) {
			bad = b;
			worst = w;
			wrep = rep;
		}
		if (ma > max_abs)
			max_abs = ma;
		if (mr > max_rel)
			max_rel = mr;
		if (b)
			fprintf(stderr, "%s: call %d: %lld elements outside "
			        "the tolerance\n", name, rep + 1, (long long)b);
	}
	for (int64_t j = 0; j < no; j++) {
		double e = fabs((double)got[1][j] - (double)got[0][j]);
		if (!(e <= 1e-6 * (1 + fabs((double)got[0][j]))))
			differ++;
	}
	char shp[256] = "";
	for (int i = 0; i < nin; i++) {
		size_t k = strlen(shp);
		snprintf(shp + k, sizeof shp - k, "%s[", i ? ", " : "");
		for (int j = 0; j < ins[i].ndim; j++) {
			k = strlen(shp);
			snprintf(shp + k, sizeof shp - k, "%s%lld", j ? "x" : "",
			         (long long)ins[i].dim[j]);
		}
		strncat(shp, "]", sizeof shp - strlen(shp) - 1);
	}
	printf("%-12s %-40s max_abs %.3g max_rel %.3g%s\n", name, shp,
	       max_abs, max_rel, bad || differ ? "  FAIL" : "");
	if (bad)
		fprintf(stderr, "%s %s: %lld of %lld elements outside atol=%g "
		        "rtol=%g; worst at %lld: gpu %.9g, golden %.9g\n", name,
		        shp, (long long)bad, (long long)no, atol, rtol,
		        (long long)worst, (double)got[wrep][worst], ref[worst]);
	if (differ)
		fprintf(stderr, "%s %s: the second call differs from the first "
		        "in %lld of %lld elements\n", name, shp,
		        (long long)differ, (long long)no);
	for (int i = 0; i < nin; i++) {
		cudaFree(din[i].data);
		free(hin[i].data);
	}
	cudaFree(dp);
	free(hout.data);
	free(got[0]);
	free(got[1]);
	assert_int_equal(bad, 0);
	assert_int_equal(differ, 0);
}

static void one(const char *name, shape x, krl_attrs a, dist d, double atol,
                double rtol)
{
	run_case(name, &x, &d, 1, x, a, 0, atol, rtol);
}

/* ==== Tests ==== */

static void test_norms(void **state)
{
	(void)state;
	shape xs[] = {
		S(4, I(3), I(5), I(7), I(33)),     /* tiny, odd planes */
		S(4, I(4), I(8), I(64), I(64)),    /* mid: 512-thread rows */
		S(3, I(2), I(6), I(3)),            /* planes < 32 */
	};
	dist dn[3] = { D_NORMAL, D_WEIGHT, D_NORMAL };
	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
		shape c = S(1, xs[i].dim[1]);
		shape in[3] = { xs[i], c, c };
		run_case("batchnorm", in, dn, 3, xs[i], A(1, "eps", 1e-5), 0,
		         1e-5, 1e-4);
		one("instancenorm", xs[i], A(0), D_NORMAL, 1e-5, 1e-4);
		double g = xs[i].dim[1] % 2 ? 1 : 2;
		run_case("groupnorm", in, dn, 3, xs[i], A(1, "groups", g), 0,
		         1e-5, 1e-4);
	}
	/* many batches per channel: the apply kernel's grid.y loop */
	shape nb = S(3, I(300), I(3), I(5));
	shape c3 = S(1, I(3));
	shape in[3] = { nb, c3, c3 };
	run_case("batchnorm", in, dn, 3, nb, A(0), 0, 1e-5, 1e-4);
	/* many elements per channel, x centred off zero: the statistics
	 * spread over many blocks per channel and combined in double;
	 * float4 and scalar planes, and kb1's 2^24 elements per channel */
	shape big[] = {
		S(4, I(2), I(3), I(512), I(1000)),
		S(3, I(2), I(3), I(999999)),
		S(4, I(64), I(1), I(512), I(512)),
	};
	dist dw[3] = { D_WEIGHT, D_WEIGHT, D_NORMAL };
	for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
		shape c = S(1, big[i].dim[1]);
		shape bin[3] = { big[i], c, c };
		/* cuDNN's fp32 statistics over up to 2^24 elements */
		run_case("batchnorm", bin, dw, 3, big[i], A(0), 0, 5e-5, 1e-4);
	}
	/* more channels than one wave of blocks: one block per channel */
	one("instancenorm", S(4, I(20), I(30), I(8), I(8)), A(0), D_NORMAL,
	    1e-5, 1e-4);
}

/* batchnorm on each of PyTorch's backends (batchnorm.c): the channels-
 * last kernels of a 2-D [N, C] x (with and without the row split and its
 * staging; C odd, C = 1, kb1's 8192), cuDNN for 3-D, 4-D and 5-D, and
 * the native fallbacks past cuDNN's batch limit of 880801. */
static void test_batchnorm_paths(void **state)
{
	(void)state;
	dist dn[3] = { D_NORMAL, D_WEIGHT, D_NORMAL };
	dist dw[3] = { D_WEIGHT, D_WEIGHT, D_NORMAL };
	struct { shape x; int off; double atol; } c[] = {
		/* channels-last [N, C] */
		{ S(2, I(3), I(5)), 0, 1e-5 },
		{ S(2, I(1000), I(257)), 0, 1e-5 },   /* C odd, no split */
		{ S(2, I(1024), I(8192)), 1, 1e-5 },  /* kb1 33/84/97 */
		{ S(2, I(1000), I(1)), 0, 1e-5 },     /* one column */
		{ S(2, I(5000), I(33)), 1, 1e-5 },    /* split: 20 row blocks */
		{ S(2, I(20000), I(7)), 0, 1e-5 },    /* split, 4-wide tile */
		{ S(2, I(70000), I(48)), 1, 1e-5 },   /* 128 row blocks */
		/* cuDNN */
		{ S(3, I(16), I(7), I(33)), 0, 1e-5 },
		{ S(4, I(8), I(13), I(17), I(19)), 0, 1e-5 },
		{ S(4, I(32), I(64), I(28), I(28)), 1, 5e-5 },
		{ S(5, I(4), I(5), I(7), I(9), I(11)), 0, 1e-5 },
		{ S(5, I(2), I(16), I(31), I(33), I(33)), 1, 5e-5 },
		/* N > 880801: native channels-last ([N, C, 1]) and NCHW */
		{ S(3, I(900000), I(2), I(1)), 0, 1e-5 },
		{ S(3, I(900000), I(2), I(3)), 0, 1e-5 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		shape ch = S(1, c[i].x.dim[1]);
		shape in[3] = { c[i].x, ch, ch };
		run_case("batchnorm", in, c[i].off ? dw : dn, 3, c[i].x,
		         A(1, "eps", 1e-5), 0, c[i].atol, 1e-4);
	}
	/* eps = 0 (CUDNN_BN_MIN_EPSILON): still cuDNN */
	shape x = S(4, I(4), I(3), I(9), I(7)), ch = S(1, I(3));
	shape in[3] = { x, ch, ch };
	run_case("batchnorm", in, dn, 3, x, A(1, "eps", 0.0), 0, 1e-5, 1e-4);
}

/* groupnorm on a 2-D [N, C] x: PyTorch's GroupNorm1dForward (the row
 * moments with 32 or 512 threads, one apply): groups 1, 16, C (one
 * element per group), odd sizes, kb1's [1024, 8192] and a rank-3 x with
 * one element per (n, c), which takes the same path. */
static void test_groupnorm_1d(void **state)
{
	(void)state;
	dist dn[3] = { D_NORMAL, D_WEIGHT, D_NORMAL };
	struct { shape x; double g; } c[] = {
		{ S(2, I(37), I(255)), 1 },
		{ S(2, I(37), I(255)), 255 },
		{ S(2, I(37), I(255)), 5 },
		{ S(2, I(1000), I(8192)), 16 },      /* 512 per group */
		{ S(2, I(1000), I(8192)), 8192 },
		{ S(2, I(1024), I(8192)), 512 },     /* kb1 62 and 75 */
		{ S(2, I(333), I(4096)), 64 },
		{ S(2, I(3), I(5)), 1 },
		{ S(3, I(6), I(10), I(1)), 5 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		shape ch = S(1, c[i].x.dim[1]);
		shape in[3] = { c[i].x, ch, ch };
		run_case("groupnorm", in, dn, 3, c[i].x,
		         A(2, "groups", c[i].g, "eps", 1e-5), 0, 1e-5, 1e-4);
	}
}

static void test_vector_norm(void **state)
{
	(void)state;
	dist d = D_NORMAL;
	struct { shape x; int all; } c[] = {
		{ S(2, I(33), I(1001)), 0 },       /* flat rows, scalar loads */
		{ S(2, I(33), I(7)), 0 },          /* short rows, 8 per warp */
		{ S(2, I(16), I(16384)), 0 },      /* kb0 L2: 16 rows */
		{ S(2, I(4), I(400000)), 0 },      /* rows split over blocks */
		{ S(2, I(3000), I(64)), 0 },       /* many short rows */
		{ S(1, I(5)), 1 },
		{ S(4, I(3), I(5), I(7), I(33)), 1 },
		{ S(2, I(1000), I(4099)), 1 },     /* split, scalar */
		{ S(2, I(1024), I(4096)), 1 },     /* split, vectorised */
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		shape y = c[i].x;
		krl_attrs a = A(0);
		if (c[i].all) {
			y = S(0);
		} else {
			y.dim[y.ndim - 1] = 1;
			a = A(1, "dim", -1.0);
		}
		run_case("vector_norm", &c[i].x, &d, 1, y, a, 0, 1e-6, 1e-5);
	}
}

static void test_nll_loss(void **state)
{
	(void)state;
	dist d[2] = { D_NORMAL, D_CLASS };
	/* 32, 256 and 1024 threads (nll_loss_threads); kb1's batch */
	struct { int64_t n, c; } cs[] = { { 33, 70 }, { 4096, 10 },
	                                  { 20000, 1000 }, { 32768, 100 } };
	for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
		shape in[2] = { S(2, cs[i].n, cs[i].c), S(1, cs[i].n) };
		run_case("nll_loss", in, d, 2, S(0), A(0), cs[i].c, 1e-6, 1e-5);
	}
}

static void test_sdpa(void **state)
{
	(void)state;
	dist d[3] = { D_NORMAL, D_NORMAL, D_NORMAL };
	struct { shape q, k, v, o; } c[] = {
		{ S(4, I(2), I(3), I(37), I(20)), S(4, I(2), I(3), I(37), I(20)),
		  S(4, I(2), I(3), I(37), I(20)), S(4, I(2), I(3), I(37), I(20)) },
		/* L != S, Ev != E */
		{ S(3, I(2), I(5), I(40)), S(3, I(2), I(130), I(40)),
		  S(3, I(2), I(130), I(24)), S(3, I(2), I(5), I(24)) },
		/* mid: two key tiles, a full query tile, E = 1024 */
		{ S(4, I(1), I(2), I(128), I(1024)),
		  S(4, I(1), I(2), I(128), I(1024)),
		  S(4, I(1), I(2), I(128), I(1024)),
		  S(4, I(1), I(2), I(128), I(1024)) },
		/* Ev > 1024: the 16-row tiles */
		{ S(3, I(1), I(20), I(64)), S(3, I(1), I(70), I(64)),
		  S(3, I(1), I(70), I(1500)), S(3, I(1), I(20), I(1500)) },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		shape in[3] = { c[i].q, c[i].k, c[i].v };
		run_case("sdpa", in, d, 3, c[i].o, A(0), 0, 1e-5, 1e-4);
	}
	/* Each of plain, causal, relu and both on: the thread kernel (128
	 * queries or more, 64 keys or more, rows of at most 32 floats, a
	 * multiple of 4; the cases with a 64-wide side reach the tiled
	 * kernel since the dispatch left it those), two rows a
	 * thread at 32 + 32, partial query and key tiles and groups of four
	 * keys, an odd L (a thread's second row past it), L != S both ways,
	 * long walks (33 key tiles); the tiled kernel (64 queries or more,
	 * rows of at most 128 floats; fewer than 128 queries where both are
	 * at most 64), each width it rounds to (32, 64, 96, 128; e and ev
	 * below them read zeros past their end), partial tiles, L != S; the
	 * short kernel (at most 8 queries and 256 keys); and the rows
	 * kernel (L below 64, E not a multiple of 4). */
	struct { int64_t bh, l, s, e, ev; double rs; } t[] = {
		/* thread */
		{ 2, 301, 300, 32, 32, 0.1 },   { 3, 200, 150, 64, 64, 0.1 },
		{ 1, 150, 333, 8, 24, 0.1 },    { 1, 140, 90, 60, 20, 0.1 },
		{ 1, 129, 130, 12, 64, 0.1 },   { 2, 600, 700, 32, 32, 0.03 },
		{ 2, 1030, 1030, 64, 64, 0.01 },
		/* tiled */
		{ 3, 100, 130, 32, 32, 0.1 },   { 2, 64, 200, 64, 64, 0.1 },
		{ 2, 257, 257, 96, 96, 0.1 },   { 1, 100, 70, 128, 128, 0.1 },
		{ 2, 77, 77, 20, 60, 0.1 },     { 2, 150, 150, 96, 36, 0.1 },
		/* short: 28's attention over its batch of 2 (1,576 heads),
		 * L > S, odd and unequal widths, 128 columns, one query over
		 * 256 keys */
		{ 1576, 2, 2, 64, 64, 0.1 },    { 3, 8, 5, 20, 100, 0.1 },
		{ 2, 3, 7, 5, 3, 0.1 },         { 2, 5, 200, 128, 128, 0.1 },
		{ 5, 1, 256, 33, 7, 0.1 },
		/* rows: 9 queries, or a few over 300 keys, are past short */
		{ 3, 40, 40, 7, 9, 0.1 },       { 2, 20, 90, 64, 64, 0.1 },
		{ 2, 9, 9, 64, 64, 0.1 },       { 2, 4, 300, 32, 32, 0.1 },
	};
	/* relu's sums are not normalised: its scale rs (0.1 mostly) keeps
	 * the weights near 1 (at E = 128 a scale of 0.5 gives outputs of
	 * +-25, whose fp32 rounding near a zero crossing is atol's size; so
	 * does 0.1 over 700 keys, the fp32 sums' error growing with their
	 * length: on the CPU stand-in, 0.75 of the tolerance at 0.1, 0.2 at
	 * 0.03) */
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		double rs = t[i].rs;
		krl_attrs modes[4] = {
			A(1, "scale", 0.2), A(2, "scale", 0.2, "causal", 1.0),
			A(2, "scale", rs, "relu", 1.0),
			A(3, "scale", rs, "causal", 1.0, "relu", 1.0) };
		for (int m = 0; m < 4; m++) {
			shape q = S(3, I(t[i].bh), I(t[i].l), I(t[i].e));
			shape k = S(3, I(t[i].bh), I(t[i].s), I(t[i].e));
			shape v = S(3, I(t[i].bh), I(t[i].s), I(t[i].ev));
			shape o = S(3, I(t[i].bh), I(t[i].l), I(t[i].ev));
			shape in[3] = { q, k, v };
			run_case("sdpa", in, d, 3, o, modes[m], 0, 1e-5, 1e-4);
		}
	}
}

int main(void)
{
	g_rng = 0x2545f4914f6cdd1dull;
	krl_test_require_gpu("gpu_ops_norm");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_norms),
		cmocka_unit_test(test_batchnorm_paths),
		cmocka_unit_test(test_groupnorm_1d),
		cmocka_unit_test(test_vector_norm),
		cmocka_unit_test(test_nll_loss),
		cmocka_unit_test(test_sdpa),
	};
	return cmocka_run_group_tests(tests, gpuop_setup, gpuop_teardown);
}
