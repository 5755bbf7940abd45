/*
 * The cat_reduce rule (include/krl/opt.h KRL_RULE_CAT_REDUCE,
 * docs/optimizer.md section 2): a reduction over axes that leave out the
 * dim a `cat` joins its parts along is the cat of the parts' reductions,
 *
 *   reduce(f(cat(a_0, ..., a_k), cat(b_0, ..., b_k), c))
 *     = cat(reduce(f(a_0, b_0, c)), ..., reduce(f(a_k, b_k, c)))
 *
 * for a tree f of pointwise nodes whose leaves are cats split alike along
 * that dim (the same number of parts, each of the same extent) or nodes
 * broadcast along it (an extent of the literal 1, or no such dim). Each
 * output element is the same reduction of the same values.
 *
 * The point is what the parts' reductions are: the rebuild makes a part's
 * node the earlier node identical to it when there is one (same kind, op,
 * inputs, axes, dims; constants by their text), so that a reduction over
 * a part an earlier reduction already read is that reduction. DenseNet's
 * dense block (level 3's 14, 15, 16) takes training-mode batch-norm
 * statistics of cat(x, f_1, ..., f_j) in layer j; every part but the
 * newest had its statistics taken by the layer before. Its per-row means
 * and squared deviations (the lowering's chan_mean_var) and their sums
 * over the batch are all such reductions, each rewritten in turn (the
 * rebuild composes them along the chain), so layer j reads only f_j for
 * its statistics, where it read every part.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt/opt_int.h"
#include "opt/rewrite.h"

/* How deep a pointwise tree the rule looks through. */
#define CR_DEPTH 12

/* The split the cats of a tree share: the dim of the reduction's input
 * they join along and their parts' extents (texts of the first cat). */
typedef struct crsplit {
	int dim;                 /* in the reduction input's rank; -1: none yet */
	int nparts;
	const krl_gnode *first;  /* the first cat found */
	int fdim;                /* its own cat dim */
} crsplit;

static const krl_gnode *NN(const rw *R, int i)
{
	return &R->g->n[i];
}

/* Node i of the new graph as a cat: its literal dim (non-negative), or -1. */
static int cat_dim(const rw *R, int i)
{
	const krl_gnode *x = NN(R, i);
	if (x->kind != KRL_GN_LIB || strcmp(x->op, "cat") || x->nout != 1 ||
	    x->nin < 2)
		return -1;
	/* a literal: the same dim in every shape set */
	return krl_gnode_dim_attr(x);
}

/* Whether dim text z is the literal 1 (spaces and outer parentheses
 * aside, as cg_dim_one). */
static int one_text(const char *z)
{
	char t[512];
	krl_dim_text_norm(z, t, sizeof t);
	return !strcmp(t, "1");
}

/* Whether cat node i (of cat dim cd) splits like s along dim d of the
 * rank-r input: its dim at d is its cat dim, with the same part extents
 * (by text) as the first. */
static int same_split(const rw *R, int i, int cd, int d, int r,
                      const crsplit *s)
{
	const krl_gnode *x = NN(R, i), *f = s->first;
	if (cd + (r - x->ndim) != d || x->nin != s->nparts)
		return 0;
	for (int k = 0; k < x->nin; k++) {
		const krl_gnode *a = NN(R, x->in[k]), *b = NN(R, f->in[k]);
		if (a->ndim != x->ndim || b->ndim != f->ndim ||
		    !krl_graph_text_same(R->g, a->dim[cd].text,
		                         b->dim[s->fdim].text))
			return 0;
	}
	return 1;
}

/* Whether the tree of node i (rank-r input, reduced axes [lo, hi)) has
 * only cats split alike along a dim outside [lo, hi), broadcast leaves
 * and pointwise nodes; s collects the split. */
static int tree_ok(const rw *R, int i, int r, int lo, int hi, crsplit *s,
                   int depth)
{
	const krl_gnode *x = NN(R, i);
	if (depth > CR_DEPTH || x->ndim > r)
		return 0;
	int cd = cat_dim(R, i);
	if (cd >= 0 && x->dtype == KRL_F32) {
		int d = cd + (r - x->ndim);
		if (s->dim < 0) {
			if (d >= lo && d < hi)
				return 0;
			s->dim = d;
			s->nparts = x->nin;
			s->first = x;
			s->fdim = cd;
			return 1;
		}
		if (same_split(R, i, cd, s->dim, r, s))
			return 1;
	}
	if (x->kind == KRL_GN_PW) {
		for (int q = 0; q < x->nin; q++)
			if (!tree_ok(R, x->in[q], r, lo, hi, s, depth + 1))
				return 0;
		return 1;
	}
	/* a leaf: broadcast along the split's dim (checked again once the
	 * split is known: crpart) */
	return 1;
}

/* Whether leaf i is broadcast along dim d of the rank-r input. */
static int bcast_along(const rw *R, int i, int d, int r)
{
	const krl_gnode *x = NN(R, i);
	int j = d - (r - x->ndim);
	return j < 0 || one_text(x->dim[j].text);
}

