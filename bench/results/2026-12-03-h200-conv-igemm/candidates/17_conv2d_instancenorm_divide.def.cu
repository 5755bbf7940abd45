/*
 * krl-choice: row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nchw conv.impl=lib
 * Task level2/17_conv2d_instancenorm_divide, generated at shape set kb1; it serves every shape set.
 * fused 11 ops into 2 kernels: 1 row (block 256, regs), 1 library
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 * Every kernel indexes with 64-bit integers, guards every load and store,
 * and takes its vector path only where a run-time check says sizes allow.
 */

/* NVRTC has no <math.h>: spell out infinity. */
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

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
 * k1 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 5 sum, 7 mul, 8 sub, 9 square, 10 sum, 12 mul, 14 add, 15 rsqrt, 16 mul, 18 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	const float *__restrict__ p_t4,
	double c3,
	double c4,
	float *__restrict__ p_y)
{
	const float v12 = (float)c3;
	const float v20 = (float)c3;
	const float v22 = (float)c4;
	const float v26 = 5.000000000e-01f;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		const float v0 = p_t4[(rb + 0)];
		/* pass 1 */
		double acc1 = 0.0;
		double acc2 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w3 = *reinterpret_cast<const float4 *>(p_t4 + (rb + r));
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
					const float v4 = p_t4[(rb + r)];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v4 - v0;
						acc1 += (double)d0;
						acc2 += (double)(d0 * d0);
					}
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v5 = p_t4[(rb + r)];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v5 - v0;
						acc1 += (double)d0;
						acc2 += (double)(d0 * d0);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w6 = *reinterpret_cast<const float4 *>(p_t4 + (rb + r));
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
					const float v7 = p_t4[(rb + r)];
					const float v8 = p_t4[(rb + (r + 256))];
					const float v9 = p_t4[(rb + (r + 512))];
					const float v10 = p_t4[(rb + (r + 768))];
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
					const float v11 = p_t4[(rb + r)];
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
		const float v18 = ((r13) * (v12));
		const float v21 = ((r14) * (v20));
		const float v23 = ((v21) + (v22));
		const float v24 = rsqrtf(v23);
		/* the outputs of the full shape */
		if (vec) {
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w17 = *reinterpret_cast<const float4 *>(p_t4 + (rb + r));
				const float v19 = ((w17.x) - (v18));
				const float v25 = ((v19) * (v24));
				const float v27 = ((v25) * (v26));
				const float v28 = ((w17.y) - (v18));
				const float v29 = ((v28) * (v24));
				const float v30 = ((v29) * (v26));
				const float v31 = ((w17.z) - (v18));
				const float v32 = ((v31) * (v24));
				const float v33 = ((v32) * (v26));
				const float v34 = ((w17.w) - (v18));
				const float v35 = ((v34) * (v24));
				const float v36 = ((v35) * (v26));
				*reinterpret_cast<float4 *>(p_y + (rb + r)) = make_float4(v27, v30, v33, v36);
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v37 = p_t4[(rb + r)];
					const float v38 = ((v37) - (v18));
					const float v39 = ((v38) * (v24));
					const float v40 = ((v39) * (v26));
					p_y[(rb + r)] = v40;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v41 = p_t4[(rb + r)];
					const float v42 = ((v41) - (v18));
					const float v43 = ((v42) * (v24));
					const float v44 = ((v43) * (v26));
					p_y[(rb + r)] = v44;
				}
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w45 = *reinterpret_cast<const float4 *>(p_t4 + (rb + r));
					const float v46 = ((w45.x) - (v18));
					const float v47 = ((v46) * (v24));
					const float v48 = ((v47) * (v26));
					const float v49 = ((w45.y) - (v18));
					const float v50 = ((v49) * (v24));
					const float v51 = ((v50) * (v26));
					const float v52 = ((w45.z) - (v18));
					const float v53 = ((v52) * (v24));
					const float v54 = ((v53) * (v26));
					const float v55 = ((w45.w) - (v18));
					const float v56 = ((v55) * (v24));
					const float v57 = ((v56) * (v26));
					*reinterpret_cast<float4 *>(p_y + (rb + r)) = make_float4(v48, v51, v54, v57);
				}
			}
		} else {
			{
				long r = lid;
				for (; r < a1; r += 256) {
					const float v58 = p_t4[(rb + r)];
					const float v59 = ((v58) - (v18));
					const float v60 = ((v59) * (v24));
					const float v61 = ((v60) * (v26));
					p_y[(rb + r)] = v61;
				}
			}
		}
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (oh), (ow)]
# k0: library call (node 4)
call conv_bias(x, w, b) -> t4
launch k1_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (oh) * (ow),
    t4,
    (1.0 / (oh * ow)),
    (eps),
    y)
@*/
