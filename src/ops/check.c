/*
 * kernelrl: the helpers every op family's shape checks share (docs/ops.md):
 * tensor sizes and shapes for messages, attribute access, and the common
 * checks (attribute keys, dtypes, flags, `dim`, the same-shape unary and
 * binary forms).
 *
 * A check sees tensors without data (dtype and shape only) and the call's
 * attributes, and either accepts them or says in one sentence what is wrong,
 * naming the op and the operand ("gemm: a is [64, 32] but b is [31, 16]:
 * inner dimensions differ"). The program builder calls it while resolving a
 * plan; golden and GPU implementations assume a passed check. CPU code only
 * (the fuzzers compile it).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops_int.h"

/* ==== Sizes, shapes and attributes ==== */

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
	if (cap < 5) {
		if (cap)
			buf[0] = 0;
		return buf;
	}
	size_t k = 1;
	buf[0] = '[';
	for (int i = 0; i < t->ndim; i++) {
		int w = snprintf(buf + k, cap - k, "%s%lld", i ? ", " : "",
		                 (long long)t->dim[i]);
		if (w < 0 || (size_t)w + 1 >= cap - k) {
			/* no room for this dim and the bracket: say so */
			memcpy(buf + (k < cap - 5 ? k : cap - 5), "...]", 5);
			return buf;
		}
		k += (size_t)w;
	}
	buf[k] = ']';
	buf[k + 1] = 0;
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
 * (docs/ops-conv.md): which memory layout cuDNN runs on, and `w_layout`:
 * the order of w's memory; `recurrence` of
 * the recurrent layers (docs/ops-rnn.md): cuDNN's RNN algorithm and
 * forward mode. */
static const char *const k_layout_words[] = { "nchw", "nhwc", "nhwc_y",
                                               "nhwc_xy", NULL };
static const char *const k_w_layout_words[] = { "kcrs", "krsc", NULL };
static const char *const k_recurrence_words[] = { "standard", "infer",
                                                   "persist", "small_h",
                                                   NULL };

const char *const *krl_attr_words(const char *key)
{
	if (key && strcmp(key, "layout") == 0)
		return k_layout_words;
	if (key && strcmp(key, "w_layout") == 0)
		return k_w_layout_words;
	if (key && strcmp(key, "recurrence") == 0)
		return k_recurrence_words;
	return NULL;
}

int krl_ops_attr_has(const krl_attrs *a, const char *key)
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
			char list[512] = "";
			size_t k = 0;
			for (int j = 0; names && names[j]; j++) {
				int w = snprintf(list + k, sizeof list - k, "%s%s",
				                 j ? ", " : "", names[j]);
				if (w < 0 || (size_t)w >= sizeof list - k) {
					/* the list does not fit: end it visibly */
					memcpy(list + sizeof list - 5, ", ...", 5);
					list[sizeof list - 1] = 0;
					break;
				}
				k += (size_t)w;
			}
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

krl_err krl_ops_need_f32(const char *op, char *msg, size_t cap, ...)
{
	va_list ap;
	va_start(ap, cap);
	krl_err r = KRL_OK;
	const char *what;
	while (!r && (what = va_arg(ap, const char *)) != NULL) {
		const krl_tensor *t = va_arg(ap, const krl_tensor *);
		r = krl_ops_need_dtype(op, what, t, KRL_F32, msg, cap);
	}
	va_end(ap);
	return r;
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

krl_err krl_ops_need_word(const char *op, const krl_attrs *a, const char *key,
                          char *msg, size_t cap)
{
	const char *const *w = krl_attr_words(key);
	double v = krl_attrs_get(a, key, 0);
	int n = 0;
	while (w && w[n])
		n++;
	if (v >= 0 && v < n && v == floor(v))
		return KRL_OK;
	char list[256] = "";
	size_t used = 0;
	for (int k = 0; k < n && used < sizeof list; k++)
		used += (size_t)snprintf(list + used, sizeof list - used,
		                         "%s%d = %s", k ? ", " : "", k, w[k]);
	return krl_ops_fail(msg, cap, "%s: %s=%g is not one of its values "
	                    "(allowed: %s)", op, key, v, list);
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
	char s[KRL_SHAPE_CAP];
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

/* ==== Same-shape forms ==== */

/* Deliberate twin: check_unary and check_binary walk the same steps
 * (keys, dtypes, shapes) over one and two inputs; each keeps its own names
 * and messages, which one helper would have to pass in piece by piece. */
krl_err krl_ops_check_unary(const char *op, const char *const *keys,
                            const krl_tensor *in, const krl_tensor *out,
                            const krl_attrs *a, char *msg, size_t cap)
{
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, keys, a, msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap,
				  "x", &in[0], "y", &out[0], NULL)))
		return r;
	if (!krl_ops_same_shape(&in[0], &out[0]))
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: shapes must be "
		            "equal", op, KRL_SHAPE(&in[0], sx), KRL_SHAPE(&out[0], sy));
	return KRL_OK;
}

krl_err krl_ops_check_binary(const char *op, const char *const *keys,
                             const krl_tensor *in, const krl_tensor *out,
                             const krl_attrs *a, char *msg, size_t cap)
{
	char s1[KRL_SHAPE_CAP], s2[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, keys, a, msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap,
				  "a", &in[0], "b", &in[1], "y", &out[0], NULL)))
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
