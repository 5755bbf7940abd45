/*
 * Group-relative advantages (GRPO, include/krl/rl.h, docs/rl.md): the g
 * proposals made from one prompt are scored against each other, so the
 * policy is pushed towards what beat its siblings, whatever the task's
 * difficulty.
 */
#include <math.h>

#include "krl/rl.h"

/* adv[i] = (r[i] - mean) / (std + 1e-6), std the population standard
 * deviation of the group; zeros for g < 2. Can't fail. */
void krl_grpo_advantages(const double *rewards, int g, double *adv)
{
	if (g < 2) {
		for (int i = 0; i < g; i++)
			adv[i] = 0;
		return;
	}
	double mean = 0, ss = 0;
	for (int i = 0; i < g; i++)
		mean += rewards[i];
	mean /= g;
	for (int i = 0; i < g; i++)
		ss += (rewards[i] - mean) * (rewards[i] - mean);
	double sd = sqrt(ss / g);
	for (int i = 0; i < g; i++)
		adv[i] = (rewards[i] - mean) / (sd + 1e-6);
}
