/*
 * GPU test of the op library: every op on random inputs (drawn on the host
 * from a fixed seed), run on the device through krl_op.run and compared
 * with the float64 golden version, on tiny shapes and on mid-size shapes
 * that take each kernel's main paths (vectorised and tail, split
 * reductions, warp/block/shared-memory softmax, CUB and Brent-Kung scans,
 * every GEMM transpose, batched and broadcast GEMM). Needs a GPU: skips
 * (exit 77) without one.
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

typedef enum { D_NORMAL, D_AWAY, D_SMALLINT } dist;

/* ==== One case ==== */

/*
 * Runs op `name` on the GPU and in golden float64 on the same inputs
 * (drawn from dist; layernorm's w/b and the second operand of binary ops
 * included) and checks every output element: abs(g - r) <= atol + rtol *
 * abs(r) for floats, equality for i64. Runs the GPU op twice, so cached
 * GEMM plans and left-zero semaphores are exercised.
 */
static void run_case(const char *name, const shape *ins, int nin,
                     shape outs, krl_attrs a, dist dd, double atol,
                     double rtol)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	krl_tensor hin[8], din[8], hout, dout;
	float *fin[8];
	for (int i = 0; i < nin; i++) {
		int64_t n = numel(&ins[i]);
		double *h = malloc((size_t)(n ? n : 1) * sizeof(double));
		fin[i] = malloc((size_t)(n ? n : 1) * sizeof(float));
		assert_non_null(h);
		assert_non_null(fin[i]);
		for (int64_t j = 0; j < n; j++) {
			double v;
			if (dd == D_SMALLINT)
				v = floor(gpuop_urand() * 4);
			else if (dd == D_AWAY && i == 1)
				v = (0.5 + gpuop_urand() * 1.5) * (gpuop_urand() < 0.5 ? -1 : 1);
			else
				v = gpuop_nrand();
			fin[i][j] = (float)v;
			h[j] = (double)fin[i][j];
		}
		memset(&hin[i], 0, sizeof hin[i]);
		hin[i].data = h;
		hin[i].dtype = KRL_F32;
		hin[i].ndim = ins[i].ndim;
		memcpy(hin[i].dim, ins[i].dim, sizeof ins[i].dim);
		din[i] = hin[i];
		void *dp = NULL;
		CK(cudaMalloc(&dp, (size_t)(n ? n : 1) * sizeof(float)));
		CK(cudaMemcpy(dp, fin[i], (size_t)n * sizeof(float),
		              cudaMemcpyHostToDevice));
		din[i].data = dp;
	}
	int is_i64 = strncmp(name, "arg", 3) == 0;
	int64_t no = numel(&outs);
	size_t esz = is_i64 ? 8 : 4;
	memset(&hout, 0, sizeof hout);
	hout.dtype = is_i64 ? KRL_I64 : KRL_F32;
	hout.ndim = outs.ndim;
	memcpy(hout.dim, outs.dim, sizeof outs.dim);
	hout.data = calloc((size_t)no, sizeof(double));
	dout = hout;
	void *dp = NULL;
	CK(cudaMalloc(&dp, (size_t)no * esz));
	CK(cudaMemset(dp, 0xff, (size_t)no * esz));
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
	void *got = malloc((size_t)no * esz);
	CK(cudaMemcpy(got, dp, (size_t)no * esz, cudaMemcpyDeviceToHost));

	const double *ref = hout.data;
	int64_t bad = 0, worst = -1;
	double max_abs = 0, max_rel = 0, worst_ex = 0;
	for (int64_t j = 0; j < no; j++) {
		double g = is_i64 ? (double)((int64_t *)got)[j]
		                  : (double)((float *)got)[j];
		double e = fabs(g - ref[j]);
		double lim = is_i64 ? 0 : atol + rtol * fabs(ref[j]);
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
			if (ref[j] != 0 && e / fabs(ref[j]) > max_rel)
				max_rel = e / fabs(ref[j]);
		}
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
	printf("%-12s %-34s max_abs %.3g max_rel %.3g%s\n", name, shp,
	       max_abs, max_rel, bad ? "  FAIL" : "");
	if (bad) {
		double g = is_i64 ? (double)((int64_t *)got)[worst]
		                  : (double)((float *)got)[worst];
		fprintf(stderr, "%s %s: %lld of %lld elements outside atol=%g "
		        "rtol=%g; worst at %lld: gpu %.9g, golden %.9g\n", name,
		        shp, (long long)bad, (long long)no, atol, rtol,
		        (long long)worst, g, ref[worst]);
	}
	for (int i = 0; i < nin; i++) {
		cudaFree(din[i].data);
		free(hin[i].data);
		free(fin[i]);
	}
	cudaFree(dp);
	free(hout.data);
	free(got);
	assert_int_equal(bad, 0);
}

/* ==== Tests ==== */

