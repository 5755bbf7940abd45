/*
 * krl-choice: rule.conv_bias=on pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nhwc_y conv.impl=lib
 * Task level2/35_conv2d_subtract_hardswish_maxpool_mish, generated at shape set kb1; it serves every shape set.
 * fused 15 ops into 2 kernels: 1 pool (block 256, ept 1, inc taps; 1 over a channels-last y in its memory order), 1 library (layout nhwc)
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
	long a6,
	long a7,
	long a8,
	long a9,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	double c12,
	float *__restrict__ p_y)
{
	const float v2 = (float)c12;
	const float v4 = 3.000000000e+00f;
	const float v6 = 0.000000000e+00f;
	const float v8 = 6.000000000e+00f;
	const float v36 = 2.000000000e+01f;
	/* x is [.., IH, IW] and the output [.., OH, OW], seen as [rows, OW] */
	const long rows = a0, IH = a1, IW = a2, OH = a3, OW = a4;
	const long ksize = a5, stride = a5, pad = 0, dil = 1;
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize * dil;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k1_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, p_t4, p_b, c12, p_y);
			return;
		}
	}
	const I nH = IH, nW = IW; /* the input's sizes */
	const I st = stride, pd = pad, dl = dil;
	const I kx = (ksize - 1) * dil + 1; /* a window's extent */
	/* x is [N, C, s...], in memory [N, s..., C]; S positions in, OS out */
	const long N = a6, C = a7, S = a8, OS = a9;
	const long ncb = (C + 31) / 32, nsb = (OS + 31) / 32; /* blocks of channels, of positions */
	const bool tvec = (C & 3) == 0; /* float4 loads */
	/* a block's outputs: 32 channels x 32 positions, a row per channel */
	__shared__ float tm[1056];
	const int tq = threadIdx.x % 8, sl = threadIdx.x / 8; /* channels 4 tq.., position sl */
	/* neighbouring blocks: the channel blocks of the same positions */
	for (long b = blockIdx.x; b < N * ncb * nsb; b += gridDim.x) {
		const long bs = krl_div(b, ncb), n = krl_div(bs, nsb);
		const long c0 = (b - bs * ncb) * 32 + 4 * tq, s0 = (bs - n * nsb) * 32;
		const long s = s0 + sl;
		const bool live = s < OS;
		/* channels past C compute channel C - 1's values, not stored */
		const long nc0 = n * C + (c0 + 0 < C ? c0 + 0 : C - 1);
		const long rb0 = nc0 * S; /* x[n, c, 0...]: NCHW */
		const long nc1 = n * C + (c0 + 1 < C ? c0 + 1 : C - 1);
		const long rb1 = nc1 * S; /* x[n, c, 0...]: NCHW */
		const long nc2 = n * C + (c0 + 2 < C ? c0 + 2 : C - 1);
		const long rb2 = nc2 * S; /* x[n, c, 0...]: NCHW */
		const long nc3 = n * C + (c0 + 3 < C ? c0 + 3 : C - 1);
		const long rb3 = nc3 * S; /* x[n, c, 0...]: NCHW */
		const long yb = n * S * C; /* the sample in memory */
		const float v0 = p_b[(krl_mod(krl_div(rb0, a8), a7))];
		const float v12 = p_b[(krl_mod(krl_div(rb1, a8), a7))];
		const float v20 = p_b[(krl_mod(krl_div(rb2, a8), a7))];
		const float v28 = p_b[(krl_mod(krl_div(rb3, a8), a7))];
		const I so = live ? (I)s : 0;
		const I qw = so / (I)OW;
		const I ow = so - qw * (I)OW;
		const I oh = qw;
		const I hs = oh * st - pd; /* window start */
		/* the taps inside the input: the first past the padding, in steps of dl */
		const I hlo = hs >= 0 ? hs : hs + (dl - 1 - hs) / dl * dl;
		const I hhi = hs + kx < nH ? hs + kx : nH;
		const I ws = (I)ow * st - pd; /* window start */
		/* the taps inside the input: the first past the padding, in steps of dl */
		const I wlo = ws >= 0 ? ws : ws + (dl - 1 - ws) / dl * dl;
		const I whi = ws + kx < nW ? ws + kx : nW;
		float m0 = -INFINITY;
		float m1 = -INFINITY;
		float m2 = -INFINITY;
		float m3 = -INFINITY;
		/* the window's 2 x 2 taps, those outside the input skipped */
		#pragma unroll
		for (int kh = 0; kh < 2; kh++) {
			const I ih = hs + kh;
			if (!live || ih < 0 || ih >= nH)
				continue;
			#pragma unroll
			for (int kw = 0; kw < 2; kw++) {
				const I iw = ws + kw;
				if (iw < 0 || iw >= nW)
					continue;
				const I rr = ih * nW + iw; /* the tap in the plane */
				const long tb = yb + (long)rr * C + c0;
				float tv[4];
				if (tvec && c0 + 4 <= C) {
					const float4 q4 = *reinterpret_cast<const float4 *>(p_t4 + tb);
					tv[0] = q4.x; tv[1] = q4.y; tv[2] = q4.z; tv[3] = q4.w;
				} else {
					#pragma unroll
					for (int j = 0; j < 4; j++)
						tv[j] = p_t4[tb + (c0 + j < C ? j : C - 1 - c0)];
				}
				const float v1 = ((tv[0]) + (v0));
				const float v3 = ((v1) + (v2));
				const float v5 = ((v3) + (v4));
				const float v7 = krl_maxf(v5, v6);
				const float v9 = krl_minf(v7, v8);
				const float v10 = ((v3) * (v9));
				const float v11 = ((v10) / (v8));
				if (v11 > m0 || v11 != v11) /* NaN wins */
					m0 = v11;
				const float v13 = ((tv[1]) + (v12));
				const float v14 = ((v13) + (v2));
				const float v15 = ((v14) + (v4));
				const float v16 = krl_maxf(v15, v6);
				const float v17 = krl_minf(v16, v8);
				const float v18 = ((v14) * (v17));
				const float v19 = ((v18) / (v8));
				if (v19 > m1 || v19 != v19) /* NaN wins */
					m1 = v19;
				const float v21 = ((tv[2]) + (v20));
				const float v22 = ((v21) + (v2));
				const float v23 = ((v22) + (v4));
				const float v24 = krl_maxf(v23, v6);
				const float v25 = krl_minf(v24, v8);
				const float v26 = ((v22) * (v25));
				const float v27 = ((v26) / (v8));
				if (v27 > m2 || v27 != v27) /* NaN wins */
					m2 = v27;
				const float v29 = ((tv[3]) + (v28));
				const float v30 = ((v29) + (v2));
				const float v31 = ((v30) + (v4));
				const float v32 = krl_maxf(v31, v6);
				const float v33 = krl_minf(v32, v8);
				const float v34 = ((v30) * (v33));
				const float v35 = ((v34) / (v8));
				if (v35 > m3 || v35 != v35) /* NaN wins */
					m3 = v35;
			}
		}
		tm[(4 * tq + 0) * 33 + sl] = m0;
		tm[(4 * tq + 1) * 33 + sl] = m1;
		tm[(4 * tq + 2) * 33 + sl] = m2;
		tm[(4 * tq + 3) * 33 + sl] = m3;
		__syncthreads();
		/* each channel's run of positions, contiguous in the NCHW outputs */
		const long cb = c0 - 4 * tq;
		for (int e = 0; e < 4; e++) {
			const int t = threadIdx.x + e * 256, cq = t / 32, sq = t % 32;
			const long s = s0 + sq;
			if (cb + cq >= C || s >= OS)
				continue;
			const long nc = n * C + cb + cq, ob = nc * OS, o = ob + s;
			const float m = tm[cq * 33 + sq];
			const float v37 = ((float)((m) > (v36)));
			const float v38 = expf(m);
			const float v39 = log1pf(v38);
			const float v40 = ((v37) != 0.f ? (m) : (v39));
			const float v41 = tanhf(v40);
			const float v42 = ((m) * (v41));
			p_y[o] = v42;
		}
		__syncthreads();
	}
}

/*
 * k1 (pool: 2-d max over windows of its input (computed at every tap), a channels-last input read 32 channels x 32 positions a block, 4 channels a thread, stored through shared memory, 256 threads): nodes 5 view, 6 add, 8 add, 12 add, 13 max, 14 min, 15 mul, 16 div, 17 max_pool, 19 gt, 20 exp, 21 log1p, 22 where, 23 tanh, 24 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_pool(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	long a7,
	long a8,
	long a9,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	double c12,
	float *__restrict__ p_y)
{
	k1_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, p_t4, p_b, c12, p_y);
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (oh), (ow)]
# k0: library call (node 4)
call conv(x, w) -> t4 layout=nhwc_y
launch k1_pool grid=(min((batch_size) * cdiv((out_channels), 32) * cdiv((ph) * (pw), 32), sm_count * 256)) block=(256) args((batch_size) * (out_channels) * (ph),
    (oh),
    (ow),
    (ph),
    (pw),
    (pool_kernel_size),
    (batch_size),
    (out_channels),
    (oh) * (ow),
    (ph) * (pw),
    t4,
    b,
    (-subtract_value),
    y)
@*/
