/*
 * kernelrl: the builtin policy (docs/optimizer.md, section 4): a
 * log-linear model over the decisions a task offers (include/krl/opt.h).
 * For decision k and its option j,
 *
 *     logit[k][j] = w[name_k, opt_j, "bias"] + sum_f w[name_k, opt_j, f] * x_f
 *
 * with x the task's features (krl_opt_features), and
 * P(option j of decision k) = softmax over j of logit[k][j]. Weights are
 * keyed by strings (decision name, option name, feature name), so what is
 * learned on one task applies to every task that offers the same decision;
 * a missing weight is 0, so an empty policy chooses uniformly.
 *
 * The weights file (policy/builtin.weights) is text: a header line
 * "krl-builtin-weights 1" (the format version), '#' comments, blank lines,
 * and one "decision option feature weight" line per non-zero weight, sorted.
 *
 * Every draw takes a krl_rng: the same state gives the same draws.
 * Ownership: krl_policy_create/parse/load return a policy the caller frees
 * with krl_policy_free (freeing NULL is a no-op).
 */
#ifndef KRL_POLICY_H
#define KRL_POLICY_H

#include <stdint.h>

#include "krl/error.h"
#include "krl/opt.h"
#include "krl/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KRL_WEIGHTS_VERSION 1

/* A task's features as the policy reads them. Names are borrowed (they
 * live as long as the krl_opt or test that made them). A feature named
 * "bias" is ignored: the bias term is always there, with value 1. */
typedef struct krl_features {
	int n;
	const char *name[KRL_MAX_FEATURES];
	double val[KRL_MAX_FEATURES];
} krl_features;

typedef struct krl_policy krl_policy;

/* An empty policy (every weight 0: uniform choice). */
krl_err krl_policy_create(krl_policy **out);
void krl_policy_free(krl_policy *p);

/* Parses a weights file's text; path is used in messages ("path:line:col:
 * what was expected") and must outlive d. KRL_ESYNTAX on a malformed
 * file. */
krl_err krl_policy_parse(const char *path, const char *text, krl_policy **out,
                         krl_diag *d);
/* Reads and parses the weights file at path. */
krl_err krl_policy_load(const char *path, krl_policy **out, krl_diag *d);
/* Writes the non-zero weights, sorted, to path (through a temporary file
 * renamed over it, so a kill never leaves half a file). */
krl_err krl_policy_save(const krl_policy *p, const char *path, krl_diag *d);

/* The shipped weights: $KRL_WEIGHTS, else policy/builtin.weights under
 * the current folder when it exists, else the source tree's. Static
 * storage. */
const char *krl_policy_default_path(void);

/* Uniform mode: every option of a decision equally likely whatever the
 * weights, and krl_policy_update changes nothing (the baseline the trained
 * policy is compared with). */
void krl_policy_set_uniform(krl_policy *p, int on);
int krl_policy_is_uniform(const krl_policy *p);

/* One weight (0 when absent), and setting one (0 removes it). Names
 * longer than 63 characters or containing white space are KRL_EINVAL. */
double krl_policy_weight(const krl_policy *p, const char *decision,
                         const char *option, const char *feature);
krl_err krl_policy_set_weight(krl_policy *p, const char *decision,
                              const char *option, const char *feature,
                              double w);
/* Number of non-zero weights. */
int krl_policy_size(const krl_policy *p);
/* Adds to p what learning changed from `before` to `after`: for every
 * weight either holds, p += after - before (a weight that ends at 0 is
 * absent). krl train's parallel batches (docs/optimizer.md section 5)
 * apply each search's change to the batch's common start, in the tasks'
 * order, so the result does not depend on which search finished first.
 * KRL_ENOMEM is the only failure; p may then hold part of the change. */
krl_err krl_policy_add_change(krl_policy *p, const krl_policy *after,
                              const krl_policy *before);
/* A fingerprint of the weights (and the mode): 16 hex digits, equal for
 * equal policies; runs record it so that a resume uses the same one. */
void krl_policy_fingerprint(const krl_policy *p, char out[17]);

/* P(option j) of decision k for j < nopt, written to probs. */
void krl_policy_probs(const krl_policy *p, const krl_space *s,
                      const krl_features *x, int k, double *probs);

/* The policy's mode: every decision's likeliest option (the lowest index
 * among equals: option 0 under uniform mode or empty weights). */
void krl_policy_mode(const krl_policy *p, const krl_space *s,
                     const krl_features *x, krl_choice *out);

/* Draws every decision from the policy. */
void krl_policy_sample(const krl_policy *p, const krl_space *s,
                       const krl_features *x, krl_rng *rng, krl_choice *out);

/* Copies base and redraws m of its decisions, chosen uniformly among those
 * with two or more options (all of them when fewer); the others are kept.
 * A redrawn decision may land on the option it had. *mask gets bit k set
 * for each redrawn decision k; returns how many were redrawn. */
int krl_policy_mutate(const krl_policy *p, const krl_space *s,
                      const krl_features *x, const krl_choice *base, int m,
                      krl_rng *rng, krl_choice *out, uint32_t *mask);

/*
 * The policy-gradient step of one group of n proposals: for member i,
 * each decision k in mask[i] and each option j,
 *
 *     dw[k, j, f] += lr * adv[i] * (1[j == choice[i].opt[k]] - P(j)) * x_f
 *                    / (1 + sum over features g of x_g^2)
 *
 * (f running over "bias", with x = 1, and the features), all with the
 * probabilities of the weights before the step. The divisor (normalised
 * least mean squares) makes the step's effect on a logit, lr * adv * (1[j
 * == c] - P(j)), independent of the features' scale. When the L2 norm of dw
 * exceeds max_norm (> 0) it is scaled down to max_norm. *norm (may be
 * NULL) gets the norm before clipping. Uniform mode: no change.
 * KRL_ENOMEM is the only failure; the weights are then unchanged.
 */
krl_err krl_policy_update(krl_policy *p, const krl_space *s,
                          const krl_features *x, int n,
                          const krl_choice *choice, const uint32_t *mask,
                          const double *adv, double lr, double max_norm,
                          double *norm);

#ifdef __cplusplus
}
#endif
#endif
