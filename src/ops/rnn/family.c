/*
 * kernelrl: the op family "rnn" (docs/ops-rnn.md): lstm, gru and
 * rnn_tanh, the multi-layer, optionally bidirectional recurrent layers
 * nn.LSTM, nn.GRU and nn.RNN (tanh), as PyTorch runs them on CUDA (one
 * cuDNN RNN forward call).
 *
 * This file is CPU code only: the table, the weight layout both sides
 * share (rnn.h), every op's check and its float64 golden version. The GPU
 * drivers are in run.c, named here through KRL_RUNFN so that the fuzzers
 * can build the table without GPU code.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops_int.h"
#include "ops/rnn/rnn.h"

#define D(t) ((double *)(t)->data)

/* cuDNN's sizes are int32. */
#define RNN_MAX_DIM 2147483647.0

/* Most stacked layers a call may ask for (cuDNN's limit is far above
 * what any network stacks). */
#define RNN_MAX_LAYERS 64

/* ==== Layout (rnn.h) ==== */

krl_rnn_geom krl_rnn_geom_of(int gates, const krl_tensor *in,
                             const krl_attrs *a)
{
	krl_rnn_geom g;
	g.gates = gates;
	g.batch_first = krl_attrs_get(a, "batch_first", 0) != 0;
	g.dirs = krl_attrs_get(a, "bidirectional", 0) != 0 ? 2 : 1;
	g.layers = (int)krl_attrs_get(a, "layers", 1);
	g.T = in[0].dim[g.batch_first ? 1 : 0];
	g.B = in[0].dim[g.batch_first ? 0 : 1];
	g.I = in[0].dim[2];
	g.H = in[1].dim[2];
	g.rec = (int)krl_attrs_get(a, "recurrence", KRL_REC_STANDARD);
	return g;
}

int64_t krl_rnn_layer_in(const krl_rnn_geom *g, int l)
{
	return l == 0 ? g->I : g->dirs * g->H;
}

/* Matrix elements of pseudo-layer p: its input and recurrent matrices. */
static int64_t mats_size(const krl_rnn_geom *g, int p)
{
	int64_t in = krl_rnn_layer_in(g, p / g->dirs), gh = g->gates * g->H;
	return gh * in + gh * g->H;
}

/* Where pseudo-layer p's matrices start: after those of 0 .. p-1. */
static int64_t mats_base(const krl_rnn_geom *g, int p)
{
	int64_t off = 0;
	for (int q = 0; q < p; q++)
		off += mats_size(g, q);
	return off;
}

int64_t krl_rnn_mat_off(const krl_rnn_geom *g, int p, int lin)
{
	int64_t in = krl_rnn_layer_in(g, p / g->dirs), b = mats_base(g, p);
	if (lin < g->gates)
		return b + (int64_t)lin * g->H * in;
	return b + (int64_t)g->gates * g->H * in +
	       (int64_t)(lin - g->gates) * g->H * g->H;
}

int64_t krl_rnn_bias_off(const krl_rnn_geom *g, int p, int lin)
{
	int64_t gh = g->gates * g->H;
	return mats_base(g, g->layers * g->dirs) + (int64_t)p * 2 * gh +
	       (int64_t)lin * g->H;
}

int64_t krl_rnn_weight_count(const krl_rnn_geom *g)
{
	return mats_base(g, g->layers * g->dirs) +
	       (int64_t)g->layers * g->dirs * 2 * g->gates * g->H;
}

/* ==== Check ==== */

static const char *const k_rnn[] = { "layers", "hidden", "bidirectional",
	"batch_first", "recurrence", NULL };

/* lstm (gates 4, with c0/cy), gru (gates 3) and rnn_tanh (gates 1): x [T, B, I] (batch_first:
 * [B, T, I]), h0 [layers * dirs, B, H] (c0 the same), w the flat weight
 * (rnn.h's layout) -> y [T, B, dirs * H] (seq-major always, as cuDNN
 * writes it; a batch_first model's output is its transposed view), hy
 * (cy) shaped as h0. */
