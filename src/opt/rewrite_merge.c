/*
 * The conv_merge rule (include/krl/opt.h KRL_RULE_CONV_MERGE,
 * docs/optimizer.md section 2): convolutions of one x with the same
 * attributes and weights of the same shape but the first dim (the output
 * channels) are one convolution over their weights joined along dim 0,
 * each the narrow of its output channels:
 *
 *   conv(x, w_i) = narrow(conv(x, cat(w_0, ..., w_k)), dim 1, start
 *                  C_0 + ... + C_{i-1})
 *
 * Each output element is the same sum of the same products. The merged
 * convolution reads x once where the k + 1 read it k + 1 times: GoogLeNet's
 * inception module (level 3's 6 and 7) runs three 1 x 1 convolutions over
 * its input, 963 MB each at 6's kb1. Without a bias (the conv_bias rule,
 * earlier in the order, splits biases off), groups of 1, and only where the
 * readers of each narrow are nodes generated kernels evaluate (pointwise
 * and reduce: they read the narrow in place, section 3, "Cat read in
 * place"), so that no narrow is a copy.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt/opt_int.h"
#include "opt/rewrite.h"

/* The rule's state across one rebuild (one allocation: the rebuild frees
 * it with free()): for each old node, the merged convolution it is a
 * narrow of (-1: none) and its start, text and value. */
#define MERGE_TEXT 120

typedef struct merge_at {
	int conv;
	double sv;
	char start[MERGE_TEXT];
} merge_at;

typedef struct merge {
	int n;
	merge_at at[];
} merge;

/* Old node i as a convolution the rule may merge: f32 `conv` of x and w,
 * groups 1, its attributes numbers the same in every set. */
static int mergeable(const krl_graph *g, int i)
{
	const krl_gnode *c = &g->n[i];
	if (c->kind != KRL_GN_LIB || strcmp(c->op, "conv") || c->nin != 2 ||
	    c->nout != 1 || c->dtype != KRL_F32 || c->ndim < 3 ||
	    g->n[c->in[1]].ndim != c->ndim || krl_graph_is_output(g, i))
		return 0;
	for (int a = 0; a < c->nattrs; a++) {
		char *z = krl_opt_expr_text(c->attrs[a].value);
		int lit = z && krl_graph_text_fixed(g, z);
		free(z);
		if (!lit || (!strcmp(c->attrs[a].key, "groups") && c->aval[a] != 1))
			return 0;
	}
	return 1;
}

/* Whether old convolutions a and b read one x with the same attributes
 * and weights that differ in their first dim only. */
static int siblings(const krl_graph *g, int a, int b)
{
	const krl_gnode *x = &g->n[a], *y = &g->n[b];
	if (x->in[0] != y->in[0])
		return 0;
	const krl_gnode *wa = &g->n[x->in[1]], *wb = &g->n[y->in[1]];
	for (int k = 1; k < wa->ndim; k++)
		if (strcmp(wa->dim[k].text, wb->dim[k].text))
			return 0;
	return krl_rw_same_attrs(x, y);
}

/* narrow(t, dim 1, start) with old node o's dims. */
static krl_err narrow_of(rw *R, int t, const krl_gnode *o, const char *st,
                         double sv, int *out)
{
	krl_gdim dim[KRL_MAX_DIM];
	for (int k = 0; k < o->ndim; k++)
		dim[k] = o->dim[k];
	krl_gattr a[2] = { { "dim", "1", 1 }, { "start", st, sv } };
	return krl_graph_lib(R->g, "narrow", &t, 1, o->ndim, dim, a, 2, out,
	                     R->d);
}

