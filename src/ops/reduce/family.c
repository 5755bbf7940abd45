/*
 * kernelrl: the op family "reduce" (docs/ops-reduce.md): reductions over
 * one dim (sum, mean, max, min, argmax, argmin, prod, logsumexp),
 * cumulative sums and products, pooling (max_pool1d/2d/3d,
 * avg_pool1d/2d/3d), and the copies
 * KernelBench's scan problems decompose into in eager PyTorch (flip,
 * narrow, cat, fill, mul_mask).
 *
 * This file is CPU code only: the table, every op's check and its float64
 * golden version. The GPU drivers are in run.c (kernels in reduce.cu,
 * reduce2.cu, scan.cu), named here through KRL_RUNFN so that the fuzzers
 * can build the table without GPU code. Semantics and the PyTorch
 * kernels each GPU version mirrors: docs/ops-reduce.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/ops_int.h"
#include "ops/reduce/reduce.h"

#define D(t) ((double *)(t)->data)

/* ==== Check helpers ==== */

/* An integer attribute in [lo, hi]; `dflt` when absent. */
static krl_err need_int(const char *op, const krl_attrs *a, const char *key,
                        double dflt, double lo, double hi, char *msg,
                        size_t cap)
{
	double v = krl_attrs_get(a, key, dflt);
	if (isnan(v))
		return krl_ops_fail(msg, cap, "%s: attribute %s is required", op, key);
	if (v != floor(v) || v < lo || v > hi)
		return krl_ops_fail(msg, cap, "%s: %s=%g must be an integer in %g .. %g",
		            op, key, v, lo, hi);
	return KRL_OK;
}

/* y must equal x except along dim d, where it is `n` long. */
static krl_err need_shape_but(const char *op, const char *yname,
                              const krl_tensor *x, const krl_tensor *y,
                              int d, int64_t n, char *msg, size_t cap)
{
	krl_tensor want = *x;
	want.dim[d] = n;
	if (krl_ops_same_shape(&want, y))
		return KRL_OK;
	char sw[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP];
	return krl_ops_fail(msg, cap, "%s: %s must be %s, not %s", op, yname,
	            KRL_SHAPE(&want, sw), KRL_SHAPE(y, sy));
}

/* ==== Pooling ==== */

static const char *const k_maxpool[] = { "kernel_size", "stride", "padding",
	"dilation", "ceil_mode", NULL };
static const char *const k_avgpool[] = { "kernel_size", "stride", "padding",
	"ceil_mode", "count_include_pad", "divisor_override", NULL };

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t krl_pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p,
                          int64_t d, int ceil_mode)
{
	int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
	int64_t o = floor_div(num, s) + 1;
	if (ceil_mode && (o - 1) * s >= in + p)
		o--;
	return o;
}

void krl_pool_geom(const krl_attrs *a, const int64_t *xdim, int ndim,
                   int rank, int avg, krl_pool *g)
{
	memset(g, 0, sizeof *g);
	g->rank = rank;
	g->k = (int64_t)krl_attrs_get(a, "kernel_size", 1);
	g->s = (int64_t)krl_attrs_get(a, "stride", (double)g->k);
	g->p = (int64_t)krl_attrs_get(a, "padding", 0);
	g->d = avg ? 1 : (int64_t)krl_attrs_get(a, "dilation", 1);
	g->ceil_mode = krl_attrs_get(a, "ceil_mode", 0) != 0;
	g->count_include_pad = krl_attrs_get(a, "count_include_pad", 1) != 0;
	g->divisor = avg ? (int64_t)krl_attrs_get(a, "divisor_override", 0)
	                 : 0;
	g->planes = 1;
	for (int i = 0; i < ndim - rank; i++)
		g->planes *= xdim[i];
	for (int i = 0; i < rank; i++) {
		g->in[i] = xdim[ndim - rank + i];
		g->out[i] = krl_pool_out_size(g->in[i], g->k, g->s, g->p, g->d,
		                              g->ceil_mode);
	}
}

/* x [(N,) C, *spatial] -> y (f32, spatial dims pooled) and, for max
 * pooling, idx (i64, the same shape as y), as PyTorch's pool*d_shape_check:
 * kernel_size >= 1, stride >= 1, dilation >= 1, 0 <= padding <=
 * kernel_size / 2, every output size >= 1. */
