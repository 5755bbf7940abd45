/*
 * Tests of the op family "norm" that need no GPU: every golden op against
 * values computed by hand on small tensors, and the checks accepting good
 * shapes and rejecting bad ones with a sentence that names the problem.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "krl/ops.h"
#include "optest.h"
#include "testutil.h"

/* ==== Helpers ==== */

/* The check must fail with a message containing want. */
static void rejects(const char *name, const krl_tensor *in,
                    const krl_tensor *out, const krl_attrs *a,
                    const char *want)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	char msg[512] = "";
	assert_int_equal(op->check(in, out, a, msg, sizeof msg), KRL_EINVAL);
	if (!strstr(msg, want))
		fprintf(stderr, "%s: message '%s' lacks '%s'\n", name, msg, want);
	assert_non_null(strstr(msg, want));
}

/* ==== Normalisations ==== */

static void test_batchnorm(void **state)
{
	(void)state;
	/* x [2, 2, 2]: channel 0 holds 1, 2, 3, 4 (mean 2.5, var 1.25),
	 * channel 1 holds 10, 20, 30, 40 (mean 25, var 125) */
	double x[] = { 1, 2, 10, 20, 3, 4, 30, 40 };
	double w[] = { 2, 0.5 }, b[] = { 1, -1 }, y[8];
	krl_tensor in[3] = { optest_tensor(x, 3, I(2), I(2), I(2)), optest_tensor(w, 1, I(2)),
	                     optest_tensor(b, 1, I(2)) };
	krl_tensor out = optest_tensor(y, 3, I(2), I(2), I(2));
	krl_attrs a = optest_attrs(1, "eps", 0.0);
	optest_golden("batchnorm", in, &out, &a);
	double want[] = { -1.6832815729997477, 0.10557280900008414,
	                  -1.670820393249937, -1.223606797749979,
	                  1.8944271909999157, 3.6832815729997477,
	                  -0.7763932022500211, -0.3291796067500631 };
	optest_near(y, want, 8, 1e-12);

	double w3[] = { 1, 1, 1 };
	krl_tensor bad[3] = { in[0], optest_tensor(w3, 1, I(3)), in[2] };
	rejects("batchnorm", bad, &out, &a, "w must be [2], not [3]");
	krl_tensor flat[3] = { optest_tensor(x, 1, I(8)), in[1], in[2] };
	krl_tensor fo = optest_tensor(y, 1, I(8));
	rejects("batchnorm", flat, &fo, &a, "at least 2 dims");
	krl_attrs neg = optest_attrs(1, "eps", -1.0);
	rejects("batchnorm", in, &out, &neg, "eps=-1");
	krl_attrs unk = optest_attrs(1, "momentum", 0.1);
	rejects("batchnorm", in, &out, &unk, "unknown attribute 'momentum'");
}

static void test_instancenorm(void **state)
{
	(void)state;
	/* planes {1, 3} and {0, 4}: means 2, variances 1 and 4 */
	double x[] = { 1, 3, 0, 4 }, y[4];
	krl_tensor in = optest_tensor(x, 3, I(1), I(2), I(2));
	krl_tensor out = optest_tensor(y, 3, I(1), I(2), I(2));
	krl_attrs a = optest_attrs(1, "eps", 0.0);
	optest_golden("instancenorm", &in, &out, &a);
	double want[] = { -1, 1, -1, 1 };
	optest_near(y, want, 4, 1e-12);
	/* eps enters under the root: var 1 + eps 3 gives rstd 1/2 */
	krl_attrs e3 = optest_attrs(1, "eps", 3.0);
	optest_golden("instancenorm", &in, &out, &e3);
	double want3[] = { -0.5, 0.5, -2 / sqrt(7.0), 2 / sqrt(7.0) };
	optest_near(y, want3, 4, 1e-12);
	krl_tensor o2 = optest_tensor(y, 3, I(1), I(2), I(1));
	rejects("instancenorm", &in, &o2, &a, "shapes must be equal");
}

