/*
 * kernelrl: the op registry and every op's shape check (docs/ops.md).
 *
 * A check sees tensors without data (dtype and shape only) and the call's
 * attributes, and either accepts them or says in one sentence what is wrong,
 * naming the op and the operand ("gemm: a is [64, 32] but b is [31, 16]:
 * inner dimensions differ"). The program builder calls it while resolving a
 * plan; golden and GPU implementations assume a passed check.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops_int.h"

/* ==== Helpers shared with golden.c and run.c ==== */

int64_t krl_tensor_numel(const krl_tensor *t)
{
	int64_t n = 1;
	for (int i = 0; i < t->ndim; i++)
		n *= t->dim[i];
	return n;
}

int64_t krl_ops_prod(const krl_tensor *t, int lo, int hi)
{
	int64_t n = 1;
	for (int i = lo; i < hi; i++)
		n *= t->dim[i];
	return n;
}

const char *krl_ops_shape(const krl_tensor *t, char *buf, size_t cap)
{
	size_t k = 0;
	k += (size_t)snprintf(buf, cap, "[");
	for (int i = 0; i < t->ndim && k < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? ", " : "",
		                      (long long)t->dim[i]);
	if (k < cap)
		snprintf(buf + k, cap - k, "]");
	return buf;
}

krl_rlayout krl_ops_layout(const krl_tensor *t, int dim)
{
	krl_rlayout l;
	l.outer = krl_ops_prod(t, 0, dim);
	l.r = t->dim[dim];
	l.inner = krl_ops_prod(t, dim + 1, t->ndim);
	return l;
}

double krl_attrs_get(const krl_attrs *a, const char *key, double dflt)
{
	if (!a)
		return dflt;
	for (int i = 0; i < a->n; i++)
		if (a->key[i] && strcmp(a->key[i], key) == 0)
			return a->val[i];
	return dflt;
}

/* The word-valued attributes: `layout` of the cuDNN convolutions
 * (docs/ops-conv.md): which memory layout cuDNN runs on. */
static const char *const k_layout_words[] = { "nchw", "nhwc", NULL };

const char *const *krl_attr_words(const char *key)
{
	if (key && strcmp(key, "layout") == 0)
		return k_layout_words;
	return NULL;
}

static int attr_has(const krl_attrs *a, const char *key)
{
	return !isnan(krl_attrs_get(a, key, NAN));
}

int krl_ops_dim(const krl_attrs *a, int ndim)
{
	double v = krl_attrs_get(a, "dim", NAN);
	if (isnan(v) || v != floor(v) || v < -ndim || v >= ndim)
		return -1;
	int d = (int)v;
	return d < 0 ? d + ndim : d;
}

int krl_ops_ln_axes(const krl_attrs *a, const krl_tensor *in)
{
	return (int)krl_attrs_get(a, "axes", (double)in[1].ndim);
}

/* ==== Check helpers ==== */

krl_err krl_ops_fail(char *msg, size_t cap, const char *fmt, ...)
{
	if (msg && cap) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, cap, fmt, ap);
		va_end(ap);
	}
	return KRL_EINVAL;
}

int krl_ops_same_shape(const krl_tensor *x, const krl_tensor *y)
{
	if (x->ndim != y->ndim)
		return 0;
	for (int i = 0; i < x->ndim; i++)
		if (x->dim[i] != y->dim[i])
			return 0;
	return 1;
}

/* Rejects attributes the op does not know (keys are listed per op). */
krl_err krl_ops_check_keys(const char *op, const char *const *names,
                          const krl_attrs *a, char *msg, size_t cap)
{
	if (!a)
		return KRL_OK;
	for (int i = 0; i < a->n; i++) {
		int ok = 0;
		for (int j = 0; names && names[j]; j++)
			if (a->key[i] && strcmp(a->key[i], names[j]) == 0)
				ok = 1;
		if (!ok) {
			char list[256] = "";
			size_t k = 0;
			for (int j = 0; names && names[j] && k < sizeof list; j++)
				k += (size_t)snprintf(list + k, sizeof list - k,
				                      "%s%s", j ? ", " : "",
				                      names[j]);
			if (names && names[0])
				return krl_ops_fail(msg, cap, "%s: unknown attribute '%s' "
				            "(allowed: %s)", op,
				            a->key[i] ? a->key[i] : "", list);
			return krl_ops_fail(msg, cap, "%s: unknown attribute '%s' (it "
			            "takes none)", op, a->key[i] ? a->key[i] : "");
		}
	}
	return KRL_OK;
}

