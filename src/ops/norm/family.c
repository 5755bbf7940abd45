/*
 * kernelrl: the op family "norm" (docs/ops-norm.md): softmax and
 * log_softmax, layer, batch, instance and group norms, the vector norm,
 * nll_loss and attention. The elementwise and broadcasting ops that the
 * norm and loss tasks spell out as Python expressions (abs, sqrt, log,
 * add_scalar, div_bcast, ...) are the eltwise family's.
 *
 * This file holds the family's table, every op's check and its float64
 * golden version; it is CPU-only (the fuzzers compile it with
 * -DKRL_OPS_NO_GPU). The GPU drivers live in run.c, their kernels in
 * softmax.cu, layernorm.cu and norm.cu.
 */
#include <math.h>
#include <string.h>

#include "ops/ops_int.h"
#include "ops/norm/norm.h"

#define D(t) ((double *)(t)->data)

/* ==== Check helpers ==== */

/* eps: finite and >= 0. */
static krl_err need_eps(const char *op, const krl_attrs *a, double dflt,
                        char *msg, size_t cap)
{
	double eps = krl_attrs_get(a, "eps", dflt);
	if (!isfinite(eps) || eps < 0)
		return krl_ops_fail(msg, cap, "%s: eps=%g must be a finite number >= 0",
		            op, eps);
	return KRL_OK;
}

/* A vector of `n` elements, f32, named what. */
static krl_err need_vec(const char *op, const char *what, const krl_tensor *t,
                        int64_t n, const krl_tensor *x, char *msg,
                        size_t cap)
{
	char st[KRL_SHAPE_CAP], sx[KRL_SHAPE_CAP];
	krl_err r = krl_ops_need_dtype(op, what, t, KRL_F32, msg, cap);
	if (r)
		return r;
	if (t->ndim != 1 || t->dim[0] != n)
		return krl_ops_fail(msg, cap, "%s: x is %s, so %s must be [%lld], not "
		            "%s", op, KRL_SHAPE(x, sx), what, (long long)n,
		            KRL_SHAPE(t, st));
	return KRL_OK;
}

/* A scalar output: one element ([] normally). */
static krl_err scalar_out(const char *op, const krl_tensor *y, char *msg,
                          size_t cap)
{
	char sy[KRL_SHAPE_CAP];
	krl_err r = krl_ops_need_dtype(op, "loss", y, KRL_F32, msg, cap);
	if (r)
		return r;
	if (krl_tensor_numel(y) != 1)
		return krl_ops_fail(msg, cap, "%s: the loss is one value, so its output "
		            "must be [], not %s", op, KRL_SHAPE(y, sy));
	return KRL_OK;
}

/* ==== softmax, log_softmax, layernorm ==== */

static const char *const k_dim[] = { "dim", NULL };
static const char *const k_ln[] = { "axes", "eps", NULL };

int krl_norm_ln_axes(const krl_attrs *a, const krl_tensor *in)
{
	return (int)krl_attrs_get(a, "axes", (double)in[1].ndim);
}

/* x -> y of the same shape along `dim`. */
static krl_err check_softmax(const krl_tensor *in, const krl_tensor *out,
                             const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = krl_ops_check_unary("softmax", k_dim, in, out, a, msg, cap);
	return r ? r : krl_ops_need_dim("softmax", &in[0], a, msg, cap);
}

static krl_err check_log_softmax(const krl_tensor *in, const krl_tensor *out,
                                 const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = krl_ops_check_unary("log_softmax", k_dim, in, out, a, msg,
	                                cap);
	return r ? r : krl_ops_need_dim("log_softmax", &in[0], a, msg, cap);
}

