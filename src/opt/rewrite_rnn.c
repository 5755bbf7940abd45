/*
 * kernelrl: the recurrence rule (docs/optimizer.md section 2, rule
 * `recurrence`): an Elman recurrence that a plan unrolls step by step
 * (level 3's 34: per step h = tanh(linear(cat(x[t], h), W, b)), then a
 * linear of h kept as the step's output) becomes one rnn_tanh library
 * call over all the steps (cuDNN: the input projection of every step as
 * one GEMM, the recurrence in per-step kernels or, with lib.rnn=persist,
 * one persistent kernel), and the linears over its steps' states, which a
 * `cat` stacks, one linear over the call's whole output.
 *
 * The algebra: cat(x, h) along features times W^T is x W_x^T + h W_h^T
 * with W = [W_x | W_h] split by columns, which is rnn_tanh's
 * tanh(W x + b_W + R h + b_R) with W = W_x, R = W_h, b_W = b, b_R = 0
 * (docs/ops-rnn.md's weight layout, packed per call: two column slices
 * of W, b and a zero vector, one `cat`). fp32 sums in another order:
 * the ops' tolerance covers one Linear's reassociation (the task says
 * so), and cuDNN runs rnn_tanh in fp32 math (no TF32).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt/rewrite.h"

#define MAX_CHAINS 8
#define TEXT 512

typedef struct chain {
	int T;
	int c0;                  /* old cat node of step 0: the call is
	                            built when the rebuild reaches it */
	int root;                /* old node the steps' x are slices of */
	int narrow0;             /* old narrow node of step 0's x, or -1 */
	int64_t start0;          /* step 0's x's first element in root */
	int h0, w, b, a0;        /* old nodes: the first state, W, b, x[0] */
	int flat;                /* new node: the call's y seen flat, or -1
	                            before it is built */
} chain;

typedef struct rec_state {
	int nchain;
	chain ch[MAX_CHAINS];
	int *chain_of;           /* old tanh node -> its chain, or -1 */
	int *step_of;            /* old tanh node -> its step */
} rec_state;

static const krl_gnode *OLD(const rw *R, int i)
{
	return &R->old->n[i];
}

static const krl_gnode *NEW(const rw *R, int i)
{
	return &R->g->n[i];
}

/* Where node i's elements sit: elements [*start, *start + numel(i)) of
 * node *root seen flat. Either i is root through VIEWs (start 0, *narrow
 * -1), or VIEWs over a `narrow` along dim 0 of a 1-D VIEW of root (the
 * lowering's slice: lower.c read_slice), *narrow that node. */
static void slice_of(const krl_graph *g, int i, int *root, int64_t *start,
                     int *narrow)
{
	int u = krl_graph_unview(g, i);
	const krl_gnode *n = &g->n[u];
	double dim = 0, st = NAN;
	*narrow = -1;
	*start = 0;
	if (n->kind == KRL_GN_LIB && !strcmp(n->op, "narrow") && n->nin == 1 &&
	    n->ndim == 1 && g->n[n->in[0]].ndim == 1 &&
	    krl_gnode_lib_literal(n, "dim", 0, &dim) && dim == 0 &&
	    !isnan(st = krl_rw_attr_val(n, "start", NULL))) {
		*narrow = u;
		*start = (int64_t)st;
		u = krl_graph_unview(g, n->in[0]);
	}
	*root = u;
}

static int is_f32(const krl_gnode *n)
{
	return n->dtype == KRL_F32;
}

/* Whether old node p is the state of one step: tanh(linear(cat(a, h)
 * along features, w, b)) with a [B, I], h [B, H], w [H, I + H], b [H],
 * the cat and the linear read by nothing else. Sets *cat and *lin. */
