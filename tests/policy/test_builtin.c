/*
 * The builtin policy (src/policy/builtin.c): the weights file written and
 * read back exactly, its errors with their positions (and no read past the
 * text's end), the log-linear probabilities computed by hand, sampling and
 * mutation checked statistically against them (chi-square at p = 0.001,
 * as tests/rl/test_rl.c checks exemplar selection), the gradient step
 * against its formula and its effect, clipping, uniform mode, determinism.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "krl/policy.h"
#include "testutil.h"

/* Upper 0.001 quantiles of the chi-square distribution by degrees of
 * freedom (standard tables). */
static const double chi2_crit_001[] = {0, 10.828, 13.816, 16.266, 18.467,
                                       20.515};

static double chi2(const int *obs, const double *p, int k, int n, int *df)
{
	double x = 0;
	*df = -1;
	for (int i = 0; i < k; i++) {
		double e = p[i] * n;
		x += (obs[i] - e) * (obs[i] - e) / e;
		(*df)++;
	}
	return x;
}

/* A space like the optimizer's for a softmax: names as krl_opt gives
 * them. "only" has one option (never drawn). */
static krl_space test_space(void)
{
	krl_space s;
	memset(&s, 0, sizeof s);
	static const char *const names[] = {"map.vec", "row.strategy", "only",
	                                    "rule.fold"};
	static const char *const opts[][4] = {{"1", "2", "4"},
	                                      {"warp", "block"},
	                                      {"x"},
	                                      {"off", "on"}};
	static const int nopt[] = {3, 2, 1, 2};
	s.ndec = 4;
	for (int k = 0; k < 4; k++) {
		snprintf(s.dec[k].name, sizeof s.dec[k].name, "%s", names[k]);
		s.dec[k].nopt = nopt[k];
		for (int j = 0; j < nopt[k]; j++)
			snprintf(s.dec[k].opt[j], sizeof s.dec[k].opt[j], "%s",
			         opts[k][j]);
	}
	return s;
}

static krl_features test_features(void)
{
	krl_features x = {.n = 3};
	x.name[0] = "log2_bytes";
	x.val[0] = 2.0;
	x.name[1] = "has_gemm";
	x.val[1] = 0.0;
	x.name[2] = "bias"; /* from the optimizer: ignored, never doubled */
	x.val[2] = 1.0;
	return x;
}

/* ==== The weights file ==== */

