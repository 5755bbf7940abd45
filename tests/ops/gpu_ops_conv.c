/*
 * GPU test of the op family "conv" (needs a GPU; skips with exit 77
 * without one): conv, conv_bias, conv_transpose and conv_transpose_bias
 * (cuDNN's backend API, and its legacy API under KRL_CUDNN_V7=1; depthwise
 * convolutions through depthwise.cu) against the float64 golden versions,
 * on tiny shapes and on one mid-size shape per variant (1D/2D/3D, strided,
 * padded, dilated, grouped, depthwise with each kernel specialisation and
 * a channel multiplier, pointwise, output_padding, bias). Every case runs
 * twice over: as the reference runs it (NCHW) and with layout=nhwc (cuDNN
 * on channels-last copies; a depthwise convolution ignores it), each
 * checked against the golden; an op without bias a third time with
 * layout=nhwc_y (y left channels-last, checked against the golden's
 * channels-last y; a depthwise one must refuse it), a fourth with
 * layout=nhwc_xy (the same from a channels-last copy of x) and a fifth
 * with w_layout=krsc too (and a copy of w in cuDNN's channels-last filter
 * format). Inputs are
 * normal(0, 1) and weights
 * normal(0, 1 / sqrt(fan_in)), as the tasks draw them, so outputs are
 * O(1); the tolerance allows TF32 (10-bit mantissa) products, which cuDNN
 * may use as PyTorch lets it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "krl/ops.h"
#include "gpuoptest.h"
#include "testutil.h"

/* TF32 tier: a TF32 product errs by ~4e-4 relative (rms), so an O(1)
 * output errs by ~4e-4 rms; 1e-2 leaves room for cuDNN's transform
 * algorithms (Winograd, FFT) and still fails a zero or misplaced output. */
#define ATOL 1e-2
#define RTOL 1e-2

/* The tolerance run_case checks with: the TF32 tier's above, or, with
 * TF32 off (krl_opctx_set_tf32(g_ctx, 0): a task of precision fp32),
 * fp32 accumulation's (test_conv_strict), which a TF32 product fails. */
static double g_atol = ATOL, g_rtol = RTOL;

/* ==== One case ==== */

/* When >= 0, run_case also sweeps the `algo` attribute over the case's
 * tensors (gpuop_algo_sweep) with this relative tolerance against algo 0,
 * in each layout. */
static double g_algo_rel = -1;

/* Set while the legacy path runs: its _v7 algorithms may lack NHWC
 * support for a case, and the op must then say so (KRL_EUNSUPPORTED
 * naming the op and layout=nhwc) instead of running it. On the backend
 * path every case must run in NHWC. */
static int g_nhwc_may_fail;

/* Compares got with the golden ref (no elements of y) as abs(g - r) <=
 * ATOL + RTOL * abs(r), prints one line, and returns how many fail. */
static int64_t compare(const char *name, const char *layout,
                       const float *got, const double *ref, int64_t no,
                       shape y)
{
	int64_t bad = 0, worst = -1;
	double max_abs = 0, worst_ex = 0, scale = 0;
	for (int64_t j = 0; j < no; j++) {
		double e = fabs((double)got[j] - ref[j]);
		double lim = g_atol + g_rtol * fabs(ref[j]);
		if (!(e <= lim)) {
			bad++;
			if (worst < 0 || e - lim > worst_ex) {
				worst = j;
				worst_ex = e - lim;
			}
		}
		if (e > max_abs)
			max_abs = e;
		scale += ref[j] * ref[j];
	}
	printf("%-20s %s y [%lld, %lld, ...] (%lld elements) rms %.3g max_abs "
	       "%.3g%s\n", name, layout, (long long)y.dim[0],
	       (long long)y.dim[1], (long long)no, sqrt(scale / (double)no),
	       max_abs, bad ? "  FAIL" : "");
	if (bad)
		fprintf(stderr, "%s %s: %lld of %lld elements outside atol=%g "
		        "rtol=%g; worst at %lld: gpu %.9g, golden %.9g\n", name,
		        layout, (long long)bad, (long long)no, g_atol, g_rtol,
		        (long long)worst, (double)got[worst], ref[worst]);
	return bad;
}

