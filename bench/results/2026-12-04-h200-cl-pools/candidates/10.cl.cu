/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=256 row.cache=regs pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nhwc_y lib.tconv=dgrad
 * Task level2/10_convtranspose2d_maxpool_hardtanh_mean_tanh, generated at shape set kb1; it serves every shape set.
 * fused 8 ops into 3 kernels: 1 row (block 256, regs), 1 pool (block 256, ept 1, inc taps; 1 over a channels-last y in its memory order), 1 library (layout nhwc)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: pool
 *   k2: row
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

/* Warp reductions; xor shuffles give every lane the same result. */
static __device__ __forceinline__ double krl_warp_sum(double v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

static __device__ __forceinline__ double krl_warp_prod(double v)
{
	for (int off = 16; off > 0; off >>= 1)
		v *= __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

static __device__ __forceinline__ float krl_warp_max(float v)
{
	for (int off = 16; off > 0; off >>= 1)
		v = krl_maxf(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}

static __device__ __forceinline__ float krl_warp_min(float v)
{
	for (int off = 16; off > 0; off >>= 1)
		v = krl_minf(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}

/* Block reductions (blockDim.x a multiple of 32): every thread gets
 * the result. The first barrier lets a previous call finish reading
 * the shared slots. */
#define KRL_BLOCK_RED(NAME, T, ID, WARP)                               \
	static __device__ __forceinline__ T NAME(T v)                   \
	{                                                               \
		__shared__ T sh[32];                                      \
		v = WARP(v);                                              \
		__syncthreads();                                          \
		if ((threadIdx.x & 31) == 0)                              \
			sh[threadIdx.x >> 5] = v;                          \
		__syncthreads();                                          \
		v = (int)(threadIdx.x & 31) < (int)(blockDim.x >> 5) ?     \
		    sh[threadIdx.x & 31] : (ID);                          \
		return WARP(v);                                           \
	}
KRL_BLOCK_RED(krl_block_sum, double, 0.0, krl_warp_sum)
KRL_BLOCK_RED(krl_block_prod, double, 1.0, krl_warp_prod)
KRL_BLOCK_RED(krl_block_max, float, -INFINITY, krl_warp_max)
KRL_BLOCK_RED(krl_block_min, float, INFINITY, krl_warp_min)
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
	float *__restrict__ p_t7)
{
	/* x is [.., IH, IW] and the output [.., OH, OW], seen as [rows, OW] */
	const long rows = a0, IH = a1, IW = a2, OH = a3, OW = a4;
	const long ksize = a5, stride = a5, pad = 0, dil = 1;
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize * dil;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k1_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, p_t4, p_b, p_t7);
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
		const float v2 = p_b[(krl_mod(krl_div(rb1, a8), a7))];
		const float v4 = p_b[(krl_mod(krl_div(rb2, a8), a7))];
		const float v6 = p_b[(krl_mod(krl_div(rb3, a8), a7))];
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
				if (v1 > m0 || v1 != v1) /* NaN wins */
					m0 = v1;
				const float v3 = ((tv[1]) + (v2));
				if (v3 > m1 || v3 != v3) /* NaN wins */
					m1 = v3;
				const float v5 = ((tv[2]) + (v4));
				if (v5 > m2 || v5 != v5) /* NaN wins */
					m2 = v5;
				const float v7 = ((tv[3]) + (v6));
				if (v7 > m3 || v7 != v7) /* NaN wins */
					m3 = v7;
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
			p_t7[o] = m;
		}
		__syncthreads();
	}
}