static krl_err check_layernorm(const krl_tensor *in, const krl_tensor *out,
                               const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "layernorm";
	const krl_tensor *x = &in[0], *w = &in[1], *b = &in[2], *y = &out[0];
	char sx[KRL_SHAPE_CAP], sw[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_ln, a, msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap,
				  "x", x, "w", w, "b", b, "y", y, NULL)))
		return r;
	double ax = krl_attrs_get(a, "axes", (double)w->ndim);
	if (ax != floor(ax) || ax < 1 || ax > x->ndim)
		return krl_ops_fail(msg, cap, "%s: axes=%g must be an integer in 1 .. "
		            "%d (the rank of x %s)", op, ax, x->ndim,
		            KRL_SHAPE(x, sx));
	if ((r = need_eps(op, a, 1e-5, msg, cap)))
		return r;
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
			char st[KRL_SHAPE_CAP];
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

static void softmax(const krl_tensor *x, const krl_tensor *y, int dim,
                    int log_)
{
	krl_rlayout l = krl_ops_layout(x, dim);
	for (int64_t o = 0; o < l.outer; o++)
		for (int64_t i = 0; i < l.inner; i++) {
			int64_t base = o * l.r * l.inner + i;
			const double *p = D(x) + base;
			double *q = D(y) + base;
			double mx = -INFINITY, s = 0;
			for (int64_t j = 0; j < l.r; j++)
				mx = fmax(mx, p[j * l.inner]);
			for (int64_t j = 0; j < l.r; j++)
				s += exp(p[j * l.inner] - mx);
			for (int64_t j = 0; j < l.r; j++)
				q[j * l.inner] = log_ ? p[j * l.inner] - mx - log(s)
				                      : exp(p[j * l.inner] - mx) / s;
		}
}

static krl_err golden_softmax(const krl_tensor *in, const krl_tensor *out,
                              const krl_attrs *a)
{
	softmax(&in[0], &out[0], krl_ops_dim(a, in[0].ndim), 0);
	return KRL_OK;
}

static krl_err golden_log_softmax(const krl_tensor *in,
                                  const krl_tensor *out, const krl_attrs *a)
{
	softmax(&in[0], &out[0], krl_ops_dim(a, in[0].ndim), 1);
	return KRL_OK;
}

/* Normalises each row of the trailing `axes` dims with the biased
 * variance (two passes: mean, then centred squares), then w and b. */
static krl_err golden_layernorm(const krl_tensor *in, const krl_tensor *out,
                                const krl_attrs *a)
{
	const krl_tensor *x = &in[0];
	int k = krl_norm_ln_axes(a, in);
	double eps = krl_attrs_get(a, "eps", 1e-5);
	int64_t n = krl_ops_prod(x, x->ndim - k, x->ndim);
	int64_t rows = krl_ops_prod(x, 0, x->ndim - k);
	const double *w = D(&in[1]), *b = D(&in[2]);
	for (int64_t r = 0; r < rows; r++) {
		const double *p = D(x) + r * n;
		double *q = D(&out[0]) + r * n;
		double mean = 0, var = 0;
		for (int64_t j = 0; j < n; j++)
			mean += p[j];
		mean /= (double)n;
		for (int64_t j = 0; j < n; j++)
			var += (p[j] - mean) * (p[j] - mean);
		var /= (double)n;
		double rstd = 1.0 / sqrt(var + eps);
		for (int64_t j = 0; j < n; j++)
			q[j] = (p[j] - mean) * rstd * w[j] + b[j];
	}
	return KRL_OK;
}

/* ==== Attribute lists ==== */

static const char *const k_none[] = { NULL };
static const char *const k_eps[] = { "eps", NULL };
static const char *const k_gn[] = { "groups", "eps", NULL };
static const char *const k_vnorm[] = { "dim", "ord", NULL };
static const char *const k_sdpa[] = { "scale", "causal", "relu", NULL };

/* ==== Batch, instance and group norm ==== */

