/*
 * kernelrl: expressions of the plan languages — parsing (for task.c and
 * plan.c), evaluation over a scope of names and buffer shapes, and freeing.
 *
 * Integer arithmetic is exact int64: overflow, division by zero and negative
 * divisors are errors rather than silently wrapping, because a wrapped grid
 * or buffer size would make a plan mean something other than what it says.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lang/plan.h"

/* ==== Parsing ==== */

/* Bounds on one expression that keep parsing, evaluating and freeing its
 * tree (all recursive) within a small stack; far above what a plan needs. */
#define KRL_EXPR_MAX_DEPTH 64
#define KRL_EXPR_MAX_OPS 1024

/* What the parse of one top-level expression has used of those bounds. */
typedef struct expr_budget {
	int depth;      /* nesting now: '-', '(' and calls */
	int nops;       /* binary operators so far */
} expr_budget;

static const struct {
	const char *name;
	int nargs;
	int buf_arg;   /* first argument is a buffer name */
} krl_funcs[] = {
	{ "numel", 1, 1 }, { "dim", 2, 1 }, { "rank", 1, 1 },
	{ "cdiv", 2, 0 }, { "min", 2, 0 }, { "max", 2, 0 }, { "sqrt", 1, 0 },
};
#define KRL_NFUNCS ((int)(sizeof krl_funcs / sizeof krl_funcs[0]))

static int func_find(const char *z)
{
	for (int i = 0; i < KRL_NFUNCS; i++)
		if (strcmp(krl_funcs[i].name, z) == 0)
			return i;
	return -1;
}

static krl_expr *expr_new(krl_parser *p, krl_expr_kind kind, krl_pos pos)
{
	krl_expr *e = calloc(1, sizeof *e);
	if (!e) {
		krl_diag_set(p->d, KRL_ENOMEM, pos, "out of memory");
		return NULL;
	}
	e->kind = kind;
	e->pos = pos;
	return e;
}

static krl_err parse_unary(krl_parser *p, expr_budget *x, krl_expr **out);
static krl_err parse_expr(krl_parser *p, expr_budget *x, krl_expr **out);

/* NAME '(' expr (',' expr)* ')' with the name already in e. */
static krl_err parse_call_args(krl_parser *p, expr_budget *x, krl_expr *e)
{
	int f = func_find(e->name);
	if (f < 0)
		return krl_diag_set(p->d, KRL_ESYNTAX, e->pos,
		                    "unknown function '%s' (expected numel, dim, "
		                    "rank, cdiv, min, max or sqrt)", e->name);
	krl_p_next(p); /* ( */
	int cap = 0;
	for (;;) {
		if (e->nargs == 0 && krl_p_is(p, ')'))
			break;
		if (e->nargs == cap) {
			cap = cap ? cap * 2 : 2;
			krl_expr **a = realloc(e->args, (size_t)cap * sizeof *a);
			if (!a)
				return krl_diag_set(p->d, KRL_ENOMEM, e->pos,
				                    "out of memory");
			e->args = a;
		}
		krl_pos apos = krl_p_peek(p)->pos;
		if (e->nargs == 0 && krl_funcs[f].buf_arg &&
		    krl_p_peek(p)->kind != KRL_T_IDENT)
			return krl_p_expected(p, "a buffer name");
		e->args[e->nargs] = NULL;
		krl_err r = parse_expr(p, x, &e->args[e->nargs]);
		e->nargs++;
		if (r)
			return r;
		if (e->nargs == 1 && krl_funcs[f].buf_arg &&
		    e->args[0]->kind != KRL_EX_NAME)
			return krl_diag_set(p->d, KRL_ESYNTAX, apos,
			                    "expected a buffer name as the first "
			                    "argument of %s()", e->name);
		if (!krl_p_accept(p, ','))
			break;
	}
	if (!krl_p_is(p, ')'))
		return krl_p_expected(p, "',' or ')'");
	krl_p_next(p);
	if (e->nargs != krl_funcs[f].nargs)
		return krl_diag_set(p->d, KRL_ESYNTAX, e->pos,
		                    "%s() takes %d argument%s, found %d", e->name,
		                    krl_funcs[f].nargs,
		                    krl_funcs[f].nargs == 1 ? "" : "s", e->nargs);
	return KRL_OK;
}

