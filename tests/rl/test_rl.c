/*
 * Tests of the contrastive-RL arithmetic (src/rl/): exemplar selection
 * checked statistically against its stated distribution, rewards and the
 * rolling normaliser on hand-computed sequences, GRPO advantages.
 */
#include <math.h>
#include <string.h>

#include "testutil.h"
#include "krl/rl.h"

/* Upper 0.001 quantiles of the chi-square distribution, by degrees of
 * freedom (standard tables). */
static const double chi2_crit_001[] = { 0, 10.828, 13.816, 16.266, 18.467,
                                        20.515 };

/* Pearson's statistic of observed counts against probabilities p over k
 * categories with total draws n; categories with p == 0 must have no
 * observations (asserted). */
static double chi2(const int *obs, const double *p, int k, int n, int *df)
{
	double x = 0;
	*df = -1;
	for (int i = 0; i < k; i++) {
		if (p[i] == 0) {
			assert_int_equal(obs[i], 0);
			continue;
		}
		double e = p[i] * n;
		x += (obs[i] - e) * (obs[i] - e) / e;
		(*df)++;
	}
	return x;
}

/* The test's own bucket rule (docs/rl.md): equal width over [min, max],
 * the maximum in the last bucket. */
static int bucket_of(const double *s, int n, int nb, double v)
{
	double lo = s[0], hi = s[0];
	for (int i = 1; i < n; i++) {
		lo = fmin(lo, s[i]);
		hi = fmax(hi, s[i]);
	}
	if (hi == lo)
		return 0;
	int b = (int)((v - lo) / (hi - lo) * nb);
	return b >= nb ? nb - 1 : b;
}

/* ==== Exemplar selection ==== */

static void test_bucket_probs_hand(void **state)
{
	(void)state;
	/* Scores 1 1 2 4 in 3 buckets of width 1: {1,1} mean 1, {2} mean 2,
	 * {4} mean 4. With tau 1: p_b = e^m_b / (e^1 + e^2 + e^4) (the
	 * mean over all, 2, cancels): 2.7183 / 64.7055 etc. */
	double s[] = { 1, 1, 2, 4 };
	krl_exemplar_opts o = { .nbuckets = 3, .tau = 1.0, .n = 2 };
	double p[3];
	assert_int_equal(krl_exemplar_bucket_probs(s, 4, &o, p), 3);
	assert_near(p[0], 0.042010066134066, 1e-12);
	assert_near(p[1], 0.114195199384594, 1e-12);
	assert_near(p[2], 0.843794734481340, 1e-12);

	/* An empty bucket gets 0: 1 1 4 in 3 buckets leaves [2, 3) empty. */
	double s2[] = { 1, 1, 4 };
	assert_int_equal(krl_exemplar_bucket_probs(s2, 3, &o, p), 3);
	assert_near(p[1], 0, 0);
	assert_near(p[0], exp(1) / (exp(1) + exp(4)), 1e-12);
	assert_near(p[2], exp(4) / (exp(1) + exp(4)), 1e-12);

	/* Temperature 2 halves the exponents. */
	o.tau = 2.0;
	krl_exemplar_bucket_probs(s, 4, &o, p);
	double z = exp(0.5) + exp(1) + exp(2);
	assert_near(p[0], exp(0.5) / z, 1e-12);
	assert_near(p[2], exp(2) / z, 1e-12);

	/* Defaults: 4 buckets. */
	double p4[4];
	assert_int_equal(krl_exemplar_bucket_probs(s, 4, NULL, p4), 4);
}

