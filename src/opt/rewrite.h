/*
 * kernelrl: what the rewrite rules' files share (rewrite.c, the rebuild
 * and the local rules; rewrite_rnn.c, the recurrence rule). Private to
 * src/opt/.
 */
#ifndef KRL_OPT_REWRITE_H
#define KRL_OPT_REWRITE_H

#include "opt/opt_int.h"

/* One rebuild (rewrite.c, krl_rule_apply): the old graph's nodes copied
 * in order into g, each looked at by the rule first. */
typedef struct rw {
	const krl_graph *old;
	krl_graph *g;            /* the graph being built */
	int *map;                /* old node -> new node */
	int applied;
	int cur;                 /* the old node the rule is looking at */
	void *state;             /* a rule's own, freed by krl_rule_apply
	                            with free() */
	krl_diag *d;
} rw;

/* KRL_ENOMEM with the sentence every rule uses. */
static inline krl_err krl_rw_oom(rw *R)
{
	krl_pos pos = { R->old->task ? R->old->task->path : NULL, 0, 0 };
	return krl_diag_set(R->d, KRL_ENOMEM, pos, "out of memory");
}

/* The value of node n's attribute key in the set lowered (NAN when
 * absent or not a number), and its text (caller frees; NULL when absent
 * or out of memory). */
double krl_rw_attr_val(const krl_gnode *n, const char *key, char **text);

/* Node i of the graph being built is a scalar CONST (of literal value
 * want when want is not NaN). */
int krl_rw_is_const(const rw *R, int i, double want);
/* The same dtype and dims, by value and by text. */
int krl_rw_same_type(const krl_gnode *a, const krl_gnode *b);
/* The same attributes, in order: keys, values and texts. */
int krl_rw_same_attrs(const krl_gnode *a, const krl_gnode *b);
/* The old-graph node the rebuild mapped to new node i, or -1. */
int krl_rw_old_of(const rw *R, int i);
/* New node i is read by exactly one node and is no task output. */
int krl_rw_one_reader(const rw *R, int i);
/* New node n as "x * c" or "x / c" with c a scalar CONST (x not one):
 * sets *x, *c, *div. */
int krl_rw_scaled(const rw *R, const krl_gnode *n, int *x, int *c, int *div);
/* The recurrence rule (rewrite_rnn.c), in two rebuilds: first every
 * unrolled Elman recurrence becomes one rnn_tanh call whose output's
 * slices stand for the steps' states; then (krl_rule_batch_linear) each
 * `cat` of linears over consecutive slices of one tensor, with one
 * weight and bias, becomes one linear over the slices' union. */
krl_err krl_rule_recurrence(rw *R, const krl_gnode *n, int *out);
krl_err krl_rule_batch_linear(rw *R, const krl_gnode *n, int *out);
/* The attention rule (rewrite_attn.c): two GEMMs around a softmax or a
 * ReLU of scaled, causally masked scores as one sdpa call. */
krl_err krl_rule_attention(rw *R, const krl_gnode *n, int *out);
/* The cat_reduce rule (rewrite_cat.c): a reduction over a pointwise tree
 * of cats split alike along a dim it keeps as the cat of the parts'
 * reductions, each an earlier identical node where there is one. */
krl_err krl_rule_cat_reduce(rw *R, const krl_gnode *n, int *out);
/* The conv_merge rule (rewrite_merge.c): convolutions of one x with the
 * same attributes as one over their weights joined along dim 0, each a
 * narrow of its output channels. */
krl_err krl_rule_conv_merge(rw *R, const krl_gnode *n, int *out);

#endif