/*
 * Runs op `name` (x, w[, b] -> y: the output shape is found by trying the
 * check, so each case states only its inputs) on the GPU in each layout,
 * twice (the second run takes the cached plan), and in golden float64,
 * and checks every output element of each layout against abs(g - r) <=
 * ATOL + RTOL * abs(r).
 */
static void run_case(const char *name, shape x, shape w, shape y,
                     krl_attrs a)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	int nin = op->nin;
	int transposed = strstr(name, "transpose") != NULL;
	shape ins[3] = { x, w, S(1, transposed ? y.dim[1] : w.dim[0]) };
	/* fan_in of one output: the weights one output channel sees */
	double fan = (double)numel(&w) / (double)w.dim[0];
	if (transposed)
		fan = (double)numel(&w) / (double)w.dim[1] /
		      (double)(y.dim[1] / w.dim[1]);
	krl_tensor hin[3], din[3], hout, dout;
	for (int i = 0; i < nin; i++) {
		int64_t n = numel(&ins[i]);
		double *h = malloc((size_t)n * sizeof(double));
		float *f = malloc((size_t)n * sizeof(float));
		assert_non_null(h);
		assert_non_null(f);
		double sc = i == 1 ? 1 / sqrt(fan) : 1;
		for (int64_t j = 0; j < n; j++) {
			f[j] = (float)(gpuop_nrand() * sc);
			h[j] = (double)f[j];
		}
		memset(&hin[i], 0, sizeof hin[i]);
		hin[i].data = h;
		hin[i].dtype = KRL_F32;
		hin[i].ndim = ins[i].ndim;
		memcpy(hin[i].dim, ins[i].dim, sizeof ins[i].dim);
		din[i] = hin[i];
		void *dp = NULL;
		CK(cudaMalloc(&dp, (size_t)n * sizeof(float)));
		CK(cudaMemcpy(dp, f, (size_t)n * sizeof(float),
		              cudaMemcpyHostToDevice));
		din[i].data = dp;
		free(f);
	}
	int64_t no = numel(&y);
	memset(&hout, 0, sizeof hout);
	hout.dtype = KRL_F32;
	hout.ndim = y.ndim;
	memcpy(hout.dim, y.dim, sizeof y.dim);
	hout.data = calloc((size_t)no, sizeof(double));
	dout = hout;
	void *dp = NULL;
	CK(cudaMalloc(&dp, (size_t)no * 4));
	dout.data = dp;

	char msg[512] = "";
	krl_err r = op->check(hin, &hout, &a, msg, sizeof msg);
	if (r)
		fprintf(stderr, "%s: check: %s\n", name, msg);
	assert_int_equal(r, KRL_OK);
	assert_int_equal(op->golden(hin, &hout, &a), KRL_OK);
	float *got = malloc((size_t)no * sizeof(float));
	assert_non_null(got);
	int64_t bad = 0;
	static const char *const layouts[5] = { "nchw", "nhwc", "nhwc_y",
	                                        "nhwc_xy", "nhwc_xy krsc" };
	/* nhwc_y and nhwc_xy (no bias): y left channels-last, checked
	 * against the golden's channels-last y; nhwc_xy from x stored
	 * channels-last (hxc on the host, dxc on the device) */
	double *hy = calloc((size_t)no, sizeof(double));
	assert_non_null(hy);
	int64_t nx = numel(&x), xs = nx / (x.dim[0] * x.dim[1]);
	double *hxc = malloc((size_t)nx * sizeof(double));
	float *fxc = malloc((size_t)nx * sizeof(float));
	assert_non_null(hxc);
	assert_non_null(fxc);
	for (int64_t n = 0; n < x.dim[0]; n++)
		for (int64_t c = 0; c < x.dim[1]; c++)
			for (int64_t q = 0; q < xs; q++) {
				double v = ((double *)hin[0].data)[(n * x.dim[1] + c) *
				                                   xs + q];
				hxc[(n * xs + q) * x.dim[1] + c] = v;
				fxc[(n * xs + q) * x.dim[1] + c] = (float)v;
			}
	void *dxc = NULL;
	CK(cudaMalloc(&dxc, (size_t)nx * sizeof(float)));
	CK(cudaMemcpy(dxc, fxc, (size_t)nx * sizeof(float),
	              cudaMemcpyHostToDevice));
	free(fxc);
	/* w in cuDNN's channels-last filter format [A, k..., B] (w_layout=
	 * krsc) */
	int64_t nw = numel(&w), wa = w.dim[0], wb = w.dim[1];
	int64_t taps = nw / (wa * wb);
	double *hwc = malloc((size_t)nw * sizeof(double));
	float *fwc = malloc((size_t)nw * sizeof(float));
	assert_non_null(hwc);
	assert_non_null(fwc);
	for (int64_t i = 0; i < wa; i++)
		for (int64_t j = 0; j < wb; j++)
			for (int64_t t = 0; t < taps; t++) {
				double v = ((double *)hin[1].data)[(i * wb + j) * taps + t];
				hwc[(i * taps + t) * wb + j] = v;
				fwc[(i * taps + t) * wb + j] = (float)v;
			}
	void *dwc = NULL;
	CK(cudaMalloc(&dwc, (size_t)nw * sizeof(float)));
	CK(cudaMemcpy(dwc, fwc, (size_t)nw * sizeof(float),
	              cudaMemcpyHostToDevice));
	free(fwc);
	for (int lay = 0; lay < (nin == 2 ? 5 : 2); lay++) {
		krl_attrs al = a;
		krl_tensor want = hout;
		krl_tensor hxin[2] = { hin[0], hin[1] }, dxin[2] = { din[0],
		                                                     din[1] };
		if (lay >= 3) {
			hxin[0].data = hxc;
			dxin[0].data = dxc;
		}
		if (lay == 4) {
			hxin[1].data = hwc;
			dxin[1].data = dwc;
		}
		if (lay) {
			assert_true(al.n + 1 < KRL_MAX_ATTR);
			al.key[al.n] = "layout";
			al.val[al.n++] = lay < 4 ? lay : 3;
			if (lay == 4) {
				al.key[al.n] = "w_layout";
				al.val[al.n++] = 1;
			}
			assert_int_equal(op->check(hin, &hout, &al, msg, sizeof msg),
			                 KRL_OK);
		}
		if (lay >= 2) {
			want.data = hy;
			assert_int_equal(op->golden(hxin, &want, &al), KRL_OK);
		}
		/* NaN: unwritten shows */
		CK(cudaMemset(dp, 0xff, (size_t)no * 4));
		krl_err rr = KRL_OK;
		for (int rep = 0; rep < 2 && !rr; rep++) {
			krl_diag d;
			memset(&d, 0, sizeof d);
			rr = op->run(g_ctx, lay >= 3 ? dxin : din, &dout, &al, &d);
			if (rr == KRL_EUNSUPPORTED && lay >= 2 &&
			    strstr(d.msg, "depthwise")) {
				/* kernelrl's depthwise kernel writes NCHW */
				printf("%-20s %s refused: %s\n", name, layouts[lay],
				       d.msg);
				assert_non_null(strstr(d.msg, lay >= 3 ?
				                       "layout=nhwc_xy" :
				                       "layout=nhwc_y"));
				break;
			}
			if (rr == KRL_EUNSUPPORTED && lay && g_nhwc_may_fail) {
				printf("%-20s nhwc unsupported: %s\n", name, d.msg);
				assert_non_null(strstr(d.msg, name));
				assert_non_null(strstr(d.msg, "layout=nhwc"));
				break;
			}
			KRL_ASSERT_OK(rr, &d);
		}
		if (rr)
			continue;
		CK(cudaStreamSynchronize(g_stream));
		CK(cudaMemcpy(got, dp, (size_t)no * 4, cudaMemcpyDeviceToHost));
		bad += compare(name, layouts[lay], got, want.data, no, y);
		if (g_algo_rel >= 0) {
			int ran = gpuop_algo_sweep(name, lay >= 3 ? dxin : din, &dout, no, al,
			                           g_algo_rel);
			printf("%s %s: %d usable algorithm%s\n", name, layouts[lay],
			       ran, ran == 1 ? "" : "s");
		}
	}
	for (int i = 0; i < nin; i++) {
		cudaFree(din[i].data);
		free(hin[i].data);
	}
	cudaFree(dp);
	cudaFree(dxc);
	cudaFree(dwc);
	free(hout.data);
	free(hy);
	free(hxc);
	free(hwc);
	free(got);
	assert_int_equal(bad, 0);
}

