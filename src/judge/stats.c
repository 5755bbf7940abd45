/*
 * Timing statistics for the judge (include/krl/stats.h, docs/judge.md):
 * sample summaries, quantiles, the paired speedup with its distribution-free
 * confidence interval, and the judge's own generator (krl_rng: splitmix64,
 * src/util/rng.h).
 *
 * Nothing here allocates except scratch copies for sorting; nothing keeps
 * state between calls, so every function is thread-safe.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "krl/stats.h"
#include "util/rng.h"

/* ==== Sorting helpers ==== */

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

/* Returns a sorted malloc'd copy of x[0..n) (caller frees), NULL on OOM. */
static double *sorted_copy(const double *x, int n)
{
	double *s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
	if (!s)
		return NULL;
	if (n > 0)
		memcpy(s, x, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	return s;
}

/* Median of sorted s[0..n), n >= 1. */
static double median_sorted(const double *s, int n)
{
	if (n % 2)
		return s[n / 2];
	return 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* Type-7 quantile (linear interpolation between order statistics) of sorted
 * s[0..n), n >= 1. */
static double quantile_sorted(const double *s, int n, double q)
{
	if (q <= 0)
		return s[0];
	if (q >= 1)
		return s[n - 1];
	double h = q * (n - 1);
	int lo = (int)floor(h);
	if (lo >= n - 1)
		return s[n - 1];
	double f = h - lo;
	return s[lo] + f * (s[lo + 1] - s[lo]);
}

/* ==== Summaries ==== */

krl_summary krl_summarize(const double *x, int n)
{
	krl_summary r = { .n = n > 0 ? n : 0, .rse = INFINITY };
	if (n <= 0 || !x)
		return r;

	double sum = 0, mn = x[0], mx = x[0];
	for (int i = 0; i < n; i++) {
		sum += x[i];
		mn = x[i] < mn ? x[i] : mn;
		mx = x[i] > mx ? x[i] : mx;
	}
	r.mean = sum / n;
	r.min = mn;
	r.max = mx;

	/* Two-pass variance: the samples are times of similar size, but the
	 * one-pass formula loses digits when stdev << mean. */
	double ss = 0;
	for (int i = 0; i < n; i++)
		ss += (x[i] - r.mean) * (x[i] - r.mean);
	r.stdev = n > 1 ? sqrt(ss / (n - 1)) : 0;
	if (n >= 2 && r.mean != 0)
		r.rse = r.stdev / sqrt((double)n) / fabs(r.mean);

	double *s = sorted_copy(x, n);
	if (s) {
		r.median = median_sorted(s, n);
		free(s);
	} else {
		r.median = NAN; /* OOM: say so rather than guess */
	}
	return r;
}

double krl_quantile(const double *x, int n, double q)
{
	if (n <= 0 || !x || isnan(q))
		return NAN;
	double *s = sorted_copy(x, n);
	if (!s)
		return NAN;
	double v = quantile_sorted(s, n, q);
	free(s);
	return v;
}

/* ==== Paired speedup ==== */

/*
 * The order-statistic index k (1-based) of the exact binomial 95% interval
 * for a median: the largest k with P(Binom(n, 1/2) <= k - 1) <= 0.025, so
 * that [x_(k), x_(n-k+1)] covers the median with probability >= 95%. Returns
 * 0 when no k qualifies (n < 6). The pmf is built in log space so that n in
 * the millions neither underflows nor overflows.
 */
static int median_ci_index(int n)
{
	double logp = -n * log(2.0); /* log P(X = 0) */
	double cdf = 0;
	int k = 0;
	for (int j = 0; j < n; j++) {
		cdf += exp(logp); /* cdf = P(X <= j) */
		if (cdf > 0.025)
			break;
		k = j + 1;
		logp += log((double)(n - j)) - log((double)(j + 1));
	}
	return k;
}

krl_speedup krl_speedup_paired(const double *ref, const double *cand, int n)
{
	krl_speedup r = { .n = n > 0 ? n : 0, .median = NAN, .ci_low = NAN,
	                  .ci_high = NAN, .ratio_of_medians = NAN,
	                  .ci_coverage = NAN };
	if (n <= 0 || !ref || !cand)
		return r;

	double *ratio = malloc((size_t)n * sizeof *ratio);
	if (!ratio)
		return r;
	for (int i = 0; i < n; i++)
		ratio[i] = ref[i] / cand[i];
	qsort(ratio, (size_t)n, sizeof *ratio, cmp_double);
	r.median = median_sorted(ratio, n);

	int k = n < 6 ? 0 : median_ci_index(n);
	if (k < 1) {
		r.ci_low = ratio[0];
		r.ci_high = ratio[n - 1];
		k = 1;
	} else {
		r.ci_low = ratio[k - 1];
		r.ci_high = ratio[n - k];
	}
	/* [x_(k), x_(n-k+1)] misses the median when fewer than k ratios lie
	 * below it, or fewer than k above: 2 P(Binom(n, 1/2) <= k - 1). */
	{
		double logp = -n * log(2.0), tail = 0;
		for (int j = 0; j < k; j++) {
			tail += exp(logp);
			logp += log((double)(n - j)) - log((double)(j + 1));
		}
		r.ci_coverage = 1 - 2 * tail;
	}
	free(ratio);

	double *s = sorted_copy(ref, n);
	double *t = sorted_copy(cand, n);
	if (s && t)
		r.ratio_of_medians = median_sorted(s, n) / median_sorted(t, n);
	free(s);
	free(t);
	return r;
}

/* ==== The generator ==== */

unsigned long long krl_rng_next(krl_rng *r)
{
	uint64_t s = r->s;
	uint64_t v = krl_splitmix64_next(&s);
	r->s = s;
	return v;
}

double krl_rng_uniform(krl_rng *r)
{
	return krl_u01(krl_rng_next(r));
}