/* x [N, C, *] (rank >= 2), y like x; with_affine: w, b [C]. */
static krl_err check_chan(const char *op, const char *const *names,
                          int with_affine, const krl_tensor *in,
                          const krl_tensor *out, const krl_attrs *a,
                          char *msg, size_t cap)
{
	const krl_tensor *x = &in[0], *y = &out[0];
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, names, a, msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap, "x", x, "y", y, NULL)) ||
	    (r = need_eps(op, a, 1e-5, msg, cap)))
		return r;
	if (x->ndim < 2)
		return krl_ops_fail(msg, cap, "%s: x is %s but must be [N, C, ...] (at "
		            "least 2 dims)", op, KRL_SHAPE(x, sx));
	if (krl_tensor_numel(x) == 0)
		return krl_ops_fail(msg, cap, "%s: x is %s: no elements to normalise",
		            op, KRL_SHAPE(x, sx));
	if (with_affine &&
	    ((r = need_vec(op, "w", &in[1], x->dim[1], x, msg, cap)) ||
	     (r = need_vec(op, "b", &in[2], x->dim[1], x, msg, cap))))
		return r;
	if (!krl_ops_same_shape(x, y))
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: shapes must be "
		            "equal", op, KRL_SHAPE(x, sx), KRL_SHAPE(y, sy));
	return KRL_OK;
}

static krl_err check_batchnorm(const krl_tensor *in, const krl_tensor *out,
                               const krl_attrs *a, char *msg, size_t cap)
{
	return check_chan("batchnorm", k_eps, 1, in, out, a, msg, cap);
}

static krl_err check_instancenorm(const krl_tensor *in,
                                  const krl_tensor *out, const krl_attrs *a,
                                  char *msg, size_t cap)
{
	return check_chan("instancenorm", k_eps, 0, in, out, a, msg, cap);
}

static krl_err check_groupnorm(const krl_tensor *in, const krl_tensor *out,
                               const krl_attrs *a, char *msg, size_t cap)
{
	krl_err r = check_chan("groupnorm", k_gn, 1, in, out, a, msg, cap);
	if (r)
		return r;
	double g = krl_attrs_get(a, "groups", NAN);
	if (isnan(g))
		return krl_ops_fail(msg, cap, "groupnorm: attribute groups is required");
	int64_t c = in[0].dim[1];
	if (g != floor(g) || g < 1 || g > (double)c || c % (int64_t)g)
		return krl_ops_fail(msg, cap, "groupnorm: groups=%g must be a positive "
		            "integer dividing the %lld channels", g,
		            (long long)c);
	return KRL_OK;
}

/* Normalises x viewed as [n, c, m] over the axes picked by mode, two
 * passes in double (mean, then centred squares), biased variance:
 * mode 0 (batch): per channel over n and m; mode 1 (instance/group):
 * per [n, c-group of cg channels] over cg * m. w, b per channel or NULL. */
static void norm_golden(const krl_tensor *x, const krl_tensor *y,
                        const double *w, const double *b, int batch,
                        int64_t cg, double eps)
{
	int64_t n = x->dim[0], c = x->dim[1];
	int64_t m = krl_ops_prod(x, 2, x->ndim);
	const double *px = D(x);
	double *py = D(y);
	if (batch) {
		for (int64_t k = 0; k < c; k++) {
			double s = 0, v = 0;
			for (int64_t i = 0; i < n; i++)
				for (int64_t j = 0; j < m; j++)
					s += px[(i * c + k) * m + j];
			double mean = s / (double)(n * m);
			for (int64_t i = 0; i < n; i++)
				for (int64_t j = 0; j < m; j++) {
					double e = px[(i * c + k) * m + j] - mean;
					v += e * e;
				}
			double rstd = 1.0 / sqrt(v / (double)(n * m) + eps);
			for (int64_t i = 0; i < n; i++)
				for (int64_t j = 0; j < m; j++) {
					int64_t o = (i * c + k) * m + j;
					double t = (px[o] - mean) * rstd;
					py[o] = w ? t * w[k] + b[k] : t;
				}
		}
		return;
	}
	int64_t len = cg * m;
	for (int64_t row = 0; row < n * (c / cg); row++) {
		const double *p = px + row * len;
		double *q = py + row * len;
		double s = 0, v = 0;
		for (int64_t j = 0; j < len; j++)
			s += p[j];
		double mean = s / (double)len;
		for (int64_t j = 0; j < len; j++)
			v += (p[j] - mean) * (p[j] - mean);
		double rstd = 1.0 / sqrt(v / (double)len + eps);
		int64_t ch0 = (row % (c / cg)) * cg;
		for (int64_t j = 0; j < len; j++) {
			int64_t ch = ch0 + j / m;
			double t = (p[j] - mean) * rstd;
			q[j] = w ? t * w[ch] + b[ch] : t;
		}
	}
}

