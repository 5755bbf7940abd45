/*
 * Rewrite rules of the op graph (include/krl/opt.h, docs/optimizer.md
 * section 2). Each rule keeps the graph's meaning (up to fp32 rounding
 * where it reassociates) and makes it smaller or cheaper.
 *
 * A rule runs as one rebuild: the nodes are copied in order into a new
 * graph, inputs renumbered; before a node is copied the rule looks at it
 * (its inputs already rewritten, so rewrites compose along a chain) and
 * may give a replacement built in the new graph instead. Nodes nothing
 * reads any more are dropped at the end; the order stays topological and
 * g->out follows the replacements.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/opgeom.h"
#include "krl/ops.h"
#include "opt/opt_int.h"
#include "opt/rewrite.h"

/* One rule at one node: n is the old node with its inputs renumbered into
 * the new graph. Sets *out to a new-graph node that replaces it, or
 * leaves it -1. Errors: KRL_ENOMEM (or a builder's). */
typedef krl_err (*rule_fn)(rw *R, const krl_gnode *n, int *out);

static const krl_gnode *NN(const rw *R, int i)
{
	return &R->g->n[i];
}

const char *krl_rule_name(krl_rule r)
{
	switch (r) {
	case KRL_RULE_FOLD: return "fold";
	case KRL_RULE_DIAG_BCAST: return "diag_bcast";
	case KRL_RULE_FLIP: return "flip";
	case KRL_RULE_REDUCE_LINEAR: return "reduce_linear";
	case KRL_RULE_CANCEL: return "cancel";
	case KRL_RULE_CONV_MEAN: return "conv_mean";
	case KRL_RULE_CONV_BIAS: return "conv_bias";
	case KRL_RULE_RECURRENCE: return "recurrence";
	case KRL_RULE_POOL_CONV: return "pool_conv";
	case KRL_RULE_NARROW_GEMM: return "narrow_gemm";
	case KRL_RULE_CSE: return "cse";
	case KRL_RULE_ATTENTION: return "attention";
	case KRL_RULE_CAT_REDUCE: return "cat_reduce";
	case KRL_RULE_CONV_MERGE: return "conv_merge";
	case KRL_RULE_SMALL_K: return "small_k";
	case KRL_RULE_TANH_SOFTPLUS: return "tanh_softplus";
	default: return "?";
	}
}

/* ==== Helpers ==== */

double krl_rw_attr_val(const krl_gnode *n, const char *key, char **text)
{
	if (text)
		*text = NULL;
	for (int a = 0; a < n->nattrs; a++) {
		if (strcmp(n->attrs[a].key, key))
			continue;
		if (text)
			*text = krl_opt_expr_text(n->attrs[a].value);
		return n->aval[a];
	}
	return NAN;
}

/* 1 when text is a plan expression without names: the same value in
 * every shape set. */
static int text_literal(const char *text)
{
	krl_scope empty = { 0 };
	krl_value v;
	return krl_opt_eval_text(text, &empty, &v, NULL) == KRL_OK;
}

/* Node i is a scalar CONST (of literal value v when want is not NaN). */
int krl_rw_is_const(const rw *R, int i, double want)
{
	const krl_gnode *n = NN(R, i);
	if (n->kind != KRL_GN_CONST || n->ndim != 0)
		return 0;
	return isnan(want) || (n->cval == want && text_literal(n->cexpr));
}

static int same_dims(const krl_gnode *a, const krl_gnode *b)
{
	if (a->ndim != b->ndim)
		return 0;
	for (int k = 0; k < a->ndim; k++)
		if (a->dim[k].val != b->dim[k].val)
			return 0;
	return 1;
}

/* The old-graph node the rebuild mapped to new node i, or -1. */
int krl_rw_old_of(const rw *R, int i)
{
	for (int k = 0; k < R->old->nn; k++)
		if (R->map[k] == i)
			return k;
	return -1;
}

static krl_err oom(rw *R)
{
	return krl_rw_oom(R);
}

/* A copy of node src (of the new graph) reading in0 and in1 (-1: its own
 * input there) with its dims [lo, hi) those of node `from`, added to the
 * new graph as *out. */
static krl_err add_redimmed(rw *R, int src, int in0, int in1,
                            const krl_gnode *from, int lo, int hi, int *out)
{
	krl_gnode c;
	if (krl_gnode_copy(&c, NN(R, src)))
		return oom(R);
	if (in0 >= 0)
		c.in[0] = in0;
	if (in1 >= 0)
		c.in[1] = in1;
	for (int k = lo; k < hi; k++) {
		free(c.dim[k].text);
		c.dim[k].val = from->dim[k].val;
		if (!(c.dim[k].text = krl_opt_strdup(from->dim[k].text))) {
			krl_gnode_clear(&c);
			return oom(R);
		}
	}
	if ((*out = krl_graph_add(R->g, &c)) < 0)
		return oom(R);
	return KRL_OK;
}

static krl_err pw2(rw *R, krl_pwop op, int a, int b, int *o)
{
	int in[2] = { a, b };
	return krl_graph_pw(R->g, op, in, o, R->d);
}

/* ==== FOLD: constants, identities, scalar chains, reductions of one
 * element ==== */

/* The text of op over constant texts t[], when the plan language can say
 * it; NULL otherwise (or out of memory). */
static char *fold_text(krl_pwop op, char *const *t)
{
	char *a = NULL, *s = NULL;
	switch (op) {
	case KRL_PW_ADD: return krl_opt_text_binary(t[0], '+', t[1]);
	case KRL_PW_SUB: return krl_opt_text_binary(t[0], '-', t[1]);
	case KRL_PW_MUL: return krl_opt_text_binary(t[0], '*', t[1]);
	case KRL_PW_DIV:
		/* 1.0 * a / b: a float division even between integer texts */
		a = krl_opt_text_binary("1.0", '*', t[0]);
		s = a ? krl_opt_text_binary(a, '/', t[1]) : NULL;
		free(a);
		return s;
	case KRL_PW_NEG: return krl_opt_text_binary("0.0", '-', t[0]);
	case KRL_PW_SQUARE: return krl_opt_text_binary(t[0], '*', t[0]);
	case KRL_PW_RECIP: return krl_opt_text_binary("1.0", '/', t[0]);
	case KRL_PW_SQRT: return krl_opt_fmt("sqrt(%s)", t[0]);
	case KRL_PW_RSQRT: return krl_opt_fmt("1.0 / sqrt(%s)", t[0]);
	case KRL_PW_MAX: return krl_opt_fmt("max(%s, %s)", t[0], t[1]);
	case KRL_PW_MIN: return krl_opt_fmt("min(%s, %s)", t[0], t[1]);
	default: return NULL;
	}
}

/* A PW node of scalar constants is one constant: its value's literal
 * text when every operand is literal, else a formula over their texts. */
static krl_err fold_consts(rw *R, const krl_gnode *n, int *out)
{
	double a[3];
	char *t[3];
	int literal = 1;
	for (int q = 0; q < n->nin; q++) {
		if (!krl_rw_is_const(R, n->in[q], NAN))
			return KRL_OK;
		a[q] = NN(R, n->in[q])->cval;
		t[q] = NN(R, n->in[q])->cexpr;
		literal &= text_literal(t[q]);
	}
	double v = krl_pw_info(n->pw)->f(a);
	if (!isfinite(v))
		return KRL_OK;
	char *z = literal ? krl_opt_num_text(v) : fold_text(n->pw, t);
	if (!z)
		return KRL_OK;   /* no text for it (or no memory): left as is */
	krl_err r = krl_graph_const(R->g, z, v, out, R->d);
	free(z);
	return r;
}

