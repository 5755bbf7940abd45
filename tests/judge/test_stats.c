/* Tests of the timing statistics (src/judge/stats.c) on synthetic samples. */
#include <math.h>
#include <stdlib.h>

#include "testutil.h"
#include "krl/stats.h"

/* A standard normal from the judge's own generator (Box-Muller). */
static double normal(krl_rng *r)
{
	double u1 = 1.0 - krl_rng_uniform(r); /* (0, 1] */
	double u2 = krl_rng_uniform(r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* ==== Summaries ==== */

static void test_summary_odd(void **state)
{
	(void)state;
	double x[] = { 5, 1, 4, 2, 3 };
	krl_summary s = krl_summarize(x, 5);
	assert_int_equal(s.n, 5);
	assert_near(s.median, 3, 0);
	assert_near(s.mean, 3, 1e-15);
	assert_near(s.min, 1, 0);
	assert_near(s.max, 5, 0);
	assert_near(s.stdev, sqrt(2.5), 1e-15); /* sample stdev */
	assert_near(s.rse, sqrt(2.5) / sqrt(5.0) / 3, 1e-15);
	/* x is not modified */
	assert_near(x[0], 5, 0);
	assert_near(x[4], 3, 0);
}

static void test_summary_even(void **state)
{
	(void)state;
	double x[] = { 10, 2, 8, 4 };
	krl_summary s = krl_summarize(x, 4);
	assert_near(s.median, 6, 0);
	assert_near(s.mean, 6, 1e-15);
	/* deviations -4 -2 2 4: ss = 40, var = 40 / 3 */
	assert_near(s.stdev, sqrt(40.0 / 3), 1e-14);
	assert_near(s.min, 2, 0);
	assert_near(s.max, 10, 0);
}

static void test_summary_small(void **state)
{
	(void)state;
	krl_summary s = krl_summarize(NULL, 0);
	assert_int_equal(s.n, 0);
	assert_true(isinf(s.rse));
	assert_near(s.mean, 0, 0);

	double one = 7.5;
	s = krl_summarize(&one, 1);
	assert_int_equal(s.n, 1);
	assert_near(s.median, 7.5, 0);
	assert_near(s.stdev, 0, 0);
	assert_true(isinf(s.rse) && s.rse > 0);

	double two[] = { 1, 3 };
	s = krl_summarize(two, 2);
	assert_true(isfinite(s.rse));
	assert_near(s.median, 2, 0);
}

static void test_quantile(void **state)
{
	(void)state;
	double x[] = { 40, 10, 30, 20, 50 };
	assert_near(krl_quantile(x, 5, 0), 10, 0);
	assert_near(krl_quantile(x, 5, 1), 50, 0);
	assert_near(krl_quantile(x, 5, 0.5), 30, 0);
	assert_near(krl_quantile(x, 5, 0.25), 20, 1e-12);
	assert_near(krl_quantile(x, 5, 0.1), 14, 1e-12);
	assert_near(krl_quantile(x, 5, 0.9), 46, 1e-12);
	assert_near(x[0], 40, 0);
	assert_true(isnan(krl_quantile(x, 0, 0.5)));
}

/* ==== Paired speedup ==== */

/* With ratios 1..n (shuffled), the interval bounds are the order statistics
 * themselves: ci_low = k, ci_high = n - k + 1. */
static void check_index(int n, int k)
{
	double *ref = malloc((size_t)n * sizeof *ref);
	double *cand = malloc((size_t)n * sizeof *cand);
	assert_non_null(ref);
	assert_non_null(cand);
	krl_rng g = { (unsigned long long)n };
	for (int i = 0; i < n; i++) {
		ref[i] = i + 1;
		cand[i] = 1;
	}
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(krl_rng_next(&g) % (unsigned long long)(i + 1));
		double t = ref[i];
		ref[i] = ref[j];
		ref[j] = t;
	}
	krl_speedup s = krl_speedup_paired(ref, cand, n);
	assert_int_equal(s.n, n);
	assert_near(s.ci_low, k, 0);
	assert_near(s.ci_high, n - k + 1, 0);
	free(ref);
	free(cand);
}

static void test_order_statistic_table(void **state)
{
	(void)state;
	/* Binomial tables: n=10 -> 2, n=20 -> 6, n=100 -> 40. For n = 6..8 the
	 * first qualifying k is 1, i.e. [min, max]. */
	check_index(10, 2);
	check_index(20, 6);
	check_index(100, 40);
	check_index(6, 1);
	check_index(9, 2);
	/* n < 6: [min, max] */
	check_index(5, 1);
	check_index(1, 1);
}

/* Paired samples with a true median ratio of 1.5: ref = 1.5 * cand * e^eps,
 * eps symmetric around 0. */
static void draw_pairs(krl_rng *g, double *ref, double *cand, int n,
                       double sigma)
{
	for (int i = 0; i < n; i++) {
		cand[i] = 10.0 * (1.0 + 0.2 * krl_rng_uniform(g));
		ref[i] = 1.5 * cand[i] * exp(sigma * normal(g));
	}
}

static void test_speedup_contains_truth(void **state)
{
	(void)state;
	enum { N = 50 };
	double ref[N], cand[N];
	krl_rng g = { 42 };
	draw_pairs(&g, ref, cand, N, 0.05);
	krl_speedup s = krl_speedup_paired(ref, cand, N);
	assert_true(s.ci_low <= 1.5 && 1.5 <= s.ci_high);
	assert_true(s.ci_low <= s.median && s.median <= s.ci_high);
	assert_near(s.median, 1.5, 0.05);
	assert_near(s.ratio_of_medians, 1.5, 0.1);
}

static void test_speedup_coverage(void **state)
{
	(void)state;
	enum { N = 30, EXPERIMENTS = 2000 };
	double ref[N], cand[N];
	krl_rng g = { 2024 };
	int covered = 0;
	for (int e = 0; e < EXPERIMENTS; e++) {
		draw_pairs(&g, ref, cand, N, 0.1);
		krl_speedup s = krl_speedup_paired(ref, cand, N);
		covered += s.ci_low <= 1.5 && 1.5 <= s.ci_high;
	}
	double coverage = (double)covered / EXPERIMENTS;
	print_message("coverage over %d experiments (n=%d): %.4f\n",
	              EXPERIMENTS, N, coverage);
	assert_true(coverage >= 0.93);
}

static void test_speedup_narrows(void **state)
{
	(void)state;
	int sizes[] = { 10, 40, 160, 640 };
	double widths[4];
	krl_rng g = { 7 };
	for (int i = 0; i < 4; i++) {
		int n = sizes[i];
		double *ref = malloc((size_t)n * sizeof *ref);
		double *cand = malloc((size_t)n * sizeof *cand);
		assert_non_null(ref);
		assert_non_null(cand);
		/* average over a few repetitions so a lucky draw cannot flip
		 * the order */
		double w = 0;
		for (int rep = 0; rep < 20; rep++) {
			draw_pairs(&g, ref, cand, n, 0.1);
			krl_speedup s = krl_speedup_paired(ref, cand, n);
			w += s.ci_high - s.ci_low;
		}
		widths[i] = w / 20;
		free(ref);
		free(cand);
	}
	for (int i = 1; i < 4; i++)
		assert_true(widths[i] < widths[i - 1]);
}

static void test_speedup_degenerate(void **state)
{
	(void)state;
	krl_speedup s = krl_speedup_paired(NULL, NULL, 0);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.median));

	double ref[] = { 2, 4, 3 }, cand[] = { 1, 1, 1 };
	s = krl_speedup_paired(ref, cand, 3);
	assert_near(s.median, 3, 0);
	assert_near(s.ci_low, 2, 0);
	assert_near(s.ci_high, 4, 0);
	assert_near(s.ratio_of_medians, 3, 0);
	/* [min, max] of 3 ratios covers the median with 1 - 2 / 2^3 */
	assert_near(s.ci_coverage, 0.75, 1e-12);
}

