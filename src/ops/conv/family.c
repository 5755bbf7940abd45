/*
 * kernelrl: the op family "conv" (docs/ops-conv.md): conv and conv_transpose over 1, 2 or 3 spatial dims,
 * with and without bias, as torch.nn.ConvNd / ConvTransposeNd compute them.
 *
 * This file holds the ops' table, their shape checks and their float64
 * golden versions: CPU code only, compiled into the fuzzers too. The GPU
 * drivers (cuDNN, and depthwise.cu for depthwise convolutions) are in
 * run.c.
 *
 * Attributes name each spatial dim by a letter: the last is w, the one
 * before it h, the one before that d (1D: w; 2D: h, w; 3D: d, h, w).
 * `stride=2` sets every spatial dim, `stride_h=2` one of them (and wins
 * over the shorthand); the same for padding, dilation and output_padding.
 * Two attributes choose how the call runs, not what it computes: `algo`
 * (which usable cuDNN engine) and `layout` (nchw, or nhwc: cuDNN on
 * channels-last copies; nhwc_y: the same, y left channels-last for a
 * generated kernel to read, no bias; nhwc_xy: nhwc_y with x given
 * channels-last by a generated kernel; a word in a plan, its index for
 * the op), and `w_layout` (kcrs, or krsc: w given in cuDNN's
 * channels-last filter format, for a channels-last call).
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/conv/conv.h"

#define D(t) ((double *)(t)->data)

static const char k_axes[] = "dhw";

/* ==== Attributes and geometry ==== */

/* The attributes with a value per spatial dim, their defaults and the
 * smallest value allowed. */
typedef struct spatial_attr {
	const char *name;
	int64_t dflt, min;
} spatial_attr;

static const spatial_attr k_spatial[] = {
	{ "stride", 1, 1 },
	{ "padding", 0, 0 },
	{ "dilation", 1, 1 },
	{ "output_padding", 0, 0 },
};

/* The value of attribute `name` for spatial dim i of nsp: `name_<axis>`,
 * else `name`, else dflt (as a double: the check validates it). */
static double spatial_val(const krl_attrs *a, const char *name, int nsp,
                          int i, double dflt)
{
	char key[40];
	snprintf(key, sizeof key, "%s_%c", name, k_axes[3 - nsp + i]);
	double v = krl_attrs_get(a, key, NAN);
	if (isnan(v))
		v = krl_attrs_get(a, name, dflt);
	return v;
}

int krl_conv_geom_get(int transposed, const krl_tensor *in,
                      const krl_attrs *a, krl_conv_geom *g)
{
	const krl_tensor *x = &in[0], *w = &in[1];
	memset(g, 0, sizeof *g);
	if (x->ndim < 3 || x->ndim > 5 || w->ndim != x->ndim)
		return -1;
	g->transposed = transposed;
	g->nsp = x->ndim - 2;
	g->n = x->dim[0];
	g->cin = x->dim[1];
	g->groups = (int64_t)krl_attrs_get(a, "groups", 1);
	g->cout = transposed ? w->dim[1] * g->groups : w->dim[0];
	for (int i = 0; i < g->nsp; i++) {
		g->in[i] = x->dim[2 + i];
		g->k[i] = w->dim[2 + i];
		g->stride[i] = (int64_t)spatial_val(a, "stride", g->nsp, i, 1);
		g->pad[i] = (int64_t)spatial_val(a, "padding", g->nsp, i, 0);
		g->dil[i] = (int64_t)spatial_val(a, "dilation", g->nsp, i, 1);
		g->opad[i] = transposed ? (int64_t)spatial_val(a,
		             "output_padding", g->nsp, i, 0) : 0;
		int64_t span = g->dil[i] * (g->k[i] - 1);
		if (transposed)
			g->out[i] = (g->in[i] - 1) * g->stride[i] - 2 * g->pad[i]
			            + span + g->opad[i] + 1;
		else if (g->stride[i] >= 1)
			g->out[i] = (g->in[i] + 2 * g->pad[i] - span - 1 >= 0)
			            ? (g->in[i] + 2 * g->pad[i] - span - 1)
			              / g->stride[i] + 1
			            : 0;
	}
	return 0;
}