static krl_err golden_batchnorm(const krl_tensor *in, const krl_tensor *out,
                                const krl_attrs *a)
{
	norm_golden(&in[0], &out[0], D(&in[1]), D(&in[2]), 1, 1,
	            krl_attrs_get(a, "eps", 1e-5));
	return KRL_OK;
}

static krl_err golden_instancenorm(const krl_tensor *in,
                                   const krl_tensor *out, const krl_attrs *a)
{
	norm_golden(&in[0], &out[0], NULL, NULL, 0, 1,
	            krl_attrs_get(a, "eps", 1e-5));
	return KRL_OK;
}

static krl_err golden_groupnorm(const krl_tensor *in, const krl_tensor *out,
                                const krl_attrs *a)
{
	int64_t g = (int64_t)krl_attrs_get(a, "groups", 1);
	norm_golden(&in[0], &out[0], D(&in[1]), D(&in[2]), 0,
	            in[0].dim[1] / g, krl_attrs_get(a, "eps", 1e-5));
	return KRL_OK;
}

/* ==== vector_norm ==== */

/* The 2-norm over the last dim (dim = -1 or rank-1, or any dim whose
 * trailing dims are all 1) into y keeping it as size 1 or dropping it, or
 * over all elements into a one-element y when dim is absent. */
/* The check prologue (keys, dtypes, then shapes) has the same shape in
 * every op's check by design (a deliberate twin of the other checks): the
 * shared steps are the krl_ops_* helpers; what stays is each op's own
 * names, dtypes and messages. */
static krl_err check_vector_norm(const krl_tensor *in, const krl_tensor *out,
                                 const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "vector_norm";
	const krl_tensor *x = &in[0], *y = &out[0];
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_vnorm, a, msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap, "x", x, "y", y, NULL)))
		return r;
	double ord = krl_attrs_get(a, "ord", 2);
	if (ord != 2)
		return krl_ops_fail(msg, cap, "%s: ord=%g is not supported (only the "
		            "2-norm, ord=2)", op, ord);
	if (krl_tensor_numel(x) == 0)
		return krl_ops_fail(msg, cap, "%s: x is %s: no elements", op,
		            KRL_SHAPE(x, sx));
	if (!krl_ops_attr_has(a, "dim")) {
		if (krl_tensor_numel(y) != 1)
			return krl_ops_fail(msg, cap, "%s: without dim it reduces all of "
			            "x %s into one value, so y must be [], not %s",
			            op, KRL_SHAPE(x, sx), KRL_SHAPE(y, sy));
		return KRL_OK;
	}
	double v = krl_attrs_get(a, "dim", 0);
	if (x->ndim == 0 || v != floor(v) || v < -x->ndim || v >= x->ndim)
		return krl_ops_fail(msg, cap, "%s: dim=%g is out of range for x %s", op,
		            v, KRL_SHAPE(x, sx));
	int d = krl_ops_dim(a, x->ndim);
	if (krl_ops_prod(x, d + 1, x->ndim) != 1)
		return krl_ops_fail(msg, cap, "%s: x is %s: only a reduction over the "
		            "last dim is supported, not dim=%d", op,
		            KRL_SHAPE(x, sx), d);
	if (krl_tensor_numel(y) != krl_ops_prod(x, 0, d) ||
	    (y->ndim != x->ndim && y->ndim != x->ndim - 1))
		return krl_ops_fail(msg, cap, "%s: x is %s and dim=%d, so y must be x "
		            "with that dim as 1 or dropped, not %s", op,
		            KRL_SHAPE(x, sx), d, KRL_SHAPE(y, sy));
	for (int i = 0; i < d; i++)
		if (y->dim[i] != x->dim[i])
			return krl_ops_fail(msg, cap, "%s: x is %s and dim=%d, so y must "
			            "be x with that dim as 1 or dropped, not %s",
			            op, KRL_SHAPE(x, sx), d, KRL_SHAPE(y, sy));
	return KRL_OK;
}