krl_err krl_ops_need_dtype(const char *op, const char *what,
                          const krl_tensor *t, krl_dtype want, char *msg,
                          size_t cap)
{
	if (t->dtype == want)
		return KRL_OK;
	return krl_ops_fail(msg, cap, "%s: %s must be %s, not %s", op, what,
	            krl_dtype_name(want), krl_dtype_name(t->dtype));
}

/* An optional 0/1 attribute. */
krl_err krl_ops_need_flag(const char *op, const krl_attrs *a, const char *key,
                         char *msg, size_t cap)
{
	double v = krl_attrs_get(a, key, 0);
	if (v != 0 && v != 1)
		return krl_ops_fail(msg, cap, "%s: %s must be 0 or 1, not %g", op, key,
		            v);
	return KRL_OK;
}

krl_err krl_ops_need_algo(const char *op, const krl_attrs *a, char *msg,
                          size_t cap)
{
	double v = krl_attrs_get(a, "algo", 0);
	if (!(v >= 0 && v <= KRL_OPS_MAX_ALGO) || v != floor(v))
		return krl_ops_fail(msg, cap, "%s: algo=%g must be an integer from 0 "
		            "to %d (which of the library's usable algorithms, in "
		            "its heuristic's order)", op, v, KRL_OPS_MAX_ALGO);
	return KRL_OK;
}

krl_err krl_ops_need_finite(const char *op, const krl_attrs *a,
                           const char *key, char *msg, size_t cap)
{
	double v = krl_attrs_get(a, key, 0);
	if (!isfinite(v))
		return krl_ops_fail(msg, cap, "%s: %s must be a finite number", op,
		            key);
	return KRL_OK;
}

/* The `dim` attribute: required, an integer in [-ndim, ndim). */
krl_err krl_ops_need_dim(const char *op, const krl_tensor *x,
                        const krl_attrs *a, char *msg, size_t cap)
{
	char s[160];
	double v = krl_attrs_get(a, "dim", NAN);
	if (isnan(v))
		return krl_ops_fail(msg, cap, "%s: attribute dim is required", op);
	if (x->ndim == 0)
		return krl_ops_fail(msg, cap, "%s: x is a scalar ([]): it has no dim %g",
		            op, v);
	if (v != floor(v) || v < -x->ndim || v >= x->ndim)
		return krl_ops_fail(msg, cap, "%s: dim=%g is out of range for x %s "
		            "(rank %d: use %d .. %d)", op, v, KRL_SHAPE(x, s),
		            x->ndim, -x->ndim, x->ndim - 1);
	return KRL_OK;
}

/* ==== Checks ==== */

static const char *const k_none[] = { NULL };
static const char *const k_gemm[] = { "ta", "tb", "alpha", "algo", NULL };
static const char *const k_gelu[] = { "tanh", NULL };
static const char *const k_scale[] = { "alpha", NULL };
static const char *const k_dim[] = { "dim", NULL };
static const char *const k_ln[] = { "axes", "eps", NULL };