/*
 * k1 (pool: 2-d max over windows of its input (computed at every tap), a channels-last input read 32 channels x 32 positions a block, 4 channels a thread, stored through shared memory, 256 threads): nodes 5 view, 6 add, 7 max_pool.
 * Writes: t7.
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
	float *__restrict__ p_t7)
{
	k1_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, p_t4, p_b, p_t7);
}

/*
 * k2 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 10 max, 11 min, 12 view, 13 sum, 15 mul, 16 view, 17 tanh.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_row(long a0,
	long a1,
	const float *__restrict__ p_t7,
	double c3,
	float *__restrict__ p_y)
{
	const float v10 = -1.000000000e+00f;
	const float v12 = 1.000000000e+00f;
	const float v51 = (float)c3;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc8 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w9 = *reinterpret_cast<const float4 *>(p_t7 + (rb + r));
				const float v11 = krl_maxf(w9.x, v10);
				const float v13 = krl_minf(v11, v12);
				const float v14 = krl_maxf(w9.y, v10);
				const float v15 = krl_minf(v14, v12);
				const float v16 = krl_maxf(w9.z, v10);
				const float v17 = krl_minf(v16, v12);
				const float v18 = krl_maxf(w9.w, v10);
				const float v19 = krl_minf(v18, v12);
				acc8 += (double)((v13 + v15) + (v17 + v19));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v20 = p_t7[(rb + r)];
					const float v21 = krl_maxf(v20, v10);
					const float v22 = krl_minf(v21, v12);
					acc8 += (double)v22;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v23 = p_t7[(rb + r)];
					const float v24 = krl_maxf(v23, v10);
					const float v25 = krl_minf(v24, v12);
					acc8 += (double)v25;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w26 = *reinterpret_cast<const float4 *>(p_t7 + (rb + r));
					const float v27 = krl_maxf(w26.x, v10);
					const float v28 = krl_minf(v27, v12);
					const float v29 = krl_maxf(w26.y, v10);
					const float v30 = krl_minf(v29, v12);
					const float v31 = krl_maxf(w26.z, v10);
					const float v32 = krl_minf(v31, v12);
					const float v33 = krl_maxf(w26.w, v10);
					const float v34 = krl_minf(v33, v12);
					acc8 += (double)((v28 + v30) + (v32 + v34));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v35 = p_t7[(rb + r)];
					const float v36 = krl_maxf(v35, v10);
					const float v37 = krl_minf(v36, v12);
					const float v38 = p_t7[(rb + (r + 256))];
					const float v39 = krl_maxf(v38, v10);
					const float v40 = krl_minf(v39, v12);
					const float v41 = p_t7[(rb + (r + 512))];
					const float v42 = krl_maxf(v41, v10);
					const float v43 = krl_minf(v42, v12);
					const float v44 = p_t7[(rb + (r + 768))];
					const float v45 = krl_maxf(v44, v10);
					const float v46 = krl_minf(v45, v12);
					acc8 += (double)((v37 + v40) + (v43 + v46));
				}
				for (; r < a1; r += 256) {
					const float v47 = p_t7[(rb + r)];
					const float v48 = krl_maxf(v47, v10);
					const float v49 = krl_minf(v48, v12);
					acc8 += (double)v49;
				}
			}
		}
		const float r50 = (float)krl_block_sum(acc8);
		/* the outputs of the row shape */
		const float v52 = ((r50) * (v51));
		const float v53 = tanhf(v52);
		if (lid == 0) {
			p_y[o] = v53;
		}
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t7 f32 [(batch_size), (out_channels), (ph), (pw)]
# k0: library call (node 4)
call conv_transpose(x, w) -> t4 stride=stride padding=padding layout=nhwc_y
launch k1_pool grid=(min((batch_size) * cdiv((out_channels), 32) * cdiv((ph) * (pw), 32), sm_count * 256)) block=(256) args((batch_size) * (out_channels) * (ph),
    (oh),
    (ow),
    (ph),
    (pw),
    (pool),
    (batch_size),
    (out_channels),
    (oh) * (ow),
    (ph) * (pw),
    t4,
    b,
    t7)
launch k2_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (ph * pw),
    t7,
    (1.0 / (ph * pw)),
    y)
@*/