static krl_err check_rnn(const char *op, int gates, const krl_tensor *in,
                         const krl_tensor *out, const krl_attrs *a,
                         char *msg, size_t cap)
{
	int lstm = gates == 4;
	const krl_tensor *x = &in[0], *h0 = &in[1], *w = &in[lstm ? 3 : 2];
	const krl_tensor *y = &out[0];
	char s1[KRL_SHAPE_CAP], s2[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_rnn, a, msg, cap)) ||
	    (r = krl_ops_need_flag(op, a, "bidirectional", msg, cap)) ||
	    (r = krl_ops_need_flag(op, a, "batch_first", msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap, "x", x, "h0", h0, "w", w,
	                          "y", y, "hy", &out[1], NULL)))
		return r;
	if (lstm && (r = krl_ops_need_f32(op, msg, cap, "c0", &in[2], "cy",
	                                  &out[2], NULL)))
		return r;
	if ((r = krl_ops_need_word(op, a, "recurrence", msg, cap)))
		return r;
	double nl = krl_attrs_get(a, "layers", 1);
	if (nl != floor(nl) || nl < 1 || nl > RNN_MAX_LAYERS)
		return krl_ops_fail(msg, cap, "%s: layers=%g must be an integer "
		                    "from 1 to %d", op, nl, RNN_MAX_LAYERS);
	if (x->ndim != 3)
		return krl_ops_fail(msg, cap, "%s: x is %s but must be 3-D ([T, "
		                    "B, I], or [B, T, I] with batch_first=1)",
		                    op, KRL_SHAPE(x, s1));
	if (h0->ndim != 3)
		return krl_ops_fail(msg, cap, "%s: h0 is %s but must be 3-D "
		                    "([layers * dirs, B, H])", op,
		                    KRL_SHAPE(h0, s1));
	for (int i = 0; i < 3; i++)
		if (x->dim[i] < 1 || (double)x->dim[i] > RNN_MAX_DIM ||
		    h0->dim[i] < 1 || (double)h0->dim[i] > RNN_MAX_DIM)
			return krl_ops_fail(msg, cap, "%s: x %s and h0 %s must "
			                    "have sizes from 1 to 2^31 - 1", op,
			                    KRL_SHAPE(x, s1), KRL_SHAPE(h0, s2));
	krl_rnn_geom g = krl_rnn_geom_of(gates, in, a);
	if (krl_ops_attr_has(a, "hidden") &&
	    krl_attrs_get(a, "hidden", 0) != (double)g.H)
		return krl_ops_fail(msg, cap, "%s: hidden=%g but h0 is %s (H = "
		                    "%lld)", op, krl_attrs_get(a, "hidden", 0),
		                    KRL_SHAPE(h0, s1), (long long)g.H);
	if (h0->dim[0] != (int64_t)g.layers * g.dirs || h0->dim[1] != g.B)
		return krl_ops_fail(msg, cap, "%s: h0 is %s but must be [%d, "
		                    "%lld, H] (layers * dirs, the batch of x %s)",
		                    op, KRL_SHAPE(h0, s1), g.layers * g.dirs,
		                    (long long)g.B, KRL_SHAPE(x, s2));
	if (lstm && !krl_ops_same_shape(&in[2], h0))
		return krl_ops_fail(msg, cap, "%s: c0 is %s but must be h0's "
		                    "shape %s", op, KRL_SHAPE(&in[2], s1),
		                    KRL_SHAPE(h0, s2));
	int64_t nw = krl_rnn_weight_count(&g);
	if (w->ndim != 1 || w->dim[0] != nw)
		return krl_ops_fail(msg, cap, "%s: w is %s but the flat weight of "
		                    "%d layer(s), %d direction(s), I = %lld, H = "
		                    "%lld must be [%lld]", op, KRL_SHAPE(w, s1),
		                    g.layers, g.dirs, (long long)g.I,
		                    (long long)g.H, (long long)nw);
	krl_tensor want = *x;
	want.dim[0] = g.T;
	want.dim[1] = g.B;
	want.dim[2] = g.dirs * g.H;
	if (!krl_ops_same_shape(y, &want))
		return krl_ops_fail(msg, cap, "%s: y is %s but must be %s ([T, B, "
		                    "dirs * H], seq-major even with "
		                    "batch_first=1)", op, KRL_SHAPE(y, s1),
		                    KRL_SHAPE(&want, s2));
	for (int k = 1; k < (lstm ? 3 : 2); k++)
		if (!krl_ops_same_shape(&out[k], h0))
			return krl_ops_fail(msg, cap, "%s: %s is %s but must be "
			                    "h0's shape %s", op, k == 1 ? "hy" :
			                    "cy", KRL_SHAPE(&out[k], s1),
			                    KRL_SHAPE(h0, s2));
	return KRL_OK;
}

static krl_err check_lstm(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	return check_rnn("lstm", 4, in, out, a, msg, cap);
}

