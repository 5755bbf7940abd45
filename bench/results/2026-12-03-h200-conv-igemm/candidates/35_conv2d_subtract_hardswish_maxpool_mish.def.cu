/*
 * krl-choice: rule.conv_bias=on pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nchw conv.impl=lib
 * Task level2/35_conv2d_subtract_hardswish_maxpool_mish, generated at shape set kb1; it serves every shape set.
 * fused 15 ops into 2 kernels: 1 pool (block 256, ept 1, inc taps), 1 library
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: pool
 * Every kernel indexes with 64-bit integers, guards every load and store,
 * and takes its vector path only where a run-time check says sizes allow.
 */

/* NVRTC has no <math.h>: spell out infinity. */
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

/* a / b and a % b for a >= 0, b > 0: 32-bit division when both fit. */
static __device__ __forceinline__ long krl_div(long a, long b)
{
	return ((unsigned long)a | (unsigned long)b) < 0x100000000ul ?
	       (long)((unsigned)a / (unsigned)b) : a / b;
}

static __device__ __forceinline__ long krl_mod(long a, long b)
{
	return ((unsigned long)a | (unsigned long)b) < 0x100000000ul ?
	       (long)((unsigned)a % (unsigned)b) : a % b;
}

/* min and max of 64-bit indices */
static __device__ __forceinline__ long krl_minl(long a, long b)
{
	return a < b ? a : b;
}

static __device__ __forceinline__ long krl_maxl(long a, long b)
{
	return a > b ? a : b;
}

/* max and min that propagate NaN, as torch's do */
static __device__ __forceinline__ float krl_maxf(float a, float b)
{
	return (a > b || a != a) ? a : b;
}

static __device__ __forceinline__ float krl_minf(float a, float b)
{
	return (a < b || a != a) ? a : b;
}
/* k1_pool's outputs, with offsets and coordinates in a plane of type I:
 * int when the plane, widened by a window's reach, fits (the usual case),
 * else long */
template <typename I>
static __device__ __forceinline__ void
k1_pool_walk(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	const float *__restrict__ p_t4,
	long a7,
	long a8,
	const float *__restrict__ p_b,
	double c10,
	float *__restrict__ p_y)
{
	const float v3 = (float)c10;
	const float v5 = 3.000000000e+00f;
	const float v7 = 0.000000000e+00f;
	const float v9 = 6.000000000e+00f;
	const float v13 = 2.000000000e+01f;
	/* x is [.., IH, IW] and the output [.., OH, OW], seen as [rows, OW] */
	const long rows = a0, IH = a1, IW = a2, OH = a3, OW = a4;
	const long ksize = a5, stride = a5, pad = 0, dil = 1;
	const long plane = IH * IW; /* elements of an input plane */
	/* a warp takes 32 consecutive outputs of a row, lane l the outputs l, l + 32, ... */
	const long groups = (OW + 31) / 32; /* per row */
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize * dil;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k1_pool_walk<long>(a0, a1, a2, a3, a4, a5, p_t4, a7, a8, p_b, c10, p_y);
			return;
		}
	}
	const I nH = IH, nW = IW; /* the input's sizes */
	const I st = stride, pd = pad, dl = dil;
	const I kx = (ksize - 1) * dil + 1; /* a window's extent */
	const I hstep = dl * nW; /* from a tap row to the next */
	for (long t = (long)blockIdx.x * 256 + threadIdx.x; t < rows * groups * 32;
	     t += (long)gridDim.x * 256) {
		const long row = krl_div(t >> 5, groups);
		const long ow0 = ((t >> 5) - row * groups) * 32 + (t & 31);
		const long pl = krl_div(row, OH); /* the plane */
		const I oh = row - pl * OH;
		const long xb = pl * plane; /* where the plane starts in x */
		const I hs = oh * st - pd; /* window start */
		/* the taps inside the input: the first past the padding, in steps of dl */
		const I hlo = hs >= 0 ? hs : hs + (dl - 1 - hs) / dl * dl;
		const I hhi = hs + kx < nH ? hs + kx : nH;
		const long ow = ow0;
		if (ow >= OW)
			continue;
		const I ws = (I)ow * st - pd; /* window start */
		/* the taps inside the input: the first past the padding, in steps of dl */
		const I wlo = ws >= 0 ? ws : ws + (dl - 1 - ws) / dl * dl;
		const I whi = ws + kx < nW ? ws + kx : nW;
		float m = -INFINITY;
		for (I xh = hlo * nW; xh < hhi * nW; xh += hstep) {
			for (I xw = xh + wlo; xw < xh + whi; xw += dl) {
				const long xi = xb + xw;
				const float v0 = p_t4[xi];
				const float v1 = p_b[(krl_mod(krl_div(xi, a7), a8))];
				const float v2 = ((v0) + (v1));
				const float v4 = ((v2) + (v3));
				const float v6 = ((v4) + (v5));
				const float v8 = krl_maxf(v6, v7);
				const float v10 = krl_minf(v8, v9);
				const float v11 = ((v4) * (v10));
				const float v12 = ((v11) / (v9));
				if (v12 > m || v12 != v12) /* NaN wins */
					m = v12;
			}
		}
		const long o = row * OW + ow;
		const float v14 = ((float)((m) > (v13)));
		const float v15 = expf(m);
		const float v16 = log1pf(v15);
		const float v17 = ((v14) != 0.f ? (m) : (v16));
		const float v18 = tanhf(v17);
		const float v19 = ((m) * (v18));
		p_y[o] = v19;
	}
}

/*
 * k1 (pool: 2-d max over windows of its input (computed at every tap), 1 output per thread along the last dim, 256 threads): nodes 5 view, 6 add, 8 add, 12 add, 13 max, 14 min, 15 mul, 16 div, 17 max_pool, 19 gt, 20 exp, 21 log1p, 22 where, 23 tanh, 24 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_pool(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	const float *__restrict__ p_t4,
	long a7,
	long a8,
	const float *__restrict__ p_b,
	double c10,
	float *__restrict__ p_y)
{
	k1_pool_walk<int>(a0, a1, a2, a3, a4, a5, p_t4, a7, a8, p_b, c10, p_y);
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (oh), (ow)]
# k0: library call (node 4)
call conv(x, w) -> t4
launch k1_pool grid=(min(cdiv((batch_size) * (out_channels) * (ph) * cdiv((pw), 32) * 32, 256), sm_count * 1024)) block=(256) args((batch_size) * (out_channels) * (ph),
    (oh),
    (ow),
    (ph),
    (pw),
    (pool_kernel_size),
    t4,
    (oh) * (ow),
    (out_channels),
    b,
    (-subtract_value),
    y)
@*/
