/*
 * Rewards from verdicts (include/krl/rl.h, docs/rl.md): the raw reward is
 * the speedup minus one (parity is 0) or a fixed penalty for any failure;
 * the rolling normaliser standardises it over a window of recent rewards
 * and clips it, which is CUDA-L1's smoothing against a few huge speedups
 * (or reward hacks that slipped through) dominating the updates.
 */
#include <math.h>
#include <stdlib.h>

#include "krl/error.h"
#include "krl/rl.h"

/* Zero (or a NULL o) means the default for every field; a failure penalty
 * of exactly 0 would make failing as good as parity, so 0 is not a useful
 * value to ask for. */
static double penalty(const krl_reward_opts *o)
{
	return o && o->fail_penalty != 0 ? o->fail_penalty : -1.0;
}

double krl_reward_raw(int ok, double speedup, const krl_reward_opts *o)
{
	/* An "ok" without a finite positive speedup is a record we cannot
	 * trust: it earns the failure penalty, never a reward. */
	if (!ok || !isfinite(speedup) || !(speedup > 0))
		return penalty(o);
	return speedup - 1.0;
}

/* Allocates the window. Returns 0, or KRL_ENOMEM (z is then unusable but
 * may be freed). */
int krl_reward_norm_init(krl_reward_norm *z, const krl_reward_opts *o)
{
	z->cap = o && o->window > 0 ? o->window : 256;
	z->clip = o && o->clip > 0 ? o->clip : 3.0;
	z->n = 0;
	z->head = 0;
	z->buf = malloc(sizeof *z->buf * (size_t)z->cap);
	return z->buf ? KRL_OK : KRL_ENOMEM;
}

/*
 * Adds raw to the window (dropping the oldest value once cap are held)
 * and returns (raw - mean) / std over the window, clipped to +-clip. std
 * is the population standard deviation; when it is 0 (one value, or all
 * equal) the result is 0: a reward no different from its peers carries
 * no signal. A non-finite raw (krl_reward_raw never returns one) is not
 * stored and yields -clip.
 */
double krl_reward_norm_push(krl_reward_norm *z, double raw)
{
	if (!isfinite(raw))
		return -z->clip;
	z->buf[z->head] = raw;
	z->head = (z->head + 1) % z->cap;
	if (z->n < z->cap)
		z->n++;
	double mean = 0, ss = 0;
	for (int i = 0; i < z->n; i++)
		mean += z->buf[i];
	mean /= z->n;
	for (int i = 0; i < z->n; i++)
		ss += (z->buf[i] - mean) * (z->buf[i] - mean);
	double sd = sqrt(ss / z->n);
	if (!(sd > 1e-12 * fmax(1.0, fabs(mean))))
		return 0;
	double v = (raw - mean) / sd;
	return fmax(-z->clip, fmin(z->clip, v));
}

/* Frees the window; z may be zeroed or already freed. */
void krl_reward_norm_free(krl_reward_norm *z)
{
	if (!z)
		return;
	free(z->buf);
	z->buf = NULL;
	z->n = z->head = 0;
}
