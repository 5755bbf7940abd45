/*
 * Exemplar selection for the contrastive prompt (include/krl/rl.h,
 * docs/rl.md): CUDA-L1's score-bucketed sampling with a temperature.
 *
 * The scores (best speedups) are cut into nbuckets equal-width buckets
 * between their minimum and maximum. Buckets are drawn without replacement
 * with softmax weights over their mean scores, so the prompt usually shows
 * a fast exemplar next to a slower one of a different bucket: a contrast
 * the policy can learn from. One candidate is drawn uniformly from each
 * drawn bucket.
 */
#include <math.h>
#include <stdlib.h>

#include "krl/rl.h"

/* ==== Options ==== */

typedef struct sel_opts {
	int nbuckets;
	double tau;
	int n;
} sel_opts;

/* The options with the header's defaults applied for zero (or NULL). */
static sel_opts resolve(const krl_exemplar_opts *o)
{
	sel_opts r = { 4, 1.0, 2 };
	if (o && o->nbuckets > 0)
		r.nbuckets = o->nbuckets;
	if (o && o->tau > 0)
		r.tau = o->tau;
	if (o && o->n > 0)
		r.n = o->n;
	return r;
}

/* ==== Buckets ==== */

/*
 * Assigns each finite score a bucket in bucket_of[i] (-1 for a non-finite
 * score, which is never picked) and fills count[b] and mean[b] for
 * b < nbuckets. Bucket b holds scores in [min + b*w, min + (b+1)*w), the
 * last one closed at max, with w = (max - min) / nbuckets. When all
 * finite scores are equal, everything is in bucket 0 and the function
 * returns 1; otherwise it returns nbuckets (0 when there is no finite
 * score). *mean_all is the mean of all finite scores.
 */
static int bucketize(const double *scores, int n_scores, int nbuckets,
                     int *bucket_of, int *count, double *mean,
                     double *mean_all)
{
	double lo = INFINITY, hi = -INFINITY, sum = 0;
	int nfinite = 0;
	for (int i = 0; i < n_scores; i++) {
		if (!isfinite(scores[i]))
			continue;
		lo = fmin(lo, scores[i]);
		hi = fmax(hi, scores[i]);
		sum += scores[i];
		nfinite++;
	}
	for (int b = 0; b < nbuckets; b++) {
		count[b] = 0;
		mean[b] = 0;
	}
	*mean_all = nfinite ? sum / nfinite : 0;
	if (!nfinite) {
		for (int i = 0; i < n_scores; i++)
			bucket_of[i] = -1;
		return 0;
	}
	int nb = hi > lo ? nbuckets : 1;
	for (int i = 0; i < n_scores; i++) {
		if (!isfinite(scores[i])) {
			bucket_of[i] = -1;
			continue;
		}
		int b = 0;
		if (nb > 1) {
			b = (int)floor((scores[i] - lo) / (hi - lo) * nb);
			if (b >= nb)
				b = nb - 1; /* the maximum itself */
			if (b < 0)
				b = 0;
		}
		bucket_of[i] = b;
		count[b]++;
		mean[b] += scores[i];
	}
	for (int b = 0; b < nb; b++)
		if (count[b])
			mean[b] /= count[b];
	return nb;
}

/*
 * Softmax weights exp((mean_b - mean_all) / tau) of the non-empty buckets
 * not yet taken (0 for the others), computed relative to the largest
 * exponent so that a small tau cannot overflow. Returns the sum.
 */
static double weights(int nb, const int *count, const double *mean,
                      const unsigned char *taken, double mean_all, double tau,
                      double *w)
{
	double top = -INFINITY;
	for (int b = 0; b < nb; b++)
		if (count[b] && !taken[b])
			top = fmax(top, (mean[b] - mean_all) / tau);
	double sum = 0;
	for (int b = 0; b < nb; b++) {
		w[b] = 0;
		if (count[b] && !taken[b])
			w[b] = exp((mean[b] - mean_all) / tau - top);
		sum += w[b];
	}
	return sum;
}

/* ==== Public ==== */

/* Both functions need a little scratch memory; out of memory, they return 0
 * (nothing picked, all probabilities 0). */

int krl_exemplar_bucket_probs(const double *scores, int n_scores,
                              const krl_exemplar_opts *o, double *p)
{
	sel_opts so = resolve(o);
	int *bucket_of = malloc(sizeof *bucket_of * (size_t)(n_scores > 0 ? n_scores : 1));
	int *count = malloc(sizeof *count * (size_t)so.nbuckets);
	double *mean = malloc(sizeof *mean * (size_t)so.nbuckets);
	unsigned char *taken = calloc((size_t)so.nbuckets, 1);
	int nb = 0;
	for (int b = 0; b < so.nbuckets; b++)
		p[b] = 0;
	if (!bucket_of || !count || !mean || !taken)
		goto out;
	double mean_all;
	nb = bucketize(scores, n_scores, so.nbuckets, bucket_of, count, mean,
	               &mean_all);
	double sum = weights(nb, count, mean, taken, mean_all, so.tau, p);
	for (int b = 0; b < nb; b++)
		p[b] = sum > 0 ? p[b] / sum : 0;
out:
	free(bucket_of);
	free(count);
	free(mean);
	free(taken);
	return nb;
}

int krl_exemplar_select(const double *scores, int n_scores,
                        const krl_exemplar_opts *o, krl_rng *rng, int *picked)
{
	sel_opts so = resolve(o);
	int npicked = 0;
	int *bucket_of = malloc(sizeof *bucket_of * (size_t)(n_scores > 0 ? n_scores : 1));
	int *count = malloc(sizeof *count * (size_t)so.nbuckets);
	double *mean = malloc(sizeof *mean * (size_t)so.nbuckets);
	double *w = malloc(sizeof *w * (size_t)so.nbuckets);
	unsigned char *taken = calloc((size_t)so.nbuckets, 1);
	if (!bucket_of || !count || !mean || !w || !taken)
		goto out;
	double mean_all;
	int nb = bucketize(scores, n_scores, so.nbuckets, bucket_of, count,
	                   mean, &mean_all);
	while (npicked < so.n) {
		double sum = weights(nb, count, mean, taken, mean_all, so.tau, w);
		if (!(sum > 0))
			break; /* every non-empty bucket is drawn */
		/* The bucket: inverse CDF of the weights. */
		double u = krl_rng_uniform(rng) * sum, acc = 0;
		int bucket = -1;
		for (int b = 0; b < nb; b++) {
			if (!w[b])
				continue;
			bucket = b; /* the last eligible one absorbs rounding */
			acc += w[b];
			if (u < acc)
				break;
		}
		taken[bucket] = 1;
		/* The member: uniform among the bucket's candidates. */
		int k = (int)(krl_rng_uniform(rng) * count[bucket]);
		for (int i = 0; i < n_scores; i++)
			if (bucket_of[i] == bucket && k-- == 0) {
				picked[npicked++] = i;
				break;
			}
	}
out:
	free(bucket_of);
	free(count);
	free(mean);
	free(w);
	free(taken);
	return npicked;
}