/* ==== Tests ==== */

static void test_conv2d(void **state)
{
	(void)state;
	/* tiny and odd */
	run_case("conv", S(4, I(1), I(1), I(3), I(3)),
	         S(4, I(1), I(1), I(2), I(2)), S(4, I(1), I(1), I(2), I(2)),
	         A(0));
	run_case("conv", S(4, I(2), I(3), I(7), I(9)),
	         S(4, I(5), I(3), I(3), I(2)), S(4, I(2), I(5), I(3), I(9)),
	         A(4, "stride_h", 2.0, "padding_w", 1.0, "dilation_w", 2.0,
	           "padding_h", 0.0));
	/* mid-size, KernelBench-like: 3 -> 64 channels, 3x3 */
	run_case("conv", S(4, I(4), I(3), I(64), I(96)),
	         S(4, I(64), I(3), I(3), I(3)),
	         S(4, I(4), I(64), I(62), I(94)), A(0));
	/* asymmetric kernel, padded and dilated (problem 80's kind) */
	run_case("conv", S(4, I(2), I(16), I(40), I(40)),
	         S(4, I(32), I(16), I(3), I(5)),
	         S(4, I(2), I(32), I(38), I(40)),
	         A(4, "padding_h", 1.0, "padding_w", 2.0, "dilation_h", 2.0,
	           "dilation_w", 1.0));
	/* strided with bias (problem 50's kind: 11x11, stride 4, pad 2) */
	run_case("conv_bias", S(4, I(2), I(3), I(67), I(67)),
	         S(4, I(24), I(3), I(11), I(11)),
	         S(4, I(2), I(24), I(16), I(16)),
	         A(2, "stride", 4.0, "padding", 2.0));
	run_case("conv_bias", S(4, I(1), I(2), I(3), I(3)),
	         S(4, I(3), I(2), I(2), I(2)), S(4, I(1), I(3), I(2), I(2)),
	         A(0));
	/* pointwise */
	run_case("conv", S(4, I(2), I(32), I(20), I(24)),
	         S(4, I(48), I(32), I(1), I(1)),
	         S(4, I(2), I(48), I(20), I(24)), A(0));
}

