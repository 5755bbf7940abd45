/*
 * Lowering a task's reference plan to the op graph (include/krl/opt.h,
 * docs/optimizer.md section 1).
 *
 * The plan is resolved once with krl_program_build for the shape set at
 * hand, which gives every buffer's dims and every attribute's value; the
 * texts come from the task file (its dim and attribute expressions printed
 * back). Each call becomes nodes: ops with a pointwise, reduction or scan
 * meaning are written as PW, REDUCE, SCAN, GATHER, FLIP and VIEW nodes with
 * the golden version's exact formula and branch structure; pooling is
 * POOL nodes; GEMM, convolution and the matrix-shaping ops stay
 * KRL_GN_LIB. Plan
 * buffers are values, not storage: a buffer written twice (88's t_a, t_b)
 * names a new node each time. A `view` is its root's value seen with
 * other dims (VIEW nodes), read or written through (section "Views").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/ops.h"
#include "krl/opgeom.h"
#include "opt/opt_int.h"

/* A slice of a root written by a call while the root as a whole holds no
 * node: elements [off, off + n) of root are node x (the slice's dims). */
typedef struct lpart {
	int root, buf, x;
	int64_t off, n;
} lpart;

typedef struct lower {
	const krl_task *t;
	krl_graph *g;
	krl_program *prog;       /* the reference resolved at the set */
	krl_opt_scope sc;        /* names of the set, for LIB attributes */
	int *cur;                /* per program buffer: its node, or -1 */
	lpart *parts;            /* slices written, in the order written */
	int nparts, capparts;
	krl_diag *d;
	const krl_stmt *s;       /* the call being lowered */
	const krl_step *st;
} lower;

/* ==== Small helpers ==== */

static krl_err oom(lower *L)
{
	return krl_diag_set(L->d, KRL_ENOMEM, L->s ? L->s->pos :
	                    (krl_pos){ L->t->path, 0, 0 }, "out of memory");
}

/* The declaration of program buffer b (a task decl or a plan buffer). */
static const krl_decl *decl_of(const lower *L, int b)
{
	return b < L->t->ndecls ? &L->t->decls[b]
	                        : &L->t->ref.bufs[b - L->t->ndecls];
}

/* Fills n's dtype and dims from program buffer b (texts from its decl). */
static krl_err dims_of_buf(lower *L, int b, krl_gnode *n)
{
	const krl_decl *dc = decl_of(L, b);
	const krl_buf *kb = &L->prog->bufs[b];
	n->dtype = kb->dtype;
	n->ndim = kb->ndim;
	for (int k = 0; k < kb->ndim; k++) {
		char *z = krl_opt_expr_text(dc->dim[k]);
		if (!z)
			return oom(L);
		n->dim[k].text = z;
		n->dim[k].val = kb->dim[k];
	}
	return KRL_OK;
}

static const krl_gnode *N(const lower *L, int i)
{
	return &L->g->n[i];
}

/* The attribute `key` of the call: its index in s->attrs, or -1. */
static int attr_at(const lower *L, const char *key)
{
	for (int i = 0; i < L->s->nattrs; i++)
		if (strcmp(L->s->attrs[i].key, key) == 0)
			return i;
	return -1;
}

static double attr_val(const lower *L, const char *key, double dflt)
{
	return krl_attrs_get(&L->st->attrs, key, dflt);
}

/* 1 when the attribute is absent with default dflt, or written as a
 * literal of value v: a value every shape set shares. */
static int attr_is(const lower *L, const char *key, double dflt, double v)
{
	int a = attr_at(L, key);
	if (a < 0)
		return dflt == v;
	return krl_opt_expr_literal(L->s->attrs[a].value) &&
	       attr_val(L, key, dflt) == v;
}

/* The `dim` attribute as a non-negative axis of a rank-nd operand. */
static krl_err dim_attr(lower *L, int nd, int *axis)
{
	double v = attr_val(L, "dim", NAN);
	*axis = 0;
	if (isnan(v) || v != floor(v) || v < -nd || v >= nd)
		return krl_diag_set(L->d, KRL_EINVAL, L->s->pos, "%s: dim=%g for "
		                    "an operand of rank %d", L->s->name, v, nd);
	*axis = (int)v < 0 ? (int)v + nd : (int)v;
	return KRL_OK;
}

/* ==== Node shorthands ==== */

static krl_err pw1(lower *L, krl_pwop op, int a, int *o)
{
	int in[1] = { a };
	return krl_graph_pw(L->g, op, in, o, L->d);
}

static krl_err pw2(lower *L, krl_pwop op, int a, int b, int *o)
{
	int in[2] = { a, b };
	return krl_graph_pw(L->g, op, in, o, L->d);
}

static krl_err pw3(lower *L, krl_pwop op, int a, int b, int c, int *o)
{
	int in[3] = { a, b, c };
	return krl_graph_pw(L->g, op, in, o, L->d);
}

static krl_err cnum(lower *L, double v, int *o)
{
	return krl_graph_const_num(L->g, v, o, L->d);
}

/* A CONST of attribute `key`: its text and value, or the default's. */
static krl_err cattr(lower *L, const char *key, double dflt, int *o)
{
	int a = attr_at(L, key);
	if (a < 0)
		return cnum(L, dflt, o);
	char *z = krl_opt_expr_text(L->s->attrs[a].value);
	if (!z)
		return oom(L);
	krl_err r = krl_graph_const(L->g, z, attr_val(L, key, dflt), o, L->d);
	free(z);
	return r;
}

/* x op c(key), or x itself when the attribute is the identity `ident`
 * for op in every shape set. */
static krl_err pw_attr(lower *L, krl_pwop op, int x, const char *key,
                       double dflt, double ident, int *o)
{
	if (attr_is(L, key, dflt, ident)) {
		*o = x;
		return KRL_OK;
	}
	int c;
	krl_err r = cattr(L, key, dflt, &c);
	return r ? r : pw2(L, op, x, c, o);
}

/* The product of the dim texts of x over [lo, hi) ("1" when empty). */
static char *size_text(lower *L, int x, int lo, int hi, int64_t *val)
{
	char *z = krl_opt_strdup("1");
	*val = 1;
	for (int k = lo; z && k < hi; k++) {
		char *p = krl_opt_text_binary(z, '*', N(L, x)->dim[k].text);
		free(z);
		z = p;
		*val *= N(L, x)->dim[k].val;
	}
	return z;
}

/* mean of x over [axis, axis + naxes): a SUM times 1.0 / (size). */
static krl_err mean_over(lower *L, int x, int axis, int naxes, int keep,
                         int *o)
{
	int64_t rv;
	char *rt = size_text(L, x, axis, axis + naxes, &rv);
	char *z = rt ? krl_opt_fmt("1.0 / (%s)", rt) : NULL;
	free(rt);
	if (!z)
		return oom(L);
	int s, c;
	krl_err r = krl_graph_reduce(L->g, KRL_RED_SUM, x, axis, naxes, keep, &s,
	                             L->d);
	if (!r)
		r = krl_graph_const(L->g, z, 1.0 / (double)rv, &c, L->d);
	free(z);
	return r ? r : pw2(L, KRL_PW_MUL, s, c, o);
}

/* keep = 1 when the call's output keeps the rank of its input. */
static int keeps_rank(const lower *L, int x)
{
	return L->prog->bufs[L->st->out[0]].ndim == N(L, x)->ndim;
}

/* (x - mean) * rsqrt(biased var + eps) over [axis, axis + naxes), eps
 * from the attribute; the centred value and the statistics as the golden
 * norms compute them (two passes). */
static krl_err normalise(lower *L, int x, int axis, int naxes, int *o)
{
	int m, c, sq, v, e, ve, rs;
	krl_err r;
	if ((r = mean_over(L, x, axis, naxes, 1, &m)) ||
	    (r = pw2(L, KRL_PW_SUB, x, m, &c)) ||
	    (r = pw1(L, KRL_PW_SQUARE, c, &sq)) ||
	    (r = mean_over(L, sq, axis, naxes, 1, &v)) ||
	    (r = cattr(L, "eps", 1e-5, &e)) ||
	    (r = pw2(L, KRL_PW_ADD, v, e, &ve)) ||
	    (r = pw1(L, KRL_PW_RSQRT, ve, &rs)))
		return r;
	return pw2(L, KRL_PW_MUL, c, rs, o);
}

/* A per-channel vector w [C] seen as [C, 1, ..., 1] against [N, C, *]
 * of rank nd. */
static krl_err chan_view(lower *L, int w, int nd, int *o)
{
	krl_gdim dims[KRL_MAX_DIM];
	dims[0] = N(L, w)->dim[0];
	for (int k = 1; k < nd - 1; k++) {
		dims[k].text = (char *)"1";
		dims[k].val = 1;
	}
	return krl_graph_view(L->g, w, nd - 1, dims, o, L->d);
}

/* y * w + b with per-channel w, b over [N, C, *]. */
static krl_err chan_affine(lower *L, int y, int w, int b, int *o)
{
	int nd = N(L, y)->ndim, wv, bv, yw;
	krl_err r;
	if ((r = chan_view(L, w, nd, &wv)) || (r = chan_view(L, b, nd, &bv)) ||
	    (r = pw2(L, KRL_PW_MUL, y, wv, &yw)))
		return r;
	return pw2(L, KRL_PW_ADD, yw, bv, o);
}

