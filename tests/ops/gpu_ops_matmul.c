/*
 * GPU test of the op family "matmul" (docs/ops-matmul.md): linear against
 * its float64 golden within fp32 GEMM tolerances (the bias epilogue and
 * addmm's other path: M, K or N of 1, a misaligned bias; odd sizes, a
 * [B, T, K] input, K = 0, an 8192-class product checked on sampled rows,
 * its plans kept apart from gemm's in the shared cache, every `algo`);
 * diag, triu and tril on random inputs (drawn on the host from a fixed seed), run on the
 * device through krl_op.run and compared element for element with the
 * float64 golden version, on tiny shapes and on mid-size shapes that take
 * each kernel's paths (vector and tail fill, off-diagonal copies, odd and
 * even column counts, batches, diagonals beyond the matrix, in place).
 * The outputs are poisoned first, so an element a kernel forgets to write
 * fails. Needs a GPU: skips (exit 77) without one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "krl/ops.h"
#include "gpuoptest.h"
#include "testutil.h"

/* ==== Helpers ==== */

static krl_tensor tensor(void *data, const shape *s)
{
	krl_tensor t;
	memset(&t, 0, sizeof t);
	t.data = data;
	t.dtype = KRL_F32;
	t.ndim = s->ndim;
	memcpy(t.dim, s->dim, sizeof s->dim);
	return t;
}

/*
 * Runs op `name` (one f32 input, one f32 output) on the GPU and in golden
 * float64 on the same normal(0, 1) input and requires every output element
 * to be equal: these ops only move values. The device output starts as
 * NaN (0xff bytes). With in_place, the op writes into its input buffer
 * (triu/tril allow it). `offset` shifts the device input and output by
 * that many floats from an aligned allocation, to take misaligned paths.
 * Runs the GPU op twice (the second must give the same).
 */
static void run_case(const char *name, shape xs, shape ys, double diagonal,
                     int in_place, int offset)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	int64_t nx = numel(&xs), ny = numel(&ys);
	double *hx = malloc((size_t)(nx ? nx : 1) * sizeof(double));
	float *fx = malloc((size_t)(nx ? nx : 1) * sizeof(float));
	double *hy = malloc((size_t)(ny ? ny : 1) * sizeof(double));
	float *got = malloc((size_t)(ny ? ny : 1) * sizeof(float));
	assert_non_null(hx);
	assert_non_null(fx);
	assert_non_null(hy);
	assert_non_null(got);
	for (int64_t i = 0; i < nx; i++) {
		fx[i] = (float)gpuop_nrand();
		hx[i] = (double)fx[i];
	}
	krl_attrs a;
	memset(&a, 0, sizeof a);
	a.n = 1;
	a.key[0] = "diagonal";
	a.val[0] = diagonal;
	krl_tensor hin = tensor(hx, &xs), hout = tensor(hy, &ys);
	char msg[512] = "";
	krl_err r = op->check(&hin, &hout, &a, msg, sizeof msg);
	if (r)
		fprintf(stderr, "%s: check: %s\n", name, msg);
	assert_int_equal(r, KRL_OK);
	assert_int_equal(op->golden(&hin, &hout, &a), KRL_OK);

	float *dx = NULL, *dy = NULL;
	CK(cudaMalloc((void **)&dx, (size_t)(nx + offset + 1) * sizeof(float)));
	CK(cudaMalloc((void **)&dy, (size_t)(ny + offset + 1) * sizeof(float)));
	float *x = dx + offset, *y = in_place ? x : dy + offset;
	int rounds = in_place ? 1 : 2;   /* in place, a rerun masks again */
	for (int rep = 0; rep < rounds; rep++) {
		CK(cudaMemcpy(x, fx, (size_t)nx * sizeof(float),
		              cudaMemcpyHostToDevice));
		if (!in_place)
			CK(cudaMemset(y, 0xff, (size_t)ny * sizeof(float)));
		krl_tensor din = tensor(x, &xs), dout = tensor(y, &ys);
		krl_diag d;
		memset(&d, 0, sizeof d);
		r = op->run(g_ctx, &din, &dout, &a, &d);
		KRL_ASSERT_OK(r, &d);
		CK(cudaStreamSynchronize(g_stream));
		CK(cudaMemcpy(got, y, (size_t)ny * sizeof(float),
		              cudaMemcpyDeviceToHost));
		int64_t bad = 0, first = -1;
		for (int64_t i = 0; i < ny; i++)
			if (!((double)got[i] == hy[i])) {
				if (first < 0)
					first = i;
				bad++;
			}
		char shp[128] = "[";
		for (int j = 0; j < xs.ndim; j++) {
			size_t k = strlen(shp);
			snprintf(shp + k, sizeof shp - k, "%s%lld", j ? "x" : "",
			         (long long)xs.dim[j]);
		}
		strncat(shp, "]", sizeof shp - strlen(shp) - 1);
		printf("%-5s x %-16s diagonal %-4g offset %d%s%s: %s\n", name,
		       shp, diagonal, offset, in_place ? " in place" : "",
		       rep ? " (rerun)" : "", bad ? "FAIL" : "ok");
		if (bad)
			fprintf(stderr, "%s: %lld of %lld elements differ; first "
			        "at %lld: gpu %.9g, golden %.9g\n", name,
			        (long long)bad, (long long)ny, (long long)first,
			        (double)got[first], hy[first]);
		assert_int_equal(bad, 0);
	}
	cudaFree(dx);
	cudaFree(dy);
	free(hx);
	free(fx);
	free(hy);
	free(got);
}