/* The interval's stated coverage is exact: 93.75% at 5 pairs ([min, max]
 * is all there is), at least 95% from 6 on (the judge's floor), and it
 * matches 2 P(Binom(n, 1/2) <= k - 1) for the order statistics chosen. */
static void test_speedup_coverage_stated(void **state)
{
	(void)state;
	double ref[64], cand[64];
	for (int i = 0; i < 64; i++) {
		ref[i] = 1 + 0.01 * i;
		cand[i] = 1;
	}
	krl_speedup s = krl_speedup_paired(ref, cand, 5);
	assert_near(s.ci_coverage, 0.9375, 1e-12);
	s = krl_speedup_paired(ref, cand, 6);
	assert_near(s.ci_coverage, 1 - 2.0 / 64, 1e-12);
	for (int n = 6; n <= 64; n++) {
		s = krl_speedup_paired(ref, cand, n);
		assert_true(s.ci_coverage >= 0.95);
		assert_true(s.ci_coverage < 1);
	}
	/* n = 20: the 6th and 15th ratios, 1 - 2 P(X <= 5) = 0.9586 */
	s = krl_speedup_paired(ref, cand, 20);
	assert_near(s.ci_low, ref[5], 1e-12);
	assert_near(s.ci_high, ref[14], 1e-12);
	assert_near(s.ci_coverage, 1 - 2 * 21700.0 / 1048576.0, 1e-9);
}

/* ==== RNG ==== */

static void test_rng_deterministic(void **state)
{
	(void)state;
	krl_rng a = { 12345 }, b = { 12345 }, c = { 12346 };
	int same_c = 0;
	for (int i = 0; i < 1000; i++) {
		unsigned long long x = krl_rng_next(&a);
		assert_true(x == krl_rng_next(&b));
		same_c += x == krl_rng_next(&c);
	}
	assert_int_equal(same_c, 0);
	/* splitmix64's published first output for seed 0 */
	krl_rng z = { 0 };
	assert_true(krl_rng_next(&z) == 0xe220a8397b1dcdafULL);
}

static void test_rng_uniform(void **state)
{
	(void)state;
	enum { BINS = 10, DRAWS = 100000 };
	int count[BINS] = { 0 };
	krl_rng g = { 99 };
	for (int i = 0; i < DRAWS; i++) {
		double u = krl_rng_uniform(&g);
		assert_true(u >= 0 && u < 1);
		count[(int)(u * BINS)]++;
	}
	double chi2 = 0, expect = (double)DRAWS / BINS;
	for (int i = 0; i < BINS; i++)
		chi2 += (count[i] - expect) * (count[i] - expect) / expect;
	/* 9 degrees of freedom: P(chi2 > 27.9) = 0.001 */
	print_message("chi-square (9 dof): %.2f\n", chi2);
	assert_true(chi2 < 27.9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_odd),
		cmocka_unit_test(test_summary_even),
		cmocka_unit_test(test_summary_small),
		cmocka_unit_test(test_quantile),
		cmocka_unit_test(test_order_statistic_table),
		cmocka_unit_test(test_speedup_contains_truth),
		cmocka_unit_test(test_speedup_coverage),
		cmocka_unit_test(test_speedup_narrows),
		cmocka_unit_test(test_speedup_degenerate),
		cmocka_unit_test(test_speedup_coverage_stated),
		cmocka_unit_test(test_rng_deterministic),
		cmocka_unit_test(test_rng_uniform),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