static void test_conv_grouped(void **state)
{
	(void)state;
	/* groups 2, tiny */
	run_case("conv", S(4, I(1), I(2), I(2), I(2)),
	         S(4, I(4), I(1), I(1), I(1)), S(4, I(1), I(4), I(2), I(2)),
	         A(1, "groups", 2.0));
	/* depthwise 3x3 and (3, 1), mid-size */
	run_case("conv", S(4, I(2), I(32), I(50), I(70)),
	         S(4, I(32), I(1), I(3), I(3)),
	         S(4, I(2), I(32), I(48), I(68)), A(1, "groups", 32.0));
	run_case("conv", S(4, I(2), I(8), I(33), I(20)),
	         S(4, I(8), I(1), I(3), I(1)),
	         S(4, I(2), I(8), I(31), I(20)), A(1, "groups", 8.0));
	/* grouped 4, strided */
	run_case("conv", S(4, I(2), I(16), I(31), I(29)),
	         S(4, I(24), I(4), I(3), I(3)),
	         S(4, I(2), I(24), I(15), I(14)),
	         A(2, "groups", 4.0, "stride", 2.0));
}

/* Depthwise convolutions (groups == Cin) run depthwise.cu, PyTorch's
 * conv_depthwise2d / conv_depthwise3d: one case per kernel specialisation
 * and tap-range edge. */
