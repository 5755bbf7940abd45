/*
 * The codegen toolbox, grouping (cgtool.h, the model in codegen.h): which
 * graph nodes each kernel computes, which it loads and which it writes,
 * and the queries the kernel writers ask about it (cg_see, cg_inline_in,
 * cg_is_rowshape).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgtool.h"

/* ==== Grouping nodes into kernels ==== */

int cg_out_decl(const krl_graph *g, int n, int which)
{
	for (int i = 0; i < g->nout; i++)
		if (g->out[i] == n && which-- == 0)
			return g->outdecl[i];
	return -1;
}

static int is_output(const krl_graph *g, int n)
{
	return cg_out_decl(g, n, 0) >= 0;
}

/* How kernel kid sees node m (codegen.h). */
int cg_see(const cg_gen *G, int m, int kid)
{
	const krl_gnode *x = &G->g->n[m];
	switch (x->kind) {
	case KRL_GN_BUF:
	case KRL_GN_PROJ:
	case KRL_GN_LIB:
		return SEE_LEAF;
	case KRL_GN_CONST:
		return SEE_INLINE;
	case KRL_GN_REDUCE:
	case KRL_GN_SCAN:
	case KRL_GN_POOL:
		if (G->mat[m] && G->home[m] != kid)
			return SEE_LEAF;
		return G->home[m] == kid ? SEE_IN : SEE_OUT;
	default:
		return G->mat[m] && G->home[m] != kid ? SEE_LEAF : SEE_INLINE;
	}
}

int cg_inline_in(const cg_gen *G, int n, const cg_kern *K)
{
	int s = cg_see(G, n, K->id);
	return s == SEE_INLINE || s == SEE_IN;
}

/* What a tree evaluated in kernel kid needs: the latest kernel whose
 * output it loads, whether it reaches anchors of other kernels (and which
 * kernels: a bit set of the first 64), whether it reaches kid's own. */
typedef struct needs {
	int maxhome;
	int out;
	unsigned long long outk;
	int in;
	int gf;                  /* a gather or flip on the way to an anchor */
} needs;

static void walk(const cg_gen *G, int m, int kid, needs *nd, int depth)
{
	const krl_gnode *x = &G->g->n[m];
	switch (cg_see(G, m, kid)) {
	case SEE_LEAF:
		if (x->kind != KRL_GN_BUF && G->home[m] > nd->maxhome)
			nd->maxhome = G->home[m];
		return;
	case SEE_IN:
		nd->in = 1;
		return;
	case SEE_OUT:
		nd->out = 1;
		if (G->home[m] >= 0 && G->home[m] < 64)
			nd->outk |= 1ull << G->home[m];
		else
			nd->outk |= 1ull << 63;
		return;
	default:
		break;
	}
	if (depth > 4096)
		return;
	int o = nd->out, i = nd->in;
	for (int k = 0; k < x->nin; k++)
		walk(G, x->in[k], kid, nd, depth + 1);
	if ((x->kind == KRL_GN_GATHER || x->kind == KRL_GN_FLIP) &&
	    (nd->out != o || nd->in != i))
		nd->gf = 1;
}

static needs needs_of(const cg_gen *G, int m, int kid, int self)
{
	needs nd = { -1, 0, 0, 0, 0 };
	if (self)
		walk(G, m, kid, &nd, 0);
	else
		for (int k = 0; k < G->g->n[m].nin; k++)
			walk(G, G->g->n[m].in[k], kid, &nd, 0);
	return nd;
}

static int single_kernel(unsigned long long set)
{
	if (!set || (set & (set - 1)) || (set >> 63))
		return -1;
	int k = 0;
	while (!(set & 1)) {
		set >>= 1;
		k++;
	}
	return k;
}

/* The reduce's [outer | axes | inner] view: whether outer and inner are
 * the constant 1. */