static krl_err check_pool(const char *op, int rank, int avg,
                          const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	const krl_tensor *x = &in[0], *y = &out[0];
	const double big = 1e9;
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP], sw[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, avg ? k_avgpool : k_maxpool, a, msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap, "x", x, "y", y, NULL)) ||
	    (r = need_int(op, a, "kernel_size", NAN, 1, big, msg, cap)))
		return r;
	double k = krl_attrs_get(a, "kernel_size", 1);
	if ((r = need_int(op, a, "stride", k, 1, big, msg, cap)) ||
	    (r = need_int(op, a, "padding", 0, 0, big, msg, cap)) ||
	    (r = need_int(op, a, "dilation", 1, 1, big, msg, cap)) ||
	    (r = need_int(op, a, "ceil_mode", 0, 0, 1, msg, cap)) ||
	    (r = need_int(op, a, "count_include_pad", 1, 0, 1, msg, cap)) ||
	    (r = need_int(op, a, "divisor_override", 0, 0, big, msg, cap)))
		return r;
	if (!avg && (r = krl_ops_need_dtype(op, "idx", &out[1], KRL_I64, msg, cap)))
		return r;
	double p = krl_attrs_get(a, "padding", 0);
	if (p > floor(k / 2))
		return krl_ops_fail(msg, cap, "%s: padding=%g must be at most half the "
		            "kernel size (%g)", op, p, k);
	if (x->ndim != rank + 1 && x->ndim != rank + 2)
		return krl_ops_fail(msg, cap, "%s: x is %s but must have %d or %d dims "
		            "([C, ...] or [N, C, ...] with %d spatial)", op,
		            KRL_SHAPE(x, sx), rank + 1, rank + 2, rank);
	krl_pool g;
	krl_pool_geom(a, x->dim, x->ndim, rank, avg, &g);
	krl_tensor want = *x;
	for (int i = 0; i < rank; i++) {
		if (g.out[i] < 1)
			return krl_ops_fail(msg, cap, "%s: x is %s: the window (kernel_size"
			            "=%g, dilation=%lld, padding=%g) does not fit "
			            "in spatial dim %d", op, KRL_SHAPE(x, sx), k,
			            (long long)g.d, p, i);
		want.dim[x->ndim - rank + i] = g.out[i];
	}
	if (!krl_ops_same_shape(&want, y))
		return krl_ops_fail(msg, cap, "%s: x is %s, so y must be %s, not %s", op,
		            KRL_SHAPE(x, sx), KRL_SHAPE(&want, sw), KRL_SHAPE(y, sy));
	if (!avg && !krl_ops_same_shape(&want, &out[1]))
		return krl_ops_fail(msg, cap, "%s: idx must be %s like y, not %s", op,
		            KRL_SHAPE(&want, sw), KRL_SHAPE(&out[1], sy));
	return KRL_OK;
}

