/*
 * The program optimizer (include/krl/opt.h) as the builtin search's
 * generator (include/krl/optimize.h): its space, its task features and its
 * candidate writer. Kept apart from the search so that the search's CPU
 * tests can drive it with a stand-in space alone.
 */
#include "krl/optimize.h"

static krl_err opt_generate(void *ctx, const krl_choice *c, char **text,
                            char **what, krl_diag *d)
{
	return krl_opt_generate((const krl_opt *)ctx, c, text, what, d);
}

krl_generator krl_opt_generator(const krl_opt *o)
{
	krl_generator g = {.ctx = (void *)o, .space = krl_opt_space(o),
	                   .generate = opt_generate, .name = "opt"};
	g.features.n = krl_opt_features(o, g.features.name, g.features.val,
	                                KRL_MAX_FEATURES);
	if (g.features.n < 0)
		g.features.n = 0;
	if (g.features.n > KRL_MAX_FEATURES)
		g.features.n = KRL_MAX_FEATURES;
	return g;
}