static krl_err check_gru(const krl_tensor *in, const krl_tensor *out,
                         const krl_attrs *a, char *msg, size_t cap)
{
	return check_rnn("gru", 3, in, out, a, msg, cap);
}

static krl_err check_rnn_tanh(const krl_tensor *in, const krl_tensor *out,
                              const krl_attrs *a, char *msg, size_t cap)
{
	return check_rnn("rnn_tanh", 1, in, out, a, msg, cap);
}

/* ==== Golden ==== */

static double sigm(double v)
{
	return 1.0 / (1.0 + exp(-v));
}

/* One direction of one layer: xs [T, B, in] -> ys [T, B, dirs * H] at
 * feature offset dir * H, from h (and c for LSTM) [B, H], which end as
 * the final state. acc [gates * H] and hn [B, H] are room. */
static void run_dir(const krl_rnn_geom *g, const double *w, int p,
                    const double *xs, double *ys, double *h, double *c,
                    double *acc, double *hn)
{
	int G = g->gates, dir = p % g->dirs;
	int64_t H = g->H, in = krl_rnn_layer_in(g, p / g->dirs);
	const double *W = w + krl_rnn_mat_off(g, p, 0);
	const double *R = w + krl_rnn_mat_off(g, p, G);
	const double *bW = w + krl_rnn_bias_off(g, p, 0);
	const double *bR = w + krl_rnn_bias_off(g, p, G);
	for (int64_t s = 0; s < g->T; s++) {
		int64_t t = dir ? g->T - 1 - s : s;
		for (int64_t b = 0; b < g->B; b++) {
			const double *xv = xs + (t * g->B + b) * in;
			const double *hv = h + b * H;
			/* acc: W x + b_W per gate row, then the recurrent
			 * part added (LSTM, GRU r and z) or kept apart
			 * (GRU n: hn's row is r * (R_n h + b_Rn)) */
			for (int64_t k = 0; k < G * H; k++) {
				double wx = bW[k], rh = bR[k];
				for (int64_t i = 0; i < in; i++)
					wx += W[k * in + i] * xv[i];
				for (int64_t m = 0; m < H; m++)
					rh += R[k * H + m] * hv[m];
				acc[k] = wx;
				if (G == 3 && k >= 2 * H)
					hn[b * H + (k - 2 * H)] = rh;
				else
					acc[k] += rh;
			}
			double *yv = ys + (t * g->B + b) * g->dirs * H + dir * H;
			for (int64_t j = 0; j < H; j++) {
				double hnew;
				if (G == 1) {
					hnew = tanh(acc[j]);
				} else if (G == 4) {
					double ig = sigm(acc[j]);
					double fg = sigm(acc[H + j]);
					double gg = tanh(acc[2 * H + j]);
					double og = sigm(acc[3 * H + j]);
					double cn = fg * c[b * H + j] + ig * gg;
					c[b * H + j] = cn;
					hnew = og * tanh(cn);
				} else {
					double rg = sigm(acc[j]);
					double zg = sigm(acc[H + j]);
					double ng = tanh(acc[2 * H + j] +
					                 rg * hn[b * H + j]);
					hnew = (1.0 - zg) * ng + zg * hv[j];
				}
				yv[j] = hnew;
			}
		}
		/* the new h of every sequence, read back from y */
		for (int64_t b = 0; b < g->B; b++)
			memcpy(h + b * H,
			       ys + (t * g->B + b) * g->dirs * H + dir * H,
			       (size_t)H * sizeof(double));
	}
}