static krl_err parse_atom(krl_parser *p, expr_budget *x, krl_expr **out)
{
	krl_tok *t = krl_p_peek(p);
	krl_expr *e = NULL;
	switch (t->kind) {
	case KRL_T_INT:
		if (!(e = expr_new(p, KRL_EX_INT, t->pos)))
			return KRL_ENOMEM;
		e->ival = t->ival;
		krl_p_next(p);
		break;
	case KRL_T_FLOAT:
		if (!(e = expr_new(p, KRL_EX_FLOAT, t->pos)))
			return KRL_ENOMEM;
		e->fval = t->fval;
		krl_p_next(p);
		break;
	case KRL_T_IDENT:
		if (!(e = expr_new(p, KRL_EX_NAME, t->pos)))
			return KRL_ENOMEM;
		*out = e;
		if (!(e->name = krl_tok_strdup(t)))
			return krl_diag_set(p->d, KRL_ENOMEM, t->pos,
			                    "out of memory");
		krl_p_next(p);
		if (krl_p_is(p, '(')) {
			e->kind = KRL_EX_CALL;
			return parse_call_args(p, x, e);
		}
		return KRL_OK;
	case KRL_T_PUNCT:
		if (t->c == '(') {
			krl_p_next(p);
			krl_err r = parse_expr(p, x, out);
			if (r)
				return r;
			return krl_p_expect(p, ')');
		}
		return krl_p_expected(p, "an expression");
	default:
		return krl_p_expected(p, "an expression");
	}
	*out = e;
	return KRL_OK;
}

/* Every level of '-', '(' or a call passes through here once, so counting
 * here bounds the parser's recursion: 10^5 '(' must not overflow the stack. */
static krl_err parse_unary(krl_parser *p, expr_budget *x, krl_expr **out)
{
	if (x->depth >= KRL_EXPR_MAX_DEPTH)
		return krl_diag_set(p->d, KRL_ESYNTAX, krl_p_peek(p)->pos,
		                    "expression nested too deeply: at most %d "
		                    "levels of '-', '(' and calls",
		                    KRL_EXPR_MAX_DEPTH);
	krl_err r;
	x->depth++;
	if (krl_p_is(p, '-')) {
		krl_pos pos = krl_p_next(p)->pos;
		krl_expr *e = expr_new(p, KRL_EX_NEG, pos);
		if (!e) {
			r = KRL_ENOMEM;
		} else {
			*out = e;
			r = parse_unary(p, x, &e->lhs);
		}
	} else {
		r = parse_atom(p, x, out);
	}
	x->depth--;
	return r;
}

/* Parses a left-associative chain of `ops` over `sub`; *out receives the
 * tree as it grows so that the caller frees it on failure. */
static krl_err parse_chain(krl_parser *p, expr_budget *x, krl_expr **out,
                           const char *ops,
                           krl_err (*sub)(krl_parser *, expr_budget *,
                                          krl_expr **))
{
	krl_err r = sub(p, x, out);
	if (r)
		return r;
	while (krl_p_peek(p)->kind == KRL_T_PUNCT &&
	       strchr(ops, krl_p_peek(p)->c)) {
		/* Each operator makes the tree one deeper, and evaluating
		 * and freeing it recurse that deep. */
		if (++x->nops > KRL_EXPR_MAX_OPS)
			return krl_diag_set(p->d, KRL_ESYNTAX,
			                    krl_p_peek(p)->pos,
			                    "expression too long: at most %d "
			                    "operators", KRL_EXPR_MAX_OPS);
		krl_tok *t = krl_p_next(p);
		krl_expr *e = expr_new(p, KRL_EX_BINARY, t->pos);
		if (!e)
			return KRL_ENOMEM;
		e->op = t->c;
		e->lhs = *out;
		*out = e;
		if ((r = sub(p, x, &e->rhs)))
			return r;
	}
	return KRL_OK;
}

static krl_err parse_term(krl_parser *p, expr_budget *x, krl_expr **out)
{
	return parse_chain(p, x, out, "*/%", parse_unary);
}

static krl_err parse_expr(krl_parser *p, expr_budget *x, krl_expr **out)
{
	*out = NULL;
	return parse_chain(p, x, out, "+-", parse_term);
}

krl_err krl_parse_expr(krl_parser *p, krl_expr **out)
{
	expr_budget x = { 0, 0 };
	return parse_expr(p, &x, out);
}

void krl_expr_free(krl_expr *e)
{
	if (!e)
		return;
	free(e->name);
	krl_expr_free(e->lhs);
	krl_expr_free(e->rhs);
	for (int i = 0; i < e->nargs; i++)
		krl_expr_free(e->args[i]);
	free(e->args);
	free(e);
}