static krl_err check_gemm(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *at, char *msg, size_t cap)
{
	const char *op = "gemm";
	const krl_tensor *a = &in[0], *b = &in[1], *c = &out[0];
	char sa[160], sb[160], sc[160];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_gemm, at, msg, cap)) ||
	    (r = krl_ops_need_flag(op, at, "ta", msg, cap)) ||
	    (r = krl_ops_need_flag(op, at, "tb", msg, cap)) ||
	    (r = krl_ops_need_finite(op, at, "alpha", msg, cap)) ||
	    (r = krl_ops_need_algo(op, at, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "a", a, KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "b", b, KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "c", c, KRL_F32, msg, cap)))
		return r;
	if (a->ndim < 2)
		return krl_ops_fail(msg, cap, "%s: a is %s but must have at least 2 "
		            "dims", op, KRL_SHAPE(a, sa));
	if (b->ndim < 2)
		return krl_ops_fail(msg, cap, "%s: b is %s but must have at least 2 "
		            "dims", op, KRL_SHAPE(b, sb));
	int ta = krl_attrs_get(at, "ta", 0) != 0;
	int tb = krl_attrs_get(at, "tb", 0) != 0;
	int na = a->ndim, nb = b->ndim;
	int64_t m = ta ? a->dim[na - 1] : a->dim[na - 2];
	int64_t ka = ta ? a->dim[na - 2] : a->dim[na - 1];
	int64_t kb = tb ? b->dim[nb - 1] : b->dim[nb - 2];
	int64_t n = tb ? b->dim[nb - 2] : b->dim[nb - 1];
	if (ka != kb)
		return krl_ops_fail(msg, cap, "%s: a is %s%s but b is %s%s: inner "
		            "dimensions differ (%lld vs %lld)", op, KRL_SHAPE(a, sa),
		            ta ? " (ta=1)" : "", KRL_SHAPE(b, sb),
		            tb ? " (tb=1)" : "", (long long)ka, (long long)kb);
	if (nb > 2) {
		if (nb != na)
			return krl_ops_fail(msg, cap, "%s: a is %s but b is %s: b must "
			            "have the same batch dims as a, or none", op,
			            KRL_SHAPE(a, sa), KRL_SHAPE(b, sb));
		for (int i = 0; i < na - 2; i++)
			if (a->dim[i] != b->dim[i])
				return krl_ops_fail(msg, cap, "%s: a is %s but b is %s: "
				            "batch dim %d differs", op,
				            KRL_SHAPE(a, sa), KRL_SHAPE(b, sb), i);
	}
	int ok = c->ndim == na && c->dim[na - 2] == m && c->dim[na - 1] == n;
	for (int i = 0; ok && i < na - 2; i++)
		ok = c->dim[i] == a->dim[i];
	if (!ok) {
		krl_tensor want = *a;
		want.dim[na - 2] = m;
		want.dim[na - 1] = n;
		char sw[160];
		return krl_ops_fail(msg, cap, "%s: c is %s but a %s @ b %s gives %s", op,
		            KRL_SHAPE(c, sc), KRL_SHAPE(a, sa), KRL_SHAPE(b, sb),
		            KRL_SHAPE(&want, sw));
	}
	return KRL_OK;
}

/* x -> y, f32, same shape. */
static krl_err check_unary(const char *op, const char *const *keys,
                           const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a, char *msg, size_t cap)
{
	char sx[160], sy[160];
	krl_err r;
	if ((r = krl_ops_check_keys(op, keys, a, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "x", &in[0], KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "y", &out[0], KRL_F32, msg, cap)))
		return r;
	if (!krl_ops_same_shape(&in[0], &out[0]))
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: shapes must be "
		            "equal", op, KRL_SHAPE(&in[0], sx), KRL_SHAPE(&out[0], sy));
	return KRL_OK;
}

static krl_err check_relu(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	return check_unary("relu", k_none, in, out, a, msg, cap);
}

static krl_err check_gelu(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = check_unary("gelu", k_gelu, in, out, a, msg, cap);
	return r ? r : krl_ops_need_flag("gelu", a, "tanh", msg, cap);
}

static krl_err check_square(const krl_tensor *in, const krl_tensor *out,
                            const krl_attrs *a, char *msg, size_t cap)
{
	return check_unary("square", k_none, in, out, a, msg, cap);
}

static krl_err check_scale(const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = check_unary("scale", k_scale, in, out, a, msg, cap);
	if (r)
		return r;
	if (!attr_has(a, "alpha"))
		return krl_ops_fail(msg, cap, "scale: attribute alpha is required");
	return krl_ops_need_finite("scale", a, "alpha", msg, cap);
}

/* copy allows any dtype (the same on both sides) and a reshape: y = x
 * element for element in row-major order. */