/* KRL_ENOMEM when the host has no room for the layers' activations. */
static krl_err golden_rnn(int gates, const krl_tensor *in,
                          const krl_tensor *out, const krl_attrs *a)
{
	int lstm = gates == 4;
	krl_rnn_geom g = krl_rnn_geom_of(gates, in, a);
	const double *w = D(&in[lstm ? 3 : 2]);
	int64_t T = g.T, B = g.B, H = g.H, wide = g.dirs * H;
	int64_t inmax = g.I > wide ? g.I : wide;
	double *xs = malloc((size_t)(T * B * inmax) * sizeof(double));
	double *ys = malloc((size_t)(T * B * wide) * sizeof(double));
	double *acc = malloc((size_t)(gates * H) * sizeof(double));
	double *hn = malloc((size_t)(B * H) * sizeof(double));
	double *c = malloc((size_t)(B * H) * sizeof(double));
	krl_err r = KRL_OK;
	if (!xs || !ys || !acc || !hn || !c) {
		r = KRL_ENOMEM;
		goto done;
	}
	for (int64_t t = 0; t < T; t++)
		for (int64_t b = 0; b < B; b++)
			memcpy(xs + (t * B + b) * g.I,
			       D(&in[0]) + (g.batch_first ? b * T + t :
			                                   t * B + b) * g.I,
			       (size_t)g.I * sizeof(double));
	for (int l = 0; l < g.layers; l++) {
		for (int dir = 0; dir < g.dirs; dir++) {
			int p = l * g.dirs + dir;
			double *h = D(&out[1]) + (int64_t)p * B * H;
			memcpy(h, D(&in[1]) + (int64_t)p * B * H,
			       (size_t)(B * H) * sizeof(double));
			if (lstm)
				memcpy(c, D(&in[2]) + (int64_t)p * B * H,
				       (size_t)(B * H) * sizeof(double));
			run_dir(&g, w, p, xs, ys, h, c, acc, hn);
			if (lstm)
				memcpy(D(&out[2]) + (int64_t)p * B * H, c,
				       (size_t)(B * H) * sizeof(double));
		}
		memcpy(xs, ys, (size_t)(T * B * wide) * sizeof(double));
	}
	memcpy(D(&out[0]), ys, (size_t)(T * B * wide) * sizeof(double));
done:
	free(xs);
	free(ys);
	free(acc);
	free(hn);
	free(c);
	return r;
}

static krl_err golden_lstm(const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a)
{
	return golden_rnn(4, in, out, a);
}

static krl_err golden_gru(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a)
{
	return golden_rnn(3, in, out, a);
}

static krl_err golden_rnn_tanh(const krl_tensor *in, const krl_tensor *out,
                               const krl_attrs *a)
{
	return golden_rnn(1, in, out, a);
}

/* ==== Table ==== */

/* recurrence= (standard, infer, persist, small_h): cuDNN's RNN algorithm
 * and forward mode (rnn.h); the outputs are the same, only the time is
 * not (docs/ops-rnn.md). The goldens ignore it. */
#define RNN_CAPS (KRL_OPCAP_LIBRARY | KRL_OPCAP_RECURRENCE)

KRL_OP(lstm, 4, 3, k_rnn, "rnn", RNN_CAPS, NULL,
       "y, hy, cy = nn.LSTM(x, (h0, c0)) with layers= (1), hidden= (H, "
       "from h0), bidirectional= and batch_first= (0/1): x [T, B, I] ([B, "
       "T, I] batch_first), h0/c0/hy/cy [layers*dirs, B, H], y [T, B, "
       "dirs*H] seq-major always, w the flat cuDNN/PyTorch weight "
       "(docs/ops-rnn.md), gates i, f, g, o; cuDNN, TF32 allowed; "
       "recurrence= standard (PyTorch's), infer, persist or small_h");
KRL_OP(gru, 3, 2, k_rnn, "rnn", RNN_CAPS, NULL,
       "y, hy = nn.GRU(x, h0) with layers= (1), hidden= (H, from h0), "
       "bidirectional= and batch_first= (0/1): x [T, B, I] ([B, T, I] "
       "batch_first), h0/hy [layers*dirs, B, H], y [T, B, dirs*H] "
       "seq-major always, w the flat cuDNN/PyTorch weight "
       "(docs/ops-rnn.md), gates r, z, n with n = tanh(W_n x + b_Wn + r * "
       "(R_n h + b_Rn)); cuDNN, TF32 allowed; recurrence= standard "
       "(PyTorch's), infer, persist or small_h");

KRL_OP(rnn_tanh, 3, 2, k_rnn, "rnn", RNN_CAPS, NULL,
       "y, hy = nn.RNN(x, h0) with nonlinearity tanh, layers= (1), "
       "hidden= (H, from h0), bidirectional= and batch_first= (0/1): h = "
       "tanh(W x + b_W + R h + b_R); x [T, B, I] ([B, T, I] batch_first), "
       "h0/hy [layers*dirs, B, H], y [T, B, dirs*H] seq-major always, w "
       "the flat cuDNN/PyTorch weight (docs/ops-rnn.md); cuDNN in fp32 "
       "math, no TF32 (it stands for fp32 nn.Linear steps: level 3's 34); "
       "recurrence= standard, infer, persist or small_h");

static const krl_op *const ops[] = {
	&op_lstm, &op_gru, &op_rnn_tanh, NULL
};

const krl_op_family krl_family_rnn = {
	"rnn", ops, KRL_RUNFN(krl_rnn_state_free),
};
