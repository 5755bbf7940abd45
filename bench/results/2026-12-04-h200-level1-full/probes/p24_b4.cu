/*
 * krl-choice: row.strategy=auto row.block=256 row.cache=regs fuse=full
 * Task level1/24_log_softmax, generated at shape set kb1; it serves every shape set.
 * fused 6 ops into 1 kernel: 1 row (block 256, regs)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: row
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
 * k0 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 2 max, 3 sub, 4 exp, 5 sum, 6 log, 7 sub.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k0_row(long a0,
	long a1,
	const float *__restrict__ p_x,
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
		float acc0 = -INFINITY;
		double acc1 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w2 = *reinterpret_cast<const float4 *>(p_x + (rb + r));
				{
					/* online: the running sum follows the running max */
					const float mn = krl_maxf(acc0, krl_maxf(krl_maxf(w2.x, w2.y), krl_maxf(w2.z, w2.w)));
					if (mn != acc0) {
						acc1 *= (double)expf(acc0 - mn);
						acc0 = mn;
					}
					if (acc0 != -INFINITY)
						acc1 += (double)((expf(w2.x - acc0) + expf(w2.y - acc0)) + (expf(w2.z - acc0) + expf(w2.w - acc0)));
				}
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v3 = p_x[(rb + r)];
					{
						/* online: the running sum follows the running max */
						const float mn = krl_maxf(acc0, v3);
						if (mn != acc0) {
							acc1 *= (double)expf(acc0 - mn);
							acc0 = mn;
						}
						if (acc0 != -INFINITY)
							acc1 += (double)expf(v3 - acc0);
					}
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v4 = p_x[(rb + r)];
					{
						/* online: the running sum follows the running max */
						const float mn = krl_maxf(acc0, v4);
						if (mn != acc0) {
							acc1 *= (double)expf(acc0 - mn);
							acc0 = mn;
						}
						if (acc0 != -INFINITY)
							acc1 += (double)expf(v4 - acc0);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w5 = *reinterpret_cast<const float4 *>(p_x + (rb + r));
					{
						/* online: the running sum follows the running max */
						const float mn = krl_maxf(acc0, krl_maxf(krl_maxf(w5.x, w5.y), krl_maxf(w5.z, w5.w)));
						if (mn != acc0) {
							acc1 *= (double)expf(acc0 - mn);
							acc0 = mn;
						}
						if (acc0 != -INFINITY)
							acc1 += (double)((expf(w5.x - acc0) + expf(w5.y - acc0)) + (expf(w5.z - acc0) + expf(w5.w - acc0)));
					}
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v6 = p_x[(rb + r)];
					const float v7 = p_x[(rb + (r + 256))];
					const float v8 = p_x[(rb + (r + 512))];
					const float v9 = p_x[(rb + (r + 768))];
					{
						/* online: the running sum follows the running max */
						const float mn = krl_maxf(acc0, krl_maxf(krl_maxf(v6, v7), krl_maxf(v8, v9)));
						if (mn != acc0) {
							acc1 *= (double)expf(acc0 - mn);
							acc0 = mn;
						}
						if (acc0 != -INFINITY)
							acc1 += (double)((expf(v6 - acc0) + expf(v7 - acc0)) + (expf(v8 - acc0) + expf(v9 - acc0)));
					}
				}
				for (; r < a1; r += 256) {
					const float v10 = p_x[(rb + r)];
					{
						/* online: the running sum follows the running max */
						const float mn = krl_maxf(acc0, v10);
						if (mn != acc0) {
							acc1 *= (double)expf(acc0 - mn);
							acc0 = mn;
						}
						if (acc0 != -INFINITY)
							acc1 += (double)expf(v10 - acc0);
					}
				}
			}
		}
		const float r11 = krl_block_max(acc0);
		acc1 = acc0 == -INFINITY ? 0.0 : acc1 * (double)expf(acc0 - r11);
		const float r12 = (float)krl_block_sum(acc1);
		const float v15 = logf(r12);
		/* the outputs of the full shape */
		if (vec) {
			const float c = r11 + v15;
			long r = (long)lid * 4;
			for (; r + 3 * 1024 < a1; r += 4 * 1024) {
				const float4 a = *reinterpret_cast<const float4 *>(p_x + (rb + r));
				const float4 b = *reinterpret_cast<const float4 *>(p_x + (rb + r + 1024));
				const float4 d = *reinterpret_cast<const float4 *>(p_x + (rb + r + 2048));
				const float4 e = *reinterpret_cast<const float4 *>(p_x + (rb + r + 3072));
				*reinterpret_cast<float4 *>(p_y + (rb + r)) = make_float4((a.x - r11) - v15, (a.y - r11) - v15, (a.z - r11) - v15, (a.w - r11) - v15);
				*reinterpret_cast<float4 *>(p_y + (rb + r + 1024)) = make_float4((b.x - r11) - v15, (b.y - r11) - v15, (b.z - r11) - v15, (b.w - r11) - v15);
				*reinterpret_cast<float4 *>(p_y + (rb + r + 2048)) = make_float4((d.x - r11) - v15, (d.y - r11) - v15, (d.z - r11) - v15, (d.w - r11) - v15);
				*reinterpret_cast<float4 *>(p_y + (rb + r + 3072)) = make_float4((e.x - r11) - v15, (e.y - r11) - v15, (e.z - r11) - v15, (e.w - r11) - v15);
			}
			(void)c;
			for (; r < a1; r += 1024) {
				const float4 a = *reinterpret_cast<const float4 *>(p_x + (rb + r));
				*reinterpret_cast<float4 *>(p_y + (rb + r)) = make_float4((a.x - r11) - v15, (a.y - r11) - v15, (a.z - r11) - v15, (a.w - r11) - v15);
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v23 = p_x[(rb + r)];
					const float v24 = ((v23) - (r11));
					const float v25 = ((v24) - (v15));
					p_y[(rb + r)] = v25;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v26 = p_x[(rb + r)];
					const float v27 = ((v26) - (r11));
					const float v28 = ((v27) - (v15));
					p_y[(rb + r)] = v28;
				}
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w29 = *reinterpret_cast<const float4 *>(p_x + (rb + r));
					const float v30 = ((w29.x) - (r11));
					const float v31 = ((v30) - (v15));
					const float v32 = ((w29.y) - (r11));
					const float v33 = ((v32) - (v15));
					const float v34 = ((w29.z) - (r11));
					const float v35 = ((v34) - (v15));
					const float v36 = ((w29.w) - (r11));
					const float v37 = ((v36) - (v15));
					*reinterpret_cast<float4 *>(p_y + (rb + r)) = make_float4(v31, v33, v35, v37);
				}
			}
		} else {
			{
				long r = lid;
				for (; r < a1; r += 256) {
					const float v38 = p_x[(rb + r)];
					const float v39 = ((v38) - (r11));
					const float v40 = ((v39) - (v15));
					p_y[(rb + r)] = v40;
				}
			}
		}
	}
}

/*@plan
launch k0_row grid=(min((batch_size), sm_count * 32)) block=(256) args((batch_size),
    (dim),
    x,
    y)
@*/