static void test_degenerate_pools(void **state)
{
	(void)state;
	krl_exemplar_opts o = { .nbuckets = 3, .tau = 1, .n = 2 };
	double p[3] = { 9, 9, 9 };
	int picked[2] = { -1, -1 };
	krl_rng rng = { 7 };

	/* No scores: nothing to pick, all probabilities 0. */
	assert_int_equal(krl_exemplar_bucket_probs(NULL, 0, &o, p), 0);
	assert_near(p[0] + p[1] + p[2], 0, 0);
	assert_int_equal(krl_exemplar_select(NULL, 0, &o, &rng, picked), 0);

	/* All equal: one bucket, so only one exemplar even when 2 asked. */
	double s[] = { 2, 2, 2 };
	assert_int_equal(krl_exemplar_bucket_probs(s, 3, &o, p), 1);
	assert_near(p[0], 1, 0);
	assert_near(p[1] + p[2], 0, 0);
	assert_int_equal(krl_exemplar_select(s, 3, &o, &rng, picked), 1);
	assert_true(picked[0] >= 0 && picked[0] < 3);

	/* A single candidate. */
	double one[] = { 1.7 };
	assert_int_equal(krl_exemplar_select(one, 1, &o, &rng, picked), 1);
	assert_int_equal(picked[0], 0);

	/* Non-finite scores are never picked. */
	double bad[] = { NAN, 1.0, INFINITY, 3.0 };
	for (int t = 0; t < 200; t++) {
		int n = krl_exemplar_select(bad, 4, &o, &rng, picked);
		assert_int_equal(n, 2);
		for (int i = 0; i < n; i++)
			assert_true(picked[i] == 1 || picked[i] == 3);
	}
}

/* Scores over 4 buckets of width 0.875 between 0.5 and 4: bucket means
 * 0.85, 1.9, 3.05, 4.0. */
static const double pool[] = { 0.5, 0.8, 1.0, 1.1, 1.5, 2.0, 2.2, 3.0, 3.1, 4.0 };
#define NPOOL 10

static void test_select_distribution(void **state)
{
	(void)state;
	krl_exemplar_opts o = { .nbuckets = 4, .tau = 1.0, .n = 2 };
	double p[4];
	assert_int_equal(krl_exemplar_bucket_probs(pool, NPOOL, &o, p), 4);

	enum { DRAWS = 20000 };
	int first[4] = { 0 }, second[4] = { 0 }, member0[NPOOL] = { 0 };
	krl_rng rng = { 20250101 };
	for (int t = 0; t < DRAWS; t++) {
		int picked[2];
		assert_int_equal(krl_exemplar_select(pool, NPOOL, &o, &rng, picked), 2);
		int b0 = bucket_of(pool, NPOOL, 4, pool[picked[0]]);
		int b1 = bucket_of(pool, NPOOL, 4, pool[picked[1]]);
		assert_int_not_equal(b0, b1); /* distinct buckets */
		first[b0]++;
		second[b1]++;
		if (b0 == 0)
			member0[picked[0]]++;
	}
	int df;
	double x = chi2(first, p, 4, DRAWS, &df);
	assert_int_equal(df, 3);
	print_message("first bucket: chi2 = %.3f (df %d, critical %.3f)\n", x,
	              df, chi2_crit_001[df]);
	assert_true(x < chi2_crit_001[df]);

	/* The second draw is from the remaining buckets with renormalised
	 * weights: P(second = b) = sum over a != b of p_a p_b / (1 - p_a). */
	double q[4] = { 0 };
	for (int b = 0; b < 4; b++)
		for (int a = 0; a < 4; a++)
			if (a != b)
				q[b] += p[a] * p[b] / (1 - p[a]);
	x = chi2(second, q, 4, DRAWS, &df);
	print_message("second bucket: chi2 = %.3f (df %d)\n", x, df);
	assert_true(x < chi2_crit_001[df]);

	/* Within a bucket the member is uniform: bucket 0 holds indices 0-3. */
	int n0 = first[0];
	double u[4] = { 0.25, 0.25, 0.25, 0.25 };
	x = chi2(member0, u, 4, n0, &df);
	assert_true(x < chi2_crit_001[df]);
}

