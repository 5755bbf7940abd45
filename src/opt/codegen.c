/*
 * Code generation from an op graph and a schedule into candidate text
 * (docs/optimizer.md, section 3). This file groups the graph's nodes into
 * kernels (see codegen.h for the model), keeps the kernels' arguments, and
 * assembles the file: a header comment, helper device functions, the
 * kernels (codegen_map.c, codegen_row.c, codegen_total.c, codegen_scan.c,
 * codegen_pool.c) and the plan, with library calls kept as `call`
 * statements.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

/* ==== Strings ==== */

static void sb_grow(cg_sb *b, size_t extra)
{
	if (b->oom || b->n + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->n + extra + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s) {
		b->oom = 1;
		return;
	}
	b->s = s;
	b->cap = cap;
}

void cg_sb_puts(cg_sb *b, const char *z)
{
	size_t n = strlen(z);
	sb_grow(b, n);
	if (b->oom)
		return;
	memcpy(b->s + b->n, z, n + 1);
	b->n += n;
}

void cg_sb_vprintf(cg_sb *b, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0) {
		b->oom = 1;
		return;
	}
	sb_grow(b, (size_t)n);
	if (b->oom)
		return;
	vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
	b->n += (size_t)n;
}

void cg_sb_printf(cg_sb *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cg_sb_vprintf(b, fmt, ap);
	va_end(ap);
}

void cg_line(cg_sb *b, int ind, const char *fmt, ...)
{
	for (int i = 0; i < ind; i++)
		cg_sb_puts(b, "\t");
	va_list ap;
	va_start(ap, fmt);
	cg_sb_vprintf(b, fmt, ap);
	va_end(ap);
	cg_sb_puts(b, "\n");
}

void cg_sb_free(cg_sb *b)
{
	free(b->s);
	memset(b, 0, sizeof *b);
}

char *cg_fmt(cg_gen *G, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || G->oom)
		goto oom;
	if (G->nstrs == G->capstrs) {
		int cap = G->capstrs ? 2 * G->capstrs : 256;
		char **p = realloc(G->strs, (size_t)cap * sizeof *p);
		if (!p)
			goto oom;
		G->strs = p;
		G->capstrs = cap;
	}
	char *s = malloc((size_t)n + 1);
	if (!s)
		goto oom;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	G->strs[G->nstrs++] = s;
	return s;
oom:
	G->oom = 1;
	return (char *)"";
}

const char *cg_name(cg_gen *G, const char *pre)
{
	return cg_fmt(G, "%s%d", pre, G->counter++);
}

/* ==== Shapes ==== */

/* Copies a dim text without spaces and without parentheses that enclose
 * all of it. */
static void norm_dim(const char *a, char *out, size_t cap)
{
	size_t n = 0;
	for (; *a && n + 1 < cap; a++)
		if (*a != ' ' && *a != '\t')
			out[n++] = *a;
	out[n] = 0;
	for (;;) {
		n = strlen(out);
		if (n < 2 || out[0] != '(' || out[n - 1] != ')')
			return;
		int depth = 0, whole = 1;
		for (size_t i = 0; i < n; i++) {
			depth += out[i] == '(' ? 1 : out[i] == ')' ? -1 : 0;
			if (depth == 0 && i + 1 < n) {
				whole = 0;
				break;
			}
		}
		if (!whole)
			return;
		memmove(out, out + 1, n - 2);
		out[n - 2] = 0;
	}
}

int cg_dim_eq(const char *a, const char *b)
{
	char x[512], y[512];
	norm_dim(a, x, sizeof x);
	norm_dim(b, y, sizeof y);
	return strcmp(x, y) == 0;
}

int cg_dim_one(const char *a)
{
	return cg_dim_eq(a, "1");
}

int cg_same_shape(const krl_graph *g, int a, int b)
{
	const krl_gnode *x = &g->n[a], *y = &g->n[b];
	/* dims of 1 do not change a linear index: compare the others */
	int i = 0, j = 0;
	for (;;) {
		while (i < x->ndim && cg_dim_one(x->dim[i].text))
			i++;
		while (j < y->ndim && cg_dim_one(y->dim[j].text))
			j++;
		if (i == x->ndim || j == y->ndim)
			return i == x->ndim && j == y->ndim;
		if (!cg_dim_eq(x->dim[i].text, y->dim[j].text))
			return 0;
		i++;
		j++;
	}
}

char *cg_prod(cg_gen *G, int n, int from, int to)
{
	const krl_gnode *x = &G->g->n[n];
	cg_sb b = { 0 };
	int k = 0;
	for (int i = from; i < to; i++) {
		if (cg_dim_one(x->dim[i].text))
			continue;
		cg_sb_printf(&b, "%s(%s)", k++ ? " * " : "", x->dim[i].text);
	}
	char *r = cg_fmt(G, "%s", k ? (b.s ? b.s : "1") : "1");
	if (b.oom)
		G->oom = 1;
	cg_sb_free(&b);
	return r;
}

/* ==== Kernel arguments ==== */

static cg_arg *add_arg(cg_gen *G, cg_kern *K, char kind)
{
	if (K->nargs == CG_MAX_ARGS) {
		snprintf(G->err, sizeof G->err, "more than %d arguments in one "
		         "kernel", CG_MAX_ARGS);
		return NULL;
	}
	cg_arg *a = &K->args[K->nargs++];
	memset(a, 0, sizeof *a);
	a->kind = kind;
	return a;
}

const char *cg_arg_long(cg_gen *G, cg_kern *K, const char *plan)
{
	for (int i = 0; i < K->nargs; i++)
		if (K->args[i].kind == 'l' && strcmp(K->args[i].plan, plan) == 0)
			return K->args[i].cname;
	cg_arg *a = add_arg(G, K, 'l');
	if (!a)
		return "0";
	a->plan = cg_fmt(G, "%s", plan);
	a->cname = cg_fmt(G, "a%d", K->nargs - 1);
	a->ctype = "long";
	return a->cname;
}

