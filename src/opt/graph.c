/*
 * The op graph of the program optimizer (include/krl/opt.h): growing and
 * freeing it, node builders that work out a result's symbolic dims (numpy
 * broadcasting, reductions, views), dead-node removal, a one-line-per-node
 * dump, and the plan-expression texts the graph is written in: printing an
 * expression tree back to text, and parsing a text again to evaluate it at
 * another shape set (with the language's own parser, so a text the graph
 * holds is exactly what a candidate plan may say).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lexer.h"
#include "lang/plan.h"
#include "opt/opt_int.h"
#include "util/strbuf.h"

/* ==== Strings ==== */

char *krl_opt_strdup(const char *z)
{
	size_t n = strlen(z) + 1;
	char *s = malloc(n);
	if (s)
		memcpy(s, z, n);
	return s;
}

char *krl_opt_fmt(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = n < 0 ? NULL : malloc((size_t)n + 1);
	if (!s)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

int krl_opt_text_atomic(const char *z)
{
	if (!*z)
		return 0;
	for (const char *p = z; *p; p++)
		if (!(*p == '_' || *p == '.' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return 0;
	return 1;
}

/* z, parenthesised unless atomic; malloc'd. */
static char *paren(const char *z)
{
	return krl_opt_text_atomic(z) ? krl_opt_strdup(z)
	                              : krl_opt_fmt("(%s)", z);
}

char *krl_opt_text_binary(const char *a, char op, const char *b)
{
	if (op == '*' && strcmp(a, "1") == 0)
		return krl_opt_strdup(b);
	if ((op == '*' || op == '/') && strcmp(b, "1") == 0)
		return krl_opt_strdup(a);
	char *pa = paren(a), *pb = paren(b), *s = NULL;
	if (pa && pb)
		s = krl_opt_fmt("%s %c %s", pa, op, pb);
	free(pa);
	free(pb);
	return s;
}

char *krl_opt_num_text(double v)
{
	char buf[64];
	if (!isfinite(v))
		return NULL;
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, fabs(v));
		if (strtod(buf, NULL) == fabs(v))
			break;
	}
	if (!strpbrk(buf, ".e"))
		strcat(buf, ".0");
	return v < 0 ? krl_opt_fmt("(-%s)", buf) : krl_opt_strdup(buf);
}

/* ==== Expression texts ==== */

static int prec_of(const krl_expr *e)
{
	if (e->kind != KRL_EX_BINARY)
		return 3;
	return e->op == '+' || e->op == '-' ? 1 : 2;
}

static void print_expr(const krl_expr *e, krl_strbuf *b);

static void print_sub(const krl_expr *e, int parens, krl_strbuf *b)
{
	if (parens)
		krl_strbuf_str(b, "(");
	print_expr(e, b);
	if (parens)
		krl_strbuf_str(b, ")");
}

static void print_expr(const krl_expr *e, krl_strbuf *b)
{
	char num[64];
	switch (e->kind) {
	case KRL_EX_INT:
		snprintf(num, sizeof num, "%lld", (long long)e->ival);
		krl_strbuf_str(b, num);
		return;
	case KRL_EX_FLOAT: {
		char *z = krl_opt_num_text(e->fval);
		if (!z)
			b->oom = 1;
		else
			krl_strbuf_str(b, z);
		free(z);
		return;
	}
	case KRL_EX_NAME:
		krl_strbuf_str(b, e->name);
		return;
	case KRL_EX_CALL:
		krl_strbuf_str(b, e->name);
		krl_strbuf_str(b, "(");
		for (int i = 0; i < e->nargs; i++) {
			if (i)
				krl_strbuf_str(b, ", ");
			print_expr(e->args[i], b);
		}
		krl_strbuf_str(b, ")");
		return;
	case KRL_EX_NEG:
		krl_strbuf_str(b, "-");
		print_sub(e->lhs, e->lhs->kind == KRL_EX_BINARY ||
		                  e->lhs->kind == KRL_EX_NEG, b);
		return;
	case KRL_EX_BINARY: {
		int p = prec_of(e);
		char op[4] = { ' ', e->op, ' ', 0 };
		/* Left-associative: a right operand of equal precedence needs
		 * parentheses (a - (b - c)), a left one does not. */
		print_sub(e->lhs, prec_of(e->lhs) < p, b);
		krl_strbuf_str(b, op);
		print_sub(e->rhs, prec_of(e->rhs) <= p, b);
		return;
	}
	}
}

char *krl_opt_expr_text(const krl_expr *e)
{
	krl_strbuf b = { 0 };
	print_expr(e, &b);
	if (b.oom || !b.z) {
		krl_strbuf_free(&b);
		return NULL;
	}
	return krl_strbuf_take(&b);
}

krl_expr *krl_opt_expr_copy(const krl_expr *e)
{
	krl_expr *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	*c = *e;
	c->name = NULL;
	c->lhs = c->rhs = NULL;
	c->args = NULL;
	c->nargs = 0;
	int ok = 1;
	if (e->name)
		ok = (c->name = krl_opt_strdup(e->name)) != NULL;
	if (ok && e->lhs)
		ok = (c->lhs = krl_opt_expr_copy(e->lhs)) != NULL;
	if (ok && e->rhs)
		ok = (c->rhs = krl_opt_expr_copy(e->rhs)) != NULL;
	if (ok && e->nargs) {
		ok = (c->args = calloc((size_t)e->nargs, sizeof *c->args)) != NULL;
		for (int i = 0; ok && i < e->nargs; i++) {
			c->nargs = i + 1;
			ok = (c->args[i] = krl_opt_expr_copy(e->args[i])) != NULL;
		}
	}
	if (!ok) {
		krl_expr_free(c);
		return NULL;
	}
	return c;
}

int krl_opt_expr_literal(const krl_expr *e)
{
	switch (e->kind) {
	case KRL_EX_INT:
	case KRL_EX_FLOAT:
		return 1;
	case KRL_EX_NEG:
		return krl_opt_expr_literal(e->lhs);
	case KRL_EX_BINARY:
		return krl_opt_expr_literal(e->lhs) &&
		       krl_opt_expr_literal(e->rhs);
	case KRL_EX_CALL:
		for (int i = 0; i < e->nargs; i++)
			if (!krl_opt_expr_literal(e->args[i]))
				return 0;
		return strcmp(e->name, "sqrt") == 0 ||
		       strcmp(e->name, "min") == 0 ||
		       strcmp(e->name, "max") == 0 ||
		       strcmp(e->name, "cdiv") == 0;
	default:
		return 0;
	}
}

krl_err krl_opt_parse_text(const char *text, krl_expr **out, krl_diag *d)
{
	static const char file[] = "<graph expression>";
	krl_pos pos = { file, 0, 0 };
	krl_tok *toks = NULL;
	int ntok = 0;
	*out = NULL;
	krl_err r = krl_lex(file, text, strlen(text), 1, 1, &toks, &ntok, d);
	if (r)
		return r;
	krl_parser p = { toks, ntok, 0, d };
	if ((r = krl_parse_expr(&p, out)) == KRL_OK) {
		krl_tokkind k = krl_p_peek(&p)->kind;
		if (k != KRL_T_EOF && k != KRL_T_NL)
			r = krl_diag_set(d, KRL_ESYNTAX, pos,
			                 "'%s' is more than one expression", text);
	}
	if (r) {
		krl_expr_free(*out);
		*out = NULL;
	}
	krl_toks_free(toks, ntok);
	return r;
}

krl_err krl_opt_eval_text(const char *text, const krl_scope *sc,
                          krl_value *out, krl_diag *d)
{
	krl_pos pos = { "<graph expression>", 0, 0 };
	krl_expr *e = NULL;
	krl_err r = krl_opt_parse_text(text, &e, d);
	if (r == KRL_OK && (r = krl_expr_eval(e, sc, out, d)) != KRL_OK) {
		char msg[sizeof d->msg];
		snprintf(msg, sizeof msg, "%s", d ? d->msg : "");
		krl_diag_set(d, r, pos, "evaluating '%s': %s", text, msg);
	}
	krl_expr_free(e);
	return r;
}

/* ==== Scopes ==== */

krl_err krl_opt_scope_init(krl_opt_scope *s, const krl_task *t,
                           const char *set, krl_diag *d)
{
	krl_pos pos = { t->path, 0, 0 };
	memset(s, 0, sizeof *s);
	const krl_shapeset *ss = krl_task_shapeset(t, set);
	if (!ss)
		return krl_diag_set(d, KRL_ENOTFOUND, pos,
		                    "no shape set '%s' in the task", set);
	krl_err r = krl_setscope_init(&s->names, t, ss,
	                              krl_limits_sm90().sm_count, d);
	if (r) {
		krl_opt_scope_free(s);
		return r;
	}
	s->bufs = calloc((size_t)t->ndecls + 1, sizeof *s->bufs);
	if (!s->bufs) {
		krl_opt_scope_free(s);
		return krl_diag_set(d, KRL_ENOMEM, pos, "out of memory");
	}
	s->scope = s->names.scope;
	s->scope.bufs = s->bufs;
	for (int i = 0; i < t->ndecls; i++) {
		const krl_decl *dc = &t->decls[i];
		krl_bufshape *b = &s->bufs[i];
		b->name = dc->name;
		b->dtype = dc->dtype;
		b->ndim = dc->ndim;
		for (int k = 0; k < dc->ndim; k++) {
			krl_value v;
			r = krl_expr_eval(dc->dim[k], &s->scope, &v, d);
			if (r) {
				krl_opt_scope_free(s);
				return r;
			}
			b->dim[k] = v.is_float ? (int64_t)v.f : v.i;
		}
		s->scope.nbufs = i + 1;
	}
	return KRL_OK;
}

void krl_opt_scope_free(krl_opt_scope *s)
{
	krl_setscope_free(&s->names);
	free(s->bufs);
	memset(s, 0, sizeof *s);
}

/* ==== What a library node's op declares ==== */

unsigned krl_opt_lib_caps(const krl_graph *g, int i)
{
	const krl_gnode *x = &g->n[i];
	const krl_op *op = x->kind == KRL_GN_LIB && x->op ?
	                   krl_op_find(x->op) : NULL;
	return op ? op->caps : 0;
}

int krl_opt_lib_takes_algo(const krl_graph *g, int i)
{
	return (krl_opt_lib_caps(g, i) & KRL_OPCAP_ALGO) != 0;
}

int krl_opt_lib_takes_layout(const krl_graph *g, int i)
{
	return (krl_opt_lib_caps(g, i) & KRL_OPCAP_LAYOUT) != 0;
}

int krl_opt_lib_tconv(const krl_graph *g, int i)
{
	return (krl_opt_lib_caps(g, i) & KRL_OPCAP_TCONV) != 0;
}

/* ==== Nodes ==== */

void krl_gnode_clear(krl_gnode *n)
{
	for (int i = 0; i < KRL_MAX_DIM; i++)
		free(n->dim[i].text);
	free(n->cexpr);
	for (int i = 0; i < n->nattrs; i++) {
		free(n->attrs[i].key);
		krl_expr_free(n->attrs[i].value);
	}
	free(n->attrs);
	memset(n, 0, sizeof *n);
}

krl_err krl_opt_attrs_copy(const krl_attr *src, int n, krl_attr **out)
{
	*out = NULL;
	if (!n)
		return KRL_OK;
	krl_attr *a = calloc((size_t)n, sizeof *a);
	if (!a)
		return KRL_ENOMEM;
	for (int i = 0; i < n; i++) {
		a[i].pos = src[i].pos;
		a[i].key = krl_opt_strdup(src[i].key);
		a[i].value = krl_opt_expr_copy(src[i].value);
		if (!a[i].key || !a[i].value) {
			for (int k = 0; k <= i; k++) {
				free(a[k].key);
				krl_expr_free(a[k].value);
			}
			free(a);
			return KRL_ENOMEM;
		}
	}
	*out = a;
	return KRL_OK;
}

krl_err krl_gnode_copy(krl_gnode *dst, const krl_gnode *src)
{
	*dst = *src;
	for (int i = 0; i < KRL_MAX_DIM; i++)
		dst->dim[i].text = NULL;
	dst->cexpr = NULL;
	dst->attrs = NULL;
	dst->nattrs = 0;
	int ok = 1;
	for (int i = 0; ok && i < src->ndim; i++)
		ok = (dst->dim[i].text = krl_opt_strdup(src->dim[i].text)) != NULL;
	if (ok && src->cexpr)
		ok = (dst->cexpr = krl_opt_strdup(src->cexpr)) != NULL;
	if (ok && src->nattrs) {
		ok = krl_opt_attrs_copy(src->attrs, src->nattrs, &dst->attrs) ==
		     KRL_OK;
		if (ok)
			dst->nattrs = src->nattrs;
	}
	if (!ok) {
		krl_gnode_clear(dst);
		return KRL_ENOMEM;
	}
	return KRL_OK;
}

int64_t krl_gnode_dims_text(const krl_gnode *x, int from, int to, char *buf,
                            size_t cap)
{
	int64_t v = 1;
	size_t k = 0;
	buf[0] = 0;
	for (int i = from; i < to; i++) {
		krl_scope none = { 0 };
		krl_value one;
		if (x->dim[i].val == 1 &&
		    krl_opt_eval_text(x->dim[i].text, &none, &one, NULL) == KRL_OK)
			continue; /* a literal size 1 */
		v *= x->dim[i].val;
		k += (size_t)snprintf(buf + k, k < cap ? cap - k : 0, "%s(%s)",
		                      k ? " * " : "", x->dim[i].text);
	}
	if (!k)
		snprintf(buf, cap, "1");
	return v;
}

int krl_gnode_lib_literal(const krl_gnode *n, const char *key, double dflt,
                          double *v)
{
	*v = dflt;
	for (int i = 0; i < n->nattrs; i++) {
		if (strcmp(n->attrs[i].key, key) != 0)
			continue;
		krl_scope empty = { 0 };
		krl_value x;
		if (!krl_opt_expr_literal(n->attrs[i].value) ||
		    krl_expr_eval(n->attrs[i].value, &empty, &x, NULL))
			return 0;
		*v = x.is_float ? x.f : (double)x.i;
	}
	return 1;
}

int krl_gnode_dim_attr(const krl_gnode *n)
{
	for (int a = 0; a < n->nattrs; a++) {
		if (strcmp(n->attrs[a].key, "dim"))
			continue;
		char *z = krl_opt_expr_text(n->attrs[a].value), *end = NULL;
		long d = z ? strtol(z, &end, 10) : 0;
		int ok = z && end != z && !*end;
		free(z);
		if (!ok)
			return -1;
		if (d < 0)
			d += n->ndim;
		return d >= 0 && d < n->ndim ? (int)d : -1;
	}
	return 0;
}

int64_t krl_gnode_numel(const krl_gnode *n)
{
	int64_t k = 1;
	for (int i = 0; i < n->ndim; i++)
		k *= n->dim[i].val;
	return k;
}

/* ==== The graph ==== */

krl_graph *krl_graph_new(const krl_task *t)
{
	krl_graph *g = calloc(1, sizeof *g);
	if (g)
		g->task = t;
	return g;
}

int krl_graph_add(krl_graph *g, const krl_gnode *n)
{
	if (g->nn == g->cap) {
		int cap = g->cap ? 2 * g->cap : 32;
		krl_gnode *p = realloc(g->n, (size_t)cap * sizeof *p);
		if (!p) {
			krl_gnode tmp = *n;
			krl_gnode_clear(&tmp);
			return -1;
		}
		g->n = p;
		g->cap = cap;
	}
	g->n[g->nn] = *n;
	return g->nn++;
}

void krl_graph_free(krl_graph *g)
{
	if (!g)
		return;
	for (int i = 0; i < g->nn; i++)
		krl_gnode_clear(&g->n[i]);
	free(g->n);
	free(g);
}

krl_graph *krl_graph_clone(const krl_graph *g)
{
	krl_graph *c = krl_graph_new(g->task);
	if (!c)
		return NULL;
	for (int i = 0; i < g->nn; i++) {
		krl_gnode n;
		if (krl_gnode_copy(&n, &g->n[i]) || krl_graph_add(c, &n) < 0) {
			krl_graph_free(c);
			return NULL;
		}
	}
	memcpy(c->out, g->out, sizeof c->out);
	memcpy(c->outdecl, g->outdecl, sizeof c->outdecl);
	c->nout = g->nout;
	return c;
}

int krl_graph_users(const krl_graph *g, int i)
{
	int k = 0;
	for (int j = i + 1; j < g->nn; j++)
		for (int q = 0; q < g->n[j].nin; q++)
			k += g->n[j].in[q] == i;
	for (int q = 0; q < g->nout; q++)
		k += g->out[q] == i;
	return k;
}

int krl_graph_fused_readers(const krl_graph *g, int i, int cat)
{
	int k = 0;
	for (int j = i + 1; j < g->nn; j++)
		for (int q = 0; q < g->n[j].nin; q++)
			if (g->n[j].in[q] == i) {
				const krl_gnode *r = &g->n[j];
				if (r->kind != KRL_GN_PW && r->kind != KRL_GN_REDUCE &&
				    r->kind != KRL_GN_POOL &&
				    !(cat && r->kind == KRL_GN_LIB &&
				      (!strcmp(r->op, "cat") ||
				       (q == 0 && (!strcmp(r->op, "conv") ||
				                   !strcmp(r->op, "conv_bias"))))))
					return 0;
				k++;
			}
	return k;
}

int krl_graph_pw_readers(const krl_graph *g, int i)
{
	int k = 0;
	for (int j = i + 1; j < g->nn; j++)
		for (int q = 0; q < g->n[j].nin; q++)
			if (g->n[j].in[q] == i) {
				if (g->n[j].kind != KRL_GN_PW &&
				    g->n[j].kind != KRL_GN_REDUCE)
					return 0;
				k++;
			}
	return k;
}

int krl_graph_is_output(const krl_graph *g, int i)
{
	for (int q = 0; q < g->nout; q++)
		if (g->out[q] == i)
			return 1;
	return 0;
}

/* Whether shape key k has one value in every named shape set of t. */
static int key_same_in_sets(const krl_task *t, const char *k)
{
	int seen = 0;
	int64_t v0 = 0;
	for (int s = 0; s < t->nsets; s++) {
		const krl_shapeset *ss = &t->sets[s];
		int j = 0;
		while (j < ss->n && strcmp(ss->keys[j], k))
			j++;
		if (j == ss->n)
			return 0;
		if (seen && ss->vals[j] != v0)
			return 0;
		v0 = ss->vals[j];
		seen = 1;
	}
	return 1;
}

int krl_graph_text_fixed(const krl_graph *g, const char *text)
{
	krl_scope empty = { 0 };
	krl_value v;
	if (krl_opt_eval_text(text, &empty, &v, NULL) == KRL_OK)
		return 1;
	const krl_task *t = g->task;
	for (int i = 0; t && i < t->nfixed; i++)
		if (strcmp(t->fixed[i], text) == 0)
			return key_same_in_sets(t, text);
	return 0;
}

void krl_dim_text_norm(const char *a, char *out, size_t cap)
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

/* Text z normalised (krl_dim_text_norm), a const's name replaced by its
 * expression (t's, up to 8 deep), in out[cap]; 0 when out of memory. */
static int text_norm(const krl_task *t, const char *z, char *out, size_t cap)
{
	char *own = NULL;
	for (int depth = 0; depth < 8; depth++) {
		krl_dim_text_norm(z, out, cap);
		int c = -1;
		for (int i = 0; t && i < t->nconsts && c < 0; i++)
			if (!strcmp(t->const_names[i], out))
				c = i;
		free(own);
		own = NULL;
		if (c < 0)
			return 1;
		if (!(own = krl_opt_expr_text(t->const_vals[c])))
			return 0;
		z = own;
	}
	free(own);
	return 1;
}

int krl_graph_text_norm(const krl_graph *g, const char *z, char *out,
                        size_t cap)
{
	return text_norm(g->task, z, out, cap);
}

int krl_graph_text_same(const krl_graph *g, const char *a, const char *b)
{
	char x[512], y[512];
	/* equal texts normalise alike (the kernel grouping asks this of
	 * every pair of dims it compares: most are the same text) */
	if (!strcmp(a, b) && strlen(a) < sizeof x)
		return 1;
	return text_norm(g->task, a, x, sizeof x) &&
	       text_norm(g->task, b, y, sizeof y) && !strcmp(x, y);
}

krl_err krl_graph_compact(krl_graph *g, int *removed)
{
	int *map = calloc((size_t)g->nn + 1, sizeof *map);
	if (removed)
		*removed = 0;
	if (!map)
		return KRL_ENOMEM;
	for (int q = 0; q < g->nout; q++)
		map[g->out[q]] = 1;
	for (int i = g->nn - 1; i >= 0; i--)
		if (map[i])
			for (int q = 0; q < g->n[i].nin; q++)
				map[g->n[i].in[q]] = 1;
	/* A library call writes all its outputs: each keeps its PROJ. */
	for (int i = 0; i < g->nn; i++)
		if (g->n[i].kind == KRL_GN_PROJ && map[g->n[i].in[0]])
			map[i] = 1;
	/* Task buffers stay (codegen and interp index them by decl) even
	 * when nothing reads them. */
	int j = 0;
	for (int i = 0; i < g->nn; i++) {
		if (!map[i] && g->n[i].kind != KRL_GN_BUF) {
			krl_gnode_clear(&g->n[i]);
			map[i] = -1;
			continue;
		}
		krl_gnode *n = &g->n[i];
		for (int q = 0; q < n->nin; q++)
			n->in[q] = map[n->in[q]];
		map[i] = j;
		if (j != i)
			g->n[j] = *n;
		j++;
	}
	for (int q = 0; q < g->nout; q++)
		g->out[q] = map[g->out[q]];
	if (removed)
		*removed = g->nn - j;
	g->nn = j;
	free(map);
	return KRL_OK;
}

/* ==== Node builders ==== */

static krl_err oom(krl_graph *g, krl_diag *d)
{
	krl_pos pos = { g->task ? g->task->path : NULL, 0, 0 };
	return krl_diag_set(d, KRL_ENOMEM, pos, "out of memory");
}

/* Appends n (owning its strings) and sets *out. */
static krl_err push(krl_graph *g, krl_gnode *n, int *out, krl_diag *d)
{
	int i = krl_graph_add(g, n);
	if (i < 0)
		return oom(g, d);
	*out = i;
	return KRL_OK;
}

static int set_dim(krl_gnode *n, int k, const char *text, int64_t val)
{
	n->dim[k].val = val;
	return (n->dim[k].text = krl_opt_strdup(text)) != NULL;
}

/* Node x's dims as "[a, b]" into buf. */
static const char *dims_str(const krl_gnode *x, char *buf, size_t cap)
{
	size_t k = (size_t)snprintf(buf, cap, "[");
	for (int i = 0; i < x->ndim && k < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%s=%lld", i ? ", " : "",
		                      x->dim[i].text, (long long)x->dim[i].val);
	if (k < cap)
		snprintf(buf + k, cap - k, "]");
	return buf;
}

krl_err krl_graph_const(krl_graph *g, const char *text, double val,
                        int *out, krl_diag *d)
{
	krl_gnode n = { .kind = KRL_GN_CONST, .dtype = KRL_F32 };
	n.cval = val;
	if (!(n.cexpr = krl_opt_strdup(text)))
		return oom(g, d);
	return push(g, &n, out, d);
}

krl_err krl_graph_const_num(krl_graph *g, double val, int *out, krl_diag *d)
{
	char *z = krl_opt_num_text(val);
	krl_pos pos = { g->task ? g->task->path : NULL, 0, 0 };
	if (!z)
		return isfinite(val) ? oom(g, d)
		       : krl_diag_set(d, KRL_EINVAL, pos,
		                      "constant %g is not finite", val);
	krl_err r = krl_graph_const(g, z, val, out, d);
	free(z);
	return r;
}

krl_err krl_graph_pw(krl_graph *g, krl_pwop op, const int *in, int *out,
                     krl_diag *d)
{
	const krl_pwinfo *pi = krl_pw_info(op);
	krl_pos pos = { g->task ? g->task->path : NULL, 0, 0 };
	krl_gnode n = { .kind = KRL_GN_PW, .dtype = KRL_F32, .pw = op };
	n.nin = pi->nin;
	for (int q = 0; q < n.nin; q++) {
		n.in[q] = in[q];
		if (g->n[in[q]].ndim > n.ndim)
			n.ndim = g->n[in[q]].ndim;
	}
	/* numpy broadcasting, right-aligned: a dim of value 1 takes the
	 * others'; between several of value 1, the first written other than
	 * "1" is kept, so that a symbolic key stays symbolic. */
	for (int k = 0; k < n.ndim; k++) {
		const krl_gdim *best = NULL;
		for (int q = 0; q < n.nin; q++) {
			const krl_gnode *x = &g->n[in[q]];
			int at = x->ndim - n.ndim + k;
			if (at < 0)
				continue;
			const krl_gdim *dx = &x->dim[at];
			if (!best || (best->val == 1 && dx->val != 1) ||
			    (best->val == 1 && dx->val == 1 &&
			     strcmp(best->text, "1") == 0)) {
				best = dx;
			} else if (dx->val != 1 && dx->val != best->val) {
				char b1[256], b2[256];
				krl_gnode_clear(&n);
				return krl_diag_set(
					d, KRL_EINVAL, pos, "%s: operand shapes %s and %s "
					"do not broadcast", pi->name,
					dims_str(&g->n[in[0]], b1, sizeof b1),
					dims_str(x, b2, sizeof b2));
			}
		}
		if (!set_dim(&n, k, best->text, best->val)) {
			krl_gnode_clear(&n);
			return oom(g, d);
		}
	}
	return push(g, &n, out, d);
}

krl_err krl_graph_reduce(krl_graph *g, krl_redop op, int x, int axis,
                         int naxes, int keep, int *out, krl_diag *d)
{
	const krl_gnode *xn = &g->n[x];
	krl_pos pos = { g->task ? g->task->path : NULL, 0, 0 };
	if (axis < 0 || naxes < 1 || axis + naxes > xn->ndim ||
	    (naxes > 1 && (op == KRL_RED_ARGMAX || op == KRL_RED_ARGMIN)))
		return krl_diag_set(d, KRL_EINVAL, pos, "reduction over axes "
		                    "[%d, %d) of a tensor of rank %d", axis,
		                    axis + naxes, xn->ndim);
	krl_gnode n = { .kind = KRL_GN_REDUCE, .red = op, .nin = 1 };
	n.in[0] = x;
	n.axis = axis;
	n.naxes = naxes;
	n.keep = keep != 0;
	n.dtype = op == KRL_RED_ARGMAX || op == KRL_RED_ARGMIN ? KRL_I64
	                                                      : xn->dtype;
	for (int k = 0; k < xn->ndim; k++) {
		int inside = k >= axis && k < axis + naxes;
		if (inside && !keep)
			continue;
		if (!(inside ? set_dim(&n, n.ndim, "1", 1)
		             : set_dim(&n, n.ndim, xn->dim[k].text,
		                       xn->dim[k].val))) {
			krl_gnode_clear(&n);
			return oom(g, d);
		}
		n.ndim++;
	}
	return push(g, &n, out, d);
}

/* A node shaped like x: scan and flip. */
static krl_err like(krl_graph *g, krl_gnode *n, int x, int axis, int *out,
                    krl_diag *d)
{
	const krl_gnode *xn = &g->n[x];
	krl_pos pos = { g->task ? g->task->path : NULL, 0, 0 };
	if (axis < 0 || axis >= xn->ndim)
		return krl_diag_set(d, KRL_EINVAL, pos, "axis %d of a tensor of "
		                    "rank %d", axis, xn->ndim);
	n->nin = 1;
	n->in[0] = x;
	n->axis = axis;
	n->dtype = xn->dtype;
	n->ndim = xn->ndim;
	for (int k = 0; k < xn->ndim; k++)
		if (!set_dim(n, k, xn->dim[k].text, xn->dim[k].val)) {
			krl_gnode_clear(n);
			return oom(g, d);
		}
	return push(g, n, out, d);
}

krl_err krl_graph_scan(krl_graph *g, krl_scanop op, int x, int axis,
                       int reverse, int exclusive, int *out, krl_diag *d)
{
	krl_gnode n = { .kind = KRL_GN_SCAN, .scan = op };
	n.reverse = reverse != 0;
	n.exclusive = exclusive != 0;
	return like(g, &n, x, axis, out, d);
}

krl_err krl_graph_flip(krl_graph *g, int x, int axis, int *out, krl_diag *d)
{
	krl_gnode n = { .kind = KRL_GN_FLIP };
	return like(g, &n, x, axis, out, d);
}

krl_err krl_graph_gather(krl_graph *g, int x, int idx, int axis, int *out,
                         krl_diag *d)
{
	const krl_gnode *xn = &g->n[x], *in = &g->n[idx];
	krl_pos pos = { g->task ? g->task->path : NULL, 0, 0 };
	int ok = axis >= 0 && axis < xn->ndim && in->ndim == xn->ndim - 1;
	for (int k = 0, j = 0; ok && k < xn->ndim; k++)
		if (k != axis)
			ok = in->dim[j++].val == xn->dim[k].val;
	if (!ok) {
		char b1[256], b2[256];
		return krl_diag_set(d, KRL_EINVAL, pos, "gather along axis %d of "
		                    "%s by indices %s", axis,
		                    dims_str(xn, b1, sizeof b1),
		                    dims_str(in, b2, sizeof b2));
	}
	krl_gnode n = { .kind = KRL_GN_GATHER, .dtype = xn->dtype, .nin = 2 };
	n.in[0] = x;
	n.in[1] = idx;
	n.axis = axis;
	for (int k = 0; k < xn->ndim; k++) {
		if (k == axis)
			continue;
		if (!set_dim(&n, n.ndim++, xn->dim[k].text, xn->dim[k].val)) {
			krl_gnode_clear(&n);
			return oom(g, d);
		}
	}
	return push(g, &n, out, d);
}

krl_err krl_graph_view(krl_graph *g, int x, int ndim, const krl_gdim *dims,
                       int *out, krl_diag *d)
{
	const krl_gnode *xn = &g->n[x];
	krl_pos pos = { g->task ? g->task->path : NULL, 0, 0 };
	krl_gnode n = { .kind = KRL_GN_VIEW, .dtype = xn->dtype, .nin = 1 };
	n.in[0] = x;
	n.ndim = ndim;
	for (int k = 0; k < ndim; k++)
		if (!set_dim(&n, k, dims[k].text, dims[k].val)) {
			krl_gnode_clear(&n);
			return oom(g, d);
		}
	if (krl_gnode_numel(&n) != krl_gnode_numel(xn)) {
		char b1[256], b2[256];
		krl_err r = krl_diag_set(d, KRL_EINVAL, pos, "a view of %s as %s "
		                         "changes the element count",
		                         dims_str(xn, b1, sizeof b1),
		                         dims_str(&n, b2, sizeof b2));
		krl_gnode_clear(&n);
		return r;
	}
	return push(g, &n, out, d);
}

int krl_graph_unview(const krl_graph *g, int x)
{
	while (g->n[x].kind == KRL_GN_VIEW)
		x = g->n[x].in[0];
	return x;
}

krl_err krl_graph_view_as(krl_graph *g, int x, int ndim, const krl_gdim *dims,
                          int *out, krl_diag *d)
{
	x = krl_graph_unview(g, x);
	const krl_gnode *xn = &g->n[x];
	int same = xn->ndim == ndim;
	for (int k = 0; same && k < ndim; k++)
		same = xn->dim[k].val == dims[k].val &&
		       !strcmp(xn->dim[k].text, dims[k].text);
	if (same) {
		*out = x;
		return KRL_OK;
	}
	return krl_graph_view(g, x, ndim, dims, out, d);
}

krl_err krl_graph_lib(krl_graph *g, const char *op, const int *in, int nin,
                      int ndim, const krl_gdim *dims, const krl_gattr *attrs,
                      int nattrs, int *out, krl_diag *d)
{
	krl_pos pos = { g->task ? g->task->path : NULL, 0, 0 };
	const krl_op *o = krl_op_find(op);
	if (!o || nin > KRL_MAX_CALL_IN || nattrs > KRL_MAX_ATTR ||
	    ndim > KRL_MAX_DIM)
		return krl_diag_set(d, KRL_EINVAL, pos, "a library node of op "
		                    "'%s' with %d inputs, %d attributes", op, nin,
		                    nattrs);
	krl_gnode n = { .kind = KRL_GN_LIB, .op = o->name, .nin = nin,
	                .nout = 1, .dtype = g->n[in[0]].dtype };
	for (int q = 0; q < nin; q++)
		n.in[q] = in[q];
	n.ndim = ndim;
	for (int k = 0; k < ndim; k++)
		if (!set_dim(&n, k, dims[k].text, dims[k].val)) {
			krl_gnode_clear(&n);
			return oom(g, d);
		}
	if (nattrs && !(n.attrs = calloc((size_t)nattrs, sizeof *n.attrs))) {
		krl_gnode_clear(&n);
		return oom(g, d);
	}
	for (int a = 0; a < nattrs; a++) {
		krl_err r;
		n.nattrs = a + 1;
		n.attrs[a].pos = pos;
		if (!(n.attrs[a].key = krl_opt_strdup(attrs[a].key))) {
			krl_gnode_clear(&n);
			return oom(g, d);
		}
		if ((r = krl_opt_parse_text(attrs[a].text, &n.attrs[a].value, d))) {
			krl_gnode_clear(&n);
			return r;
		}
		n.aval[a] = attrs[a].val;
	}
	return push(g, &n, out, d);
}

krl_err krl_graph_pool(krl_graph *g, krl_poolop op, const char *name,
                       int x, int rank, const krl_attr *attrs, int nattrs,
                       const krl_gdim *out, int *res, krl_diag *d)
{
	const krl_gnode *xn = &g->n[x];
	krl_pos pos = { g->task ? g->task->path : NULL, 0, 0 };
	if (rank < 1 || rank > 3 || xn->ndim < rank + 1)
		return krl_diag_set(d, KRL_EINVAL, pos, "%s: a %d-d pool of a "
		                    "tensor of rank %d", name, rank, xn->ndim);
	krl_gnode n = { .kind = KRL_GN_POOL, .pool = op, .op = name, .nin = 1 };
	n.in[0] = x;
	n.ndim = xn->ndim;
	n.axis = xn->ndim - rank;
	n.naxes = rank;
	n.dtype = op == KRL_POOL_ARGMAX ? KRL_I64 : xn->dtype;
	for (int k = 0; k < xn->ndim; k++) {
		const krl_gdim *dk = k < n.axis ? &xn->dim[k] : &out[k - n.axis];
		if (!set_dim(&n, k, dk->text, dk->val)) {
			krl_gnode_clear(&n);
			return oom(g, d);
		}
	}
	if (krl_opt_attrs_copy(attrs, nattrs, &n.attrs)) {
		krl_gnode_clear(&n);
		return oom(g, d);
	}
	n.nattrs = nattrs;
	return push(g, &n, res, d);
}

/* ==== Dump ==== */

static const char *kind_name(krl_gkind k)
{
	static const char *const names[] = {
		"buf", "const", "pw", "reduce", "scan", "gather", "flip", "lib",
		"proj", "view", "pool",
	};
	return (int)k >= 0 && (size_t)k < sizeof names / sizeof names[0]
	       ? names[k] : "?";
}

static const char *red_name(krl_redop r)
{
	static const char *const names[] = {
		"sum", "prod", "max", "min", "argmax", "argmin",
	};
	return (int)r >= 0 && (size_t)r < sizeof names / sizeof names[0]
	       ? names[r] : "?";
}

char *krl_graph_format(const krl_graph *g)
{
	krl_strbuf b = { 0 };
	char line[1024], dims[512];
	for (int i = 0; i < g->nn; i++) {
		const krl_gnode *n = &g->n[i];
		size_t k = (size_t)snprintf(line, sizeof line, "%%%d = %s", i,
		                            kind_name(n->kind));
		switch (n->kind) {
		case KRL_GN_BUF:
			k += (size_t)snprintf(line + k, sizeof line - k, " %s",
			                      g->task ? g->task->decls[n->buf].name
			                              : "?");
			break;
		case KRL_GN_CONST:
			k += (size_t)snprintf(line + k, sizeof line - k, " %s (%g)",
			                      n->cexpr, n->cval);
			break;
		case KRL_GN_PW:
			k += (size_t)snprintf(line + k, sizeof line - k, " %s",
			                      krl_pw_info(n->pw)->name);
			break;
		case KRL_GN_REDUCE:
			k += (size_t)snprintf(line + k, sizeof line - k,
			                      " %s axes %d..%d%s", red_name(n->red),
			                      n->axis, n->axis + n->naxes - 1,
			                      n->keep ? " keep" : "");
			break;
		case KRL_GN_SCAN:
			k += (size_t)snprintf(line + k, sizeof line - k,
			                      " %s axis %d%s%s",
			                      n->scan == KRL_SCAN_SUM ? "sum" : "prod",
			                      n->axis, n->reverse ? " reverse" : "",
			                      n->exclusive ? " exclusive" : "");
			break;
		case KRL_GN_GATHER:
		case KRL_GN_FLIP:
			k += (size_t)snprintf(line + k, sizeof line - k, " axis %d",
			                      n->axis);
			break;
		case KRL_GN_POOL:
		case KRL_GN_LIB:
			k += (size_t)snprintf(line + k, sizeof line - k, " %s",
			                      n->op);
			if (n->kind == KRL_GN_POOL && k < sizeof line)
				k += (size_t)snprintf(line + k, sizeof line - k, " %s",
				                      n->pool == KRL_POOL_MAX ? "max" :
				                      n->pool == KRL_POOL_ARGMAX ?
				                      "argmax" : "avg");
			for (int a = 0; a < n->nattrs && k < sizeof line; a++) {
				char *v = krl_opt_expr_text(n->attrs[a].value);
				k += (size_t)snprintf(line + k, sizeof line - k,
				                      " %s=%s", n->attrs[a].key,
				                      v ? v : "?");
				free(v);
			}
			break;
		case KRL_GN_PROJ:
			k += (size_t)snprintf(line + k, sizeof line - k, " #%d",
			                      n->index);
			break;
		case KRL_GN_VIEW:
			break;
		}
		for (int q = 0; q < n->nin && k < sizeof line; q++)
			k += (size_t)snprintf(line + k, sizeof line - k, "%s%%%d",
			                      q ? ", " : " (", n->in[q]);
		if (n->nin && k < sizeof line)
			k += (size_t)snprintf(line + k, sizeof line - k, ")");
		if (k < sizeof line)
			k += (size_t)snprintf(line + k, sizeof line - k, " %s %s",
			                      krl_dtype_name(n->dtype),
			                      dims_str(n, dims, sizeof dims));
		for (int q = 0; q < g->nout && k < sizeof line; q++)
			if (g->out[q] == i)
				k += (size_t)snprintf(line + k, sizeof line - k,
				                      " -> %s", g->task ?
				                      g->task->decls[g->outdecl[q]].name
				                      : "out");
		krl_strbuf_str(&b, line);
		krl_strbuf_str(&b, "\n");
	}
	/* The text, "" for an empty graph; NULL when out of memory. */
	return krl_strbuf_take(&b);
}