static void test_elementwise(void **state)
{
	(void)state;
	shape sh[] = { S(2, I(3), I(5)), S(2, I(1000), I(1003)) };
	const char *un[] = { "relu", "gelu", "square", "copy" };
	for (int s = 0; s < 2; s++) {
		for (int u = 0; u < 4; u++)
			run_case(un[u], &sh[s], 1, sh[s], A(0), D_NORMAL, 1e-6,
			         1e-6);
		run_case("gelu", &sh[s], 1, sh[s], A(1, "tanh", 1.0),
		         D_NORMAL, 1e-6, 1e-5);
		run_case("scale", &sh[s], 1, sh[s], A(1, "alpha", -0.37),
		         D_NORMAL, 1e-7, 1e-6);
		shape two[2] = { sh[s], sh[s] };
		run_case("add", two, 2, sh[s], A(0), D_NORMAL, 1e-6, 1e-6);
		run_case("sub", two, 2, sh[s], A(0), D_NORMAL, 1e-6, 1e-6);
		run_case("mul", two, 2, sh[s], A(0), D_NORMAL, 1e-6, 1e-6);
		run_case("div", two, 2, sh[s], A(0), D_AWAY, 1e-6, 1e-6);
	}
}

static void test_gemm(void **state)
{
	(void)state;
	for (int ta = 0; ta < 2; ta++)
		for (int tb = 0; tb < 2; tb++) {
			int64_t m = 256, k = 384, n = 320;
			shape in[2] = {
				ta ? S(2, k, m) : S(2, m, k),
				tb ? S(2, n, k) : S(2, k, n),
			};
			krl_attrs a = A(3, "ta", (double)ta, "tb", (double)tb,
			                "alpha", ta ? 0.5 : 1.0);
			run_case("gemm", in, 2, S(2, m, n), a, D_NORMAL, 1e-3,
			         1e-4);
			shape tiny[2] = { ta ? S(2, I(3), I(2)) : S(2, I(2), I(3)),
			                  tb ? S(2, I(2), I(3)) : S(2, I(3), I(2)) };
			run_case("gemm", tiny, 2, S(2, I(2), I(2)), a, D_NORMAL,
			         1e-5, 1e-5);
		}
	/* batched, b batched or broadcast (folded, and strided with ta) */
	shape bb[2] = { S(3, I(3), I(64), I(80)), S(3, I(3), I(80), I(72)) };
	run_case("gemm", bb, 2, S(3, I(3), I(64), I(72)), A(0), D_NORMAL,
	         1e-3, 1e-4);
	shape bc[2] = { S(3, I(3), I(64), I(80)), S(2, I(80), I(72)) };
	run_case("gemm", bc, 2, S(3, I(3), I(64), I(72)), A(0), D_NORMAL,
	         1e-3, 1e-4);
	shape bt[2] = { S(4, I(2), I(3), I(80), I(64)), S(2, I(72), I(80)) };
	run_case("gemm", bt, 2, S(4, I(2), I(3), I(64), I(72)),
	         A(2, "ta", 1.0, "tb", 1.0), D_NORMAL, 1e-3, 1e-4);
	/* odd sizes: misaligned batch strides */
	shape od[2] = { S(3, I(5), I(7), I(9)), S(3, I(5), I(9), I(11)) };
	run_case("gemm", od, 2, S(3, I(5), I(7), I(11)), A(0), D_NORMAL,
	         1e-4, 1e-4);
}

/* Every reduction over x along dim (dropping it). */
static void reduce_all(shape x, int dim, double atol)
{
	shape y = x;
	int d = dim < 0 ? dim + x.ndim : dim;
	y.ndim--;
	for (int i = d; i < y.ndim; i++)
		y.dim[i] = x.dim[i + 1];
	krl_attrs a = A(1, "dim", (double)dim);
	double r = (double)x.dim[d];
	run_case("sum", &x, 1, y, a, D_NORMAL, atol * sqrt(r), 1e-4);
	run_case("mean", &x, 1, y, a, D_NORMAL, atol / sqrt(r), 1e-4);
	run_case("max", &x, 1, y, a, D_NORMAL, 0, 0);
	run_case("min", &x, 1, y, a, D_NORMAL, 0, 0);
	run_case("argmax", &x, 1, y, a, D_NORMAL, 0, 0);
	run_case("argmin", &x, 1, y, a, D_NORMAL, 0, 0);
	/* many ties: the first index must win, across split blocks too */
	run_case("argmax", &x, 1, y, a, D_SMALLINT, 0, 0);
	run_case("argmin", &x, 1, y, a, D_SMALLINT, 0, 0);
	run_case("sum", &x, 1, y, a, D_SMALLINT, 0, 0);
}