static krl_err check_copy(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	char sx[160], sy[160];
	krl_err r = krl_ops_check_keys("copy", k_none, a, msg, cap);
	if (r)
		return r;
	if (in[0].dtype != out[0].dtype)
		return krl_ops_fail(msg, cap, "copy: x is %s but y is %s: dtypes must "
		            "be equal", krl_dtype_name(in[0].dtype),
		            krl_dtype_name(out[0].dtype));
	if (krl_tensor_numel(&in[0]) != krl_tensor_numel(&out[0]))
		return krl_ops_fail(msg, cap, "copy: x is %s but y is %s: element "
		            "counts differ", KRL_SHAPE(&in[0], sx),
		            KRL_SHAPE(&out[0], sy));
	return KRL_OK;
}

/* a, b -> y, f32, all the same shape. */
static krl_err check_binary(const char *op, const krl_tensor *in,
                            const krl_tensor *out, const krl_attrs *a,
                            char *msg, size_t cap)
{
	char s1[160], s2[160];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_none, a, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "a", &in[0], KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "b", &in[1], KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "y", &out[0], KRL_F32, msg, cap)))
		return r;
	if (!krl_ops_same_shape(&in[0], &in[1]))
		return krl_ops_fail(msg, cap, "%s: a is %s but b is %s: shapes must be "
		            "equal (no broadcasting)", op, KRL_SHAPE(&in[0], s1),
		            KRL_SHAPE(&in[1], s2));
	if (!krl_ops_same_shape(&in[0], &out[0]))
		return krl_ops_fail(msg, cap, "%s: a and b are %s but y is %s: shapes "
		            "must be equal", op, KRL_SHAPE(&in[0], s1),
		            KRL_SHAPE(&out[0], s2));
	return KRL_OK;
}

#define BINARY_CHECK(name)                                                 \
	static krl_err check_##name(const krl_tensor *in,                  \
	                            const krl_tensor *out,                 \
	                            const krl_attrs *a, char *msg,         \
	                            size_t cap)                            \
	{                                                                  \
		return check_binary(#name, in, out, a, msg, cap);          \
	}
BINARY_CHECK(add)
BINARY_CHECK(sub)
BINARY_CHECK(mul)
BINARY_CHECK(div)

/* A reduction over `dim`: y is x with that dim of size 1 (keepdim) or
 * without it. */
static krl_err check_reduce(const char *op, krl_dtype odt,
                            const krl_tensor *in, const krl_tensor *out,
                            const krl_attrs *a, char *msg, size_t cap)
{
	const krl_tensor *x = &in[0], *y = &out[0];
	char sx[160], sy[160];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_dim, a, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "x", x, KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "y", y, odt, msg, cap)) ||
	    (r = krl_ops_need_dim(op, x, a, msg, cap)))
		return r;
	int d = krl_ops_dim(a, x->ndim);
	if (x->dim[d] == 0)
		return krl_ops_fail(msg, cap, "%s: x is %s: cannot reduce over dim %d "
		            "of size 0", op, KRL_SHAPE(x, sx), d);
	int ok = 0;
	if (y->ndim == x->ndim) {
		ok = y->dim[d] == 1;
		for (int i = 0; ok && i < x->ndim; i++)
			ok = i == d || y->dim[i] == x->dim[i];
	} else if (y->ndim == x->ndim - 1) {
		ok = 1;
		for (int i = 0; ok && i < y->ndim; i++)
			ok = y->dim[i] == x->dim[i < d ? i : i + 1];
	}
	if (!ok) {
		krl_tensor keep = *x, drop = *x;
		keep.dim[d] = 1;
		drop.ndim--;
		for (int i = d; i < drop.ndim; i++)
			drop.dim[i] = x->dim[i + 1];
		char sk[160], sd[160];
		return krl_ops_fail(msg, cap, "%s: x is %s and dim=%d, so y must be %s "
		            "or %s, not %s", op, KRL_SHAPE(x, sx), d, KRL_SHAPE(&keep, sk),
		            KRL_SHAPE(&drop, sd), KRL_SHAPE(y, sy));
	}
	return KRL_OK;
}