/* ==== Evaluation ==== */

static const krl_bufshape *scope_buf(const krl_scope *s, const char *z)
{
	for (int i = 0; s && i < s->nbufs; i++)
		if (s->bufs[i].name && strcmp(s->bufs[i].name, z) == 0)
			return &s->bufs[i];
	return NULL;
}

static double as_f(krl_value v)
{
	return v.is_float ? v.f : (double)v.i;
}

static krl_value v_int(int64_t i)
{
	krl_value v = { 0, i, (double)i };
	return v;
}

static krl_value v_float(double f)
{
	krl_value v = { 1, 0, f };
	return v;
}

static krl_err eval_binary(const krl_expr *e, krl_value a, krl_value b,
                           krl_value *out, krl_diag *d)
{
	if (a.is_float || b.is_float) {
		double x = as_f(a), y = as_f(b);
		switch (e->op) {
		case '+': *out = v_float(x + y); return KRL_OK;
		case '-': *out = v_float(x - y); return KRL_OK;
		case '*': *out = v_float(x * y); return KRL_OK;
		case '/':
		case '%':
			if (y == 0)
				return krl_diag_set(d, KRL_EINVAL, e->pos,
				                    "division by zero");
			*out = v_float(e->op == '/' ? x / y : fmod(x, y));
			return KRL_OK;
		}
		return krl_diag_set(d, KRL_EINVAL, e->pos, "unknown operator");
	}
	int64_t x = a.i, y = b.i, z = 0;
	int of = 0;
	switch (e->op) {
	case '+': of = __builtin_add_overflow(x, y, &z); break;
	case '-': of = __builtin_sub_overflow(x, y, &z); break;
	case '*': of = __builtin_mul_overflow(x, y, &z); break;
	case '/':
	case '%':
		if (y == 0)
			return krl_diag_set(d, KRL_EINVAL, e->pos,
			                    "division by zero");
		if (y < 0)
			return krl_diag_set(d, KRL_EINVAL, e->pos,
			                    "negative divisor %lld", (long long)y);
		z = e->op == '/' ? x / y : x % y;
		break;
	default:
		return krl_diag_set(d, KRL_EINVAL, e->pos, "unknown operator");
	}
	if (of)
		return krl_diag_set(d, KRL_EINVAL, e->pos,
		                    "integer overflow in %lld %c %lld",
		                    (long long)x, e->op, (long long)y);
	*out = v_int(z);
	return KRL_OK;
}

