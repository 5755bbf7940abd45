/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=256 row.cache=regs pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nchw conv.impl=lib
 * Task level2/8_conv3d_divide_max_globalavgpool_biasadd_sum, generated at shape set kb1; it serves every shape set.
 * fused 8 ops into 4 kernels: 2 row (block 256, regs), 1 pool (block 256, ept 1, inc taps), 1 library
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: pool
 *   k2: row
 *   k3: row
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
	const float *__restrict__ p_t5,
	long a9,
	long a10,
	const float *__restrict__ p_b,
	float *__restrict__ p_t10)
{
	const float v3 = 5.000000000e-01f;
	/* x is [.., IT, IH, IW] and the output [.., OT, OH, OW], seen as [rows, OW] */
	const long rows = a0, IT = a1, IH = a2, IW = a3, OT = a4, OH = a5, OW = a6;
	const long ksize = a7, stride = a7, pad = 0, dil = 1;
	const long plane = IT * IH * IW; /* elements of an input plane */
	/* a warp takes 32 consecutive outputs of a row, lane l the outputs l, l + 32, ... */
	const long groups = (OW + 31) / 32; /* per row */
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize * dil;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IT + reach) * (IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k1_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, p_t5, a9, a10, p_b, p_t10);
			return;
		}
	}
	const I nT = IT, nH = IH, nW = IW; /* the input's sizes */
	const I st = stride, pd = pad, dl = dil;
	const I kx = (ksize - 1) * dil + 1; /* a window's extent */
	const I tstep = dl * nH * nW; /* from a tap plane to the next */
	const I hstep = dl * nW; /* from a tap row to the next */
	for (long t = (long)blockIdx.x * 256 + threadIdx.x; t < rows * groups * 32;
	     t += (long)gridDim.x * 256) {
		const long row = krl_div(t >> 5, groups);
		const long ow0 = ((t >> 5) - row * groups) * 32 + (t & 31);
		const long rh = krl_div(row, OH);
		const I oh = row - rh * OH;
		const long pl = krl_div(rh, OT); /* the plane */
		const I ot = rh - pl * OT;
		const long xb = pl * plane; /* where the plane starts in x */
		const I ts = ot * st - pd; /* window start */
		/* the taps inside the input: the first past the padding, in steps of dl */
		const I tlo = ts >= 0 ? ts : ts + (dl - 1 - ts) / dl * dl;
		const I thi = ts + kx < nT ? ts + kx : nT;
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
		for (I xt = tlo * (nH * nW); xt < thi * (nH * nW); xt += tstep) {
			for (I xh = xt + hlo * nW; xh < xt + hhi * nW; xh += hstep) {
				for (I xw = xh + wlo; xw < xh + whi; xw += dl) {
					const long xi = xb + xw;
					const float v0 = p_t5[xi];
					const float v1 = p_b[(krl_mod(krl_div(xi, a9), a10))];
					const float v2 = ((v0) + (v1));
					const float v4 = ((v2) * (v3));
					if (v4 > m || v4 != v4) /* NaN wins */
						m = v4;
				}
			}
		}
		const long o = row * OW + ow;
		p_t10[o] = m;
	}
}

/*
 * k1 (pool: 3-d max over windows of its input (computed at every tap), 1 output per thread along the last dim, 256 threads): nodes 6 view, 7 add, 9 mul, 10 max_pool.
 * Writes: t10.
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
	const float *__restrict__ p_t5,
	long a9,
	long a10,
	const float *__restrict__ p_b,
	float *__restrict__ p_t10)
{
	k1_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, p_t5, a9, a10, p_b, p_t10);
}

/*
 * k2 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 11 view, 12 sum, 14 mul, 15 view, 16 add.
 * Writes: t16.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_row(long a0,
	long a1,
	const float *__restrict__ p_t10,
	double c3,
	long a4,
	const float *__restrict__ p_bias,
	float *__restrict__ p_t16)
{
	const float v16 = (float)c3;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc5 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w6 = *reinterpret_cast<const float4 *>(p_t10 + (rb + r));
				acc5 += (double)((w6.x + w6.y) + (w6.z + w6.w));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v7 = p_t10[(rb + r)];
					acc5 += (double)v7;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v8 = p_t10[(rb + r)];
					acc5 += (double)v8;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w9 = *reinterpret_cast<const float4 *>(p_t10 + (rb + r));
					acc5 += (double)((w9.x + w9.y) + (w9.z + w9.w));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v10 = p_t10[(rb + r)];
					const float v11 = p_t10[(rb + (r + 256))];
					const float v12 = p_t10[(rb + (r + 512))];
					const float v13 = p_t10[(rb + (r + 768))];
					acc5 += (double)((v10 + v11) + (v12 + v13));
				}
				for (; r < a1; r += 256) {
					const float v14 = p_t10[(rb + r)];
					acc5 += (double)v14;
				}
			}
		}
		const float r15 = (float)krl_block_sum(acc5);
		/* the outputs of the row shape */
		const float v17 = ((r15) * (v16));
		const float v18 = p_bias[(krl_mod(o, a4))];
		const float v19 = ((v17) + (v18));
		if (lid == 0) {
			p_t16[o] = v19;
		}
	}
}

/*
 * k3 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 17 sum.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_row(long a0,
	long a1,
	const float *__restrict__ p_t16,
	float *__restrict__ p_y)
{
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc20 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w21 = *reinterpret_cast<const float4 *>(p_t16 + (rb + r));
				acc20 += (double)((w21.x + w21.y) + (w21.z + w21.w));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v22 = p_t16[(rb + r)];
					acc20 += (double)v22;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v23 = p_t16[(rb + r)];
					acc20 += (double)v23;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w24 = *reinterpret_cast<const float4 *>(p_t16 + (rb + r));
					acc20 += (double)((w24.x + w24.y) + (w24.z + w24.w));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v25 = p_t16[(rb + r)];
					const float v26 = p_t16[(rb + (r + 256))];
					const float v27 = p_t16[(rb + (r + 512))];
					const float v28 = p_t16[(rb + (r + 768))];
					acc20 += (double)((v25 + v26) + (v27 + v28));
				}
				for (; r < a1; r += 256) {
					const float v29 = p_t16[(rb + r)];
					acc20 += (double)v29;
				}
			}
		}
		const float r30 = (float)krl_block_sum(acc20);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_y[o] = r30;
		}
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t10 f32 [(batch_size), (out_channels), (pd), (ph), (pw)]
buffer t16 f32 [(batch_size), (out_channels), (1), (1), (1)]
# k0: library call (node 5)
call conv(x, w) -> t5
launch k1_pool grid=(min(cdiv((batch_size) * (out_channels) * (pd) * (ph) * cdiv((pw), 32) * 32, 256), sm_count * 1024)) block=(256) args((batch_size) * (out_channels) * (pd) * (ph),
    (od),
    (oh),
    (ow),
    (pd),
    (ph),
    (pw),
    (pool),
    t5,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    t10)
launch k2_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (pd * ph * pw),
    t10,
    (1.0 / (pd * ph * pw)),
    (out_channels),
    bias,
    t16)
launch k3_row grid=(min((batch_size), sm_count * 32)) block=(256) args((batch_size),
    (out_channels),
    t16,
    y)
@*/