/* Two nodes of the new graph that hold the same values: the same node,
 * or CONSTs of one text. */
static int same_value(const rw *R, int a, int b)
{
	if (a == b)
		return 1;
	const krl_gnode *x = NN(R, a), *y = NN(R, b);
	return x->kind == KRL_GN_CONST && y->kind == KRL_GN_CONST &&
	       x->cexpr && y->cexpr && !strcmp(x->cexpr, y->cexpr) &&
	       x->dtype == y->dtype && x->ndim == 0 && y->ndim == 0;
}

/* An earlier node of the new graph identical to pointwise or reduce node
 * c (not yet added), or -1. */
static int find_same(const rw *R, const krl_gnode *c)
{
	for (int j = 0; j < R->g->nn; j++) {
		const krl_gnode *y = NN(R, j);
		if (y->kind != c->kind || y->nin != c->nin ||
		    !krl_rw_same_type(y, c))
			continue;
		if (c->kind == KRL_GN_PW && y->pw != c->pw)
			continue;
		if (c->kind == KRL_GN_REDUCE &&
		    (y->red != c->red || y->axis != c->axis ||
		     y->naxes != c->naxes || y->keep != c->keep))
			continue;
		int same = 1;
		for (int q = 0; q < c->nin && same; q++)
			same = same_value(R, y->in[q], c->in[q]);
		if (same)
			return j;
	}
	return -1;
}

/* The node just added (*out, the last of the new graph) replaced by an
 * identical earlier one when there is one: dropped again. */
static void reuse(rw *R, int *out)
{
	krl_graph *g = R->g;
	if (*out != g->nn - 1)
		return;
	int j = find_same(R, &g->n[*out]);
	if (j < 0 || j >= *out)
		return;
	krl_gnode_clear(&g->n[*out]);
	g->nn--;
	*out = j;
}

/* Part p of the tree of node i (rank-r input): the cats' part p, the
 * broadcast leaves themselves, the pointwise nodes over those. -1 where a
 * leaf is neither (*bad set). */
static krl_err crpart(rw *R, int i, int r, const crsplit *s, int p, int *out,
                      int *bad, int depth)
{
	const krl_gnode *x = NN(R, i);
	int cd = cat_dim(R, i);
	if (cd >= 0 && x->dtype == KRL_F32 &&
	    same_split(R, i, cd, s->dim, r, s)) {
		*out = x->in[p];
		return KRL_OK;
	}
	if (x->kind != KRL_GN_PW) {
		if (!bcast_along(R, i, s->dim, r))
			*bad = 1;
		*out = i;
		return KRL_OK;
	}
	if (depth > CR_DEPTH) {
		*bad = 1;
		return KRL_OK;
	}
	int in[4] = { 0 }, nin = x->nin;
	krl_pwop op = x->pw;
	for (int q = 0; q < nin && q < 4; q++) {
		krl_err e = crpart(R, NN(R, i)->in[q], r, s, p, &in[q], bad,
		                   depth + 1);
		if (e || *bad)
			return e;
	}
	krl_err e = krl_graph_pw(R->g, op, in, out, R->d);
	if (!e)
		reuse(R, out);
	return e;
}

krl_err krl_rule_cat_reduce(rw *R, const krl_gnode *n, int *out)
{
	if (n->kind != KRL_GN_REDUCE || n->red == KRL_RED_ARGMAX ||
	    n->red == KRL_RED_ARGMIN || n->nin != 1)
		return KRL_OK;
	int x = n->in[0], r = NN(R, x)->ndim;
	crsplit s = { -1, 0, NULL, 0 };
	if (!tree_ok(R, x, r, n->axis, n->axis + n->naxes, &s, 0) || s.dim < 0 ||
	    s.nparts > KRL_MAX_CALL_IN)
		return KRL_OK;
	/* the split's dim in the reduction's output */
	int od = n->keep || s.dim < n->axis ? s.dim : s.dim - n->naxes;
	if (od < 0 || od >= n->ndim)
		return KRL_OK;
	int parts[KRL_MAX_CALL_IN], start = R->g->nn, bad = 0;
	krl_err e = KRL_OK;
	for (int p = 0; p < s.nparts && !e && !bad; p++) {
		int t;
		e = crpart(R, x, r, &s, p, &t, &bad, 0);
		if (!e && !bad)
			e = krl_graph_reduce(R->g, n->red, t, n->axis, n->naxes,
			                     n->keep, &parts[p], R->d);
		if (!e && !bad)
			reuse(R, &parts[p]);
	}
	if (e || bad) {
		/* what was added for nothing goes (nothing reads it yet) */
		while (R->g->nn > start)
			krl_gnode_clear(&R->g->n[--R->g->nn]);
		return e;
	}
	krl_gdim dims[KRL_MAX_DIM];
	for (int k = 0; k < n->ndim; k++)
		dims[k] = n->dim[k];
	char dt[16];
	snprintf(dt, sizeof dt, "%d", od);
	krl_gattr a = { "dim", dt, od };
	return krl_graph_lib(R->g, "cat", parts, s.nparts, n->ndim, dims, &a, 1,
	                     out, R->d);
}