const char *cg_arg_dbl(cg_gen *G, cg_kern *K, const char *plan)
{
	for (int i = 0; i < K->nargs; i++)
		if (K->args[i].kind == 'd' && strcmp(K->args[i].plan, plan) == 0)
			return K->args[i].cname;
	cg_arg *a = add_arg(G, K, 'd');
	if (!a)
		return "0.0";
	a->plan = cg_fmt(G, "%s", plan);
	a->cname = cg_fmt(G, "c%d", K->nargs - 1);
	a->ctype = "double";
	return a->cname;
}

const char *cg_ctype(krl_dtype t)
{
	switch (t) {
	case KRL_F32: return "float";
	case KRL_F64: return "double";
	case KRL_I32: return "int";
	case KRL_I64: return "long long";
	case KRL_BOOL: return "unsigned char";
	case KRL_F16: return "__half";
	case KRL_BF16: return "__nv_bfloat16";
	default: return "float";
	}
}

const char *cg_arg_named(cg_gen *G, cg_kern *K, const char *name,
                         const char *ctype)
{
	for (int i = 0; i < K->nargs; i++)
		if (K->args[i].kind == 'p' && strcmp(K->args[i].plan, name) == 0)
			return K->args[i].cname;
	cg_arg *a = add_arg(G, K, 'p');
	if (!a)
		return "0";
	a->plan = cg_fmt(G, "%s", name);
	a->cname = cg_fmt(G, "p_%s", name);
	a->ctype = cg_fmt(G, "%s", ctype);
	return a->cname;
}

int cg_out_decl(const krl_graph *g, int n, int which)
{
	for (int i = 0; i < g->nout; i++)
		if (g->out[i] == n && which-- == 0)
			return g->outdecl[i];
	return -1;
}

const char *cg_attr_plan(cg_gen *G, const krl_gnode *x, const char *key,
                         const char *dflt)
{
	for (int i = 0; i < x->nattrs; i++) {
		if (strcmp(x->attrs[i].key, key))
			continue;
		char *z = krl_opt_expr_text(x->attrs[i].value);
		if (!z) {
			G->oom = 1;
			return dflt;
		}
		const char *r = cg_fmt(G, "%s", z);
		free(z);
		return r;
	}
	return dflt;
}

const char *cg_bufname(cg_gen *G, int n)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[n];
	if (x->kind == KRL_GN_BUF)
		return g->task->decls[x->buf].name;
	int od = cg_out_decl(g, n, 0);
	if (od >= 0)
		return g->task->decls[od].name;
	return cg_fmt(G, "t%d", n);
}

const char *cg_arg_buf(cg_gen *G, cg_kern *K, int n, int write)
{
	const krl_gnode *x = &G->g->n[n];
	const char *name = cg_bufname(G, n);
	const char *ct = cg_ctype(x->dtype);
	return cg_arg_named(G, K, name,
	                    write ? cg_fmt(G, "%s *__restrict__", ct)
	                          : cg_fmt(G, "const %s *__restrict__", ct));
}

void cg_args_reset(cg_kern *K)
{
	K->nargs = 0;
}

/* ==== Grouping nodes into kernels ==== */

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
static int dims_one(const krl_gnode *x, int from, int to)
{
	for (int i = from; i < to; i++)
		if (!cg_dim_one(x->dim[i].text))
			return 0;
	return 1;
}

