/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=512 row.cache=regs fuse=full lib.algo=0 lib.layout=nhwc_y
 * Task level2/67_conv2d_gelu_globalavgpool, generated at shape set kb1; it serves every shape set.
 * fused 9 ops into 2 kernels: 1 row (block 512, regs), 1 library (layout nhwc)
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
 * k1 (row: a block per row, 512 threads, rows re-read, 1 pass): nodes 5 view, 6 add, 10 div, 11 erf, 12 add, 13 mul, 14 mul, 15 view, 16 sum, 18 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(512)
k1_row(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	double c7,
	double c8,
	float *__restrict__ p_y)
{
	const float v1 = 5.000000000e-01f;
	const float v6 = 1.000000000e+00f;
	const float v7 = (float)c7;
	const float v125 = (float)c8;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc0 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)512 * 4) {
				const float v2 = p_t4[((krl_div((rb + r), a4) * a3 + krl_mod((rb + r), a3)) * a2 + krl_mod(krl_div((rb + r), a3), a2))];
				const float v3 = p_b[(krl_mod(krl_div((rb + r), a3), a2))];
				const float v4 = ((v2) + (v3));
				const float v5 = ((v1) * (v4));
				const float v8 = ((v4) / (v7));
				const float v9 = erff(v8);
				const float v10 = ((v6) + (v9));
				const float v11 = ((v5) * (v10));
				const float v12 = p_t4[((krl_div((rb + (r + 1)), a4) * a3 + krl_mod((rb + (r + 1)), a3)) * a2 + krl_mod(krl_div((rb + (r + 1)), a3), a2))];
				const float v13 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a2))];
				const float v14 = ((v12) + (v13));
				const float v15 = ((v1) * (v14));
				const float v16 = ((v14) / (v7));
				const float v17 = erff(v16);
				const float v18 = ((v6) + (v17));
				const float v19 = ((v15) * (v18));
				const float v20 = p_t4[((krl_div((rb + (r + 2)), a4) * a3 + krl_mod((rb + (r + 2)), a3)) * a2 + krl_mod(krl_div((rb + (r + 2)), a3), a2))];
				const float v21 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a2))];
				const float v22 = ((v20) + (v21));
				const float v23 = ((v1) * (v22));
				const float v24 = ((v22) / (v7));
				const float v25 = erff(v24);
				const float v26 = ((v6) + (v25));
				const float v27 = ((v23) * (v26));
				const float v28 = p_t4[((krl_div((rb + (r + 3)), a4) * a3 + krl_mod((rb + (r + 3)), a3)) * a2 + krl_mod(krl_div((rb + (r + 3)), a3), a2))];
				const float v29 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a2))];
				const float v30 = ((v28) + (v29));
				const float v31 = ((v1) * (v30));
				const float v32 = ((v30) / (v7));
				const float v33 = erff(v32);
				const float v34 = ((v6) + (v33));
				const float v35 = ((v31) * (v34));
				acc0 += (double)((v11 + v19) + (v27 + v35));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v36 = p_t4[((krl_div((rb + r), a4) * a3 + krl_mod((rb + r), a3)) * a2 + krl_mod(krl_div((rb + r), a3), a2))];
					const float v37 = p_b[(krl_mod(krl_div((rb + r), a3), a2))];
					const float v38 = ((v36) + (v37));
					const float v39 = ((v1) * (v38));
					const float v40 = ((v38) / (v7));
					const float v41 = erff(v40);
					const float v42 = ((v6) + (v41));
					const float v43 = ((v39) * (v42));
					acc0 += (double)v43;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v44 = p_t4[((krl_div((rb + r), a4) * a3 + krl_mod((rb + r), a3)) * a2 + krl_mod(krl_div((rb + r), a3), a2))];
					const float v45 = p_b[(krl_mod(krl_div((rb + r), a3), a2))];
					const float v46 = ((v44) + (v45));
					const float v47 = ((v1) * (v46));
					const float v48 = ((v46) / (v7));
					const float v49 = erff(v48);
					const float v50 = ((v6) + (v49));
					const float v51 = ((v47) * (v50));
					acc0 += (double)v51;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)512 * 4) {
					const float v52 = p_t4[((krl_div((rb + r), a4) * a3 + krl_mod((rb + r), a3)) * a2 + krl_mod(krl_div((rb + r), a3), a2))];
					const float v53 = p_b[(krl_mod(krl_div((rb + r), a3), a2))];
					const float v54 = ((v52) + (v53));
					const float v55 = ((v1) * (v54));
					const float v56 = ((v54) / (v7));
					const float v57 = erff(v56);
					const float v58 = ((v6) + (v57));
					const float v59 = ((v55) * (v58));
					const float v60 = p_t4[((krl_div((rb + (r + 1)), a4) * a3 + krl_mod((rb + (r + 1)), a3)) * a2 + krl_mod(krl_div((rb + (r + 1)), a3), a2))];
					const float v61 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a2))];
					const float v62 = ((v60) + (v61));
					const float v63 = ((v1) * (v62));
					const float v64 = ((v62) / (v7));
					const float v65 = erff(v64);
					const float v66 = ((v6) + (v65));
					const float v67 = ((v63) * (v66));
					const float v68 = p_t4[((krl_div((rb + (r + 2)), a4) * a3 + krl_mod((rb + (r + 2)), a3)) * a2 + krl_mod(krl_div((rb + (r + 2)), a3), a2))];
					const float v69 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a2))];
					const float v70 = ((v68) + (v69));
					const float v71 = ((v1) * (v70));
					const float v72 = ((v70) / (v7));
					const float v73 = erff(v72);
					const float v74 = ((v6) + (v73));
					const float v75 = ((v71) * (v74));
					const float v76 = p_t4[((krl_div((rb + (r + 3)), a4) * a3 + krl_mod((rb + (r + 3)), a3)) * a2 + krl_mod(krl_div((rb + (r + 3)), a3), a2))];
					const float v77 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a2))];
					const float v78 = ((v76) + (v77));
					const float v79 = ((v1) * (v78));
					const float v80 = ((v78) / (v7));
					const float v81 = erff(v80);
					const float v82 = ((v6) + (v81));
					const float v83 = ((v79) * (v82));
					acc0 += (double)((v59 + v67) + (v75 + v83));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 1536 < a1; r += 2048) {
					const float v84 = p_t4[((krl_div((rb + r), a4) * a3 + krl_mod((rb + r), a3)) * a2 + krl_mod(krl_div((rb + r), a3), a2))];
					const float v85 = p_b[(krl_mod(krl_div((rb + r), a3), a2))];
					const float v86 = ((v84) + (v85));
					const float v87 = ((v1) * (v86));
					const float v88 = ((v86) / (v7));
					const float v89 = erff(v88);
					const float v90 = ((v6) + (v89));
					const float v91 = ((v87) * (v90));
					const float v92 = p_t4[((krl_div((rb + (r + 512)), a4) * a3 + krl_mod((rb + (r + 512)), a3)) * a2 + krl_mod(krl_div((rb + (r + 512)), a3), a2))];
					const float v93 = p_b[(krl_mod(krl_div((rb + (r + 512)), a3), a2))];
					const float v94 = ((v92) + (v93));
					const float v95 = ((v1) * (v94));
					const float v96 = ((v94) / (v7));
					const float v97 = erff(v96);
					const float v98 = ((v6) + (v97));
					const float v99 = ((v95) * (v98));
					const float v100 = p_t4[((krl_div((rb + (r + 1024)), a4) * a3 + krl_mod((rb + (r + 1024)), a3)) * a2 + krl_mod(krl_div((rb + (r + 1024)), a3), a2))];
					const float v101 = p_b[(krl_mod(krl_div((rb + (r + 1024)), a3), a2))];
					const float v102 = ((v100) + (v101));
					const float v103 = ((v1) * (v102));
					const float v104 = ((v102) / (v7));
					const float v105 = erff(v104);
					const float v106 = ((v6) + (v105));
					const float v107 = ((v103) * (v106));
					const float v108 = p_t4[((krl_div((rb + (r + 1536)), a4) * a3 + krl_mod((rb + (r + 1536)), a3)) * a2 + krl_mod(krl_div((rb + (r + 1536)), a3), a2))];
					const float v109 = p_b[(krl_mod(krl_div((rb + (r + 1536)), a3), a2))];
					const float v110 = ((v108) + (v109));
					const float v111 = ((v1) * (v110));
					const float v112 = ((v110) / (v7));
					const float v113 = erff(v112);
					const float v114 = ((v6) + (v113));
					const float v115 = ((v111) * (v114));
					acc0 += (double)((v91 + v99) + (v107 + v115));
				}
				for (; r < a1; r += 512) {
					const float v116 = p_t4[((krl_div((rb + r), a4) * a3 + krl_mod((rb + r), a3)) * a2 + krl_mod(krl_div((rb + r), a3), a2))];
					const float v117 = p_b[(krl_mod(krl_div((rb + r), a3), a2))];
					const float v118 = ((v116) + (v117));
					const float v119 = ((v1) * (v118));
					const float v120 = ((v118) / (v7));
					const float v121 = erff(v120);
					const float v122 = ((v6) + (v121));
					const float v123 = ((v119) * (v122));
					acc0 += (double)v123;
				}
			}
		}
		const float r124 = (float)krl_block_sum(acc0);
		/* the outputs of the row shape */
		const float v126 = ((r124) * (v125));
		if (lid == 0) {
			p_y[o] = v126;
		}
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (oh), (ow)]
# k0: library call (node 4)
call conv(x, w) -> t4 layout=nhwc_y
launch k1_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(512) args((batch_size) * (out_channels),
    (oh * ow),
    (out_channels),
    (oh) * (ow),
    (out_channels) * (oh) * (ow),
    t4,
    b,
    (sqrt(2.0)),
    (1.0 / (oh * ow)),
    y)
@*/