/* x * 1, 1 * x, x / 1, x + 0, 0 + x, x - 0 are x (an f32 x of the
 * result's shape). */
static krl_err fold_identity(rw *R, const krl_gnode *n, int *out)
{
	int x = -1;
	switch (n->pw) {
	case KRL_PW_MUL:
		x = krl_rw_is_const(R, n->in[1], 1) ? n->in[0] :
		    krl_rw_is_const(R, n->in[0], 1) ? n->in[1] : -1;
		break;
	case KRL_PW_ADD:
		x = krl_rw_is_const(R, n->in[1], 0) ? n->in[0] :
		    krl_rw_is_const(R, n->in[0], 0) ? n->in[1] : -1;
		break;
	case KRL_PW_DIV:
		x = krl_rw_is_const(R, n->in[1], 1) ? n->in[0] : -1;
		break;
	case KRL_PW_SUB:
		x = krl_rw_is_const(R, n->in[1], 0) ? n->in[0] : -1;
		break;
	default:
		break;
	}
	if (x >= 0 && NN(R, x)->dtype == KRL_F32 && same_dims(NN(R, x), n))
		*out = x;
	return KRL_OK;
}

/* n as "x * c" or "x / c" with c a scalar CONST: sets *x, *c, *div. */
int krl_rw_scaled(const rw *R, const krl_gnode *n, int *x, int *c, int *div)
{
	if (n->kind != KRL_GN_PW || (n->pw != KRL_PW_MUL && n->pw != KRL_PW_DIV))
		return 0;
	*div = n->pw == KRL_PW_DIV;
	if (krl_rw_is_const(R, n->in[1], NAN) && !krl_rw_is_const(R, n->in[0], NAN)) {
		*x = n->in[0];
		*c = n->in[1];
		return 1;
	}
	if (!*div && krl_rw_is_const(R, n->in[0], NAN) && !krl_rw_is_const(R, n->in[1], NAN)) {
		*x = n->in[1];
		*c = n->in[0];
		return 1;
	}
	return 0;
}

/* (x op1 c1) op2 c2 with op in {*, /} is x * k, k one constant; so is
 * -(x op1 c1). */
static krl_err fold_chain(rw *R, const krl_gnode *n, int *out)
{
	int x, c1, c2 = -1, d1, d2 = 0, inner, k;
	if (n->pw == KRL_PW_NEG) {
		inner = n->in[0];
	} else {
		int y;
		if (!krl_rw_scaled(R, n, &y, &c2, &d2))
			return KRL_OK;
		inner = y;
	}
	if (!krl_rw_scaled(R, NN(R, inner), &x, &c1, &d1) ||
	    NN(R, x)->dtype != KRL_F32)
		return KRL_OK;
	/* k1 = c1 or 1 / c1; k = k1 * (c2 or 1 / c2), or -k1 */
	const krl_gnode *n1 = NN(R, c1);
	char *k1 = d1 ? krl_opt_text_binary("1.0", '/', n1->cexpr)
	              : krl_opt_strdup(n1->cexpr);
	double v = d1 ? 1.0 / n1->cval : n1->cval;
	char *z = NULL;
	if (k1 && c2 < 0) {
		z = krl_opt_text_binary("0.0", '-', k1);
		v = -v;
	} else if (k1) {
		const krl_gnode *n2 = NN(R, c2);
		if (d2) {
			char *a = krl_opt_text_binary("1.0", '*', k1);
			z = a ? krl_opt_text_binary(a, '/', n2->cexpr) : NULL;
			free(a);
			v /= n2->cval;
		} else {
			z = krl_opt_text_binary(k1, '*', n2->cexpr);
			v *= n2->cval;
		}
	}
	free(k1);
	if (!z)
		return oom(R);
	krl_err r = KRL_OK;
	if (!isfinite(v)) {
		free(z);
		return KRL_OK;
	}
	if (text_literal(z)) {
		free(z);
		r = krl_graph_const_num(R->g, v, &k, R->d);
	} else {
		r = krl_graph_const(R->g, z, v, &k, R->d);
		free(z);
	}
	return r ? r : pw2(R, KRL_PW_MUL, x, k, out);
}

/* A sum, product, max or min over axes that are 1 in every shape set
 * (literal texts of value 1: a plan's kept dims, seen again through a
 * view) reduces one element: it is its input, seen with its own dims
 * when it drops them. Arg reductions (0) are left as they are. */
static krl_err fold_unit_reduce(rw *R, const krl_gnode *n, int *out)
{
	if (n->red == KRL_RED_ARGMAX || n->red == KRL_RED_ARGMIN)
		return KRL_OK;
	const krl_gnode *x = NN(R, n->in[0]);
	if (x->dtype != n->dtype)
		return KRL_OK;
	for (int k = n->axis; k < n->axis + n->naxes; k++)
		if (k >= x->ndim || x->dim[k].val != 1 ||
		    !text_literal(x->dim[k].text))
			return KRL_OK;
	if (n->keep) {
		*out = n->in[0];
		return KRL_OK;
	}
	return krl_graph_view(R->g, n->in[0], n->ndim, n->dim, out, R->d);
}

static krl_err rule_fold(rw *R, const krl_gnode *n, int *out)
{
	if (n->kind == KRL_GN_REDUCE)
		return fold_unit_reduce(R, n, out);
	if (n->kind != KRL_GN_PW)
		return KRL_OK;
	krl_err r = fold_consts(R, n, out);
	if (!r && *out < 0)
		r = fold_identity(R, n, out);
	if (!r && *out < 0)
		r = fold_chain(R, n, out);
	return r;
}

/* ==== DIAG_BCAST: diag(v) @ B = v[:, None] * B, B @ diag(v) = B * v ==== */

/* Node i is diag(v) of a vector, main diagonal: sets *v. This rule is
 * about what diag and gemm compute (and gemm's ta/tb/alpha), so it names
 * them, as the other rules here name the ops whose algebra they use. */
static int is_diag(const rw *R, int i, int *v)
{
	const krl_gnode *n = NN(R, i);
	double k;
	if (n->kind != KRL_GN_LIB || strcmp(n->op, "diag") != 0 ||
	    !krl_gnode_lib_literal(n, "diagonal", 0, &k) || k != 0 ||
	    NN(R, n->in[0])->ndim != 1)
		return 0;
	*v = n->in[0];
	return 1;
}

static krl_err rule_diag(rw *R, const krl_gnode *n, int *out)
{
	double ta, tb, alpha;
	int v;
	if (n->kind != KRL_GN_LIB || strcmp(n->op, "gemm") != 0 ||
	    n->ndim != 2 || !krl_gnode_lib_literal(n, "ta", 0, &ta) ||
	    !krl_gnode_lib_literal(n, "tb", 0, &tb) ||
	    !krl_gnode_lib_literal(n, "alpha", 1, &alpha) ||
	    alpha != 1)
		return KRL_OK;
	const krl_gnode *a = NN(R, n->in[0]), *b = NN(R, n->in[1]);
	int r0 = 0;
	/* diag(v) is symmetric: its own transpose flag does not matter. */
	if (is_diag(R, n->in[0], &v) && tb == 0 && b->ndim == 2) {
		krl_gdim col[2] = { NN(R, v)->dim[0], { (char *)"1", 1 } };
		int vc;
		krl_err r = krl_graph_view(R->g, v, 2, col, &vc, R->d);
		if (!r)
			r = pw2(R, KRL_PW_MUL, vc, n->in[1], &r0);
		if (r)
			return r;
	} else if (is_diag(R, n->in[1], &v) && ta == 0 && a->ndim == 2) {
		krl_err r = pw2(R, KRL_PW_MUL, n->in[0], v, &r0);
		if (r)
			return r;
	} else {
		return KRL_OK;
	}
	*out = r0;
	return KRL_OK;
}

