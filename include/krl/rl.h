/*
 * kernelrl: the contrastive-RL arithmetic (docs/rl.md): exemplar selection
 * as in the CUDA-L1 paper, rewards from speedups with the paper's
 * smoothing, and group-relative advantages (GRPO). Pure functions: no GPU,
 * no I/O.
 */
#ifndef KRL_RL_H
#define KRL_RL_H

#include "krl/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct krl_exemplar_opts {
	int nbuckets;            /* score buckets (equal-width over the scores); 0: 4 */
	double tau;              /* temperature; 0: 1.0 */
	int n;                   /* distinct buckets (and exemplars) to pick; 0: 2 */
} krl_exemplar_opts;

/*
 * Picks exemplars from n_scores scored candidates: candidates are put in
 * nbuckets score buckets; a bucket b is drawn with probability proportional
 * to exp((mean_b - mean_all) / tau) among the non-empty buckets not drawn
 * yet, until o->n distinct buckets (or all non-empty ones) are drawn; one
 * candidate is drawn uniformly from each. Writes the chosen indices to
 * picked (capacity o->n) and returns how many. Deterministic for a given
 * rng state.
 */
int krl_exemplar_select(const double *scores, int n_scores,
                        const krl_exemplar_opts *o, krl_rng *rng, int *picked);

/* The probability of each bucket being drawn first (for tests and
 * reports): writes nbuckets values into p; returns the number of buckets. */
int krl_exemplar_bucket_probs(const double *scores, int n_scores,
                              const krl_exemplar_opts *o, double *p);

typedef struct krl_reward_opts {
	double fail_penalty;     /* raw reward of any non-ok verdict; default -1 */
	double clip;             /* normalised rewards clipped to +-clip; 0: 3 */
	int window;              /* rolling window of the normaliser; 0: 256 */
} krl_reward_opts;

/* The raw reward: speedup - 1 for ok (so parity is 0), fail_penalty for
 * everything else. */
double krl_reward_raw(int ok, double speedup, const krl_reward_opts *o);

/* Rolling normaliser: (r - mean) / std over the last `window` raw rewards
 * (including r), clipped to +-clip; the paper's smoothing. */
typedef struct krl_reward_norm {
	double *buf;
	int cap, n, head;
	double clip;
} krl_reward_norm;

int krl_reward_norm_init(krl_reward_norm *z, const krl_reward_opts *o);
double krl_reward_norm_push(krl_reward_norm *z, double raw);
void krl_reward_norm_free(krl_reward_norm *z);

/* GRPO: adv[i] = (r[i] - mean(r)) / (std(r) + 1e-6) over one group of g
 * proposals made from the same prompt; all zeros when g < 2. */
void krl_grpo_advantages(const double *rewards, int g, double *adv);

#ifdef __cplusplus
}
#endif
#endif
