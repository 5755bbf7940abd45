/*
 * The attention rule (include/krl/opt.h KRL_RULE_ATTENTION,
 * docs/optimizer.md section 2): an attention written out as two GEMMs
 * with the scores between them,
 *
 *   o = softmax(where(mask, -inf, (q * c1) @ k^T * c2)) @ v     or
 *   o = relu(where(mask, -inf, (q * c1) @ k^T * c2)) @ v        (L3 50),
 *
 * the scales and the mask optional, becomes one library `sdpa` call
 * (scale = c1 c2, causal = 1 with the mask, relu = 1 for the second):
 * the fused kernel never writes the [L, S] scores that the GEMMs, the
 * softmax's two reductions and its pointwise passes read and write (at
 * level 3's 43, 1 GB per pass).
 *
 * The mask qualifies when it is `param == 0` (a pointwise eq, or the
 * library's eq_scalar on a leading slice) of a constant buffer drawn
 * tril(a) with a != 0 and diagonal 0 (docs/language.md "Constant
 * buffers": every draw holds those contents), seen through views that
 * keep its last two dims, with leading dims of 1 (broadcast over the
 * batch): then mask[i, j] is j > i, sdpa's `causal`. Every node between
 * the two GEMMs (and the first GEMM) is read only inside the pattern and
 * is no task output. Only the rounding changes: the scale multiplies the
 * sum of products instead of q (c1) or the products' sum (c2), and the
 * softmax's sums run in another order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt/opt_int.h"
#include "opt/rewrite.h"

/* The largest embedding dim the rule hands to sdpa: the library's tiled
 * kernel's (rows of up to 128 floats). Wider heads go to its general
 * kernel, which ran level 1's 97 (E = 1024) 6.6x slower than PyTorch's
 * fused kernel, where two GEMMs and a softmax run at 0.9x
 * (docs/ops-norm.md, "The SDPA baseline"). */
#define ATTN_MAX_DIM 128
#define ATTN_TEXT 512

static const krl_gnode *AN(const rw *R, int i)
{
	return &R->g->n[i];
}

static int is_lib(const krl_gnode *n, const char *op, int nin)
{
	return n->kind == KRL_GN_LIB && !strcmp(n->op, op) && n->nin == nin &&
	       n->nout == 1 && n->dtype == KRL_F32;
}

static int is_pw(const krl_gnode *n, krl_pwop op)
{
	return n->kind == KRL_GN_PW && n->pw == op;
}

/* REDUCE op over the last axis of x, kept. */
static int is_row_reduce(const rw *R, int i, krl_redop op, int x)
{
	const krl_gnode *n = AN(R, i);
	return n->kind == KRL_GN_REDUCE && n->red == op && n->naxes == 1 &&
	       n->keep && n->in[0] == x && n->axis == AN(R, x)->ndim - 1;
}

/* Every node of set[0..n) (new-graph indices) is read only by nodes of the
 * set and by the node the rule is looking at, and is no task output. */
static int closed(const rw *R, const int *set, int n)
{
	int old[16];
	for (int i = 0; i < n; i++)
		if ((old[i] = krl_rw_old_of(R, set[i])) < 0 ||
		    krl_graph_is_output(R->old, old[i]))
			return 0;
	for (int u = 0; u < R->old->nn; u++) {
		if (u == R->cur)
			continue;
		int inside = 0;
		for (int i = 0; i < n; i++)
			inside |= old[i] == u;
		if (inside)
			continue;
		const krl_gnode *x = &R->old->n[u];
		for (int q = 0; q < x->nin; q++)
			for (int i = 0; i < n; i++)
				if (x->in[q] == old[i])
					return 0;
	}
	return 1;
}

/* Appends "* (text)" to the scale text buf (a product of factors). */
static int scale_mul(char *buf, size_t cap, const char *text)
{
	size_t k = strlen(buf);
	int w = snprintf(buf + k, cap - k, "%s(%s)", k ? " * " : "", text);
	return w > 0 && (size_t)w < cap - k;
}