/* ==== Lowerings: one per op ====
 *
 * Each reads its operands' nodes from in[] and sets out[k] to the node of
 * output k. */

typedef krl_err (*lower_fn)(lower *L, const int *in, int *out);

static krl_err lo_copy(lower *L, const int *in, int *out)
{
	out[0] = in[0];
	return KRL_OK;
}

/* The unary and binary ops that are one PW node. */
static const struct {
	const char *op;
	krl_pwop pw;
} PLAIN[] = {
	{ "relu", KRL_PW_RELU }, { "sigmoid", KRL_PW_SIGMOID },
	{ "tanh", KRL_PW_TANH }, { "abs", KRL_PW_ABS }, { "sqrt", KRL_PW_SQRT },
	{ "log", KRL_PW_LOG }, { "square", KRL_PW_SQUARE },
	{ "add", KRL_PW_ADD }, { "sub", KRL_PW_SUB }, { "mul", KRL_PW_MUL },
	{ "div", KRL_PW_DIV }, { "mul_bcast", KRL_PW_MUL },
	{ "div_bcast", KRL_PW_DIV }, { "xlogy", KRL_PW_XLOGY },
	{ "mul_mask", KRL_PW_MUL }, { "exp", KRL_PW_EXP },
	/* both operands broadcast numpy-style, as PW nodes do; min keeps a
	 * NaN of either operand, as torch.minimum */
	{ "add_bcast", KRL_PW_ADD }, { "sub_bcast", KRL_PW_SUB },
	{ "minimum_bcast", KRL_PW_MIN },
};

static krl_err lo_plain(lower *L, const int *in, int *out)
{
	for (size_t i = 0; i < sizeof PLAIN / sizeof PLAIN[0]; i++)
		if (strcmp(PLAIN[i].op, L->s->name) == 0)
			return krl_graph_pw(L->g, PLAIN[i].pw, in, out, L->d);
	return krl_diag_set(L->d, KRL_EUNSUPPORTED, L->s->pos, "no PW op for %s",
	                    L->s->name);
}

static krl_err lo_scale(lower *L, const int *in, int *out)
{
	return pw_attr(L, KRL_PW_MUL, in[0], "alpha", 1, 1, out);
}

static krl_err lo_add_scalar(lower *L, const int *in, int *out)
{
	return pw_attr(L, KRL_PW_ADD, in[0], "alpha", 0, 0, out);
}

static krl_err lo_rsub_scalar(lower *L, const int *in, int *out)
{
	int c;
	krl_err r = cattr(L, "alpha", 0, &c);
	return r ? r : pw2(L, KRL_PW_SUB, c, in[0], out);
}

/* x op c(key), c never skipped (MIN and MAX keep a NaN first operand,
 * so a NaN x is kept) */
static krl_err pw_bound(lower *L, krl_pwop op, const char *key,
                        const int *in, int *out)
{
	int c;
	krl_err r = cattr(L, key, 0, &c);
	return r ? r : pw2(L, op, in[0], c, out);
}

static krl_err lo_clamp_min(lower *L, const int *in, int *out)
{
	return pw_bound(L, KRL_PW_MAX, "min", in, out);
}

static krl_err lo_minimum_scalar(lower *L, const int *in, int *out)
{
	return pw_bound(L, KRL_PW_MIN, "value", in, out);
}

static krl_err lo_maximum_scalar(lower *L, const int *in, int *out)
{
	return pw_bound(L, KRL_PW_MAX, "value", in, out);
}

/* x > 0 ? x : neg, the branch of leaky_relu, elu and selu. */
static krl_err positive_or(lower *L, int x, int neg, int *out)
{
	int z, gt;
	krl_err r;
	if ((r = cnum(L, 0, &z)) || (r = pw2(L, KRL_PW_GT, x, z, &gt)))
		return r;
	return pw3(L, KRL_PW_WHERE, gt, x, neg, out);
}

static krl_err lo_leaky_relu(lower *L, const int *in, int *out)
{
	int neg;
	krl_err r = pw_attr(L, KRL_PW_MUL, in[0], "negative_slope", 0.01, 1,
	                    &neg);
	return r ? r : positive_or(L, in[0], neg, out);
}

/* exp(x) - 1 */
static krl_err expm1_of(lower *L, int x, int *o)
{
	int e, one;
	krl_err r;
	if ((r = pw1(L, KRL_PW_EXP, x, &e)) || (r = cnum(L, 1, &one)))
		return r;
	return pw2(L, KRL_PW_SUB, e, one, o);
}

static krl_err lo_elu(lower *L, const int *in, int *out)
{
	int em, neg;
	krl_err r;
	if ((r = expm1_of(L, in[0], &em)) ||
	    (r = pw_attr(L, KRL_PW_MUL, em, "alpha", 1, 1, &neg)))
		return r;
	return positive_or(L, in[0], neg, out);
}

static krl_err lo_selu(lower *L, const int *in, int *out)
{
	int em, a, neg, y, s;
	krl_err r;
	if ((r = expm1_of(L, in[0], &em)) ||
	    (r = cnum(L, KRL_SELU_ALPHA, &a)) ||
	    (r = pw2(L, KRL_PW_MUL, a, em, &neg)) ||
	    (r = positive_or(L, in[0], neg, &y)) ||
	    (r = cnum(L, KRL_SELU_SCALE, &s)))
		return r;
	return pw2(L, KRL_PW_MUL, s, y, out);
}

/* min(max(x, lo), hi) */
static krl_err clamp(lower *L, int x, int lo, int hi, int *o)
{
	int m;
	krl_err r = pw2(L, KRL_PW_MAX, x, lo, &m);
	return r ? r : pw2(L, KRL_PW_MIN, m, hi, o);
}

static krl_err lo_hardsigmoid(lower *L, const int *in, int *out)
{
	int three, zero, six, x3, c;
	krl_err r;
	if ((r = cnum(L, 3, &three)) || (r = cnum(L, 0, &zero)) ||
	    (r = cnum(L, 6, &six)) ||
	    (r = pw2(L, KRL_PW_ADD, in[0], three, &x3)) ||
	    (r = clamp(L, x3, zero, six, &c)))
		return r;
	return pw2(L, KRL_PW_DIV, c, six, out);
}

/* x * min(max(x + 3, 0), 6) / 6: the product first, then a true division
 * by 6, as the golden op */
static krl_err lo_hardswish(lower *L, const int *in, int *out)
{
	int three, zero, six, x3, c, xc;
	krl_err r;
	if ((r = cnum(L, 3, &three)) || (r = cnum(L, 0, &zero)) ||
	    (r = cnum(L, 6, &six)) ||
	    (r = pw2(L, KRL_PW_ADD, in[0], three, &x3)) ||
	    (r = clamp(L, x3, zero, six, &c)) ||
	    (r = pw2(L, KRL_PW_MUL, in[0], c, &xc)))
		return r;
	return pw2(L, KRL_PW_DIV, xc, six, out);
}

static krl_err lo_hardtanh(lower *L, const int *in, int *out)
{
	int lo, hi;
	krl_err r;
	if ((r = cattr(L, "min_val", -1, &lo)) ||
	    (r = cattr(L, "max_val", 1, &hi)))
		return r;
	return clamp(L, in[0], lo, hi, out);
}

/* beta x > threshold ? x : log1p(exp(beta x)) / beta */
static krl_err lo_softplus(lower *L, const int *in, int *out)
{
	int bx, thr, gt, e, l, soft;
	krl_err r;
	if ((r = pw_attr(L, KRL_PW_MUL, in[0], "beta", 1, 1, &bx)) ||
	    (r = cattr(L, "threshold", 20, &thr)) ||
	    (r = pw2(L, KRL_PW_GT, bx, thr, &gt)) ||
	    (r = pw1(L, KRL_PW_EXP, bx, &e)) ||
	    (r = pw1(L, KRL_PW_LOG1P, e, &l)) ||
	    (r = pw_attr(L, KRL_PW_DIV, l, "beta", 1, 1, &soft)))
		return r;
	return pw3(L, KRL_PW_WHERE, gt, in[0], soft, out);
}

/* x * tanh(x > 20 ? x : log1p(exp(x))): softplus with PyTorch's
 * threshold 20, beta 1 */
static krl_err lo_mish(lower *L, const int *in, int *out)
{
	int x = in[0], thr, gt, e, l, sp, t;
	krl_err r;
	if ((r = cnum(L, 20, &thr)) || (r = pw2(L, KRL_PW_GT, x, thr, &gt)) ||
	    (r = pw1(L, KRL_PW_EXP, x, &e)) ||
	    (r = pw1(L, KRL_PW_LOG1P, e, &l)) ||
	    (r = pw3(L, KRL_PW_WHERE, gt, x, l, &sp)) ||
	    (r = pw1(L, KRL_PW_TANH, sp, &t)))
		return r;
	return pw2(L, KRL_PW_MUL, x, t, out);
}

/* 1 when expression e has the same value in every shape set: literals and
 * task consts built from them, no shape key or buffer query. */