/* ==== FLIP: flip flip = identity; flip scan flip = the reverse scan ==== */

static krl_err rule_flip(rw *R, const krl_gnode *n, int *out)
{
	if (n->kind != KRL_GN_FLIP)
		return KRL_OK;
	const krl_gnode *a = NN(R, n->in[0]);
	if (a->kind == KRL_GN_FLIP && a->axis == n->axis) {
		*out = a->in[0];
		return KRL_OK;
	}
	if (a->kind == KRL_GN_SCAN && a->axis == n->axis) {
		const krl_gnode *b = NN(R, a->in[0]);
		if (b->kind == KRL_GN_FLIP && b->axis == n->axis)
			return krl_graph_scan(R->g, a->scan, b->in[0], a->axis,
			                      !a->reverse, a->exclusive, out, R->d);
	}
	return KRL_OK;
}

/* ==== CANCEL: idempotent and cancelling unary ops ==== */

static krl_err rule_cancel(rw *R, const krl_gnode *n, int *out)
{
	if (n->kind != KRL_GN_PW)
		return KRL_OK;
	const krl_gnode *a = NN(R, n->in[0]);
	int ap = a->kind == KRL_GN_PW ? (int)a->pw : -1;
	int x = -1, ain[1] = { a->in[0] };
	switch (n->pw) {
	case KRL_PW_RELU:   /* relu(relu x) = relu x; relu(abs x) = abs x */
	case KRL_PW_ABS:    /* abs(abs x) = abs x; abs(relu x) = relu x */
		if (ap == KRL_PW_RELU || ap == KRL_PW_ABS)
			x = n->in[0];
		else if (n->pw == KRL_PW_ABS && ap == KRL_PW_NEG)
			/* abs(-x) = abs x */
			return krl_graph_pw(R->g, KRL_PW_ABS, ain, out, R->d);
		break;
	case KRL_PW_NEG:    /* -(-x) = x */
		if (ap == KRL_PW_NEG)
			x = a->in[0];
		break;
	case KRL_PW_SQUARE: /* (-x)^2 = |x|^2 = x^2 */
		if (ap == KRL_PW_NEG || ap == KRL_PW_ABS)
			return krl_graph_pw(R->g, KRL_PW_SQUARE, ain, out, R->d);
		break;
	case KRL_PW_MAX:
	case KRL_PW_MIN:    /* max(x, x) = x */
		if (n->in[0] == n->in[1])
			x = n->in[0];
		break;
	case KRL_PW_WHERE:  /* c ? x : x = x */
		if (n->in[1] == n->in[2] &&
		    same_dims(NN(R, n->in[1]), n))
			x = n->in[1];
		break;
	default:
		break;
	}
	if (x >= 0 && NN(R, x)->dtype == KRL_F32 && same_dims(NN(R, x), n))
		*out = x;
	return KRL_OK;
}

/* ==== REDUCE_LINEAR: sum_j (A @ B)[i, j] = (A @ rowsum(B))[i] ==== */

/* A gemm with B's columns summed first: [..., M, 1] instead of
 * [..., M, N], a GEMV's worth of work (a rule about gemm's algebra: it
 * names the op). The sum must be over the GEMM's
 * last axis and the GEMM read by nothing else (the old graph says). */
static krl_err rule_reduce_linear(rw *R, const krl_gnode *n, int *out)
{
	double tb;
	if (n->kind != KRL_GN_REDUCE || n->red != KRL_RED_SUM || n->naxes != 1)
		return KRL_OK;
	const krl_gnode *m = NN(R, n->in[0]);
	if (m->kind != KRL_GN_LIB || strcmp(m->op, "gemm") != 0 ||
	    n->axis != m->ndim - 1 || m->ndim < 2 ||
	    !krl_gnode_lib_literal(m, "tb", 0, &tb))
		return KRL_OK;
	/* The GEMM must have no other reader: find it in the old graph. */
	int old_m = krl_rw_old_of(R, n->in[0]);
	if (old_m < 0 || krl_graph_users(R->old, old_m) != 1)
		return KRL_OK;
	const krl_gnode *b = NN(R, m->in[1]);
	/* B [..., K, N] summed over N (tb = 0), or [..., N, K] over N, kept
	 * so that the GEMM sees [..., K, 1] or [..., 1, K]. */
	int bs;
	krl_err r = krl_graph_reduce(R->g, KRL_RED_SUM, m->in[1],
	                             tb != 0 ? b->ndim - 2 : b->ndim - 1, 1, 1,
	                             &bs, R->d);
	if (r)
		return r;
	m = NN(R, n->in[0]);
	krl_gnode g = { .kind = KRL_GN_LIB, .op = krl_op_find("gemm")->name };
	g.dtype = m->dtype;
	g.nin = 2;
	g.nout = 1;
	g.in[0] = m->in[0];
	g.in[1] = bs;
	g.ndim = m->ndim;
	for (int k = 0; k < m->ndim; k++) {
		int last = k == m->ndim - 1;
		g.dim[k].val = last ? 1 : m->dim[k].val;
		if (!(g.dim[k].text = krl_opt_strdup(last ? "1" : m->dim[k].text))) {
			krl_gnode_clear(&g);
			return oom(R);
		}
	}
	if (krl_opt_attrs_copy(m->attrs, m->nattrs, &g.attrs)) {
		krl_gnode_clear(&g);
		return oom(R);
	}
	g.nattrs = m->nattrs;
	int gi = krl_graph_add(R->g, &g);
	if (gi < 0)
		return oom(R);
	if (n->keep) {
		*out = gi;
		return KRL_OK;
	}
	/* The sum dropped its axis: the [..., M, 1] product seen as [..., M]. */
	return krl_graph_view(R->g, gi, n->ndim, n->dim, out, R->d);
}

/* ==== CONV_MEAN: the spatial sum of a transposed convolution through its
 * linearity ==== */

/*
 * sum over every output position q of conv_transpose(x, w, b)[n, o, q]
 *   = cnt * b[o] + sum_i sum_k w[i, o, k] * S[n, i, k],
 * cnt the number of output positions and S[n, i, k] the sum of x[n, i, .]
 * over the input positions h whose output h*s - p + k*d falls inside the
 * output. Per spatial dim and tap those positions are one range, the
 * whole dim less `lead` leading and `trail` trailing positions; both
 * depend only on the attributes and the tap, never on the input size:
 *   lead = max(0, ceil((p - k d) / s)),
 *   trail = max(0, -floor((d (K - 1 - k) + op - p) / s)).
 * So the rule reads x once (one reduction per spatial dim; the few
 * leading/trailing rows a cropped dim excludes are narrow slices summed
 * apart and subtracted) and replaces a convolution that writes the whole
 * output with a [N, Ci * taps] x [Ci * taps, Co] GEMM. A dim no tap crops
 * is summed whole, and w is summed over its taps instead. Level 2's 42
 * (2-D, stride 1: nothing cropped) and 44 (stride 2, padding 1, output
 * padding 1: the first row and column cropped for tap 0) have this shape:
 * a global mean of a transposed convolution, optionally times a scalar.
 */