static int is_total(const cg_gen *G, int n)
{
	const krl_gnode *r = &G->g->n[n];
	const krl_gnode *x = &G->g->n[r->in[0]];
	return cg_dims_one(x, 0, r->axis) &&
	       cg_dims_one(x, r->axis + r->naxes, x->ndim);
}

/* Whether node n's shape is kernel K's row shape: its space without the
 * reduced axes (dims of 1 ignored). */
int cg_is_rowshape(const cg_gen *G, const cg_kern *K, int n)
{
	const krl_gnode *x = &G->g->n[n], *s = &G->g->n[K->space];
	int i = 0, j = 0;
	for (;;) {
		while (i < x->ndim && cg_dim_one(x->dim[i].text))
			i++;
		while (j < s->ndim && (cg_dim_one(s->dim[j].text) ||
		                       (j >= K->ax0 && j < K->ax1)))
			j++;
		if (i == x->ndim || j == s->ndim)
			return i == x->ndim && j == s->ndim;
		if (!cg_dim_eq(x->dim[i].text, s->dim[j].text))
			return 0;
		i++;
		j++;
	}
}

static int is_scalar(const cg_gen *G, int n)
{
	const krl_gnode *x = &G->g->n[n];
	return cg_dims_one(x, 0, x->ndim);
}

static cg_kern *new_kernel(cg_gen *G, cg_kkind kind, int space)
{
	if (G->nk == G->capk) {
		int cap = G->capk ? 2 * G->capk : 16;
		cg_kern *k = realloc(G->k, (size_t)cap * sizeof *k);
		if (!k) {
			G->oom = 1;
			return NULL;
		}
		G->k = k;
		G->capk = cap;
	}
	cg_kern *K = &G->k[G->nk];
	memset(K, 0, sizeof *K);
	K->kind = kind;
	K->id = G->nk++;
	K->space = space;
	return K;
}

static int kadd(cg_gen *G, int *arr, int *n, int v)
{
	if (*n == CG_MAX_KNODES) {
		snprintf(G->err, sizeof G->err, "more than %d nodes in one kernel",
		         CG_MAX_KNODES);
		return -1;
	}
	arr[(*n)++] = v;
	return 0;
}

/* Makes node n an anchor of kernel K (a reduction or pool it computes),
 * homed there, and one of K's outputs when n is materialised. */
static int place_anchor(cg_gen *G, cg_kern *K, int n)
{
	if (kadd(G, K->anchor, &K->nanchor, n))
		return -1;
	G->home[n] = K->id;
	return G->mat[n] ? kadd(G, K->out, &K->nout, n) : 0;
}

/* Whether node n (materialised) may be written by kernel K: its shape is
 * one K writes and everything it loads comes before K. */
static int homeable(const cg_gen *G, int n, const cg_kern *K, int small)
{
	needs nd = needs_of(G, n, K->id, 0);
	if (nd.out || nd.maxhome >= K->id)
		return 0;
	switch (K->kind) {
	case CK_ROW:
		if (cg_is_rowshape(G, K, n))
			return 1;
		/* a row kernel in a channels-last input's memory order: its
		 * lanes run over C or over a position's channels, and
		 * full-shape NCHW stores from them would be strided; rows of C
		 * write them through a shared-memory tile (cg_row_cl_tiles),
		 * else a map kernel writes them */
		return !small && cg_gsame(G, n, K->space) && !nd.gf &&
		       (!cg_row_cl(G, K) || cg_row_cl_tiles(G, K, n));
	case CK_TOTAL:
		return is_scalar(G, n);
	case CK_SCAN:
	case CK_POOL:
		return !small && cg_gsame(G, n, K->space) && !nd.gf;
	default:
		return 0;
	}
}

/* Materialises what kernel kid (-2: one not made yet) needs to evaluate
 * node m inline: returns 1 when something was marked. */
