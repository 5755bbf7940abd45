/*
 * kernelrl: depthwise convolutions (groups == input channels), the kernels
 * PyTorch eager runs for float tensors instead of cuDNN (docs/ops-conv.md,
 * "Depthwise"): its use_cudnn_depthwise is true only for fp16 or
 * channels-last tensors, so an fp32 NCHW depthwise Conv2d goes to
 * conv_depthwise2d (ATen cuda/DepthwiseConv2d.cu) and a Conv3d to
 * conv_depthwise3d (cuda/DepthwiseConv3d.cu). Both are exact fp32, one
 * thread per output element, 32-bit indexing; they are reproduced here
 * with the same launch shapes and the same order of operations:
 *
 * - 2D: 1024-thread blocks, ceil(outputs / 1024) blocks, each thread one
 *   output (a grid-stride loop that runs once). 5x5, 3x3 and 1x1 kernels
 *   unroll their taps and test each tap against the input bounds; other
 *   kernels (e.g. (3, 1)) first compute the range of taps that fall inside
 *   the input and loop over it without tests. The bias, if any, is the
 *   accumulator's initial value.
 * - 3D: 256-thread blocks, at most 65536 blocks with a grid-stride loop;
 *   the tap loops are specialised for a 3x3x3 kernel with unit dilation
 *   and for unit dilation; every tap is tested against the bounds; the
 *   bias is added after the taps.
 *
 * A channel multiplier (cout = k * cin) is supported as PyTorch does:
 * output channel c reads input channel c / k.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "ops/conv/conv.h"

#define DW2D_THREADS 1024
#define DW3D_THREADS 256
#define DW3D_MAX_BLOCKS 65536

/* ==== 2D ==== */

/* Sizes of one launch, all within int (the caller splits the batch so
 * that x and y have at most 2^31 - 1 elements). */
struct dw2d_args {
	int total;                   /* outputs */
	int cout, mult;              /* output channels, cout / cin */
	int ih, iw, oh, ow;
	int kh, kw, sh, sw, ph, pw, dh, dw;
};

/* Splits linear output index i into (n, c, h, w). */
__device__ __forceinline__ void dw2d_coords(const dw2d_args &a, int i,
                                            int *n, int *c, int *h, int *w)
{
	int q = i / a.ow;
	*w = i - q * a.ow;
	int q2 = q / a.oh;
	*h = q - q2 * a.oh;
	*n = q2 / a.cout;
	*c = q2 - *n * a.cout;
}

/* Output i's channel c, the offset of its input plane (channel c / mult
 * of its sample) and the input position of its first tap (h0, w0). */
__device__ __forceinline__ void dw2d_site(const dw2d_args &a, int i, int *c,
                                          int *base, int *h0, int *w0)
{
	int n, h, w;
	dw2d_coords(a, i, &n, c, &h, &w);
	int cin = a.cout, ci = *c;
	if (a.mult != 1) {
		cin /= a.mult;
		ci /= a.mult;
	}
	*base = (n * cin + ci) * a.ih * a.iw;
	*h0 = h * a.sh - a.ph;
	*w0 = w * a.sw - a.pw;
}

/* A kernel of K x K taps (K = 5, 3 or 1), unrolled, each tap tested. */
template <int K>
__global__ void __launch_bounds__(DW2D_THREADS)
dw2d_square(const float *x, const float *wt, const float *b, float *y,
            dw2d_args a)
{
	for (int64_t i64 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	     i64 < a.total; i64 += (int64_t)blockDim.x * gridDim.x) {
		int i = (int)i64, c, base, h0, w0;
		dw2d_site(a, i, &c, &base, &h0, &w0);
		int wo = c * K * K;
		float acc = b ? b[c] : 0.f;
#pragma unroll
		for (int r = 0; r < K; r++) {
#pragma unroll
			for (int s = 0; s < K; s++) {
				int hi = h0 + r * a.dh, wi = w0 + s * a.dw;
				if (hi >= 0 && hi < a.ih && wi >= 0 && wi < a.iw)
					acc += wt[wo] * x[base + hi * a.iw + wi];
				wo++;
			}
		}
		y[i] = acc;
	}
}

/* The first tap index whose position p0 + t * dil is >= 0, and one past
 * the last whose position is < size (the range may be empty). */