static void test_conv_depthwise(void **state)
{
	(void)state;
	/* problem 83's kind: (3, 1) kernel (the generic 2D kernel), bias */
	run_case("conv_bias", S(4, I(4), I(8), I(130), I(96)),
	         S(4, I(8), I(1), I(3), I(1)),
	         S(4, I(4), I(8), I(128), I(96)), A(1, "groups", 8.0));
	/* generic, padded, strided, dilated:
	 * h: (23 + 4 - 6 - 1) / 2 + 1 = 11; w: (19 + 2 - 1 - 1) / 2 + 1 = 10 */
	run_case("conv", S(4, I(2), I(6), I(23), I(19)),
	         S(4, I(6), I(1), I(3), I(2)),
	         S(4, I(2), I(6), I(11), I(10)),
	         A(5, "groups", 6.0, "stride", 2.0, "padding_h", 2.0,
	           "padding_w", 1.0, "dilation_h", 3.0));
	/* padding as wide as the kernel: the first and last outputs along w
	 * have no tap inside the input (7 + 8 - 3 - 1 + 1 = 12) */
	run_case("conv_bias", S(4, I(1), I(3), I(5), I(7)),
	         S(4, I(3), I(1), I(1), I(4)),
	         S(4, I(1), I(3), I(5), I(12)),
	         A(2, "groups", 3.0, "padding_w", 4.0));
	/* 3x3 with a channel multiplier of 2 and bias */
	run_case("conv_bias", S(4, I(2), I(4), I(17), I(15)),
	         S(4, I(8), I(1), I(3), I(3)),
	         S(4, I(2), I(8), I(17), I(15)),
	         A(2, "groups", 4.0, "padding", 1.0));
	/* 5x5, stride 2, padded: (21 + 4 - 5) / 2 + 1 = 11, 19 / 2 + 1 = 10 */
	run_case("conv", S(4, I(2), I(8), I(21), I(20)),
	         S(4, I(8), I(1), I(5), I(5)),
	         S(4, I(2), I(8), I(11), I(10)),
	         A(3, "groups", 8.0, "stride", 2.0, "padding", 2.0));
	/* 1x1 */
	run_case("conv", S(4, I(2), I(5), I(7), I(9)),
	         S(4, I(5), I(1), I(1), I(1)), S(4, I(2), I(5), I(7), I(9)),
	         A(1, "groups", 5.0));
	/* 1D (as 2D with a unit height): 50 + 2 - 4 - 1 + 1 = 48 */
	run_case("conv", S(3, I(3), I(6), I(50)), S(3, I(6), I(1), I(3)),
	         S(3, I(3), I(6), I(48)),
	         A(3, "groups", 6.0, "padding", 1.0, "dilation", 2.0));
	/* 3D 3x3x3, padded */
	run_case("conv", S(5, I(2), I(4), I(7), I(9), I(8)),
	         S(5, I(4), I(1), I(3), I(3), I(3)),
	         S(5, I(2), I(4), I(7), I(9), I(8)),
	         A(2, "groups", 4.0, "padding", 1.0));
	/* 3D, unit dilation, other kernel */
	run_case("conv", S(5, I(2), I(2), I(6), I(7), I(8)),
	         S(5, I(2), I(1), I(2), I(3), I(1)),
	         S(5, I(2), I(2), I(5), I(5), I(8)), A(1, "groups", 2.0));
	/* 3D dilated, strided, padded, multiplier 2, bias:
	 * d: 9 - 2 - 1 + 1 = 7; h: 8 + 2 - 4 - 1 + 1 = 6;
	 * w: (10 - 2 - 1) / 2 + 1 = 4 */
	run_case("conv_bias", S(5, I(1), I(3), I(9), I(8), I(10)),
	         S(5, I(6), I(1), I(2), I(3), I(2)),
	         S(5, I(1), I(6), I(7), I(6), I(4)),
	         A(4, "groups", 3.0, "dilation", 2.0, "stride_w", 2.0,
	           "padding_h", 1.0));
}

