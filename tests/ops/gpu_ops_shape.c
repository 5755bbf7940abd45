/*
 * GPU test of the "shape" op family (pad, roll, index_select, permute): each op on
 * random inputs drawn on the host from a fixed seed, run on the device
 * through krl_op.run (twice, into outputs filled with garbage first) and
 * compared element for element with its float64 golden version (the ops
 * move data, so the match is exact). Shapes: tiny ones, the level-3 ones
 * (Swin MLP's pad of [B, H, W, C] over H and W, Swin V2's roll by
 * -shift over dims 1 and 2 and its relative-position table lookup, Mamba2's
 * pad of a chunk dim), cropping pads, a roll of 1- and 8-byte elements,
 * index_select along the first, a middle and the last dim, permute over
 * every permutation of ranks 2-4 and random ones of ranks 5, 6 and 8 at
 * odd sizes, 1- and 8-byte permutes and the level-3 ones (ShuffleNet's
 * channel shuffle, NetVLAD's and Mamba2's einsum operands). An index
 * out of range gives NaN in its output elements only. Needs a GPU: skips
 * (exit 77) without one.
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

/* How an input is drawn: normal(0, 1), bytes 0/1 (bool), or integers
 * uniform in [0, hi) (i64 indices). */
typedef enum { D_NORMAL, D_BOOL, D_INDEX } dist;

#define T(dt, dd, hi, ...) gpuop_ten((dt), (dd), (hi), __VA_ARGS__)

#define F32(...) T(KRL_F32, D_NORMAL, 0, __VA_ARGS__)

/* Draws input s into raw (its bytes) and h (as doubles). */
static void draw(const ten *s, void *raw, double *h)
{
	int64_t n = ten_numel(s);
	for (int64_t j = 0; j < n; j++) {
		switch (s->dd) {
		case D_BOOL:
			((unsigned char *)raw)[j] = gpuop_urand() < 0.5;
			break;
		case D_INDEX:
			((int64_t *)raw)[j] = (int64_t)(gpuop_urand() *
			                                (double)s->hi);
			break;
		default:
			if (s->dt == KRL_I64)
				((int64_t *)raw)[j] =
					(int64_t)(1e6 * gpuop_nrand());
			else
				((float *)raw)[j] = (float)gpuop_nrand();
			break;
		}
		h[j] = as_double(raw, j, s->dt);
	}
}

/*
 * Runs op `name` on ins -> out on the GPU (twice, into an output filled
 * with garbage) and in float64, and checks every element of out: equal.
 */
static void run_case(const char *name, const ten *ins, int nin,
                     const ten *out, krl_attrs a)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	krl_tensor hin[2], din[2];
	void *raw[2];
	for (int i = 0; i < nin; i++) {
		int64_t n = ten_numel(&ins[i]);
		size_t es = esize(ins[i].dt);
		double *h = malloc((size_t)(n ? n : 1) * sizeof(double));
		raw[i] = malloc((size_t)(n ? n : 1) * es);
		assert_non_null(h);
		assert_non_null(raw[i]);
		draw(&ins[i], raw[i], h);
		hin[i] = host_tensor(&ins[i], h);
		din[i] = hin[i];
		void *dp = NULL;
		CK(cudaMalloc(&dp, (size_t)(n ? n : 1) * es));
		CK(cudaMemcpy(dp, raw[i], (size_t)n * es,
		              cudaMemcpyHostToDevice));
		din[i].data = dp;
	}
	int64_t n = ten_numel(out);
	size_t es = esize(out->dt);
	krl_tensor hout = host_tensor(out, calloc((size_t)(n ? n : 1),
	                                          sizeof(double)));
	krl_tensor dout = hout;
	void *dp = NULL;
	CK(cudaMalloc(&dp, (size_t)(n ? n : 1) * es));
	CK(cudaMemset(dp, 0x7f, (size_t)n * es));
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
		KRL_ASSERT_OK(op->run(g_ctx, din, &dout, &a, &d), &d);
	}
	CK(cudaStreamSynchronize(g_stream));
	void *got = malloc((size_t)(n ? n : 1) * es);
	assert_non_null(got);
	CK(cudaMemcpy(got, dp, (size_t)n * es, cudaMemcpyDeviceToHost));
	const double *ref = hout.data;
	int64_t bad = 0;
	for (int64_t j = 0; j < n; j++) {
		double g = as_double(got, j, out->dt);
		if (g != ref[j]) {
			if (bad < 5)
				fprintf(stderr, "%s: element %lld: got %.9g, want "
				        "%.9g\n", name, (long long)j, g, ref[j]);
			bad++;
		}
	}
	printf("%-12s %lld elements, %lld differ\n", name, (long long)n,
	       (long long)bad);
	free(got);
	cudaFree(dp);
	free(hout.data);
	for (int i = 0; i < nin; i++) {
		cudaFree(din[i].data);
		free(hin[i].data);
		free(raw[i]);
	}
	assert_int_equal(bad, 0);
}

