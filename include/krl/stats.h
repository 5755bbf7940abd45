/*
 * kernelrl: timing statistics (docs/judge.md).
 *
 * The judge interleaves reference and candidate calls and records one time
 * for each, pair by pair. From the pairs it reports median, mean and min of
 * each side, the relative standard error of each mean, and the speedup
 * (reference time over candidate time) with a 95% confidence interval.
 */
#ifndef KRL_STATS_H
#define KRL_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct krl_summary {
	int n;
	double median, mean, min, max, stdev;
	double rse;          /* stdev / sqrt(n) / mean; INFINITY when n < 2 */
} krl_summary;

/* Summarises x[0..n). n may be 0 (all fields 0, rse INFINITY). x is not
 * modified. */
krl_summary krl_summarize(const double *x, int n);

typedef struct krl_speedup {
	int n;
	double median;       /* median over pairs of ref[i] / cand[i] */
	double ci_low;       /* 95% distribution-free confidence interval of */
	double ci_high;      /*   that median (order statistics of the ratios) */
	double ratio_of_medians; /* median(ref) / median(cand) */
	double ci_coverage;  /* the interval's exact coverage (>= 0.95 from
	                      * n = 6 on; 1 - 2^(1-n) below) */
} krl_speedup;

/*
 * Speedup from paired samples. The interval is the exact binomial
 * order-statistic interval for the median of the per-pair ratios (coverage
 * >= 95%); with fewer than 6 pairs it is [min, max] of the ratios, whose
 * coverage is only 1 - 2^(1-n) (93.75% at 5): ci_coverage says which (the
 * judge times at least 6 pairs).
 */
krl_speedup krl_speedup_paired(const double *ref, const double *cand, int n);

/* The q-quantile (0..1) of x[0..n) by linear interpolation; x unchanged. */
double krl_quantile(const double *x, int n, double q);

/* Deterministic PRNG for the judge's own choices (which timed calls to
 * verify, call order, seeds): splitmix64. */
typedef struct krl_rng {
	unsigned long long s;
} krl_rng;
unsigned long long krl_rng_next(krl_rng *r);
double krl_rng_uniform(krl_rng *r); /* [0, 1) */

#ifdef __cplusplus
}
#endif
#endif