static int step_at(const krl_graph *g, int p, int *cat, int *lin)
{
	const krl_gnode *t = &g->n[p];
	if (t->kind != KRL_GN_PW || t->pw != KRL_PW_TANH || t->nin != 1)
		return 0;
	const krl_gnode *l = &g->n[t->in[0]];
	if (l->kind != KRL_GN_LIB || strcmp(l->op, "linear") || l->nin != 3 ||
	    l->nout != 1 || l->ndim != 2)
		return 0;
	const krl_gnode *c = &g->n[l->in[0]];
	double dim = 0;
	if (c->kind != KRL_GN_LIB || strcmp(c->op, "cat") || c->nin != 2 ||
	    c->nout != 1 || c->ndim != 2 ||
	    !krl_gnode_lib_literal(c, "dim", 0, &dim) || (dim != 1 && dim != -1))
		return 0;
	const krl_gnode *a = &g->n[c->in[0]], *h = &g->n[c->in[1]];
	const krl_gnode *w = &g->n[l->in[1]], *b = &g->n[l->in[2]];
	if (a->ndim != 2 || h->ndim != 2 || w->ndim != 2 || b->ndim != 1 ||
	    !is_f32(a) || !is_f32(h) || !is_f32(w) || !is_f32(b))
		return 0;
	int64_t H = h->dim[1].val;
	if (h->dim[0].val != a->dim[0].val || w->dim[0].val != H ||
	    w->dim[1].val != a->dim[1].val + H || b->dim[0].val != H ||
	    l->dim[1].val != H)
		return 0;
	if (krl_graph_users(g, t->in[0]) != 1 ||
	    krl_graph_users(g, l->in[0]) != 1)
		return 0;
	*cat = l->in[0];
	*lin = t->in[0];
	return 1;
}

/* Checks chain c (its steps in order in steps[0..T)) and fills the rest
 * of it: every step's x the next slice of one tensor, the weights known
 * before the first step. */
static int chain_fill(const krl_graph *g, const int *steps, int T, chain *c)
{
	int cat, lin;
	if (T < 2 || !step_at(g, steps[0], &cat, &lin))
		return 0;
	const krl_gnode *l = &g->n[lin], *k = &g->n[cat];
	c->T = T;
	c->c0 = cat;
	c->w = l->in[1];
	c->b = l->in[2];
	c->h0 = k->in[1];
	c->a0 = k->in[0];
	c->flat = -1;
	if (c->w >= cat || c->b >= cat)
		return 0;
	const krl_gnode *a = &g->n[c->a0];
	int64_t n = a->dim[0].val * a->dim[1].val;
	for (int t = 0; t < T; t++) {
		int ct, lt, root, nar;
		int64_t start;
		if (!step_at(g, steps[t], &ct, &lt))
			return 0;
		slice_of(g, g->n[ct].in[0], &root, &start, &nar);
		if (t == 0) {
			c->root = root;
			c->start0 = start;
			c->narrow0 = nar;
		}
		if (root != c->root || start != c->start0 + t * n ||
		    !is_f32(&g->n[root]))
			return 0;
	}
	return c->start0 + T * n <= krl_gnode_numel(&g->n[c->root]);
}

/* Finds the chains of the old graph: each step linked to the step whose
 * state its cat reads (with the same weights), where that step has no
 * other such reader. */
static krl_err chains_find(rw *R, rec_state **out)
{
	const krl_graph *g = R->old;
	size_t nn = (size_t)g->nn + 1;
	rec_state *s = calloc(1, sizeof *s + 4 * nn * sizeof(int));
	if (!s)
		return krl_rw_oom(R);
	s->chain_of = (int *)(s + 1);
	s->step_of = s->chain_of + nn;
	int *prev = s->step_of + nn, *nsucc = prev + nn;
	for (int i = 0; i < g->nn; i++) {
		s->chain_of[i] = -1;
		prev[i] = -1;
	}
	for (int p = 0; p < g->nn; p++) {
		int cat, lin, c2, l2;
		if (!step_at(g, p, &cat, &lin))
			continue;
		int q = g->n[cat].in[1];
		if (step_at(g, q, &c2, &l2) &&
		    g->n[l2].in[1] == g->n[lin].in[1] &&
		    g->n[l2].in[2] == g->n[lin].in[2]) {
			prev[p] = q;
			nsucc[q]++;
		}
	}
	int *steps = malloc(nn * sizeof *steps);
	if (!steps) {
		free(s);
		return krl_rw_oom(R);
	}
	for (int p = 0; p < g->nn && s->nchain < MAX_CHAINS; p++) {
		int cat, lin;
		if (!step_at(g, p, &cat, &lin) ||
		    (prev[p] >= 0 && nsucc[prev[p]] == 1))
			continue;
		/* p starts a chain: follow the unique readers */
		int T = 0, at = p;
		while (at >= 0) {
			steps[T++] = at;
			int nx = -1;
			if (nsucc[at] == 1)
				for (int i = at + 1; i < g->nn && nx < 0; i++)
					if (prev[i] == at)
						nx = i;
			at = nx;
		}
		chain *c = &s->ch[s->nchain];
		if (!chain_fill(g, steps, T, c))
			continue;
		for (int t = 0; t < T; t++) {
			s->chain_of[steps[t]] = s->nchain;
			s->step_of[steps[t]] = t;
		}
		s->nchain++;
	}
	free(steps);
	*out = s;
	return KRL_OK;
}