static void test_conv1d_3d(void **state)
{
	(void)state;
	run_case("conv", S(3, I(1), I(1), I(5)), S(3, I(1), I(1), I(3)),
	         S(3, I(1), I(1), I(3)), A(2, "stride", 2.0, "padding", 1.0));
	/* problem 76's kind: stride 3, dilation 4 */
	run_case("conv", S(3, I(4), I(16), I(1000)), S(3, I(32), I(16), I(3)),
	         S(3, I(4), I(32), I(331)),
	         A(2, "stride", 3.0, "dilation", 4.0));
	run_case("conv", S(5, I(1), I(2), I(3), I(4), I(5)),
	         S(5, I(3), I(2), I(2), I(3), I(2)),
	         S(5, I(1), I(3), I(2), I(2), I(4)), A(0));
	/* 3D, asymmetric kernel (3, 5, 7) */
	run_case("conv", S(5, I(2), I(3), I(10), I(24), I(28)),
	         S(5, I(16), I(3), I(3), I(5), I(7)),
	         S(5, I(2), I(16), I(8), I(20), I(22)), A(0));
	run_case("conv_bias", S(5, I(1), I(4), I(9), I(9), I(9)),
	         S(5, I(8), I(2), I(3), I(3), I(3)),
	         S(5, I(1), I(8), I(5), I(5), I(5)),
	         A(3, "groups", 2.0, "stride", 2.0, "padding", 1.0));
}