#define POOL_CHECK(name, rank, avg)                                        \
	static krl_err check_##name(const krl_tensor *in,                  \
	                            const krl_tensor *out,                 \
	                            const krl_attrs *a, char *msg,         \
	                            size_t cap)                            \
	{                                                                  \
		return check_pool(#name, rank, avg, in, out, a, msg, cap); \
	}
POOL_CHECK(max_pool1d, 1, 0)
POOL_CHECK(max_pool2d, 2, 0)
POOL_CHECK(max_pool3d, 3, 0)
POOL_CHECK(avg_pool1d, 1, 1)
POOL_CHECK(avg_pool2d, 2, 1)
POOL_CHECK(avg_pool3d, 3, 1)

/* The window of output o along one spatial dim, as PyTorch's kernels
 * compute it: max pooling takes taps lo, lo + d, ... < hi (lo moved past
 * the left padding in steps of d); average pooling takes [lo, hi) and
 * counts `span` (the window clipped to the padded input) for
 * count_include_pad. */
typedef struct win {
	int64_t lo, hi, span;
} win;

static win pool_win(const krl_pool *g, int i, int64_t o, int avg)
{
	win w;
	int64_t start = o * g->s - g->p;
	if (avg) {
		int64_t end = start + g->k;
		if (end > g->in[i] + g->p)
			end = g->in[i] + g->p;
		w.span = end - start;
		w.lo = start < 0 ? 0 : start;
		w.hi = end < g->in[i] ? end : g->in[i];
		return w;
	}
	int64_t end = start + (g->k - 1) * g->d + 1;
	w.hi = end < g->in[i] ? end : g->in[i];
	while (start < 0)
		start += g->d;
	w.lo = start;
	w.span = 0;
	return w;
}

/* Pooling of x [planes, (T,) (H,) W] with the missing leading spatial
 * dims of size 1 (a 1-d pool is a 3-d pool of 1 x 1 x k): include/krl/opgeom.h. */
void krl_pool_golden(const krl_pool *g, int avg, const double *x, double *y,
                     double *ix)
{
	const int rank = g->rank;
	int64_t I3[3] = { 1, 1, 1 }, O3[3] = { 1, 1, 1 };
	for (int i = 0; i < rank; i++) {
		I3[3 - rank + i] = g->in[i];
		O3[3 - rank + i] = g->out[i];
	}
	int64_t isz = I3[0] * I3[1] * I3[2], osz = O3[0] * O3[1] * O3[2];
	for (int64_t pl = 0; pl < g->planes; pl++)
	for (int64_t ot = 0; ot < O3[0]; ot++)
	for (int64_t oh = 0; oh < O3[1]; oh++)
	for (int64_t ow = 0; ow < O3[2]; ow++) {
		int64_t oc[3] = { ot, oh, ow };
		win w[3];
		for (int j = 0; j < 3; j++) {
			int i = j - (3 - rank);
			if (i < 0) {
				w[j].lo = 0;
				w[j].hi = 1;
				w[j].span = 1;
			} else {
				w[j] = pool_win(g, i, oc[j], avg);
			}
		}
		const double *px = x + pl * isz;
		int64_t o = pl * osz + (ot * O3[1] + oh) * O3[2] + ow;
		int64_t step = avg ? 1 : g->d;
		/* unit steps in the padding dims of a 1-d or 2-d pool */
		int64_t st[3];
		for (int j = 0; j < 3; j++)
			st[j] = j < 3 - rank ? 1 : step;
		if (avg) {
			double s = 0;
			int64_t n = 1, span = 1;
			for (int j = 0; j < 3; j++) {
				n *= w[j].hi > w[j].lo ? w[j].hi - w[j].lo : 0;
				span *= w[j].span;
			}
			if (n == 0) {
				if (y)
					y[o] = 0;
				continue;
			}
			for (int64_t t = w[0].lo; t < w[0].hi; t++)
				for (int64_t h = w[1].lo; h < w[1].hi; h++)
					for (int64_t v = w[2].lo; v < w[2].hi; v++)
						s += px[(t * I3[1] + h) * I3[2] + v];
			double div = g->divisor ? (double)g->divisor
			           : g->count_include_pad ? (double)span
			           : (double)n;
			if (y)
				y[o] = s / div;
			continue;
		}
		double m = -INFINITY;
		int64_t mi = (w[0].lo * I3[1] + w[1].lo) * I3[2] + w[2].lo;
		for (int64_t t = w[0].lo; t < w[0].hi; t += st[0])
			for (int64_t h = w[1].lo; h < w[1].hi; h += st[1])
				for (int64_t v = w[2].lo; v < w[2].hi; v += st[2]) {
					int64_t q = (t * I3[1] + h) * I3[2] + v;
					if (px[q] > m || isnan(px[q])) {
						m = px[q];
						mi = q;
					}
				}
		if (y)
			y[o] = m;
		if (ix)
			ix[o] = (double)mi;
	}
}

static krl_err golden_pool(const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a, int rank, int avg)
{
	krl_pool g;
	krl_pool_geom(a, in[0].dim, in[0].ndim, rank, avg, &g);
	krl_pool_golden(&g, avg, D(&in[0]), D(&out[0]),
	                avg ? NULL : D(&out[1]));
	return KRL_OK;
}

#define POOL_GOLDEN(name, rank, avg)                                       \
	static krl_err golden_##name(const krl_tensor *in,                 \
	                             const krl_tensor *out,                \
	                             const krl_attrs *a)                   \
	{                                                                  \
		return golden_pool(in, out, a, rank, avg);                 \
	}
POOL_GOLDEN(max_pool1d, 1, 0)
POOL_GOLDEN(max_pool2d, 2, 0)
POOL_GOLDEN(max_pool3d, 3, 0)
POOL_GOLDEN(avg_pool1d, 1, 1)
POOL_GOLDEN(avg_pool2d, 2, 1)
POOL_GOLDEN(avg_pool3d, 3, 1)

/* ==== Reductions over one dim: sum, mean, max, min, arg*, prod ==== */

static const char *const k_dim[] = { "dim", NULL };

/* A reduction over `dim`: y (of dtype odt) is x with that dim of size 1
 * (keepdim) or without it. A dim of size 0 is an error unless empty_ok
 * (prod: the empty product is 1; sum would be 0 in PyTorch too, but the
 * GPU kernels of the first reductions assume r >= 1). */