/* ==== Checks ==== */

static const char *const k_conv[] = {
	"stride", "stride_d", "stride_h", "stride_w",
	"padding", "padding_d", "padding_h", "padding_w",
	"dilation", "dilation_d", "dilation_h", "dilation_w",
	"groups", "algo", "layout", "w_layout", NULL,
};

static const char *const k_conv_t[] = {
	"stride", "stride_d", "stride_h", "stride_w",
	"padding", "padding_d", "padding_h", "padding_w",
	"dilation", "dilation_d", "dilation_h", "dilation_w",
	"output_padding", "output_padding_d", "output_padding_h",
	"output_padding_w", "groups", "algo", "layout", "w_layout", NULL,
};

/* The smallest value attribute `key` may take (its base name decides), or
 * -1 for a key that is not a spatial attribute. */
static int64_t key_min(const char *key, int *axis)
{
	*axis = 0;
	for (size_t j = 0; j < sizeof k_spatial / sizeof k_spatial[0]; j++) {
		size_t n = strlen(k_spatial[j].name);
		if (strncmp(key, k_spatial[j].name, n) != 0)
			continue;
		if (key[n] == 0)
			return k_spatial[j].min;
		if (key[n] == '_' && key[n + 1] && !key[n + 2] &&
		    strchr(k_axes, key[n + 1])) {
			*axis = key[n + 1];
			return k_spatial[j].min;
		}
	}
	return -1;
}

/* Every attribute: known to the op, an integer in range, and (for a
 * per-dim key) naming a spatial dim that x has. */
static krl_err check_attrs(const char *op, const char *const *names,
                           const krl_tensor *x, const krl_attrs *a,
                           char *msg, size_t cap)
{
	int nsp = x->ndim - 2;
	char sx[KRL_SHAPE_CAP];
	for (int i = 0; a && i < a->n; i++) {
		const char *key = a->key[i] ? a->key[i] : "";
		int ok = 0;
		for (int j = 0; names[j]; j++)
			if (strcmp(key, names[j]) == 0)
				ok = 1;
		if (!ok)
			return krl_ops_check_keys(op, names, a, msg, cap);
		int axis = 0;
		if (strcmp(key, "algo") == 0) {
			krl_err r = krl_ops_need_algo(op, a, msg, cap);
			if (r)
				return r;
			continue;
		}
		if (strcmp(key, "layout") == 0 || strcmp(key, "w_layout") == 0) {
			/* a plan writes a word (the program builder maps it,
			 * krl_attr_words); a caller of the op its index */
			krl_err r = krl_ops_need_word(op, a, key, msg, cap);
			if (r)
				return r;
			continue;
		}
		int64_t lo = strcmp(key, "groups") == 0 ? 1 : key_min(key,
		                                                   &axis);
		double v = a->val[i];
		if (!isfinite(v) || v != floor(v) || v < (double)lo ||
		    v > (double)INT_MAX)
			return krl_ops_fail(msg, cap, "%s: %s=%g must be an integer "
			            ">= %lld", op, key, v, (long long)lo);
		if (axis && strchr(k_axes, axis) - k_axes < 3 - nsp)
			return krl_ops_fail(msg, cap, "%s: %s names the %c dim, but x "
			            "is %s with %d spatial dim%s (%s)", op, key,
			            axis, KRL_SHAPE(x, sx), nsp, nsp == 1 ? "" : "s",
			            nsp == 1 ? "w" : nsp == 2 ? "h, w"
			                                      : "d, h, w");
	}
	return KRL_OK;
}

/* Writes "[a, b, c]" of the first n values into buf, as a shape. */
static const char *list3(const int64_t *v, int n, char *buf, size_t cap)
{
	krl_tensor t;
	memset(&t, 0, sizeof t);
	t.ndim = n;
	for (int i = 0; i < n; i++)
		t.dim[i] = v[i];
	return krl_ops_shape(&t, buf, cap);
}