static void test_groupnorm(void **state)
{
	(void)state;
	/* x [1, 4, 1], 2 groups: {1, 2} and {3, 4} each normalise to
	 * {-1, 1}; then w = 1..4, b = {0, 0, 0, 1} */
	double x[] = { 1, 2, 3, 4 }, w[] = { 1, 2, 3, 4 }, b[] = { 0, 0, 0, 1 };
	double y[4];
	krl_tensor in[3] = { optest_tensor(x, 3, I(1), I(4), I(1)), optest_tensor(w, 1, I(4)),
	                     optest_tensor(b, 1, I(4)) };
	krl_tensor out = optest_tensor(y, 3, I(1), I(4), I(1));
	krl_attrs a = optest_attrs(2, "groups", 2.0, "eps", 0.0);
	optest_golden("groupnorm", in, &out, &a);
	double want[] = { -1, 2, -3, 5 };
	optest_near(y, want, 4, 1e-12);
	/* one group: mean 2.5, var 1.25 */
	krl_attrs one = optest_attrs(2, "groups", 1.0, "eps", 0.0);
	optest_golden("groupnorm", in, &out, &one);
	double r = 1 / sqrt(1.25);
	double want1[] = { -1.5 * r, -0.5 * 2 * r, 0.5 * 3 * r, 1.5 * 4 * r + 1 };
	optest_near(y, want1, 4, 1e-12);
	krl_attrs three = optest_attrs(1, "groups", 3.0);
	rejects("groupnorm", in, &out, &three, "dividing the 4 channels");
	krl_attrs none = optest_attrs(0);
	rejects("groupnorm", in, &out, &none, "groups is required");
}

static void test_vector_norm(void **state)
{
	(void)state;
	double x[] = { 3, 4, 6, 8 }, y[2];
	krl_tensor in = optest_tensor(x, 2, I(2), I(2));
	krl_tensor out = optest_tensor(y, 2, I(2), I(1));
	krl_attrs a = optest_attrs(1, "dim", 1.0);
	optest_golden("vector_norm", &in, &out, &a);
	double want[] = { 5, 10 };
	optest_near(y, want, 2, 1e-12);
	krl_tensor drop = optest_tensor(y, 1, I(2));
	krl_attrs last = optest_attrs(1, "dim", -1.0);
	optest_golden("vector_norm", &in, &drop, &last);
	optest_near(y, want, 2, 1e-12);
	krl_tensor all = optest_tensor(y, 0);
	krl_attrs none = optest_attrs(0);
	optest_golden("vector_norm", &in, &all, &none);
	optest_near(y, (double[]){ sqrt(125.0) }, 1, 1e-12);

	krl_attrs d0 = optest_attrs(1, "dim", 0.0);
	rejects("vector_norm", &in, &drop, &d0, "only a reduction over the "
	        "last dim");
	krl_attrs o1 = optest_attrs(2, "dim", 1.0, "ord", 1.0);
	rejects("vector_norm", &in, &out, &o1, "ord=1 is not supported");
	rejects("vector_norm", &in, &out, &none, "y must be []");
}

/* ==== Losses and attention ==== */

static void test_nll_loss(void **state)
{
	(void)state;
	double lp[] = { -1, -2, -3, -4, -5, -6 }, t[] = { 2, 0 }, loss[1];
	krl_tensor in[2] = { optest_tensor(lp, 2, I(2), I(3)), optest_tensor(t, 1, I(2)) };
	in[1].dtype = KRL_I64;
	krl_tensor out = optest_tensor(loss, 0);
	krl_attrs none = optest_attrs(0);
	optest_golden("nll_loss", in, &out, &none);
	optest_near(loss, (double[]){ 3.5 }, 1, 0);     /* (3 + 4) / 2 */
	t[0] = -100;                             /* ignored */
	optest_golden("nll_loss", in, &out, &none);
	optest_near(loss, (double[]){ 4 }, 1, 0);
	t[0] = 3;                                /* out of range */
	optest_golden("nll_loss", in, &out, &none);
	assert_true(isnan(loss[0]));

	in[1].dtype = KRL_F32;
	rejects("nll_loss", in, &out, &none, "target must be i64");
	in[1].dtype = KRL_I64;
	krl_tensor t3[2] = { in[0], optest_tensor(t, 1, I(3)) };
	t3[1].dtype = KRL_I64;
	rejects("nll_loss", t3, &out, &none, "target must be [2]");
	krl_tensor o2 = optest_tensor(loss, 1, I(2));
	rejects("nll_loss", in, &o2, &none, "must be []");
}