/* ==== pad ==== */

static void test_pad(void **state)
{
	(void)state;
	g_rng = 0x9e3779b97f4a7c15ull;
	ten x = F32(1, I(5)), y = F32(1, I(9));
	run_case("pad", &x, 1, &y, A(3, "pad0", 1.0, "pad1", 3.0, "value", 2.5));
	/* 2 and 3 dims of a small 4-d tensor */
	x = F32(4, I(2), I(3), I(5), I(7));
	y = F32(4, I(2), I(3), I(8), I(8));
	run_case("pad", &x, 1, &y, A(4, "pad0", 0.0, "pad1", 1.0, "pad2", 2.0,
	                              "pad3", 1.0));
	y = F32(4, I(2), I(4), I(5), I(9));
	run_case("pad", &x, 1, &y, A(7, "pad0", 1.0, "pad1", 1.0, "pad2", 0.0,
	                              "pad3", 0.0, "pad4", 0.0, "pad5", 1.0,
	                              "value", -1.0));
	/* cropping on one side, padding on the other; cropping only */
	y = F32(4, I(2), I(3), I(5), I(7));
	run_case("pad", &x, 1, &y, A(4, "pad0", -2.0, "pad1", 2.0, "pad2", 1.0,
	                              "pad3", -1.0));
	y = F32(4, I(2), I(3), I(3), I(4));
	run_case("pad", &x, 1, &y, A(4, "pad0", -1.0, "pad1", -2.0, "pad2", 0.0,
	                              "pad3", -2.0));
	/* no amounts: a copy */
	y = x;
	run_case("pad", &x, 1, &y, A(2, "pad0", 0.0, "pad1", 0.0));
	/* Swin MLP (L3 29): [B, H, W, C] padded over H and W */
	x = F32(4, I(10), I(55), I(55), I(96));
	y = F32(4, I(10), I(56), I(56), I(96));
	run_case("pad", &x, 1, &y, A(6, "pad0", 0.0, "pad1", 0.0, "pad2", 0.0,
	                              "pad3", 1.0, "pad4", 0.0, "pad5", 1.0));
	/* Mamba2 (L3 48/49): a chunk dim padded at its end */
	x = F32(3, I(16), I(250), I(64));
	y = F32(3, I(16), I(256), I(64));
	run_case("pad", &x, 1, &y, A(4, "pad0", 0.0, "pad1", 0.0, "pad2", 0.0,
	                              "pad3", 6.0));
}

/* ==== roll ==== */

static void test_roll(void **state)
{
	(void)state;
	g_rng = 0xd1b54a32d192ed03ull;
	ten x = F32(1, I(7));
	double shifts[] = { 0, 3, -2, 7, 15, -15 };
	for (size_t i = 0; i < sizeof shifts / sizeof shifts[0]; i++)
		run_case("roll", &x, 1, &x, A(2, "dim0", 0.0, "shift0", shifts[i]));
	x = F32(3, I(3), I(5), I(7));
	run_case("roll", &x, 1, &x, A(1, "shift0", 11.0));
	run_case("roll", &x, 1, &x, A(2, "dim0", 1.0, "shift0", -4.0));
	run_case("roll", &x, 1, &x, A(2, "dim0", -1.0, "shift0", 3.0));
	run_case("roll", &x, 1, &x, A(4, "dim0", 0.0, "shift0", 1.0, "dim1",
	                               2.0, "shift1", -9.0));
	run_case("roll", &x, 1, &x, A(4, "dim0", 1.0, "shift0", 2.0, "dim1",
	                               1.0, "shift1", 2.0));
	/* 1- and 8-byte elements */
	ten b = T(KRL_BOOL, D_BOOL, 0, 2, I(33), I(17));
	run_case("roll", &b, 1, &b, A(2, "dim0", 1.0, "shift0", 5.0));
	ten l = T(KRL_I64, D_NORMAL, 0, 2, I(33), I(17));
	run_case("roll", &l, 1, &l, A(4, "dim0", 0.0, "shift0", -3.0, "dim1",
	                               1.0, "shift1", 4.0));
	/* Swin V2 (L3 30): [B, H, W, C] rolled by -shift over H and W, and
	 * back */
	x = F32(4, I(10), I(56), I(56), I(128));
	run_case("roll", &x, 1, &x, A(4, "dim0", 1.0, "shift0", -3.0, "dim1",
	                               2.0, "shift1", -3.0));
	run_case("roll", &x, 1, &x, A(4, "dim0", 1.0, "shift0", 3.0, "dim1",
	                               2.0, "shift1", 3.0));
}