static int resolve(cg_gen *G, int m, int kid, int depth)
{
	const krl_gnode *x = &G->g->n[m];
	int s = cg_see(G, m, kid);
	if (s == SEE_LEAF || s == SEE_IN)
		return 0;
	if (s == SEE_OUT) {
		G->mat[m] = 1;
		return 1;
	}
	needs nd = needs_of(G, m, kid, 1);
	if (!nd.out || depth > 4096)
		return 0;
	int k = single_kernel(nd.outk);
	if (k >= 0 && !G->forcemap[m] && homeable(G, m, &G->k[k], 1)) {
		G->mat[m] = 1;
		return 1;
	}
	for (int i = 0; i < x->nin; i++)
		if (resolve(G, x->in[i], kid, depth + 1))
			return 1;
	return 0;
}

static int sig_match(const cg_gen *G, const cg_kern *K, int n)
{
	const krl_gnode *r = &G->g->n[n];
	return K->ax0 == r->axis && K->ax1 == r->axis + r->naxes &&
	       G->g->n[K->space].ndim == G->g->n[r->in[0]].ndim &&
	       cg_gsame(G, K->space, r->in[0]) &&
	       G->g->n[K->space].ndim == G->g->n[r->in[0]].ndim;
}

/* Whether pool nodes a and b read the same windows of the same input, so
 * that one kernel's loop over them computes both: the same op family
 * (max pooling's values and indices together), dims and attributes. */
static int pool_same_windows(const krl_graph *g, int a, int b)
{
	const krl_gnode *x = &g->n[a], *y = &g->n[b];
	if (x->in[0] != y->in[0] || x->naxes != y->naxes ||
	    x->ndim != y->ndim || x->nattrs != y->nattrs ||
	    (x->pool == KRL_POOL_AVG) != (y->pool == KRL_POOL_AVG))
		return 0;
	for (int k = 0; k < x->ndim; k++)
		if (!cg_dim_eq(x->dim[k].text, y->dim[k].text))
			return 0;
	for (int i = 0; i < x->nattrs; i++) {
		int found = 0;
		char *tx = krl_opt_expr_text(x->attrs[i].value);
		for (int j = 0; j < y->nattrs && !found && tx; j++) {
			if (strcmp(x->attrs[i].key, y->attrs[j].key))
				continue;
			char *ty = krl_opt_expr_text(y->attrs[j].value);
			found = ty && !strcmp(tx, ty);
			free(ty);
		}
		free(tx);
		if (!found)
			return 0;
	}
	return 1;
}

/* Node m, just materialised for a library call that reads it: when it is
 * a VIEW (the same elements with other dims) and not a task output, the
 * plan declares it a `view` of its input's buffer instead of a kernel
 * copying it (its input materialised too, where it was not: the kernel
 * that would have copied m writes it instead). */
static void mark_alias(cg_gen *G, int m)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[m];
	if (x->kind != KRL_GN_VIEW || cg_out_decl(g, m, 0) >= 0)
		return;
	int b = x->in[0];
	if (g->n[b].kind == KRL_GN_CONST || g->n[b].dtype != x->dtype)
		return;
	G->alias[m] = 1;
	if (g->n[b].kind != KRL_GN_BUF)
		G->mat[b] = 1;
}

/* Whether every reader of node n is a library call, or a VIEW read only
 * by library calls, and n is no task output: the libraries take any
 * address, where a generated kernel's float4 path needs 16-byte aligned
 * ones (a slice at an offset need not be). */
static int lib_readers_only(const krl_graph *g, int n, int depth)
{
	if (depth > 64 || cg_out_decl(g, n, 0) >= 0)
		return 0;
	for (int m = n + 1; m < g->nn; m++)
		for (int q = 0; q < g->n[m].nin; q++) {
			if (g->n[m].in[q] != n)
				continue;
			if (g->n[m].kind == KRL_GN_VIEW ?
			    !lib_readers_only(g, m, depth + 1) :
			    g->n[m].kind != KRL_GN_LIB)
				return 0;
		}
	return 1;
}