static void file_round_trip(void **state)
{
	krl_policy *p = NULL, *q = NULL;
	krl_diag d = {0};
	char dir[] = "/tmp/krl-weights-XXXXXX", path[128];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/w.weights", dir);
	KRL_ASSERT_OK(krl_policy_create(&p), NULL);
	KRL_ASSERT_OK(krl_policy_set_weight(p, "row.strategy", "warp", "bias",
	                                    0.1), NULL);
	KRL_ASSERT_OK(krl_policy_set_weight(p, "map.vec", "4", "log2_bytes",
	                                    -1.0 / 3.0), NULL);
	KRL_ASSERT_OK(krl_policy_set_weight(p, "map.vec", "4", "bias", 1e-300),
	              NULL);
	KRL_ASSERT_OK(krl_policy_set_weight(p, "map.vec", "2", "bias", 12345.678),
	              NULL);
	KRL_ASSERT_OK(krl_policy_set_weight(p, "map.vec", "1", "bias", 0.5), NULL);
	KRL_ASSERT_OK(krl_policy_set_weight(p, "map.vec", "1", "bias", 0), NULL);
	assert_int_equal(krl_policy_set_weight(p, "map vec", "1", "bias", 1),
	                 KRL_EINVAL);
	assert_int_equal(krl_policy_set_weight(p, "map.vec", "1", "bias", NAN),
	                 KRL_EINVAL);
	assert_int_equal(krl_policy_size(p), 4);
	KRL_ASSERT_OK(krl_policy_save(p, path, &d), &d);

	/* Sorted lines, header first, zero weights left out. */
	char *text = krl_test_read(path, NULL);
	assert_non_null(text);
	assert_memory_equal(text, "krl-builtin-weights 1\n", 22);
	const char *a = strstr(text, "map.vec 2 bias"),
	           *b = strstr(text, "map.vec 4 bias"),
	           *c = strstr(text, "map.vec 4 log2_bytes"),
	           *e = strstr(text, "row.strategy warp bias");
	assert_true(a && b && c && e && a < b && b < c && c < e);
	assert_null(strstr(text, "map.vec 1 bias"));
	free(text);

	KRL_ASSERT_OK(krl_policy_load(path, &q, &d), &d);
	assert_int_equal(krl_policy_size(q), 4);
	/* Bit for bit. */
	assert_true(krl_policy_weight(q, "map.vec", "4", "log2_bytes") ==
	            -1.0 / 3.0);
	assert_true(krl_policy_weight(q, "map.vec", "4", "bias") == 1e-300);
	assert_true(krl_policy_weight(q, "map.vec", "2", "bias") == 12345.678);
	assert_true(krl_policy_weight(q, "row.strategy", "warp", "bias") == 0.1);
	/* Missing entries are 0. */
	assert_true(krl_policy_weight(q, "map.vec", "1", "bias") == 0);
	assert_true(krl_policy_weight(q, "gemm.algo", "3", "bias") == 0);
	char f1[17], f2[17];
	krl_policy_fingerprint(p, f1);
	krl_policy_fingerprint(q, f2);
	assert_string_equal(f1, f2);
	krl_policy_set_uniform(q, 1);
	krl_policy_fingerprint(q, f2);
	assert_string_not_equal(f1, f2);
	/* No temporary file is left beside it. */
	char cmd[256];
	snprintf(cmd, sizeof cmd, "test $(ls '%s' | wc -l) -eq 1", dir);
	assert_int_equal(system(cmd), 0);
	krl_policy_free(p);
	krl_policy_free(q);
	krl_policy_free(NULL);

	/* Comments, blank lines, CRLF and tabs are read; an empty policy
	 * saves as the header and comments alone. */
	KRL_ASSERT_OK(krl_policy_parse("x.weights",
	                               "# made by hand\r\n\r\n"
	                               "krl-builtin-weights 1\r\n"
	                               "  # indented comment\n"
	                               "map.vec\t4 bias   2.5e-1\r\n",
	                               &p, &d), &d);
	assert_true(krl_policy_weight(p, "map.vec", "4", "bias") == 0.25);
	krl_policy_free(p);
	KRL_ASSERT_OK(krl_policy_create(&p), NULL);
	KRL_ASSERT_OK(krl_policy_save(p, path, &d), &d);
	krl_policy_free(p);
	KRL_ASSERT_OK(krl_policy_load(path, &p, &d), &d);
	assert_int_equal(krl_policy_size(p), 0);
	krl_policy_free(p);

	/* The shipped file reads. */
	KRL_ASSERT_OK(krl_policy_load("policy/builtin.weights", &p, &d), &d);
	krl_policy_free(p);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void file_errors(void **state)
{
	static const struct {
		const char *text;
		int line, col;
		const char *what;
	} bad[] = {
		{"", 1, 1, "header"},
		{"# only a comment\n", 1, 1, "header"},
		{"map.vec 4 bias 1\n", 1, 1, "header"},
		{"krl-builtin-weights 2\n", 1, 21, "version '2'"},
		{"krl-builtin-weights\n", 1, 1, "header"},
		{"# c\nkrl-builtin-weights 1\nmap.vec 4 bias\n", 3, 11,
		 "expected 4 fields"},
		{"krl-builtin-weights 1\nmap.vec 4 bias x1\n", 2, 16,
		 "weight 'x1' is not a finite number"},
		{"krl-builtin-weights 1\nmap.vec 4 bias nan\n", 2, 16,
		 "not a finite number"},
		{"krl-builtin-weights 1\nmap.vec 4 bias 1e999\n", 2, 16,
		 "not a finite number"},
		{"krl-builtin-weights 1\nmap.vec 4 bias 1 # no\n", 2, 18,
		 "unexpected '#'"},
		{"krl-builtin-weights 1\nmap.vec 4 bias 1\n\nmap.vec  4 bias 2\n",
		 4, 1, "duplicate weight (first set at line 2)"},
		{"krl-builtin-weights 1\n"
		 "a234567890123456789012345678901234567890123456789012345678901234"
		 " 4 bias 1\n", 2, 1, "longer than 63"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		krl_policy *p = (krl_policy *)1;
		krl_diag d = {0};
		void *base;
		size_t size;
		/* The text ends (with its NUL) where an unmapped page begins. */
		size_t n = strlen(bad[i].text) + 1;
		char *z = krl_test_at_page_end(bad[i].text, n, &base, &size);
		krl_err e = krl_policy_parse("bad.weights", z, &p, &d);
		char msg[1200];
		krl_diag_format(&d, msg, sizeof msg);
		print_message("%s\n", msg);
		assert_int_equal(e, KRL_ESYNTAX);
		assert_null(p);
		assert_string_equal(d.pos.file, "bad.weights");
		assert_int_equal(d.pos.line, bad[i].line);
		assert_int_equal(d.pos.col, bad[i].col);
		assert_non_null(strstr(d.msg, bad[i].what));
		munmap(base, size);
	}
	krl_policy *p = NULL;
	krl_diag d = {0};
	assert_int_equal(krl_policy_load("/nonexistent/w.weights", &p, &d),
	                 KRL_EIO);
	assert_null(p);
	assert_non_null(strstr(d.msg, "cannot read"));
}

/* ==== The model ==== */

/* Weights with a known answer: for map.vec, logits (1, 2, 4) =
 * (0, 0.5, 1.2 - 0.3 * 2) = (0, 0.5, 0.6) with log2_bytes = 2. */
static krl_policy *known_policy(void)
{
	krl_policy *p = NULL;
	KRL_ASSERT_OK(krl_policy_create(&p), NULL);
	KRL_ASSERT_OK(krl_policy_set_weight(p, "map.vec", "2", "bias", 0.5), NULL);
	KRL_ASSERT_OK(krl_policy_set_weight(p, "map.vec", "4", "bias", 1.2), NULL);
	KRL_ASSERT_OK(krl_policy_set_weight(p, "map.vec", "4", "log2_bytes", -0.3),
	              NULL);
	/* A feature whose value is 0 and the optimizer's own "bias" feature
	 * change nothing. */
	KRL_ASSERT_OK(krl_policy_set_weight(p, "map.vec", "1", "has_gemm", 5.0),
	              NULL);
	KRL_ASSERT_OK(krl_policy_set_weight(p, "row.strategy", "block", "bias",
	                                    -1.0), NULL);
	return p;
}

static void probabilities(void **state)
{
	krl_space s = test_space();
	krl_features x = test_features();
	krl_policy *p = known_policy();
	double pr[KRL_MAX_OPTIONS];
	double z = exp(0) + exp(0.5) + exp(0.6);
	krl_policy_probs(p, &s, &x, 0, pr);
	assert_near(pr[0], exp(0) / z, 1e-15);
	assert_near(pr[1], exp(0.5) / z, 1e-15);
	assert_near(pr[2], exp(0.6) / z, 1e-15);
	krl_policy_probs(p, &s, &x, 1, pr);
	assert_near(pr[0], 1 / (1 + exp(-1.0)), 1e-15);
	krl_policy_probs(p, &s, &x, 2, pr);
	assert_near(pr[0], 1, 0);
	krl_policy_probs(p, &s, &x, 3, pr);
	assert_near(pr[0], 0.5, 0);
	/* Uniform mode ignores the weights. */
	krl_policy_set_uniform(p, 1);
	krl_policy_probs(p, &s, &x, 0, pr);
	for (int j = 0; j < 3; j++)
		assert_near(pr[j], 1.0 / 3, 1e-15);
	krl_policy_free(p);
}

#define DRAWS 20000

static void sampling_frequencies(void **state)
{
	krl_space s = test_space();
	krl_features x = test_features();
	krl_policy *p = known_policy();
	krl_rng rng = {42};
	int vec[3] = {0}, strat[2] = {0}, fold[2] = {0};
	for (int i = 0; i < DRAWS; i++) {
		krl_choice c;
		krl_policy_sample(p, &s, &x, &rng, &c);
		vec[c.opt[0]]++;
		strat[c.opt[1]]++;
		assert_int_equal(c.opt[2], 0);
		fold[c.opt[3]]++;
	}
	double pv[3], ps[2], pf[2];
	int df;
	krl_policy_probs(p, &s, &x, 0, pv);
	krl_policy_probs(p, &s, &x, 1, ps);
	krl_policy_probs(p, &s, &x, 3, pf);
	double c2 = chi2(vec, pv, 3, DRAWS, &df);
	print_message("map.vec: chi2 = %.3f (df %d, critical %.3f)\n", c2, df,
	              chi2_crit_001[df]);
	assert_true(c2 < chi2_crit_001[df]);
	c2 = chi2(strat, ps, 2, DRAWS, &df);
	assert_true(c2 < chi2_crit_001[df]);
	c2 = chi2(fold, pf, 2, DRAWS, &df);
	assert_true(c2 < chi2_crit_001[df]);

	/* Uniform mode draws uniformly whatever the weights. */
	krl_policy_set_uniform(p, 1);
	memset(vec, 0, sizeof vec);
	for (int i = 0; i < DRAWS; i++) {
		krl_choice c;
		krl_policy_sample(p, &s, &x, &rng, &c);
		vec[c.opt[0]]++;
	}
	double u[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
	c2 = chi2(vec, u, 3, DRAWS, &df);
	assert_true(c2 < chi2_crit_001[df]);

	/* The same seed gives the same draws. */
	krl_policy_set_uniform(p, 0);
	krl_rng r1 = {7}, r2 = {7};
	for (int i = 0; i < 100; i++) {
		krl_choice a, b;
		krl_policy_sample(p, &s, &x, &r1, &a);
		krl_policy_sample(p, &s, &x, &r2, &b);
		assert_memory_equal(&a, &b, sizeof a);
	}
	krl_policy_free(p);
}

static void mutation(void **state)
{
	krl_space s = test_space();
	krl_features x = test_features();
	krl_policy *p = known_policy();
	krl_rng rng = {99};
	krl_choice base;
	memset(&base, 0, sizeof base);
	base.opt[0] = 1;
	base.opt[1] = 1;
	base.opt[3] = 1;
	/* m = 1: one of the three decisions with options, each equally
	 * likely; "only" never; the others kept; the redrawn one follows the
	 * policy's probabilities. */
	int picked[4] = {0}, vec[3] = {0}, nvec = 0;
	for (int i = 0; i < DRAWS; i++) {
		krl_choice c;
		uint32_t mask = 0;
		assert_int_equal(krl_policy_mutate(p, &s, &x, &base, 1, &rng, &c,
		                                   &mask), 1);
		assert_int_equal(__builtin_popcount(mask), 1);
		int k = __builtin_ctz(mask);
		picked[k]++;
		for (int j = 0; j < 4; j++)
			if (j != k)
				assert_int_equal(c.opt[j], base.opt[j]);
		if (k == 0) {
			vec[c.opt[0]]++;
			nvec++;
		}
	}
	assert_int_equal(picked[2], 0);
	int obs[3] = {picked[0], picked[1], picked[3]}, df;
	double u[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3}, pv[3];
	double c2 = chi2(obs, u, 3, DRAWS, &df);
	print_message("mutated decision: chi2 = %.3f (df %d)\n", c2, df);
	assert_true(c2 < chi2_crit_001[df]);
	krl_policy_probs(p, &s, &x, 0, pv);
	c2 = chi2(vec, pv, 3, nvec, &df);
	assert_true(c2 < chi2_crit_001[df]);
	/* m larger than the decisions with options: all three, once each. */
	krl_choice c;
	uint32_t mask;
	assert_int_equal(krl_policy_mutate(p, &s, &x, &base, 10, &rng, &c, &mask),
	                 3);
	assert_int_equal(mask, (1u << 0) | (1u << 1) | (1u << 3));
	krl_policy_free(p);
}

/* ==== Learning ==== */

static void gradient_step(void **state)
{
	krl_space s = test_space();
	krl_features x = test_features();
	krl_policy *p = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_policy_create(&p), NULL);
	double before[3], after[3];
	krl_policy_probs(p, &s, &x, 0, before);

	/* One member chose map.vec = 4 (option 2) and rule.fold = on with
	 * advantage +1, one chose map.vec = 1 with advantage -1; only map.vec
	 * was drawn by the policy for the second. */
	krl_choice c[2];
	memset(c, 0, sizeof c);
	c[0].opt[0] = 2;
	c[0].opt[3] = 1;
	uint32_t mask[2] = {(1u << 0) | (1u << 3), 1u << 0};
	double adv[2] = {1.0, -1.0}, norm = 0;
	double lr = 0.05;
	KRL_ASSERT_OK(krl_policy_update(p, &s, &x, 2, c, mask, adv, lr, 100,
	                                &norm), &d);
	/* The formula, by hand: dw[vec, j, f] = lr * sum_i adv_i * (1[j ==
	 * c_i] - 1/3) * x_f / (1 + |x|^2) with x_bias = 1, x_log2_bytes = 2,
	 * x_has_gemm = 0. */
	double g[3] = {lr * (1 * (0 - 1.0 / 3) - 1 * (1 - 1.0 / 3)) / 5,
	               lr * (1 * (0 - 1.0 / 3) - 1 * (0 - 1.0 / 3)) / 5,
	               lr * (1 * (1 - 1.0 / 3) - 1 * (0 - 1.0 / 3)) / 5};
	const char *opt[3] = {"1", "2", "4"};
	double ss = 0;
	for (int j = 0; j < 3; j++) {
		assert_near(krl_policy_weight(p, "map.vec", opt[j], "bias"), g[j],
		            1e-15);
		assert_near(krl_policy_weight(p, "map.vec", opt[j], "log2_bytes"),
		            2 * g[j], 1e-15);
		assert_near(krl_policy_weight(p, "map.vec", opt[j], "has_gemm"), 0,
		            0);
		ss += 5 * g[j] * g[j];
	}
	double gf = lr * 1 * (1 - 0.5) / 5;
	assert_near(krl_policy_weight(p, "rule.fold", "on", "bias"), gf, 1e-15);
	assert_near(krl_policy_weight(p, "rule.fold", "off", "bias"), -gf, 1e-15);
	ss += 5 * 2 * gf * gf;
	assert_near(norm, sqrt(ss), 1e-12);
	/* Decisions not drawn (row.strategy) and "only" are untouched. */
	assert_near(krl_policy_weight(p, "row.strategy", "warp", "bias"), 0, 0);
	assert_near(krl_policy_weight(p, "only", "x", "bias"), 0, 0);

	/* The positively advantaged option became more likely, the negative
	 * one less. */
	krl_policy_probs(p, &s, &x, 0, after);
	assert_true(after[2] > before[2]);
	assert_true(after[0] < before[0]);

	/* Clipping: a huge step is scaled to max_norm. */
	krl_policy *q = NULL;
	KRL_ASSERT_OK(krl_policy_create(&q), NULL);
	KRL_ASSERT_OK(krl_policy_update(q, &s, &x, 2, c, mask, adv, 1000, 0.5,
	                                &norm), &d);
	assert_near(norm, 1000 / lr * sqrt(ss), 1e-6);
	double qs = 0;
	for (int j = 0; j < 3; j++) {
		double b = krl_policy_weight(q, "map.vec", opt[j], "bias");
		double l = krl_policy_weight(q, "map.vec", opt[j], "log2_bytes");
		double h = krl_policy_weight(q, "map.vec", opt[j], "has_gemm");
		qs += b * b + l * l + h * h;
	}
	for (int j = 0; j < 2; j++) {
		double b = krl_policy_weight(q, "rule.fold", j ? "on" : "off", "bias");
		double l = krl_policy_weight(q, "rule.fold", j ? "on" : "off",
		                             "log2_bytes");
		qs += b * b + l * l;
	}
	assert_near(sqrt(qs), 0.5, 1e-12);

	/* Repeated positive steps drive P(map.vec = 4) towards 1. */
	for (int i = 0; i < 200; i++) {
		double a1 = 1.0;
		KRL_ASSERT_OK(krl_policy_update(q, &s, &x, 1, c, mask, &a1, 0.1, 1,
		                                NULL), &d);
	}
	krl_policy_probs(q, &s, &x, 0, after);
	assert_true(after[2] > 0.95);

	/* Uniform mode learns nothing. */
	krl_policy_set_uniform(q, 1);
	char f1[17], f2[17];
	krl_policy_fingerprint(q, f1);
	KRL_ASSERT_OK(krl_policy_update(q, &s, &x, 2, c, mask, adv, 1, 1, NULL),
	              &d);
	krl_policy_fingerprint(q, f2);
	assert_string_equal(f1, f2);
	krl_policy_free(p);
	krl_policy_free(q);
}

/* krl_policy_add_change: each search's change from the batch's start,
 * added in order: weights moved, created and cancelled, the same
 * fingerprint as the policy set directly, and an unchanged search adds
 * nothing. */
static void add_change(void **state)
{
	(void)state;
	krl_policy *start = NULL, *a = NULL, *b = NULL, *p = NULL, *want = NULL;
	assert_int_equal(krl_policy_create(&start), KRL_OK);
	assert_int_equal(krl_policy_set_weight(start, "map.vec", "4", "bias", 1.0),
	                 KRL_OK);
	assert_int_equal(krl_policy_set_weight(start, "fuse", "ref", "log2_bytes",
	                                       -0.25), KRL_OK);
	/* search a: moved one weight, added one */
	assert_int_equal(krl_policy_create(&a), KRL_OK);
	assert_int_equal(krl_policy_set_weight(a, "map.vec", "4", "bias", 1.5),
	                 KRL_OK);
	assert_int_equal(krl_policy_set_weight(a, "fuse", "ref", "log2_bytes",
	                                       -0.25), KRL_OK);
	assert_int_equal(krl_policy_set_weight(a, "lib.rnn", "persist", "bias",
	                                       0.125), KRL_OK);
	/* search b: took fuse=ref's weight to 0, moved map.vec the other way */
	assert_int_equal(krl_policy_create(&b), KRL_OK);
	assert_int_equal(krl_policy_set_weight(b, "map.vec", "4", "bias", 0.75),
	                 KRL_OK);
	/* p = start + (a - start) + (b - start); p starts empty, so adding
	 * start's change from p (empty) makes it start */
	assert_int_equal(krl_policy_create(&p), KRL_OK);
	krl_policy *empty = NULL;
	assert_int_equal(krl_policy_create(&empty), KRL_OK);
	assert_int_equal(krl_policy_add_change(p, start, empty), KRL_OK);
	krl_policy_free(empty);
	assert_int_equal(krl_policy_size(p), 2);
	assert_int_equal(krl_policy_add_change(p, a, start), KRL_OK);
	assert_int_equal(krl_policy_add_change(p, b, start), KRL_OK);
	assert_true(krl_policy_weight(p, "map.vec", "4", "bias") == 1.25);
	assert_true(krl_policy_weight(p, "lib.rnn", "persist", "bias") == 0.125);
	assert_true(krl_policy_weight(p, "fuse", "ref", "log2_bytes") == 0);
	assert_int_equal(krl_policy_size(p), 2);
	assert_int_equal(krl_policy_create(&want), KRL_OK);
	assert_int_equal(krl_policy_set_weight(want, "map.vec", "4", "bias", 1.25),
	                 KRL_OK);
	assert_int_equal(krl_policy_set_weight(want, "lib.rnn", "persist", "bias",
	                                       0.125), KRL_OK);
	char f1[17], f2[17];
	krl_policy_fingerprint(p, f1);
	krl_policy_fingerprint(want, f2);
	assert_string_equal(f1, f2);
	/* a search that learned nothing changes nothing */
	assert_int_equal(krl_policy_add_change(p, start, start), KRL_OK);
	krl_policy_fingerprint(p, f1);
	assert_string_equal(f1, f2);
	krl_policy_free(start);
	krl_policy_free(a);
	krl_policy_free(b);
	krl_policy_free(p);
	krl_policy_free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(file_round_trip),
		cmocka_unit_test(file_errors),
		cmocka_unit_test(probabilities),
		cmocka_unit_test(sampling_frequencies),
		cmocka_unit_test(mutation),
		cmocka_unit_test(gradient_step),
		cmocka_unit_test(add_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