/* New node i is read by exactly one node and is no task output. */
int krl_rw_one_reader(const rw *R, int i)
{
	int o = krl_rw_old_of(R, i);
	return o >= 0 && krl_graph_users(R->old, o) == 1 &&
	       !krl_graph_is_output(R->old, o);
}

#define CM_TEXT 256

/* The dims of node x with dim ax replaced by (text, val). */
static void dims_with(const krl_gnode *x, int ax, const char *text,
                      int64_t val, krl_gdim *dim)
{
	for (int k = 0; k < x->ndim; k++)
		dim[k] = x->dim[k];
	dim[ax].text = (char *)text;
	dim[ax].val = val;
}

/* The sum over dim ax of node t's positions [start, start + len): a
 * narrow slice (start as text and value), then a reduction keeping ax. */
static krl_err cm_slice_sum(rw *R, int t, int ax, const char *start,
                            int64_t startv, int64_t len, int *out)
{
	char lt[32], ax_t[16];
	snprintf(lt, sizeof lt, "%lld", (long long)len);
	snprintf(ax_t, sizeof ax_t, "%d", ax);
	krl_gdim dim[KRL_MAX_DIM];
	dims_with(NN(R, t), ax, lt, len, dim);
	krl_gattr a[2] = { { "dim", ax_t, ax }, { "start", start,
	                                          (double)startv } };
	int nw;
	krl_err r = krl_graph_lib(R->g, "narrow", &t, 1, NN(R, t)->ndim, dim, a,
	                          2, &nw, R->d);
	return r ? r : krl_graph_reduce(R->g, KRL_RED_SUM, nw, ax, 1, 1, out,
	                                R->d);
}

/* The per-tap sums of node t along spatial dim ax (size D, text dt):
 * tap k sums [lead[k], D - trail[k]) of it, kept as a dim of K (text kt)
 * at ax (a cat of the taps), or, when no tap crops, one sum kept as 1
 * (*full = 1). */
static krl_err cm_taps(rw *R, int t, int ax, const int64_t *lead,
                       const int64_t *trail, int K, const char *kt, int *out,
                       int *full)
{
	const krl_gnode *tn = NN(R, t);
	char dt[CM_TEXT];
	snprintf(dt, sizeof dt, "%s", tn->dim[ax].text);
	int64_t D = tn->dim[ax].val;
	int tot, taps[KRL_MAX_CALL_IN];
	/* slice sums by length, leading and trailing: a crop is shorter
	 * than the kernel */
	int lead_sum[KRL_MAX_CALL_IN], trail_sum[KRL_MAX_CALL_IN];
	krl_err r = krl_graph_reduce(R->g, KRL_RED_SUM, t, ax, 1, 1, &tot, R->d);
	if (r)
		return r;
	*full = 1;
	for (int k = 0; k < K; k++)
		*full = *full && !lead[k] && !trail[k];
	if (*full) {
		*out = tot;
		return KRL_OK;
	}
	for (int k = 0; k < K; k++)
		lead_sum[k] = trail_sum[k] = -1;
	for (int k = 0; k < K; k++) {
		int v = tot;
		int64_t l = lead[k], tr = trail[k]; /* l + tr < D (the rule) */
		if (l) {
			if (lead_sum[l] < 0 &&
			    (r = cm_slice_sum(R, t, ax, "0", 0, l, &lead_sum[l])))
				return r;
			if ((r = pw2(R, KRL_PW_SUB, v, lead_sum[l], &v)))
				return r;
		}
		if (tr) {
			if (trail_sum[tr] < 0) {
				char st[CM_TEXT + 32];
				snprintf(st, sizeof st, "(%s) - %lld", dt, (long long)tr);
				if ((r = cm_slice_sum(R, t, ax, st, D - tr, tr,
				                      &trail_sum[tr])))
					return r;
			}
			if ((r = pw2(R, KRL_PW_SUB, v, trail_sum[tr], &v)))
				return r;
		}
		taps[k] = v;
	}
	char ax_t[16];
	snprintf(ax_t, sizeof ax_t, "%d", ax);
	krl_gdim dim[KRL_MAX_DIM];
	dims_with(NN(R, tot), ax, kt, K, dim);
	krl_gattr a = { "dim", ax_t, ax };
	return krl_graph_lib(R->g, "cat", taps, K, NN(R, tot)->ndim, dim, &a, 1,
	                     out, R->d);
}

/* Node n's attribute i has one value in every named shape set: a number,
 * or a `fixed` shape key with one value (a rule whose structure depends
 * on it must not see another value at a hidden set, which keeps tiny's). */
static int attr_fixed(const rw *R, const krl_gnode *n, int i)
{
	if (isnan(n->aval[i]))
		return 0;
	char *z = krl_opt_expr_text(n->attrs[i].value);
	int fixed = z && krl_graph_text_fixed(R->old, z);
	free(z);
	return fixed;
}

/* The geometry of convolution node c (transposed or not) when it is the
 * same in every shape set the candidate serves: its attributes (but algo
 * and the layouts) and w's kernel sizes fixed; 0 otherwise. */
static int fixed_conv_geom(const rw *R, const krl_gnode *c, int transposed,
                           krl_conv_geom *geo)
{
	krl_tensor in[2];
	krl_attrs a = { 0 };
	memset(in, 0, sizeof in);
	for (int k = 0; k < 2; k++) {
		const krl_gnode *b = NN(R, c->in[k]);
		in[k].dtype = b->dtype;
		in[k].ndim = b->ndim;
		for (int j = 0; j < b->ndim; j++)
			in[k].dim[j] = b->dim[j].val;
	}
	for (int i = 0; i < c->nattrs && a.n < KRL_MAX_ATTR; i++) {
		const char *key = c->attrs[i].key;
		if (!strcmp(key, "algo") || !strcmp(key, "layout") ||
		    !strcmp(key, "w_layout"))
			continue;
		if (!attr_fixed(R, c, i))
			return 0;
		a.key[a.n] = key;
		a.val[a.n++] = c->aval[i];
	}
	const krl_gnode *wn = NN(R, c->in[1]);
	for (int j = 2; j < wn->ndim; j++)
		if (!krl_graph_text_fixed(R->old, wn->dim[j].text))
			return 0;
	return krl_conv_geom_get(transposed, in, &a, geo) == 0;
}