/* Node m (bool) is mask[i, j] = j > i over its last two dims, leading
 * dims 1: `param == 0` of a tril(a != 0, 0) constant buffer (see the
 * file's comment). */
static int causal_mask(const rw *R, int m)
{
	const krl_gnode *n = AN(R, m);
	double val;
	int x;
	if (n->dtype != KRL_BOOL || n->ndim < 2)
		return 0;
	for (int k = 0; k + 2 < n->ndim; k++)
		if (n->dim[k].val != 1)
			return 0;
	if (is_pw(n, KRL_PW_EQ)) {
		int a = n->in[0], b = n->in[1];
		if (krl_rw_is_const(R, b, NAN) && AN(R, b)->cval == 0)
			x = a;
		else if (krl_rw_is_const(R, a, NAN) && AN(R, a)->cval == 0)
			x = b;
		else
			return 0;
	} else if (n->kind == KRL_GN_LIB && !strcmp(n->op, "eq_scalar") &&
	           n->nin == 1 && krl_gnode_lib_literal(n, "value", NAN, &val) &&
	           val == 0) {
		x = n->in[0];
	} else {
		return 0;
	}
	const krl_gnode *xv = AN(R, x);
	int p = krl_graph_unview(R->g, x);
	const krl_gnode *pn = AN(R, p);
	if (pn->kind != KRL_GN_BUF || !R->g->task || pn->buf < 0 ||
	    pn->buf >= R->g->task->ndecls || xv->ndim < 2 || pn->ndim < 2 ||
	    xv->dtype != KRL_F32)
		return 0;
	const krl_decl *dc = &R->g->task->decls[pn->buf];
	if (dc->role != KRL_ROLE_PARAM || dc->dist.kind != KRL_DIST_TRIL ||
	    dc->dist.a == 0 || dc->dist.b != 0)
		return 0;
	/* the view keeps the param's matrices: its last two dims are the
	 * param's, its leading ones 1 */
	if (xv->dim[xv->ndim - 1].val != pn->dim[pn->ndim - 1].val ||
	    xv->dim[xv->ndim - 2].val != pn->dim[pn->ndim - 2].val)
		return 0;
	for (int k = 0; k + 2 < xv->ndim; k++)
		if (xv->dim[k].val != 1)
			return 0;
	for (int k = 0; k + 2 < pn->ndim; k++)
		if (pn->dim[k].val != 1)
			return 0;
	return 1;
}