#define REDUCE_CHECK(name, odt)                                            \
	static krl_err check_##name(const krl_tensor *in,                  \
	                            const krl_tensor *out,                 \
	                            const krl_attrs *a, char *msg,         \
	                            size_t cap)                            \
	{                                                                  \
		return check_reduce(#name, odt, in, out, a, msg, cap);     \
	}
REDUCE_CHECK(sum, KRL_F32)
REDUCE_CHECK(max, KRL_F32)
REDUCE_CHECK(min, KRL_F32)
REDUCE_CHECK(argmax, KRL_I64)
REDUCE_CHECK(argmin, KRL_I64)

/* mean: over `dim` like sum, or without dim over every element into a
 * single-element y ([] normally). */
static krl_err check_mean(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	char sx[160], sy[160];
	krl_err r;
	if (attr_has(a, "dim"))
		return check_reduce("mean", KRL_F32, in, out, a, msg, cap);
	if ((r = krl_ops_check_keys("mean", k_dim, a, msg, cap)) ||
	    (r = krl_ops_need_dtype("mean", "x", &in[0], KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype("mean", "y", &out[0], KRL_F32, msg, cap)))
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

/* softmax, log_softmax, cumsum: x -> y of the same shape along `dim`. */
static krl_err check_along(const char *op, const krl_tensor *in,
                           const krl_tensor *out, const krl_attrs *a,
                           char *msg, size_t cap)
{
	krl_err r = check_unary(op, k_dim, in, out, a, msg, cap);
	return r ? r : krl_ops_need_dim(op, &in[0], a, msg, cap);
}

#define ALONG_CHECK(name)                                                  \
	static krl_err check_##name(const krl_tensor *in,                  \
	                            const krl_tensor *out,                 \
	                            const krl_attrs *a, char *msg,         \
	                            size_t cap)                            \
	{                                                                  \
		return check_along(#name, in, out, a, msg, cap);           \
	}
ALONG_CHECK(softmax)
ALONG_CHECK(log_softmax)
ALONG_CHECK(cumsum)

static krl_err check_layernorm(const krl_tensor *in, const krl_tensor *out,
                               const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "layernorm";
	const krl_tensor *x = &in[0], *w = &in[1], *b = &in[2], *y = &out[0];
	char sx[160], sw[160];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_ln, a, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "x", x, KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "w", w, KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "b", b, KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "y", y, KRL_F32, msg, cap)))
		return r;
	double ax = krl_attrs_get(a, "axes", (double)w->ndim);
	if (ax != floor(ax) || ax < 1 || ax > x->ndim)
		return krl_ops_fail(msg, cap, "%s: axes=%g must be an integer in 1 .. "
		            "%d (the rank of x %s)", op, ax, x->ndim,
		            KRL_SHAPE(x, sx));
	double eps = krl_attrs_get(a, "eps", 1e-5);
	if (!isfinite(eps) || eps < 0)
		return krl_ops_fail(msg, cap, "%s: eps=%g must be a finite number >= 0",
		            op, eps);
	int k = (int)ax;
	const krl_tensor *wb[2] = { w, b };
	for (int j = 0; j < 2; j++) {
		int ok = wb[j]->ndim == k;
		for (int i = 0; ok && i < k; i++)
			ok = wb[j]->dim[i] == x->dim[x->ndim - k + i];
		if (!ok) {
			krl_tensor tail = *x;
			tail.ndim = k;
			for (int i = 0; i < k; i++)
				tail.dim[i] = x->dim[x->ndim - k + i];
			char st[160];
			return krl_ops_fail(msg, cap, "%s: x is %s and axes=%d, so %s "
			            "must be %s, not %s", op, KRL_SHAPE(x, sx), k,
			            j ? "b" : "w", KRL_SHAPE(&tail, st),
			            KRL_SHAPE(wb[j], sw));
		}
	}
	if (!krl_ops_same_shape(x, y))
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: shapes must be "
		            "equal", op, KRL_SHAPE(x, sx), KRL_SHAPE(y, sw));
	return KRL_OK;
}

/* ==== Registry ==== */

#define OPF(nm, ni, no, keys, fam, caps, dc)                               \
	static const krl_op op_##nm = { #nm, ni, no, keys, dc, check_##nm, \
	                                krl_run_##nm, krl_golden_##nm, NULL,\
	                                fam, caps }
#define OP(nm, ni, no, keys, dc) OPF(nm, ni, no, keys, NULL, KRL_OPCAP_LOWER, dc)

