/*
 * CPU tests of the "rnn" op family (src/ops/rnn/family.c): lstm, gru and
 * rnn_tanh against values worked out here with scalar cell formulas (H = 1, so
 * every weight is one number at the offset docs/ops-rnn.md gives): one
 * and two steps of an LSTM and a GRU (the GRU's reset gate multiplying
 * R_n h + b_Rn, not h), a bidirectional LSTM over two steps (the reverse
 * direction starting at the last step), two stacked GRU layers,
 * batch_first against the seq-major call on the transposed x, the flat
 * weight's size for KernelBench's 6-layer LSTM (PyTorch's parameter
 * count), and the checks rejecting bad calls with the sentence asserted;
 * rnn_tanh at I = 2, H = 2, B = 2 over three steps against the matrix
 * formula h' = tanh(W x + b_W + R h + b_R) written out here.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "krl/ops.h"
#include "optest.h"
#include "testutil.h"

#define TEN optest_tensor
#define A(...) optest_attrs(__VA_ARGS__)

static double sg(double v)
{
	return 1.0 / (1.0 + exp(-v));
}

/* One LSTM step with H = I = 1: gates from w[0..3] (W), w[4..7] (R),
 * w[8..11] (b_W), w[12..15] (b_R); x may be 2 features (I = 2: W are
 * w[0..7] pairs, the rest shifted) when i2 is set. */
static void lstm1(const double *W, const double *R, const double *bW,
                  const double *bR, double x, double *h, double *c)
{
	double a[4];
	for (int k = 0; k < 4; k++)
		a[k] = W[k] * x + bW[k] + R[k] * *h + bR[k];
	double cn = sg(a[1]) * *c + sg(a[0]) * tanh(a[2]);
	*h = sg(a[3]) * tanh(cn);
	*c = cn;
}

static void gru1(const double *W, const double *R, const double *bW,
                 const double *bR, double x, double *h)
{
	double r = sg(W[0] * x + bW[0] + R[0] * *h + bR[0]);
	double z = sg(W[1] * x + bW[1] + R[1] * *h + bR[1]);
	double n = tanh(W[2] * x + bW[2] + r * (R[2] * *h + bR[2]));
	*h = (1 - z) * n + z * *h;
}

static void test_registry(void **state)
{
	(void)state;
	const krl_op *l = krl_op_find("lstm"), *g = krl_op_find("gru");
	assert_non_null(l);
	assert_non_null(g);
	assert_string_equal(l->family, "rnn");
	assert_string_equal(g->family, "rnn");
	assert_int_equal(l->nin, 4);
	assert_int_equal(l->nout, 3);
	assert_int_equal(g->nin, 3);
	assert_int_equal(g->nout, 2);
	assert_int_equal(l->caps, KRL_OPCAP_LIBRARY | KRL_OPCAP_RECURRENCE);
	assert_int_equal(g->caps, KRL_OPCAP_LIBRARY | KRL_OPCAP_RECURRENCE);
}

/* LSTM, one layer, H = I = B = 1, T = 1 and 2. */
static void test_lstm_steps(void **state)
{
	(void)state;
	double w[16] = { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8,
		         0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08 };
	/* worked by hand: a = (0.41, 0.58, 0.75, 0.92) */
	double h = 0.5, c = 0.25;
	double c1 = sg(0.58) * 0.25 + sg(0.41) * tanh(0.75);
	double h1 = sg(0.92) * tanh(c1);
	lstm1(w, w + 4, w + 8, w + 12, 1.0, &h, &c);
	assert_true(fabs(h - h1) < 1e-15 && fabs(c - c1) < 1e-15);
	double x[2] = { 1.0, -2.0 }, h0 = 0.5, c0 = 0.25, y[2], hy, cy;
	krl_tensor in[4] = { TEN(x, 3, I(1), I(1), I(1)),
		             TEN(&h0, 3, I(1), I(1), I(1)),
		             TEN(&c0, 3, I(1), I(1), I(1)),
		             TEN(w, 1, I(16)) };
	krl_tensor out[3] = { TEN(y, 3, I(1), I(1), I(1)),
		              TEN(&hy, 3, I(1), I(1), I(1)),
		              TEN(&cy, 3, I(1), I(1), I(1)) };
	krl_attrs a = A(0);
	optest_golden("lstm", in, out, &a);
	assert_true(fabs(y[0] - h1) < 1e-14 && fabs(hy - h1) < 1e-14 &&
	            fabs(cy - c1) < 1e-14);
	/* two steps: the second starts from the first's h and c */
	in[0] = TEN(x, 3, I(2), I(1), I(1));
	out[0] = TEN(y, 3, I(2), I(1), I(1));
	optest_golden("lstm", in, out, &a);
	double h2 = h1, c2 = c1;
	lstm1(w, w + 4, w + 8, w + 12, -2.0, &h2, &c2);
	assert_true(fabs(y[0] - h1) < 1e-14 && fabs(y[1] - h2) < 1e-14 &&
	            fabs(hy - h2) < 1e-14 && fabs(cy - c2) < 1e-14);
}