krl_err krl_rule_conv_merge(rw *R, const krl_gnode *n, int *out)
{
	const krl_graph *g = R->old;
	merge *M = R->state;
	if (!M) {
		M = malloc(sizeof *M + (size_t)(g->nn > 0 ? g->nn : 1) *
		           sizeof M->at[0]);
		if (!M)
			return krl_rw_oom(R);
		R->state = M;
		M->n = g->nn;
		for (int i = 0; i < g->nn; i++)
			M->at[i].conv = -1;
	}
	int cur = R->cur;
	if (M->at[cur].conv >= 0)
		return narrow_of(R, M->at[cur].conv, &g->n[cur], M->at[cur].start,
		                 M->at[cur].sv, out);
	if (!mergeable(g, cur) || !krl_graph_pw_readers(g, cur))
		return KRL_OK;
	/* the siblings after it whose weights the new graph has by now */
	int sib[KRL_MAX_CALL_IN], ns = 0;
	sib[ns++] = cur;
	for (int m = cur + 1; m < g->nn && ns < KRL_MAX_CALL_IN; m++)
		if (mergeable(g, m) && siblings(g, cur, m) &&
		    g->n[m].in[1] < cur && krl_graph_pw_readers(g, m))
			sib[ns++] = m;
	if (ns < 2)
		return KRL_OK;
	/* the weights joined along dim 0 */
	int ws[KRL_MAX_CALL_IN];
	const krl_gnode *w0 = &g->n[g->n[cur].in[1]];
	krl_gdim wd[KRL_MAX_DIM];
	char *co = krl_opt_strdup("0");
	double cv = 0;
	char *starts[KRL_MAX_CALL_IN] = { 0 };
	double svs[KRL_MAX_CALL_IN];
	krl_err e = co ? KRL_OK : krl_rw_oom(R);
	for (int i = 0; i < ns && !e; i++) {
		const krl_gnode *w = &g->n[g->n[sib[i]].in[1]];
		ws[i] = R->map[g->n[sib[i]].in[1]];
		starts[i] = co;
		svs[i] = cv;
		char *nx = krl_opt_text_binary(co, '+', w->dim[0].text);
		if (!nx)
			e = krl_rw_oom(R);
		co = nx;
		cv += (double)w->dim[0].val;
	}
	/* a start text too long to keep: no merge */
	for (int i = 0; i < ns && !e; i++)
		if (strlen(starts[i]) >= MERGE_TEXT) {
			for (int j = 0; j < ns; j++)
				free(starts[j]);
			free(co);
			return KRL_OK;
		}
	if (e) {
		for (int j = 0; j < ns && starts[j]; j++)
			free(starts[j]);
		free(co);
		return e;
	}
	for (int k = 0; k < w0->ndim; k++)
		wd[k] = w0->dim[k];
	wd[0].text = co;
	wd[0].val = (int64_t)cv;
	krl_gattr cat0 = { "dim", "0", 0 };
	int W = -1, T = -1;
	e = krl_graph_lib(R->g, "cat", ws, ns, w0->ndim, wd, &cat0, 1, &W, R->d);
	/* the merged convolution: n's dims, its channels the sum */
	if (!e) {
		const krl_gnode *c = &g->n[cur];
		krl_gdim cd[KRL_MAX_DIM];
		for (int k = 0; k < c->ndim; k++)
			cd[k] = c->dim[k];
		cd[1].text = co;
		cd[1].val = (int64_t)cv;
		krl_gattr at[KRL_MAX_ATTR];
		char *texts[KRL_MAX_ATTR] = { 0 };
		int na = c->nattrs < KRL_MAX_ATTR ? c->nattrs : KRL_MAX_ATTR;
		for (int a = 0; a < na && !e; a++) {
			texts[a] = krl_opt_expr_text(c->attrs[a].value);
			if (!texts[a])
				e = krl_rw_oom(R);
			at[a].key = c->attrs[a].key;
			at[a].text = texts[a];
			at[a].val = c->aval[a];
		}
		int in[2] = { n->in[0], W };
		if (!e)
			e = krl_graph_lib(R->g, "conv", in, 2, c->ndim, cd, at, na, &T,
			                  R->d);
		for (int a = 0; a < na; a++)
			free(texts[a]);
	}
	for (int i = 1; i < ns && !e; i++) {
		M->at[sib[i]].conv = T;
		snprintf(M->at[sib[i]].start, MERGE_TEXT, "%s", starts[i]);
		M->at[sib[i]].sv = svs[i];
	}
	if (!e)
		e = narrow_of(R, T, &g->n[cur], starts[0], 0, out);
	for (int i = 0; i < ns; i++)
		free(starts[i]);
	free(co);
	return e;
}