static krl_err check_reduce(const char *op, krl_dtype odt, int empty_ok,
                            const krl_tensor *in, const krl_tensor *out,
                            const krl_attrs *a, char *msg, size_t cap)
{
	const krl_tensor *x = &in[0], *y = &out[0];
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP];
	char sk[KRL_SHAPE_CAP], sd[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_dim, a, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "x", x, KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "y", y, odt, msg, cap)) ||
	    (r = krl_ops_need_dim(op, x, a, msg, cap)))
		return r;
	int d = krl_ops_dim(a, x->ndim);
	if (!empty_ok && x->dim[d] == 0)
		return krl_ops_fail(msg, cap, "%s: x is %s: cannot reduce over dim %d "
		            "of size 0", op, KRL_SHAPE(x, sx), d);
	krl_tensor keep = *x, drop = *x;
	keep.dim[d] = 1;
	drop.ndim--;
	for (int i = d; i < drop.ndim; i++)
		drop.dim[i] = x->dim[i + 1];
	if (krl_ops_same_shape(y, &keep) || krl_ops_same_shape(y, &drop))
		return KRL_OK;
	return krl_ops_fail(msg, cap, "%s: x is %s and dim=%d, so y must be %s or %s, "
	            "not %s", op, KRL_SHAPE(x, sx), d, KRL_SHAPE(&keep, sk),
	            KRL_SHAPE(&drop, sd), KRL_SHAPE(y, sy));
}

#define REDUCE_CHECK(name, odt, empty_ok)                                  \
	static krl_err check_##name(const krl_tensor *in,                  \
	                            const krl_tensor *out,                 \
	                            const krl_attrs *a, char *msg,         \
	                            size_t cap)                            \
	{                                                                  \
		return check_reduce(#name, odt, empty_ok, in, out, a, msg, \
		                    cap);                                  \
	}
REDUCE_CHECK(sum, KRL_F32, 0)
REDUCE_CHECK(max, KRL_F32, 0)
REDUCE_CHECK(min, KRL_F32, 0)
REDUCE_CHECK(argmax, KRL_I64, 0)
REDUCE_CHECK(argmin, KRL_I64, 0)
REDUCE_CHECK(prod, KRL_F32, 1)
REDUCE_CHECK(logsumexp, KRL_F32, 0)

/* mean: over `dim` like sum, or without dim over every element into a
 * single-element y ([] normally). */
static krl_err check_mean(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP];
	krl_err r;
	if (krl_ops_attr_has(a, "dim"))
		return check_reduce("mean", KRL_F32, 0, in, out, a, msg, cap);
	if ((r = krl_ops_check_keys("mean", k_dim, a, msg, cap)) ||
	    (r = krl_ops_need_f32("mean", msg, cap,
				  "x", &in[0], "y", &out[0], NULL)))
		return r;
	if (krl_tensor_numel(&in[0]) == 0)
		return krl_ops_fail(msg, cap, "mean: x is %s: the mean of no elements "
		            "is undefined", KRL_SHAPE(&in[0], sx));
	if (krl_tensor_numel(&out[0]) != 1)
		return krl_ops_fail(msg, cap, "mean: without dim it averages all of x "
		            "%s into one element, so y must be [], not %s",
		            KRL_SHAPE(&in[0], sx), KRL_SHAPE(&out[0], sy));
	return KRL_OK;
}

/* golden_NAME, the float64 version of op NAME. */
#define GOLDEN(name)                                                       \
	static krl_err golden_##name(const krl_tensor *in,                 \
	                             const krl_tensor *out,                \
	                             const krl_attrs *a)

typedef enum { R_SUM, R_MEAN, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN } rkind;

/* Reduces x viewed as [outer, r, inner] into y [outer, inner]. max/min
 * propagate NaN and arg* pick the first NaN, as PyTorch does; otherwise
 * arg* keep the first index of the extreme value. */
static void reduce(const krl_tensor *x, const krl_tensor *y, int dim,
                   rkind k)
{
	krl_rlayout l = krl_ops_layout(x, dim);
	const double *px = D(x);
	double *py = D(y);
	for (int64_t o = 0; o < l.outer; o++)
		for (int64_t i = 0; i < l.inner; i++) {
			const double *p = px + o * l.r * l.inner + i;
			double acc = p[0];
			int64_t at = 0;
			if (k == R_SUM || k == R_MEAN) {
				acc = 0;
				for (int64_t j = 0; j < l.r; j++)
					acc += p[j * l.inner];
				if (k == R_MEAN)
					acc /= (double)l.r;
			} else {
				int want_max = k == R_MAX || k == R_ARGMAX;
				for (int64_t j = 1; j < l.r && !isnan(acc); j++) {
					double v = p[j * l.inner];
					if (isnan(v) || (want_max ? v > acc : v < acc)) {
						acc = v;
						at = j;
					}
				}
				if (k == R_ARGMAX || k == R_ARGMIN)
					acc = (double)at;
			}
			py[o * l.inner + i] = acc;
		}
}

#define REDUCE_GOLDEN(name, kind)                                          \
	GOLDEN(name)                                                       \
	{                                                                  \
		reduce(&in[0], &out[0], krl_ops_dim(a, in[0].ndim), kind); \
		return KRL_OK;                                             \
	}
