/*
 * The float64 interpreter of the op graph (include/krl/opt.h): evaluates
 * every node on the CPU, in order, at one shape set. Dims and constants
 * are the graph's texts evaluated at that set, so a graph lowered for one
 * set runs at any other. Library nodes run their op's golden version from
 * the registry. This is the graph's meaning that the tests hold against
 * the reference, before and after every rewrite.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/ops.h"
#include "krl/opgeom.h"
#include "opt/opt_int.h"

typedef struct interp {
	const krl_graph *g;
	krl_opt_scope sc;
	int64_t (*dims)[KRL_MAX_DIM];  /* per node, at the set */
	int64_t *numel;
	double **val;                  /* per node */
	unsigned char *owned;          /* val[i] is ours to free */
	krl_diag *d;
	krl_pos pos;
} interp;

static krl_err oom(interp *I)
{
	return krl_diag_set(I->d, KRL_ENOMEM, I->pos, "out of memory");
}

/* [outer, r, inner] of node x's dims around [axis, axis + naxes). */
static void layout(const interp *I, int x, int axis, int naxes,
                   int64_t *outer, int64_t *r, int64_t *inner)
{
	const krl_gnode *n = &I->g->n[x];
	*outer = *r = *inner = 1;
	for (int k = 0; k < n->ndim; k++) {
		int64_t v = I->dims[x][k];
		if (k < axis)
			*outer *= v;
		else if (k < axis + naxes)
			*r *= v;
		else
			*inner *= v;
	}
}

/* ==== Node kinds ==== */

static void run_pw(interp *I, int i)
{
	const krl_gnode *n = &I->g->n[i];
	const krl_pwinfo *pi = krl_pw_info(n->pw);
	int64_t stride[3][KRL_MAX_DIM];
	/* Right-aligned strides of each operand; 0 where it broadcasts. */
	for (int q = 0; q < n->nin; q++) {
		const krl_gnode *x = &I->g->n[n->in[q]];
		int64_t s = 1;
		for (int k = n->ndim - 1; k >= 0; k--) {
			int at = x->ndim - n->ndim + k;
			int64_t v = at >= 0 ? I->dims[n->in[q]][at] : 1;
			stride[q][k] = v == 1 ? 0 : s;
			s *= v;
		}
	}
	double *y = I->val[i], a[3];
	for (int64_t e = 0; e < I->numel[i]; e++) {
		int64_t off[3] = { 0, 0, 0 }, rest = e;
		for (int k = n->ndim - 1; k >= 0; k--) {
			int64_t c = rest % I->dims[i][k];
			rest /= I->dims[i][k];
			for (int q = 0; q < n->nin; q++)
				off[q] += c * stride[q][k];
		}
		for (int q = 0; q < n->nin; q++)
			a[q] = I->val[n->in[q]][off[q]];
		y[e] = pi->f(a);
	}
}

/* Sums in index order; max/min propagate NaN and arg* take the first NaN
 * or the first extreme, as the golden reductions do. */
static void run_reduce(interp *I, int i)
{
	const krl_gnode *n = &I->g->n[i];
	int64_t outer, r, inner;
	layout(I, n->in[0], n->axis, n->naxes, &outer, &r, &inner);
	const double *x = I->val[n->in[0]];
	double *y = I->val[i];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t c = 0; c < inner; c++) {
			const double *p = x + o * r * inner + c;
			double acc;
			int64_t at = 0;
			if (n->red == KRL_RED_SUM || n->red == KRL_RED_PROD) {
				int sum = n->red == KRL_RED_SUM;
				acc = sum ? 0.0 : 1.0;
				for (int64_t j = 0; j < r; j++)
					acc = sum ? acc + p[j * inner] : acc * p[j * inner];
			} else {
				int mx = n->red == KRL_RED_MAX || n->red == KRL_RED_ARGMAX;
				acc = p[0];
				for (int64_t j = 1; j < r && !isnan(acc); j++) {
					double v = p[j * inner];
					if (isnan(v) || (mx ? v > acc : v < acc)) {
						acc = v;
						at = j;
					}
				}
				if (n->red == KRL_RED_ARGMAX || n->red == KRL_RED_ARGMIN)
					acc = (double)at;
			}
			y[o * inner + c] = acc;
		}
}