OPF(gemm, 2, 1, k_gemm, "matmul",
    KRL_OPCAP_LIBRARY | KRL_OPCAP_ALGO | KRL_OPCAP_EPILOGUE,
    "c = alpha * op(a) @ op(b), batched over leading "
    "dims (b may have none); true fp32 through cuBLASLt");
OP(relu, 1, 1, k_none, "y = max(x, 0)");
OP(gelu, 1, 1, k_gelu, "y = 0.5 x (1 + erf(x / sqrt 2)); tanh=1: the tanh "
   "approximation");
OP(add, 2, 1, k_none, "y = a + b (same shapes)");
OP(sub, 2, 1, k_none, "y = a - b (same shapes)");
OP(mul, 2, 1, k_none, "y = a * b (same shapes)");
OP(div, 2, 1, k_none, "y = a / b (same shapes)");
OP(square, 1, 1, k_none, "y = x * x");
OP(scale, 1, 1, k_scale, "y = alpha * x");
OP(sum, 1, 1, k_dim, "y = sum of x over dim (kept as size 1 or dropped)");
OP(mean, 1, 1, k_dim, "y = mean of x over dim, or of all elements into [] "
   "without dim");
OP(max, 1, 1, k_dim, "y = max of x over dim");
OP(min, 1, 1, k_dim, "y = min of x over dim");
OP(argmax, 1, 1, k_dim, "y (i64) = index of the first maximum over dim");
OP(argmin, 1, 1, k_dim, "y (i64) = index of the first minimum over dim");
OP(softmax, 1, 1, k_dim, "y = exp(x - max) / sum exp(x - max) over dim");
OP(log_softmax, 1, 1, k_dim, "y = x - max - log sum exp(x - max) over dim");
OP(layernorm, 3, 1, k_ln, "y = (x - mean) / sqrt(var + eps) * w + b over the "
   "trailing `axes` dims (biased variance)");
OP(cumsum, 1, 1, k_dim, "y = inclusive prefix sum of x along dim");
OP(copy, 1, 1, k_none, "y = x (any dtype; y may be a reshape of x)");

static const krl_op *const all_ops[] = {
	&op_gemm, &op_relu, &op_gelu, &op_add, &op_sub, &op_mul, &op_div,
	&op_square, &op_scale, &op_sum, &op_mean, &op_max, &op_min,
	&op_argmax, &op_argmin, &op_softmax, &op_log_softmax, &op_layernorm,
	&op_cumsum, &op_copy,
};

/* The core table above, then every family's. */
static const krl_op *const *const tables[] = {
	all_ops, krl_ops_matmul, krl_ops_eltwise, krl_ops_norm, krl_ops_reduce,
	krl_ops_conv,
};

static const krl_op **flat;
static int nflat;
static pthread_once_t flat_once = PTHREAD_ONCE_INIT;

/* One flat list of every op, built once. On allocation failure the list
 * holds the core ops only. */
static void build_flat(void)
{
	int n = (int)(sizeof all_ops / sizeof all_ops[0]);
	for (size_t t = 1; t < sizeof tables / sizeof tables[0]; t++)
		for (int i = 0; tables[t][i]; i++)
			n++;
	flat = malloc((size_t)n * sizeof *flat);
	if (!flat) {
		flat = (const krl_op **)all_ops;
		nflat = (int)(sizeof all_ops / sizeof all_ops[0]);
		return;
	}
	for (size_t i = 0; i < sizeof all_ops / sizeof all_ops[0]; i++)
		flat[nflat++] = all_ops[i];
	for (size_t t = 1; t < sizeof tables / sizeof tables[0]; t++)
		for (int i = 0; tables[t][i]; i++)
			flat[nflat++] = tables[t][i];
}

const krl_op *krl_op_find(const char *z)
{
	if (!z)
		return NULL;
	pthread_once(&flat_once, build_flat);
	for (int i = 0; i < nflat; i++)
		if (strcmp(flat[i]->name, z) == 0)
			return flat[i];
	return NULL;
}

const krl_op *const *krl_op_all(int *n)
{
	pthread_once(&flat_once, build_flat);
	if (n)
		*n = nflat;
	return flat;
}