static krl_err rule_conv_mean(rw *R, const krl_gnode *n, int *out)
{
	if (n->kind != KRL_GN_REDUCE || n->red != KRL_RED_SUM)
		return KRL_OK;
	/* reduce(view(mul(conv, c)?)) or reduce(mul(conv, c)?) */
	int v = n->in[0], src = v, scale = -1;
	const krl_gnode *vn = NN(R, v);
	if (vn->kind == KRL_GN_VIEW) {
		if (!krl_rw_one_reader(R, v))
			return KRL_OK;
		src = vn->in[0];
	}
	int conv = src;
	const krl_gnode *sn = NN(R, src);
	if (sn->kind == KRL_GN_PW && sn->pw == KRL_PW_MUL && sn->nin == 2) {
		for (int q = 0; q < 2 && scale < 0; q++)
			if (NN(R, sn->in[q])->kind == KRL_GN_CONST &&
			    NN(R, sn->in[q])->ndim == 0) {
				scale = sn->in[q];
				conv = sn->in[1 - q];
			}
		if (scale < 0 || !krl_rw_one_reader(R, src))
			return KRL_OK;
	}
	const krl_gnode *c = NN(R, conv);
	if (c->kind != KRL_GN_LIB || c->dtype != KRL_F32 || c->nout != 1 ||
	    (strcmp(c->op, "conv_transpose") && strcmp(c->op, "conv_transpose_bias")) ||
	    !krl_rw_one_reader(R, conv) || c->ndim < 3 || c->ndim > 5)
		return KRL_OK;
	int nd = c->ndim - 2;
	if (sn->kind == KRL_GN_PW && !same_dims(sn, c))
		return KRL_OK;
	/* The reduction covers exactly the spatial dims. */
	if (vn->kind == KRL_GN_VIEW) {
		if (vn->ndim != 3 || vn->dim[0].val != c->dim[0].val ||
		    vn->dim[1].val != c->dim[1].val || n->axis != 2 ||
		    n->naxes != 1)
			return KRL_OK;
	} else if (n->axis != 2 || n->naxes != nd) {
		return KRL_OK;
	}
	krl_conv_geom geo;
	if (!fixed_conv_geom(R, c, 1, &geo) || geo.groups != 1 ||
	    geo.nsp != nd)
		return KRL_OK;
	const krl_gnode *wn = NN(R, c->in[1]);
	int64_t lead[3][KRL_MAX_CALL_IN], trail[3][KRL_MAX_CALL_IN];
	for (int j = 0; j < nd; j++) {
		int64_t s = geo.stride[j], p = geo.pad[j], dl = geo.dil[j];
		int64_t K = geo.k[j], op = geo.opad[j];
		if (geo.out[j] != c->dim[2 + j].val || K > KRL_MAX_CALL_IN ||
		    s < 1 || dl < 1)
			return KRL_OK;
		for (int64_t k = 0; k < K; k++) {
			int64_t num = p - k * dl; /* ceil(num / s) */
			int64_t l = num > 0 ? (num + s - 1) / s : -((-num) / s);
			int64_t m = dl * (K - 1 - k) + op - p; /* floor(m / s) */
			int64_t f = m >= 0 ? m / s : -((-m + s - 1) / s);
			lead[j][k] = l > 0 ? l : 0;
			trail[j][k] = f < 0 ? -f : 0;
			/* slice sums are kept by length; a tap reaching no
			 * input position is left to the convolution */
			if (lead[j][k] >= KRL_MAX_CALL_IN ||
			    trail[j][k] >= KRL_MAX_CALL_IN ||
			    lead[j][k] + trail[j][k] >= geo.in[j])
				return KRL_OK;
		}
	}
	/* S: x summed per tap, the last spatial dim first. */
	krl_err r;
	int T = c->in[0], full[3];
	for (int j = nd - 1; j >= 0; j--)
		if ((r = cm_taps(R, T, 2 + j, lead[j], trail[j], (int)geo.k[j],
		                 wn->dim[2 + j].text, &T, &full[j])))
			return r;
	/* W: w [Ci, Co, K...] summed over the uncropped taps, taps before Co. */
	int W = c->in[1], cropped = 0;
	for (int j = 0; j < nd; j++) {
		cropped |= !full[j];
		if (full[j] && (r = krl_graph_reduce(R->g, KRL_RED_SUM, W, 2 + j, 1,
		                                     1, &W, R->d)))
			return r;
	}
	if (cropped) {
		static const char *const pk[] = { "p0", "p1", "p2", "p3", "p4" };
		char pt[5][16];
		krl_gattr pa[5];
		krl_gdim dim[KRL_MAX_DIM];
		const krl_gnode *w2 = NN(R, W);
		dim[0] = w2->dim[0];
		for (int j = 0; j < nd; j++)
			dim[1 + j] = w2->dim[2 + j];
		dim[1 + nd] = w2->dim[1];
		for (int q = 0; q < 2 + nd; q++) {
			int from = q == 0 ? 0 : q == 1 + nd ? 1 : q + 1;
			snprintf(pt[q], sizeof pt[q], "%d", from);
			pa[q] = (krl_gattr){ pk[q], pt[q], from };
		}
		if ((r = krl_graph_lib(R->g, "permute", &W, 1, 2 + nd, dim, pa, 2 + nd,
		                       &W, R->d)))
			return r;
	}
	/* G = S [N, Ci * taps] @ W [Ci * taps, Co] */
	char kt[CM_TEXT];
	const krl_gnode *tn = NN(R, T);
	krl_gdim sd[2], wd[2], gd[2];
	int64_t kv = krl_gnode_dims_text(tn, 1, 2 + nd, kt, sizeof kt);
	sd[0] = tn->dim[0];
	sd[1] = (krl_gdim){ kt, kv };
	int S2, W2, G;
	if ((r = krl_graph_view(R->g, T, 2, sd, &S2, R->d)))
		return r;
	wd[0] = (krl_gdim){ kt, kv };
	wd[1] = c->dim[1];
	if ((r = krl_graph_view(R->g, W, 2, wd, &W2, R->d)))
		return r;
	c = NN(R, conv);
	gd[0] = c->dim[0];
	gd[1] = c->dim[1];
	int gin[2] = { S2, W2 };
	if ((r = krl_graph_lib(R->g, "gemm", gin, 2, 2, gd, NULL, 0, &G, R->d)))
		return r;
	if (!strcmp(NN(R, conv)->op, "conv_transpose_bias")) {
		/* + cnt * b[o] */
		char ct[CM_TEXT];
		int64_t cnt = krl_gnode_dims_text(NN(R, conv), 2, 2 + nd, ct, sizeof ct);
		int cn, bb;
		if ((r = krl_graph_const(R->g, ct, (double)cnt, &cn, R->d)) ||
		    (r = pw2(R, KRL_PW_MUL, NN(R, conv)->in[2], cn, &bb)) ||
		    (r = pw2(R, KRL_PW_ADD, G, bb, &G)))
			return r;
	}
	if (scale >= 0 && (r = pw2(R, KRL_PW_MUL, G, scale, &G)))
		return r;
	return krl_graph_view(R->g, G, n->ndim, n->dim, out, R->d);
}

/*
 * conv_bias: a convolution with its bias, conv_bias(x, w, b) (or
 * conv_transpose_bias), whose every reader is a node generated kernels
 * evaluate their inputs inline in (pointwise, reduce, pool) or a cat, as the
 * convolution without bias plus b viewed [C, 1, ...] and added as a
 * broadcast: the library adds the bias in a pass of its own over the
 * output (cudnnAddTensor, as PyTorch does), where the add can join the
 * reading kernel (a map, row or pool kernel) instead, and the convolution
 * may then leave its output channels-last (cg_is_cl); before a cat the
 * add's map kernel writes its slice of the cat's output in place. The
 * same fp32 add of the same two values: the result is bit-equal.
 */