static void test_reductions(void **state)
{
	(void)state;
	reduce_all(S(2, I(2), I(3)), 0, 1e-5);
	reduce_all(S(2, I(2), I(3)), 1, 1e-5);
	reduce_all(S(3, I(5), I(257), I(33)), 1, 1e-5);
	reduce_all(S(3, I(16), I(256), I(256)), 1, 1e-5);
	reduce_all(S(3, I(16), I(256), I(256)), -1, 1e-5);
	reduce_all(S(2, I(4), I(100001)), 1, 1e-5);   /* split, scalar */
	reduce_all(S(2, I(3), I(400000)), -1, 1e-5);  /* split, vector */
	reduce_all(S(2, I(200000), I(3)), 0, 1e-5);   /* split, strided */
	/* keepdim output */
	shape x = S(3, I(4), I(50), I(6));
	run_case("sum", &x, 1, S(3, I(4), I(1), I(6)), A(1, "dim", 1.0),
	         D_NORMAL, 1e-4, 1e-4);
	/* mean of everything */
	shape m = S(2, I(1000), I(1000));
	run_case("mean", &m, 1, S(0), A(0), D_NORMAL, 1e-6, 1e-4);
	shape t = S(1, I(7));
	run_case("mean", &t, 1, S(0), A(0), D_NORMAL, 1e-6, 1e-5);
}

static void test_softmax(void **state)
{
	(void)state;
	struct { shape x; int dim; } c[] = {
		{ S(2, I(2), I(3)), 1 },
		{ S(2, I(2), I(3)), 0 },
		{ S(2, I(33), I(1000)), -1 },     /* warp softmax */
		{ S(2, I(64), I(17)), 1 },        /* short rows */
		{ S(2, I(9), I(1500)), 1 },       /* warp, 64 per lane */
		{ S(2, I(8), I(2048)), 1 },
		{ S(2, I(16), I(4096)), 1 },      /* row in registers */
		{ S(2, I(8), I(5000)), 1 },
		{ S(2, I(3), I(9216)), 1 },       /* 9 registers */
		{ S(2, I(8), I(10000)), 1 },      /* shared-memory row */
		{ S(2, I(4), I(70000)), 1 },      /* three global passes */
		{ S(2, I(3), I(4099)), 1 },       /* odd rows */
		{ S(2, I(3), I(12001)), 1 },      /* unaligned, global */
		{ S(3, I(4), I(37), I(5)), 1 },   /* spatial */
		{ S(3, I(2), I(1000), I(70)), 1 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		krl_attrs a = A(1, "dim", (double)c[i].dim);
		run_case("softmax", &c[i].x, 1, c[i].x, a, D_NORMAL, 1e-7, 1e-4);
		run_case("log_softmax", &c[i].x, 1, c[i].x, a, D_NORMAL, 1e-5,
		         1e-5);
	}
}

static void test_layernorm(void **state)
{
	(void)state;
	struct { shape x; int axes; } c[] = {
		{ S(2, I(2), I(3)), 1 },
		{ S(4, I(4), I(3), I(50), I(60)), 3 },
		{ S(2, I(4), I(1001)), 1 },     /* scalar path */
		{ S(2, I(3), I(200000)), 1 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		shape w = c[i].x;
		w.ndim = c[i].axes;
		for (int j = 0; j < c[i].axes; j++)
			w.dim[j] = c[i].x.dim[c[i].x.ndim - c[i].axes + j];
		shape in[3] = { c[i].x, w, w };
		run_case("layernorm", in, 3, c[i].x,
		         A(1, "axes", (double)c[i].axes), D_NORMAL, 1e-4, 1e-4);
	}
	shape x = S(2, I(5), I(64));
	shape in[3] = { x, S(1, I(64)), S(1, I(64)) };
	run_case("layernorm", in, 3, x, A(1, "eps", 0.1), D_NORMAL, 1e-4,
	         1e-4);
}

static void test_cumsum(void **state)
{
	(void)state;
	struct { shape x; int dim; double atol; } c[] = {
		{ S(2, I(2), I(3)), 1, 1e-5 },
		{ S(2, I(2), I(3)), 0, 1e-5 },
		{ S(2, I(7), I(5000)), -1, 5e-3 },
		{ S(2, I(100), I(33)), 1, 1e-4 },
		{ S(1, I(100000)), 0, 2e-2 },        /* CUB */
		{ S(3, I(50), I(6), I(40)), 1, 1e-4 }, /* outer dim */
		{ S(2, I(3000), I(20)), 0, 5e-3 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		run_case("cumsum", &c[i].x, 1, c[i].x,
		         A(1, "dim", (double)c[i].dim), D_NORMAL, c[i].atol,
		         1e-4);
}

int main(void)
{
	g_rng = 0x9e3779b97f4a7c15ull;
	krl_test_require_gpu("gpu_ops");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elementwise),
		cmocka_unit_test(test_gemm),
		cmocka_unit_test(test_reductions),
		cmocka_unit_test(test_softmax),
		cmocka_unit_test(test_layernorm),
		cmocka_unit_test(test_cumsum),
	};
	return cmocka_run_group_tests(tests, gpuop_setup, gpuop_teardown);
}