/* A PROJ of library node lib: output k with dims[0..ndim). */
static krl_err add_proj(rw *R, int lib, int k, int ndim, const krl_gdim *dims,
                        int *out)
{
	krl_gnode p = { .kind = KRL_GN_PROJ, .nin = 1, .index = k,
	                .dtype = KRL_F32, .ndim = ndim };
	p.in[0] = lib;
	for (int i = 0; i < ndim; i++) {
		p.dim[i].val = dims[i].val;
		if (!(p.dim[i].text = krl_opt_strdup(dims[i].text))) {
			krl_gnode_clear(&p);
			return krl_rw_oom(R);
		}
	}
	if ((*out = krl_graph_add(R->g, &p)) < 0)
		return krl_rw_oom(R);
	return KRL_OK;
}

/* New node x seen with dims[0..ndim) (krl_graph_view_as). */
static krl_err view_of(rw *R, int x, int ndim, const krl_gdim *dims,
                       int *out)
{
	return krl_graph_view_as(R->g, x, ndim, dims, out, R->d);
}

/* New node x seen flat (itself when it is 1-D). */
static krl_err flat_of(rw *R, int x, int *out)
{
	char t[TEXT];
	if (NEW(R, x)->ndim == 1) {
		*out = x;
		return KRL_OK;
	}
	int64_t n = krl_gnode_dims_text(NEW(R, x), 0, NEW(R, x)->ndim, t,
	                                sizeof t);
	krl_gdim d = { t, n };
	return view_of(R, x, 1, &d, out);
}

/* Elements [start, start + n) of new node x seen flat, as the lowering
 * reads a slice (a `narrow` along dim 0 of x seen flat; x itself seen
 * flat when that is all of it), then seen with dims[0..ndim). */
static krl_err slice_as(rw *R, int x, int64_t start, const char *start_text,
                        int ndim, const krl_gdim *dims, int *out)
{
	int64_t n = 1;
	for (int k = 0; k < ndim; k++)
		n *= dims[k].val;
	if (start == 0 && n == krl_gnode_numel(NEW(R, x)))
		return view_of(R, x, ndim, dims, out);
	int f, s;
	char t[TEXT];
	krl_gnode tmp = { .ndim = ndim };
	for (int k = 0; k < ndim; k++)
		tmp.dim[k] = dims[k];
	krl_gnode_dims_text(&tmp, 0, ndim, t, sizeof t);
	krl_gdim d = { t, n };
	krl_gattr a[2] = { { "dim", "0", 0 },
	                   { "start", start_text, (double)start } };
	krl_err r = flat_of(R, x, &f);
	if (!r)
		r = krl_graph_lib(R->g, "narrow", &f, 1, 1, &d, a, 2, &s, R->d);
	return r ? r : view_of(R, s, ndim, dims, out);
}

/* Builds chain c's call in the new graph: the packed weight, rnn_tanh,
 * its y seen flat (c->flat). */
