/*
 * krl-choice: row.strategy=auto row.block=256 row.cache=regs pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nchw conv.impl=lib
 * Task level2/65_conv2d_avgpool_sigmoid_sum, generated at shape set kb1; it serves every shape set.
 * fused 4 ops into 3 kernels: 1 row (block 256, regs), 1 pool (block 256, ept 1, inc taps), 1 library
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
	const float *__restrict__ p_t4,
	float *__restrict__ p_t5)
{
	/* x is [.., IH, IW] and the output [.., OH, OW], seen as [rows, OW] */
	const long rows = a0, IH = a1, IW = a2, OH = a3, OW = a4;
	const long ksize = a5, stride = a5, pad = 0;
	const long plane = IH * IW; /* elements of an input plane */
	/* a warp takes 32 consecutive outputs of a row, lane l the outputs l, l + 32, ... */
	const long groups = (OW + 31) / 32; /* per row */
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k1_pool_walk<long>(a0, a1, a2, a3, a4, a5, p_t4, p_t5);
			return;
		}
	}
	const I nH = IH, nW = IW; /* the input's sizes */
	const I st = stride, pd = pad;
	const I kx = ksize; /* a window's extent */
	const I hstep = nW; /* from a tap row to the next */
	for (long t = (long)blockIdx.x * 256 + threadIdx.x; t < rows * groups * 32;
	     t += (long)gridDim.x * 256) {
		const long row = krl_div(t >> 5, groups);
		const long ow0 = ((t >> 5) - row * groups) * 32 + (t & 31);
		const long pl = krl_div(row, OH); /* the plane */
		const I oh = row - pl * OH;
		const long xb = pl * plane; /* where the plane starts in x */
		const I hs = oh * st - pd; /* window start */
		const I hp = hs + kx < nH + pd ? hs + kx : nH + pd; /* end in the padded input */
		const I hlo = hs > 0 ? hs : 0, hhi = hp < nH ? hp : nH;
		const long ow = ow0;
		if (ow >= OW)
			continue;
		const I ws = (I)ow * st - pd; /* window start */
		const I wp = ws + kx < nW + pd ? ws + kx : nW + pd; /* end in the padded input */
		const I wlo = ws > 0 ? ws : 0, whi = wp < nW ? wp : nW;
		float sum = 0.f;
		for (I xh = hlo * nW; xh < hhi * nW; xh += hstep) {
			for (I xw = xh + wlo; xw < xh + whi; xw++) {
				const long xi = xb + xw;
				const float v0 = p_t4[xi];
				sum += v0;
			}
		}
		/* the divisor: the window in the padded input (count_include_pad) */
		const float div = (float)((hp - hs) * (wp - ws));
		const float mean = hlo < hhi && wlo < whi ? sum / div : 0.f;
		const long o = row * OW + ow;
		p_t5[o] = mean;
	}
}

