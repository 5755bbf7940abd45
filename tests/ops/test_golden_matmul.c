/*
 * Tests of the op family "matmul" that need no GPU (docs/ops-matmul.md):
 * the float64 golden versions of linear, diag, triu and tril against
 * values computed by hand, their checks accepting good shapes and
 * rejecting bad ones with the sentence asserted, linear's golden against
 * gemm's plus the bias, a plan calling linear resolving (and a bad one
 * refused at its statement), the eager compositions the tasks use (diag
 * then gemm, gemm then triu/tril) on hand-computed products, and the
 * family's task files parsing and building on kb0, kb1 and tiny.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "krl/lang.h"
#include "krl/ops.h"
#include "optest.h"
#include "testutil.h"

/* ==== Helpers ==== */






static void accepts(const char *name, const krl_tensor *in,
                    const krl_tensor *out, const krl_attrs *a)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	char msg[512] = "";
	krl_err r = op->check(in, out, a, msg, sizeof msg);
	if (r)
		fprintf(stderr, "%s: unexpected rejection: %s\n", name, msg);
	assert_int_equal(r, KRL_OK);
}

/* Exact comparison: these ops move values, they do no arithmetic. */
static void same(const double *got, const double *want, int n)
{
	for (int i = 0; i < n; i++) {
		if (got[i] != want[i])
			fprintf(stderr, "element %d: got %.17g, want %.17g\n", i,
			        got[i], want[i]);
		assert_true(got[i] == want[i]);
	}
}

/* Poisons an output so that unwritten elements show. */
static void poison(double *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = NAN;
}

/* ==== Registry ==== */

static void test_registry(void **state)
{
	(void)state;
	const char *names[] = { "diag", "triu", "tril" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const krl_op *op = krl_op_find(names[i]);
		assert_non_null(op);
		assert_string_equal(op->name, names[i]);
		assert_int_equal(op->nin, 1);
		assert_int_equal(op->nout, 1);
		assert_non_null(op->check);
		assert_non_null(op->run);
		assert_non_null(op->golden);
		assert_non_null(op->doc);
		assert_string_equal(op->attr_names[0], "diagonal");
		assert_null(op->attr_names[1]);
	}
}

/* ==== linear ==== */

static void test_linear_registry(void **state)
{
	(void)state;
	const krl_op *op = krl_op_find("linear");
	assert_non_null(op);
	assert_string_equal(op->family, "matmul");
	assert_int_equal(op->nin, 3);
	assert_int_equal(op->nout, 1);
	assert_non_null(op->check);
	assert_non_null(op->run);
	assert_non_null(op->golden);
	assert_non_null(op->doc);
	assert_true(op->caps & KRL_OPCAP_LIBRARY);
	assert_true(op->caps & KRL_OPCAP_ALGO);
	/* a GEMM with an epilogue slot: the optimizer's 3xTF32 GEMM may
	 * replace it, the bias the first link of its generated epilogue */
	assert_true(op->caps & KRL_OPCAP_EPILOGUE);
	assert_false(op->caps & KRL_OPCAP_LOWER);
	assert_string_equal(op->attr_names[0], "algo");
	assert_null(op->attr_names[1]);
}

/*
 * x [2, 3, 3] (B = 2, T = 3, K = 3), w [5, 3] with rows e1, e2, e3,
 * (1, 1, 1), (1, -1, 2), b = (0.25, -1, 2, 0, 10): a row (p, q, s) of x
 * gives (p + 0.25, q - 1, s + 2, p + q + s, p - q + 2s + 10), worked out
 * by hand below for the six rows.
 */