REDUCE_GOLDEN(sum, R_SUM)
REDUCE_GOLDEN(max, R_MAX)
REDUCE_GOLDEN(min, R_MIN)
REDUCE_GOLDEN(argmax, R_ARGMAX)
REDUCE_GOLDEN(argmin, R_ARGMIN)

GOLDEN(mean)
{
	if (!isnan(krl_attrs_get(a, "dim", NAN))) {
		reduce(&in[0], &out[0], krl_ops_dim(a, in[0].ndim), R_MEAN);
		return KRL_OK;
	}
	int64_t n = krl_tensor_numel(&in[0]);
	double s = 0;
	for (int64_t i = 0; i < n; i++)
		s += D(&in[0])[i];
	D(&out[0])[0] = s / (double)n;
	return KRL_OK;
}

GOLDEN(prod)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	for (int64_t o = 0; o < l.outer; o++)
		for (int64_t i = 0; i < l.inner; i++) {
			double p = 1;
			for (int64_t j = 0; j < l.r; j++)
				p *= D(&in[0])[(o * l.r + j) * l.inner + i];
			D(&out[0])[o * l.inner + i] = p;
		}
	return KRL_OK;
}

/* torch.logsumexp over dim as PyTorch computes it: m = max (NaN
 * propagating), m taken as 0 where it is infinite, y = log(sum(exp(x -
 * m))) + m; so a row of -inf is -inf, a row holding +inf is +inf, NaN
 * propagates. */
GOLDEN(logsumexp)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	for (int64_t o = 0; o < l.outer; o++)
		for (int64_t i = 0; i < l.inner; i++) {
			const double *p = D(&in[0]) + o * l.r * l.inner + i;
			double m = p[0];
			for (int64_t j = 1; j < l.r && !isnan(m); j++)
				if (isnan(p[j * l.inner]) || p[j * l.inner] > m)
					m = p[j * l.inner];
			if (isinf(m))
				m = 0;
			double s = 0;
			for (int64_t j = 0; j < l.r; j++)
				s += exp(p[j * l.inner] - m);
			D(&out[0])[o * l.inner + i] = log(s) + m;
		}
	return KRL_OK;
}

/* ==== cumsum, cumprod ==== */

/* x -> y, f32, same shape, along `dim`. */
static krl_err check_along(const char *op, const krl_tensor *in,
                           const krl_tensor *out, const krl_attrs *a,
                           char *msg, size_t cap, int any_dtype)
{
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_dim, a, msg, cap)))
		return r;
	if (!any_dtype &&
	    ((r = krl_ops_need_dtype(op, "x", &in[0], KRL_F32, msg, cap)) ||
	     (r = krl_ops_need_dtype(op, "y", &out[0], KRL_F32, msg, cap))))
		return r;
	if (in[0].dtype != out[0].dtype)
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: dtypes must be "
		            "equal", op, krl_dtype_name(in[0].dtype),
		            krl_dtype_name(out[0].dtype));
	if (!krl_ops_same_shape(&in[0], &out[0]))
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: shapes must be "
		            "equal", op, KRL_SHAPE(&in[0], sx), KRL_SHAPE(&out[0], sy));
	return krl_ops_need_dim(op, &in[0], a, msg, cap);
}

static krl_err check_cumsum(const krl_tensor *in, const krl_tensor *out,
                            const krl_attrs *a, char *msg, size_t cap)
{
	return check_along("cumsum", in, out, a, msg, cap, 0);
}

static krl_err check_cumprod(const krl_tensor *in, const krl_tensor *out,
                             const krl_attrs *a, char *msg, size_t cap)
{
	return check_along("cumprod", in, out, a, msg, cap, 0);
}

/* The inclusive scan of x along dim into y: running sums, or products. */
static void scan(const krl_tensor *in, const krl_tensor *out,
                 const krl_attrs *a, int prod)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	for (int64_t o = 0; o < l.outer; o++)
		for (int64_t i = 0; i < l.inner; i++) {
			int64_t base = o * l.r * l.inner + i;
			double s = prod ? 1 : 0;
			for (int64_t j = 0; j < l.r; j++) {
				double v = D(&in[0])[base + j * l.inner];
				s = prod ? s * v : s + v;
				D(&out[0])[base + j * l.inner] = s;
			}
		}
}

GOLDEN(cumsum)
{
	scan(in, out, a, 0);
	return KRL_OK;
}

GOLDEN(cumprod)
{
	scan(in, out, a, 1);
	return KRL_OK;
}

/* ==== flip, narrow, cat, fill, mul_mask ==== */