/*
 * The check shared by the four ops: x [N, Cin, s...], w (conv: [Cout,
 * Cin / groups, k...]; transposed: [Cin, Cout / groups, k...]), optional
 * b [Cout], y [N, Cout, out...] with out computed as PyTorch does, every
 * dim within cuDNN's int range (one sample at most 2^31 - 1 elements:
 * larger batches are split, as PyTorch splits them).
 */
static krl_err check_conv_any(const char *op, int transposed, int bias,
                              const krl_tensor *in, const krl_tensor *out,
                              const krl_attrs *a, char *msg, size_t cap)
{
	const krl_tensor *x = &in[0], *w = &in[1], *y = &out[0];
	char sx[KRL_SHAPE_CAP], sw[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP], s1[96], s2[96];
	krl_err r;
	if ((r = krl_ops_need_dtype(op, "x", x, KRL_F32, msg, cap)) ||
	    (r = krl_ops_need_dtype(op, "w", w, KRL_F32, msg, cap)) ||
	    (bias && (r = krl_ops_need_dtype(op, "b", &in[2], KRL_F32, msg, cap))) ||
	    (r = krl_ops_need_dtype(op, "y", y, KRL_F32, msg, cap)))
		return r;
	if (x->ndim < 3 || x->ndim > 5)
		return krl_ops_fail(msg, cap, "%s: x is %s but must be [N, C, w], "
		            "[N, C, h, w] or [N, C, d, h, w] (rank 3 to 5)", op,
		            KRL_SHAPE(x, sx));
	if ((r = check_attrs(op, transposed ? k_conv_t : k_conv, x, a, msg,
	                     cap)))
		return r;
	double lw = krl_attrs_get(a, "layout", KRL_LAYOUT_NCHW);
	if (krl_attrs_get(a, "w_layout", KRL_WLAYOUT_KCRS) == KRL_WLAYOUT_KRSC &&
	    lw == KRL_LAYOUT_NCHW)
		return krl_ops_fail(msg, cap, "%s: w_layout=krsc gives w in "
		            "cuDNN's channels-last filter format, which only a "
		            "channels-last call reads (layout=nhwc, nhwc_y or "
		            "nhwc_xy)", op);
	if (bias && krl_layout_keeps_y(lw))
		return krl_ops_fail(msg, cap, "%s: layout=%s leaves y "
		            "channels-last for a generated kernel to read; an op "
		            "with a bias does not take it (call %s and add the "
		            "bias in that kernel)", op,
		            lw == KRL_LAYOUT_NHWC_XY ? "nhwc_xy" : "nhwc_y",
		            transposed ? "conv_transpose" : "conv");
	if (w->ndim != x->ndim)
		return krl_ops_fail(msg, cap, "%s: x is %s but w is %s: ranks must be "
		            "equal", op, KRL_SHAPE(x, sx), KRL_SHAPE(w, sw));
	krl_conv_geom g;
	krl_conv_geom_get(transposed, in, a, &g);
	for (int i = 0; i < x->ndim; i++) {
		if (x->dim[i] < 1)
			return krl_ops_fail(msg, cap, "%s: x is %s: every dim must be "
			            ">= 1", op, KRL_SHAPE(x, sx));
		if (w->dim[i] < 1)
			return krl_ops_fail(msg, cap, "%s: w is %s: every dim must be "
			            ">= 1", op, KRL_SHAPE(w, sw));
	}
	if (g.cin % g.groups)
		return krl_ops_fail(msg, cap, "%s: x is %s: its %lld channels are not "
		            "divisible by groups=%lld", op, KRL_SHAPE(x, sx),
		            (long long)g.cin, (long long)g.groups);
	if (!transposed) {
		if (w->dim[1] * g.groups != g.cin)
			return krl_ops_fail(msg, cap, "%s: x is %s and groups=%lld, so w "
			            "must be [Cout, %lld, k...], not %s", op,
			            KRL_SHAPE(x, sx), (long long)g.groups,
			            (long long)(g.cin / g.groups), KRL_SHAPE(w, sw));
		if (g.cout % g.groups)
			return krl_ops_fail(msg, cap, "%s: w is %s: its %lld output "
			            "channels are not divisible by groups=%lld", op,
			            KRL_SHAPE(w, sw), (long long)g.cout,
			            (long long)g.groups);
	} else if (w->dim[0] != g.cin) {
		return krl_ops_fail(msg, cap, "%s: x is %s, so w must be [%lld, Cout / "
		            "groups, k...] (PyTorch's ConvTranspose layout), not "
		            "%s", op, KRL_SHAPE(x, sx), (long long)g.cin,
		            KRL_SHAPE(w, sw));
	}
	for (int i = 0; i < g.nsp; i++) {
		char ax = k_axes[3 - g.nsp + i];
		if (transposed && g.opad[i] >= g.stride[i])
			return krl_ops_fail(msg, cap, "%s: output_padding_%c=%lld must be "
			            "smaller than stride_%c=%lld", op, ax,
			            (long long)g.opad[i], ax,
			            (long long)g.stride[i]);
		if (g.out[i] < 1) {
			if (transposed)
				return krl_ops_fail(msg, cap, "%s: x is %s and w is %s: "
				            "padding_%c=%lld leaves no output along "
				            "%c", op, KRL_SHAPE(x, sx), KRL_SHAPE(w, sw), ax,
				            (long long)g.pad[i], ax);
			return krl_ops_fail(msg, cap, "%s: x is %s and w is %s: the "
			            "kernel spans %lld along %c (dilation %lld) "
			            "but the padded input has %lld", op,
			            KRL_SHAPE(x, sx), KRL_SHAPE(w, sw),
			            (long long)(g.dil[i] * (g.k[i] - 1) + 1), ax,
			            (long long)g.dil[i],
			            (long long)(g.in[i] + 2 * g.pad[i]));
		}
	}
	if (bias) {
		const krl_tensor *b = &in[2];
		if (b->ndim != 1 || b->dim[0] != g.cout)
			return krl_ops_fail(msg, cap, "%s: b is %s but must be [%lld] "
			            "(one per output channel)", op, KRL_SHAPE(b, sw),
			            (long long)g.cout);
	}
	int ok = y->ndim == x->ndim && y->dim[0] == g.n && y->dim[1] == g.cout;
	for (int i = 0; ok && i < g.nsp; i++)
		ok = y->dim[2 + i] == g.out[i];
	if (!ok) {
		krl_tensor want = *x;
		want.dim[1] = g.cout;
		for (int i = 0; i < g.nsp; i++)
			want.dim[2 + i] = g.out[i];
		char swant[KRL_SHAPE_CAP];
		return krl_ops_fail(msg, cap, "%s: y is %s but x %s, w %s with stride "
		            "%s and padding %s gives %s", op, KRL_SHAPE(y, sy),
		            KRL_SHAPE(x, sx), KRL_SHAPE(w, sw),
		            list3(g.stride, g.nsp, s1, sizeof s1),
		            list3(g.pad, g.nsp, s2, sizeof s2),
		            KRL_SHAPE(&want, swant));
	}
	const krl_tensor *big[2] = { x, y };
	for (int j = 0; j < 2; j++) {
		int64_t per = krl_ops_prod(big[j], 1, big[j]->ndim);
		if (per > INT_MAX)
			return krl_ops_fail(msg, cap, "%s: %s is %s: one sample has %lld "
			            "elements, more than cuDNN's 2^31 - 1", op,
			            j ? "y" : "x", KRL_SHAPE(big[j], sx),
			            (long long)per);
	}
	if (krl_tensor_numel(w) > INT_MAX)
		return krl_ops_fail(msg, cap, "%s: w is %s: more than 2^31 - 1 "
		            "elements", op, KRL_SHAPE(w, sw));
	return KRL_OK;
}