static void run_scan(interp *I, int i)
{
	const krl_gnode *n = &I->g->n[i];
	int64_t outer, r, inner;
	layout(I, n->in[0], n->axis, 1, &outer, &r, &inner);
	const double *x = I->val[n->in[0]];
	double *y = I->val[i];
	int sum = n->scan == KRL_SCAN_SUM;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t c = 0; c < inner; c++) {
			double acc = sum ? 0.0 : 1.0;
			for (int64_t s = 0; s < r; s++) {
				int64_t j = n->reverse ? r - 1 - s : s;
				int64_t at = (o * r + j) * inner + c;
				if (n->exclusive)
					y[at] = acc;
				acc = sum ? acc + x[at] : acc * x[at];
				if (!n->exclusive)
					y[at] = acc;
			}
		}
}

static void run_flip(interp *I, int i)
{
	const krl_gnode *n = &I->g->n[i];
	int64_t outer, r, inner;
	layout(I, n->in[0], n->axis, 1, &outer, &r, &inner);
	const double *x = I->val[n->in[0]];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < r; j++)
			memcpy(I->val[i] + (o * r + j) * inner,
			       x + (o * r + r - 1 - j) * inner,
			       (size_t)inner * sizeof *x);
}

/* An index outside the axis gives NaN (the golden nll_loss's answer). */
static void run_gather(interp *I, int i)
{
	const krl_gnode *n = &I->g->n[i];
	int64_t outer, r, inner;
	layout(I, n->in[0], n->axis, 1, &outer, &r, &inner);
	const double *x = I->val[n->in[0]], *ix = I->val[n->in[1]];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t c = 0; c < inner; c++) {
			double t = ix[o * inner + c];
			I->val[i][o * inner + c] =
				t >= 0 && t < (double)r && t == floor(t)
				? x[(o * r + (int64_t)t) * inner + c] : NAN;
		}
}

static void tensor_of(const interp *I, int x, krl_tensor *t)
{
	const krl_gnode *n = &I->g->n[x];
	memset(t, 0, sizeof *t);
	t->data = I->val[x];
	t->dtype = n->dtype;
	t->ndim = n->ndim;
	memcpy(t->dim, I->dims[x], sizeof t->dim);
}

/* The attributes of library or pool node n at the set. */
static krl_err eval_attrs(interp *I, const krl_gnode *n, krl_attrs *at)
{
	memset(at, 0, sizeof *at);
	if (n->nattrs > KRL_MAX_ATTR)
		return krl_diag_set(I->d, KRL_EUNSUPPORTED, I->pos, "'%s': more "
		                    "than %d attributes", n->op ? n->op : "?",
		                    KRL_MAX_ATTR);
	for (int a = 0; a < n->nattrs; a++) {
		krl_value v;
		krl_err r = krl_expr_eval(n->attrs[a].value, &I->sc.scope, &v,
		                          I->d);
		if (r)
			return r;
		at->key[at->n] = n->attrs[a].key;
		at->val[at->n++] = v.is_float ? v.f : (double)v.i;
	}
	return KRL_OK;
}

/* A pool node: the library op's shape and attribute checks (as its call
 * would face them), then the golden pooling (src/ops/reduce/family.c) into this
 * node's array, the values or the indices. */
static krl_err run_pool(interp *I, int i)
{
	const krl_gnode *n = &I->g->n[i];
	const krl_op *op = n->op ? krl_op_find(n->op) : NULL;
	int avg = n->pool == KRL_POOL_AVG;
	krl_attrs at;
	krl_err r;
	if (!op || !op->check)
		return krl_diag_set(I->d, KRL_EUNSUPPORTED, I->pos, "node %d: "
		                    "pool op '%s' is not in the registry", i,
		                    n->op ? n->op : "?");
	if ((r = eval_attrs(I, n, &at)))
		return r;
	/* check() reads shapes and dtypes only */
	krl_tensor in, out[2];
	tensor_of(I, n->in[0], &in);
	tensor_of(I, i, &out[0]);
	out[0].dtype = KRL_F32;
	out[1] = out[0];
	out[1].dtype = KRL_I64;
	char msg[512] = "";
	if (op->check(&in, out, &at, msg, sizeof msg))
		return krl_diag_set(I->d, KRL_EINVAL, I->pos, "node %d: %s", i,
		                    msg);
	krl_pool geom;
	krl_pool_geom(&at, in.dim, in.ndim, n->naxes, avg, &geom);
	double *v = I->val[i];
	krl_pool_golden(&geom, avg, I->val[n->in[0]],
	                n->pool == KRL_POOL_ARGMAX ? NULL : v,
	                n->pool == KRL_POOL_ARGMAX ? v : NULL);
	return KRL_OK;
}