static krl_err check_flip(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = check_along("flip", in, out, a, msg, cap, 1);
	if (r)
		return r;
	if (!krl_dtype_size(in[0].dtype))
		return krl_ops_fail(msg, cap, "flip: dtype %s is not supported",
		            krl_dtype_name(in[0].dtype));
	return KRL_OK;
}

static krl_err golden_flip(const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	for (int64_t o = 0; o < l.outer; o++)
		for (int64_t j = 0; j < l.r; j++)
			for (int64_t i = 0; i < l.inner; i++)
				D(&out[0])[(o * l.r + j) * l.inner + i] =
					D(&in[0])[(o * l.r + l.r - 1 - j) *
					          l.inner + i];
	return KRL_OK;
}

static const char *const k_narrow[] = { "dim", "start", NULL };

/* narrow: y = x[..., start : start + len, ...] along dim, len = y's size
 * there (any dtype, the same on both sides). */
static krl_err check_narrow(const krl_tensor *in, const krl_tensor *out,
                            const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "narrow";
	const krl_tensor *x = &in[0], *y = &out[0];
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_narrow, a, msg, cap)) ||
	    (r = krl_ops_need_dim(op, x, a, msg, cap)) ||
	    (r = need_int(op, a, "start", 0, 0, 9.2e18, msg, cap)))
		return r;
	if (x->dtype != y->dtype || !krl_dtype_size(x->dtype))
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: dtypes must be "
		            "equal", op, krl_dtype_name(x->dtype),
		            krl_dtype_name(y->dtype));
	int d = krl_ops_dim(a, x->ndim);
	if (y->ndim != x->ndim)
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: ranks must be "
		            "equal", op, KRL_SHAPE(x, sx), KRL_SHAPE(y, sy));
	if ((r = need_shape_but(op, "y", x, y, d, y->dim[d], msg, cap)))
		return r;
	int64_t start = (int64_t)krl_attrs_get(a, "start", 0);
	if (start + y->dim[d] > x->dim[d])
		return krl_ops_fail(msg, cap, "%s: start=%lld + length %lld runs past "
		            "dim %d of x %s", op, (long long)start,
		            (long long)y->dim[d], d, KRL_SHAPE(x, sx));
	return KRL_OK;
}

static krl_err golden_narrow(const krl_tensor *in, const krl_tensor *out,
                             const krl_attrs *a)
{
	int d = krl_ops_dim(a, in[0].ndim);
	krl_rlayout l = krl_ops_layout(&in[0], d);
	int64_t ry = out[0].dim[d];
	int64_t start = (int64_t)krl_attrs_get(a, "start", 0);
	for (int64_t o = 0; o < l.outer; o++)
		for (int64_t j = 0; j < ry; j++)
			for (int64_t i = 0; i < l.inner; i++)
				D(&out[0])[(o * ry + j) * l.inner + i] =
					D(&in[0])[(o * l.r + start + j) *
					          l.inner + i];
	return KRL_OK;
}

/* The inputs of a cat call: the count the caller set, at least 2. */
static int cat_nin(const krl_attrs *a)
{
	return a->nin > 2 ? a->nin : 2;
}

/* cat: x1, ..., xn (n >= 2, a->nin) -> y, y = x1 then x2 ... along dim;
 * shapes equal elsewhere, one dtype for all. The messages name input k
 * (from 1) and, for two inputs, keep the names a and b. */
static krl_err check_cat(const krl_tensor *in, const krl_tensor *out,
                         const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "cat";
	const krl_tensor *x = &in[0], *y = &out[0];
	char s1[KRL_SHAPE_CAP], s2[KRL_SHAPE_CAP];
	int n = cat_nin(a);
	krl_err r;
	if (a->nin > KRL_MAX_CALL_IN)
		return krl_ops_fail(msg, cap, "%s: %d inputs, at most %d", op,
		                    a->nin, KRL_MAX_CALL_IN);
	if ((r = krl_ops_check_keys(op, k_dim, a, msg, cap)) ||
	    (r = krl_ops_need_dim(op, x, a, msg, cap)))
		return r;
	int d = krl_ops_dim(a, x->ndim);
	int64_t ry = x->dim[d];
	for (int k = 1; k < n; k++) {
		const krl_tensor *b = &in[k];
		char nm[24]; /* "input " and any int */
		if (n == 2)
			snprintf(nm, sizeof nm, "b");
		else
			snprintf(nm, sizeof nm, "input %d", k + 1);
		if (x->dtype != b->dtype || !krl_dtype_size(x->dtype))
			return krl_ops_fail(msg, cap, "%s: %s is %s but %s is %s: "
			            "the inputs and y must have one dtype", op,
			            n == 2 ? "a" : "input 1", krl_dtype_name(x->dtype),
			            nm, krl_dtype_name(b->dtype));
		if (b->ndim != x->ndim ||
		    need_shape_but(op, "b", x, b, d, b->dim[d], NULL, 0))
			return krl_ops_fail(msg, cap, "%s: %s is %s but %s is %s: they "
			            "may differ only in dim %d", op,
			            n == 2 ? "a" : "input 1", KRL_SHAPE(x, s1), nm,
			            KRL_SHAPE(b, s2), d);
		ry += b->dim[d];
	}
	if (x->dtype != y->dtype || !krl_dtype_size(x->dtype))
		return krl_ops_fail(msg, cap, "%s: the inputs are %s but y is %s: "
		            "the inputs and y must have one dtype", op,
		            krl_dtype_name(x->dtype), krl_dtype_name(y->dtype));
	return need_shape_but(op, "y", x, y, d, ry, msg, cap);
}