static krl_err rule_conv_bias(rw *R, const krl_gnode *n, int *out)
{
	int tr;
	if (n->kind != KRL_GN_LIB || n->dtype != KRL_F32 || n->nout != 1 ||
	    n->nin != 3 || n->ndim < 3 || R->cur < 0 ||
	    krl_graph_is_output(R->old, R->cur))
		return KRL_OK;
	if (!strcmp(n->op, "conv_bias"))
		tr = 0;
	else if (!strcmp(n->op, "conv_transpose_bias"))
		tr = 1;
	else
		return KRL_OK;
	const krl_gnode *b = NN(R, n->in[2]);
	if (b->ndim != 1 || b->dim[0].val != n->dim[1].val)
		return KRL_OK;
	if (!krl_graph_fused_readers(R->old, R->cur, 1))
		return KRL_OK;
	krl_gnode c;
	if (krl_gnode_copy(&c, n))
		return oom(R);
	c.op = krl_op_find(tr ? "conv_transpose" : "conv")->name;
	c.nin = 2;
	int conv = krl_graph_add(R->g, &c);
	if (conv < 0) {
		krl_gnode_clear(&c);
		return oom(R);
	}
	krl_gdim dim[KRL_MAX_DIM];
	dim[0] = NN(R, n->in[2])->dim[0]; /* the add may have moved the nodes */
	for (int k = 1; k < n->ndim - 1; k++)
		dim[k] = (krl_gdim){ "1", 1 };
	int bv;
	krl_err r = krl_graph_view(R->g, n->in[2], n->ndim - 1, dim, &bv, R->d);
	return r ? r : pw2(R, KRL_PW_ADD, conv, bv, out);
}

/*
 * pool_conv: avg_pool(conv(x, w)) with a 1x1 convolution (stride 1, no
 * padding, no dilation; any groups) as conv(avg_pool(x), w). A 1x1
 * convolution mixes channels at each position and an average pool mixes
 * positions within each channel, both linearly, so they commute: the
 * convolution then runs on the pooled input, 1/(window) of the positions
 * (DenseNet's transition layers: BN, ReLU, 1x1 conv, 2x2 average pool, the
 * pool after a 4x larger conv), and the pool reads x's producer inline.
 * A bias passes through only where each window's weights sum to 1: no
 * padding and no divisor_override (the divisor is then the count of taps
 * inside, ceil_mode's clipped windows included). Only the summation order
 * changes.
 */

/* Attribute `key` of node n (its value in *v, its index in *at; dflt and
 * -1 when absent); 0 when it is not the same in every shape set. */
static int lib_attr(const rw *R, const krl_gnode *n, const char *key,
                    double dflt, double *v, int *at)
{
	*v = dflt;
	*at = -1;
	for (int i = 0; i < n->nattrs; i++)
		if (!strcmp(n->attrs[i].key, key)) {
			if (!attr_fixed(R, n, i))
				return 0;
			*v = n->aval[i];
			*at = i;
		}
	return 1;
}

static krl_err rule_pool_conv(rw *R, const krl_gnode *n, int *out)
{
	if (n->kind != KRL_GN_POOL || n->pool != KRL_POOL_AVG ||
	    n->dtype != KRL_F32)
		return KRL_OK;
	int ci = n->in[0];
	const krl_gnode *c = NN(R, ci);
	int bias;
	if (c->kind != KRL_GN_LIB || c->nout != 1 || c->dtype != KRL_F32)
		return KRL_OK;
	if (!strcmp(c->op, "conv"))
		bias = 0;
	else if (!strcmp(c->op, "conv_bias"))
		bias = 1;
	else
		return KRL_OK;
	int nd = c->ndim - 2;
	if (nd < 1 || nd > 3 || n->axis != 2 || n->naxes != nd ||
	    !krl_rw_one_reader(R, ci))
		return KRL_OK;
	/* the geometry: a 1x1 convolution that keeps the positions */
	krl_conv_geom geo;
	if (!fixed_conv_geom(R, c, 0, &geo) || geo.nsp != nd)
		return KRL_OK;
	const krl_gnode *xn = NN(R, c->in[0]);
	for (int j = 0; j < nd; j++)
		if (geo.k[j] != 1 || geo.stride[j] != 1 || geo.pad[j] != 0 ||
		    geo.dil[j] != 1 || xn->dim[2 + j].val != c->dim[2 + j].val)
			return KRL_OK;
	if (bias) {
		double pad = 0, dov = 0;
		int at;
		if (!lib_attr(R, n, "padding", 0, &pad, &at) ||
		    !lib_attr(R, n, "divisor_override", 0, &dov, &at) ||
		    pad != 0 || dov != 0)
			return KRL_OK;
	}
	/* P = the pool over x, [N, Ci, pooled...] */
	krl_gdim pd[3];
	for (int j = 0; j < nd; j++)
		pd[j] = n->dim[2 + j];
	int P;
	krl_err r = krl_graph_pool(R->g, KRL_POOL_AVG, n->op, c->in[0], nd,
	                           n->attrs, n->nattrs, pd, &P, R->d);
	if (r)
		return r;
	memcpy(R->g->n[P].aval, n->aval, sizeof n->aval);
	/* the convolution over P, with the pool's output dims */
	return add_redimmed(R, ci, P, -1, n, 2, 2 + nd, out);
}

/*
 * narrow_gemm: narrow(gemm(a, b)) along a row of the output (dim -2) as
 * gemm(narrow(a), b), along a column (dim -1) as gemm(a, narrow(b)), along
 * a batch dim as the GEMM of both operands narrowed there (b only where it
 * has batch dims). Each output element is the same dot product, so the
 * result is bit-equal, and the GEMM computes and writes only the rows,
 * columns or batches kept (level 3's 49: the last of 3 rows of
 * Mamba2's chunk-state GEMM, [B H, 3, 3] @ [B H, 3, P N], is its output).
 * Only where the operand narrowed is not transposed (ta, tb), the GEMM's
 * output has no other reader, and dim, ta and tb are the same in every
 * shape set (start may differ: the new narrows take its text).
 */

/* x narrowed along its dim d to `keep`, from narrow node nw's start. */
static krl_err narrow_like(rw *R, const krl_gnode *nw, int x, int d,
                           const krl_gdim *keep, int *out)
{
	const krl_gnode *xn = NN(R, x);
	krl_gdim dim[KRL_MAX_DIM];
	for (int k = 0; k < xn->ndim; k++)
		dim[k] = k == d ? *keep : xn->dim[k];
	char dt[16];
	snprintf(dt, sizeof dt, "%d", d);
	/* the start's text: it may differ between shape sets */
	char *st = NULL;
	double sv = krl_rw_attr_val(nw, "start", &st);
	if (!st && isnan(sv)) { /* absent: the op's default */
		sv = 0;
		st = krl_opt_strdup("0");
	}
	if (!st)
		return oom(R);
	krl_gattr a[2] = { { "dim", dt, d }, { "start", st, sv } };
	krl_err r = krl_graph_lib(R->g, "narrow", &x, 1, xn->ndim, dim, a, 2,
	                          out, R->d);
	free(st);
	return r;
}

