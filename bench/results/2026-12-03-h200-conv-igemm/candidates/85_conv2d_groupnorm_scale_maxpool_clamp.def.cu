/*
 * krl-choice: row.strategy=auto row.block=256 row.cache=regs pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nchw conv.impl=lib
 * Task level2/85_conv2d_groupnorm_scale_maxpool_clamp, generated at shape set kb1; it serves every shape set.
 * fused 16 ops into 3 kernels: 1 row (block 256, regs), 1 pool (block 256, ept 1, inc taps), 1 library
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: pool
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

/*
 * k1 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 8 view, 9 sum, 11 mul, 12 sub, 13 square, 14 sum, 16 mul, 18 add, 19 rsqrt.
 * Writes: t11 t19.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	const float *__restrict__ p_t7,
	double c3,
	float *__restrict__ p_t11,
	double c5,
	float *__restrict__ p_t19)
{
	const float v12 = (float)c3;
	const float v18 = (float)c3;
	const float v20 = (float)c5;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		const float v0 = p_t7[(rb + 0)];
		/* pass 1 */
		double acc1 = 0.0;
		double acc2 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w3 = *reinterpret_cast<const float4 *>(p_t7 + (rb + r));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = w3.x - v0;
					const float d1 = w3.y - v0;
					const float d2 = w3.z - v0;
					const float d3 = w3.w - v0;
					acc1 += (double)((d0 + d1) + (d2 + d3));
					acc2 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
				}
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v4 = p_t7[(rb + r)];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v4 - v0;
						acc1 += (double)d0;
						acc2 += (double)(d0 * d0);
					}
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v5 = p_t7[(rb + r)];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v5 - v0;
						acc1 += (double)d0;
						acc2 += (double)(d0 * d0);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w6 = *reinterpret_cast<const float4 *>(p_t7 + (rb + r));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = w6.x - v0;
						const float d1 = w6.y - v0;
						const float d2 = w6.z - v0;
						const float d3 = w6.w - v0;
						acc1 += (double)((d0 + d1) + (d2 + d3));
						acc2 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v7 = p_t7[(rb + r)];
					const float v8 = p_t7[(rb + (r + 256))];
					const float v9 = p_t7[(rb + (r + 512))];
					const float v10 = p_t7[(rb + (r + 768))];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v7 - v0;
						const float d1 = v8 - v0;
						const float d2 = v9 - v0;
						const float d3 = v10 - v0;
						acc1 += (double)((d0 + d1) + (d2 + d3));
						acc2 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
				for (; r < a1; r += 256) {
					const float v11 = p_t7[(rb + r)];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v11 - v0;
						acc1 += (double)d0;
						acc2 += (double)(d0 * d0);
					}
				}
			}
		}
		acc1 = krl_block_sum(acc1);
		acc2 = krl_block_sum(acc2);
		const float r13 = (float)(acc1 + (double)a1 * (double)v0);
		const float m15 = r13 * v12;
		const double dm16 = (double)m15 - (double)v0;
		const float r14 = (float)fmax(acc2 - 2.0 * dm16 * acc1 + (double)a1 * dm16 * dm16, 0.0);
		/* the outputs of the row shape */
		const float v17 = ((r13) * (v12));
		const float v19 = ((r14) * (v18));
		const float v21 = ((v19) + (v20));
		const float v22 = rsqrtf(v21);
		if (lid == 0) {
			p_t11[o] = v17;
			p_t19[o] = v22;
		}
	}
}
/* k2_pool's outputs, with offsets and coordinates in a plane of type I:
 * int when the plane, widened by a window's reach, fits (the usual case),
 * else long */
template <typename I>
static __device__ __forceinline__ void
k2_pool_walk(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	const float *__restrict__ p_t7,
	long a7,
	const float *__restrict__ p_t11,
	const float *__restrict__ p_t19,
	long a10,
	long a11,
	const float *__restrict__ p_gn_w,
	const float *__restrict__ p_gn_b,
	const float *__restrict__ p_scale,
	float *__restrict__ p_y)
{
	const float v34 = 0.000000000e+00f;
	const float v36 = 1.000000000e+00f;
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
			k2_pool_walk<long>(a0, a1, a2, a3, a4, a5, p_t7, a7, p_t11, p_t19, a10, a11, p_gn_w, p_gn_b, p_scale, p_y);
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
				const float v23 = p_t7[xi];
				const float v24 = p_t11[(krl_div(xi, a7))];
				const float v25 = ((v23) - (v24));
				const float v26 = p_t19[(krl_div(xi, a7))];
				const float v27 = ((v25) * (v26));
				const float v28 = p_gn_w[(krl_mod(krl_div(xi, a10), a11))];
				const float v29 = ((v27) * (v28));
				const float v30 = p_gn_b[(krl_mod(krl_div(xi, a10), a11))];
				const float v31 = ((v29) + (v30));
				const float v32 = p_scale[(krl_mod(krl_div(xi, a10), a11))];
				const float v33 = ((v31) * (v32));
				if (v33 > m || v33 != v33) /* NaN wins */
					m = v33;
			}
		}
		const long o = row * OW + ow;
		const float v35 = krl_maxf(m, v34);
		const float v37 = krl_minf(v35, v36);
		p_y[o] = v37;
	}
}

/*
 * k2 (pool: 2-d max over windows of its input (computed at every tap), 1 output per thread along the last dim, 256 threads): nodes 8 view, 12 sub, 20 mul, 21 view, 22 view, 23 view, 24 mul, 25 add, 26 mul, 27 max_pool, 30 max, 31 min.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_pool(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	const float *__restrict__ p_t7,
	long a7,
	const float *__restrict__ p_t11,
	const float *__restrict__ p_t19,
	long a10,
	long a11,
	const float *__restrict__ p_gn_w,
	const float *__restrict__ p_gn_b,
	const float *__restrict__ p_scale,
	float *__restrict__ p_y)
{
	k2_pool_walk<int>(a0, a1, a2, a3, a4, a5, p_t7, a7, p_t11, p_t19, a10, a11, p_gn_w, p_gn_b, p_scale, p_y);
}

/*@plan
buffer t7 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t11 f32 [(batch_size), (num_groups), (1)]
buffer t19 f32 [(batch_size), (num_groups), (1)]
# k0: library call (node 7)
call conv_bias(x, w, b) -> t7
launch k1_row grid=(min((batch_size) * (num_groups), sm_count * 32)) block=(256) args((batch_size) * (num_groups),
    ((out_channels / num_groups) * (oh * ow)),
    t7,
    (1.0 / ((out_channels / num_groups) * (oh * ow))),
    t11,
    (eps),
    t19)
launch k2_pool grid=(min(cdiv((batch_size) * (out_channels) * (ph) * cdiv((pw), 32) * 32, 256), sm_count * 1024)) block=(256) args((batch_size) * (out_channels) * (ph),
    (oh),
    (ow),
    (ph),
    (pw),
    (maxpool_kernel_size),
    t7,
    ((out_channels / num_groups) * (oh * ow)),
    t11,
    t19,
    (oh) * (ow),
    (out_channels),
    gn_w,
    gn_b,
    scale,
    y)
@*/