static krl_err golden_vector_norm(const krl_tensor *in, const krl_tensor *out,
                                  const krl_attrs *a)
{
	const krl_tensor *x = &in[0];
	int64_t n = krl_tensor_numel(x), r = n;
	if (krl_ops_attr_has(a, "dim"))
		r = x->dim[krl_ops_dim(a, x->ndim)];
	for (int64_t o = 0; o < n / r; o++) {
		double s = 0;
		for (int64_t j = 0; j < r; j++)
			s += D(x)[o * r + j] * D(x)[o * r + j];
		D(&out[0])[o] = sqrt(s);
	}
	return KRL_OK;
}

/* ==== nll_loss ==== */

/* logp [N, C] f32, target [N] i64 -> loss [] (mean over the targets that
 * are not ignore_index -100). */
static krl_err check_nll_loss(const krl_tensor *in, const krl_tensor *out,
                              const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "nll_loss";
	const krl_tensor *x = &in[0], *t = &in[1];
	char sx[KRL_SHAPE_CAP], st[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_none, a, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "logp", x, KRL_F32, msg, cap)) ||
	    (r = scalar_out(op, &out[0], msg, cap)))
		return r;
	if (t->dtype != KRL_I64)
		return krl_ops_fail(msg, cap, "%s: target must be i64 class indices, "
		            "not %s", op, krl_dtype_name(t->dtype));
	if (x->ndim != 2 || x->dim[0] == 0 || x->dim[1] == 0)
		return krl_ops_fail(msg, cap, "%s: logp is %s but must be [N, C] with "
		            "N, C > 0", op, KRL_SHAPE(x, sx));
	if (t->ndim != 1 || t->dim[0] != x->dim[0])
		return krl_ops_fail(msg, cap, "%s: logp is %s, so target must be [%lld], "
		            "not %s", op, KRL_SHAPE(x, sx), (long long)x->dim[0],
		            KRL_SHAPE(t, st));
	return KRL_OK;
}

/* A target outside [0, C) (other than -100) makes the loss NaN, as the
 * GPU op does where PyTorch would assert. */
static krl_err golden_nll_loss(const krl_tensor *in, const krl_tensor *out,
                               const krl_attrs *a)
{
	int64_t n = in[0].dim[0], c = in[0].dim[1], cnt = 0;
	double s = 0;
	for (int64_t i = 0; i < n; i++) {
		double t = D(&in[1])[i];
		if (t == KRL_NLL_IGNORE)
			continue;
		if (!(t >= 0 && t < (double)c)) {
			s = NAN;
			break;
		}
		s -= D(&in[0])[i * c + (int64_t)t];
		cnt++;
	}
	D(&out[0])[0] = s / (double)cnt;
	return KRL_OK;
}

/* ==== sdpa ==== */

/* q [..., L, E], k [..., S, E], v [..., S, Ev] -> o [..., L, Ev], equal
 * leading dims; scale defaults to 1/sqrt(E); causal hides key j from
 * query i where j > i (query 0 keeps key 0, so no row is empty); relu
 * weighs the values by relu(score) (hidden keys by 0) instead of the
 * softmax. */