static krl_err check_conv(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	return check_conv_any("conv", 0, 0, in, out, a, msg, cap);
}

static krl_err check_conv_bias(const krl_tensor *in, const krl_tensor *out,
                               const krl_attrs *a, char *msg, size_t cap)
{
	return check_conv_any("conv_bias", 0, 1, in, out, a, msg, cap);
}

static krl_err check_conv_transpose(const krl_tensor *in,
                                   const krl_tensor *out,
                                   const krl_attrs *a, char *msg,
                                   size_t cap)
{
	return check_conv_any("conv_transpose", 1, 0, in, out, a, msg, cap);
}

static krl_err check_conv_transpose_bias(const krl_tensor *in,
                                        const krl_tensor *out,
                                        const krl_attrs *a, char *msg,
                                        size_t cap)
{
	return check_conv_any("conv_transpose_bias", 1, 1, in, out, a, msg,
	                      cap);
}

/* ==== Golden ==== */

/*
 * Direct float64 loops over every (sample, output channel, output point)
 * for conv, and over every (input point, weight tap) scattering into y for
 * conv_transpose (its definition: x[n, ci, i] * w[ci, co, k] lands on
 * y[n, g * Cout/g + co, i * stride - padding + k * dilation]). 1D and 2D
 * run as 3D with unit leading spatial dims. Slow: for tiny shapes only.
 */