static krl_err chain_build(rw *R, chain *c)
{
	const krl_gnode *a = OLD(R, c->a0), *h = OLD(R, c->h0);
	const char *B = a->dim[0].text, *I = a->dim[1].text;
	const char *H = h->dim[1].text;
	int64_t vB = a->dim[0].val, vI = a->dim[1].val, vH = h->dim[1].val;
	int64_t vT = c->T;
	char T[32], hi[TEXT], hh[TEXT], wt[3 * TEXT], st[TEXT];
	snprintf(T, sizeof T, "%d", c->T);
	snprintf(hi, sizeof hi, "(%s) * (%s)", H, I);
	snprintf(hh, sizeof hh, "(%s) * (%s)", H, H);
	snprintf(wt, sizeof wt, "%s + %s + 2 * (%s)", hi, hh, H);
	char *start_text = NULL;
	if (c->narrow0 >= 0) {
		krl_rw_attr_val(OLD(R, c->narrow0), "start", &start_text);
		if (!start_text)
			return krl_rw_oom(R);
	}
	snprintf(st, sizeof st, "%s", start_text ? start_text : "0");
	free(start_text);
	krl_gdim tbi[3] = { { T, vT }, { (char *)B, vB }, { (char *)I, vI } };
	krl_gdim tbh[3] = { { T, vT }, { (char *)B, vB }, { (char *)H, vH } };
	krl_gdim one_bh[3] = { { "1", 1 }, { (char *)B, vB }, { (char *)H, vH } };
	krl_gdim dx[2] = { { (char *)H, vH }, { (char *)I, vI } };
	krl_gdim dh[2] = { { (char *)H, vH }, { (char *)H, vH } };
	krl_gdim fx = { hi, vH * vI }, fh = { hh, vH * vH };
	krl_gdim dH = { (char *)H, vH }, dw = { wt, vH * vI + vH * vH + 2 * vH };
	krl_gattr n0[2] = { { "dim", "1", 1 }, { "start", "0", 0 } };
	krl_gattr n1[2] = { { "dim", "1", 1 }, { "start", I, (double)vI } };
	krl_gattr cat0 = { "dim", "0", 0 };
	int W = R->map[c->w], b = R->map[c->b];
	int x, h0, wx, wh, wxf, whf, zero, wp, rnn, y, hy;
	krl_err r = slice_as(R, R->map[c->root], c->start0, st, 3, tbi, &x);
	if (!r)
		r = view_of(R, R->map[c->h0], 3, one_bh, &h0);
	if (!r)
		r = krl_graph_lib(R->g, "narrow", &W, 1, 2, dx, n0, 2, &wx, R->d);
	if (!r)
		r = krl_graph_lib(R->g, "narrow", &W, 1, 2, dh, n1, 2, &wh, R->d);
	if (!r)
		r = view_of(R, wx, 1, &fx, &wxf);
	if (!r)
		r = view_of(R, wh, 1, &fh, &whf);
	/* fill has no inputs: b only gives the node its dtype */
	if (!r)
		r = krl_graph_lib(R->g, "fill", &b, 0, 1, &dH, NULL, 0, &zero,
		                  R->d);
	if (!r) {
		int parts[4] = { wxf, whf, b, zero };
		r = krl_graph_lib(R->g, "cat", parts, 4, 1, &dw, &cat0, 1, &wp,
		                  R->d);
	}
	if (!r) {
		int in[3] = { x, h0, wp };
		r = krl_graph_lib(R->g, "rnn_tanh", in, 3, 3, tbh, NULL, 0, &rnn,
		                  R->d);
	}
	if (r)
		return r;
	R->g->n[rnn].nout = 2;
	if ((r = add_proj(R, rnn, 0, 3, tbh, &y)) ||
	    (r = add_proj(R, rnn, 1, 3, one_bh, &hy)))
		return r;
	return flat_of(R, y, &c->flat);
}

/* Step t's state: its slice of the call's y. */
static krl_err step_state(rw *R, const chain *c, int t, const krl_gnode *n,
                          int *out)
{
	const krl_gnode *h = OLD(R, c->h0);
	char st[TEXT];
	snprintf(st, sizeof st, "%d * (%s) * (%s)", t, h->dim[0].text,
	         h->dim[1].text);
	krl_gdim dims[2] = { n->dim[0], n->dim[1] };
	return slice_as(R, c->flat, (int64_t)t * h->dim[0].val * h->dim[1].val,
	                st, 2, dims, out);
}

krl_err krl_rule_recurrence(rw *R, const krl_gnode *n, int *out)
{
	krl_err r;
	if (!R->state && (r = chains_find(R, (rec_state **)&R->state)))
		return r;
	rec_state *s = R->state;
	for (int i = 0; i < s->nchain; i++)
		if (s->ch[i].c0 == R->cur && s->ch[i].flat < 0 &&
		    (r = chain_build(R, &s->ch[i])))
			return r;
	int c = s->chain_of[R->cur];
	if (c < 0)
		return KRL_OK;
	return step_state(R, &s->ch[c], s->step_of[R->cur], n, out);
}