__device__ __forceinline__ void dw_tap_range(int p0, int k, int dil,
                                             int size, int *lo, int *hi)
{
	*lo = p0 < 0 ? (-p0 + dil - 1) / dil : 0;
	int over = p0 + (k - 1) * dil - (size - 1);
	*hi = over > 0 ? k - (over + dil - 1) / dil : k;
}

/* Any other kernel size: the in-bounds tap ranges are computed first, so
 * the loop body has no tests. */
__global__ void __launch_bounds__(DW2D_THREADS)
dw2d_generic(const float *x, const float *wt, const float *b, float *y,
             dw2d_args a)
{
	for (int64_t i64 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	     i64 < a.total; i64 += (int64_t)blockDim.x * gridDim.x) {
		int i = (int)i64, c, base, h0, w0;
		dw2d_site(a, i, &c, &base, &h0, &w0);
		int wo = c * a.kh * a.kw;
		int rlo, rhi, slo, shi;
		dw_tap_range(h0, a.kh, a.dh, a.ih, &rlo, &rhi);
		dw_tap_range(w0, a.kw, a.dw, a.iw, &slo, &shi);
		float acc = b ? b[c] : 0.f;
		for (int r = rlo; r < rhi; r++) {
			int hi = h0 + r * a.dh;
			for (int s = slo; s < shi; s++) {
				int wi = w0 + s * a.dw;
				acc += wt[wo + r * a.kw + s] *
				       x[base + hi * a.iw + wi];
			}
		}
		y[i] = acc;
	}
}

static int dw2d(const krl_dwconv *g, const float *x, const float *w,
                const float *b, float *y, cudaStream_t s)
{
	dw2d_args a;
	a.cout = g->cout;
	a.mult = g->cout / g->cin;
	a.ih = g->in[0];
	a.iw = g->in[1];
	a.oh = g->out[0];
	a.ow = g->out[1];
	a.kh = g->k[0];
	a.kw = g->k[1];
	a.sh = g->stride[0];
	a.sw = g->stride[1];
	a.ph = g->pad[0];
	a.pw = g->pad[1];
	a.dh = g->dil[0];
	a.dw = g->dil[1];
	int64_t total = (int64_t)g->n * g->cout * a.oh * a.ow;
	if (total == 0)
		return 0;
	if (total > 0x7fffffff)
		return (int)cudaErrorInvalidValue;
	a.total = (int)total;
	unsigned blocks = (unsigned)((total + DW2D_THREADS - 1) / DW2D_THREADS);
	if (a.kh == 5 && a.kw == 5)
		dw2d_square<5><<<blocks, DW2D_THREADS, 0, s>>>(x, w, b, y, a);
	else if (a.kh == 3 && a.kw == 3)
		dw2d_square<3><<<blocks, DW2D_THREADS, 0, s>>>(x, w, b, y, a);
	else if (a.kh == 1 && a.kw == 1)
		dw2d_square<1><<<blocks, DW2D_THREADS, 0, s>>>(x, w, b, y, a);
	else
		dw2d_generic<<<blocks, DW2D_THREADS, 0, s>>>(x, w, b, y, a);
	return (int)cudaGetLastError();
}

/* ==== 3D ==== */

struct dw3d_args {
	int total;
	int cout, mult;
	int id, ih, iw, od, oh, ow;
	int kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw;
};

/* Deliberate twin of the 2-d kernels: the 3-d kernel repeats their
 * index walk over one more dim; one template would hide the two layouts
 * (launch shapes, bias order) that PyTorch's two kernels have. */

/* KD, KH, KW > 0: the kernel size known at compile time (0: read from
 * a); DIL1: every dilation is 1. */