/* ==== Tests ==== */

static void test_diag(void **state)
{
	(void)state;
	struct { int64_t n; int k; int offset; } c[] = {
		{ 1, 0, 0 },
		{ 3, 0, 0 },
		{ 5, 2, 0 },       /* 7 x 7 = 49: one tail block */
		{ 5, -3, 1 },      /* misaligned y: scalar fill */
		{ 0, 2, 0 },       /* empty v: a 2 x 2 zero matrix */
		{ 1000, 0, 0 },    /* 10^6 elements: vector blocks and a tail */
		{ 1001, 7, 0 },    /* 1008^2, rows not 16-byte multiples */
		{ 777, -13, 3 },
		{ 4096, 0, 0 },    /* problem 12's size */
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		int64_t sz = c[i].n + (c[i].k < 0 ? -c[i].k : c[i].k);
		run_case("diag", S(1, c[i].n), S(2, sz, sz), c[i].k, 0,
		         c[i].offset);
	}
}

static void test_tri(void **state)
{
	(void)state;
	struct { shape x; int k; int in_place; int offset; } c[] = {
		{ S(2, I(1), I(1)), 0, 0, 0 },
		{ S(2, I(3), I(4)), 0, 0, 0 },
		{ S(2, I(4), I(3)), 1, 0, 0 },     /* odd columns: padded */
		{ S(2, I(5), I(7)), -2, 0, 1 },
		{ S(2, I(3), I(4)), 9, 0, 0 },     /* beyond: all masked */
		{ S(2, I(3), I(4)), -9, 0, 0 },    /* beyond: all kept */
		{ S(3, I(3), I(33), I(47)), 0, 0, 0 },
		{ S(4, I(2), I(3), I(17), I(9)), -1, 0, 0 },
		{ S(2, I(70), I(70)), 0, 1, 0 },   /* in place */
		{ S(2, I(1000), I(1003)), 3, 0, 0 },
		{ S(2, I(1003), I(1000)), -5, 1, 0 },
		{ S(2, I(4096), I(4096)), 0, 0, 0 }, /* problems 14/15 */
	};
	const char *ops[] = { "triu", "tril" };
	for (int o = 0; o < 2; o++)
		for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
			run_case(ops[o], c[i].x, c[i].x, c[i].k, c[i].in_place,
			         c[i].offset);
}

/* triu / tril on bool bytes (Mamba2's torch.tril(torch.ones(T, T,
 * dtype=bool))): 8 bytes a thread; exact against the host mask, with odd
 * column counts (padding), batches and in place. */
