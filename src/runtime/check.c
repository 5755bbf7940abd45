/*
 * Host side of the judge's drawing (include/krl/check.h): krl_draw_value
 * computes, without a GPU, exactly the value krl_fill_random's kernel
 * stores, from the same code (src/runtime/rng.h).
 */
#include "krl/check.h"
#include "rng.h"

double krl_draw_value(krl_dist dist, krl_dtype t, uint64_t seed,
                      int64_t index)
{
	if (dist.kind < KRL_DIST_NORMAL || dist.kind > KRL_DIST_LAST)
		return 0.0;
	return krl_as_dtype(t, krl_draw_raw(dist, seed, index));
}

double krl_stress_host(krl_dtype t, int kind, double v, uint64_t seed,
                       int64_t i, int64_t n, double x)
{
	return krl_stress_value(t, kind, v, seed, i, n, x);
}