static void test_conv_transpose(void **state)
{
	(void)state;
	/* 2D tiny, stride 2 */
	run_case("conv_transpose", S(4, I(1), I(1), I(2), I(2)),
	         S(4, I(1), I(1), I(2), I(2)), S(4, I(1), I(1), I(4), I(4)),
	         A(1, "stride", 2.0));
	/* 2D mid, plain (problem 57's kind) */
	run_case("conv_transpose", S(4, I(2), I(32), I(40), I(48)),
	         S(4, I(32), I(64), I(3), I(3)),
	         S(4, I(2), I(64), I(42), I(50)), A(0));
	/* 2D strided, grouped, padded, dilated (problem 75's kind):
	 * h: (20-1)*2 - 2 + 2*2 + 1 = 41; w: (24-1)*3 - 4 + 4 + 1 = 70 */
	run_case("conv_transpose", S(4, I(2), I(16), I(20), I(24)),
	         S(4, I(16), I(8), I(3), I(5)),
	         S(4, I(2), I(32), I(41), I(70)),
	         A(6, "stride_h", 2.0, "stride_w", 3.0, "padding_h", 1.0,
	           "padding_w", 2.0, "dilation_h", 2.0, "groups", 4.0));
	/* 1D dilated (problem 74) and strided+padded+dilated (79):
	 * (100-1)*2 - 2 + 2*2 + 1 = 201 */
	run_case("conv_transpose", S(3, I(2), I(8), I(100)),
	         S(3, I(8), I(16), I(5)), S(3, I(2), I(16), I(112)),
	         A(1, "dilation", 3.0));
	run_case("conv_transpose", S(3, I(2), I(16), I(100)),
	         S(3, I(16), I(32), I(3)), S(3, I(2), I(32), I(201)),
	         A(3, "stride", 2.0, "padding", 1.0, "dilation", 2.0));
	/* 3D, strided, padded, output_padding, grouped (problem 72):
	 * d: (6-1)*2 - 2 + 2 + 1 + 1 = 12; h: (8-1)*2 - 4 + 4 + 2 = 16;
	 * w: (10-1)*2 - 6 + 6 + 2 = 20 */
	run_case("conv_transpose", S(5, I(2), I(16), I(6), I(8), I(10)),
	         S(5, I(16), I(4), I(3), I(5), I(7)),
	         S(5, I(2), I(4), I(12), I(16), I(20)),
	         A(5, "stride", 2.0, "padding_d", 1.0, "padding_h", 2.0,
	           "padding_w", 3.0, "output_padding", 1.0));
	/* problem 73's kind: 3D, stride 2, padding 1, groups 4 (8 channels
	 * per group): (6 - 1) * 2 - 2 + 3 = 11, 15, 19 */
	run_case("conv_transpose", S(5, I(2), I(32), I(6), I(8), I(10)),
	         S(5, I(32), I(8), I(3), I(3), I(3)),
	         S(5, I(2), I(32), I(11), I(15), I(19)),
	         A(3, "stride", 2.0, "padding", 1.0, "groups", 4.0));
	/* (problem 72 uses groups=4 as well) */
	run_case("conv_transpose", S(5, I(1), I(16), I(6), I(8), I(10)),
	         S(5, I(16), I(4), I(3), I(5), I(7)),
	         S(5, I(1), I(16), I(12), I(16), I(20)),
	         A(6, "stride", 2.0, "padding_d", 1.0, "padding_h", 2.0,
	           "padding_w", 3.0, "output_padding", 1.0, "groups", 4.0));
	/* 3D tiny with bias, and 2D with bias */
	run_case("conv_transpose_bias", S(5, I(1), I(2), I(2), I(2), I(2)),
	         S(5, I(2), I(3), I(2), I(2), I(2)),
	         S(5, I(1), I(3), I(3), I(3), I(3)), A(0));
	run_case("conv_transpose_bias", S(4, I(2), I(8), I(9), I(11)),
	         S(4, I(8), I(6), I(3), I(3)),
	         S(4, I(2), I(6), I(19), I(23)), A(1, "stride", 2.0));
}

/* The legacy cuDNN path (KRL_CUDNN_V7=1: _v7 heuristics, batch splitting)
 * on one case of each kind it serves. */
/* Strict fp32 (krl_opctx_set_tf32(g_ctx, 0), as krl_exec sets it for a
 * task of precision fp32: level 3's 10, 20, 45): no tensor-core engine,
 * FMA math on the legacy path. Fan-ins of 576 and 1152 make a TF32
 * product's ~4e-4 relative error (rms; ~1.5e-3 at worst over these
 * outputs) fail 1e-4, which fp32 accumulation (Winograd's transforms
 * included) keeps; on both paths, every layout. */
static void test_conv_strict(void **state)
{
	(void)state;
	krl_opctx_set_tf32(g_ctx, 0);
	g_atol = 1e-4;
	g_rtol = 1e-4;
	for (int v7 = 0; v7 < 2; v7++) {
		if (v7)
			setenv("KRL_CUDNN_V7", "1", 1);
		g_nhwc_may_fail = v7;
		run_case("conv", S(4, I(2), I(64), I(28), I(28)),
		         S(4, I(64), I(64), I(3), I(3)),
		         S(4, I(2), I(64), I(28), I(28)), A(1, "padding", 1.0));
		run_case("conv_bias", S(4, I(2), I(128), I(14), I(14)),
		         S(4, I(96), I(128), I(3), I(3)),
		         S(4, I(2), I(96), I(7), I(7)),
		         A(2, "stride", 2.0, "padding", 1.0));
		unsetenv("KRL_CUDNN_V7");
	}
	g_nhwc_may_fail = 0;
	g_atol = ATOL;
	g_rtol = RTOL;
	krl_opctx_set_tf32(g_ctx, 1);
}

