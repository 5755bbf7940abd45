/*
 * Tests of the op family "conv" that need no GPU: the float64 golden conv
 * and conv_transpose against values computed by hand on tiny tensors
 * (stride, padding, dilation, groups, 1D/2D/3D, bias, output_padding), the
 * transposed convolution against its definition as the adjoint of conv on
 * random data, and the checks accepting good calls and rejecting bad ones
 * with a clear sentence; the index math of the layout=nhwc transposes
 * (ops/conv_layout.h, run here thread by thread as the GPU kernel runs
 * it) and the strides cuDNN is told.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/ops.h"
#include "ops/conv/conv_layout.h"
#include "optest.h"
#include "testutil.h"

/* ==== Helpers ==== */






static void expect(const double *got, const double *want, int n)
{
	for (int i = 0; i < n; i++) {
		if (fabs(got[i] - want[i]) > 1e-12)
			fprintf(stderr, "element %d: got %.17g, want %.17g\n", i,
			        got[i], want[i]);
		assert_true(fabs(got[i] - want[i]) <= 1e-12);
	}
}

/* ==== conv by hand ==== */

/* x = [[1, 2, 3], [4, 5, 6], [7, 8, 9]], w = [[1, 2], [3, 4]]. */
static double g_x33[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
static double g_w22[4] = { 1, 2, 3, 4 };

static void test_conv2d_hand(void **state)
{
	(void)state;
	double y[16];
	krl_tensor in[2] = { optest_tensor(g_x33, 4, I(1), I(1), I(3), I(3)),
	                     optest_tensor(g_w22, 4, I(1), I(1), I(2), I(2)) };
	/* stride 1: each output is the 2x2 window dotted with w */
	krl_tensor out = optest_tensor(y, 4, I(1), I(1), I(2), I(2));
	optest_golden("conv", in, &out, NULL);
	expect(y, (double[]){ 37, 47, 67, 77 }, 4);
	/* stride 2: one window */
	out = optest_tensor(y, 4, I(1), I(1), I(1), I(1));
	krl_attrs a = optest_attrs(1, "stride", 2.0);
	optest_golden("conv", in, &out, &a);
	expect(y, (double[]){ 37 }, 1);
	/* padding 1: a zero border, 4x4 out; corners see one x each */
	out = optest_tensor(y, 4, I(1), I(1), I(4), I(4));
	a = optest_attrs(1, "padding", 1.0);
	optest_golden("conv", in, &out, &a);
	expect(y, (double[]){ 4, 11, 18, 9,  18, 37, 47, 21,
	                      36, 67, 77, 33, 14, 23, 26, 9 }, 16);
	/* padding 1, stride 2 */
	out = optest_tensor(y, 4, I(1), I(1), I(2), I(2));
	a = optest_attrs(2, "padding", 1.0, "stride", 2.0);
	optest_golden("conv", in, &out, &a);
	expect(y, (double[]){ 4, 18, 36, 77 }, 4);
	/* dilation 2: the taps are the corners of x */
	out = optest_tensor(y, 4, I(1), I(1), I(1), I(1));
	a = optest_attrs(1, "dilation", 2.0);
	optest_golden("conv", in, &out, &a);
	expect(y, (double[]){ 1 * 1 + 2 * 3 + 3 * 7 + 4 * 9 }, 1);
	/* per-dim: dilation 2 along h only (rows 0 and 2, adjacent cols) */
	out = optest_tensor(y, 4, I(1), I(1), I(1), I(2));
	a = optest_attrs(2, "dilation", 1.0, "dilation_h", 2.0);
	optest_golden("conv", in, &out, &a);
	expect(y, (double[]){ 1 + 4 + 21 + 32, 2 + 6 + 24 + 36 }, 2);
}

static void test_conv_groups(void **state)
{
	(void)state;
	/* x: 2 channels of 2x2; groups 2, 4 outputs: outputs 0, 1 see
	 * channel 0 (weights 1, 2), outputs 2, 3 see channel 1 (3, 4) */
	double x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	double w[4] = { 1, 2, 3, 4 };
	double y[16];
	krl_tensor in[2] = { optest_tensor(x, 4, I(1), I(2), I(2), I(2)),
	                     optest_tensor(w, 4, I(4), I(1), I(1), I(1)) };
	krl_tensor out = optest_tensor(y, 4, I(1), I(4), I(2), I(2));
	krl_attrs a = optest_attrs(1, "groups", 2.0);
	optest_golden("conv", in, &out, &a);
	expect(y, (double[]){ 1, 2, 3, 4,  2, 4, 6, 8,
	                      15, 18, 21, 24, 20, 24, 28, 32 }, 16);
	/* groups 1 with the same x: one output summing both channels */
	double w2[2] = { 1, -1 };
	in[1] = optest_tensor(w2, 4, I(1), I(2), I(1), I(1));
	out = optest_tensor(y, 4, I(1), I(1), I(2), I(2));
	optest_golden("conv", in, &out, NULL);
	expect(y, (double[]){ -4, -4, -4, -4 }, 4);
}

static void test_conv1d_3d_bias(void **state)
{
	(void)state;
	/* 1D: [1..5] with [1, 0, -1], stride 2, padding 1 */
	double x[5] = { 1, 2, 3, 4, 5 }, w[3] = { 1, 0, -1 }, y[8];
	krl_tensor in[3] = { optest_tensor(x, 3, I(1), I(1), I(5)),
	                     optest_tensor(w, 3, I(1), I(1), I(3)) };
	krl_tensor out = optest_tensor(y, 3, I(1), I(1), I(3));
	krl_attrs a = optest_attrs(2, "stride", 2.0, "padding_w", 1.0);
	optest_golden("conv", in, &out, &a);
	expect(y, (double[]){ -2, -2, 4 }, 3);
	/* 3D: 2x2x2 ones kernel over 1..8, plus bias 0.5 */
	double x3[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	double w3[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, b[1] = { 0.5 };
	in[0] = optest_tensor(x3, 5, I(1), I(1), I(2), I(2), I(2));
	in[1] = optest_tensor(w3, 5, I(1), I(1), I(2), I(2), I(2));
	in[2] = optest_tensor(b, 1, I(1));
	out = optest_tensor(y, 5, I(1), I(1), I(1), I(1), I(1));
	optest_golden("conv_bias", in, &out, NULL);
	expect(y, (double[]){ 36.5 }, 1);
	/* 3D, padding along d only: two outputs, each half of x */
	out = optest_tensor(y, 5, I(1), I(1), I(3), I(1), I(1));
	a = optest_attrs(1, "padding_d", 1.0);
	optest_golden("conv", in, &out, &a);
	expect(y, (double[]){ 10, 36, 26 }, 3);
}

/* layout=nhwc_y: the same values as NCHW, stored channels-last ([N, s...,
 * C]); a convolution and a transposed one, 2 samples, 3 output channels.
 * layout=nhwc_xy: the same again from x stored channels-last, and with
 * w_layout=krsc from w stored in cuDNN's channels-last filter format. */
static void test_conv_nhwc_y(void **state)
{
	(void)state;
	for (int tr = 0; tr < 2; tr++) {
		double x[2 * 2 * 4 * 3], w[2 * 3 * 2 * 2], y0[2 * 3 * 5 * 4];
		double y1[2 * 3 * 5 * 4];
		for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
			x[i] = (double)((i * 7) % 11) - 5;
		for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
			w[i] = (double)((i * 5) % 7) - 3;
		krl_tensor in[2] = {
			optest_tensor(x, 4, I(2), I(2), I(4), I(3)),
			tr ? optest_tensor(w, 4, I(2), I(3), I(2), I(2))
			   : optest_tensor(w, 4, I(3), I(2), I(2), I(2)) };
		/* forward: 4x3 -> 3x2 (padding 0); transposed: 4x3 -> 5x4 */
		int64_t oh = tr ? 5 : 3, ow = tr ? 4 : 2;
		krl_tensor o0 = optest_tensor(y0, 4, I(2), I(3), oh, ow);
		krl_tensor o1 = optest_tensor(y1, 4, I(2), I(3), oh, ow);
		krl_attrs a = optest_attrs(1, "layout", 2.0);
		const char *op = tr ? "conv_transpose" : "conv";
		optest_golden(op, in, &o0, NULL);
		optest_golden(op, in, &o1, &a);
		int64_t S = oh * ow;
		for (int64_t n = 0; n < 2; n++)
			for (int64_t c = 0; c < 3; c++)
				for (int64_t q = 0; q < S; q++)
					assert_true(y1[(n * S + q) * 3 + c] ==
					            y0[(n * 3 + c) * S + q]);
		/* x channels-last: [2, 4 x 3, 2] in memory */
		double xc[2 * 2 * 4 * 3], y2[2 * 3 * 5 * 4];
		for (int64_t n = 0; n < 2; n++)
			for (int64_t c = 0; c < 2; c++)
				for (int64_t q = 0; q < 12; q++)
					xc[(n * 12 + q) * 2 + c] = x[(n * 2 + c) * 12 + q];
		krl_tensor inc[2] = { in[0], in[1] };
		inc[0].data = xc;
		krl_tensor o2 = optest_tensor(y2, 4, I(2), I(3), oh, ow);
		krl_attrs axy = optest_attrs(1, "layout", 3.0);
		optest_golden(op, inc, &o2, &axy);
		for (int64_t i = 0; i < 2 * 3 * S; i++)
			assert_true(y2[i] == y1[i]);
		/* w_layout=krsc: w [A, B, 2, 2] stored [A, 2, 2, B] */
		double wc[2 * 3 * 2 * 2], y3[2 * 3 * 5 * 4];
		int64_t A = inc[1].dim[0], B = inc[1].dim[1];
		for (int64_t a = 0; a < A; a++)
			for (int64_t b = 0; b < B; b++)
				for (int64_t t = 0; t < 4; t++)
					wc[(a * 4 + t) * B + b] = w[(a * B + b) * 4 + t];
		krl_tensor inw[2] = { inc[0], inc[1] };
		inw[1].data = wc;
		krl_tensor o3 = optest_tensor(y3, 4, I(2), I(3), oh, ow);
		krl_attrs aw = optest_attrs(2, "layout", 3.0, "w_layout", 1.0);
		optest_golden(op, inw, &o3, &aw);
		for (int64_t i = 0; i < 2 * 3 * S; i++)
			assert_true(y3[i] == y1[i]);
	}
}

/* ==== conv_transpose by hand ==== */

static void test_conv_transpose_hand(void **state)
{
	(void)state;
	double x[4] = { 1, 2, 3, 4 }, w[4] = { 1, 10, 100, 1000 }, y[16];
	krl_tensor in[3] = { optest_tensor(x, 4, I(1), I(1), I(2), I(2)),
	                     optest_tensor(w, 4, I(1), I(1), I(2), I(2)) };
	/* stride 2: each x element stamps w on its own 2x2 block */
	krl_tensor out = optest_tensor(y, 4, I(1), I(1), I(4), I(4));
	krl_attrs a = optest_attrs(1, "stride", 2.0);
	optest_golden("conv_transpose", in, &out, &a);
	expect(y, (double[]){ 1, 10, 2, 20,  100, 1000, 200, 2000,
	                      3, 30, 4, 40,  300, 3000, 400, 4000 }, 16);
	/* stride 1: overlapping stamps add up */
	out = optest_tensor(y, 4, I(1), I(1), I(3), I(3));
	optest_golden("conv_transpose", in, &out, NULL);
	expect(y, (double[]){ 1, 12, 20, 103, 1234, 2040, 300, 3400, 4000 },
	       9);
	/* padding 1 crops one from each side */
	out = optest_tensor(y, 4, I(1), I(1), I(1), I(1));
	a = optest_attrs(1, "padding", 1.0);
	optest_golden("conv_transpose", in, &out, &a);
	expect(y, (double[]){ 1234 }, 1);
	/* stride 2, padding 1, output_padding 1: rows/cols 1..3 of the
	 * stride-2 result */
	out = optest_tensor(y, 4, I(1), I(1), I(3), I(3));
	a = optest_attrs(3, "stride", 2.0, "padding", 1.0, "output_padding", 1.0);
	optest_golden("conv_transpose", in, &out, &a);
	expect(y, (double[]){ 1000, 200, 2000, 30, 4, 40, 3000, 400, 4000 },
	       9);
	/* 1D, dilation 2: y[i + 2k] += x[i] w[k] */
	double x1[2] = { 1, 2 }, w1[2] = { 1, 10 };
	in[0] = optest_tensor(x1, 3, I(1), I(1), I(2));
	in[1] = optest_tensor(w1, 3, I(1), I(1), I(2));
	out = optest_tensor(y, 3, I(1), I(1), I(4));
	a = optest_attrs(1, "dilation", 2.0);
	optest_golden("conv_transpose", in, &out, &a);
	expect(y, (double[]){ 1, 2, 10, 20 }, 4);
	/* groups 2: w is [Cin = 2, Cout / groups = 2, 1, 1]; channel 0
	 * feeds outputs 0, 1 and channel 1 outputs 2, 3; bias added */
	double x2[2] = { 1, 2 }, w2[4] = { 1, 2, 3, 4 };
	double b[4] = { 0.25, 0.5, 0.75, 1 };
	in[0] = optest_tensor(x2, 4, I(1), I(2), I(1), I(1));
	in[1] = optest_tensor(w2, 4, I(2), I(2), I(1), I(1));
	in[2] = optest_tensor(b, 1, I(4));
	out = optest_tensor(y, 4, I(1), I(4), I(1), I(1));
	a = optest_attrs(1, "groups", 2.0);
	optest_golden("conv_transpose_bias", in, &out, &a);
	expect(y, (double[]){ 1.25, 2.5, 6.75, 9 }, 4);
}

/* ==== conv_transpose is the adjoint of conv ==== */

static uint64_t g_rng = 0x2545f4914f6cdd1dull;

static double urand(void)
{
	g_rng ^= g_rng << 13;
	g_rng ^= g_rng >> 7;
	g_rng ^= g_rng << 17;
	return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

static double *rnd(int64_t n)
{
	double *p = malloc((size_t)n * sizeof *p);
	assert_non_null(p);
	for (int64_t i = 0; i < n; i++)
		p[i] = urand();
	return p;
}

/* <conv_transpose(x, w), z> == <x, conv(z, w)> for random x, z, w: the
 * transposed convolution's definition. xs are x's dims, ys y's (computed
 * by hand from the formula), ws w's, all of rank r. */
static void adjoint(int r, const int64_t *xs, const int64_t *ws,
                    const int64_t *ys, krl_attrs a)
{
	krl_tensor x = optest_tensor(NULL, 0), w = optest_tensor(NULL, 0), y = optest_tensor(NULL, 0);
	x.ndim = w.ndim = y.ndim = r;
	memcpy(x.dim, xs, (size_t)r * sizeof *xs);
	memcpy(w.dim, ws, (size_t)r * sizeof *ws);
	memcpy(y.dim, ys, (size_t)r * sizeof *ys);
	int64_t nx = krl_tensor_numel(&x), ny = krl_tensor_numel(&y);
	x.data = rnd(nx);
	w.data = rnd(krl_tensor_numel(&w));
	double *z = rnd(ny), *ty = malloc((size_t)ny * sizeof(double));
	double *cz = malloc((size_t)nx * sizeof(double));
	krl_tensor in[2] = { x, w }, out = y;
	out.data = ty;
	optest_golden("conv_transpose", in, &out, &a);
	/* conv maps z (y's shape) back to x's shape with the same w */
	krl_attrs ca = a;
	ca.n = 0;
	for (int i = 0; i < a.n; i++)
		if (strncmp(a.key[i], "output_padding", 14) != 0) {
			ca.key[ca.n] = a.key[i];
			ca.val[ca.n++] = a.val[i];
		}
	krl_tensor cin[2] = { y, w }, cout = x;
	cin[0].data = z;
	cout.data = cz;
	optest_golden("conv", cin, &cout, &ca);
	double l = 0, rr = 0;
	for (int64_t i = 0; i < ny; i++)
		l += ty[i] * z[i];
	for (int64_t i = 0; i < nx; i++)
		rr += ((double *)x.data)[i] * cz[i];
	if (fabs(l - rr) > 1e-9 * (1 + fabs(l)))
		fprintf(stderr, "adjoint: <optest_tensor(x), z> = %.15g, <x, conv(z)> = "
		        "%.15g\n", l, rr);
	assert_true(fabs(l - rr) <= 1e-9 * (1 + fabs(l)));
	free(x.data);
	free(w.data);
	free(z);
	free(ty);
	free(cz);
}

static void test_conv_transpose_adjoint(void **state)
{
	(void)state;
	/* 2D: stride (2, 3), padding (1, 2), dilation (2, 1), groups 2:
	 * out = (in - 1) s - 2p + d (k - 1) + op + 1 */
	adjoint(4, (int64_t[]){ 2, 4, 5, 6 }, (int64_t[]){ 4, 3, 3, 5 },
	        (int64_t[]){ 2, 6, (5 - 1) * 2 - 2 + 2 * 2 + 1 + 1,
	                     (6 - 1) * 3 - 4 + 4 + 1 },
	        optest_attrs(7, "stride_h", 2.0, "stride_w", 3.0, "padding_h", 1.0,
	              "padding_w", 2.0, "dilation_h", 2.0, "groups", 2.0,
	              "output_padding_h", 1.0));
	/* output_padding_w as well */
	krl_attrs a = optest_attrs(7, "stride_h", 2.0, "stride_w", 3.0, "padding_h",
	                    1.0, "padding_w", 2.0, "dilation_h", 2.0,
	                    "groups", 2.0, "output_padding", 1.0);
	adjoint(4, (int64_t[]){ 2, 4, 5, 6 }, (int64_t[]){ 4, 3, 3, 5 },
	        (int64_t[]){ 2, 6, 12, 17 }, a);
	/* 1D: stride 2, padding 1, dilation 2 */
	adjoint(3, (int64_t[]){ 3, 2, 7 }, (int64_t[]){ 2, 5, 3 },
	        (int64_t[]){ 3, 5, 6 * 2 - 2 + 4 + 1 },
	        optest_attrs(3, "stride", 2.0, "padding", 1.0, "dilation", 2.0));
	/* 3D: stride 2, padding (1, 0, 1), groups 2, output_padding 1 */
	adjoint(5, (int64_t[]){ 1, 2, 3, 4, 3 }, (int64_t[]){ 2, 2, 2, 3, 2 },
	        (int64_t[]){ 1, 4, 2 * 2 - 2 + 1 + 1 + 1, 3 * 2 + 2 + 1 + 1,
	                     2 * 2 - 2 + 1 + 1 + 1 },
	        optest_attrs(5, "stride", 2.0, "padding_d", 1.0, "padding_w", 1.0,
	              "groups", 2.0, "output_padding", 1.0));
}

/* ==== Checks ==== */

static void test_conv_check(void **state)
{
	(void)state;
	krl_tensor in[3] = { optest_tensor(NULL, 4, I(8), I(6), I(32), I(30)),
	                     optest_tensor(NULL, 4, I(4), I(3), I(3), I(5)),
	                     optest_tensor(NULL, 1, I(4)) };
	krl_tensor out = optest_tensor(NULL, 4, I(8), I(4), I(15), I(14));
	krl_attrs a = optest_attrs(3, "groups", 2.0, "stride", 2.0, "padding_w", 1.0);
	const krl_op *op = krl_op_find("conv");
	char msg[512] = "";
	assert_int_equal(op->check(in, &out, &a, msg, sizeof msg), KRL_OK);
	op = krl_op_find("conv_bias");
	assert_int_equal(op->check(in, &out, &a, msg, sizeof msg), KRL_OK);
	out.dim[3] = 15;
	optest_rejects("conv", in, &out, &a, "conv: y is [8, 4, 15, 15] but x "
	        "[8, 6, 32, 30], w [4, 3, 3, 5] with stride [2, 2] and "
	        "padding [0, 1] gives [8, 4, 15, 14]");
	out.dim[3] = 14;
	krl_attrs g4 = optest_attrs(1, "groups", 4.0);
	optest_rejects("conv", in, &out, &g4, "conv: x is [8, 6, 32, 30]: its 6 "
	        "channels are not divisible by groups=4");
	krl_attrs g3 = optest_attrs(1, "groups", 3.0);
	optest_rejects("conv", in, &out, &g3, "so w must be [Cout, 2, k...]");
	krl_attrs sd = optest_attrs(2, "groups", 2.0, "stride_d", 2.0);
	optest_rejects("conv", in, &out, &sd, "conv: stride_d names the d dim, but "
	        "x is [8, 6, 32, 30] with 2 spatial dims (h, w)");
	krl_attrs s0 = optest_attrs(2, "groups", 2.0, "stride", 0.0);
	optest_rejects("conv", in, &out, &s0, "conv: stride=0 must be an integer "
	        ">= 1");
	krl_attrs sf = optest_attrs(2, "groups", 2.0, "padding", 0.5);
	optest_rejects("conv", in, &out, &sf, "padding=0.5 must be an integer >= 0");
	/* algo: which usable cuDNN engine config, 0 to 7; a depthwise
	 * convolution (groups = Cin) runs kernelrl's kernel, which ignores it */
	krl_attrs al = optest_attrs(4, "groups", 2.0, "stride", 2.0, "padding_w",
	                            1.0, "algo", 5.0);
	assert_int_equal(krl_op_find("conv")->check(in, &out, &al, msg,
	                                            sizeof msg), KRL_OK);
	krl_attrs al9 = optest_attrs(4, "groups", 2.0, "stride", 2.0, "padding_w",
	                             1.0, "algo", 9.0);
	optest_rejects("conv", in, &out, &al9, "conv: algo=9 must be an integer "
	        "from 0 to 7");
	{
		krl_tensor dw[2] = { optest_tensor(NULL, 4, I(8), I(6), I(32), I(30)),
		                     optest_tensor(NULL, 4, I(6), I(1), I(3), I(5)) };
		krl_tensor dy = optest_tensor(NULL, 4, I(8), I(6), I(30), I(26));
		krl_attrs d0 = optest_attrs(2, "groups", 6.0, "algo", 0.0);
		assert_int_equal(krl_op_find("conv")->check(dw, &dy, &d0, msg,
		                                            sizeof msg), KRL_OK);
		krl_attrs d3 = optest_attrs(2, "groups", 6.0, "algo", 3.0);
		assert_int_equal(krl_op_find("conv")->check(dw, &dy, &d3, msg,
		                                            sizeof msg), KRL_OK);
		/* and layout=nhwc, which it ignores too (its kernel reads
		 * NCHW) */
		krl_attrs d1 = optest_attrs(2, "groups", 6.0, "layout", 1.0);
		assert_int_equal(krl_op_find("conv")->check(dw, &dy, &d1, msg,
		                                            sizeof msg), KRL_OK);
	}
	/* layout: 0 (nchw), 1 (nhwc), 2 (nhwc_y: no bias) or 3 (nhwc_xy: no
	 * bias), what a plan's
	 * word resolves to
	 * (krl_attr_words); with algo, which then counts NHWC engines */
	krl_attrs l1 = optest_attrs(4, "groups", 2.0, "stride", 2.0, "padding_w",
	                            1.0, "layout", 1.0);
	assert_int_equal(krl_op_find("conv")->check(in, &out, &l1, msg,
	                                            sizeof msg), KRL_OK);
	krl_attrs l0 = optest_attrs(5, "groups", 2.0, "stride", 2.0, "padding_w",
	                            1.0, "layout", 0.0, "algo", 2.0);
	assert_int_equal(krl_op_find("conv_bias")->check(in, &out, &l0, msg,
	                                                 sizeof msg), KRL_OK);
	krl_attrs l2 = optest_attrs(4, "groups", 2.0, "stride", 2.0, "padding_w",
	                            1.0, "layout", 2.0);
	assert_int_equal(krl_op_find("conv")->check(in, &out, &l2, msg,
	                                            sizeof msg), KRL_OK);
	optest_rejects("conv_bias", in, &out, &l2, "conv_bias: layout=nhwc_y "
	        "leaves y channels-last for a generated kernel to read; an op "
	        "with a bias does not take it (call conv and add the bias in "
	        "that kernel)");
	krl_attrs l3 = optest_attrs(4, "groups", 2.0, "stride", 2.0, "padding_w",
	                            1.0, "layout", 3.0);
	assert_int_equal(krl_op_find("conv")->check(in, &out, &l3, msg,
	                                            sizeof msg), KRL_OK);
	optest_rejects("conv_bias", in, &out, &l3, "conv_bias: layout=nhwc_xy "
	        "leaves y channels-last for a generated kernel to read");
	krl_attrs wk = optest_attrs(4, "groups", 2.0, "stride", 2.0, "padding_w",
	                            1.0, "w_layout", 1.0);
	optest_rejects("conv", in, &out, &wk, "conv: w_layout=krsc gives w in "
	        "cuDNN's channels-last filter format, which only a "
	        "channels-last call reads (layout=nhwc, nhwc_y or nhwc_xy)");
	krl_attrs wk1 = optest_attrs(5, "groups", 2.0, "stride", 2.0, "padding_w",
	                             1.0, "w_layout", 1.0, "layout", 1.0);
	assert_int_equal(krl_op_find("conv_bias")->check(in, &out, &wk1, msg,
	                                                 sizeof msg), KRL_OK);
	krl_attrs wk2 = optest_attrs(2, "groups", 2.0, "w_layout", 2.0);
	optest_rejects("conv", in, &out, &wk2, "conv: w_layout=2 is not one of "
	        "its values (allowed: 0 = kcrs, 1 = krsc)");
	krl_attrs l4 = optest_attrs(2, "groups", 2.0, "layout", 4.0);
	optest_rejects("conv", in, &out, &l4, "conv: layout=4 is not one of its "
	        "values (allowed: 0 = nchw, 1 = nhwc, 2 = nhwc_y, 3 = nhwc_xy)");
	krl_attrs lh = optest_attrs(2, "groups", 2.0, "layout", 0.5);
	optest_rejects("conv", in, &out, &lh, "conv: layout=0.5 is not one of its "
	        "values");
	{
		const char *const *w = krl_attr_words("layout");
		assert_non_null(w);
		assert_string_equal(w[KRL_LAYOUT_NCHW], "nchw");
		assert_string_equal(w[KRL_LAYOUT_NHWC], "nhwc");
		assert_string_equal(w[KRL_LAYOUT_NHWC_Y], "nhwc_y");
		assert_string_equal(w[KRL_LAYOUT_NHWC_XY], "nhwc_xy");
		assert_null(w[4]);
		assert_null(krl_attr_words("algo"));
		assert_null(krl_attr_words("groups"));
	}
	krl_attrs op1 = optest_attrs(2, "groups", 2.0, "output_padding", 1.0);
	optest_rejects("conv", in, &out, &op1, "conv: unknown attribute "
	        "'output_padding' (allowed: stride, ");
	in[2] = optest_tensor(NULL, 1, I(5));
	optest_rejects("conv_bias", in, &out, &a, "conv_bias: b is [5] but must be "
	        "[4] (one per output channel)");
	/* a kernel wider than the padded input */
	krl_tensor sm[2] = { optest_tensor(NULL, 3, I(1), I(2), I(4)),
	                     optest_tensor(NULL, 3, I(3), I(2), I(3)) };
	krl_tensor so = optest_tensor(NULL, 3, I(1), I(3), I(1));
	krl_attrs dl = optest_attrs(1, "dilation", 2.0);
	optest_rejects("conv", sm, &so, &dl, "conv: x is [1, 2, 4] and w is "
	        "[3, 2, 3]: the kernel spans 5 along w (dilation 2) but the "
	        "padded input has 4");
	krl_tensor r2[2] = { optest_tensor(NULL, 2, I(1), I(2)), optest_tensor(NULL, 2, I(3), I(2)) };
	optest_rejects("conv", r2, &so, NULL, "conv: x is [1, 2] but must be "
	        "[N, C, w], [N, C, h, w] or [N, C, d, h, w]");
	sm[1].dtype = KRL_F16;
	optest_rejects("conv", sm, &so, NULL, "conv: w must be f32, not f16");
}

static void test_conv_transpose_check(void **state)
{
	(void)state;
	/* x [2, 4, 5, 6], w [4, 3, 3, 5] groups 2: Cout = 6 */
	krl_tensor in[2] = { optest_tensor(NULL, 4, I(2), I(4), I(5), I(6)),
	                     optest_tensor(NULL, 4, I(4), I(3), I(3), I(5)) };
	krl_tensor out = optest_tensor(NULL, 4, I(2), I(6), I(12), I(15));
	krl_attrs a = optest_attrs(3, "groups", 2.0, "stride", 2.0,
	                    "output_padding_h", 1.0);
	const krl_op *op = krl_op_find("conv_transpose");
	char msg[512] = "";
	krl_err r = op->check(in, &out, &a, msg, sizeof msg);
	if (r)
		fprintf(stderr, "%s\n", msg);
	assert_int_equal(r, KRL_OK);
	krl_attrs big = optest_attrs(3, "groups", 2.0, "stride", 2.0,
	                      "output_padding", 2.0);
	optest_rejects("conv_transpose", in, &out, &big, "conv_transpose: "
	        "output_padding_h=2 must be smaller than stride_h=2");
	in[1].dim[0] = 3;
	optest_rejects("conv_transpose", in, &out, &a, "conv_transpose: x is "
	        "[2, 4, 5, 6], so w must be [4, Cout / groups, k...]");
	in[1].dim[0] = 4;
	krl_attrs pad = optest_attrs(1, "padding", 9.0);
	krl_tensor o2 = optest_tensor(NULL, 4, I(2), I(3), I(1), I(1));
	optest_rejects("conv_transpose", in, &o2, &pad, "padding_h=9 leaves no "
	        "output along h");
	krl_attrs l1 = optest_attrs(4, "groups", 2.0, "stride", 2.0,
	                            "output_padding_h", 1.0, "layout", 1.0);
	assert_int_equal(op->check(in, &out, &l1, msg, sizeof msg), KRL_OK);
	krl_attrs l7 = optest_attrs(2, "groups", 2.0, "layout", -1.0);
	optest_rejects("conv_transpose", in, &out, &l7, "conv_transpose: "
	        "layout=-1 is not one of its values");
}

/* ==== Layout (layout=nhwc) ==== */

/* krl_k_transpose of conv_layout.cu on the host, on the path
 * krl_tr_path picks (aligned as cudaMalloc's memory is): for each block
 * (a tile and a matrix), every thread's load step, then (the barrier)
 * every thread's store step; or every per-q thread's step; through
 * conv_layout.h's very functions. Returns the path. */
static int host_transpose(const float *in, float *out, int64_t nb,
                          int64_t nr, int64_t nq, const float *add)
{
	int path = krl_tr_path(nr, nq, 1);
	if (path == KRL_TR_PERQ) {
		for (int64_t e = 0; e < nb * nq; e++)
			krl_trq_step(in, out, add, e, nr, nq);
		return path;
	}
	if (path == KRL_TR_TILE4) {
		static float t4[KRL_TR4_R][KRL_TR4_Q + 1];
		for (int64_t e = 0; e < nb * krl_tr4_tiles(nr, nq); e++) {
			int64_t per = krl_tr4_tiles(nr, nq), b = e / per, r0, q0;
			krl_tr4_tile(e % per, nr, &r0, &q0);
			for (int tid = 0; tid < KRL_TR4_THREADS; tid++)
				krl_tr4_load(in, t4, b, r0, q0, tid, nr, nq);
			for (int tid = 0; tid < KRL_TR4_THREADS; tid++)
				krl_tr4_store(out, t4, add, b, r0, q0, tid, nr, nq);
		}
		return path;
	}
	float tile[KRL_TR_TILE][KRL_TR_TILE + 1];
	for (int64_t t = 0; t < krl_tr_tiles(nr, nq); t++) {
		int64_t r0, q0;
		krl_tr_tile(t, nq, &r0, &q0);
		for (int64_t b = 0; b < nb; b++) {
			for (int ty = 0; ty < KRL_TR_ROWS; ty++)
				for (int tx = 0; tx < KRL_TR_TILE; tx++)
					krl_tr_load(in, tile, b, r0, q0, tx, ty, nr,
					            nq);
			for (int ty = 0; ty < KRL_TR_ROWS; ty++)
				for (int tx = 0; tx < KRL_TR_TILE; tx++)
					krl_tr_store(out, tile, add, b, r0, q0, tx, ty,
					             nr, nq);
		}
	}
	return path;
}

/* The offset of (i0, i1, s...) under strides st. */
static int64_t at(const int64_t *idx, const int64_t *st, int nd)
{
	int64_t o = 0;
	for (int i = 0; i < nd; i++)
		o += idx[i] * st[i];
	return o;
}

/*
 * One tensor [d0, d1, s...] (nd dims; 1D convolutions reach cuDNN as 2D,
 * so a unit dim among s is a real case) through the round trip the
 * driver makes: channels last as x and w are (every element moved, and
 * to where cuDNN's NHWC strides say it is, and where the layout's
 * definition puts it: d0, s..., d1), then back as y is, with a bias per
 * d1 (each element exactly v + bias).
 */
static unsigned paths_seen; /* bit p: path p ran in a round trip */

static void layout_round_trip(int nd, const int *dim)
{
	int64_t dim64[5], n = 1;
	for (int i = 0; i < nd; i++) {
		dim64[i] = dim[i];
		n *= dim[i];
	}
	float *x = malloc((size_t)n * sizeof *x);
	float *t = malloc((size_t)n * sizeof *t);
	float *back = malloc((size_t)n * sizeof *back);
	float *bias = malloc((size_t)dim[1] * sizeof *bias);
	assert_true(x && t && back && bias);
	for (int64_t i = 0; i < n; i++) {
		x[i] = (float)i;
		t[i] = back[i] = NAN;
	}
	for (int c = 0; c < dim[1]; c++)
		bias[c] = 0.5f + (float)c * 1024;

	int64_t nb, nr, nq;
	krl_tr_channels_last(dim64, nd, &nb, &nr, &nq);
	assert_int_equal(nb * nr * nq, n);
	paths_seen |= 1u << host_transpose(x, t, nb, nr, nq, NULL);

	int64_t cf[5], cl[5];
	krl_layout_strides(dim, nd, KRL_LAYOUT_NCHW, cf);
	krl_layout_strides(dim, nd, KRL_LAYOUT_NHWC, cl);
	int64_t idx[5] = { 0 };
	for (int64_t i = 0; i < n; i++) {
		/* idx: the multi-index of packed offset i */
		int64_t rest = i;
		for (int k = nd - 1; k >= 0; k--) {
			idx[k] = rest % dim[k];
			rest /= dim[k];
		}
		assert_int_equal(at(idx, cf, nd), i);
		/* channels last by definition: d0, s..., d1 */
		int64_t want = idx[0];
		for (int k = 2; k < nd; k++)
			want = want * dim[k] + idx[k];
		want = want * dim[1] + idx[1];
		assert_int_equal(at(idx, cl, nd), want);
		assert_true(t[want] == x[i]);
	}
	/* back, as y is, with the bias added on the way */
	paths_seen |= 1u << host_transpose(t, back, nb, nq, nr, bias);
	for (int64_t i = 0; i < n; i++) {
		int64_t c = i / nq % nr;
		assert_true(back[i] == x[i] + bias[c]);
	}
	free(x);
	free(t);
	free(back);
	free(bias);
}

static void test_layout_transpose(void **state)
{
	(void)state;
	/* x of a 2D conv: more than one tile both ways, partial tiles */
	layout_round_trip(4, (const int[]){ 3, 37, 5, 13 });
	/* few channels (a first layer's RGB), many spatial points */
	layout_round_trip(4, (const int[]){ 2, 3, 40, 41 });
	/* 1D as cuDNN sees it ([N, C, 1, w]) and 3D */
	layout_round_trip(4, (const int[]){ 2, 70, 1, 33 });
	layout_round_trip(5, (const int[]){ 2, 5, 3, 7, 11 });
	/* w of a grouped 3x5 conv, [K, C/g, kh, kw]: cuDNN's NHWC filter
	 * format is [K, kh, kw, C/g] */
	layout_round_trip(4, (const int[]){ 64, 33, 3, 5 });
	/* exact tiles, one channel, one element */
	layout_round_trip(4, (const int[]){ 1, 32, 8, 8 });
	layout_round_trip(4, (const int[]){ 4, 1, 9, 7 });
	layout_round_trip(4, (const int[]){ 1, 1, 1, 1 });
	/* rank 3 (the layout of a tensor the driver never passes, kept
	 * consistent: [N, C, w] -> [N, w, C]) */
	layout_round_trip(3, (const int[]){ 2, 40, 35 });
	/* the float4 tiles: partial tiles both ways (68 channels, 12 x 12
	 * positions), more than one tile of q, and whole tiles */
	layout_round_trip(4, (const int[]){ 2, 68, 12, 12 });
	layout_round_trip(4, (const int[]){ 1, 64, 8, 16 });
	/* the per-q threads at their most rows, and a 3-D x of 8 channels */
	layout_round_trip(4, (const int[]){ 2, 16, 5, 7 });
	layout_round_trip(5, (const int[]){ 2, 8, 3, 4, 4 });
	/* every path ran */
	assert_int_equal(paths_seen, (1u << KRL_TR_CLASSIC) |
	                             (1u << KRL_TR_TILE4) | (1u << KRL_TR_PERQ));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conv2d_hand),
		cmocka_unit_test(test_conv_groups),
		cmocka_unit_test(test_conv1d_3d_bias),
		cmocka_unit_test(test_conv_nhwc_y),
		cmocka_unit_test(test_conv_transpose_hand),
		cmocka_unit_test(test_conv_transpose_adjoint),
		cmocka_unit_test(test_conv_check),
		cmocka_unit_test(test_conv_transpose_check),
		cmocka_unit_test(test_layout_transpose),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