static int set_free(const krl_task *t, const krl_expr *e, int depth)
{
	if (!e || depth > 32)
		return 0;
	switch (e->kind) {
	case KRL_EX_INT:
	case KRL_EX_FLOAT:
		return 1;
	case KRL_EX_NAME:
		for (int i = 0; i < t->nconsts; i++)
			if (strcmp(t->const_names[i], e->name) == 0)
				return set_free(t, t->const_vals[i], depth + 1);
		return 0;
	case KRL_EX_NEG:
		return set_free(t, e->lhs, depth + 1);
	case KRL_EX_BINARY:
		return set_free(t, e->lhs, depth + 1) &&
		       set_free(t, e->rhs, depth + 1);
	default:
		return 0;
	}
}

static krl_err lo_lib(lower *L, const int *in, int *out);

/* x * mask * scale, the op's own scale (krl_eltwise_dropout_scale,
 * krl/opgeom.h). The scale is a number, so p must
 * be the same in every shape set; otherwise the call stays whole. */
static krl_err lo_dropout_apply(lower *L, const int *in, int *out)
{
	int a = attr_at(L, "p"), xm, c;
	if (a < 0 || !set_free(L->t, L->s->attrs[a].value, 0))
		return lo_lib(L, in, out);
	double scale = krl_eltwise_dropout_scale(attr_val(L, "p", 0));
	krl_err r;
	if ((r = pw2(L, KRL_PW_MUL, in[0], in[1], &xm)) ||
	    (r = cnum(L, scale, &c)))
		return r;
	return pw2(L, KRL_PW_MUL, xm, c, out);
}

/* mask ? value : x, the mask (bool, in memory as the library ops that
 * write it leave it) broadcast right-aligned: so the fill joins the
 * pointwise chain around it (attention's causal mask between the score
 * GEMM's scale and the softmax or ReLU) instead of a pass of its own. */
static krl_err lo_masked_fill(lower *L, const int *in, int *out)
{
	int c;
	krl_err r = cattr(L, "value", 0, &c);
	return r ? r : pw3(L, KRL_PW_WHERE, in[1], c, in[0], out);
}

/* x == value as a bool PW node, where y is x's shape in every set (the
 * dims' texts say so): the comparison is then computed where the mask is
 * read (the score GEMM's epilogue, or the map around it), not written by
 * a pass of its own. A y that is a leading slice of x stays the call. */
static krl_err lo_eq_scalar(lower *L, const int *in, int *out)
{
	const krl_gnode *x = N(L, in[0]);
	krl_gnode y = { 0 };
	krl_err r = dims_of_buf(L, L->st->out[0], &y);
	int same = !r && y.ndim == x->ndim;
	for (int k = 0; same && k < x->ndim; k++)
		same = krl_graph_text_same(L->g, x->dim[k].text, y.dim[k].text);
	krl_gnode_clear(&y);
	if (r)
		return r;
	if (!same)
		return lo_lib(L, in, out);
	int c;
	if ((r = cattr(L, "value", 0, &c)) ||
	    (r = pw2(L, KRL_PW_EQ, in[0], c, out)))
		return r;
	L->g->n[out[0]].dtype = KRL_BOOL;
	return KRL_OK;
}

static krl_err lo_gelu(lower *L, const int *in, int *out)
{
	int x = in[0], half, one, k, t, u, v, w;
	krl_err r;
	if ((r = cnum(L, 0.5, &half)) || (r = cnum(L, 1, &one)))
		return r;
	if (attr_val(L, "tanh", 0) != 0) {
		/* 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) */
		int c, x3, cx3, in_;
		if ((r = krl_graph_const(L->g, "sqrt(2.0 / 3.141592653589793)",
		                         sqrt(2.0 / M_PI), &k, L->d)) ||
		    (r = cnum(L, 0.044715, &c)) ||
		    (r = pw1(L, KRL_PW_SQUARE, x, &t)) ||
		    (r = pw2(L, KRL_PW_MUL, t, x, &x3)) ||
		    (r = pw2(L, KRL_PW_MUL, c, x3, &cx3)) ||
		    (r = pw2(L, KRL_PW_ADD, x, cx3, &in_)) ||
		    (r = pw2(L, KRL_PW_MUL, k, in_, &u)) ||
		    (r = pw1(L, KRL_PW_TANH, u, &t)))
			return r;
	} else {
		/* 0.5 x (1 + erf(x sqrt(1/2))), as PyTorch's kernel writes it:
		 * a multiplication where x / sqrt(2) was an IEEE division
		 * (the constant reaches the kernel as an argument) */
		if ((r = krl_graph_const(L->g, "sqrt(0.5)", sqrt(0.5), &k,
		                         L->d)) ||
		    (r = pw2(L, KRL_PW_MUL, x, k, &u)) ||
		    (r = pw1(L, KRL_PW_ERF, u, &t)))
			return r;
	}
	if ((r = pw2(L, KRL_PW_ADD, one, t, &v)) ||
	    (r = pw2(L, KRL_PW_MUL, half, x, &w)))
		return r;
	return pw2(L, KRL_PW_MUL, w, v, out);
}

static krl_err lo_pow_scalar(lower *L, const int *in, int *out)
{
	int x = in[0], sq;
	if (attr_is(L, "exponent", 1, 1)) {
		*out = x;
		return KRL_OK;
	}
	if (attr_is(L, "exponent", 1, 2))
		return pw1(L, KRL_PW_SQUARE, x, out);
	if (attr_is(L, "exponent", 1, 0.5))
		return pw1(L, KRL_PW_SQRT, x, out);
	if (attr_is(L, "exponent", 1, 3)) {
		krl_err r = pw1(L, KRL_PW_SQUARE, x, &sq);
		return r ? r : pw2(L, KRL_PW_MUL, sq, x, out);
	}
	return pw_attr(L, KRL_PW_POW, x, "exponent", 1, NAN, out);
}

/* z = |a - b|; z < beta ? 0.5 z^2 / beta : z - 0.5 beta */
static krl_err lo_smooth_l1(lower *L, const int *in, int *out)
{
	int df, z, beta, lt, sq, half, hz, quad, hb, lin;
	krl_err r;
	if ((r = pw2(L, KRL_PW_SUB, in[0], in[1], &df)) ||
	    (r = pw1(L, KRL_PW_ABS, df, &z)) ||
	    (r = cattr(L, "beta", 1, &beta)) ||
	    (r = pw2(L, KRL_PW_LT, z, beta, &lt)) ||
	    (r = pw1(L, KRL_PW_SQUARE, z, &sq)) ||
	    (r = cnum(L, 0.5, &half)) ||
	    (r = pw2(L, KRL_PW_MUL, half, sq, &hz)) ||
	    (r = pw_attr(L, KRL_PW_DIV, hz, "beta", 1, 1, &quad)))
		return r;
	if (attr_is(L, "beta", 1, attr_val(L, "beta", 1)))
		r = cnum(L, 0.5 * attr_val(L, "beta", 1), &hb);
	else
		r = pw2(L, KRL_PW_MUL, half, beta, &hb);
	if (r || (r = pw2(L, KRL_PW_SUB, z, hb, &lin)))
		return r;
	return pw3(L, KRL_PW_WHERE, lt, quad, lin, out);
}

/* ==== Reductions ==== */

static krl_err reduce_dim(lower *L, krl_redop op, const int *in, int *out)
{
	int axis;
	krl_err r = dim_attr(L, N(L, in[0])->ndim, &axis);
	return r ? r : krl_graph_reduce(L->g, op, in[0], axis, 1,
	                                keeps_rank(L, in[0]), out, L->d);
}

static krl_err lo_sum(lower *L, const int *in, int *out)
{
	return reduce_dim(L, KRL_RED_SUM, in, out);
}

static krl_err lo_prod(lower *L, const int *in, int *out)
{
	return reduce_dim(L, KRL_RED_PROD, in, out);
}

static krl_err lo_max(lower *L, const int *in, int *out)
{
	return reduce_dim(L, KRL_RED_MAX, in, out);
}

static krl_err lo_min(lower *L, const int *in, int *out)
{
	return reduce_dim(L, KRL_RED_MIN, in, out);
}

static krl_err lo_argmax(lower *L, const int *in, int *out)
{
	return reduce_dim(L, KRL_RED_ARGMAX, in, out);
}

static krl_err lo_argmin(lower *L, const int *in, int *out)
{
	return reduce_dim(L, KRL_RED_ARGMIN, in, out);
}

/* The axes a `dim` attribute names, or all of them when it is absent. */
static krl_err dim_or_all(lower *L, int x, int *axis, int *naxes)
{
	if (attr_at(L, "dim") < 0) {
		*axis = 0;
		*naxes = N(L, x)->ndim;
		return KRL_OK;
	}
	*naxes = 1;
	return dim_attr(L, N(L, x)->ndim, axis);
}

static krl_err lo_mean(lower *L, const int *in, int *out)
{
	int axis, naxes;
	krl_err r = dim_or_all(L, in[0], &axis, &naxes);
	if (r)
		return r;
	if (naxes == 0) {   /* the mean of a scalar is itself */
		*out = in[0];
		return KRL_OK;
	}
	return mean_over(L, in[0], axis, naxes, keeps_rank(L, in[0]), out);
}