krl_err krl_rule_attention(rw *R, const krl_gnode *n, int *out)
{
	double v;
	if (!is_lib(n, "gemm", 2) || n->ndim < 2 ||
	    !krl_gnode_lib_literal(n, "ta", 0, &v) || v != 0 ||
	    !krl_gnode_lib_literal(n, "tb", 0, &v) || v != 0 ||
	    !krl_gnode_lib_literal(n, "alpha", 1, &v) || v != 1)
		return KRL_OK;
	int nd = n->ndim, set[16], ns = 0, relu = 0, causal = 0;
	int p = n->in[0], vv = n->in[1];
	const krl_gnode *pn = AN(R, p);
	int x;
	if (is_pw(pn, KRL_PW_RELU)) {
		relu = 1;
		x = pn->in[0];
		set[ns++] = p;
	} else if (is_pw(pn, KRL_PW_DIV)) {
		int e = pn->in[0], s1 = pn->in[1];
		const krl_gnode *en = AN(R, e);
		if (!is_pw(en, KRL_PW_EXP) || !is_row_reduce(R, s1, KRL_RED_SUM, e))
			return KRL_OK;
		int d = en->in[0];
		const krl_gnode *dn = AN(R, d);
		if (!is_pw(dn, KRL_PW_SUB))
			return KRL_OK;
		x = dn->in[0];
		if (!is_row_reduce(R, dn->in[1], KRL_RED_MAX, x))
			return KRL_OK;
		set[ns++] = p;
		set[ns++] = s1;
		set[ns++] = e;
		set[ns++] = d;
		set[ns++] = dn->in[1];
	} else {
		return KRL_OK;
	}
	int y = x;
	const krl_gnode *xn = AN(R, x);
	if (is_pw(xn, KRL_PW_WHERE)) {
		const krl_gnode *c = AN(R, xn->in[1]);
		if (!krl_rw_is_const(R, xn->in[1], NAN) ||
		    !(c->cval < 0 && isinf(c->cval)) ||
		    !causal_mask(R, xn->in[0]))
			return KRL_OK;
		const krl_gnode *mn = AN(R, xn->in[0]);
		if (mn->dim[mn->ndim - 1].val != xn->dim[nd - 1].val ||
		    mn->dim[mn->ndim - 2].val != xn->dim[nd - 2].val)
			return KRL_OK;
		causal = 1;
		y = xn->in[2];
		set[ns++] = x;
	}
	char scale[ATTN_TEXT] = "";
	double sval = 1;         /* its value at the graph's set */
	int g1 = y;
	const krl_gnode *yn = AN(R, y);
	int c, div;
	if (krl_rw_scaled(R, yn, &g1, &c, &div)) {
		if (div || !scale_mul(scale, sizeof scale, AN(R, c)->cexpr))
			return KRL_OK;
		sval *= AN(R, c)->cval;
		set[ns++] = y;
	}
	const krl_gnode *gn = AN(R, g1);
	if (!is_lib(gn, "gemm", 2) || gn->ndim != nd ||
	    !krl_gnode_lib_literal(gn, "ta", 0, &v) || v != 0 ||
	    !krl_gnode_lib_literal(gn, "tb", 0, &v) || v != 1)
		return KRL_OK;
	set[ns++] = g1;
	/* alpha: any expression (level 1's 97 writes 1/sqrt(E)) */
	char *at = NULL;
	double av = krl_rw_attr_val(gn, "alpha", &at);
	int ok = !at || (!isnan(av) && scale_mul(scale, sizeof scale, at));
	free(at);
	if (!ok)
		return KRL_OK;
	if (!isnan(av))
		sval *= av;
	/* the scores are the GEMM's, not broadcast further by the mask */
	for (int k = 0; k < nd; k++)
		if (AN(R, x)->dim[k].val != gn->dim[k].val)
			return KRL_OK;
	int q = gn->in[0], k = gn->in[1];
	const krl_gnode *qn = AN(R, q);
	int x0;
	if (krl_rw_scaled(R, qn, &x0, &c, &div) && !div &&
	    krl_rw_one_reader(R, q) && AN(R, x0)->dtype == KRL_F32 &&
	    scale_mul(scale, sizeof scale, AN(R, c)->cexpr)) {
		sval *= AN(R, c)->cval;
		set[ns++] = q;
		q = x0;
	}
	if (!closed(R, set, ns))
		return KRL_OK;
	qn = AN(R, q);
	const krl_gnode *kn = AN(R, k), *vn = AN(R, vv);
	if (qn->ndim != nd || kn->ndim != nd || vn->ndim != nd ||
	    qn->dtype != KRL_F32 || kn->dtype != KRL_F32 ||
	    vn->dtype != KRL_F32)
		return KRL_OK;
	for (int d = 0; d + 2 < nd; d++)
		if (qn->dim[d].val != n->dim[d].val ||
		    kn->dim[d].val != n->dim[d].val ||
		    vn->dim[d].val != n->dim[d].val)
			return KRL_OK;
	if (qn->dim[nd - 1].val > ATTN_MAX_DIM ||
	    vn->dim[nd - 1].val > ATTN_MAX_DIM || kn->dim[nd - 2].val < 1)
		return KRL_OK;
	if (!scale[0])
		snprintf(scale, sizeof scale, "1.0");
	krl_gattr attrs[3];
	int na = 0;
	attrs[na++] = (krl_gattr){ "scale", scale, sval };
	if (causal)
		attrs[na++] = (krl_gattr){ "causal", "1", 1 };
	if (relu)
		attrs[na++] = (krl_gattr){ "relu", "1", 1 };
	int in[3] = { q, k, vv };
	return krl_graph_lib(R->g, "sdpa", in, 3, nd, n->dim, attrs, na, out,
	                     R->d);
}