/* ==== permute ==== */

/* permute of an x of dtype dt and dims xd[0..n) by p. */
static void permute_case(krl_dtype dt, int n, const int64_t *xd, const int *p)
{
	ten x = T(dt, dt == KRL_BOOL ? D_BOOL : D_NORMAL, 0, 1, I(1));
	x.ndim = n;
	ten y = x;
	krl_attrs a;
	memset(&a, 0, sizeof a);
	static const char *const key[] = { "p0", "p1", "p2", "p3", "p4", "p5",
		"p6", "p7" };
	a.n = n;
	for (int i = 0; i < n; i++) {
		x.dim[i] = xd[i];
		y.dim[i] = xd[p[i]];
		a.key[i] = key[i];
		a.val[i] = p[i];
	}
	run_case("permute", &x, 1, &y, a);
}

/* The next permutation of p[0..n) in lexicographic order; 0 after the
 * last. */
static int next_perm(int *p, int n)
{
	int i = n - 2;
	while (i >= 0 && p[i] > p[i + 1])
		i--;
	if (i < 0)
		return 0;
	int j = n - 1;
	while (p[j] < p[i])
		j--;
	int t = p[i];
	p[i] = p[j];
	p[j] = t;
	for (int l = i + 1, r = n - 1; l < r; l++, r--) {
		t = p[l];
		p[l] = p[r];
		p[r] = t;
	}
	return 1;
}