static int is_total(const cg_gen *G, int n)
{
	const krl_gnode *r = &G->g->n[n];
	const krl_gnode *x = &G->g->n[r->in[0]];
	return dims_one(x, 0, r->axis) &&
	       dims_one(x, r->axis + r->naxes, x->ndim);
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
	return dims_one(x, 0, x->ndim);
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
		return !small && cg_same_shape(G->g, n, K->space) &&
		       !nd.gf;
	case CK_TOTAL:
		return is_scalar(G, n);
	case CK_SCAN:
	case CK_POOL:
		return !small && cg_same_shape(G->g, n, K->space) && !nd.gf;
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
	       cg_same_shape(G->g, K->space, r->in[0]) &&
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

/* One grouping of the graph under the current materialised set: 0 done,
 * 1 something more was materialised (group again), -1 an error. */
static int form(cg_gen *G)
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
			if (!(K = new_kernel(G, CK_LIB, n)))
				return -1;
			K->anchor[K->nanchor++] = n;
			G->home[n] = K->id;
			G->mat[n] = 1;
			for (int i = 0; i < x->nin; i++) {
				int m = x->in[i];
				if (!G->mat[m] && g->n[m].kind != KRL_GN_BUF) {
					G->mat[m] = 1;
					return 1;
				}
			}
			continue;
		case KRL_GN_PROJ:
			G->home[n] = G->home[x->in[0]];
			G->mat[n] = 1;
			continue;
		case KRL_GN_REDUCE: {
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
				    !cg_same_shape(g, J->space, n) ||
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

/* ==== Assembly ==== */

void cg_kernel_comment(cg_gen *G, cg_kern *K, const char *how)
{
	const krl_graph *g = G->g;
	cg_sb b = { 0 };
	int first = 1;
	/* every node computed here: anchors, outputs, and the inline nodes
	 * they use */
	unsigned char *seen = calloc((size_t)g->nn, 1);
	int *stack = malloc((size_t)g->nn * sizeof *stack);
	int ns = 0;
	if (!seen || !stack) {
		G->oom = 1;
		free(seen);
		free(stack);
		return;
	}
	for (int a = 0; a < K->nanchor; a++)
		stack[ns++] = K->anchor[a];
	for (int o = 0; o < K->nout && ns < g->nn; o++)
		if (!seen[K->out[o]]) {
			stack[ns++] = K->out[o];
			seen[K->out[o]] = 1;
		}
	for (int a = 0; a < K->nanchor; a++)
		seen[K->anchor[a]] = 1;
	while (ns) {
		int m = stack[--ns];
		const krl_gnode *x = &g->n[m];
		for (int i = 0; i < x->nin; i++) {
			int c = x->in[i];
			if (seen[c] || !cg_inline_in(G, c, K) ||
			    g->n[c].kind == KRL_GN_CONST)
				continue;
			seen[c] = 1;
			stack[ns++] = c;
		}
	}
	for (int m = 0; m < g->nn; m++) {
		if (!seen[m])
			continue;
		const krl_gnode *x = &g->n[m];
		const char *what = "?";
		switch (x->kind) {
		case KRL_GN_PW: {
			const krl_pwinfo *pi = krl_pw_info(x->pw);
			what = pi ? pi->name : "pw";
			break;
		}
		case KRL_GN_REDUCE: what = cg_red_name(x->red); break;
		case KRL_GN_SCAN:
			what = x->scan == KRL_SCAN_SUM ? "cumsum" : "cumprod";
			break;
		case KRL_GN_GATHER: what = "gather"; break;
		case KRL_GN_FLIP: what = "flip"; break;
		case KRL_GN_POOL:
			what = x->pool == KRL_POOL_AVG ? "avg_pool" :
			       x->pool == KRL_POOL_MAX ? "max_pool" :
			       "max_pool_index";
			break;
		case KRL_GN_BUF: what = "copy"; break;
		case KRL_GN_CONST: what = "fill"; break;
		default: break;
		}
		cg_sb_printf(&b, "%s%d %s", first ? "" : ", ", m, what);
		first = 0;
	}
	cg_sb_printf(&G->dev, "\n/*\n * k%d (%s): nodes %s.\n", K->id, how,
	             b.s ? b.s : "");
	cg_sb_puts(&G->dev, " * Writes:");
	for (int o = 0; o < K->nout; o++)
		cg_sb_printf(&G->dev, " %s", cg_bufname(G, K->out[o]));
	cg_sb_puts(&G->dev, ".\n */\n");
	if (b.oom)
		G->oom = 1;
	cg_sb_free(&b);
	free(seen);
	free(stack);
}

void cg_kernel_sig(cg_gen *G, cg_kern *K, const char *name, int block)
{
	cg_sb_printf(&G->dev, "extern \"C\" __global__ void __launch_bounds__(%d)\n"
	             "%s(", block, name);
	for (int i = 0; i < K->nargs; i++) {
		const cg_arg *a = &K->args[i];
		cg_sb_printf(&G->dev, "%s%s %s", i ? ",\n\t" : "", a->ctype,
		             a->cname);
	}
	cg_sb_puts(&G->dev, ")\n");
}

void cg_plan_launch(cg_gen *G, cg_kern *K, const char *name,
                    const char *grid, const char *block)
{
	cg_sb_printf(&G->plan, "launch %s grid=(%s) block=(%s) args(", name,
	             grid, block);
	for (int i = 0; i < K->nargs; i++)
		cg_sb_printf(&G->plan, "%s%s", i ? ",\n    " : "",
		             K->args[i].plan);
	cg_sb_puts(&G->plan, ")\n");
}

/* A plan expression as text (attributes of library calls). */
static void expr_text(cg_sb *b, const krl_expr *e)
{
	switch (e->kind) {
	case KRL_EX_INT:
		cg_sb_printf(b, "%lld", (long long)e->ival);
		break;
	case KRL_EX_FLOAT: {
		char t[64];
		snprintf(t, sizeof t, "%.17g", e->fval);
		if (!strpbrk(t, ".eEn"))
			strcat(t, ".0");
		cg_sb_puts(b, t);
		break;
	}
	case KRL_EX_NAME:
		cg_sb_puts(b, e->name);
		break;
	case KRL_EX_NEG:
		cg_sb_puts(b, "-(");
		expr_text(b, e->lhs);
		cg_sb_puts(b, ")");
		break;
	case KRL_EX_BINARY:
		cg_sb_puts(b, "(");
		expr_text(b, e->lhs);
		cg_sb_printf(b, " %c ", e->op);
		expr_text(b, e->rhs);
		cg_sb_puts(b, ")");
		break;
	case KRL_EX_CALL:
		cg_sb_printf(b, "%s(", e->name);
		for (int i = 0; i < e->nargs; i++) {
			if (i)
				cg_sb_puts(b, ", ");
			expr_text(b, e->args[i]);
		}
		cg_sb_puts(b, ")");
		break;
	}
}

/* The value of a literal attribute of library node x (dflt when absent);
 * 0 when it is not a literal. */
static int attr_literal(const krl_gnode *x, const char *key, double dflt,
                        double *v)
{
	*v = dflt;
	for (int i = 0; i < x->nattrs; i++) {
		if (strcmp(x->attrs[i].key, key))
			continue;
		krl_scope none = { 0 };
		krl_value val;
		if (krl_expr_eval(x->attrs[i].value, &none, &val, NULL))
			return 0;
		*v = val.is_float ? val.f : (double)val.i;
	}
	return 1;
}

static char *attr_text(const krl_gnode *x, const char *key)
{
	for (int i = 0; i < x->nattrs; i++)
		if (!strcmp(x->attrs[i].key, key))
			return krl_opt_expr_text(x->attrs[i].value);
	return NULL;
}

/* A GEMM as the 3xTF32 kernel (src/opt/gemm.c), with a triu or tril that
 * is its only reader fused into its epilogue. Returns 1 when written, 0
 * when it does not apply (the library call is written instead). */
static int emit_gemm(cg_gen *G, cg_kern *K)
{
	const krl_graph *g = G->g;
	int n = K->anchor[0];
	const krl_gnode *x = &g->n[n];
	double ta, tb;
	if (x->nin != 2 || x->nout > 1 || !attr_literal(x, "ta", 0, &ta) ||
	    !attr_literal(x, "tb", 0, &tb) || (ta != 0 && ta != 1) ||
	    (tb != 0 && tb != 1))
		return 0;
	const krl_gnode *a = &g->n[x->in[0]], *b = &g->n[x->in[1]];
	if (a->ndim < 2 || b->ndim < 2 || a->dtype != KRL_F32 ||
	    b->dtype != KRL_F32 || x->dtype != KRL_F32)
		return 0;
	krl_gemm_spec sp;
	memset(&sp, 0, sizeof sp);
	sp.ta = (int)ta;
	sp.tb = (int)tb;
	int na = a->ndim, nb = b->ndim;
	sp.m = cg_fmt(G, "(%s)", a->dim[sp.ta ? na - 1 : na - 2].text);
	sp.k = cg_fmt(G, "(%s)", a->dim[sp.ta ? na - 2 : na - 1].text);
	sp.n = cg_fmt(G, "(%s)", b->dim[sp.tb ? nb - 2 : nb - 1].text);
	const char *batch = cg_prod(G, x->in[0], 0, na - 2);
	sp.b_shared = nb == 2;
	if (!sp.b_shared && (nb != na || strcmp(cg_prod(G, x->in[1], 0, nb - 2),
	                                        batch)))
		return 0;
	if (strcmp(batch, "1")) {
		if (sp.b_shared && !sp.ta) {
			/* one B for every matrix: the batch is more rows of A */
			sp.m = cg_fmt(G, "%s * %s", batch, sp.m);
		} else {
			sp.batch = batch;
		}
	}
	sp.a = cg_bufname(G, x->in[0]);
	sp.b = cg_bufname(G, x->in[1]);
	sp.c = cg_bufname(G, n);
	char *alpha = attr_text(x, "alpha"), *diag = NULL;
	if (alpha)
		sp.alpha = cg_fmt(G, "%s", alpha);
	free(alpha);
	/* triu(C) or tril(C) as the only reader of C: the GEMM's epilogue
	 * masks C as these two ops do, so this is about their meaning and
	 * names them. */
	int tri = -1;
	if (G->nuse[n] == 1 && cg_out_decl(g, n, 0) < 0)
		for (int m = n + 1; m < g->nn; m++)
			if (g->n[m].kind == KRL_GN_LIB && g->n[m].nin == 1 &&
			    g->n[m].in[0] == n && (!strcmp(g->n[m].op, "triu") ||
			                           !strcmp(g->n[m].op, "tril")))
				tri = m;
	if (tri >= 0) {
		sp.tri = !strcmp(g->n[tri].op, "triu") ? 1 : 2;
		if ((diag = attr_text(&g->n[tri], "diagonal")))
			sp.diag = cg_fmt(G, "%s", diag);
		free(diag);
		sp.c = cg_bufname(G, tri);
		G->skip[tri] = 1; /* its call is this kernel's epilogue */
		G->nfused_lib++;
		G->skip[n] = 2;   /* and C goes straight to its buffer */
	}
	sp.kernel = cg_fmt(G, "k%d_gemm", K->id);
	G->ngemm_tc++;
	if (tri < 0)
		G->skip[n] = 3; /* written as a kernel, C in its own buffer */
	int layout = sp.ta * 2 + sp.tb;
	char *dev = NULL, *launch = NULL;
	if (krl_gemm_kernel(&sp, &dev, &launch, NULL)) {
		G->oom = 1;
		return 1;
	}
	if (!(G->gemm_bodies & (1u << layout))) {
		char *body = krl_gemm_body(sp.ta, sp.tb);
		if (!body) {
			G->oom = 1;
			free(dev);
			free(launch);
			return 1;
		}
		cg_sb_puts(&G->dev, body);
		free(body);
		G->gemm_bodies |= 1u << layout;
	}
	cg_sb_printf(&G->dev, "\n/*\n * k%d (gemm, 3xTF32 on tensor cores: fp32 "
	             "accuracy from three TF32\n * products): node %d%s.\n */",
	             K->id, n, tri >= 0 ? cg_fmt(G, " and the %s of node %d in "
	             "its epilogue", g->n[tri].op, tri) : "");
	cg_sb_puts(&G->dev, dev);
	cg_sb_printf(&G->plan, "# k%d: node %d as the 3xTF32 GEMM\n", K->id, n);
	cg_sb_puts(&G->plan, launch);
	free(dev);
	free(launch);
	return 1;
}

void cg_lib_choices(cg_gen *G, int algo, int layout)
{
	if (algo && G->s.lib_algo > 0) {
		cg_sb_printf(&G->plan, " algo=%d", G->s.lib_algo);
		G->nalgo++;
	}
	if (layout && G->s.lib_layout) {
		cg_sb_puts(&G->plan, " layout=nhwc");
		G->nlayout++;
	}
	cg_sb_puts(&G->plan, "\n");
}

static krl_err emit_lib(cg_gen *G, cg_kern *K)
{
	const krl_graph *g = G->g;
	int n = K->anchor[0];
	const krl_gnode *x = &g->n[n];
	if (G->skip[n] == 1)
		return KRL_OK;
	if (G->s.gemm_impl == 1 && krl_opt_lib_gemm(g, n) && emit_gemm(G, K))
		return KRL_OK;
	cg_tconv tc;
	if (G->s.lib_tconv && cg_tconv_geom(g, n, &tc))
		return cg_emit_tconv(G, K, &tc);
	cg_sb_printf(&G->plan, "# k%d: library call (node %d)\n", K->id, n);
	cg_sb_printf(&G->plan, "call %s(", x->op);
	for (int i = 0; i < x->nin; i++)
		cg_sb_printf(&G->plan, "%s%s", i ? ", " : "",
		             cg_bufname(G, x->in[i]));
	cg_sb_puts(&G->plan, ") -> ");
	for (int j = 0; j < (x->nout > 0 ? x->nout : 1); j++) {
		int p = x->nout > 1 ? -1 : n;
		for (int m = n + 1; m < g->nn && p < 0; m++)
			if (g->n[m].kind == KRL_GN_PROJ && g->n[m].in[0] == n &&
			    g->n[m].index == j)
				p = m;
		if (p < 0) {
			snprintf(G->err, sizeof G->err, "output %d of '%s' (node "
			         "%d) is never used and has no shape", j, x->op, n);
			return KRL_EUNSUPPORTED;
		}
		if (cg_out_decl(g, p, 1) >= 0) {
			snprintf(G->err, sizeof G->err, "node %d is two outputs",
			         p);
			return KRL_EUNSUPPORTED;
		}
		cg_sb_printf(&G->plan, "%s%s", j ? ", " : "", cg_bufname(G, p));
	}
	for (int a = 0; a < x->nattrs; a++) {
		if (!strcmp(x->attrs[a].key, "algo") ||
		    !strcmp(x->attrs[a].key, "layout"))
			continue; /* the schedule's, below */
		cg_sb_printf(&G->plan, " %s=", x->attrs[a].key);
		expr_text(&G->plan, x->attrs[a].value);
	}
	cg_lib_choices(G, krl_opt_lib_takes_algo(g, n),
	               krl_opt_lib_takes_layout(g, n));
	return KRL_OK;
}

static void emit_helpers(cg_gen *G, cg_sb *o)
{
	unsigned need = G->need;
	cg_sb_puts(o,
	"/* NVRTC has no <math.h>: spell out infinity. */\n"
	"#ifndef INFINITY\n"
	"#define INFINITY __int_as_float(0x7f800000)\n"
	"#endif\n");
	if (need & CG_NEED_HALF)
		cg_sb_puts(o, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n");
	if (need & CG_NEED_DIV)
		cg_sb_puts(o,
	"\n/* a / b and a % b for a >= 0, b > 0: 32-bit division when both "
	"fit. */\n"
	"static __device__ __forceinline__ long krl_div(long a, long b)\n"
	"{\n"
	"\treturn ((unsigned long)a | (unsigned long)b) < 0x100000000ul ?\n"
	"\t       (long)((unsigned)a / (unsigned)b) : a / b;\n"
	"}\n"
	"\n"
	"static __device__ __forceinline__ long krl_mod(long a, long b)\n"
	"{\n"
	"\treturn ((unsigned long)a | (unsigned long)b) < 0x100000000ul ?\n"
	"\t       (long)((unsigned)a % (unsigned)b) : a % b;\n"
	"}\n");
	if (need & CG_NEED_MINMAX)
		cg_sb_puts(o,
	"\n/* min and max of 64-bit indices */\n"
	"static __device__ __forceinline__ long krl_minl(long a, long b)\n"
	"{\n"
	"\treturn a < b ? a : b;\n"
	"}\n"
	"\n"
	"static __device__ __forceinline__ long krl_maxl(long a, long b)\n"
	"{\n"
	"\treturn a > b ? a : b;\n"
	"}\n");
	if (need & (CG_NEED_RED | CG_NEED_ARG))
		cg_sb_puts(o,
	"\n/* max and min that propagate NaN, as torch's do */\n"
	"static __device__ __forceinline__ float krl_maxf(float a, float b)\n"
	"{\n"
	"\treturn (a > b || a != a) ? a : b;\n"
	"}\n"
	"\n"
	"static __device__ __forceinline__ float krl_minf(float a, float b)\n"
	"{\n"
	"\treturn (a < b || a != a) ? a : b;\n"
	"}\n");
	if (need & CG_NEED_ARG)
		cg_sb_puts(o,
	"\n/* Whether (v, i) beats the best (bv, bi) of an argmax (argmin): NaN\n"
	" * is the extreme, ties go to the smaller index (the first, as torch). "
	"*/\n"
	"static __device__ __forceinline__ bool krl_amax_better(float v, long long i,\n"
	"                                                       float bv, long long bi)\n"
	"{\n"
	"\tif (v != v)\n"
	"\t\treturn bv == bv || i < bi;\n"
	"\tif (bv != bv)\n"
	"\t\treturn false;\n"
	"\treturn v > bv || (v == bv && i < bi);\n"
	"}\n"
	"\n"
	"static __device__ __forceinline__ bool krl_amin_better(float v, long long i,\n"
	"                                                       float bv, long long bi)\n"
	"{\n"
	"\tif (v != v)\n"
	"\t\treturn bv == bv || i < bi;\n"
	"\tif (bv != bv)\n"
	"\t\treturn false;\n"
	"\treturn v < bv || (v == bv && i < bi);\n"
	"}\n");
	if (need & (CG_NEED_WARP | CG_NEED_BLOCK)) {
		cg_sb_puts(o,
	"\n/* Warp reductions; xor shuffles give every lane the same result. */\n"
	"static __device__ __forceinline__ double krl_warp_sum(double v)\n"
	"{\n"
	"\tfor (int off = 16; off > 0; off >>= 1)\n"
	"\t\tv += __shfl_xor_sync(0xffffffffu, v, off);\n"
	"\treturn v;\n"
	"}\n"
	"\n"
	"static __device__ __forceinline__ double krl_warp_prod(double v)\n"
	"{\n"
	"\tfor (int off = 16; off > 0; off >>= 1)\n"
	"\t\tv *= __shfl_xor_sync(0xffffffffu, v, off);\n"
	"\treturn v;\n"
	"}\n"
	"\n"
	"static __device__ __forceinline__ float krl_warp_max(float v)\n"
	"{\n"
	"\tfor (int off = 16; off > 0; off >>= 1)\n"
	"\t\tv = krl_maxf(v, __shfl_xor_sync(0xffffffffu, v, off));\n"
	"\treturn v;\n"
	"}\n"
	"\n"
	"static __device__ __forceinline__ float krl_warp_min(float v)\n"
	"{\n"
	"\tfor (int off = 16; off > 0; off >>= 1)\n"
	"\t\tv = krl_minf(v, __shfl_xor_sync(0xffffffffu, v, off));\n"
	"\treturn v;\n"
	"}\n");
		if (need & CG_NEED_ARG)
			cg_sb_puts(o,
	"\n"
	"static __device__ __forceinline__ void krl_warp_amax(float &v, long long &i)\n"
	"{\n"
	"\tfor (int off = 16; off > 0; off >>= 1) {\n"
	"\t\tfloat ov = __shfl_xor_sync(0xffffffffu, v, off);\n"
	"\t\tlong long oi = __shfl_xor_sync(0xffffffffu, i, off);\n"
	"\t\tif (krl_amax_better(ov, oi, v, i)) {\n"
	"\t\t\tv = ov;\n"
	"\t\t\ti = oi;\n"
	"\t\t}\n"
	"\t}\n"
	"}\n"
	"\n"
	"static __device__ __forceinline__ void krl_warp_amin(float &v, long long &i)\n"
	"{\n"
	"\tfor (int off = 16; off > 0; off >>= 1) {\n"
	"\t\tfloat ov = __shfl_xor_sync(0xffffffffu, v, off);\n"
	"\t\tlong long oi = __shfl_xor_sync(0xffffffffu, i, off);\n"
	"\t\tif (krl_amin_better(ov, oi, v, i)) {\n"
	"\t\t\tv = ov;\n"
	"\t\t\ti = oi;\n"
	"\t\t}\n"
	"\t}\n"
	"}\n");
	}
	if (need & CG_NEED_BLOCK) {
		cg_sb_puts(o,
	"\n/* Block reductions (blockDim.x a multiple of 32): every thread gets\n"
	" * the result. The first barrier lets a previous call finish reading\n"
	" * the shared slots. */\n"
	"#define KRL_BLOCK_RED(NAME, T, ID, WARP)                               \\\n"
	"\tstatic __device__ __forceinline__ T NAME(T v)                   \\\n"
	"\t{                                                               \\\n"
	"\t\t__shared__ T sh[32];                                      \\\n"
	"\t\tv = WARP(v);                                              \\\n"
	"\t\t__syncthreads();                                          \\\n"
	"\t\tif ((threadIdx.x & 31) == 0)                              \\\n"
	"\t\t\tsh[threadIdx.x >> 5] = v;                          \\\n"
	"\t\t__syncthreads();                                          \\\n"
	"\t\tv = (int)(threadIdx.x & 31) < (int)(blockDim.x >> 5) ?     \\\n"
	"\t\t    sh[threadIdx.x & 31] : (ID);                          \\\n"
	"\t\treturn WARP(v);                                           \\\n"
	"\t}\n"
	"KRL_BLOCK_RED(krl_block_sum, double, 0.0, krl_warp_sum)\n"
	"KRL_BLOCK_RED(krl_block_prod, double, 1.0, krl_warp_prod)\n"
	"KRL_BLOCK_RED(krl_block_max, float, -INFINITY, krl_warp_max)\n"
	"KRL_BLOCK_RED(krl_block_min, float, INFINITY, krl_warp_min)\n");
		if (need & CG_NEED_ARG)
			cg_sb_puts(o,
	"\n"
	"#define KRL_BLOCK_ARG(NAME, WARP, ID)                                  \\\n"
	"\tstatic __device__ __forceinline__ void NAME(float &v, long long &i) \\\n"
	"\t{                                                               \\\n"
	"\t\t__shared__ float shv[32];                                 \\\n"
	"\t\t__shared__ long long shi[32];                             \\\n"
	"\t\tWARP(v, i);                                               \\\n"
	"\t\t__syncthreads();                                          \\\n"
	"\t\tif ((threadIdx.x & 31) == 0) {                            \\\n"
	"\t\t\tshv[threadIdx.x >> 5] = v;                         \\\n"
	"\t\t\tshi[threadIdx.x >> 5] = i;                         \\\n"
	"\t\t}                                                         \\\n"
	"\t\t__syncthreads();                                          \\\n"
	"\t\tif ((int)(threadIdx.x & 31) < (int)(blockDim.x >> 5)) {    \\\n"
	"\t\t\tv = shv[threadIdx.x & 31];                         \\\n"
	"\t\t\ti = shi[threadIdx.x & 31];                         \\\n"
	"\t\t} else {                                                  \\\n"
	"\t\t\tv = (ID);                                          \\\n"
	"\t\t\ti = 0x4000000000000000ll;                          \\\n"
	"\t\t}                                                         \\\n"
	"\t\tWARP(v, i);                                               \\\n"
	"\t}\n"
	"KRL_BLOCK_ARG(krl_block_amax, krl_warp_amax, -INFINITY)\n"
	"KRL_BLOCK_ARG(krl_block_amin, krl_warp_amin, INFINITY)\n");
	}
}

void krl_sched_default(krl_sched *s)
{
	memset(s, 0, sizeof *s);
	s->fuse = 1;
	s->map_block = 256;
	s->map_vec = 4;
	s->map_ept = 1;
	s->map_grid = 0;
	s->row_strategy = CG_ROW_AUTO;
	s->row_block = 256;
	s->row_cache = 1;
	s->row_cols = 1;
	s->total_blocks = 8;
	s->total_block = 256;
	s->scan_block = 256;
	s->pool_block = 256;
	s->pool_ept = 1;
	s->pool_taps = 0;
}

static const char *kind_name(cg_kkind k)
{
	switch (k) {
	case CK_MAP: return "map";
	case CK_ROW: return "row";
	case CK_TOTAL: return "total";
	case CK_SCAN: return "scan";
	case CK_POOL: return "pool";
	default: return "library";
	}
}

static void gen_free(cg_gen *G)
{
	for (int i = 0; i < G->nstrs; i++)
		free(G->strs[i]);
	free(G->strs);
	free(G->nuse);
	free(G->mat);
	free(G->forcemap);
	free(G->skip);
	free(G->home);
	free(G->k);
	cg_sb_free(&G->dev);
	cg_sb_free(&G->plan);
	cg_sb_free(&G->bufs);
	cg_sb_free(&G->init);
}

/* Emits every kernel for the current grouping: KRL_OK, or KRL_EAGAIN-like
 * 1 when a node must be materialised first (G->fail), or an error. */
static int emit_all(cg_gen *G)
{
	for (int k = 0; k < G->nk; k++) {
		cg_kern *K = &G->k[k];
		krl_err r = KRL_OK;
		cg_args_reset(K);
		switch (K->kind) {
		case CK_MAP: r = cg_emit_map(G, K); break;
		case CK_ROW: r = cg_emit_row(G, K); break;
		case CK_TOTAL: r = cg_emit_total(G, K); break;
		case CK_SCAN: r = cg_emit_scan(G, K); break;
		case CK_POOL: r = cg_emit_pool(G, K); break;
		case CK_LIB: r = emit_lib(G, K); break;
		default: break;
		}
		if (G->fail >= 0)
			return 1;
		if (r)
			return -(int)r;
		if (G->err[0])
			return -(int)KRL_EUNSUPPORTED;
		if (G->oom)
			return -(int)KRL_ENOMEM;
	}
	return 0;
}

static void reset_output(cg_gen *G)
{
	cg_sb_free(&G->dev);
	cg_sb_free(&G->plan);
	cg_sb_free(&G->bufs);
	cg_sb_free(&G->init);
	G->need = 0;
	G->counter = 0;
	G->fail = -1;
	G->failforce = 0;
	G->gemm_bodies = 0;
	G->ngemm_tc = G->nfused_lib = 0;
	G->nalgo = G->nlayout = G->ntconv = 0;
	memset(G->skip, 0, (size_t)(G->g->nn > 0 ? G->g->nn : 1));
}

krl_err krl_codegen(const krl_graph *g, const krl_sched *s,
                    const char *header, char **text, char **summary,
                    krl_cginfo *info, krl_diag *d)
{
	if (info)
		memset(info, 0, sizeof *info);
	*text = NULL;
	if (summary)
		*summary = NULL;
	cg_gen G;
	memset(&G, 0, sizeof G);
	G.g = g;
	G.s = *s;
	G.fail = -1;
	krl_err r = KRL_OK;
	int nn = g->nn > 0 ? g->nn : 1;
	G.nuse = calloc((size_t)nn, sizeof *G.nuse);
	G.mat = calloc((size_t)nn, 1);
	G.forcemap = calloc((size_t)nn, 1);
	G.skip = calloc((size_t)nn, 1);
	G.home = calloc((size_t)nn, sizeof *G.home);
	if (!G.nuse || !G.mat || !G.forcemap || !G.home || !G.skip) {
		r = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
		goto done;
	}
	for (int n = 0; n < g->nn; n++) {
		const krl_gnode *x = &g->n[n];
		for (int i = 0; i < x->nin; i++)
			G.nuse[x->in[i]]++;
		if (x->kind == KRL_GN_LIB || x->kind == KRL_GN_PROJ)
			G.mat[n] = 1;
		if (!s->fuse && x->kind != KRL_GN_BUF &&
		    x->kind != KRL_GN_CONST)
			G.mat[n] = 1;
	}
	for (int i = 0; i < g->nout; i++)
		G.mat[g->out[i]] = 1;

	/* group, emit; materialise more and start again when needed */
	for (int round = 0;; round++) {
		if (round > 4 * g->nn + 8) {
			r = krl_diag_set(d, KRL_EUNSUPPORTED, (krl_pos){0},
			                 "code generation did not settle");
			goto done;
		}
		int f = form(&G);
		if (f < 0 || G.err[0] || G.oom) {
			r = G.oom ? KRL_ENOMEM : KRL_EUNSUPPORTED;
			krl_diag_set(d, r, (krl_pos){0}, "%s",
			             G.err[0] ? G.err : "out of memory");
			goto done;
		}
		if (f > 0)
			continue;
		reset_output(&G);
		int e = emit_all(&G);
		if (e == 1) {
			if (G.mat[G.fail] && !G.failforce) {
				r = krl_diag_set(d, KRL_EUNSUPPORTED, (krl_pos){0},
				                 "node %d cannot be evaluated where it "
				                 "is needed", G.fail);
				goto done;
			}
			G.mat[G.fail] = 1;
			if (G.failforce)
				G.forcemap[G.fail] = 1;
			continue;
		}
		if (e < 0) {
			r = (krl_err)-e;
			krl_diag_set(d, r, (krl_pos){0}, "%s",
			             G.err[0] ? G.err : krl_strerror(r));
			goto done;
		}
		break;
	}

	/* scratch buffers of materialised nodes */
	for (int n = 0; n < g->nn; n++) {
		const krl_gnode *x = &g->n[n];
		if (!G.mat[n] || x->kind == KRL_GN_BUF || is_output(g, n) ||
		    G.skip[n] == 2)
			continue;
		/* a call with several outputs writes them to its PROJ nodes */
		if (x->kind == KRL_GN_LIB && x->nout > 1)
			continue;
		cg_sb_printf(&G.bufs, "buffer t%d %s [", n,
		             krl_dtype_name(x->dtype));
		for (int i = 0; i < x->ndim; i++)
			cg_sb_printf(&G.bufs, "%s(%s)", i ? ", " : "",
			             x->dim[i].text);
		cg_sb_puts(&G.bufs, "]\n");
	}

	/* one line saying what the candidate does */
	cg_sb sm = { 0 };
	{
		int counts[CG_NKINDS] = { 0 }, ops = 0, first = 1;
		for (int k = 0; k < G.nk; k++)
			counts[G.k[k].kind]++;
		counts[CK_LIB] -= G.ngemm_tc + G.nfused_lib;
		int nk = G.nk - G.nfused_lib;
		for (int n = 0; n < g->nn; n++)
			if (g->n[n].kind != KRL_GN_BUF &&
			    g->n[n].kind != KRL_GN_CONST &&
			    g->n[n].kind != KRL_GN_PROJ &&
			    g->n[n].kind != KRL_GN_VIEW)
				ops++;
		cg_sb_printf(&sm, "%s %d op%s into %d kernel%s:",
		             s->fuse ? "fused" : "split", ops, ops == 1 ? "" : "s",
		             nk, nk == 1 ? "" : "s");
		if (G.ngemm_tc) {
			cg_sb_printf(&sm, " %d gemm (3xTF32%s)", G.ngemm_tc,
			             G.nfused_lib ? ", triangle fused" : "");
			first = 0;
		}
		for (int k = 0; k < CG_NKINDS; k++) {
			if (!counts[k])
				continue;
			cg_sb_printf(&sm, "%s %d %s", first ? "" : ",", counts[k],
			             kind_name((cg_kkind)k));
			first = 0;
			switch (k) {
			case CK_MAP:
				cg_sb_printf(&sm, " (block %d, vec %d, ept %d, %s)",
				             s->map_block, s->map_vec, s->map_ept,
				             s->map_grid ? "persistent" : "cdiv");
				break;
			case CK_ROW:
				if (s->row_cols > 1 && G.cols_wide)
					cg_sb_printf(&sm, " (4 columns per lane, block "
					             "512)");
				else
					cg_sb_printf(&sm, " (block %d, %s)", s->row_block,
					             s->row_cache ? "regs" : "reread");
				break;
			case CK_TOTAL:
				cg_sb_printf(&sm, " (%dx%d per SM)", s->total_blocks,
				             s->total_block);
				break;
			case CK_SCAN:
				cg_sb_printf(&sm, " (block %d)", s->scan_block);
				break;
			case CK_POOL:
				cg_sb_printf(&sm, " (block %d, ept %d, %s taps)",
				             s->pool_block, s->pool_ept,
				             s->pool_taps ? "mul" : "inc");
				break;
			default:
				if (G.ntconv)
					cg_sb_printf(&sm, " (%d transposed conv as "
					             "forward)", G.ntconv);
				if (G.nalgo && G.nlayout)
					cg_sb_printf(&sm, " (algo %d, layout nhwc)",
					             s->lib_algo);
				else if (G.nalgo)
					cg_sb_printf(&sm, " (algo %d)", s->lib_algo);
				else if (G.nlayout)
					cg_sb_puts(&sm, " (layout nhwc)");
				break;
			}
		}
	}

	cg_sb out = { 0 };
	cg_sb_puts(&out, "/*\n");
	if (header && *header) {
		const char *p = header;
		while (*p) {
			const char *e = strchr(p, '\n');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			cg_sb_printf(&out, " * %.*s\n", (int)len, p);
			p += len;
			if (*p)
				p++;
		}
	}
	cg_sb_printf(&out, " * %s\n *\n", sm.s ? sm.s : "");
	cg_sb_puts(&out, " * Written by kernelrl's code generator (docs/optimizer.md)."
	           " Kernels, in\n * the order the plan runs them:\n");
	for (int k = 0; k < G.nk; k++)
		cg_sb_printf(&out, " *   k%d: %s\n", k,
		             G.k[k].kind == CK_LIB && G.skip[G.k[k].anchor[0]] == 1 ?
		             "library call fused into the GEMM before it" :
		             G.k[k].kind == CK_LIB && G.skip[G.k[k].anchor[0]] >= 2 ?
		             "gemm (3xTF32)" : kind_name(G.k[k].kind));
	cg_sb_puts(&out, " * Every kernel indexes with 64-bit integers, guards every "
	           "load and store,\n * and takes its vector path only where a "
	           "run-time check says sizes allow.\n */\n\n");
	if (G.need)
		G.need |= CG_NEED_RED;
	emit_helpers(&G, &out);
	cg_sb_puts(&out, G.dev.s ? G.dev.s : "");
	cg_sb_puts(&out, "\n/*@plan\n");
	if (G.bufs.s)
		cg_sb_puts(&out, G.bufs.s);
	if (G.init.s) {
		cg_sb_puts(&out, "init\n");
		cg_sb_puts(&out, G.init.s);
		cg_sb_puts(&out, "end\n");
	}
	if (G.plan.s)
		cg_sb_puts(&out, G.plan.s);
	cg_sb_puts(&out, "@*/\n");
	if (out.oom || G.dev.oom || G.plan.oom || G.bufs.oom || G.init.oom ||
	    G.oom || sm.oom) {
		cg_sb_free(&out);
		cg_sb_free(&sm);
		r = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
		goto done;
	}
	*text = out.s;
	if (summary)
		*summary = sm.s;
	else
		cg_sb_free(&sm);
	if (info) {
		info->nk = G.nk;
		info->cols_wide = G.cols_wide;
		for (int k = 0; k < G.nk; k++) {
			const cg_kern *K = &G.k[k];
			info->count[K->kind]++;
			if (K->kind == CK_ROW) {
				const krl_gnode *sp = &g->n[K->space];
				if (dims_one(sp, K->ax1, sp->ndim))
					info->rows_inner1++;
				else
					info->rows_cols++;
			}
			if (K->kind == CK_LIB && krl_opt_lib_gemm(g, K->anchor[0]))
				info->nlib_gemm++;
		}
	}
done:
	gen_free(&G);
	return r;
}