/* Runs the op's golden version: outputs into this node's array (one
 * output) or into its PROJ nodes' arrays, allocated here. */
static krl_err run_lib(interp *I, int i)
{
	const krl_graph *g = I->g;
	const krl_gnode *n = &g->n[i];
	const krl_op *op = krl_op_find(n->op);
	krl_tensor in[KRL_MAX_CALL_IN], out[4];
	krl_attrs at;
	if (!op || !op->golden)
		return krl_diag_set(I->d, KRL_EUNSUPPORTED, I->pos, "node %d: op "
		                    "'%s' has no golden version", i,
		                    n->op ? n->op : "?");
	for (int q = 0; q < n->nin; q++)
		tensor_of(I, n->in[q], &in[q]);
	if (n->nout <= 1) {
		tensor_of(I, i, &out[0]);
	} else {
		int found = 0;
		for (int j = i + 1; j < g->nn; j++) {
			const krl_gnode *p = &g->n[j];
			if (p->kind != KRL_GN_PROJ || p->in[0] != i ||
			    p->index < 0 || p->index >= n->nout || p->index >= 4)
				continue;
			tensor_of(I, j, &out[p->index]);
			found |= 1 << p->index;
		}
		if (found != (1 << n->nout) - 1)
			return krl_diag_set(I->d, KRL_EINVAL, I->pos, "node %d (%s): "
			                    "not every output has a PROJ node", i,
			                    n->op);
	}
	krl_err r = eval_attrs(I, n, &at);
	if (r)
		return r;
	at.nin = n->nin;
	char msg[512] = "";
	if (op->check && op->check(in, out, &at, msg, sizeof msg))
		return krl_diag_set(I->d, KRL_EINVAL, I->pos, "node %d: %s", i,
		                    msg);
	return op->golden(in, out, &at);
}

/* ==== Driver ==== */

/* Evaluates node i's dims (and a CONST's value) at the set. */
static krl_err eval_dims(interp *I, int i)
{
	const krl_gnode *n = &I->g->n[i];
	I->numel[i] = 1;
	for (int k = 0; k < n->ndim; k++) {
		krl_value v;
		krl_err r = krl_opt_eval_text(n->dim[k].text, &I->sc.scope, &v,
		                              I->d);
		if (r)
			return r;
		if (v.is_float || v.i < 1)
			return krl_diag_set(I->d, KRL_EINVAL, I->pos, "node %d: dim "
			                    "'%s' is not a positive integer", i,
			                    n->dim[k].text);
		I->dims[i][k] = v.i;
		I->numel[i] *= v.i;
	}
	return KRL_OK;
}