static krl_err golden_conv_any(int transposed, const krl_tensor *in,
                               const krl_tensor *out, const krl_attrs *a,
                               int bias)
{
	krl_conv_geom g;
	krl_conv_geom_get(transposed, in, a, &g);
	int64_t I[3] = { 1, 1, 1 }, K[3] = { 1, 1, 1 }, O[3] = { 1, 1, 1 };
	int64_t S[3] = { 1, 1, 1 }, P[3] = { 0, 0, 0 }, L[3] = { 1, 1, 1 };
	for (int i = 0; i < g.nsp; i++) {
		int j = 3 - g.nsp + i;
		I[j] = g.in[i];
		K[j] = g.k[i];
		O[j] = g.out[i];
		S[j] = g.stride[i];
		P[j] = g.pad[i];
		L[j] = g.dil[i];
	}
	const double *x = D(&in[0]), *w = D(&in[1]);
	const double *b = bias ? D(&in[2]) : NULL;
	double *y = D(&out[0]);
	int64_t cig = g.cin / g.groups, cog = g.cout / g.groups;
	int64_t isz = I[0] * I[1] * I[2], osz = O[0] * O[1] * O[2];
	int64_t ksz = K[0] * K[1] * K[2];
	double lw = krl_attrs_get(a, "layout", KRL_LAYOUT_NCHW);
	double *xn = NULL, *wn = NULL;
	if (krl_attrs_get(a, "w_layout", KRL_WLAYOUT_KCRS) == KRL_WLAYOUT_KRSC) {
		/* w's memory [A, k..., B] (A, B its first two dims): a copy in
		 * its own order */
		int64_t A = in[1].dim[0], B = in[1].dim[1];
		wn = malloc((size_t)(A * B * ksz) * sizeof *wn);
		if (!wn)
			return KRL_ENOMEM;
		for (int64_t i = 0; i < A; i++)
			for (int64_t j = 0; j < B; j++)
				for (int64_t t = 0; t < ksz; t++)
					wn[(i * B + j) * ksz + t] = w[(i * ksz + t) * B + j];
		w = wn;
	}
	if (lw == KRL_LAYOUT_NHWC_XY) {
		/* x's memory channels-last, [N, s..., C]: an NCHW copy */
		xn = malloc((size_t)(g.n * g.cin * isz) * sizeof *xn);
		if (!xn) {
			free(wn);
			return KRL_ENOMEM;
		}
		for (int64_t n = 0; n < g.n; n++)
			for (int64_t c = 0; c < g.cin; c++)
				for (int64_t p = 0; p < isz; p++)
					xn[(n * g.cin + c) * isz + p] =
						x[(n * isz + p) * g.cin + c];
		x = xn;
	}
	for (int64_t n = 0; n < g.n; n++)
		for (int64_t co = 0; co < g.cout; co++)
			for (int64_t p = 0; p < osz; p++)
				y[(n * g.cout + co) * osz + p] = b ? b[co] : 0;
	for (int64_t n = 0; n < g.n; n++)
	for (int64_t gr = 0; gr < g.groups; gr++)
	for (int64_t ci = 0; ci < cig; ci++)
	for (int64_t co = 0; co < cog; co++) {
		int64_t cx = gr * cig + ci, cy = gr * cog + co;
		const double *xp = x + (n * g.cin + cx) * isz;
		double *yp = y + (n * g.cout + cy) * osz;
		const double *wp = transposed ? w + (cx * cog + co) * ksz
		                              : w + (cy * cig + ci) * ksz;
		/* conv: walk outputs; transposed: walk inputs (scatter) */
		int64_t A[3], B[3];
		for (int j = 0; j < 3; j++) {
			A[j] = transposed ? I[j] : O[j];
			B[j] = transposed ? O[j] : I[j];
		}
		for (int64_t p0 = 0; p0 < A[0]; p0++)
		for (int64_t p1 = 0; p1 < A[1]; p1++)
		for (int64_t p2 = 0; p2 < A[2]; p2++)
		for (int64_t k0 = 0; k0 < K[0]; k0++)
		for (int64_t k1 = 0; k1 < K[1]; k1++)
		for (int64_t k2 = 0; k2 < K[2]; k2++) {
			int64_t q0 = p0 * S[0] - P[0] + k0 * L[0];
			int64_t q1 = p1 * S[1] - P[1] + k1 * L[1];
			int64_t q2 = p2 * S[2] - P[2] + k2 * L[2];
			if (q0 < 0 || q0 >= B[0] || q1 < 0 || q1 >= B[1] ||
			    q2 < 0 || q2 >= B[2])
				continue;
			double wv = wp[(k0 * K[1] + k1) * K[2] + k2];
			int64_t pa = (p0 * A[1] + p1) * A[2] + p2;
			int64_t qb = (q0 * B[1] + q1) * B[2] + q2;
			if (transposed)
				yp[qb] += xp[pa] * wv;
			else
				yp[pa] += xp[qb] * wv;
		}
	}
	free(xn);
	free(wn);
	if (!krl_layout_keeps_y(lw))
		return KRL_OK;
	/* layout=nhwc_y or nhwc_xy: y's memory channels-last, [N, s..., C] */
	size_t per = (size_t)(g.cout * osz);
	double *t = malloc(per * sizeof *t);
	if (!t)
		return KRL_ENOMEM;
	for (int64_t n = 0; n < g.n; n++) {
		double *yn = y + n * (int64_t)per;
		memcpy(t, yn, per * sizeof *t);
		for (int64_t co = 0; co < g.cout; co++)
			for (int64_t p = 0; p < osz; p++)
				yn[p * g.cout + co] = t[co * osz + p];
	}
	free(t);
	return KRL_OK;
}