static void test_linear_golden(void **state)
{
	(void)state;
	double x[18] = { 1, 2, 3,   0, -1, 4,   2, 2, -1,
	                 -3, 0, 1,  5, 1, 1,    0.5, -2, 0 };
	double w[15] = { 1, 0, 0,  0, 1, 0,  0, 0, 1,  1, 1, 1,  1, -1, 2 };
	double b[5] = { 0.25, -1, 2, 0, 10 };
	double y[30];
	poison(y, 30);
	krl_tensor in[3] = { optest_tensor(x, 3, I(2), I(3), I(3)),
	                     optest_tensor(w, 2, I(5), I(3)),
	                     optest_tensor(b, 1, I(5)) };
	krl_tensor out = optest_tensor(y, 3, I(2), I(3), I(5));
	krl_attrs none = optest_attrs(0);
	optest_golden("linear", in, &out, &none);
	const double want[30] = {
		1.25, 1, 5, 6, 15,
		0.25, -2, 6, 3, 19,
		2.25, 1, 1, 3, 8,
		-2.75, -1, 3, -2, 9,
		5.25, 0, 3, 7, 16,
		0.75, -3, 2, -1.5, 12.5,
	};
	same(y, want, 30);

	/* 2-D x [2, 3] against a dense w [2, 3]:
	 * (1, 2, 3) . (1, 0, -1) + 0.5 = -1.5, (1, 2, 3) . (2, 1, 0.5) - 1 = 4.5,
	 * (-1, 0, 2) . (1, 0, -1) + 0.5 = -2.5, (-1, 0, 2) . (2, 1, 0.5) - 1 = -2 */
	double x2[6] = { 1, 2, 3, -1, 0, 2 };
	double w2[6] = { 1, 0, -1, 2, 1, 0.5 };
	double b2[2] = { 0.5, -1 };
	double y2[4];
	poison(y2, 4);
	krl_tensor in2[3] = { optest_tensor(x2, 2, I(2), I(3)),
	                      optest_tensor(w2, 2, I(2), I(3)),
	                      optest_tensor(b2, 1, I(2)) };
	krl_tensor out2 = optest_tensor(y2, 2, I(2), I(2));
	optest_golden("linear", in2, &out2, &none);
	const double want2[4] = { -1.5, 4.5, -2.5, -2 };
	same(y2, want2, 4);

	/* K = 0: y is the bias on every row (PyTorch's addmm, beta = 1) */
	double b3[3] = { 1, -2, 7 }, y3[6];
	poison(y3, 6);
	krl_tensor in3[3] = { optest_tensor(x2, 2, I(2), I(0)),
	                      optest_tensor(w2, 2, I(3), I(0)),
	                      optest_tensor(b3, 1, I(3)) };
	krl_tensor out3 = optest_tensor(y3, 2, I(2), I(3));
	optest_golden("linear", in3, &out3, &none);
	const double want3[6] = { 1, -2, 7, 1, -2, 7 };
	same(y3, want3, 6);
}

/* linear(x, w, b) = gemm(x, w, tb=1) + b row by row, on odd shapes with
 * a [B, T, K] x: the golden versions agree to rounding. */