static krl_err golden_cat(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a)
{
	int d = krl_ops_dim(a, in[0].ndim);
	krl_rlayout l = krl_ops_layout(&in[0], d);
	int64_t ry = out[0].dim[d], start = 0;
	for (int k = 0; k < cat_nin(a); k++) {
		int64_t rk = in[k].dim[d];
		for (int64_t o = 0; o < l.outer; o++)
			for (int64_t j = 0; j < rk; j++)
				for (int64_t i = 0; i < l.inner; i++)
					D(&out[0])[(o * ry + start + j) * l.inner + i] =
						D(&in[k])[(o * rk + j) * l.inner + i];
		start += rk;
	}
	return KRL_OK;
}

static const char *const k_fill[] = { "value", NULL };

/* fill: no inputs -> y (f32, or bool: value != 0, torch.ones(..., dtype=
 * bool)) = value everywhere. */
static krl_err check_fill(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	(void)in;
	krl_err r;
	if ((r = krl_ops_check_keys("fill", k_fill, a, msg, cap)))
		return r;
	if (out[0].dtype != KRL_BOOL &&
	    (r = krl_ops_need_dtype("fill", "y", &out[0], KRL_F32, msg, cap)))
		return r;
	if (!isfinite(krl_attrs_get(a, "value", 0)))
		return krl_ops_fail(msg, cap, "fill: value must be a finite number");
	return KRL_OK;
}

static krl_err golden_fill(const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a)
{
	(void)in;
	float v = (float)krl_attrs_get(a, "value", 0);
	if (out[0].dtype == KRL_BOOL)
		v = v != 0;
	int64_t n = krl_tensor_numel(&out[0]);
	for (int64_t i = 0; i < n; i++)
		D(&out[0])[i] = v;
	return KRL_OK;
}

static const char *const k_none[] = { NULL };

/* mul_mask: x (f32), mask (bool) -> y (f32), same shapes. */
static krl_err check_mul_mask(const krl_tensor *in, const krl_tensor *out,
                              const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "mul_mask";
	char s1[KRL_SHAPE_CAP], s2[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_none, a, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "x", &in[0], KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "mask", &in[1], KRL_BOOL, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "y", &out[0], KRL_F32, msg, cap)))
		return r;
	if (!krl_ops_same_shape(&in[0], &in[1]))
		return krl_ops_fail(msg, cap, "%s: x is %s but mask is %s: shapes must "
		            "be equal", op, KRL_SHAPE(&in[0], s1), KRL_SHAPE(&in[1], s2));
	if (!krl_ops_same_shape(&in[0], &out[0]))
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: shapes must be "
		            "equal", op, KRL_SHAPE(&in[0], s1), KRL_SHAPE(&out[0], s2));
	return KRL_OK;
}

/* A mask element is true when nonzero (golden tensors hold doubles). */
static krl_err golden_mul_mask(const krl_tensor *in, const krl_tensor *out,
                               const krl_attrs *a)
{
	(void)a;
	int64_t n = krl_tensor_numel(&in[0]);
	for (int64_t i = 0; i < n; i++)
		D(&out[0])[i] = D(&in[0])[i] * (D(&in[1])[i] != 0 ? 1.0 : 0.0);
	return KRL_OK;
}

/* ==== Table ==== */

/* Table rows: one declaration per op, the same shape by design (a row is
 * the op's name, arity, attribute keys, caps and doc; duplicates lists them
 * as twins, deliberately). */

#define RED_OP(nm, ni, no, keys, caps, dc) \
	KRL_OP(nm, ni, no, keys, "reduce", caps, NULL, dc)

/* Products overflow or underflow for inputs scaled or offset away from 1,
 * in the reference and in any correct order alike, and where exactly the
 * running product crosses the float range depends on the order: the
 * judge's stress draws do not apply. */
#define PRODUCT_NO_STRESS                                                    \
	"a product of many elements leaves the float range for any input "  \
	"scaled or offset away from 1, at a point that depends on the order"