static void test_tri_bool(void **state)
{
	(void)state;
	struct { int64_t b, r, c, k; int in_place; } cs[] = {
		{ 1, 5, 7, 0, 0 }, { 3, 37, 41, -2, 0 }, { 2, 9, 16, 3, 1 },
		{ 1, 1024, 1024, 0, 0 }, { 4, 64, 65, 1, 1 },
	};
	for (size_t t = 0; t < sizeof cs / sizeof cs[0]; t++)
		for (int upper = 0; upper < 2; upper++) {
			int64_t n = cs[t].b * cs[t].r * cs[t].c;
			unsigned char *hx = malloc((size_t)n), *got = malloc((size_t)n);
			assert_non_null(hx);
			assert_non_null(got);
			for (int64_t i = 0; i < n; i++)
				hx[i] = gpuop_urand() < 0.7;
			unsigned char *dx = NULL, *dy = NULL;
			CK(cudaMalloc((void **)&dx, (size_t)n));
			CK(cudaMalloc((void **)&dy, (size_t)n));
			CK(cudaMemcpy(dx, hx, (size_t)n, cudaMemcpyHostToDevice));
			CK(cudaMemset(dy, 0xff, (size_t)n));
			unsigned char *y = cs[t].in_place ? dx : dy;
			krl_tensor tx = { dx, KRL_BOOL, 3,
			                  { cs[t].b, cs[t].r, cs[t].c } };
			krl_tensor ty = tx;
			ty.data = y;
			krl_attrs a = A(1, "diagonal", (double)cs[t].k);
			const krl_op *op = krl_op_find(upper ? "triu" : "tril");
			char msg[256] = "";
			assert_int_equal(op->check(&tx, &ty, &a, msg, sizeof msg),
			                 KRL_OK);
			krl_diag d;
			memset(&d, 0, sizeof d);
			KRL_ASSERT_OK(op->run(g_ctx, &tx, &ty, &a, &d), &d);
			CK(cudaStreamSynchronize(g_stream));
			CK(cudaMemcpy(got, y, (size_t)n, cudaMemcpyDeviceToHost));
			int64_t bad = 0;
			for (int64_t i = 0; i < n; i++) {
				int64_t col = i % cs[t].c, row = i / cs[t].c % cs[t].r;
				int keep = upper ? col - row >= cs[t].k
				                 : col - row <= cs[t].k;
				bad += got[i] != (keep ? hx[i] : 0);
			}
			printf("%s bool [%lld, %lld, %lld] k=%lld: %lld wrong\n",
			       op->name, (long long)cs[t].b, (long long)cs[t].r,
			       (long long)cs[t].c, (long long)cs[t].k,
			       (long long)bad);
			assert_int_equal(bad, 0);
			cudaFree(dx);
			cudaFree(dy);
			free(hx);
			free(got);
		}
}

/*
 * Problem 12's reference, diag(v) then gemm, gives exactly the float
 * product v[i] * b[i, j] (the GEMM adds only exact zeros): the premise of
 * that task's tolerance (tasks/level1/12kb0_diag_matmul.task).
 */
static void test_diag_then_gemm(void **state)
{
	(void)state;
	const int64_t n = 1001, m = 517;
	float *hv = malloc((size_t)n * sizeof(float));
	float *hb = malloc((size_t)(n * m) * sizeof(float));
	float *hc = malloc((size_t)(n * m) * sizeof(float));
	assert_non_null(hv);
	assert_non_null(hb);
	assert_non_null(hc);
	for (int64_t i = 0; i < n; i++)
		hv[i] = (float)gpuop_nrand();
	for (int64_t i = 0; i < n * m; i++)
		hb[i] = (float)gpuop_nrand();
	float *dv = NULL, *dd = NULL, *db = NULL, *dc = NULL;
	CK(cudaMalloc((void **)&dv, (size_t)n * sizeof(float)));
	CK(cudaMalloc((void **)&dd, (size_t)(n * n) * sizeof(float)));
	CK(cudaMalloc((void **)&db, (size_t)(n * m) * sizeof(float)));
	CK(cudaMalloc((void **)&dc, (size_t)(n * m) * sizeof(float)));
	CK(cudaMemcpy(dv, hv, (size_t)n * sizeof(float),
	              cudaMemcpyHostToDevice));
	CK(cudaMemcpy(db, hb, (size_t)(n * m) * sizeof(float),
	              cudaMemcpyHostToDevice));
	CK(cudaMemset(dd, 0xff, (size_t)(n * n) * sizeof(float)));
	shape sv = S(1, n), sd = S(2, n, n), sb = S(2, n, m);
	krl_tensor tv = tensor(dv, &sv), td = tensor(dd, &sd);
	krl_tensor tb[2] = { td, tensor(db, &sb) }, tc = tensor(dc, &sb);
	krl_attrs none;
	memset(&none, 0, sizeof none);
	krl_diag d;
	memset(&d, 0, sizeof d);
	KRL_ASSERT_OK(krl_op_find("diag")->run(g_ctx, &tv, &td, &none, &d), &d);
	KRL_ASSERT_OK(krl_op_find("gemm")->run(g_ctx, tb, &tc, &none, &d), &d);
	CK(cudaStreamSynchronize(g_stream));
	CK(cudaMemcpy(hc, dc, (size_t)(n * m) * sizeof(float),
	              cudaMemcpyDeviceToHost));
	int64_t bad = 0;
	for (int64_t i = 0; i < n; i++)
		for (int64_t j = 0; j < m; j++) {
			volatile float want = hv[i] * hb[i * m + j];
			if (hc[i * m + j] != want)
				bad++;
		}
	printf("diag+gemm [%lld] @ [%lldx%lld]: %lld of %lld differ from the "
	       "float product\n", (long long)n, (long long)n, (long long)m,
	       (long long)bad, (long long)(n * m));
	assert_int_equal(bad, 0);
	cudaFree(dv);
	cudaFree(dd);
	cudaFree(db);
	cudaFree(dc);
	free(hv);
	free(hb);
	free(hc);
}