static krl_err check_sdpa(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "sdpa";
	const krl_tensor *q = &in[0], *k = &in[1], *v = &in[2], *o = &out[0];
	char s1[KRL_SHAPE_CAP], s2[KRL_SHAPE_CAP], s3[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_sdpa, a, msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap,
				  "q", q, "k", k, "v", v, "o", o, NULL)) ||
	    (r = krl_ops_need_finite(op, a, "scale", msg, cap)) ||
	    (r = krl_ops_need_flag(op, a, "causal", msg, cap)) ||
	    (r = krl_ops_need_flag(op, a, "relu", msg, cap)))
		return r;
	int nd = q->ndim;
	if (nd < 2 || k->ndim != nd || v->ndim != nd || o->ndim != nd)
		return krl_ops_fail(msg, cap, "%s: q %s, k %s and v %s must have the same "
		            "rank, at least 2", op, KRL_SHAPE(q, s1), KRL_SHAPE(k, s2),
		            KRL_SHAPE(v, s3));
	for (int i = 0; i < nd - 2; i++)
		if (k->dim[i] != q->dim[i] || v->dim[i] != q->dim[i])
			return krl_ops_fail(msg, cap, "%s: q %s, k %s and v %s must have "
			            "equal batch dims", op, KRL_SHAPE(q, s1),
			            KRL_SHAPE(k, s2), KRL_SHAPE(v, s3));
	if (k->dim[nd - 1] != q->dim[nd - 1])
		return krl_ops_fail(msg, cap, "%s: q is %s but k is %s: the embedding "
		            "dims differ", op, KRL_SHAPE(q, s1), KRL_SHAPE(k, s2));
	if (v->dim[nd - 2] != k->dim[nd - 2])
		return krl_ops_fail(msg, cap, "%s: k is %s but v is %s: the key counts "
		            "differ", op, KRL_SHAPE(k, s2), KRL_SHAPE(v, s3));
	if (krl_tensor_numel(q) == 0 || krl_tensor_numel(v) == 0 ||
	    k->dim[nd - 2] == 0)
		return krl_ops_fail(msg, cap, "%s: q %s, k %s and v %s must not be empty",
		            op, KRL_SHAPE(q, s1), KRL_SHAPE(k, s2), KRL_SHAPE(v, s3));
	if (q->dim[nd - 1] > KRL_SDPA_MAX_DIM || v->dim[nd - 1] > KRL_SDPA_MAX_DIM)
		return krl_ops_fail(msg, cap, "%s: embedding dims of q %s and v %s must "
		            "be at most %d", op, KRL_SHAPE(q, s1), KRL_SHAPE(v, s3),
		            KRL_SDPA_MAX_DIM);
	int ok = 1;
	for (int i = 0; ok && i < nd - 1; i++)
		ok = o->dim[i] == q->dim[i];
	if (!ok || o->dim[nd - 1] != v->dim[nd - 1])
		return krl_ops_fail(msg, cap, "%s: o is %s but q %s and v %s give [..., "
		            "%lld, %lld]", op, KRL_SHAPE(o, s1), KRL_SHAPE(q, s2),
		            KRL_SHAPE(v, s3), (long long)q->dim[nd - 2],
		            (long long)v->dim[nd - 1]);
	return KRL_OK;
}

double krl_norm_sdpa_scale(const krl_tensor *q, const krl_attrs *a)
{
	return krl_attrs_get(a, "scale", 1.0 / sqrt((double)q->dim[q->ndim - 1]));
}

int krl_norm_sdpa_flag(const krl_attrs *a, const char *key)
{
	return krl_attrs_get(a, key, 0) != 0;
}

/* The weight of score x (scaled; -inf where hidden) against the row's
 * max mx: exp(x - mx), or relu's x (a NaN kept). */
static double sdpa_weight(double x, double mx, int relu)
{
	if (relu)
		return isnan(x) || x > 0 ? x : 0;
	return exp(x - mx);
}