static void test_conv_legacy(void **state)
{
	(void)state;
	setenv("KRL_CUDNN_V7", "1", 1);
	g_nhwc_may_fail = 1;
	run_case("conv_bias", S(4, I(2), I(3), I(67), I(67)),
	         S(4, I(24), I(3), I(11), I(11)),
	         S(4, I(2), I(24), I(16), I(16)),
	         A(2, "stride", 4.0, "padding", 2.0));
	run_case("conv", S(4, I(2), I(16), I(31), I(29)),
	         S(4, I(24), I(4), I(3), I(3)),
	         S(4, I(2), I(24), I(15), I(14)),
	         A(2, "groups", 4.0, "stride", 2.0));
	run_case("conv_transpose", S(5, I(2), I(32), I(6), I(8), I(10)),
	         S(5, I(32), I(8), I(3), I(3), I(3)),
	         S(5, I(2), I(32), I(11), I(15), I(19)),
	         A(3, "stride", 2.0, "padding", 1.0, "groups", 4.0));
	run_case("conv_transpose_bias", S(4, I(2), I(8), I(9), I(11)),
	         S(4, I(8), I(6), I(3), I(3)),
	         S(4, I(2), I(6), I(19), I(23)), A(1, "stride", 2.0));
	unsetenv("KRL_CUDNN_V7");
	g_nhwc_may_fail = 0;
}

/* The `algo` attribute: each usable cuDNN engine config agrees with the
 * first (TF32 engines are allowed, as PyTorch allows them), on both paths,
 * for a convolution and a transposed one, in each layout (layout=nhwc:
 * the K-th engine of the NHWC problem); a depthwise one ignores it (the
 * same kernel runs: the same bits). Each case is also checked against
 * the golden, as every case is. */
static void test_conv_algo(void **state)
{
	(void)state;
	for (int v7 = 0; v7 < 2; v7++) {
		if (v7)
			setenv("KRL_CUDNN_V7", "1", 1);
		g_nhwc_may_fail = v7;
		g_algo_rel = 5e-3;
		run_case("conv", S(4, I(4), I(16), I(32), I(32)),
		         S(4, I(32), I(16), I(3), I(3)),
		         S(4, I(4), I(32), I(32), I(32)), A(1, "padding", 1.0));
		run_case("conv_transpose", S(4, I(2), I(32), I(9), I(11)),
		         S(4, I(32), I(8), I(3), I(3)),
		         S(4, I(2), I(16), I(19), I(23)),
		         A(2, "stride", 2.0, "groups", 2.0));
		g_algo_rel = 0;
		run_case("conv", S(4, I(2), I(8), I(17), I(19)),
		         S(4, I(8), I(1), I(3), I(3)),
		         S(4, I(2), I(8), I(15), I(17)), A(1, "groups", 8.0));
		g_algo_rel = -1;
		g_nhwc_may_fail = 0;
		unsetenv("KRL_CUDNN_V7");
	}
}

int main(void)
{
	g_rng = 0x9e3779b97f4a7c15ull;
	krl_test_require_gpu("gpu_ops_conv");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conv2d),
		cmocka_unit_test(test_conv_grouped),
		cmocka_unit_test(test_conv_depthwise),
		cmocka_unit_test(test_conv1d_3d),
		cmocka_unit_test(test_conv_transpose),
		cmocka_unit_test(test_conv_legacy),
		cmocka_unit_test(test_conv_strict),
		cmocka_unit_test(test_conv_algo),
	};
	return cmocka_run_group_tests(tests, gpuop_setup, gpuop_teardown);
}