RED_OP(sum, 1, 1, k_dim, KRL_OPCAP_LOWER, "y = sum of x over dim (kept as "
       "size 1 or dropped)");
RED_OP(mean, 1, 1, k_dim, KRL_OPCAP_LOWER, "y = mean of x over dim, or of "
       "all elements into [] without dim");
RED_OP(max, 1, 1, k_dim, KRL_OPCAP_LOWER, "y = max of x over dim");
RED_OP(min, 1, 1, k_dim, KRL_OPCAP_LOWER, "y = min of x over dim");
RED_OP(argmax, 1, 1, k_dim, KRL_OPCAP_LOWER, "y (i64) = index of the first "
       "maximum over dim");
RED_OP(argmin, 1, 1, k_dim, KRL_OPCAP_LOWER, "y (i64) = index of the first "
       "minimum over dim");
RED_OP(cumsum, 1, 1, k_dim, KRL_OPCAP_LOWER, "y = inclusive prefix sum of x "
       "along dim");
RED_OP(max_pool1d, 1, 2, k_maxpool, KRL_OPCAP_LOWER, "y, idx (i64) = "
       "nn.MaxPool1d of x [(N,) C, L]: kernel_size, stride (= "
       "kernel_size), padding, dilation, ceil_mode; idx is the in-plane "
       "index of each maximum");
RED_OP(max_pool2d, 1, 2, k_maxpool, KRL_OPCAP_LOWER, "y, idx (i64) = "
       "nn.MaxPool2d of x [(N,) C, H, W] (square window), as max_pool1d");
RED_OP(max_pool3d, 1, 2, k_maxpool, KRL_OPCAP_LOWER, "y, idx (i64) = "
       "nn.MaxPool3d of x [(N,) C, D, H, W] (cubic window), as max_pool1d");
RED_OP(avg_pool1d, 1, 1, k_avgpool, KRL_OPCAP_LOWER, "y = nn.AvgPool1d of x "
       "[(N,) C, L]: kernel_size, stride (= kernel_size), padding, "
       "ceil_mode, count_include_pad (1), divisor_override (0: none)");
RED_OP(avg_pool2d, 1, 1, k_avgpool, KRL_OPCAP_LOWER, "y = nn.AvgPool2d of x "
       "[(N,) C, H, W], as avg_pool1d");
RED_OP(avg_pool3d, 1, 1, k_avgpool, KRL_OPCAP_LOWER, "y = nn.AvgPool3d of x "
       "[(N,) C, D, H, W], as avg_pool1d");
KRL_OP(prod, 1, 1, k_dim, "reduce", KRL_OPCAP_LOWER, PRODUCT_NO_STRESS,
       "y = product of x over dim (kept as size 1 or dropped)");
KRL_OP(cumprod, 1, 1, k_dim, "reduce", KRL_OPCAP_LOWER, PRODUCT_NO_STRESS,
       "y = inclusive cumulative product of x along dim");
RED_OP(flip, 1, 1, k_dim, KRL_OPCAP_LOWER, "y = x reversed along dim (any "
       "dtype)");
RED_OP(narrow, 1, 1, k_narrow, KRL_OPCAP_LIBRARY, "y = x[start : start + "
       "len] along dim, len = y's size there (any dtype; a contiguous copy "
       "of the slice)");
RED_OP(cat, KRL_OP_AT_LEAST(2), 1, k_dim, KRL_OPCAP_LOWER, "y = x1 then "
       "x2 ... along dim, 2 to 64 inputs (any dtype, one for all)");
RED_OP(fill, 0, 1, k_fill, KRL_OPCAP_LIBRARY, "y (f32, or bool: value "
       "!= 0) = value (0) everywhere");
RED_OP(mul_mask, 2, 1, k_none, KRL_OPCAP_LOWER, "y = x * mask, mask bool "
       "(same shapes)");
RED_OP(logsumexp, 1, 1, k_dim, KRL_OPCAP_LOWER, "y = log(sum(exp(x))) "
       "over dim (kept as size 1 or dropped), as torch.logsumexp: max "
       "subtracted first, a row of -inf gives -inf");

static const krl_op *const ops[] = {
	&op_sum, &op_mean, &op_max, &op_min, &op_argmax, &op_argmin,
	&op_cumsum, &op_max_pool1d, &op_max_pool2d, &op_max_pool3d,
	&op_avg_pool1d, &op_avg_pool2d, &op_avg_pool3d, &op_prod, &op_cumprod,
	&op_flip, &op_narrow, &op_cat, &op_fill, &op_mul_mask, &op_logsumexp,
	NULL
};

const krl_op_family krl_family_reduce = {
	"reduce", ops, NULL,
};