static krl_err golden_sdpa(const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a)
{
	const krl_tensor *q = &in[0], *k = &in[1], *v = &in[2];
	int nd = q->ndim;
	int64_t bh = krl_ops_prod(q, 0, nd - 2), l = q->dim[nd - 2];
	int64_t e = q->dim[nd - 1], s = k->dim[nd - 2], ev = v->dim[nd - 1];
	double scale = krl_norm_sdpa_scale(q, a);
	int causal = krl_norm_sdpa_flag(a, "causal");
	int relu = krl_norm_sdpa_flag(a, "relu");
	double p[4096];
	double *pp = s <= 4096 ? p : NULL;
	for (int64_t z = 0; z < bh; z++)
		for (int64_t i = 0; i < l; i++) {
			const double *qi = D(q) + (z * l + i) * e;
			/* the keys query i sees: all, or 0..i */
			int64_t send = causal && i + 1 < s ? i + 1 : s;
			double mx = -INFINITY, sum = 0;
			for (int64_t j = 0; j < send; j++) {
				const double *kj = D(k) + (z * s + j) * e;
				double dot = 0;
				for (int64_t t = 0; t < e; t++)
					dot += qi[t] * kj[t];
				dot *= scale;
				if (pp)
					pp[j] = dot;
				mx = fmax(mx, dot);
			}
			double *oi = D(&out[0]) + (z * l + i) * ev;
			for (int64_t c = 0; c < ev; c++)
				oi[c] = 0;
			for (int64_t j = 0; j < send; j++) {
				double dot = 0;
				if (pp) {
					dot = pp[j];
				} else {
					const double *kj = D(k) + (z * s + j) * e;
					for (int64_t t = 0; t < e; t++)
						dot += qi[t] * kj[t];
					dot *= scale;
				}
				double w = sdpa_weight(dot, mx, relu);
				sum += w;
				const double *vj = D(v) + (z * s + j) * ev;
				for (int64_t c = 0; c < ev; c++)
					oi[c] += w * vj[c];
			}
			if (!relu)
				for (int64_t c = 0; c < ev; c++)
					oi[c] /= sum;
		}
	return KRL_OK;
}

/* ==== Table ==== */

/* Table rows: one declaration per op, the same shape by design (a row is
 * the op's name, arity, attribute keys, caps and doc; duplicates lists them
 * as twins, deliberately). */

#define NORM_OP(nm, ni, no, keys, caps, dc) \
	KRL_OP(nm, ni, no, keys, "norm", caps, NULL, dc)

NORM_OP(softmax, 1, 1, k_dim, KRL_OPCAP_LOWER, "y = exp(x - max) / sum "
        "exp(x - max) over dim");
NORM_OP(log_softmax, 1, 1, k_dim, KRL_OPCAP_LOWER, "y = x - max - log sum "
        "exp(x - max) over dim");
NORM_OP(layernorm, 3, 1, k_ln, KRL_OPCAP_LOWER, "y = (x - mean) / sqrt(var "
        "+ eps) * w + b over the trailing `axes` dims (biased variance)");
NORM_OP(batchnorm, 3, 1, k_eps, KRL_OPCAP_LOWER, "y = (x - mean_c) / "
        "sqrt(var_c + eps) * w_c + b_c with batch statistics over N and "
        "spatial dims of x [N, C, ...] (training mode; running stats are not "
        "kept)");
NORM_OP(instancenorm, 1, 1, k_eps, KRL_OPCAP_LOWER, "y = (x - mean) / "
        "sqrt(var + eps) per (n, c) of x [N, C, ...] over the spatial dims, "
        "no affine");
NORM_OP(groupnorm, 3, 1, k_gn, KRL_OPCAP_LOWER, "y = (x - mean) / sqrt(var + "
        "eps) * w_c + b_c per (n, group of C/groups channels) of x [N, C, "
        "...]");
NORM_OP(vector_norm, 1, 1, k_vnorm, KRL_OPCAP_LOWER, "y = sqrt(sum x^2) over "
        "the last dim, or over all elements into [] without dim (ord=2 only)");
NORM_OP(nll_loss, 2, 1, k_none, KRL_OPCAP_LOWER, "loss = -mean logp[i, "
        "target[i]] over targets != -100 (logp [N, C], target i64 [N])");
NORM_OP(sdpa, 3, 1, k_sdpa, KRL_OPCAP_LIBRARY, "o = softmax(q k^T * scale) "
        "v, fused (online softmax); scale 1/sqrt(E) by default; causal=1 "
        "hides key j from query i where j > i; relu=1 weighs v by relu(q k^T "
        "* scale) instead of the softmax");

static const krl_op *const ops[] = {
	&op_softmax, &op_log_softmax, &op_layernorm,
	&op_batchnorm, &op_instancenorm, &op_groupnorm, &op_vector_norm,
	&op_nll_loss, &op_sdpa, NULL,
};

const krl_op_family krl_family_norm = {
	"norm", ops, KRL_RUNFN(krl_norm_state_free),
};