static krl_err rule_narrow_gemm(rw *R, const krl_gnode *n, int *out)
{
	if (n->kind != KRL_GN_LIB || strcmp(n->op, "narrow") || n->nin != 1 ||
	    n->dtype != KRL_F32)
		return KRL_OK;
	int gi = n->in[0];
	const krl_gnode *g = NN(R, gi);
	if (g->kind != KRL_GN_LIB || strcmp(g->op, "gemm") || g->nout != 1 ||
	    g->nin != 2 || g->ndim != n->ndim || !krl_rw_one_reader(R, gi))
		return KRL_OK;
	double dv, ta, tb;
	int dat, tat;
	if (!lib_attr(R, n, "dim", 0, &dv, &dat) ||
	    !lib_attr(R, g, "ta", 0, &ta, &tat) ||
	    !lib_attr(R, g, "tb", 0, &tb, &tat))
		return KRL_OK;
	int nd = g->ndim, d = (int)dv < 0 ? (int)dv + nd : (int)dv;
	if (d < 0 || d >= nd || n->dim[d].val == g->dim[d].val)
		return KRL_OK;
	int a = g->in[0], b = g->in[1];
	const krl_gnode *an = NN(R, a), *bn = NN(R, b);
	krl_gdim keep = n->dim[d];
	krl_err r;
	if (d == nd - 2) {
		if (ta != 0 || an->ndim != nd)
			return KRL_OK;
		r = narrow_like(R, n, a, d, &keep, &a);
	} else if (d == nd - 1) {
		if (tb != 0)
			return KRL_OK;
		r = narrow_like(R, n, b, bn->ndim - 1, &keep, &b);
	} else {
		if (an->ndim != nd)
			return KRL_OK;
		r = narrow_like(R, n, a, d, &keep, &a);
		if (!r && bn->ndim == nd)
			r = narrow_like(R, n, b, d, &keep, &b);
	}
	if (r)
		return r;
	return add_redimmed(R, gi, a, b, n, d, d + 1, out);
}

/*
 * small_k: a batched GEMM c = a @ b (no transposes, alpha 1, b with a's
 * batch dims) whose K is at most SMALL_K_MAX at the set as
 *
 *   c = reduce_sum(mul(view(a, [.., M, K, 1]), view(b, [.., 1, K, N])),
 *                  over K)
 *
 * the same products summed in K's order in fp32 (any K at run time: the
 * reduction's length is an argument). A GEMM of a few products an output
 * is a memory-bound pass that cuBLASLt runs poorly (49's product over
 * chunks, K = 3: 201 MB read in 0.22 ms on an H100), and as a reduction
 * its operands are nodes that generated kernels read (a thread per
 * column of the row kernel). Off by default: not timed yet
 * (docs/optimizer.md, the eleventh session's Next).
 */
#define SMALL_K_MAX 4

static krl_err rule_small_k(rw *R, const krl_gnode *n, int *out)
{
	if (n->kind != KRL_GN_LIB || strcmp(n->op, "gemm") || n->nin != 2 ||
	    n->nout != 1 || n->dtype != KRL_F32 || n->ndim < 3 ||
	    n->ndim >= KRL_MAX_DIM)
		return KRL_OK;
	double ta, tb, alpha;
	int at;
	if (!lib_attr(R, n, "ta", 0, &ta, &at) ||
	    !lib_attr(R, n, "tb", 0, &tb, &at) ||
	    !lib_attr(R, n, "alpha", 1, &alpha, &at) || ta != 0 || tb != 0 ||
	    alpha != 1)
		return KRL_OK;
	const krl_gnode *a = NN(R, n->in[0]), *b = NN(R, n->in[1]);
	int nd = n->ndim;
	if (a->ndim != nd || b->ndim != nd || a->dtype != KRL_F32 ||
	    b->dtype != KRL_F32)
		return KRL_OK;
	int64_t k = a->dim[nd - 1].val;
	if (k < 1 || k > SMALL_K_MAX || b->dim[nd - 2].val != k)
		return KRL_OK;
	for (int i = 0; i < nd - 2; i++)
		if (a->dim[i].val != b->dim[i].val)
			return KRL_OK;
	krl_gdim ad[KRL_MAX_DIM], bd[KRL_MAX_DIM];
	for (int i = 0; i < nd; i++) {
		ad[i] = a->dim[i];
		bd[i] = b->dim[i];
	}
	ad[nd] = (krl_gdim){ "1", 1 };
	bd[nd] = b->dim[nd - 1];
	bd[nd - 1] = b->dim[nd - 2];
	bd[nd - 2] = (krl_gdim){ "1", 1 };
	int av = -1, bv = -1, p = -1;
	krl_err e;
	if ((e = krl_graph_view(R->g, n->in[0], nd + 1, ad, &av, R->d)) ||
	    (e = krl_graph_view(R->g, n->in[1], nd + 1, bd, &bv, R->d)) ||
	    (e = krl_graph_pw(R->g, KRL_PW_MUL, (int[]){ av, bv }, &p, R->d)))
		return e;
	return krl_graph_reduce(R->g, KRL_RED_SUM, p, nd - 1, 1, 0, out, R->d);
}

/*
 * cse: a library call identical to an earlier one (the same op, inputs,
 * dtype, dims and attribute texts) is that one. Level 3's 48 permutes X
 * twice (once for each einsum that reads it, as PyTorch does): a 537 MB
 * copy at kb1 that the second einsum can read from the first. Library ops
 * are deterministic (every random value is the judge's draw), so the two
 * calls write the same bytes. Calls of several outputs, and a call that
 * is a task output (two outputs cannot be one node), are left.
 */
static int same_text(const krl_expr *a, const krl_expr *b)
{
	char *x = krl_opt_expr_text(a), *y = krl_opt_expr_text(b);
	int same = x && y && !strcmp(x, y);
	free(x);
	free(y);
	return same;
}

int krl_rw_same_type(const krl_gnode *a, const krl_gnode *b)
{
	if (a->dtype != b->dtype || !same_dims(a, b))
		return 0;
	for (int k = 0; k < a->ndim; k++)
		if (strcmp(a->dim[k].text, b->dim[k].text))
			return 0;
	return 1;
}

int krl_rw_same_attrs(const krl_gnode *a, const krl_gnode *b)
{
	if (a->nattrs != b->nattrs)
		return 0;
	for (int i = 0; i < a->nattrs; i++)
		if (strcmp(a->attrs[i].key, b->attrs[i].key) ||
		    !(a->aval[i] == b->aval[i] ||
		      (isnan(a->aval[i]) && isnan(b->aval[i]))) ||
		    !same_text(a->attrs[i].value, b->attrs[i].value))
			return 0;
	return 1;
}

static int same_call(const krl_gnode *a, const krl_gnode *b)
{
	if (a->kind != KRL_GN_LIB || b->kind != KRL_GN_LIB || a->nout != 1 ||
	    b->nout != 1 || strcmp(a->op, b->op) || !krl_rw_same_type(a, b) ||
	    a->nin != b->nin)
		return 0;
	for (int i = 0; i < a->nin; i++)
		if (a->in[i] != b->in[i])
			return 0;
	return krl_rw_same_attrs(a, b);
}

/* Two views of one node with the same dims. */
static int same_view(const krl_gnode *a, const krl_gnode *b)
{
	return a->kind == KRL_GN_VIEW && b->kind == KRL_GN_VIEW &&
	       a->in[0] == b->in[0] && krl_rw_same_type(a, b);
}

static krl_err rule_cse(rw *R, const krl_gnode *n, int *out)
{
	if ((n->kind != KRL_GN_LIB && n->kind != KRL_GN_VIEW) ||
	    (n->kind == KRL_GN_LIB && n->nout != 1) ||
	    krl_graph_is_output(R->old, R->cur))
		return KRL_OK;
	for (int j = 0; j < R->g->nn; j++)
		if (same_call(&R->g->n[j], n) || same_view(&R->g->n[j], n)) {
			*out = j;
			return KRL_OK;
		}
	return KRL_OK;
}