/* The `algo` attribute: each of cuBLASLt's heuristic results agrees with
 * the first (true fp32: only the summation order differs); a K beyond
 * them takes the last, so every K runs. */
static void test_gemm_algo(void **state)
{
	(void)state;
	const int64_t m = 256, k = 384, n = 320;
	float *h = malloc((size_t)(k * n) * sizeof(float));
	float *da = NULL, *db = NULL, *dc = NULL;
	assert_non_null(h);
	CK(cudaMalloc((void **)&da, (size_t)(m * k) * sizeof(float)));
	CK(cudaMalloc((void **)&db, (size_t)(k * n) * sizeof(float)));
	CK(cudaMalloc((void **)&dc, (size_t)(m * n) * sizeof(float)));
	for (int64_t i = 0; i < m * k; i++)
		h[i] = (float)gpuop_nrand();
	CK(cudaMemcpy(da, h, (size_t)(m * k) * sizeof(float),
	              cudaMemcpyHostToDevice));
	for (int64_t i = 0; i < k * n; i++)
		h[i] = (float)gpuop_nrand();
	CK(cudaMemcpy(db, h, (size_t)(k * n) * sizeof(float),
	              cudaMemcpyHostToDevice));
	shape sa = S(2, m, k), sb = S(2, k, n), sc = S(2, m, n);
	krl_tensor in[2] = { tensor(da, &sa), tensor(db, &sb) };
	krl_tensor c = tensor(dc, &sc);
	krl_attrs none;
	memset(&none, 0, sizeof none);
	int ran = gpuop_algo_sweep("gemm", in, &c, m * n, none, 1e-5);
	printf("gemm %lldx%lldx%lld: algo 0-%d ran\n", (long long)m,
	       (long long)k, (long long)n, ran - 1);
	assert_int_equal(ran, 8);
	cudaFree(da);
	cudaFree(db);
	cudaFree(dc);
	free(h);
}

/* ==== linear ==== */

/* Device copy of n floats at `offset` floats past an aligned allocation;
 * *base gets the allocation (to free). */
static float *dev_copy(const float *h, int64_t n, int offset, void **base)
{
	float *p = NULL;
	CK(cudaMalloc((void **)&p, (size_t)(n + offset + 1) * sizeof(float)));
	if (n)
		CK(cudaMemcpy(p + offset, h, (size_t)n * sizeof(float),
		              cudaMemcpyHostToDevice));
	*base = p;
	return p + offset;
}

/* n elements of size bytes, at least one. */
static size_t nbytes(int64_t n, size_t size)
{
	return (size_t)(n > 0 ? n : 1) * size;
}

static float *host_normal(int64_t n)
{
	float *h = malloc(nbytes(n, sizeof(float)));
	assert_non_null(h);
	for (int64_t i = 0; i < n; i++)
		h[i] = (float)gpuop_nrand();
	return h;
}

static void print_shape(char *buf, size_t cap, const shape *s)
{
	size_t k = 0;
	buf[0] = 0;
	for (int j = 0; j < s->ndim && k < cap; j++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%lld", j ? "x" : "",
		                      (long long)s->dim[j]);
}