/* sqrt(sum x^2) over dim, or over everything */
static krl_err lo_vector_norm(lower *L, const int *in, int *out)
{
	int axis, naxes, sq, s;
	krl_err r;
	if ((r = dim_or_all(L, in[0], &axis, &naxes)) ||
	    (r = pw1(L, KRL_PW_SQUARE, in[0], &sq)))
		return r;
	if (naxes == 0)
		s = sq;
	else if ((r = krl_graph_reduce(L->g, KRL_RED_SUM, sq, axis, naxes,
	                               keeps_rank(L, in[0]), &s, L->d)))
		return r;
	return pw1(L, KRL_PW_SQRT, s, out);
}

/* x - max; softmax = exp / sum exp, log_softmax = (x - max) - log sum */
static krl_err softmax(lower *L, const int *in, int *out, int log_)
{
	int axis, m, c, e, s, ls;
	krl_err r;
	if ((r = dim_attr(L, N(L, in[0])->ndim, &axis)) ||
	    (r = krl_graph_reduce(L->g, KRL_RED_MAX, in[0], axis, 1, 1, &m,
	                          L->d)) ||
	    (r = pw2(L, KRL_PW_SUB, in[0], m, &c)) ||
	    (r = pw1(L, KRL_PW_EXP, c, &e)) ||
	    (r = krl_graph_reduce(L->g, KRL_RED_SUM, e, axis, 1, 1, &s, L->d)))
		return r;
	if (!log_)
		return pw2(L, KRL_PW_DIV, e, s, out);
	if ((r = pw1(L, KRL_PW_LOG, s, &ls)))
		return r;
	return pw2(L, KRL_PW_SUB, c, ls, out);
}

static krl_err lo_softmax(lower *L, const int *in, int *out)
{
	return softmax(L, in, out, 0);
}

static krl_err lo_log_softmax(lower *L, const int *in, int *out)
{
	return softmax(L, in, out, 1);
}

/* logsumexp over dim as torch.logsumexp: m = max (NaN kept), taken as 0
 * where it is infinite (m - m is not 0 there: a row of -inf gives -inf, a
 * row holding +inf gives +inf), y = log(sum(exp(x - m))) + m. The
 * statistics keep the reduced dim; a call that drops it gets the result
 * viewed without it. */
static krl_err lo_logsumexp(lower *L, const int *in, int *out)
{
	int x = in[0], axis, m, d, zero, fin, mm, c, e, s, l, y;
	krl_err r;
	if ((r = dim_attr(L, N(L, x)->ndim, &axis)) ||
	    (r = krl_graph_reduce(L->g, KRL_RED_MAX, x, axis, 1, 1, &m,
	                          L->d)) ||
	    (r = pw2(L, KRL_PW_SUB, m, m, &d)) || (r = cnum(L, 0, &zero)) ||
	    (r = pw2(L, KRL_PW_EQ, d, zero, &fin)) ||
	    (r = pw3(L, KRL_PW_WHERE, fin, m, zero, &mm)) ||
	    (r = pw2(L, KRL_PW_SUB, x, mm, &c)) ||
	    (r = pw1(L, KRL_PW_EXP, c, &e)) ||
	    (r = krl_graph_reduce(L->g, KRL_RED_SUM, e, axis, 1, 1, &s,
	                          L->d)) ||
	    (r = pw1(L, KRL_PW_LOG, s, &l)) ||
	    (r = pw2(L, KRL_PW_ADD, l, mm, &y)))
		return r;
	if (keeps_rank(L, x)) {
		*out = y;
		return KRL_OK;
	}
	krl_gdim dims[KRL_MAX_DIM];
	const krl_gnode *yn = N(L, y);
	int nd = 0;
	for (int k = 0; k < yn->ndim; k++)
		if (k != axis)
			dims[nd++] = yn->dim[k];
	return krl_graph_view(L->g, y, nd, dims, out, L->d);
}

/* ==== Norms ==== */

static krl_err lo_layernorm(lower *L, const int *in, int *out)
{
	int nd = N(L, in[0])->ndim;
	int k = (int)attr_val(L, "axes", (double)N(L, in[1])->ndim);
	int y, yw;
	krl_err r;
	if (k < 1 || k > nd)
		return krl_diag_set(L->d, KRL_EINVAL, L->s->pos, "layernorm: axes=%d "
		                    "for x of rank %d", k, nd);
	if ((r = normalise(L, in[0], nd - k, k, &y)) ||
	    (r = pw2(L, KRL_PW_MUL, y, in[1], &yw)))
		return r;
	return pw2(L, KRL_PW_ADD, yw, in[2], out);
}

static krl_err lo_instancenorm(lower *L, const int *in, int *out)
{
	int nd = N(L, in[0])->ndim;
	if (nd == 2) /* nothing beyond [N, C]: each value alone */
		return krl_diag_set(L->d, KRL_EUNSUPPORTED, L->s->pos,
		                    "instancenorm of a rank-2 tensor");
	return normalise(L, in[0], 2, nd - 2, out);
}

/* Batch statistics per channel of x [N, C, *]: sums over the spatial
 * dims, then over the batch (the axes are not contiguous, so two
 * reductions), each kept so that [1, C, 1, ...] broadcasts back. */
static krl_err chan_mean(lower *L, int x, int *o)
{
	int nd = N(L, x)->ndim, s = x, s0, c;
	krl_err r;
	if (nd > 2 && (r = krl_graph_reduce(L->g, KRL_RED_SUM, x, 2, nd - 2, 1,
	                                    &s, L->d)))
		return r;
	if ((r = krl_graph_reduce(L->g, KRL_RED_SUM, s, 0, 1, 1, &s0, L->d)))
		return r;
	int64_t mv, bv;
	char *mt = size_text(L, x, 2, nd, &mv);
	char *bt = mt ? krl_opt_text_binary(N(L, x)->dim[0].text, '*', mt)
	              : NULL;
	char *z = bt ? krl_opt_fmt("1.0 / (%s)", bt) : NULL;
	bv = mv * N(L, x)->dim[0].val;
	free(mt);
	free(bt);
	if (!z)
		return oom(L);
	r = krl_graph_const(L->g, z, 1.0 / (double)bv, &c, L->d);
	free(z);
	return r ? r : pw2(L, KRL_PW_MUL, s0, c, o);
}

/* The constants of a two-level variance over x [N, C, s...] whose parts
 * are the spatial dims of f channels or samples (text ft, value fv): cs,
 * the spatial size S (a part's element count); cinv, 1 / (f S). */
static krl_err part_consts(lower *L, int x, const char *ft, double fv,
                           int *cs, int *cinv)
{
	int64_t sv;
	char *st = size_text(L, x, 2, N(L, x)->ndim, &sv);
	char *nt = st ? krl_opt_text_binary(ft, '*', st) : NULL;
	char *zi = nt ? krl_opt_fmt("1.0 / (%s)", nt) : NULL;
	krl_err r = !st || !nt || !zi ? oom(L) : KRL_OK;
	if (!r)
		r = krl_graph_const(L->g, st, (double)sv, cs, L->d);
	if (!r)
		r = krl_graph_const(L->g, zi, 1.0 / ((double)sv * fv), cinv, L->d);
	free(st);
	free(nt);
	free(zi);
	return r;
}

/* Each channel's mean mi and sum of squared deviations qi over the
 * spatial dims of x [N, C, s...] (kept as dims of 1): one row kernel
 * computes the pair as shifted sums in one pass (var_pair,
 * codegen_row.c). */
static krl_err spatial_pair(lower *L, int x, int *mi, int *qi)
{
	int nd = N(L, x)->ndim, ci, sq;
	krl_err r;
	if ((r = mean_over(L, x, 2, nd - 2, 1, mi)) ||
	    (r = pw2(L, KRL_PW_SUB, x, *mi, &ci)) ||
	    (r = pw1(L, KRL_PW_SQUARE, ci, &sq)))
		return r;
	return krl_graph_reduce(L->g, KRL_RED_SUM, sq, 2, nd - 2, 1, qi, L->d);
}

/* The batch variance per channel of x [N, C, s...] (rank > 2) in one pass
 * over x: each sample's mean mi and sum of squared deviations qi over its
 * spatial dims (a row kernel computes the pair as shifted sums, var_pair
 * in codegen_row.c), then, over the batch, the parallel form (Chan et
 * al.): m = mean(mi), M2 = sum(qi) + S sum((mi - m)^2), var = M2 / (N S),
 * with S the spatial size. The two-level sums of chan_mean read x twice,
 * the second time for (x - m)^2. Sets *m and *v ([1, C, 1, ...]). */
static krl_err chan_mean_var(lower *L, int x, int *m, int *v)
{
	int mi, qi, cs, cinv, dm, dm2, sq0, sd, sds, m2;
	krl_err r;
	if ((r = part_consts(L, x, N(L, x)->dim[0].text,
	                     (double)N(L, x)->dim[0].val, &cs, &cinv)) ||
	    (r = spatial_pair(L, x, &mi, &qi)) ||
	    (r = mean_over(L, mi, 0, 1, 1, m)) ||
	    (r = pw2(L, KRL_PW_SUB, mi, *m, &dm)) ||
	    (r = pw1(L, KRL_PW_SQUARE, dm, &dm2)) ||
	    (r = krl_graph_reduce(L->g, KRL_RED_SUM, qi, 0, 1, 1, &sq0, L->d)) ||
	    (r = krl_graph_reduce(L->g, KRL_RED_SUM, dm2, 0, 1, 1, &sd, L->d)) ||
	    (r = pw2(L, KRL_PW_MUL, sd, cs, &sds)) ||
	    (r = pw2(L, KRL_PW_ADD, sq0, sds, &m2)))
		return r;
	return pw2(L, KRL_PW_MUL, m2, cinv, v);
}