static void test_permute(void **state)
{
	(void)state;
	g_rng = 0xbf58476d1ce4e5b9ull;
	/* every permutation of ranks 2, 3, 4 at odd sizes (dims of 1 among
	 * them, which the copy drops) */
	static const int64_t odd[] = { 7, 5, 3, 1, 9, 11, 13, 2 };
	for (int n = 2; n <= 4; n++) {
		int p[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
		int64_t xd[8];
		for (int i = 0; i < n; i++)
			xd[i] = odd[(i + n) % 8] * (n == 2 ? 37 : 1);
		do
			permute_case(KRL_F32, n, xd, p);
		while (next_perm(p, n));
	}
	/* random permutations of ranks 5, 6 and 8 */
	static const int64_t d5[] = { 3, 5, 7, 4, 9 }, d6[] = { 2, 3, 5, 1, 7, 3 },
		d8[] = { 2, 3, 1, 5, 2, 3, 1, 7 };
	for (int rep = 0; rep < 6; rep++) {
		int n = rep < 2 ? 5 : rep < 4 ? 6 : 8;
		const int64_t *xd = n == 5 ? d5 : n == 6 ? d6 : d8;
		int p[8];
		for (int i = 0; i < n; i++)
			p[i] = i;
		for (int i = n - 1; i > 0; i--) {
			int j = (int)(gpuop_urand() * (i + 1)), t = p[i];
			p[i] = p[j];
			p[j] = t;
		}
		permute_case(KRL_F32, n, xd, p);
	}
	/* 1- and 8-byte elements */
	int t2[] = { 1, 0 }, t3[] = { 2, 0, 1 };
	permute_case(KRL_BOOL, 2, (int64_t[]){ 33, 17 }, t2);
	permute_case(KRL_I64, 3, (int64_t[]){ 5, 9, 13 }, t3);
	/* ShuffleNet (L3 25/26): [B, g, C/g, H, W] transposed over 1 and 2 */
	permute_case(KRL_F32, 5, (int64_t[]){ 10, 3, 80, 28, 28 },
	             (int[]){ 0, 2, 1, 3, 4 });
	/* NetVLAD (L3 46/47): [B, N, K] to [B, K, N] for the einsum's bmm */
	permute_case(KRL_F32, 3, (int64_t[]){ 32, 100, 32 }, (int[]){ 0, 2, 1 });
	/* Mamba2 (L3 48/49): [b, c, l, h, n] to [b, h, c, l, n] */
	permute_case(KRL_F32, 5, (int64_t[]){ 16, 8, 64, 8, 64 },
	             (int[]){ 0, 3, 1, 2, 4 });
	/* a large 2-D transpose */
	permute_case(KRL_F32, 2, (int64_t[]){ 4099, 2051 }, t2);
}

/* ==== index_select ==== */

static void test_index_select(void **state)
{
	(void)state;
	g_rng = 0x94d049bb133111ebull;
	ten in[2] = { F32(2, I(5), I(3)), T(KRL_I64, D_INDEX, 5, 1, I(9)) };
	ten y = F32(2, I(9), I(3));
	run_case("index_select", in, 2, &y, A(1, "dim", 0.0));
	in[0] = F32(3, I(4), I(6), I(5));
	in[1] = T(KRL_I64, D_INDEX, 6, 1, I(11));
	y = F32(3, I(4), I(11), I(5));
	run_case("index_select", in, 2, &y, A(1, "dim", 1.0));
	in[1] = T(KRL_I64, D_INDEX, 5, 1, I(3));
	y = F32(3, I(4), I(6), I(3));
	run_case("index_select", in, 2, &y, A(1, "dim", -1.0));
	/* Swin V2's relative position bias: a [(2w-1)^2, heads] table read at
	 * w^4 indices (window 8, 4 heads) */
	in[0] = F32(2, I(225), I(4));
	in[1] = T(KRL_I64, D_INDEX, 225, 1, I(4096));
	y = F32(2, I(4096), I(4));
	run_case("index_select", in, 2, &y, A(1, "dim", 0.0));
	/* many rows of a wide table */
	in[0] = F32(2, I(1000), I(512));
	in[1] = T(KRL_I64, D_INDEX, 1000, 1, I(3000));
	y = F32(2, I(3000), I(512));
	run_case("index_select", in, 2, &y, A(1, "dim", 0.0));
}

/* An index out of range reads nothing and gives NaN in its output rows;
 * the other rows are right. */
static void test_index_out_of_range(void **state)
{
	(void)state;
	const krl_op *op = krl_op_find("index_select");
	float x[6] = { 1, 2, 3, 4, 5, 6 };
	int64_t idx[4] = { 2, 3, -1, 0 };
	float *dx, *dy, y[8];
	int64_t *di;
	CK(cudaMalloc((void **)&dx, sizeof x));
	CK(cudaMalloc((void **)&di, sizeof idx));
	CK(cudaMalloc((void **)&dy, sizeof y));
	CK(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(di, idx, sizeof idx, cudaMemcpyHostToDevice));
	krl_tensor in[2], out;
	memset(in, 0, sizeof in);
	memset(&out, 0, sizeof out);
	in[0].data = dx;
	in[0].dtype = KRL_F32;
	in[0].ndim = 2;
	in[0].dim[0] = 3;
	in[0].dim[1] = 2;
	in[1].data = di;
	in[1].dtype = KRL_I64;
	in[1].ndim = 1;
	in[1].dim[0] = 4;
	out = in[0];
	out.data = dy;
	out.dim[0] = 4;
	krl_attrs a = A(1, "dim", 0.0);
	krl_diag d;
	memset(&d, 0, sizeof d);
	KRL_ASSERT_OK(op->run(g_ctx, in, &out, &a, &d), &d);
	CK(cudaStreamSynchronize(g_stream));
	CK(cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost));
	assert_true(y[0] == 5 && y[1] == 6 && y[6] == 1 && y[7] == 2);
	for (int j = 2; j < 6; j++)
		assert_true(isnan(y[j]));
	cudaFree(dx);
	cudaFree(di);
	cudaFree(dy);
}

int main(void)
{
	g_rng = 0x2545f4914f6cdd1dull;
	krl_test_require_gpu("gpu_ops_shape");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pad),
		cmocka_unit_test(test_roll),
		cmocka_unit_test(test_index_select),
		cmocka_unit_test(test_index_out_of_range),
		cmocka_unit_test(test_permute),
	};
	return cmocka_run_group_tests(tests, gpuop_setup, gpuop_teardown);
}