/*
 * linear(x, w, b) -> y on the GPU (twice: the second run takes the cached
 * plan) against the float64 golden on the same f32 inputs, normal(0, 1).
 * xs is x's shape (last dim K); w is [n, K]. x_off / b_off shift x and b
 * that many floats from aligned memory (b_off 1 takes addmm's copy + GEMM
 * path). With rows > 0 only `rows` rows spread over M are compared, against
 * double sums computed here (for 8192-class shapes). Tolerance: atol = 1e-5
 * + 1e-6 K (a sequential fp32 sum of K normal products errs by ~2.4e-8 K
 * rms: ~40 sigma; TF32 (~5e-4 sqrt(K)) fails), rtol = 1e-5.
 */
static void linear_case(shape xs, int64_t n, int x_off, int b_off,
                        int64_t rows)
{
	const krl_op *op = krl_op_find("linear");
	assert_non_null(op);
	int64_t k = xs.dim[xs.ndim - 1], m = 1;
	for (int j = 0; j < xs.ndim - 1; j++)
		m *= xs.dim[j];
	shape ws = S(2, n, k), bs = S(1, n), ys = xs;
	ys.dim[ys.ndim - 1] = n;
	float *fx = host_normal(m * k), *fw = host_normal(n * k);
	float *fb = host_normal(n);
	float *got = malloc(nbytes(m * n, sizeof(float)));
	assert_non_null(got);
	void *bx, *bw, *bb;
	float *dx = dev_copy(fx, m * k, x_off, &bx);
	float *dw = dev_copy(fw, n * k, 0, &bw);
	float *db = dev_copy(fb, n, b_off, &bb);
	float *dy = NULL;
	CK(cudaMalloc((void **)&dy, nbytes(m * n, sizeof(float))));
	krl_tensor din[3] = { tensor(dx, &xs), tensor(dw, &ws),
	                      tensor(db, &bs) };
	krl_tensor dout = tensor(dy, &ys);
	krl_attrs none;
	memset(&none, 0, sizeof none);
	char msg[512] = "";
	krl_err r = op->check(din, &dout, &none, msg, sizeof msg);
	if (r)
		fprintf(stderr, "linear: check: %s\n", msg);
	assert_int_equal(r, KRL_OK);
	for (int rep = 0; rep < 2; rep++) {
		CK(cudaMemset(dy, 0xff, (size_t)(m * n) * sizeof(float)));
		krl_diag d;
		memset(&d, 0, sizeof d);
		KRL_ASSERT_OK(op->run(g_ctx, din, &dout, &none, &d), &d);
	}
	CK(cudaStreamSynchronize(g_stream));
	CK(cudaMemcpy(got, dy, (size_t)(m * n) * sizeof(float),
	              cudaMemcpyDeviceToHost));

	/* the reference: the golden op, or double sums over sampled rows */
	double *ref = malloc(nbytes(m * n, sizeof(double)));
	assert_non_null(ref);
	int64_t stride = 1;
	if (rows > 0 && rows < m) {
		stride = m / rows;
		for (int64_t i = 0; i < m; i += stride)
			for (int64_t j = 0; j < n; j++) {
				double acc = 0;
				for (int64_t l = 0; l < k; l++)
					acc += (double)fx[i * k + l] *
					       (double)fw[j * k + l];
				ref[i * n + j] = acc + fb[j];
			}
	} else {
		double *hx = malloc(nbytes(m * k, sizeof(double)));
		double *hw = malloc(nbytes(n * k, sizeof(double)));
		double *hb = malloc(nbytes(n, sizeof(double)));
		assert_non_null(hx);
		assert_non_null(hw);
		assert_non_null(hb);
		for (int64_t i = 0; i < m * k; i++)
			hx[i] = fx[i];
		for (int64_t i = 0; i < n * k; i++)
			hw[i] = fw[i];
		for (int64_t i = 0; i < n; i++)
			hb[i] = fb[i];
		krl_tensor hin[3] = { tensor(hx, &xs), tensor(hw, &ws),
		                      tensor(hb, &bs) };
		krl_tensor hout = tensor(ref, &ys);
		assert_int_equal(op->golden(hin, &hout, &none), KRL_OK);
		free(hx);
		free(hw);
		free(hb);
	}
	double atol = 1e-5 + 1e-6 * (double)k, rtol = 1e-5;
	int64_t bad = 0, checked = 0, first = -1;
	double max_abs = 0;
	for (int64_t i = 0; i < m; i += stride)
		for (int64_t j = 0; j < n; j++) {
			int64_t at = i * n + j;
			double e = fabs((double)got[at] - ref[at]);
			checked++;
			if (!(e <= atol + rtol * fabs(ref[at]))) {
				if (first < 0)
					first = at;
				bad++;
			} else if (e > max_abs) {
				max_abs = e;
			}
		}
	char sx[64];
	print_shape(sx, sizeof sx, &xs);
	printf("linear x [%s] w [%lldx%lld] x_off %d b_off %d: %lld checked, "
	       "max_abs %.3g (atol %.3g)%s\n", sx, (long long)n, (long long)k,
	       x_off, b_off, (long long)checked, max_abs, atol,
	       bad ? "  FAIL" : "");
	if (bad)
		fprintf(stderr, "linear [%s] N=%lld: %lld of %lld outside; first "
		        "at %lld: gpu %.9g, golden %.9g\n", sx, (long long)n,
		        (long long)bad, (long long)checked, (long long)first,
		        (double)got[first], ref[first]);
	assert_int_equal(bad, 0);
	cudaFree(bx);
	cudaFree(bw);
	cudaFree(bb);
	cudaFree(dy);
	free(fx);
	free(fw);
	free(fb);
	free(got);
	free(ref);
}