/*
 * k1 (pool: 2-d mean over windows of t4, 1 output per thread along the last dim, 256 threads): nodes 5 avg_pool.
 * Writes: t5.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_pool(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	const float *__restrict__ p_t4,
	float *__restrict__ p_t5)
{
	k1_pool_walk<int>(a0, a1, a2, a3, a4, a5, p_t4, p_t5);
}

/*
 * k2 (row, several blocks per row (chunks of 8192): pass 1 of 1, partials to k2_part): nodes 6 sigmoid, 7 view, 8 sum.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_pass1(long a0,
	long a1,
	double *__restrict__ p_k2_part,
	const float *__restrict__ p_t5)
{
	const int tid = threadIdx.x;
	const long nch = (a1 + 8191) / 8192;
	/* blocks numbered chunk-major; every other pass walks them backwards, so it first reads what the previous one read last (still in L2) */
	const long blk = blockIdx.x;
	const long ch = blk / a0, o = blk % a0;
	const long rb = o * a1;
	const long r0 = ch * 8192;
	const long r1 = min(a1, r0 + 8192);
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	/* pass 1 */
	double acc1 = 0.0;
	if (vec) {
		#pragma unroll 4
		for (long r = r0 + (long)tid * 4; r < r1; r += (long)256 * 4) {
			const float4 w2 = *reinterpret_cast<const float4 *>(p_t5 + (rb + r));
			const float v3 = (1.f / (1.f + expf(-(w2.x))));
			const float v4 = (1.f / (1.f + expf(-(w2.y))));
			const float v5 = (1.f / (1.f + expf(-(w2.z))));
			const float v6 = (1.f / (1.f + expf(-(w2.w))));
			acc1 += (double)((v3 + v4) + (v5 + v6));
		}
	} else if (peel) {
		{
			const long h = min((long)((4 - ((rb + r0) & 3)) & 3), r1 - r0);
			const long t = (r1 - r0 - h) & 3;
			if (tid < h) {
				const long r = r0 + tid;
				const float v7 = p_t5[(rb + r)];
				const float v8 = (1.f / (1.f + expf(-(v7))));
				acc1 += (double)v8;
			}
			if (tid < t) {
				const long r = r1 - t + tid;
				const float v9 = p_t5[(rb + r)];
				const float v10 = (1.f / (1.f + expf(-(v9))));
				acc1 += (double)v10;
			}
			#pragma unroll 4
			for (long r = r0 + h + (long)tid * 4; r < r1 - t; r += (long)256 * 4) {
				const float4 w11 = *reinterpret_cast<const float4 *>(p_t5 + (rb + r));
				const float v12 = (1.f / (1.f + expf(-(w11.x))));
				const float v13 = (1.f / (1.f + expf(-(w11.y))));
				const float v14 = (1.f / (1.f + expf(-(w11.z))));
				const float v15 = (1.f / (1.f + expf(-(w11.w))));
				acc1 += (double)((v12 + v13) + (v14 + v15));
			}
		}
	} else {
		{
			long r = r0 + tid;
			for (; r + 768 < r1; r += 1024) {
				const float v16 = p_t5[(rb + r)];
				const float v17 = (1.f / (1.f + expf(-(v16))));
				const float v18 = p_t5[(rb + (r + 256))];
				const float v19 = (1.f / (1.f + expf(-(v18))));
				const float v20 = p_t5[(rb + (r + 512))];
				const float v21 = (1.f / (1.f + expf(-(v20))));
				const float v22 = p_t5[(rb + (r + 768))];
				const float v23 = (1.f / (1.f + expf(-(v22))));
				acc1 += (double)((v17 + v19) + (v21 + v23));
			}
			for (; r < r1; r += 256) {
				const float v24 = p_t5[(rb + r)];
				const float v25 = (1.f / (1.f + expf(-(v24))));
				acc1 += (double)v25;
			}
		}
	}
	acc1 = krl_block_sum(acc1);
	if (threadIdx.x == 0) {
		p_k2_part[(o * nch + ch) * 1 + 0] = (double)acc1;
	}
}

/*
 * k2 (row, several blocks per row (chunks of 8192): the outputs): nodes 6 sigmoid, 7 view, 8 sum.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_out(long a0,
	long a1,
	const double *__restrict__ p_k2_part,
	float *__restrict__ p_y)
{
	const int tid = threadIdx.x;
	const long nch = (a1 + 8191) / 8192;
	/* blocks numbered chunk-major; every other pass walks them backwards, so it first reads what the previous one read last (still in L2) */
	const long blk = (long)gridDim.x - 1 - blockIdx.x;
	const long ch = blk / a0, o = blk % a0;
	if (ch != 0)
		return; /* only row-shape outputs */
	const long rb = o * a1;
	const long r0 = ch * 8192;
	const long r1 = min(a1, r0 + 8192);
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	double acc26 = 0.0;
	for (long q = tid; q < nch; q += 256)
		acc26 += p_k2_part[(o * nch + q) * 1 + 0];
	const float r27 = (float)krl_block_sum(acc26);
	/* the outputs of the row shape */
	if (ch == 0 && tid == 0) {
		p_y[o] = r27;
	}
}

/*@plan
buffer k2_part f64 [(batch_size), cdiv((out_channels * ph * pw), 8192), 1]
buffer t4 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t5 f32 [(batch_size), (out_channels), (ph), (pw)]
# k0: library call (node 4)
call conv_bias(x, w, b) -> t4
launch k1_pool grid=(min(cdiv((batch_size) * (out_channels) * (ph) * cdiv((pw), 32) * 32, 256), sm_count * 1024)) block=(256) args((batch_size) * (out_channels) * (ph),
    (oh),
    (ow),
    (ph),
    (pw),
    (pool_kernel_size),
    t4,
    t5)
launch k2_pass1 grid=(((batch_size)) * cdiv((out_channels * ph * pw), 8192)) block=(256) args((batch_size),
    (out_channels * ph * pw),
    k2_part,
    t5)
launch k2_out grid=(((batch_size)) * cdiv((out_channels * ph * pw), 8192)) block=(256) args((batch_size),
    (out_channels * ph * pw),
    k2_part,
    y)
@*/