/* GRU, one layer, H = I = B = 1, T = 2; b_Rn and r < 1 make r * (R_n h +
 * b_Rn) differ from R_n (r * h) + b_Rn. */
static void test_gru_steps(void **state)
{
	(void)state;
	double w[12] = { 0.3, -0.2, 0.9, 0.4, 0.7, -1.1,
		         0.05, -0.1, 0.2, 0.3, 0.15, 0.6 };
	/* step 1 by hand: r = sg(0.3 + 0.05 + 0.4 * 0.5 + 0.3) = sg(0.85),
	 * z = sg(-0.2 - 0.1 + 0.35 + 0.15) = sg(0.2),
	 * n = tanh(0.9 + 0.2 + r * (-0.55 + 0.6)) */
	double r = sg(0.85), z = sg(0.2), n = tanh(1.1 + r * 0.05);
	double h1 = (1 - z) * n + z * 0.5;
	double x[2] = { 1.0, 0.5 }, h0 = 0.5, y[2], hy;
	krl_tensor in[3] = { TEN(x, 3, I(2), I(1), I(1)),
		             TEN(&h0, 3, I(1), I(1), I(1)),
		             TEN(w, 1, I(12)) };
	krl_tensor out[2] = { TEN(y, 3, I(2), I(1), I(1)),
		              TEN(&hy, 3, I(1), I(1), I(1)) };
	krl_attrs a = A(1, "hidden", 1.0);
	optest_golden("gru", in, out, &a);
	double h2 = h1;
	gru1(w, w + 3, w + 6, w + 9, 0.5, &h2);
	assert_true(fabs(y[0] - h1) < 1e-14);
	assert_true(fabs(y[1] - h2) < 1e-14 && fabs(hy - h2) < 1e-14);
}

/* Bidirectional LSTM, T = 2: pseudo-layer 0 forward, 1 reverse (from
 * t = 1 down to 0); y[t] = [fwd h_t, bwd h_t], hy = [fwd h_1, bwd h_0]. */
static void test_lstm_bidirectional(void **state)
{
	(void)state;
	double w[32];
	for (int i = 0; i < 32; i++)
		w[i] = 0.05 * (i % 11) - 0.2;
	double x[2] = { 0.7, -1.3 }, h0[2] = { 0.1, -0.4 }, c0[2] = { 0.3, 0.2 };
	double y[4], hy[2], cy[2];
	krl_tensor in[4] = { TEN(x, 3, I(2), I(1), I(1)),
		             TEN(h0, 3, I(2), I(1), I(1)),
		             TEN(c0, 3, I(2), I(1), I(1)),
		             TEN(w, 1, I(32)) };
	krl_tensor out[3] = { TEN(y, 3, I(2), I(1), I(2)),
		              TEN(hy, 3, I(2), I(1), I(1)),
		              TEN(cy, 3, I(2), I(1), I(1)) };
	krl_attrs a = A(2, "bidirectional", 1.0, "layers", 1.0);
	optest_golden("lstm", in, out, &a);
	double hf = h0[0], cf = c0[0], hb = h0[1], cb = c0[1];
	/* matrices: forward w[0..7], reverse w[8..15]; then biases:
	 * forward w[16..23], reverse w[24..31] */
	lstm1(w, w + 4, w + 16, w + 20, x[0], &hf, &cf);
	double yf0 = hf;
	lstm1(w, w + 4, w + 16, w + 20, x[1], &hf, &cf);
	lstm1(w + 8, w + 12, w + 24, w + 28, x[1], &hb, &cb);
	double yb1 = hb;
	lstm1(w + 8, w + 12, w + 24, w + 28, x[0], &hb, &cb);
	double want_y[4] = { yf0, hb, hf, yb1 };
	double want_h[2] = { hf, hb }, want_c[2] = { cf, cb };
	optest_near(y, want_y, 4, 1e-14);
	optest_near(hy, want_h, 2, 1e-14);
	optest_near(cy, want_c, 2, 1e-14);
}