static krl_err run_node(interp *I, int i, double *const *bufs)
{
	const krl_gnode *n = &I->g->n[i];
	krl_err r;
	if ((r = eval_dims(I, i)))
		return r;
	switch (n->kind) {
	case KRL_GN_BUF: {
		const krl_bufshape *b = &I->sc.bufs[n->buf];
		int64_t k = 1;
		for (int q = 0; q < b->ndim; q++)
			k *= b->dim[q];
		if (k != I->numel[i])
			return krl_diag_set(I->d, KRL_EINVAL, I->pos, "node %d: buffer "
			                    "%s has %lld elements, its node %lld", i,
			                    b->name, (long long)k,
			                    (long long)I->numel[i]);
		I->val[i] = bufs[n->buf];
		return KRL_OK;
	}
	case KRL_GN_VIEW:
		if (I->numel[i] != I->numel[n->in[0]])
			return krl_diag_set(I->d, KRL_EINVAL, I->pos, "node %d: a view "
			                    "of %lld elements as %lld", i,
			                    (long long)I->numel[n->in[0]],
			                    (long long)I->numel[i]);
		I->val[i] = I->val[n->in[0]];
		return KRL_OK;
	case KRL_GN_PROJ:
		return KRL_OK;   /* allocated below, written by its LIB node */
	default:
		break;
	}
	if (!(I->val[i] = calloc((size_t)I->numel[i], sizeof **I->val)))
		return oom(I);
	I->owned[i] = 1;
	switch (n->kind) {
	case KRL_GN_CONST: {
		krl_value v;
		if ((r = krl_opt_eval_text(n->cexpr, &I->sc.scope, &v, I->d)))
			return r;
		I->val[i][0] = v.is_float ? v.f : (double)v.i;
		return KRL_OK;
	}
	case KRL_GN_PW:
		run_pw(I, i);
		return KRL_OK;
	case KRL_GN_REDUCE:
		run_reduce(I, i);
		return KRL_OK;
	case KRL_GN_SCAN:
		run_scan(I, i);
		return KRL_OK;
	case KRL_GN_GATHER:
		run_gather(I, i);
		return KRL_OK;
	case KRL_GN_FLIP:
		run_flip(I, i);
		return KRL_OK;
	case KRL_GN_POOL:
		return run_pool(I, i);
	case KRL_GN_LIB:
		/* Outputs read through PROJ nodes need their arrays first. */
		for (int j = i + 1; n->nout > 1 && j < I->g->nn; j++) {
			const krl_gnode *p = &I->g->n[j];
			if (p->kind != KRL_GN_PROJ || p->in[0] != i)
				continue;
			if ((r = eval_dims(I, j)))
				return r;
			if (!(I->val[j] = calloc((size_t)I->numel[j],
			                         sizeof **I->val)))
				return oom(I);
			I->owned[j] = 1;
		}
		return run_lib(I, i);
	default:
		return krl_diag_set(I->d, KRL_EINVAL, I->pos, "node %d: unknown "
		                    "kind %d", i, (int)n->kind);
	}
}

krl_err krl_graph_interp(const krl_graph *g, const char *set,
                         double *const *bufs, krl_diag *d)
{
	interp I = { .g = g, .d = d };
	I.pos.file = g->task->path;
	krl_err r = krl_opt_scope_init(&I.sc, g->task, set, d);
	if (r)
		return r;
	size_t nn = (size_t)g->nn + 1;
	I.dims = calloc(nn, sizeof *I.dims);
	I.numel = calloc(nn, sizeof *I.numel);
	I.val = calloc(nn, sizeof *I.val);
	I.owned = calloc(nn, 1);
	if (!I.dims || !I.numel || !I.val || !I.owned) {
		r = oom(&I);
		goto done;
	}
	for (int i = 0; i < g->nn; i++) {
		const krl_gnode *n = &g->n[i];
		for (int q = 0; q < n->nin; q++)
			if (n->in[q] < 0 || n->in[q] >= i) {
				r = krl_diag_set(d, KRL_EINVAL, I.pos, "node %d reads "
				                 "node %d: not in topological order", i,
				                 n->in[q]);
				goto done;
			}
		if (n->kind == KRL_GN_PROJ && I.val[i])
			continue;
		if ((r = run_node(&I, i, bufs)))
			goto done;
		if (n->kind == KRL_GN_PROJ && !I.val[i]) {
			r = krl_diag_set(d, KRL_EINVAL, I.pos, "node %d: a PROJ of "
			                 "node %d, which is not a library call with "
			                 "several outputs", i, n->in[0]);
			goto done;
		}
	}
	for (int q = 0; q < g->nout; q++) {
		int o = g->out[q], b = g->outdecl[q];
		const krl_bufshape *bs = &I.sc.bufs[b];
		int64_t k = 1;
		for (int j = 0; j < bs->ndim; j++)
			k *= bs->dim[j];
		if (o < 0 || o >= g->nn || k != I.numel[o]) {
			r = krl_diag_set(d, KRL_EINVAL, I.pos, "output %s: %lld "
			                 "elements, its node %lld", bs->name,
			                 (long long)k,
			                 (long long)(o >= 0 && o < g->nn ?
			                             I.numel[o] : -1));
			goto done;
		}
		if (bufs[b] != I.val[o])
			memmove(bufs[b], I.val[o], (size_t)k * sizeof **bufs);
	}
done:
	for (int i = 0; I.val && I.owned && i < g->nn; i++)
		if (I.owned[i])
			free(I.val[i]);
	free(I.dims);
	free(I.numel);
	free(I.val);
	free(I.owned);
	krl_opt_scope_free(&I.sc);
	return r;
}