static void test_select_more_than_buckets(void **state)
{
	(void)state;
	/* Two non-empty buckets out of 4: asking for 5 gives 2. */
	double s[] = { 1.0, 1.1, 5.0, 4.9 };
	krl_exemplar_opts o = { .nbuckets = 4, .tau = 1.0, .n = 5 };
	krl_rng rng = { 3 };
	for (int t = 0; t < 100; t++) {
		int picked[5];
		int n = krl_exemplar_select(s, 4, &o, &rng, picked);
		assert_int_equal(n, 2);
		assert_int_not_equal(bucket_of(s, 4, 4, s[picked[0]]),
		                     bucket_of(s, 4, 4, s[picked[1]]));
	}
	/* All four buckets, all drawn once each. */
	o.n = 4;
	for (int t = 0; t < 100; t++) {
		int picked[4], seen[4] = { 0 };
		assert_int_equal(krl_exemplar_select(pool, NPOOL, &o, &rng, picked), 4);
		for (int i = 0; i < 4; i++)
			seen[bucket_of(pool, NPOOL, 4, pool[picked[i]])]++;
		for (int b = 0; b < 4; b++)
			assert_int_equal(seen[b], 1);
	}
}

static void test_select_small_tau(void **state)
{
	(void)state;
	/* tau -> 0 puts all the mass on the best bucket (no overflow). */
	krl_exemplar_opts o = { .nbuckets = 4, .tau = 1e-3, .n = 2 };
	double p[4];
	krl_exemplar_bucket_probs(pool, NPOOL, &o, p);
	assert_near(p[3], 1, 1e-12);
	assert_true(isfinite(p[0]) && p[0] >= 0);
	krl_rng rng = { 11 };
	for (int t = 0; t < 1000; t++) {
		int picked[2];
		assert_int_equal(krl_exemplar_select(pool, NPOOL, &o, &rng, picked), 2);
		assert_int_equal(picked[0], 9); /* 4.0, alone in the top bucket */
		/* then the next best */
		assert_int_equal(bucket_of(pool, NPOOL, 4, pool[picked[1]]), 2);
	}
	/* A large tau flattens towards uniform over the buckets. */
	o.tau = 1e6;
	krl_exemplar_bucket_probs(pool, NPOOL, &o, p);
	for (int b = 0; b < 4; b++)
		assert_near(p[b], 0.25, 1e-5);
}

static void test_select_deterministic(void **state)
{
	(void)state;
	krl_exemplar_opts o = { 0 }; /* defaults: 4 buckets, tau 1, n 2 */
	krl_rng a = { 99 }, b = { 99 };
	for (int t = 0; t < 50; t++) {
		int pa[2], pb[2];
		int na = krl_exemplar_select(pool, NPOOL, &o, &a, pa);
		int nb = krl_exemplar_select(pool, NPOOL, &o, &b, pb);
		assert_int_equal(na, 2);
		assert_int_equal(na, nb);
		assert_memory_equal(pa, pb, sizeof pa);
	}
}

/* ==== Rewards ==== */

static void test_reward_raw(void **state)
{
	(void)state;
	assert_near(krl_reward_raw(1, 1.5, NULL), 0.5, 1e-15);
	assert_near(krl_reward_raw(1, 1.0, NULL), 0.0, 0);
	assert_near(krl_reward_raw(1, 0.5, NULL), -0.5, 1e-15);
	assert_near(krl_reward_raw(0, 3.0, NULL), -1.0, 0);
	krl_reward_opts o = { .fail_penalty = -2.5 };
	assert_near(krl_reward_raw(0, 0, &o), -2.5, 0);
	assert_near(krl_reward_raw(1, 2.0, &o), 1.0, 0);
	/* an "ok" without a usable speedup is a failure */
	assert_near(krl_reward_raw(1, NAN, &o), -2.5, 0);
	assert_near(krl_reward_raw(1, 0, &o), -2.5, 0);
	assert_near(krl_reward_raw(1, INFINITY, NULL), -1.0, 0);
}