/* Two stacked GRU layers, T = 2: layer 1 reads layer 0's outputs; its
 * matrices follow layer 0's 6, its biases layer 0's 6 biases. */
static void test_gru_layers(void **state)
{
	(void)state;
	double w[24];
	for (int i = 0; i < 24; i++)
		w[i] = 0.07 * ((i * 5) % 13) - 0.4;
	double x[2] = { 0.9, 0.2 }, h0[2] = { -0.3, 0.6 }, y[2], hy[2];
	krl_tensor in[3] = { TEN(x, 3, I(2), I(1), I(1)),
		             TEN(h0, 3, I(2), I(1), I(1)),
		             TEN(w, 1, I(24)) };
	krl_tensor out[2] = { TEN(y, 3, I(2), I(1), I(1)),
		              TEN(hy, 3, I(2), I(1), I(1)) };
	krl_attrs a = A(1, "layers", 2.0);
	optest_golden("gru", in, out, &a);
	double a0 = h0[0], a1 = h0[1];
	/* matrices: layer 0 w[0..5], layer 1 w[6..11]; then biases:
	 * layer 0 w[12..17], layer 1 w[18..23] */
	gru1(w, w + 3, w + 12, w + 15, x[0], &a0);
	double l0t0 = a0;
	gru1(w, w + 3, w + 12, w + 15, x[1], &a0);
	gru1(w + 6, w + 9, w + 18, w + 21, l0t0, &a1);
	double y0 = a1;
	gru1(w + 6, w + 9, w + 18, w + 21, a0, &a1);
	double want_y[2] = { y0, a1 }, want_h[2] = { a0, a1 };
	optest_near(y, want_y, 2, 1e-14);
	optest_near(hy, want_h, 2, 1e-14);
}

/* batch_first=1 on x [B, T, I] equals batch_first=0 on its transpose;
 * bidirectional, two layers, B = 2, T = 3, I = 2, H = 2. */
static void test_batch_first(void **state)
{
	(void)state;
	enum { B = 2, T = 3, IN = 2, H = 2 };
	/* blocks: layer 0 4*2*2 + 4*2*2 + 16 = 48 each dir, layer 1
	 * 4*2*4 + 16 + 16 = 64 each dir */
	double w[2 * 48 + 2 * 64];
	for (int i = 0; i < (int)(sizeof w / sizeof w[0]); i++)
		w[i] = 0.03 * ((i * 7) % 17) - 0.25;
	double xb[B * T * IN], xs[T * B * IN];
	for (int i = 0; i < B * T * IN; i++)
		xb[i] = 0.1 * ((i * 3) % 7) - 0.3;
	for (int b = 0; b < B; b++)
		for (int t = 0; t < T; t++)
			for (int i = 0; i < IN; i++)
				xs[(t * B + b) * IN + i] = xb[(b * T + t) * IN + i];
	double h0[4 * B * H], c0[4 * B * H];
	for (int i = 0; i < 4 * B * H; i++) {
		h0[i] = 0.05 * i - 0.3;
		c0[i] = 0.3 - 0.04 * i;
	}
	double y1[T * B * 2 * H], y2[T * B * 2 * H], hy1[4 * B * H],
		hy2[4 * B * H], cy1[4 * B * H], cy2[4 * B * H];
	krl_tensor in[4] = { TEN(xb, 3, I(B), I(T), I(IN)),
		             TEN(h0, 3, I(4), I(B), I(H)),
		             TEN(c0, 3, I(4), I(B), I(H)),
		             TEN(w, 1, I(sizeof w / sizeof w[0])) };
	krl_tensor out[3] = { TEN(y1, 3, I(T), I(B), I(2 * H)),
		              TEN(hy1, 3, I(4), I(B), I(H)),
		              TEN(cy1, 3, I(4), I(B), I(H)) };
	krl_attrs a = A(3, "layers", 2.0, "bidirectional", 1.0, "batch_first",
	                1.0);
	optest_golden("lstm", in, out, &a);
	in[0] = TEN(xs, 3, I(T), I(B), I(IN));
	out[0].data = y2;
	out[1].data = hy2;
	out[2].data = cy2;
	krl_attrs s = A(2, "layers", 2.0, "bidirectional", 1.0);
	optest_golden("lstm", in, out, &s);
	optest_near(y1, y2, T * B * 2 * H, 0);
	optest_near(hy1, hy2, 4 * B * H, 0);
	optest_near(cy1, cy2, 4 * B * H, 0);
	/* the last layer's outputs are the last two hy blocks at t = T-1
	 * (forward) and t = 0 (reverse) */
	for (int b = 0; b < B; b++)
		for (int j = 0; j < H; j++) {
			assert_true(y1[((T - 1) * B + b) * 2 * H + j] ==
			            hy1[(2 * B + b) * H + j]);
			assert_true(y1[(0 * B + b) * 2 * H + H + j] ==
			            hy1[(3 * B + b) * H + j]);
		}
}