/* ==== TANH_SOFTPLUS: tanh(softplus x) as one exp and a division ==== */

/*
 * tanh(log(1 + e^x)) = ((1 + e^x)^2 - 1) / ((1 + e^x)^2 + 1) = m / (m + 2)
 * with m = e^x (e^x + 2): mish's chain (and softplus, then tanh, written
 * out: level 2's 52) as an exp, two multiply-adds and a division, where
 * tanhf(log1pf(expf x)) pays three libm calls (level 2's 4, two mishes an
 * element, was bound by its math: its map 2.33 ms for 4.2 GB on the
 * H100). The softplus is lowered as where(x > T, x, log1p(exp x)) (beta
 * 1); past T the tanh is 1 in fp32 where T >= 9 (1 - tanh 9 < 2^-25), and
 * m stays finite where T <= 40 (e^80 < FLT_MAX), so the rule asks for a
 * literal T in [9, 40] (PyTorch's default is 20). Relative error: m's
 * from the exp moves m / (m + 2) by at most as much (its log-derivative
 * in e^x is below 1), a few ulp as the libm chain. NaN stays NaN (x > T is
 * false, m / (m + 2) is NaN); -inf gives 0, +inf 1.
 */
static krl_err rule_tanh_softplus(rw *R, const krl_gnode *n, int *out)
{
	if (n->kind != KRL_GN_PW || n->pw != KRL_PW_TANH ||
	    n->dtype != KRL_F32)
		return KRL_OK;
	const krl_gnode *w = NN(R, n->in[0]);
	if (w->kind != KRL_GN_PW || w->pw != KRL_PW_WHERE)
		return KRL_OK;
	const krl_gnode *gt = NN(R, w->in[0]), *l = NN(R, w->in[2]);
	const int x = w->in[1];
	if (gt->kind != KRL_GN_PW || gt->pw != KRL_PW_GT || gt->in[0] != x ||
	    l->kind != KRL_GN_PW || l->pw != KRL_PW_LOG1P)
		return KRL_OK;
	const krl_gnode *e = NN(R, l->in[0]), *T = NN(R, gt->in[1]);
	if (e->kind != KRL_GN_PW || e->pw != KRL_PW_EXP || e->in[0] != x ||
	    !krl_rw_is_const(R, gt->in[1], NAN) || !text_literal(T->cexpr) ||
	    !(T->cval >= 9 && T->cval <= 40) || NN(R, x)->dtype != KRL_F32 ||
	    !same_dims(NN(R, x), n))
		return KRL_OK;
	int two, one, a, m, den, q, in[3];
	krl_err r;
	const int gtn = w->in[0], en = l->in[0];
	if ((r = krl_graph_const_num(R->g, 2, &two, R->d)) ||
	    (r = krl_graph_const_num(R->g, 1, &one, R->d)) ||
	    (r = pw2(R, KRL_PW_ADD, en, two, &a)) ||
	    (r = pw2(R, KRL_PW_MUL, en, a, &m)) ||
	    (r = pw2(R, KRL_PW_ADD, m, two, &den)) ||
	    (r = pw2(R, KRL_PW_DIV, m, den, &q)))
		return r;
	in[0] = gtn;
	in[1] = one;
	in[2] = q;
	return krl_graph_pw(R->g, KRL_PW_WHERE, in, out, R->d);
}

/* ==== Driver ==== */

static rule_fn rule_of(krl_rule r)
{
	switch (r) {
	case KRL_RULE_FOLD: return rule_fold;
	case KRL_RULE_DIAG_BCAST: return rule_diag;
	case KRL_RULE_FLIP: return rule_flip;
	case KRL_RULE_REDUCE_LINEAR: return rule_reduce_linear;
	case KRL_RULE_CANCEL: return rule_cancel;
	case KRL_RULE_CONV_MEAN: return rule_conv_mean;
	case KRL_RULE_CONV_BIAS: return rule_conv_bias;
	case KRL_RULE_RECURRENCE: return krl_rule_recurrence;
	case KRL_RULE_POOL_CONV: return rule_pool_conv;
	case KRL_RULE_NARROW_GEMM: return rule_narrow_gemm;
	case KRL_RULE_CSE: return rule_cse;
	case KRL_RULE_ATTENTION: return krl_rule_attention;
	case KRL_RULE_CAT_REDUCE: return krl_rule_cat_reduce;
	case KRL_RULE_CONV_MERGE: return krl_rule_conv_merge;
	case KRL_RULE_SMALL_K: return rule_small_k;
	case KRL_RULE_TANH_SOFTPLUS: return rule_tanh_softplus;
	default: return NULL;
	}
}

/* One rebuild of g with fn; *applied counts its sites. */
static krl_err rebuild(krl_graph *g, rule_fn fn, int *applied, krl_diag *d)
{
	rw R = { .old = g, .d = d };
	krl_err r = KRL_OK;
	*applied = 0;
	R.g = krl_graph_new(g->task);
	R.map = malloc(((size_t)g->nn + 1) * sizeof *R.map);
	if (!R.g || !R.map) {
		r = oom(&R);
		goto done;
	}
	for (int i = 0; i < g->nn; i++) {
		krl_gnode n = g->n[i];       /* shallow: inputs renumbered */
		int out = -1;
		for (int q = 0; q < n.nin; q++)
			n.in[q] = R.map[n.in[q]];
		R.cur = i;
		if ((r = fn(&R, &n, &out)))
			goto done;
		if (out >= 0) {
			R.map[i] = out;
			R.applied++;
			continue;
		}
		krl_gnode c;
		if (krl_gnode_copy(&c, &n) || (R.map[i] = krl_graph_add(R.g, &c)) < 0) {
			r = oom(&R);
			goto done;
		}
	}
	if (!R.applied)
		goto done;
	for (int q = 0; q < g->nout; q++)
		R.g->out[q] = R.map[g->out[q]];
	memcpy(R.g->outdecl, g->outdecl, sizeof g->outdecl);
	R.g->nout = g->nout;
	if ((r = krl_graph_compact(R.g, NULL))) {
		r = oom(&R);
		goto done;
	}
	/* Swap the rebuilt nodes in; the old ones go with R.g. */
	krl_graph tmp = *g;
	*g = *R.g;
	*R.g = tmp;
	*applied = R.applied;
done:
	krl_graph_free(R.g);
	free(R.map);
	free(R.state);
	return r;
}

krl_err krl_rule_apply(krl_graph *g, krl_rule rule, int *applied, krl_diag *d)
{
	krl_pos pos = { g->task ? g->task->path : NULL, 0, 0 };
	rule_fn fn = rule_of(rule);
	int sites = 0, more = 0;
	if (applied)
		*applied = 0;
	if (!fn)
		return krl_diag_set(d, KRL_EINVAL, pos, "unknown rule %d",
		                    (int)rule);
	krl_err r = rebuild(g, fn, &sites, d);
	/* the recurrence's second half: its states' linears, stacked */
	if (!r && sites && rule == KRL_RULE_RECURRENCE)
		r = rebuild(g, krl_rule_batch_linear, &more, d);
	if (applied)
		*applied = sites + more;
	return r;
}

int krl_rule_matches(const krl_graph *g, krl_rule r)
{
	krl_graph *c = krl_graph_clone(g);
	int applied = 0;
	if (!c)
		return 0;
	if (krl_rule_apply(c, r, &applied, NULL))
		applied = 0;
	krl_graph_free(c);
	return applied > 0;
}