static void test_reward_norm(void **state)
{
	(void)state;
	krl_reward_opts o = { .clip = 1.5, .window = 4 };
	krl_reward_norm z;
	assert_int_equal(krl_reward_norm_init(&z, &o), 0);
	/* window {1}: no spread, 0 */
	assert_near(krl_reward_norm_push(&z, 1), 0, 0);
	/* {1,3}: mean 2, population std 1 */
	assert_near(krl_reward_norm_push(&z, 3), 1.0, 1e-12);
	/* {1,3,2}: mean 2 */
	assert_near(krl_reward_norm_push(&z, 2), 0.0, 1e-12);
	/* {1,3,2,10}: mean 4, var 50/4, (10-4)/3.5355 = 1.697 -> clip 1.5 */
	assert_near(krl_reward_norm_push(&z, 10), 1.5, 0);
	/* window rolls: {3,2,10,0}: mean 3.75, var 56.75/4 */
	assert_near(krl_reward_norm_push(&z, 0), -3.75 / sqrt(56.75 / 4), 1e-12);
	assert_near(-3.75 / sqrt(56.75 / 4), -0.99558496739996, 1e-12);
	/* {2,10,0,6}: mean 4.5, var 59/4 */
	assert_near(krl_reward_norm_push(&z, 6), 1.5 / sqrt(59.0 / 4), 1e-12);
	/* a very bad one clips below */
	assert_near(krl_reward_norm_push(&z, -100), -1.5, 0);
	assert_int_equal(z.n, 4);
	krl_reward_norm_free(&z);
	krl_reward_norm_free(&z); /* twice is harmless */

	/* Defaults and an all-equal window. */
	assert_int_equal(krl_reward_norm_init(&z, NULL), 0);
	assert_int_equal(z.cap, 256);
	assert_near(z.clip, 3, 0);
	for (int i = 0; i < 300; i++)
		assert_near(krl_reward_norm_push(&z, 0.25), 0, 0);
	assert_int_equal(z.n, 256);
	krl_reward_norm_free(&z);
}

/* ==== GRPO ==== */

static void test_grpo(void **state)
{
	(void)state;
	/* {1,2,3,6}: mean 3, population std sqrt(14/4) */
	double r[] = { 1, 2, 3, 6 }, adv[4];
	krl_grpo_advantages(r, 4, adv);
	double sd = sqrt(14.0 / 4) + 1e-6;
	assert_near(adv[0], -2 / sd, 1e-12);
	assert_near(adv[1], -1 / sd, 1e-12);
	assert_near(adv[2], 0, 1e-12);
	assert_near(adv[3], 3 / sd, 1e-12);
	assert_near(adv[3], 1.6035665943321, 1e-9);
	assert_near(adv[0] + adv[1] + adv[2] + adv[3], 0, 1e-12);

	/* zero variance: zeros, not NaN */
	double same[] = { -1, -1, -1 }, a3[3] = { 9, 9, 9 };
	krl_grpo_advantages(same, 3, a3);
	for (int i = 0; i < 3; i++)
		assert_near(a3[i], 0, 0);

	/* g < 2: zeros */
	double one[] = { 5 }, a1[1] = { 9 };
	krl_grpo_advantages(one, 1, a1);
	assert_near(a1[0], 0, 0);
	krl_grpo_advantages(NULL, 0, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_probs_hand),
		cmocka_unit_test(test_degenerate_pools),
		cmocka_unit_test(test_select_distribution),
		cmocka_unit_test(test_select_more_than_buckets),
		cmocka_unit_test(test_select_small_tau),
		cmocka_unit_test(test_select_deterministic),
		cmocka_unit_test(test_reward_raw),
		cmocka_unit_test(test_reward_norm),
		cmocka_unit_test(test_grpo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