static krl_err lo_batchnorm(lower *L, const int *in, int *out)
{
	int x = in[0], m, c, sq, v, e, ve, rs, y;
	krl_err r;
	if (N(L, x)->ndim > 2) { /* [N, C, s...]: one pass over x */
		if (!(r = chan_mean_var(L, x, &m, &v)))
			r = pw2(L, KRL_PW_SUB, x, m, &c);
	} else if (!(r = chan_mean(L, x, &m)) && /* [N, C]: over N twice */
	           !(r = pw2(L, KRL_PW_SUB, x, m, &c)) &&
	           !(r = pw1(L, KRL_PW_SQUARE, c, &sq))) {
		r = chan_mean(L, sq, &v);
	}
	if (r || (r = cattr(L, "eps", 1e-5, &e)) ||
	    (r = pw2(L, KRL_PW_ADD, v, e, &ve)) ||
	    (r = pw1(L, KRL_PW_RSQRT, ve, &rs)) ||
	    (r = pw2(L, KRL_PW_MUL, c, rs, &y)))
		return r;
	return chan_affine(L, y, in[1], in[2], out);
}

/* Group norm of x [N, C, s...] (rank > 2) in two levels, as batch norm's
 * chan_mean_var: each channel's mean mi and sum of squared deviations qi
 * over the spatial dims (one row kernel over x, the pair as shifted sums),
 * then per group, over its Cg = C / G channels seen [N, G, Cg], the
 * parallel form (Chan et al.): m = mean(mi), M2 = sum(qi) + S sum((mi -
 * m)^2), var = M2 / (Cg S); the group's rsqrt(var + eps) and the affine
 * fold into per-channel A = rs w and B = b - m A ([N, G, Cg], seen
 * [N, C, 1, ...]), and y = x A + B: a map with per-(n, c) operands,
 * whatever x's layout. The one-level form (a row over the view [N, G,
 * Cg S], then a map through it) reads a channels-last x through that view
 * element by element. gt, cgt: G's and Cg's texts; gv: G. */
static krl_err groupnorm2(lower *L, const int *in, const char *gt,
                          const char *cgt, int64_t gv, int *out)
{
	int x = in[0], nd = N(L, x)->ndim;
	krl_gdim xd[KRL_MAX_DIM];
	for (int k = 0; k < nd; k++)
		xd[k] = N(L, x)->dim[k];
	int64_t cgv = xd[1].val / gv;
	/* [N, G, Cg] and [1, G, Cg]; [N, C, 1, ...] */
	krl_gdim g3[3] = { xd[0], { (char *)gt, gv }, { (char *)cgt, cgv } };
	krl_gdim w3[3] = { { (char *)"1", 1 }, { (char *)gt, gv },
	                   { (char *)cgt, cgv } };
	krl_gdim c4[KRL_MAX_DIM];
	c4[0] = xd[0];
	c4[1] = xd[1];
	for (int k = 2; k < nd; k++) {
		c4[k].text = (char *)"1";
		c4[k].val = 1;
	}
	int cs, cinv, mi, qi, miv, qiv, m, dm, dm2, sd, sds, sq0, m2, v, e, ve,
	    rs, wv, bv, A, mA, B, Ac, Bc, xa;
	krl_err r;
	if ((r = part_consts(L, x, cgt, (double)cgv, &cs, &cinv)) ||
	    (r = spatial_pair(L, x, &mi, &qi)) ||
	    (r = krl_graph_view(L->g, mi, 3, g3, &miv, L->d)) ||
	    (r = krl_graph_view(L->g, qi, 3, g3, &qiv, L->d)) ||
	    (r = mean_over(L, miv, 2, 1, 1, &m)) ||
	    (r = pw2(L, KRL_PW_SUB, miv, m, &dm)) ||
	    (r = pw1(L, KRL_PW_SQUARE, dm, &dm2)) ||
	    (r = krl_graph_reduce(L->g, KRL_RED_SUM, dm2, 2, 1, 1, &sd, L->d)) ||
	    (r = krl_graph_reduce(L->g, KRL_RED_SUM, qiv, 2, 1, 1, &sq0, L->d)) ||
	    (r = pw2(L, KRL_PW_MUL, sd, cs, &sds)) ||
	    (r = pw2(L, KRL_PW_ADD, sq0, sds, &m2)) ||
	    (r = pw2(L, KRL_PW_MUL, m2, cinv, &v)) ||
	    (r = cattr(L, "eps", 1e-5, &e)) ||
	    (r = pw2(L, KRL_PW_ADD, v, e, &ve)) ||
	    (r = pw1(L, KRL_PW_RSQRT, ve, &rs)) ||
	    (r = krl_graph_view(L->g, in[1], 3, w3, &wv, L->d)) ||
	    (r = krl_graph_view(L->g, in[2], 3, w3, &bv, L->d)) ||
	    (r = pw2(L, KRL_PW_MUL, rs, wv, &A)) ||
	    (r = pw2(L, KRL_PW_MUL, m, A, &mA)) ||
	    (r = pw2(L, KRL_PW_SUB, bv, mA, &B)) ||
	    (r = krl_graph_view(L->g, A, nd, c4, &Ac, L->d)) ||
	    (r = krl_graph_view(L->g, B, nd, c4, &Bc, L->d)) ||
	    (r = pw2(L, KRL_PW_MUL, x, Ac, &xa)))
		return r;
	return pw2(L, KRL_PW_ADD, xa, Bc, out);
}

/* x [N, C, *] seen as [N, G, C / G * spatial], normalised over its last
 * axis, seen as x again, then the per-channel affine; in two levels
 * where x has spatial dims (groupnorm2). */
static krl_err lo_groupnorm(lower *L, const int *in, int *out)
{
	int x = in[0], nd = N(L, x)->ndim, a = attr_at(L, "groups");
	double gd = attr_val(L, "groups", 0);
	int64_t gv = gd >= 1 && gd <= 1e15 ? (int64_t)gd : 0, mv;
	const krl_gnode *xn = N(L, x);
	if (a < 0 || gv < 1 || xn->dim[1].val % gv)
		return krl_diag_set(L->d, KRL_EINVAL, L->s->pos, "groupnorm: groups "
		                    "must divide the channels");
	char *gt = krl_opt_expr_text(L->s->attrs[a].value);
	char *cg = gt ? krl_opt_text_binary(xn->dim[1].text, '/', gt) : NULL;
	char *mt = size_text(L, x, 2, nd, &mv);
	char *lt = cg && mt ? krl_opt_text_binary(cg, '*', mt) : NULL;
	krl_gdim v3[3] = {
		{ xn->dim[0].text, xn->dim[0].val }, { gt, gv },
		{ lt, xn->dim[1].val / gv * mv },
	};
	/* Texts are separate strings: adding nodes (which may move the node
	 * array) leaves these pointers valid. */
	krl_gdim back[KRL_MAX_DIM];
	for (int k = 0; k < nd; k++)
		back[k] = xn->dim[k];
	int xv, y, yv;
	krl_err r = KRL_OK;
	if (!gt || !cg || !mt || !lt)
		r = oom(L);
	else if (nd > 2) {
		r = groupnorm2(L, in, gt, cg, gv, out);
		goto done;
	}
	if (!r)
		r = krl_graph_view(L->g, x, 3, v3, &xv, L->d);
	if (!r)
		r = normalise(L, xv, 2, 1, &y);
	if (!r)
		r = krl_graph_view(L->g, y, nd, back, &yv, L->d);
	if (!r)
		r = chan_affine(L, yv, in[1], in[2], out);
done:
	free(gt);
	free(cg);
	free(mt);
	free(lt);
	return r;
}

/* -mean of logp[i, t[i]]. When the targets are an input drawn in
 * [0, C) the ignore index (-100) cannot occur and the pick is a plain
 * mean; otherwise ignored rows drop out of the sum and the count. */
static krl_err lo_nll_loss(lower *L, const int *in, int *out)
{
	int p, m;
	krl_err r = krl_graph_gather(L->g, in[0], in[1], 1, &p, L->d);
	if (r)
		return r;
	const krl_gnode *t = N(L, in[1]);
	const krl_buf *tb = t->kind == KRL_GN_BUF ? &L->prog->bufs[t->buf]
	                                          : NULL;
	if (tb && tb->role == KRL_ROLE_INPUT &&
	    ((tb->dist.kind == KRL_DIST_RANDINT && tb->dist.a >= 0) ||
	     tb->dist.kind == KRL_DIST_BERNOULLI)) {
		if ((r = mean_over(L, p, 0, 1, 0, &m)))
			return r;
		return pw1(L, KRL_PW_NEG, m, out);
	}
	int ig, ign, zero, one, pick, valid, s, cnt, q;
	if ((r = cnum(L, KRL_NLL_IGNORE, &ig)) ||
	    (r = pw2(L, KRL_PW_EQ, in[1], ig, &ign)) ||
	    (r = cnum(L, 0, &zero)) || (r = cnum(L, 1, &one)) ||
	    (r = pw3(L, KRL_PW_WHERE, ign, zero, p, &pick)) ||
	    (r = pw2(L, KRL_PW_SUB, one, ign, &valid)) ||
	    (r = krl_graph_reduce(L->g, KRL_RED_SUM, pick, 0, 1, 0, &s, L->d)) ||
	    (r = krl_graph_reduce(L->g, KRL_RED_SUM, valid, 0, 1, 0, &cnt,
	                          L->d)) ||
	    (r = pw2(L, KRL_PW_DIV, s, cnt, &q)))
		return r;
	return pw1(L, KRL_PW_NEG, q, out);
}