static krl_err golden_conv(const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a)
{
	return golden_conv_any(0, in, out, a, 0);
}

static krl_err golden_conv_bias(const krl_tensor *in, const krl_tensor *out,
                                const krl_attrs *a)
{
	return golden_conv_any(0, in, out, a, 1);
}

static krl_err golden_conv_transpose(const krl_tensor *in,
                                     const krl_tensor *out,
                                     const krl_attrs *a)
{
	return golden_conv_any(1, in, out, a, 0);
}

static krl_err golden_conv_transpose_bias(const krl_tensor *in,
                                          const krl_tensor *out,
                                          const krl_attrs *a)
{
	return golden_conv_any(1, in, out, a, 1);
}

/* ==== Sequential sums (krl_op.seq_len) ==== */

/* cuDNN's implicit GEMM sums an output's Cin / groups channels times the
 * taps that reach it in order: all of them for conv; for conv_transpose
 * about ceil(k / stride) a spatial dim (the input points i with i stride
 * + k' dilation - padding on it). */
static int64_t seq_conv_any(int transposed, const krl_tensor *in,
                            const krl_attrs *a)
{
	krl_conv_geom g;
	if (krl_conv_geom_get(transposed, in, a, &g) != 0 || g.groups < 1)
		return 0;
	int64_t n = g.cin / g.groups;
	for (int i = 0; i < g.nsp; i++) {
		int64_t s = transposed && g.stride[i] > 1 ? g.stride[i] : 1;
		n *= (g.k[i] + s - 1) / s;
	}
	return n;
}