template <int KD, int KH, int KW, bool DIL1>
__global__ void __launch_bounds__(DW3D_THREADS)
dw3d_kernel(const float *x, const float *wt, const float *b, float *y,
            dw3d_args a)
{
	const int kd = KD > 0 ? KD : a.kd;
	const int kh = KH > 0 ? KH : a.kh;
	const int kw = KW > 0 ? KW : a.kw;
	const int dd = DIL1 ? 1 : a.dd;
	const int dh = DIL1 ? 1 : a.dh;
	const int dw = DIL1 ? 1 : a.dw;
	for (int64_t i64 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	     i64 < a.total; i64 += (int64_t)blockDim.x * gridDim.x) {
		int i = (int)i64;
		int w = i % a.ow;
		int h = (i / a.ow) % a.oh;
		int d = (i / a.ow / a.oh) % a.od;
		int c = (i / a.ow / a.oh / a.od) % a.cout;
		int n = i / a.ow / a.oh / a.od / a.cout;
		int cin = a.cout / a.mult, ci = c / a.mult;
		int w0 = w * a.sw - a.pw;
		int h0 = h * a.sh - a.ph;
		int d0 = d * a.sd - a.pd;
		const float *wp = wt + c * kd * kh * kw;
		/* offset of tap (0, 0, 0), possibly outside the input; it
		 * walks the taps and is read only where they are inside */
		int64_t off = (int64_t)((n * cin + ci) * a.id) * a.ih * a.iw +
		              (int64_t)d0 * a.ih * a.iw + h0 * a.iw + w0;
		float acc = 0.f;
		for (int t = 0; t < kd; t++) {
			int di = d0 + t * dd;
			for (int r = 0; r < kh; r++) {
				int hi = h0 + r * dh;
				for (int s = 0; s < kw; s++) {
					float wv = *wp++;
					int wi = w0 + s * dw;
					if (di >= 0 && hi >= 0 && wi >= 0 &&
					    di < a.id && hi < a.ih && wi < a.iw)
						acc += wv * x[off];
					off += dw;
				}
				off += a.iw * dh - kw * dw;
			}
			off += a.iw * (a.ih * dd - kh * dh);
		}
		if (b)
			acc += b[c];
		y[i] = acc;
	}
}

/* The 3-d twin of dw2d: the kernels take named scalars (kept in
 * registers and constant-folded by the K specialisations), not arrays, so
 * each dimension's pack is filled field by field. */
static int dw3d(const krl_dwconv *g, const float *x, const float *w,
                const float *b, float *y, cudaStream_t s)
{
	dw3d_args a;
	a.cout = g->cout;
	a.mult = g->cout / g->cin;
	a.id = g->in[0];
	a.ih = g->in[1];
	a.iw = g->in[2];
	a.od = g->out[0];
	a.oh = g->out[1];
	a.ow = g->out[2];
	a.kd = g->k[0];
	a.kh = g->k[1];
	a.kw = g->k[2];
	a.sd = g->stride[0];
	a.sh = g->stride[1];
	a.sw = g->stride[2];
	a.pd = g->pad[0];
	a.ph = g->pad[1];
	a.pw = g->pad[2];
	a.dd = g->dil[0];
	a.dh = g->dil[1];
	a.dw = g->dil[2];
	int64_t total = (int64_t)g->n * g->cout * a.od * a.oh * a.ow;
	if (total == 0)
		return 0;
	if (total > 0x7fffffff)
		return (int)cudaErrorInvalidValue;
	a.total = (int)total;
	int64_t nb = (total + DW3D_THREADS - 1) / DW3D_THREADS;
	unsigned blocks = (unsigned)(nb < DW3D_MAX_BLOCKS ? nb
	                                                  : DW3D_MAX_BLOCKS);
	bool dil1 = a.dd == 1 && a.dh == 1 && a.dw == 1;
	if (dil1 && a.kd == 3 && a.kh == 3 && a.kw == 3)
		dw3d_kernel<3, 3, 3, true><<<blocks, DW3D_THREADS, 0, s>>>(
			x, w, b, y, a);
	else if (dil1)
		dw3d_kernel<0, 0, 0, true><<<blocks, DW3D_THREADS, 0, s>>>(
			x, w, b, y, a);
	else
		dw3d_kernel<0, 0, 0, false><<<blocks, DW3D_THREADS, 0, s>>>(
			x, w, b, y, a);
	return (int)cudaGetLastError();
}

/* ==== Entry ==== */

extern "C" int krl_k_conv_depthwise(const krl_dwconv *g, const float *x,
                                    const float *w, const float *b,
                                    float *y, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	if (g->cin < 1 || g->cout % g->cin)
		return (int)cudaErrorInvalidValue;
	if (g->nsp == 2)
		return dw2d(g, x, w, b, y, s);
	if (g->nsp == 3)
		return dw3d(g, x, w, b, y, s);
	return (int)cudaErrorInvalidValue;
}