/* ==== Scans ==== */

static krl_err scan(lower *L, krl_scanop op, const int *in, int *out)
{
	int axis;
	krl_err r = dim_attr(L, N(L, in[0])->ndim, &axis);
	return r ? r : krl_graph_scan(L->g, op, in[0], axis, 0, 0, out, L->d);
}

static krl_err lo_cumsum(lower *L, const int *in, int *out)
{
	return scan(L, KRL_SCAN_SUM, in, out);
}

static krl_err lo_cumprod(lower *L, const int *in, int *out)
{
	return scan(L, KRL_SCAN_PROD, in, out);
}

static krl_err lo_flip(lower *L, const int *in, int *out)
{
	int axis;
	krl_err r = dim_attr(L, N(L, in[0])->ndim, &axis);
	return r ? r : krl_graph_flip(L->g, in[0], axis, out, L->d);
}

/* ==== Pooling ==== */

/* Each attribute's value at the set lowered into n->aval (NAN: a word,
 * or no value). */
static void eval_attrs(lower *L, krl_gnode *n)
{
	for (int a = 0; a < n->nattrs && a < KRL_MAX_ATTR; a++) {
		krl_value v;
		n->aval[a] = krl_expr_eval(n->attrs[a].value, &L->sc.scope, &v,
		                           NULL) ? NAN :
		             v.is_float ? v.f : (double)v.i;
	}
}

/* max_poolNd -> a MAX node for y and an ARGMAX node for idx (when the
 * plan names it: compaction drops it when nothing reads it); avg_poolNd
 * -> an AVG node. The pooled sizes are the texts of the call's output
 * buffer. Only the table's pool ops reach here: their names (avg_ or not,
 * the rank before the final 'd') are part of that table's knowledge. */
static krl_err lo_pool(lower *L, const int *in, int *out)
{
	const char *name = L->st->op->name;
	int avg = !strncmp(name, "avg_", 4);
	int rank = name[strlen(name) - 2] - '0';
	const krl_stmt *s = L->s;
	if (rank < 1 || rank > 3)
		return krl_diag_set(L->d, KRL_EUNSUPPORTED, s->pos, "%s: not a "
		                    "1-d, 2-d or 3-d pool", name);
	for (int k = 0; k < L->st->nout && k < (avg ? 1 : 2); k++) {
		krl_gnode tmp = { 0 };
		krl_err r = dims_of_buf(L, L->st->out[k], &tmp);
		if (!r && tmp.ndim != N(L, in[0])->ndim)
			r = krl_diag_set(L->d, KRL_EINVAL, s->pos, "%s: output '%s' has "
			                 "rank %d, x %d", name, s->outs[k], tmp.ndim,
			                 N(L, in[0])->ndim);
		krl_poolop op = avg ? KRL_POOL_AVG : k ? KRL_POOL_ARGMAX :
		                KRL_POOL_MAX;
		if (!r)
			r = krl_graph_pool(L->g, op, name, in[0], rank, s->attrs,
			                   s->nattrs, &tmp.dim[tmp.ndim - rank], &out[k],
			                   L->d);
		krl_gnode_clear(&tmp);
		if (r)
			return r;
		/* the window at this set (a literal count of taps where it is
		 * fixed in every set: codegen_pool.c) */
		eval_attrs(L, &L->g->n[out[k]]);
	}
	return KRL_OK;
}

/* ==== Library calls kept whole ==== */

static krl_err lo_lib(lower *L, const int *in, int *out)
{
	const krl_stmt *s = L->s;
	krl_gnode n = { .kind = KRL_GN_LIB, .op = L->st->op->name };
	krl_err r;
	n.nin = s->nin;
	n.nout = s->nout;
	if (s->nin > KRL_MAX_CALL_IN || s->nout > 4)
		return krl_diag_set(L->d, KRL_EUNSUPPORTED, s->pos, "%s: more than "
		                    "%d inputs or 4 outputs", s->name,
		                    KRL_MAX_CALL_IN);
	for (int q = 0; q < s->nin; q++)
		n.in[q] = in[q];
	if ((r = dims_of_buf(L, L->st->out[0], &n)) ||
	    krl_opt_attrs_copy(s->attrs, s->nattrs, &n.attrs)) {
		krl_gnode_clear(&n);
		return r ? r : oom(L);
	}
	n.nattrs = s->nattrs;
	eval_attrs(L, &n);
	int lib = krl_graph_add(L->g, &n);
	if (lib < 0)
		return oom(L);
	if (s->nout == 1) {
		out[0] = lib;
		return KRL_OK;
	}
	for (int k = 0; k < s->nout; k++) {
		krl_gnode p = { .kind = KRL_GN_PROJ, .nin = 1, .index = k };
		p.in[0] = lib;
		if ((r = dims_of_buf(L, L->st->out[k], &p))) {
			krl_gnode_clear(&p);
			return r;
		}
		if ((out[k] = krl_graph_add(L->g, &p)) < 0)
			return oom(L);
	}
	return KRL_OK;
}

/* The value of attribute `key` of LIB node n at the set, and whether it is
 * written as a literal. */
static int lib_attr(lower *L, const krl_gnode *n, const char *key,
                    double *v, int *literal)
{
	for (int i = 0; i < n->nattrs; i++) {
		if (strcmp(n->attrs[i].key, key) != 0)
			continue;
		krl_value x;
		if (krl_expr_eval(n->attrs[i].value, &L->sc.scope, &x, NULL))
			return 0;
		*v = x.is_float ? x.f : (double)x.i;
		*literal = krl_opt_expr_literal(n->attrs[i].value);
		return 1;
	}
	return 0;
}

/* cat(fill 0 [.., 1, ..], cumsum(narrow(x, start 0, n - 1))) along one
 * dim is the exclusive scan of x (92_cumsum_exclusive, as eager PyTorch
 * spells it); likewise with fill 1 and cumprod. Sets *out, or -1. A
 * pattern over what fill and narrow compute, so it names them. */
static void exclusive_scan(lower *L, const int *in, int axis, int *out)
{
	const krl_gnode *z = N(L, in[0]), *sc = N(L, in[1]);
	double v, start, dim;
	int lit, lit2, lit3;
	*out = -1;
	if (z->kind != KRL_GN_LIB || strcmp(z->op, "fill") != 0 ||
	    sc->kind != KRL_GN_SCAN || sc->reverse || sc->exclusive ||
	    sc->axis != axis || z->ndim != sc->ndim || z->dim[axis].val != 1)
		return;
	const krl_gnode *nw = N(L, sc->in[0]);
	if (nw->kind != KRL_GN_LIB || strcmp(nw->op, "narrow") != 0)
		return;
	const krl_gnode *x = N(L, nw->in[0]);
	double want = sc->scan == KRL_SCAN_SUM ? 0 : 1;
	if (!lib_attr(L, z, "value", &v, &lit))
		v = 0, lit = 1;
	if (!lit || v != want ||
	    !lib_attr(L, nw, "start", &start, &lit2) || !lit2 || start != 0 ||
	    !lib_attr(L, nw, "dim", &dim, &lit3) ||
	    (int)(dim < 0 ? dim + nw->ndim : dim) != axis ||
	    x->ndim != nw->ndim || x->dim[axis].val != nw->dim[axis].val + 1)
		return;
	for (int k = 0; k < x->ndim; k++)
		if (k != axis && (x->dim[k].val != nw->dim[k].val ||
		                  x->dim[k].val != z->dim[k].val))
			return;
	int o;
	if (krl_graph_scan(L->g, sc->scan, nw->in[0], axis, 0, 1, &o, NULL))
		return;
	*out = o;
}

static krl_err lo_cat(lower *L, const int *in, int *out)
{
	int axis;
	krl_err r = dim_attr(L, N(L, in[0])->ndim, &axis);
	if (r)
		return r;
	if (L->s->nin != 2)   /* a variadic cat: kept whole */
		return lo_lib(L, in, out);
	exclusive_scan(L, in, axis, out);
	return out[0] >= 0 ? KRL_OK : lo_lib(L, in, out);
}

/* ==== The op table ==== */

/* The ops the optimizer lowers (KRL_OPCAP_LOWER), by name: how each op
 * becomes graph nodes is the optimizer's own knowledge of its meaning.
 * The ops declared KRL_OPCAP_LIBRARY are not listed: lower_call keeps
 * every one of them whole (lo_lib). tests/opt/test_lower.c checks that
 * every registered op is one or the other. */