static void test_linear_is_gemm_plus_bias(void **state)
{
	(void)state;
	enum { B = 3, T = 5, K = 7, N = 9 };
	double x[B * T * K], w[N * K], b[N], y[B * T * N], g[B * T * N];
	uint64_t s = 0x9e3779b97f4a7c15ull;
	double *all[3] = { x, w, b };
	int len[3] = { B * T * K, N * K, N };
	for (int t = 0; t < 3; t++)
		for (int i = 0; i < len[t]; i++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			all[t][i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
		}
	krl_tensor in[3] = { optest_tensor(x, 3, I(B), I(T), I(K)),
	                     optest_tensor(w, 2, I(N), I(K)),
	                     optest_tensor(b, 1, I(N)) };
	krl_tensor out = optest_tensor(y, 3, I(B), I(T), I(N));
	krl_attrs none = optest_attrs(0);
	optest_golden("linear", in, &out, &none);
	krl_tensor gin[2] = { optest_tensor(x, 2, I(B * T), I(K)), in[1] };
	krl_tensor gout = optest_tensor(g, 2, I(B * T), I(N));
	krl_attrs tb = optest_attrs(1, "tb", 1.0);
	optest_golden("gemm", gin, &gout, &tb);
	for (int i = 0; i < B * T; i++)
		for (int j = 0; j < N; j++)
			g[i * N + j] += b[j];
	optest_near(y, g, B * T * N, 1e-14);
}

static void test_linear_check(void **state)
{
	(void)state;
	krl_tensor x = optest_tensor(NULL, 3, I(2), I(3), I(3));
	krl_tensor w = optest_tensor(NULL, 2, I(5), I(3));
	krl_tensor b = optest_tensor(NULL, 1, I(5));
	krl_tensor y = optest_tensor(NULL, 3, I(2), I(3), I(5));
	krl_attrs none = optest_attrs(0);
	krl_tensor in[3] = { x, w, b };
	accepts("linear", in, &y, &none);
	krl_attrs a3 = optest_attrs(1, "algo", 3.0);
	accepts("linear", in, &y, &a3);
	/* 2-D x, and a 4-D one: leading dims are rows */
	krl_tensor in2[3] = { optest_tensor(NULL, 2, I(7), I(3)), w, b };
	krl_tensor y2 = optest_tensor(NULL, 2, I(7), I(5));
	accepts("linear", in2, &y2, &none);
	krl_tensor in4[3] = { optest_tensor(NULL, 4, I(2), I(1), I(4), I(3)),
	                      w, b };
	krl_tensor y4 = optest_tensor(NULL, 4, I(2), I(1), I(4), I(5));
	accepts("linear", in4, &y4, &none);

	krl_tensor bad[3];
	memcpy(bad, in, sizeof bad);
	bad[0] = optest_tensor(NULL, 1, I(3));
	krl_tensor y1 = optest_tensor(NULL, 1, I(5));
	optest_rejects("linear", bad, &y1, &none,
	        "linear: x is [3] but must have at least 2 dims "
	        "[..., in_features]");
	memcpy(bad, in, sizeof bad);
	bad[1] = optest_tensor(NULL, 3, I(5), I(3), I(1));
	optest_rejects("linear", bad, &y, &none,
	        "linear: w is [5, 3, 1] but must be [out_features, "
	        "in_features] (2 dims)");
	bad[1] = optest_tensor(NULL, 2, I(5), I(4));
	optest_rejects("linear", bad, &y, &none,
	        "linear: x is [2, 3, 3] but w is [5, 4]: x's last dim (3) must "
	        "equal w's in_features (dim 1, 4)");
	/* w given as [in, out] (a transposed weight) is the same mistake */
	bad[1] = optest_tensor(NULL, 2, I(3), I(5));
	optest_rejects("linear", bad, &y, &none,
	        "x's last dim (3) must equal w's in_features (dim 1, 5)");
	memcpy(bad, in, sizeof bad);
	bad[2] = optest_tensor(NULL, 1, I(4));
	optest_rejects("linear", bad, &y, &none,
	        "linear: b is [4] but w is [5, 3]: b must be [5] (w's "
	        "out_features)");
	bad[2] = optest_tensor(NULL, 2, I(1), I(5));
	optest_rejects("linear", bad, &y, &none,
	        "linear: b is [1, 5] but w is [5, 3]: b must be [5]");
	krl_tensor yn = optest_tensor(NULL, 3, I(2), I(3), I(4));
	optest_rejects("linear", in, &yn, &none,
	        "linear: y is [2, 3, 4] but x [2, 3, 3] @ w^T (w [5, 3]) "
	        "gives [2, 3, 5]");
	krl_tensor yf = optest_tensor(NULL, 2, I(6), I(5));
	optest_rejects("linear", in, &yf, &none,
	        "linear: y is [6, 5] but x [2, 3, 3] @ w^T (w [5, 3]) gives "
	        "[2, 3, 5]");
	krl_attrs tb = optest_attrs(1, "tb", 1.0);
	optest_rejects("linear", in, &y, &tb,
	        "linear: unknown attribute 'tb' (allowed: algo)");
	krl_attrs a8 = optest_attrs(1, "algo", 8.0);
	optest_rejects("linear", in, &y, &a8, "linear: algo=8 must be an "
	        "integer from 0");
	memcpy(bad, in, sizeof bad);
	bad[2].dtype = KRL_F16;
	optest_rejects("linear", bad, &y, &none, "linear: b must be f32, not "
	        "f16");
	krl_tensor yi = y;
	yi.dtype = KRL_I64;
	optest_rejects("linear", in, &yi, &none, "linear: y must be f32, not "
	        "i64");
}

/* A plan calling linear (nn.Linear on a [batch, seq, in] input) resolves
 * on every shape set; one passing the bias as the weight is refused at
 * the call with the check's sentence. */
static const char linear_task[] =
	"task linear_plan\n"
	"shapes kb0  batch=128 seq=3 fin=1024 fout=512\n"
	"shapes kb1  batch=1024 seq=3 fin=8192 fout=8192\n"
	"shapes tiny batch=3 seq=5 fin=7 fout=9\n"
	"input  x f32 [batch, seq, fin] normal(0, 1)\n"
	"param  w f32 [fout, fin] uniform(-0.03, 0.03)\n"
	"param  b f32 [fout] uniform(-0.03, 0.03)\n"
	"output y f32 [batch, seq, fout]\n"
	"tolerance atol=1e-4 rtol=1e-4\n"
	"bytes 4 * (numel(x) + numel(w) + numel(b) + numel(y))\n"
	"flops 2 * batch * seq * fin * fout\n"
	"plan\n"
	"%s"
	"end\n";

static krl_err build_linear_plan(const char *calls, const char *set,
                                 krl_diag *d, int *nbody,
                                 const krl_op **op)
{
	char text[2048];
	snprintf(text, sizeof text, linear_task, calls);
	krl_task *t = NULL;
	memset(d, 0, sizeof *d);
	KRL_ASSERT_OK(krl_task_parse("linear.task", text, strlen(text), &t, d),
	              d);
	krl_limits lim = krl_limits_sm90();
	krl_program *p = NULL;
	memset(d, 0, sizeof *d);
	krl_err r = krl_program_build(t, NULL, set, &lim, &p, d);
	if (!r) {
		*nbody = p->nbody;
		*op = p->nbody > 0 ? p->body[0].op : NULL;
		krl_program_free(p);
	}
	krl_task_free(t);
	return r;
}

static void test_linear_plan(void **state)
{
	(void)state;
	const char *sets[] = { "kb0", "kb1", "tiny" };
	for (int s = 0; s < 3; s++) {
		krl_diag d;
		int nbody = 0;
		const krl_op *op = NULL;
		KRL_ASSERT_OK(build_linear_plan("  call linear(x, w, b) -> y\n",
		                                sets[s], &d, &nbody, &op), &d);
		assert_int_equal(nbody, 1);
		assert_non_null(op);
		assert_string_equal(op->name, "linear");
	}
	krl_diag d;
	int nbody = 0;
	const krl_op *op = NULL;
	krl_err r = build_linear_plan("  call linear(x, b, b) -> y\n", "tiny",
	                              &d, &nbody, &op);
	const char *want = "linear: w is [9] but must be [out_features, "
	                   "in_features] (2 dims)";
	if (!strstr(d.msg, want))
		fprintf(stderr, "unexpected message: %s\n", d.msg);
	assert_int_not_equal(r, KRL_OK);
	assert_non_null(strstr(d.msg, want));
}

/* ==== diag ==== */

static void test_diag_golden(void **state)
{
	(void)state;
	double v[3] = { 1, -2, 3.5 };
	double y[16];
	krl_tensor in = optest_tensor(v, 1, I(3));

	poison(y, 9);
	krl_tensor out = optest_tensor(y, 2, I(3), I(3));
	krl_attrs none = optest_attrs(0);
	optest_golden("diag", &in, &out, &none);
	const double d0[9] = { 1, 0, 0,  0, -2, 0,  0, 0, 3.5 };
	same(y, d0, 9);

	poison(y, 16);
	out = optest_tensor(y, 2, I(4), I(4));
	krl_attrs up = optest_attrs(1, "diagonal", 1.0);
	optest_golden("diag", &in, &out, &up);
	const double d1[16] = { 0, 1, 0, 0,  0, 0, -2, 0,  0, 0, 0, 3.5,
	                        0, 0, 0, 0 };
	same(y, d1, 16);

	poison(y, 16);
	krl_attrs down = optest_attrs(1, "diagonal", -1.0);
	optest_golden("diag", &in, &out, &down);
	const double dm1[16] = { 0, 0, 0, 0,  1, 0, 0, 0,  0, -2, 0, 0,
	                         0, 0, 3.5, 0 };
	same(y, dm1, 16);

	/* a one-element vector two above the diagonal: [3, 3] */
	double w[1] = { 7 };
	poison(y, 9);
	in = optest_tensor(w, 1, I(1));
	out = optest_tensor(y, 2, I(3), I(3));
	krl_attrs two = optest_attrs(1, "diagonal", 2.0);
	optest_golden("diag", &in, &out, &two);
	const double d2[9] = { 0, 0, 7,  0, 0, 0,  0, 0, 0 };
	same(y, d2, 9);
}

static void test_diag_check(void **state)
{
	(void)state;
	krl_tensor v = optest_tensor(NULL, 1, I(3));
	krl_tensor sq = optest_tensor(NULL, 2, I(3), I(3));
	krl_tensor big = optest_tensor(NULL, 2, I(5), I(5));
	krl_attrs none = optest_attrs(0);
	krl_attrs dm2 = optest_attrs(1, "diagonal", -2.0);
	accepts("diag", &v, &sq, &none);
	accepts("diag", &v, &big, &dm2);
	krl_tensor empty = optest_tensor(NULL, 1, I(0)), e0 = optest_tensor(NULL, 2, I(0), I(0));
	accepts("diag", &empty, &e0, &none);

	krl_tensor m = optest_tensor(NULL, 2, I(3), I(3));
	optest_rejects("diag", &m, &sq, &none,
	        "diag: v is [3, 3] but must be a vector (1 dim)");
	optest_rejects("diag", &v, &big, &none,
	        "diag: v is [3] and diagonal=0, so y must be [3, 3], not "
	        "[5, 5]");
	krl_tensor rect = optest_tensor(NULL, 2, I(3), I(4));
	krl_attrs d1 = optest_attrs(1, "diagonal", 1.0);
	optest_rejects("diag", &v, &rect, &d1, "so y must be [4, 4], not [3, 4]");
	krl_attrs half = optest_attrs(1, "diagonal", 0.5);
	optest_rejects("diag", &v, &sq, &half,
	        "diag: diagonal=0.5 must be an integer of magnitude at most "
	        "2^52");
	krl_attrs huge = optest_attrs(1, "diagonal", 1e300);
	optest_rejects("diag", &v, &sq, &huge, "must be an integer of magnitude");
	krl_attrs inf = optest_attrs(1, "diagonal", INFINITY);
	optest_rejects("diag", &v, &sq, &inf, "must be an integer of magnitude");
	krl_attrs bad = optest_attrs(1, "dim", 0.0);
	optest_rejects("diag", &v, &sq, &bad,
	        "diag: unknown attribute 'dim' (allowed: diagonal)");
	krl_tensor vi = v;
	vi.dtype = KRL_I64;
	optest_rejects("diag", &vi, &sq, &none, "diag: v must be f32, not i64");
	krl_tensor yh = sq;
	yh.dtype = KRL_F16;
	optest_rejects("diag", &v, &yh, &none, "diag: y must be f32, not f16");
}

/* ==== triu, tril ==== */

/* x = [[1 2 3 4], [5 6 7 8], [9 10 11 12]] */
static const double x34[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

static void tri_case(const char *op, double k, const double *want)
{
	double x[12], y[12];
	memcpy(x, x34, sizeof x);
	poison(y, 12);
	krl_tensor in = optest_tensor(x, 2, I(3), I(4)), out = optest_tensor(y, 2, I(3), I(4));
	krl_attrs a = optest_attrs(1, "diagonal", k);
	optest_golden(op, &in, &out, &a);
	same(y, want, 12);
}

static void test_triu_golden(void **state)
{
	(void)state;
	const double u0[12] = { 1, 2, 3, 4,  0, 6, 7, 8,  0, 0, 11, 12 };
	const double u1[12] = { 0, 2, 3, 4,  0, 0, 7, 8,  0, 0, 0, 12 };
	const double um1[12] = { 1, 2, 3, 4,  5, 6, 7, 8,  0, 10, 11, 12 };
	const double u4[12] = { 0 };
	const double um5[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	tri_case("triu", 0, u0);
	tri_case("triu", 1, u1);
	tri_case("triu", -1, um1);
	tri_case("triu", 4, u4);
	tri_case("triu", -5, um5);

	/* the default diagonal is 0; a batch masks every matrix alike */
	double x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, y[8];
	poison(y, 8);
	krl_tensor in = optest_tensor(x, 3, I(2), I(2), I(2)), out = optest_tensor(y, 3, I(2), I(2),
	                                                   I(2));
	krl_attrs none = optest_attrs(0);
	optest_golden("triu", &in, &out, &none);
	const double ub[8] = { 1, 2, 0, 4,  5, 6, 0, 8 };
	same(y, ub, 8);
}

static void test_tril_golden(void **state)
{
	(void)state;
	const double l0[12] = { 1, 0, 0, 0,  5, 6, 0, 0,  9, 10, 11, 0 };
	const double lm1[12] = { 0, 0, 0, 0,  5, 0, 0, 0,  9, 10, 0, 0 };
	const double l2[12] = { 1, 2, 3, 0,  5, 6, 7, 8,  9, 10, 11, 12 };
	const double lm3[12] = { 0 };
	tri_case("tril", 0, l0);
	tri_case("tril", -1, lm1);
	tri_case("tril", 2, l2);
	tri_case("tril", -3, lm3);

	double x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, y[8];
	poison(y, 8);
	krl_tensor in = optest_tensor(x, 3, I(2), I(2), I(2)), out = optest_tensor(y, 3, I(2), I(2),
	                                                   I(2));
	krl_attrs none = optest_attrs(0);
	optest_golden("tril", &in, &out, &none);
	const double lb[8] = { 1, 0, 3, 4,  5, 0, 7, 8 };
	same(y, lb, 8);
	/* a bool tril of ones: the causal mask */
	double o[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 }, m[9];
	krl_tensor tb = optest_tensor(o, 2, I(3), I(3)), tm = optest_tensor(m, 2, I(3), I(3));
	tb.dtype = tm.dtype = KRL_BOOL;
	optest_golden("tril", &tb, &tm, &none);
	const double mb[9] = { 1, 0, 0, 1, 1, 0, 1, 1, 1 };
	same(m, mb, 9);
}

static void test_tri_check(void **state)
{
	(void)state;
	const char *ops[] = { "triu", "tril" };
	for (int i = 0; i < 2; i++) {
		const char *op = ops[i];
		char want[160];
		krl_tensor x = optest_tensor(NULL, 2, I(3), I(4));
		krl_tensor xb = optest_tensor(NULL, 4, I(2), I(5), I(3), I(4));
		krl_attrs none = optest_attrs(0);
		krl_attrs km = optest_attrs(1, "diagonal", -7.0);
		accepts(op, &x, &x, &none);
		accepts(op, &xb, &xb, &km);

		krl_tensor v = optest_tensor(NULL, 1, I(4));
		snprintf(want, sizeof want, "%s: x is [4] but must have at "
		         "least 2 dims", op);
		optest_rejects(op, &v, &v, &none, want);
		krl_tensor y = optest_tensor(NULL, 2, I(4), I(3));
		snprintf(want, sizeof want, "%s: x is [3, 4] but y is [4, 3]: "
		         "shapes must be equal", op);
		optest_rejects(op, &x, &y, &none, want);
		krl_attrs half = optest_attrs(1, "diagonal", -1.5);
		snprintf(want, sizeof want, "%s: diagonal=-1.5 must be an "
		         "integer", op);
		optest_rejects(op, &x, &x, &half, want);
		krl_attrs bad = optest_attrs(1, "k", 1.0);
		snprintf(want, sizeof want, "%s: unknown attribute 'k' "
		         "(allowed: diagonal)", op);
		optest_rejects(op, &x, &x, &bad, want);
		krl_tensor xi = x;
		xi.dtype = KRL_I32;
		snprintf(want, sizeof want, "%s: x must be f32, not i32", op);
		optest_rejects(op, &xi, &x, &none, want);
		/* bool masks (torch.tril(torch.ones(T, T, dtype=bool))) */
		krl_tensor xbool = x;
		xbool.dtype = KRL_BOOL;
		accepts(op, &xbool, &xbool, &none);
		snprintf(want, sizeof want, "%s: x is bool, so y must be bool, "
		         "not f32", op);
		optest_rejects(op, &xbool, &x, &none, want);
	}
}

/* ==== The tasks' eager compositions ==== */

/* diag(A) @ B = A[i] * B[i, j] (problem 12's plan). */
static void test_diag_then_gemm(void **state)
{
	(void)state;
	double a[2] = { 2, -1 }, d[4], b[6] = { 1, 2, 3, 4, 5, 6 }, c[6];
	krl_tensor ta = optest_tensor(a, 1, I(2)), td = optest_tensor(d, 2, I(2), I(2));
	krl_attrs none = optest_attrs(0);
	optest_golden("diag", &ta, &td, &none);
	krl_tensor in[2] = { td, optest_tensor(b, 2, I(2), I(3)) };
	krl_tensor tc = optest_tensor(c, 2, I(2), I(3));
	optest_golden("gemm", in, &tc, &none);
	const double want[6] = { 2, 4, 6, -4, -5, -6 };
	same(c, want, 6);
}

/* triu / tril of A @ B (problems 14 and 15's plans). */
static void test_gemm_then_tri(void **state)
{
	(void)state;
	/* A = [[1 2 0], [0 1 -1], [2 0 1]], B = [[1 0 2], [3 1 0], [0 2 1]]:
	 * A @ B = [[7 2 2], [3 -1 -1], [2 2 5]] */
	double a[9] = { 1, 2, 0, 0, 1, -1, 2, 0, 1 };
	double b[9] = { 1, 0, 2, 3, 1, 0, 0, 2, 1 };
	double p[9], c[9];
	krl_tensor in[2] = { optest_tensor(a, 2, I(3), I(3)), optest_tensor(b, 2, I(3), I(3)) };
	krl_tensor tp = optest_tensor(p, 2, I(3), I(3)), tc = optest_tensor(c, 2, I(3), I(3));
	krl_attrs none = optest_attrs(0);
	optest_golden("gemm", in, &tp, &none);
	const double prod[9] = { 7, 2, 2, 3, -1, -1, 2, 2, 5 };
	same(p, prod, 9);
	optest_golden("triu", &tp, &tc, &none);
	const double up[9] = { 7, 2, 2, 0, -1, -1, 0, 0, 5 };
	same(c, up, 9);
	optest_golden("tril", &tp, &tc, &none);
	const double lo[9] = { 7, 0, 0, 3, -1, 0, 2, 2, 5 };
	same(c, lo, 9);
}

/* ==== The family's tasks ==== */

static void test_tasks_build(void **state)
{
	(void)state;
	const char *files[] = {
		"tasks/level1/3_bmm.task",
		"tasks/level1/5_matrix_scalar.task",
		"tasks/level1/6_matmul_large_k.task",
		"tasks/level1/7_matmul_small_k.task",
		"tasks/level1/8_matmul_irregular.task",
		"tasks/level1/9_tall_skinny.task",
		"tasks/level1/10_3d_tensor_matmul.task",
		"tasks/level1/11_4d_tensor_matmul.task",
		"tasks/level1/12kb0_diag_matmul.task",
		"tasks/level1/13_symmetric_matmul.task",
		"tasks/level1/14_triu_matmul.task",
		"tasks/level1/15_tril_matmul.task",
		"tasks/level1/16_matmul_ta.task",
		"tasks/level1/17_matmul_tb.task",
	};
	const char *sets[] = { "kb0", "kb1", "tiny" };
	krl_limits lim = krl_limits_sm90();
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		krl_task *t = NULL;
		krl_diag d;
		memset(&d, 0, sizeof d);
		KRL_ASSERT_OK(krl_task_load(files[i], &t, &d), &d);
		for (size_t s = 0; s < 3; s++) {
			krl_program *p = NULL;
			memset(&d, 0, sizeof d);
			krl_err r = krl_program_build(t, NULL, sets[s], &lim, &p,
			                              &d);
			if (r)
				fprintf(stderr, "%s [%s]\n", files[i], sets[s]);
			KRL_ASSERT_OK(r, &d);
			assert_true(p->bytes > 0);
			assert_true(p->flops > 0);
			krl_program_free(p);
		}
		krl_task_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_linear_registry),
		cmocka_unit_test(test_linear_golden),
		cmocka_unit_test(test_linear_is_gemm_plus_bias),
		cmocka_unit_test(test_linear_check),
		cmocka_unit_test(test_linear_plan),
		cmocka_unit_test(test_diag_golden),
		cmocka_unit_test(test_diag_check),
		cmocka_unit_test(test_triu_golden),
		cmocka_unit_test(test_tril_golden),
		cmocka_unit_test(test_tri_check),
		cmocka_unit_test(test_diag_then_gemm),
		cmocka_unit_test(test_gemm_then_tri),
		cmocka_unit_test(test_tasks_build),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