static void test_linear(void **state)
{
	(void)state;
	struct { shape x; int64_t n; int x_off, b_off; int64_t rows; } c[] = {
		{ S(2, I(3), I(5)), 7, 0, 0, 0 },           /* tiny, odd */
		{ S(3, I(3), I(5), I(7)), 9, 0, 0, 0 },     /* [B, T, K] */
		{ S(2, I(1), I(64)), 48, 0, 0, 0 },         /* M = 1: copy + GEMM */
		{ S(2, I(1), I(1023)), 513, 0, 0, 0 },
		{ S(3, I(2), I(3), I(1)), 5, 0, 0, 0 },     /* K = 1 */
		{ S(2, I(16), I(4)), 1, 0, 0, 0 },          /* N = 1 */
		{ S(2, I(3), I(0)), 5, 0, 0, 0 },           /* K = 0: y = b */
		{ S(2, I(128), I(1023)), 257, 0, 0, 0 },    /* K % 4 = 3, N odd */
		{ S(2, I(129), I(998)), 255, 1, 0, 0 },     /* misaligned x */
		{ S(3, I(16), I(33), I(130)), 77, 0, 0, 0 },
		{ S(2, I(128), I(512)), 256, 0, 1, 0 },     /* misaligned b */
		{ S(2, I(1), I(4096)), 4095, 0, 0, 0 },
		{ S(2, I(256), I(1024)), 1000, 0, 0, 0 },
		/* 8192-class (KernelBench level 2's big Linears), 16 rows */
		{ S(2, I(1024), I(8192)), 8192, 0, 0, 16 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		linear_case(c[i].x, c[i].n, c[i].x_off, c[i].b_off, c[i].rows);
}

/* linear, gemm(x, w, tb=1), linear again on the same shapes and pointers:
 * they share the plan cache, and the bias epilogue is part of a plan's
 * problem, so gemm after linear adds no bias and linear after gemm adds
 * it. */
static void test_linear_gemm_cache(void **state)
{
	(void)state;
	const int64_t m = 96, k = 200, n = 130;
	float *fx = host_normal(m * k), *fw = host_normal(n * k);
	float *fb = host_normal(n);
	float *y1 = malloc((size_t)(m * n) * sizeof(float));
	float *y2 = malloc((size_t)(m * n) * sizeof(float));
	float *y3 = malloc((size_t)(m * n) * sizeof(float));
	assert_non_null(y1);
	assert_non_null(y2);
	assert_non_null(y3);
	void *bx, *bw, *bb;
	float *dx = dev_copy(fx, m * k, 0, &bx), *dw = dev_copy(fw, n * k, 0, &bw);
	float *db = dev_copy(fb, n, 0, &bb), *dy = NULL;
	CK(cudaMalloc((void **)&dy, (size_t)(m * n) * sizeof(float)));
	shape xs = S(2, m, k), ws = S(2, n, k), bs = S(1, n), ys = S(2, m, n);
	krl_tensor lin[3] = { tensor(dx, &xs), tensor(dw, &ws), tensor(db, &bs) };
	krl_tensor y = tensor(dy, &ys);
	krl_attrs none, tb;
	memset(&none, 0, sizeof none);
	tb = A(1, "tb", 1.0);
	const krl_op *lo = krl_op_find("linear"), *go = krl_op_find("gemm");
	float *outs[3] = { y1, y2, y3 };
	for (int step = 0; step < 3; step++) {
		krl_diag d;
		memset(&d, 0, sizeof d);
		CK(cudaMemset(dy, 0xff, (size_t)(m * n) * sizeof(float)));
		if (step == 1)
			KRL_ASSERT_OK(go->run(g_ctx, lin, &y, &tb, &d), &d);
		else
			KRL_ASSERT_OK(lo->run(g_ctx, lin, &y, &none, &d), &d);
		CK(cudaStreamSynchronize(g_stream));
		CK(cudaMemcpy(outs[step], dy, (size_t)(m * n) * sizeof(float),
		              cudaMemcpyDeviceToHost));
	}
	/* both linear runs are gemm's product plus b (b is normal(0, 1): a
	 * lost or doubled bias is off by ~1; algorithms differ by ~1e-6) */
	double worst = 0;
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			int64_t at = i * n + j;
			double want = (double)y2[at] + fb[j];
			worst = fmax(worst, fabs((double)y1[at] - want));
			worst = fmax(worst, fabs((double)y3[at] - want));
			if (isnan(y1[at]) || isnan(y3[at]))
				worst = INFINITY;
		}
	printf("linear vs gemm tb=1 + b, %lldx%lldx%lld: max |difference| "
	       "%.3g\n", (long long)m, (long long)k, (long long)n, worst);
	assert_true(worst <= 1e-3);
	cudaFree(bx);
	cudaFree(bw);
	cudaFree(bb);
	cudaFree(dy);
	free(fx);
	free(fw);
	free(fb);
	free(y1);
	free(y2);
	free(y3);
}

/* linear's `algo`: each of the heuristic's bias-epilogue algorithms
 * agrees with the first, at a mid-size problem and at a small one for
 * which the heuristic offers fewer than 8 (4 x 56 x 39, a hidden draw of
 * level 2's 18 and 12 where a candidate tuned with algo=3 failed: it
 * offered 3); every K runs there too, as the last offered. */
static void linear_algo_case(int64_t m, int64_t k, int64_t n)
{
	float *fx = host_normal(m * k), *fw = host_normal(n * k);
	float *fb = host_normal(n);
	void *bx, *bw, *bb;
	float *dx = dev_copy(fx, m * k, 0, &bx), *dw = dev_copy(fw, n * k, 0, &bw);
	float *db = dev_copy(fb, n, 0, &bb), *dy = NULL;
	CK(cudaMalloc((void **)&dy, (size_t)(m * n) * sizeof(float)));
	shape xs = S(2, m, k), ws = S(2, n, k), bs = S(1, n), ys = S(2, m, n);
	krl_tensor in[3] = { tensor(dx, &xs), tensor(dw, &ws), tensor(db, &bs) };
	krl_tensor y = tensor(dy, &ys);
	krl_attrs none;
	memset(&none, 0, sizeof none);
	int ran = gpuop_algo_sweep("linear", in, &y, m * n, none, 1e-5);
	printf("linear %lldx%lldx%lld: algo 0-%d ran\n", (long long)m,
	       (long long)k, (long long)n, ran - 1);
	assert_int_equal(ran, 8);
	cudaFree(bx);
	cudaFree(bw);
	cudaFree(bb);
	cudaFree(dy);
	free(fx);
	free(fw);
	free(fb);
}

static void test_linear_algo(void **state)
{
	(void)state;
	linear_algo_case(256, 384, 320);
	linear_algo_case(4, 56, 39);
}

int main(void)
{
	g_rng = 0x2545f4914f6cdd1dull;
	krl_test_require_gpu("gpu_ops_matmul");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diag),
		cmocka_unit_test(test_tri),
		cmocka_unit_test(test_tri_bool),
		cmocka_unit_test(test_diag_then_gemm),
		cmocka_unit_test(test_gemm_algo),
		cmocka_unit_test(test_linear),
		cmocka_unit_test(test_linear_gemm_cache),
		cmocka_unit_test(test_linear_algo),
	};
	return cmocka_run_group_tests(tests, gpuop_setup, gpuop_teardown);
}