/* rnn_tanh, one layer, T = 3, B = 2, I = 2, H = 2: the layout is W [2, 2],
 * R [2, 2], then b_W [2], b_R [2] (12 elements). */
static void test_rnn_tanh_steps(void **state)
{
	(void)state;
	enum { T = 3, B = 2, IN = 2, H = 2 };
	double w[12] = { 0.3, -0.7, 0.5, 0.2,     /* W */
		         0.9, -0.4, 0.1, 0.6,     /* R */
		         0.05, -0.15,             /* b_W */
		         0.25, 0.1 };             /* b_R */
	double x[T * B * IN], h0[B * H] = { 0.5, -0.2, 0.8, 0.3 };
	for (int i = 0; i < T * B * IN; i++)
		x[i] = 0.4 * ((i * 5) % 7) - 1.1;
	double y[T * B * H], hy[B * H];
	krl_tensor in[3] = { TEN(x, 3, I(T), I(B), I(IN)),
		             TEN(h0, 3, I(1), I(B), I(H)),
		             TEN(w, 1, I(12)) };
	krl_tensor out[2] = { TEN(y, 3, I(T), I(B), I(H)),
		              TEN(hy, 3, I(1), I(B), I(H)) };
	krl_attrs a = A(1, "hidden", 2.0);
	optest_golden("rnn_tanh", in, out, &a);
	double h[B * H], want[T * B * H];
	memcpy(h, h0, sizeof h);
	for (int t = 0; t < T; t++) {
		double hn[B * H];
		for (int b = 0; b < B; b++)
			for (int j = 0; j < H; j++) {
				const double *xv = x + (t * B + b) * IN;
				double v = w[8 + j] + w[10 + j];
				for (int i = 0; i < IN; i++)
					v += w[j * IN + i] * xv[i];
				for (int m = 0; m < H; m++)
					v += w[4 + j * H + m] * h[b * H + m];
				hn[b * H + j] = tanh(v);
			}
		memcpy(h, hn, sizeof h);
		memcpy(want + t * B * H, hn, sizeof hn);
	}
	optest_near(y, want, T * B * H, 1e-14);
	optest_near(hy, h, B * H, 1e-14);
	/* a weight of the LSTM's size is refused, saying the right one */
	krl_tensor bad[3] = { in[0], in[1], TEN(w, 1, I(11)) };
	optest_rejects("rnn_tanh", bad, out, &a, "rnn_tanh: w is [11] but the "
	               "flat weight of 1 layer(s), 1 direction(s), I = 2, H = "
	               "2 must be [12]");
}