static int64_t seq_conv(const krl_tensor *in, const krl_tensor *out,
                        const krl_attrs *a)
{
	(void)out;
	return seq_conv_any(0, in, a);
}

static int64_t seq_conv_transpose(const krl_tensor *in, const krl_tensor *out,
                                  const krl_attrs *a)
{
	(void)out;
	return seq_conv_any(1, in, a);
}

#define seq_conv_bias seq_conv
#define seq_conv_transpose_bias seq_conv_transpose

/* ==== TF32 (krl_op.tf32) ==== */

/* cuDNN multiplies in TF32 where the tier allows it; a depthwise
 * convolution (not transposed, groups == Cin > 1) runs kernelrl's own
 * fp32 kernel instead (run.c), as PyTorch's conv_depthwise2d does. */
static int tf32_conv(const krl_tensor *in, const krl_tensor *out,
                     const krl_attrs *a)
{
	(void)out;
	krl_conv_geom g;
	return krl_conv_geom_get(0, in, a, &g) == 0 && !krl_conv_is_depthwise(&g);
}

static int tf32_conv_transpose(const krl_tensor *in, const krl_tensor *out,
                               const krl_attrs *a)
{
	(void)in;
	(void)out;
	(void)a;
	return 1;
}

#define tf32_conv_bias tf32_conv
#define tf32_conv_transpose_bias tf32_conv_transpose

/* ==== Table ==== */

/* Table rows: one declaration per op, the same shape by design (a row is
 * the op's name, arity, attribute keys, caps and doc; duplicates lists them
 * as twins, deliberately). */

#define CONV_FWD (KRL_OPCAP_LIBRARY | KRL_OPCAP_ALGO | KRL_OPCAP_LAYOUT | \
                  KRL_OPCAP_DEPTHWISE)
#define CONV_BWD (KRL_OPCAP_LIBRARY | KRL_OPCAP_ALGO | KRL_OPCAP_LAYOUT | \
                  KRL_OPCAP_TCONV)
#define CONV_OP(nm, ni, keys, caps, dc) \
	KRL_OP_LIB(nm, ni, 1, keys, "conv", caps, NULL, seq_##nm, tf32_##nm, dc)

CONV_OP(conv, 2, k_conv, CONV_FWD, "y = conv(x, w) as torch.nn.ConvNd (1D-3D by "
        "rank; stride, padding, dilation, groups); cuDNN, TF32 allowed "
        "(depthwise, groups = Cin: PyTorch's exact fp32 kernel)");
CONV_OP(conv_bias, 3, k_conv, CONV_FWD, "y = conv(x, w) + b[channel], as conv");
CONV_OP(conv_transpose, 2, k_conv_t, CONV_BWD, "y = conv_transpose(x, w) as "
        "torch.nn.ConvTransposeNd (w [Cin, Cout/groups, k...]; plus "
        "output_padding); cuDNN backward-data, TF32 allowed");
CONV_OP(conv_transpose_bias, 3, k_conv_t, CONV_BWD, "y = conv_transpose(x, w) + "
        "b[channel], as conv_transpose");

static const krl_op *const ops[] = {
	&op_conv, &op_conv_bias, &op_conv_transpose, &op_conv_transpose_bias,
	NULL,
};

const krl_op_family krl_family_conv = {
	"conv", ops, KRL_RUNFN(krl_conv_state_free),
};