static const struct {
	const char *op;
	lower_fn fn;
} OPS[] = {
	{ "copy", lo_copy },
	{ "relu", lo_plain }, { "sigmoid", lo_plain }, { "tanh", lo_plain },
	{ "abs", lo_plain }, { "sqrt", lo_plain }, { "log", lo_plain },
	{ "square", lo_plain }, { "add", lo_plain }, { "sub", lo_plain },
	{ "mul", lo_plain }, { "div", lo_plain }, { "mul_bcast", lo_plain },
	{ "div_bcast", lo_plain }, { "xlogy", lo_plain },
	{ "mul_mask", lo_plain }, { "exp", lo_plain },
	{ "add_bcast", lo_plain }, { "sub_bcast", lo_plain },
	{ "minimum_bcast", lo_plain },
	{ "minimum_scalar", lo_minimum_scalar },
	{ "maximum_scalar", lo_maximum_scalar },
	{ "hardswish", lo_hardswish }, { "mish", lo_mish },
	{ "dropout_apply", lo_dropout_apply },
	{ "masked_fill", lo_masked_fill }, { "eq_scalar", lo_eq_scalar },
	{ "scale", lo_scale }, { "add_scalar", lo_add_scalar },
	{ "rsub_scalar", lo_rsub_scalar }, { "clamp_min", lo_clamp_min },
	{ "leaky_relu", lo_leaky_relu }, { "elu", lo_elu }, { "selu", lo_selu },
	{ "hardsigmoid", lo_hardsigmoid }, { "hardtanh", lo_hardtanh },
	{ "softplus", lo_softplus }, { "gelu", lo_gelu },
	{ "pow_scalar", lo_pow_scalar }, { "smooth_l1", lo_smooth_l1 },
	{ "sum", lo_sum }, { "prod", lo_prod }, { "max", lo_max },
	{ "min", lo_min }, { "argmax", lo_argmax }, { "argmin", lo_argmin },
	{ "mean", lo_mean }, { "vector_norm", lo_vector_norm },
	{ "softmax", lo_softmax }, { "log_softmax", lo_log_softmax },
	{ "logsumexp", lo_logsumexp },
	{ "layernorm", lo_layernorm }, { "instancenorm", lo_instancenorm },
	{ "batchnorm", lo_batchnorm }, { "groupnorm", lo_groupnorm },
	{ "nll_loss", lo_nll_loss },
	{ "cumsum", lo_cumsum }, { "cumprod", lo_cumprod }, { "flip", lo_flip },
	{ "cat", lo_cat },
	/* window nodes */
	{ "max_pool1d", lo_pool }, { "max_pool2d", lo_pool },
	{ "max_pool3d", lo_pool }, { "avg_pool1d", lo_pool },
	{ "avg_pool2d", lo_pool }, { "avg_pool3d", lo_pool },
};

/* The lowering of op z in the table, or NULL. */
static lower_fn lowering(const char *z)
{
	for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
		if (strcmp(OPS[i].op, z) == 0)
			return OPS[i].fn;
	return NULL;
}

int krl_graph_lowers(const char *z)
{
	return z && lowering(z) != NULL;
}

/* ==== Views ====
 *
 * A plan `view` is its root's memory with other dims. Values live per
 * root: L->cur[root] is the node holding the root's elements, and a view
 * has no node of its own. Reading a view is a VIEW node of its root's
 * value with the view's dims; writing one (a call's output) sets its
 * root's value to a VIEW of the result with the root's dims, so a write
 * through a view of an output writes the output. A slice (an offset, or
 * fewer elements) is read as a `narrow` of its root seen flat (a copy the
 * plan's view does not make). A write through a slice of a root that
 * holds no node as a whole (a scratch or output buffer filled part by
 * part: level 3's 34 writes each step's output to a slice of one buffer,
 * then the stacked steps to slices of y) records a part; a read of the
 * same slice is that part's node, a read of consecutive parts (or of the
 * whole root, or the root as a task output) their `cat`. A write through
 * a slice of a root that holds a node is refused: the graph has no node
 * that merges a part into the rest of a tensor. */

/* Node x seen with the dims of shape (krl_graph_view_as). */
static krl_err view_as(lower *L, int x, const krl_gnode *shape, int *o)
{
	return krl_graph_view_as(L->g, x, shape->ndim, shape->dim, o, L->d);
}

/* 1 when view b is a slice: not its whole root at offset 0 in every set
 * (an offset, fewer elements, or an offset that is 0 here but written
 * over shape keys). */
static int is_slice(lower *L, int b)
{
	const krl_buf *kb = &L->prog->bufs[b], *rb = &L->prog->bufs[kb->alias];
	const krl_decl *dc = decl_of(L, b);
	return !(kb->offset == 0 && kb->numel == rb->numel &&
	         (!dc->view_off || krl_opt_expr_literal(dc->view_off)));
}

#define SLICE_TEXT 1024

/* The elements of slice view b read from its root's value x: x seen flat,
 * a `narrow` of the view's element range (start: the view's offset
 * expression), seen with the view's dims. A copy, where the plan's view
 * is free: the graph has no node that reads part of a tensor in place. */
static krl_err read_slice(lower *L, int x, int b, int *o)
{
	const krl_buf *kb = &L->prog->bufs[b];
	const krl_decl *dc = decl_of(L, b);
	krl_gnode shape = { 0 };
	char nroot[SLICE_TEXT], nview[SLICE_TEXT];
	krl_err r = dims_of_buf(L, b, &shape);
	if (r) {
		krl_gnode_clear(&shape);
		return r;
	}
	krl_gnode_dims_text(N(L, x), 0, N(L, x)->ndim, nroot, sizeof nroot);
	krl_gnode_dims_text(&shape, 0, shape.ndim, nview, sizeof nview);
	char *off = dc->view_off ? krl_opt_expr_text(dc->view_off) : NULL;
	krl_gdim flat = { nroot, krl_gnode_numel(N(L, x)) };
	krl_gdim part = { nview, kb->numel };
	krl_gattr a[2] = { { "dim", "0", 0 },
	                   { "start", off ? off : "0", (double)kb->offset } };
	int f, nw;
	if (dc->view_off && !off)
		r = oom(L);
	if (!r)
		r = krl_graph_view(L->g, x, 1, &flat, &f, L->d);
	if (!r)
		r = krl_graph_lib(L->g, "narrow", &f, 1, 1, &part, a, 2, &nw, L->d);
	if (!r)
		r = view_as(L, nw, &shape, o);
	free(off);
	krl_gnode_clear(&shape);
	return r;
}
/* Node x seen with program buffer b's dims (view_as). */
static krl_err as_buf(lower *L, int x, int b, int *o)
{
	krl_gnode shape = { 0 };
	krl_err r = dims_of_buf(L, b, &shape);
	if (!r)
		r = view_as(L, x, &shape, o);
	krl_gnode_clear(&shape);
	return r;
}

/* ==== Parts: slices written one by one ==== */

/* The parts of root covering [off, off + n) exactly, consecutive and in
 * order of offset: their indices into idx (at most cap), their count, or
 * -1 when they do not cover it so. */
static int parts_cover(const lower *L, int root, int64_t off, int64_t n,
                       int *idx, int cap)
{
	int k = 0;
	int64_t at = off;
	while (at < off + n) {
		int found = -1;
		for (int i = 0; i < L->nparts; i++)
			if (L->parts[i].root == root && L->parts[i].off == at)
				found = i;
		if (found < 0 || k == cap ||
		    L->parts[found].off + L->parts[found].n > off + n)
			return -1;
		idx[k++] = found;
		at += L->parts[found].n;
	}
	return k;
}

/* Elements [off, off + n) of root from its parts: the one part, or the
 * `cat` of the parts seen flat (elements in order), n elements seen
 * flat; *o = -1 when the parts do not cover the range exactly. */
static krl_err parts_read(lower *L, int root, int64_t off, int64_t n, int *o)
{
	int idx[KRL_MAX_CALL_IN], in[KRL_MAX_CALL_IN];
	int k = parts_cover(L, root, off, n, idx, KRL_MAX_CALL_IN);
	*o = -1;
	if (k <= 0)
		return KRL_OK;
	if (k == 1) {
		*o = L->parts[idx[0]].x;
		return KRL_OK;
	}
	char text[SLICE_TEXT], all[4 * SLICE_TEXT];
	size_t used = 0;
	krl_err r = KRL_OK;
	for (int i = 0; i < k && !r; i++) {
		const krl_gnode *x = N(L, L->parts[idx[i]].x);
		krl_gnode_dims_text(x, 0, x->ndim, text, sizeof text);
		krl_gdim flat = { text, L->parts[idx[i]].n };
		r = krl_graph_view(L->g, L->parts[idx[i]].x, 1, &flat, &in[i],
		                   L->d);
		int w = snprintf(all + used, sizeof all - used, "%s(%s)",
		                 i ? " + " : "", text);
		if (w < 0 || (size_t)w >= sizeof all - used)
			return krl_diag_set(L->d, KRL_EUNSUPPORTED,
			                    decl_of(L, root)->pos, "'%s' is read "
			                    "from %d parts whose sizes make too "
			                    "long a text", L->prog->bufs[root].name,
			                    k);
		used += (size_t)w;
	}
	krl_gdim cd = { all, n };
	krl_gattr a = { "dim", "0", 0 };
	return r ? r : krl_graph_lib(L->g, "cat", in, k, 1, &cd, &a, 1, o, L->d);
}

/* Drops root's parts (a whole write replaces them; a join consumed
 * them). */
static void parts_drop(lower *L, int root)
{
	int k = 0;
	for (int i = 0; i < L->nparts; i++)
		if (L->parts[i].root != root)
			L->parts[k++] = L->parts[i];
	L->nparts = k;
}