/* ==== Linears over consecutive slices, stacked ==== */

/* Input q of cat node n (new graph) as a linear over a slice: the linear
 * (through a VIEW of it seen flat, or itself) and where its x sits. The
 * old graph must have the cat as the only reader of the linear (and of
 * the VIEW). */
static int linear_part(rw *R, const krl_gnode *n, int q, int *lin, int *root,
                       int64_t *start, int *narrow)
{
	int v = n->in[q], oq = OLD(R, R->cur)->in[q];
	if (krl_graph_users(R->old, oq) != 1)
		return 0;
	if (NEW(R, v)->kind == KRL_GN_VIEW) {
		if (OLD(R, oq)->kind != KRL_GN_VIEW ||
		    krl_graph_users(R->old, OLD(R, oq)->in[0]) != 1)
			return 0;
		v = NEW(R, v)->in[0];
	}
	const krl_gnode *l = NEW(R, v);
	if (l->kind != KRL_GN_LIB || strcmp(l->op, "linear") || l->nin != 3 ||
	    l->nout != 1 || l->ndim != 2 || NEW(R, l->in[0])->ndim != 2 ||
	    !is_f32(l))
		return 0;
	*lin = v;
	slice_of(R->g, l->in[0], root, start, narrow);
	return 1;
}

krl_err krl_rule_batch_linear(rw *R, const krl_gnode *n, int *out)
{
	double dim = 0;
	if (n->kind != KRL_GN_LIB || strcmp(n->op, "cat") || n->nin < 2 ||
	    n->nout != 1 || !is_f32(n) ||
	    !krl_gnode_lib_literal(n, "dim", 0, &dim) || dim != 0)
		return KRL_OK;
	int lin0 = -1, root0 = -1, nar0 = -1;
	int64_t start0 = 0, at = 0;
	for (int q = 0; q < n->nin; q++) {
		int lin, root, nar;
		int64_t start;
		if (!linear_part(R, n, q, &lin, &root, &start, &nar))
			return KRL_OK;
		const krl_gnode *l = NEW(R, lin), *x = NEW(R, l->in[0]);
		if (q == 0) {
			lin0 = lin;
			root0 = root;
			start0 = at = start;
			nar0 = nar;
		}
		const krl_gnode *l0 = NEW(R, lin0);
		if (root != root0 || start != at || l->in[1] != l0->in[1] ||
		    l->in[2] != l0->in[2] ||
		    x->dim[1].val != NEW(R, l0->in[0])->dim[1].val)
			return KRL_OK;
		at += krl_gnode_numel(x);
	}
	const krl_gnode *l0 = NEW(R, lin0), *x0 = NEW(R, l0->in[0]);
	const char *K = x0->dim[1].text, *N = l0->dim[1].text;
	int64_t vK = x0->dim[1].val, vN = l0->dim[1].val;
	int64_t rows = (at - start0) / vK;
	char cnt[TEXT], rt[2 * TEXT + 16];
	krl_gnode_dims_text(n, 0, n->ndim, cnt, sizeof cnt);
	snprintf(rt, sizeof rt, "(%s) / (%s)", cnt, N);
	if (n->ndim == 2 && n->dim[1].val == vN)
		snprintf(rt, sizeof rt, "%s", n->dim[0].text);
	char *st = NULL;
	if (nar0 >= 0) {
		krl_rw_attr_val(NEW(R, nar0), "start", &st);
		if (!st)
			return krl_rw_oom(R);
	}
	krl_gdim xd[2] = { { rt, rows }, { (char *)K, vK } };
	krl_gdim yd[2] = { { rt, rows }, { (char *)N, vN } };
	int x, y;
	krl_err r = slice_as(R, root0, start0, st ? st : "0", 2, xd, &x);
	free(st);
	if (!r) {
		int in[3] = { x, l0->in[1], l0->in[2] };
		r = krl_graph_lib(R->g, "linear", in, 3, 2, yd, NULL, 0, &y,
		                  R->d);
	}
	if (r)
		return r;
	krl_gdim od[KRL_MAX_DIM];
	for (int k = 0; k < n->ndim; k++)
		od[k] = n->dim[k];
	return view_of(R, y, n->ndim, od, out);
}