static void test_sdpa(void **state)
{
	(void)state;
	/* one query (1, 0), keys (1, 0) and (0, 1), values 1 and 3, scale 1:
	 * scores 1, 0, o = (e + 3) / (e + 1) */
	double q[] = { 1, 0 }, k[] = { 1, 0, 0, 1 }, v[] = { 1, 3 }, o[1];
	krl_tensor in[3] = { optest_tensor(q, 2, I(1), I(2)), optest_tensor(k, 2, I(2), I(2)),
	                     optest_tensor(v, 2, I(2), I(1)) };
	krl_tensor out = optest_tensor(o, 2, I(1), I(1));
	krl_attrs s1 = optest_attrs(1, "scale", 1.0);
	optest_golden("sdpa", in, &out, &s1);
	optest_near(o, (double[]){ (M_E + 3) / (M_E + 1) }, 1, 1e-14);
	/* default scale 1/sqrt(2): weights e^(1/sqrt 2) and 1 */
	krl_attrs none = optest_attrs(0);
	optest_golden("sdpa", in, &out, &none);
	double w = exp(1 / sqrt(2.0));
	optest_near(o, (double[]){ (w + 3) / (w + 1) }, 1, 1e-14);
	/* batched: two heads, the second with the keys swapped */
	double qb[] = { 1, 0, 1, 0 }, kb[] = { 1, 0, 0, 1, 0, 1, 1, 0 };
	double vb[] = { 1, 3, 1, 3 }, ob[2];
	krl_tensor ib[3] = { optest_tensor(qb, 3, I(2), I(1), I(2)),
	                     optest_tensor(kb, 3, I(2), I(2), I(2)),
	                     optest_tensor(vb, 3, I(2), I(2), I(1)) };
	krl_tensor outb = optest_tensor(ob, 3, I(2), I(1), I(1));
	optest_golden("sdpa", ib, &outb, &s1);
	optest_near(ob, (double[]){ (M_E + 3) / (M_E + 1), (1 + 3 * M_E) / (M_E + 1) },
	     2, 1e-14);

	/* two queries (2, -1), (0.5, 1.5), keys (1, 0), (0, 1), values 1, 3:
	 * scores [2, -1; 0.5, 1.5]. causal: query 0 sees key 0 alone; relu:
	 * the weights are the positive scores, not normalised */
	double q2[] = { 2, -1, 0.5, 1.5 }, o2v[2];
	krl_tensor i2[3] = { optest_tensor(q2, 2, I(2), I(2)), in[1], in[2] };
	krl_tensor out2 = optest_tensor(o2v, 2, I(2), I(1));
	krl_attrs causal = optest_attrs(2, "scale", 1.0, "causal", 1.0);
	optest_golden("sdpa", i2, &out2, &causal);
	double a = exp(0.5), b = exp(1.5);
	optest_near(o2v, (double[]){ 1, (a + 3 * b) / (a + b) }, 2, 1e-14);
	krl_attrs relu = optest_attrs(2, "scale", 1.0, "relu", 1.0);
	optest_golden("sdpa", i2, &out2, &relu);
	optest_near(o2v, (double[]){ 2, 0.5 + 4.5 }, 2, 1e-14);
	krl_attrs both = optest_attrs(3, "scale", 2.0, "causal", 1.0, "relu", 1.0);
	optest_golden("sdpa", i2, &out2, &both);
	optest_near(o2v, (double[]){ 4, 1 + 9 }, 2, 1e-14);
	krl_attrs notflag = optest_attrs(1, "causal", 2.0);
	rejects("sdpa", i2, &out2, &notflag, "causal");

	krl_tensor bad[3] = { in[0], optest_tensor(k, 2, I(1), I(4)), in[2] };
	rejects("sdpa", bad, &out, &none, "embedding dims differ");
	krl_tensor badv[3] = { in[0], in[1], optest_tensor(v, 2, I(1), I(2)) };
	krl_tensor o2 = optest_tensor(o, 2, I(1), I(2));
	rejects("sdpa", badv, &o2, &none, "key counts differ");
	krl_tensor o12 = optest_tensor(o, 2, I(1), I(2));
	rejects("sdpa", in, &o12, &none, "o is [1, 2]");
}

/* Every op of the family is registered, with a golden and a check. */
static void test_registry(void **state)
{
	(void)state;
	const char *names[] = {
		"softmax", "log_softmax", "layernorm", "batchnorm",
		"instancenorm", "groupnorm", "vector_norm", "nll_loss", "sdpa",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const krl_op *op = krl_op_find(names[i]);
		assert_non_null(op);
		assert_non_null(op->check);
		assert_non_null(op->golden);
		assert_non_null(op->run);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batchnorm),
		cmocka_unit_test(test_instancenorm),
		cmocka_unit_test(test_groupnorm),
		cmocka_unit_test(test_vector_norm),
		cmocka_unit_test(test_nll_loss),
		cmocka_unit_test(test_sdpa),
		cmocka_unit_test(test_registry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