/* Whether library node n is a contiguous slice of its input: `narrow`
 * along dim 0 of a 1-D tensor (how the lowering reads a plan's slice
 * view) that only library calls read (lib_readers_only): a plan `view`
 * with an offset, no kernel. */
static int slice_alias(const cg_gen *G, int n)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[n];
	if (strcmp(x->op, "narrow") || x->nin != 1 || x->nout != 1 ||
	    x->ndim != 1 || g->n[x->in[0]].ndim != 1 ||
	    g->n[x->in[0]].kind == KRL_GN_CONST || !lib_readers_only(g, n, 0))
		return 0;
	int start = 0;
	for (int a = 0; a < x->nattrs; a++) {
		if (!strcmp(x->attrs[a].key, "start"))
			start = 1;
		else if (strcmp(x->attrs[a].key, "dim") ||
		         !krl_opt_expr_literal(x->attrs[a].value))
			return 0;
	}
	return start;
}

void cg_out_views(cg_gen *G)
{
	const krl_graph *g = G->g;
	for (int n = 0; n < g->nn; n++)
		G->outview[n] = -1;
	if (!G->s.fuse)
		return;
	for (int i = 0; i < g->nout; i++) {
		int v = g->out[i], u = v;
		if (g->n[v].kind != KRL_GN_VIEW || cg_out_decl(g, v, 1) >= 0)
			continue;
		/* each node under v read once: by the view above it */
		int once = 1;
		while (once && g->n[u].kind == KRL_GN_VIEW) {
			u = g->n[u].in[0];
			once = G->nuse[u] == 1;
		}
		const krl_gnode *l = &g->n[u];
		if (!once || l->kind != KRL_GN_LIB || l->nout != 1 ||
		    l->dtype != g->n[v].dtype || G->skip[u] ||
		    cg_out_decl(g, u, 0) >= 0 || G->outview[u] >= 0)
			continue;
		G->outview[u] = v;
		G->alias[v] = 3;
	}
}

/* One grouping of the graph under the current materialised set: 0 done,
 * 1 something more was materialised (group again), -1 an error. */