/* Root b as a whole from its parts (a read of all of it, or a task
 * output at the end): L->cur[b] becomes their `cat` with b's dims and the
 * parts are dropped; nothing when b has none. Parts that leave elements
 * unwritten are refused, naming the root. */
static krl_err parts_join(lower *L, int b)
{
	int have = 0, x;
	for (int i = 0; i < L->nparts; i++)
		have |= L->parts[i].root == b;
	if (!have)
		return KRL_OK;
	krl_err r = parts_read(L, b, 0, L->prog->bufs[b].numel, &x);
	if (r)
		return r;
	if (x < 0)
		return krl_diag_set(L->d, KRL_EUNSUPPORTED, decl_of(L, b)->pos,
		                    "'%s' is read whole, but the slices written "
		                    "to it do not cover its %lld elements in at "
		                    "most %d parts", L->prog->bufs[b].name,
		                    (long long)L->prog->bufs[b].numel,
		                    KRL_MAX_CALL_IN);
	if ((r = as_buf(L, x, b, &L->cur[b])))
		return r;
	parts_drop(L, b);
	return KRL_OK;
}

/* Slice b of root (which holds no node) now holds node x: a new part,
 * or the part of the same elements replaced; a write that overlaps
 * another part otherwise is refused. */
static krl_err parts_write(lower *L, int root, int b, int x)
{
	const krl_buf *kb = &L->prog->bufs[b];
	int v;
	krl_err r = as_buf(L, x, b, &v);
	if (r)
		return r;
	for (int i = 0; i < L->nparts; i++) {
		lpart *p = &L->parts[i];
		if (p->root != root || p->off >= kb->offset + kb->numel ||
		    kb->offset >= p->off + p->n)
			continue;
		if (p->off == kb->offset && p->n == kb->numel) {
			p->x = v;
			p->buf = b;
			return KRL_OK;
		}
		return krl_diag_set(L->d, KRL_EUNSUPPORTED, decl_of(L, b)->pos,
		                    "a call writes view '%s', elements [%lld, "
		                    "%lld) of '%s', which overlaps the part "
		                    "'%s' wrote, [%lld, %lld), without being it",
		                    kb->name, (long long)kb->offset,
		                    (long long)(kb->offset + kb->numel),
		                    L->prog->bufs[root].name,
		                    L->prog->bufs[p->buf].name, (long long)p->off,
		                    (long long)(p->off + p->n));
	}
	if (L->nparts == L->capparts) {
		int cap = L->capparts ? 2 * L->capparts : 64;
		lpart *np = realloc(L->parts, (size_t)cap * sizeof *np);
		if (!np)
			return oom(L);
		L->parts = np;
		L->capparts = cap;
	}
	L->parts[L->nparts++] = (lpart){ root, b, v, kb->offset, kb->numel };
	return KRL_OK;
}

/* The node program buffer b (a view or not) holds now, or -1. A root
 * filled part by part: a slice read is its parts' node, a whole read
 * joins them. */
static krl_err read_buf(lower *L, int b, int *o)
{
	int root = krl_buf_root(L->prog, b);
	krl_err r;
	*o = L->cur[root];
	if (*o < 0 && root != b && is_slice(L, b)) {
		const krl_buf *kb = &L->prog->bufs[b];
		int x;
		r = parts_read(L, root, kb->offset, kb->numel, &x);
		return r || x < 0 ? r : as_buf(L, x, b, o);
	}
	if (*o < 0) {
		if ((r = parts_join(L, root)))
			return r;
		*o = L->cur[root];
	}
	if (*o < 0 || root == b)
		return KRL_OK;
	return is_slice(L, b) ? read_slice(L, *o, b, o) : as_buf(L, *o, b, o);
}

/* Program buffer b (a view or not) now holds node x. A write through a
 * slice of a root that holds no node is a part (parts_write); one through
 * a slice of a root that holds a node is refused, naming it: the graph
 * has no node that merges a part into the rest of a tensor. A whole
 * write drops the root's parts. */
static krl_err write_buf(lower *L, int b, int x)
{
	int root = krl_buf_root(L->prog, b);
	if (root == b) {
		parts_drop(L, b);
		L->cur[b] = x;
		return KRL_OK;
	}
	if (is_slice(L, b) && L->cur[root] < 0)
		return parts_write(L, root, b, x);
	if (is_slice(L, b)) {
		const krl_buf *kb = &L->prog->bufs[b], *rb = &L->prog->bufs[root];
		return krl_diag_set(L->d, KRL_EUNSUPPORTED, decl_of(L, b)->pos,
		                    "a call writes view '%s', elements [%lld, "
		                    "%lld) of '%s' (%lld elements): the optimizer "
		                    "reads slices but does not write through them "
		                    "(the op graph has no node that merges a part "
		                    "into a tensor)", kb->name,
		                    (long long)kb->offset,
		                    (long long)(kb->offset + kb->numel), rb->name,
		                    (long long)rb->numel);
	}
	parts_drop(L, root);
	return as_buf(L, x, root, &L->cur[root]);
}

/* ==== Driver ==== */

/* Lowers one call: its operands' nodes, the op's nodes, and the output
 * buffers' new nodes, which must have the shapes the plan declares. */
static krl_err lower_call(lower *L, const krl_stmt *s, const krl_step *st)
{
	int in[KRL_MAX_CALL_IN], out[4] = { -1, -1, -1, -1 };
	lower_fn fn = NULL;
	L->s = s;
	L->st = st;
	fn = lowering(s->name);
	if (!fn && st->op && (st->op->caps & KRL_OPCAP_LIBRARY))
		fn = lo_lib;
	if (!fn)
		return krl_diag_set(L->d, KRL_EUNSUPPORTED, s->pos,
		                    "op '%s' has no lowering to the op graph",
		                    s->name);
	krl_err r;
	for (int q = 0; q < st->nin; q++) {
		if ((r = read_buf(L, st->in[q], &in[q])))
			return r;
		if (in[q] < 0)
			return krl_diag_set(L->d, KRL_EINVAL, s->pos, "%s reads '%s' "
			                    "before anything writes it", s->name,
			                    s->ins[q]);
	}
	r = fn(L, in, out);
	if (r)
		return r;
	for (int k = 0; k < st->nout; k++) {
		const krl_buf *kb = &L->prog->bufs[st->out[k]];
		const krl_gnode *n = N(L, out[k]);
		int ok = n->ndim == kb->ndim;
		for (int q = 0; ok && q < n->ndim; q++)
			ok = n->dim[q].val == kb->dim[q];
		if (!ok)
			return krl_diag_set(L->d, KRL_EUNSUPPORTED, s->pos,
			                    "%s: the lowered result has rank %d, but "
			                    "'%s' is declared with rank %d or other "
			                    "dims", s->name, n->ndim, kb->name,
			                    kb->ndim);
	}
	for (int k = 0; k < st->nout; k++)
		if ((r = write_buf(L, st->out[k], out[k])))
			return r;
	return KRL_OK;
}

krl_err krl_graph_lower(const krl_task *t, const char *set, krl_graph **out,
                        krl_diag *d)
{
	lower L = { .t = t, .d = d };
	krl_limits lim = krl_limits_sm90();
	krl_err r;
	*out = NULL;
	if ((r = krl_program_build(t, NULL, set, &lim, &L.prog, d)) ||
	    (r = krl_opt_scope_init(&L.sc, t, set, d)))
		goto done;
	if (!(L.g = krl_graph_new(t)) ||
	    !(L.cur = malloc((size_t)L.prog->nbufs * sizeof *L.cur))) {
		r = oom(&L);
		goto done;
	}
	for (int i = 0; i < L.prog->nbufs; i++)
		L.cur[i] = -1;
	for (int i = 0; i < t->ndecls; i++) {
		krl_gnode n = { .kind = KRL_GN_BUF, .buf = i };
		if ((r = dims_of_buf(&L, i, &n))) {
			krl_gnode_clear(&n);
			goto done;
		}
		int at = krl_graph_add(L.g, &n);
		if (at < 0) {
			r = oom(&L);
			goto done;
		}
		if (t->decls[i].role != KRL_ROLE_OUTPUT)
			L.cur[i] = at;
	}
	for (int i = 0; i < L.prog->nbody; i++)
		if ((r = lower_call(&L, &t->ref.body[i], &L.prog->body[i])))
			goto done;
	for (int i = 0; i < t->ndecls; i++) {
		if (t->decls[i].role != KRL_ROLE_OUTPUT)
			continue;
		if (L.g->nout == (int)(sizeof L.g->out / sizeof L.g->out[0])) {
			r = krl_diag_set(d, KRL_EUNSUPPORTED, t->decls[i].pos,
			                 "more than 8 outputs");
			goto done;
		}
		/* an output written part by part */
		if (L.cur[i] < 0 && (r = parts_join(&L, i)))
			goto done;
		L.g->out[L.g->nout] = L.cur[i];
		L.g->outdecl[L.g->nout++] = i;
	}
	if ((r = krl_graph_compact(L.g, NULL))) {
		r = oom(&L);
		goto done;
	}
	*out = L.g;
	L.g = NULL;
done:
	krl_graph_free(L.g);
	free(L.cur);
	free(L.parts);
	krl_opt_scope_free(&L.sc);
	krl_program_free(L.prog);
	return r;
}