static void test_checks(void **state)
{
	(void)state;
	/* KernelBench's LSTM(128, 256, 6): PyTorch's 3026944 parameters */
	krl_tensor in[4] = { TEN(NULL, 3, I(10), I(512), I(128)),
		             TEN(NULL, 3, I(6), I(10), I(256)),
		             TEN(NULL, 3, I(6), I(10), I(256)),
		             TEN(NULL, 1, I(3026944)) };
	krl_tensor out[3] = { TEN(NULL, 3, I(512), I(10), I(256)),
		              TEN(NULL, 3, I(6), I(10), I(256)),
		              TEN(NULL, 3, I(6), I(10), I(256)) };
	krl_attrs a = A(3, "layers", 6.0, "hidden", 256.0, "batch_first", 1.0);
	char msg[512] = "";
	const krl_op *l = krl_op_find("lstm"), *g = krl_op_find("gru");
	assert_int_equal(l->check(in, out, &a, msg, sizeof msg), KRL_OK);
	/* recurrence= (the optimizer's lib.rnn): the words' indices 0-3 */
	for (int rec = 0; rec <= 3; rec++) {
		krl_attrs ar = A(4, "layers", 6.0, "hidden", 256.0,
		                 "batch_first", 1.0, "recurrence", (double)rec);
		assert_int_equal(l->check(in, out, &ar, msg, sizeof msg),
		                 KRL_OK);
	}
	krl_attrs rb = A(2, "layers", 6.0, "recurrence", 4.0);
	optest_rejects("lstm", in, out, &rb, "lstm: recurrence=4 is not one of "
	               "its values (allowed: 0 = standard, 1 = infer, 2 = "
	               "persist, 3 = small_h)");
	assert_true((l->caps & KRL_OPCAP_RECURRENCE) &&
	            (g->caps & KRL_OPCAP_RECURRENCE));
	in[3].dim[0] = 3026943;
	optest_rejects("lstm", in, out, &a, "lstm: w is [3026943] but the flat "
	               "weight of 6 layer(s), 1 direction(s), I = 128, H = 256 "
	               "must be [3026944]");
	in[3].dim[0] = 3026944;
	/* y is seq-major even with batch_first */
	out[0] = TEN(NULL, 3, I(10), I(512), I(256));
	optest_rejects("lstm", in, out, &a, "y is [10, 512, 256] but must be "
	               "[512, 10, 256]");
	out[0] = TEN(NULL, 3, I(512), I(10), I(256));
	krl_attrs h = A(3, "layers", 6.0, "hidden", 128.0, "batch_first", 1.0);
	optest_rejects("lstm", in, out, &h, "lstm: hidden=128 but h0 is [6, 10, "
	               "256]");
	krl_attrs bi = A(3, "layers", 6.0, "bidirectional", 1.0, "batch_first",
	                 1.0);
	optest_rejects("lstm", in, out, &bi, "h0 is [6, 10, 256] but must be "
	               "[12, 10, H]");
	krl_attrs z = A(1, "layers", 0.0);
	optest_rejects("lstm", in, out, &z, "layers=0 must be an integer");
	krl_attrs bf = A(2, "layers", 6.0, "batch_first", 2.0);
	optest_rejects("lstm", in, out, &bf, "batch_first must be 0 or 1");
	krl_attrs k = A(2, "layers", 6.0, "dropout", 0.5);
	optest_rejects("lstm", in, out, &k, "dropout");
	in[2] = TEN(NULL, 3, I(6), I(10), I(255));
	optest_rejects("lstm", in, out, &a, "c0 is [6, 10, 255] but must be "
	               "h0's shape");
	in[2] = in[1];
	out[2] = TEN(NULL, 3, I(6), I(11), I(256));
	optest_rejects("lstm", in, out, &a, "cy is [6, 11, 256]");
	/* GRU(128, 256, 6) bidirectional: layer 0 3*256*(128+256) + 6*256,
	 * layers 1-5 3*256*(512+256) + 6*256, per direction */
	int64_t nw = 2 * (3 * 256 * 384 + 1536) + 10 * (3 * 256 * 768 + 1536);
	krl_tensor gi[3] = { TEN(NULL, 3, I(512), I(10), I(128)),
		             TEN(NULL, 3, I(12), I(10), I(256)),
		             TEN(NULL, 1, nw) };
	krl_tensor go[2] = { TEN(NULL, 3, I(512), I(10), I(512)),
		             TEN(NULL, 3, I(12), I(10), I(256)) };
	krl_attrs ga = A(2, "layers", 6.0, "bidirectional", 1.0);
	assert_int_equal(g->check(gi, go, &ga, msg, sizeof msg), KRL_OK);
	go[0] = TEN(NULL, 3, I(512), I(10), I(256));
	optest_rejects("gru", gi, go, &ga, "gru: y is [512, 10, 256] but must "
	               "be [512, 10, 512]");
	gi[0] = TEN(NULL, 2, I(512), I(128));
	optest_rejects("gru", gi, go, &ga, "gru: x is [512, 128] but must be "
	               "3-D");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_lstm_steps),
		cmocka_unit_test(test_gru_steps),
		cmocka_unit_test(test_lstm_bidirectional),
		cmocka_unit_test(test_gru_layers),
		cmocka_unit_test(test_batch_first),
		cmocka_unit_test(test_rnn_tanh_steps),
		cmocka_unit_test(test_checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