int cg_form(cg_gen *G)
{
	const krl_graph *g = G->g;
	G->nk = 0;
	for (int n = 0; n < g->nn; n++)
		G->home[n] = -1;
	for (int n = 0; n < g->nn; n++) {
		const krl_gnode *x = &g->n[n];
		cg_kern *K = NULL;
		switch (x->kind) {
		case KRL_GN_LIB:
			if (G->alias[n] == 2 || slice_alias(G, n)) {
				/* a view of its input: no kernel, ready with it */
				G->alias[n] = 2;
				G->home[n] = G->home[x->in[0]];
			} else {
				if (!(K = new_kernel(G, CK_LIB, n)))
					return -1;
				K->anchor[K->nanchor++] = n;
				G->home[n] = K->id;
			}
			G->mat[n] = 1;
			for (int i = 0; i < x->nin; i++) {
				int m = x->in[i];
				if (!G->mat[m] && g->n[m].kind != KRL_GN_BUF) {
					G->mat[m] = 1;
					mark_alias(G, m);
					return 1;
				}
			}
			continue;
		case KRL_GN_PROJ:
			G->home[n] = G->home[x->in[0]];
			G->mat[n] = 1;
			continue;
		case KRL_GN_REDUCE: {
			if (G->redconv && G->redconv[n] >= 0) {
				/* the convolution's kernel writes it */
				G->home[n] = G->home[G->redconv[n]];
				G->mat[n] = 1;
				continue;
			}
			cg_kkind kind = is_total(G, n) ? CK_TOTAL : CK_ROW;
			for (int k = G->nk - 1; G->s.fuse && k >= 0 && !K; k--) {
				cg_kern *J = &G->k[k];
				if (J->kind != kind || !sig_match(G, J, n))
					continue;
				needs nd = needs_of(G, n, J->id, 0);
				if (nd.out || nd.maxhome >= J->id ||
				    (kind == CK_TOTAL && nd.in) || nd.gf)
					continue;
				K = J;
			}
			if (!K) {
				if (!(K = new_kernel(G, kind, x->in[0])))
					return -1;
				K->ax0 = x->axis;
				K->ax1 = x->axis + x->naxes;
			}
			if (place_anchor(G, K, n))
				return -1;
			continue;
		}
		case KRL_GN_POOL:
			for (int k = G->nk - 1; G->s.fuse && k >= 0 && !K; k--) {
				cg_kern *J = &G->k[k];
				if (J->kind == CK_POOL &&
				    pool_same_windows(g, J->anchor[0], n))
					K = J;
			}
			if (!K && !(K = new_kernel(G, CK_POOL, n)))
				return -1;
			if (place_anchor(G, K, n))
				return -1;
			continue;
		case KRL_GN_SCAN:
			if (!(K = new_kernel(G, CK_SCAN, x->in[0])))
				return -1;
			K->ax0 = x->axis;
			K->ax1 = x->axis + 1;
			K->anchor[K->nanchor++] = n;
			G->home[n] = K->id;
			if (G->mat[n])
				K->out[K->nout++] = n;
			continue;
		default:
			break;
		}
		/* an alias is its input's memory: ready when its input is, and
		 * evaluated inline (its index mapped) in the kernel that writes
		 * its input */
		if (G->alias[n]) {
			G->home[n] = G->home[G->alias[n] == 3 ? krl_graph_unview(g, n) :
			                     x->in[0]];
			continue;
		}
		/* pointwise, gather, flip; buffers and consts that are outputs */
		if (!G->mat[n])
			continue;
		if (x->kind == KRL_GN_BUF && !is_output(g, n))
			continue;
		needs nd = needs_of(G, n, -2, 0);
		if (nd.out) {
			int k = single_kernel(nd.outk);
			if (k >= 0 && !G->forcemap[n] &&
			    homeable(G, n, &G->k[k], 0)) {
				K = &G->k[k];
			} else {
				for (int i = 0; i < x->nin; i++)
					if (resolve(G, x->in[i], -2, 0))
						return 1;
				snprintf(G->err, sizeof G->err,
				         "node %d: cannot place it", n);
				return -1;
			}
		}
		if (!K) {
			for (int k = G->nk - 1; G->s.fuse && k >= 0 && !K; k--) {
				cg_kern *J = &G->k[k];
				if (J->kind != CK_MAP ||
				    !cg_gsame(G, J->space, n) ||
				    g->n[J->space].ndim != x->ndim)
					continue;
				needs ne = needs_of(G, n, J->id, 0);
				if (!ne.out && ne.maxhome < J->id)
					K = J;
			}
			if (!K && !(K = new_kernel(G, CK_MAP, n)))
				return -1;
		}
		if (kadd(G, K->out, &K->nout, n))
			return -1;
		G->home[n] = K->id;
	}
	/* what each kernel evaluates inline must not need other kernels'
	 * anchors that are not in memory */
	for (int k = 0; k < G->nk; k++) {
		cg_kern *K = &G->k[k];
		if (K->kind == CK_LIB)
			continue;
		for (int a = 0; a < K->nanchor; a++) {
			const krl_gnode *x = &g->n[K->anchor[a]];
			for (int i = 0; i < x->nin; i++)
				if (resolve(G, x->in[i], K->id, 0))
					return 1;
		}
		for (int o = 0; o < K->nout; o++) {
			const krl_gnode *x = &g->n[K->out[o]];
			for (int i = 0; i < x->nin; i++)
				if (resolve(G, x->in[i], K->id, 0))
					return 1;
		}
	}
	return 0;
}
