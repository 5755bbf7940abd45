/*
 * krl-choice: map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8 conv.impl=lib
 * Task level2/83kb0_conv3d_groupnorm_min_clamp_dropout, generated at shape set kb1; it serves every shape set.
 * fused 17 ops into 3 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 1 row (block 256, regs), 1 library
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: map
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

/*
 * k2 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 8 view, 12 sub, 20 mul, 21 view, 22 view, 23 view, 24 mul, 25 add, 27 min, 30 max, 31 min, 32 mul, 34 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_map(long a0,
	const float *__restrict__ p_t7,
	long a2,
	const float *__restrict__ p_t11,
	const float *__restrict__ p_t19,
	long a5,
	long a6,
	const float *__restrict__ p_gn_w,
	const float *__restrict__ p_gn_b,
	const unsigned char *__restrict__ p_mask,
	float *__restrict__ p_y)
{
	const float v32 = 0.000000000e+00f;
	const float v34 = 0.000000000e+00f;
	const float v36 = 1.000000000e+00f;
	const float v40 = 1.250000000e+00f;
	const int tid = threadIdx.x;
	const long nv = (a2 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w23 = *reinterpret_cast<const float4 *>(p_t7 + i);
				const float v24 = p_t11[(krl_div(i, a2))];
				const float v25 = ((w23.x) - (v24));
				const float v26 = p_t19[(krl_div(i, a2))];
				const float v27 = ((v25) * (v26));
				const float v28 = p_gn_w[(krl_mod(krl_div(i, a5), a6))];
				const float v29 = ((v27) * (v28));
				const float v30 = p_gn_b[(krl_mod(krl_div(i, a5), a6))];
				const float v31 = ((v29) + (v30));
				const float v33 = krl_minf(v31, v32);
				const float v35 = krl_maxf(v33, v34);
				const float v37 = krl_minf(v35, v36);
				const float v38 = (float)p_mask[i];
				const float v39 = ((v37) * (v38));
				const float v41 = ((v39) * (v40));
				const float v42 = ((w23.y) - (v24));
				const float v43 = ((v42) * (v26));
				const float v44 = p_gn_w[(krl_mod(krl_div((i + 1), a5), a6))];
				const float v45 = ((v43) * (v44));
				const float v46 = p_gn_b[(krl_mod(krl_div((i + 1), a5), a6))];
				const float v47 = ((v45) + (v46));
				const float v48 = krl_minf(v47, v32);
				const float v49 = krl_maxf(v48, v34);
				const float v50 = krl_minf(v49, v36);
				const float v51 = (float)p_mask[(i + 1)];
				const float v52 = ((v50) * (v51));
				const float v53 = ((v52) * (v40));
				const float v54 = ((w23.z) - (v24));
				const float v55 = ((v54) * (v26));
				const float v56 = p_gn_w[(krl_mod(krl_div((i + 2), a5), a6))];
				const float v57 = ((v55) * (v56));
				const float v58 = p_gn_b[(krl_mod(krl_div((i + 2), a5), a6))];
				const float v59 = ((v57) + (v58));
				const float v60 = krl_minf(v59, v32);
				const float v61 = krl_maxf(v60, v34);
				const float v62 = krl_minf(v61, v36);
				const float v63 = (float)p_mask[(i + 2)];
				const float v64 = ((v62) * (v63));
				const float v65 = ((v64) * (v40));
				const float v66 = ((w23.w) - (v24));
				const float v67 = ((v66) * (v26));
				const float v68 = p_gn_w[(krl_mod(krl_div((i + 3), a5), a6))];
				const float v69 = ((v67) * (v68));
				const float v70 = p_gn_b[(krl_mod(krl_div((i + 3), a5), a6))];
				const float v71 = ((v69) + (v70));
				const float v72 = krl_minf(v71, v32);
				const float v73 = krl_maxf(v72, v34);
				const float v74 = krl_minf(v73, v36);
				const float v75 = (float)p_mask[(i + 3)];
				const float v76 = ((v74) * (v75));
				const float v77 = ((v76) * (v40));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v41, v53, v65, v77);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v78 = p_t7[i];
		const float v79 = p_t11[(krl_div(i, a2))];
		const float v80 = ((v78) - (v79));
		const float v81 = p_t19[(krl_div(i, a2))];
		const float v82 = ((v80) * (v81));
		const float v83 = p_gn_w[(krl_mod(krl_div(i, a5), a6))];
		const float v84 = ((v82) * (v83));
		const float v85 = p_gn_b[(krl_mod(krl_div(i, a5), a6))];
		const float v86 = ((v84) + (v85));
		const float v87 = krl_minf(v86, v32);
		const float v88 = krl_maxf(v87, v34);
		const float v89 = krl_minf(v88, v36);
		const float v90 = (float)p_mask[i];
		const float v91 = ((v89) * (v90));
		const float v92 = ((v91) * (v40));
		p_y[i] = v92;
	}
}

/*@plan
buffer t7 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t11 f32 [(batch_size), (groups), (1)]
buffer t19 f32 [(batch_size), (groups), (1)]
# k0: library call (node 7)
call conv_bias(x, w, b) -> t7
launch k1_row grid=(min((batch_size) * (groups), sm_count * 32)) block=(256) args((batch_size) * (groups),
    ((out_channels / groups) * ((od * oh) * ow)),
    t7,
    (1.0 / ((out_channels / groups) * ((od * oh) * ow))),
    t11,
    (eps),
    t19)
launch k2_map grid=(cdiv((batch_size) * (out_channels) * (od) * (oh) * (ow), 1024)) block=(256) args((batch_size) * (out_channels) * (od) * (oh) * (ow),
    t7,
    ((out_channels / groups) * ((od * oh) * ow)),
    t11,
    t19,
    (od) * (oh) * (ow),
    (out_channels),
    gn_w,
    gn_b,
    mask,
    y)
@*/