static krl_err eval_call(const krl_expr *e, const krl_scope *s,
                         krl_value *out, krl_diag *d)
{
	int f = func_find(e->name);
	if (f < 0)
		return krl_diag_set(d, KRL_ENOTFOUND, e->pos,
		                    "unknown function '%s'", e->name);
	if (e->nargs != krl_funcs[f].nargs)
		return krl_diag_set(d, KRL_EINVAL, e->pos,
		                    "%s() takes %d arguments, found %d", e->name,
		                    krl_funcs[f].nargs, e->nargs);
	if (krl_funcs[f].buf_arg) {
		const krl_expr *a = e->args[0];
		if (a->kind != KRL_EX_NAME)
			return krl_diag_set(d, KRL_EINVAL, a->pos,
			                    "expected a buffer name as the first "
			                    "argument of %s()", e->name);
		const krl_bufshape *b = scope_buf(s, a->name);
		if (!b)
			return krl_diag_set(d, KRL_ENOTFOUND, a->pos,
			                    "%s(): no buffer named '%s'", e->name,
			                    a->name);
		if (strcmp(e->name, "rank") == 0) {
			*out = v_int(b->ndim);
			return KRL_OK;
		}
		if (strcmp(e->name, "numel") == 0) {
			int64_t n = 1;
			for (int i = 0; i < b->ndim; i++)
				if (__builtin_mul_overflow(n, b->dim[i], &n))
					return krl_diag_set(d, KRL_EINVAL, e->pos,
					                    "numel(%s) overflows 64 "
					                    "bits", a->name);
			*out = v_int(n);
			return KRL_OK;
		}
		/* dim(b, i) */
		krl_value iv;
		krl_err r = krl_expr_eval(e->args[1], s, &iv, d);
		if (r)
			return r;
		if (iv.is_float)
			return krl_diag_set(d, KRL_EINVAL, e->args[1]->pos,
			                    "dim(): expected an integer index, "
			                    "found %g", iv.f);
		int64_t i = iv.i < 0 ? iv.i + b->ndim : iv.i;
		if (i < 0 || i >= b->ndim)
			return krl_diag_set(d, KRL_EINVAL, e->args[1]->pos,
			                    "dim(%s, %lld): index out of range for "
			                    "a buffer of rank %d", a->name,
			                    (long long)iv.i, b->ndim);
		*out = v_int(b->dim[i]);
		return KRL_OK;
	}
	krl_value x, y;
	krl_err r = krl_expr_eval(e->args[0], s, &x, d);
	if (!r && strcmp(e->name, "sqrt") == 0) {
		if (as_f(x) < 0)
			return krl_diag_set(d, KRL_EINVAL, e->pos,
			                    "sqrt() of a negative number (%g)",
			                    as_f(x));
		*out = v_float(sqrt(as_f(x)));
		return KRL_OK;
	}
	if (!r)
		r = krl_expr_eval(e->args[1], s, &y, d);
	if (r)
		return r;
	if (strcmp(e->name, "cdiv") == 0) {
		if (x.is_float || y.is_float)
			return krl_diag_set(d, KRL_EINVAL, e->pos,
			                    "cdiv() takes integers, found a float");
		if (y.i == 0)
			return krl_diag_set(d, KRL_EINVAL, e->pos,
			                    "division by zero in cdiv()");
		if (y.i < 0)
			return krl_diag_set(d, KRL_EINVAL, e->pos,
			                    "negative divisor %lld in cdiv()",
			                    (long long)y.i);
		/* C division truncates, which is already the ceiling below 0. */
		*out = v_int(x.i / y.i + (x.i % y.i > 0));
		return KRL_OK;
	}
	int is_min = strcmp(e->name, "min") == 0;
	if (x.is_float || y.is_float) {
		double a = as_f(x), b = as_f(y);
		*out = v_float(is_min ? (a < b ? a : b) : (a > b ? a : b));
	} else {
		*out = v_int(is_min ? (x.i < y.i ? x.i : y.i) :
		                      (x.i > y.i ? x.i : y.i));
	}
	return KRL_OK;
}

/*
 * Evaluates e. Unknown names, functions and buffers are KRL_ENOTFOUND;
 * every arithmetic problem is KRL_EINVAL; d points at the node at fault.
 */
krl_err krl_expr_eval(const krl_expr *e, const krl_scope *s, krl_value *out,
                      krl_diag *d)
{
	krl_value a, b;
	krl_err r;
	switch (e->kind) {
	case KRL_EX_INT:
		*out = v_int(e->ival);
		return KRL_OK;
	case KRL_EX_FLOAT:
		*out = v_float(e->fval);
		return KRL_OK;
	case KRL_EX_NAME:
		for (int i = 0; s && i < s->n; i++) {
			if (strcmp(s->names[i], e->name) == 0) {
				*out = s->values[i];
				return KRL_OK;
			}
		}
		/* the float infinity, for attributes such as masked_fill's
		 * value=-inf (a shape key or const of that name wins) */
		if (strcmp(e->name, "inf") == 0) {
			*out = v_float(INFINITY);
			return KRL_OK;
		}
		if (scope_buf(s, e->name))
			return krl_diag_set(d, KRL_EINVAL, e->pos,
			                    "'%s' is a buffer, not a number (use "
			                    "numel(%s), dim(%s, i) or rank(%s))",
			                    e->name, e->name, e->name, e->name);
		return krl_diag_set(d, KRL_ENOTFOUND, e->pos,
		                    "unknown name '%s' (expected a shape key, a "
		                    "const, sm_count or inf)", e->name);
	case KRL_EX_NEG:
		if ((r = krl_expr_eval(e->lhs, s, &a, d)))
			return r;
		if (a.is_float) {
			*out = v_float(-a.f);
		} else {
			if (a.i == INT64_MIN)
				return krl_diag_set(d, KRL_EINVAL, e->pos,
				                    "integer overflow in negation");
			*out = v_int(-a.i);
		}
		return KRL_OK;
	case KRL_EX_BINARY:
		if ((r = krl_expr_eval(e->lhs, s, &a, d)) ||
		    (r = krl_expr_eval(e->rhs, s, &b, d)))
			return r;
		return eval_binary(e, a, b, out, d);
	case KRL_EX_CALL:
		return eval_call(e, s, out, d);
	}
	return krl_diag_set(d, KRL_EINVAL, e->pos, "bad expression node");
}
