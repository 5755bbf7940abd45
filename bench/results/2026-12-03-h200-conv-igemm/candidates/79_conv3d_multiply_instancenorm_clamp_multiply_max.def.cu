/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nchw conv.impl=lib
 * Task level2/79_conv3d_multiply_instancenorm_clamp_multiply_max, generated at shape set kb1; it serves every shape set.
 * fused 16 ops into 3 kernels: 2 row (block 256, regs), 1 library
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
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
 * k1 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 6 view, 7 add, 8 mul, 9 sum, 11 mul, 12 sub, 13 square, 14 sum, 16 mul, 18 add, 19 rsqrt.
 * Writes: t11 t19.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	const float *__restrict__ p_t5,
	long a3,
	const float *__restrict__ p_b,
	const float *__restrict__ p_multiplier,
	double c6,
	float *__restrict__ p_t11,
	double c8,
	float *__restrict__ p_t19)
{
	const float v70 = (float)c6;
	const float v76 = (float)c6;
	const float v78 = (float)c8;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = a1 % 4 == 0;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		const float v0 = p_t5[(rb + 0)];
		const float v1 = p_b[(krl_mod(krl_div((rb + 0), a1), a3))];
		const float v2 = ((v0) + (v1));
		const float v3 = p_multiplier[(krl_mod(krl_div((rb + 0), a1), a3))];
		const float v4 = ((v2) * (v3));
		/* pass 1 */
		double acc5 = 0.0;
		double acc6 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w7 = *reinterpret_cast<const float4 *>(p_t5 + (rb + r));
				const float v8 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
				const float v9 = ((w7.x) + (v8));
				const float v10 = p_multiplier[(krl_mod(krl_div((rb + r), a1), a3))];
				const float v11 = ((v9) * (v10));
				const float v12 = p_b[(krl_mod(krl_div((rb + (r + 1)), a1), a3))];
				const float v13 = ((w7.y) + (v12));
				const float v14 = ((v13) * (v10));
				const float v15 = p_b[(krl_mod(krl_div((rb + (r + 2)), a1), a3))];
				const float v16 = ((w7.z) + (v15));
				const float v17 = ((v16) * (v10));
				const float v18 = p_b[(krl_mod(krl_div((rb + (r + 3)), a1), a3))];
				const float v19 = ((w7.w) + (v18));
				const float v20 = ((v19) * (v10));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v11 - v4;
					const float d1 = v14 - v4;
					const float d2 = v17 - v4;
					const float d3 = v20 - v4;
					acc5 += (double)((d0 + d1) + (d2 + d3));
					acc6 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
				}
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v21 = p_t5[(rb + r)];
					const float v22 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v23 = ((v21) + (v22));
					const float v24 = p_multiplier[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v25 = ((v23) * (v24));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v25 - v4;
						acc5 += (double)d0;
						acc6 += (double)(d0 * d0);
					}
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v26 = p_t5[(rb + r)];
					const float v27 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v28 = ((v26) + (v27));
					const float v29 = p_multiplier[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v30 = ((v28) * (v29));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v30 - v4;
						acc5 += (double)d0;
						acc6 += (double)(d0 * d0);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w31 = *reinterpret_cast<const float4 *>(p_t5 + (rb + r));
					const float v32 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v33 = ((w31.x) + (v32));
					const float v34 = p_multiplier[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v35 = ((v33) * (v34));
					const float v36 = p_b[(krl_mod(krl_div((rb + (r + 1)), a1), a3))];
					const float v37 = ((w31.y) + (v36));
					const float v38 = ((v37) * (v34));
					const float v39 = p_b[(krl_mod(krl_div((rb + (r + 2)), a1), a3))];
					const float v40 = ((w31.z) + (v39));
					const float v41 = ((v40) * (v34));
					const float v42 = p_b[(krl_mod(krl_div((rb + (r + 3)), a1), a3))];
					const float v43 = ((w31.w) + (v42));
					const float v44 = ((v43) * (v34));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v35 - v4;
						const float d1 = v38 - v4;
						const float d2 = v41 - v4;
						const float d3 = v44 - v4;
						acc5 += (double)((d0 + d1) + (d2 + d3));
						acc6 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v45 = p_t5[(rb + r)];
					const float v46 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v47 = ((v45) + (v46));
					const float v48 = p_multiplier[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v49 = ((v47) * (v48));
					const float v50 = p_t5[(rb + (r + 256))];
					const float v51 = p_b[(krl_mod(krl_div((rb + (r + 256)), a1), a3))];
					const float v52 = ((v50) + (v51));
					const float v53 = p_multiplier[(krl_mod(krl_div((rb + (r + 256)), a1), a3))];
					const float v54 = ((v52) * (v53));
					const float v55 = p_t5[(rb + (r + 512))];
					const float v56 = p_b[(krl_mod(krl_div((rb + (r + 512)), a1), a3))];
					const float v57 = ((v55) + (v56));
					const float v58 = p_multiplier[(krl_mod(krl_div((rb + (r + 512)), a1), a3))];
					const float v59 = ((v57) * (v58));
					const float v60 = p_t5[(rb + (r + 768))];
					const float v61 = p_b[(krl_mod(krl_div((rb + (r + 768)), a1), a3))];
					const float v62 = ((v60) + (v61));
					const float v63 = p_multiplier[(krl_mod(krl_div((rb + (r + 768)), a1), a3))];
					const float v64 = ((v62) * (v63));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v49 - v4;
						const float d1 = v54 - v4;
						const float d2 = v59 - v4;
						const float d3 = v64 - v4;
						acc5 += (double)((d0 + d1) + (d2 + d3));
						acc6 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
				for (; r < a1; r += 256) {
					const float v65 = p_t5[(rb + r)];
					const float v66 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v67 = ((v65) + (v66));
					const float v68 = p_multiplier[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v69 = ((v67) * (v68));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v69 - v4;
						acc5 += (double)d0;
						acc6 += (double)(d0 * d0);
					}
				}
			}
		}
		acc5 = krl_block_sum(acc5);
		acc6 = krl_block_sum(acc6);
		const float r71 = (float)(acc5 + (double)a1 * (double)v4);
		const float m73 = r71 * v70;
		const double dm74 = (double)m73 - (double)v4;
		const float r72 = (float)fmax(acc6 - 2.0 * dm74 * acc5 + (double)a1 * dm74 * dm74, 0.0);
		/* the outputs of the row shape */
		const float v75 = ((r71) * (v70));
		const float v77 = ((r72) * (v76));
		const float v79 = ((v77) + (v78));
		const float v80 = rsqrtf(v79);
		if (lid == 0) {
			p_t11[o] = v75;
			p_t19[o] = v80;
		}
	}
}

/*
 * k2 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 6 view, 7 add, 8 mul, 12 sub, 20 mul, 23 max, 24 min, 25 mul, 26 max.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_b,
	const float *__restrict__ p_multiplier,
	const float *__restrict__ p_t11,
	const float *__restrict__ p_t19,
	float *__restrict__ p_y)
{
	__shared__ float krl_cf[8][33];
	const float v91 = -1.000000000e+00f;
	const float v93 = 1.000000000e+00f;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	for (long blk = blockIdx.x; blk < a0 * ncb; blk += gridDim.x) {
		const long o = blk / ncb;
		const long cc = (blk % ncb) * 32 + tx;
		const bool valid = cc < a2;
		/* past the last column: compute the last one's values (in bounds), store nothing */
		const long c = valid ? cc : a2 - 1;
		const long rb = o * a1 * a2 + c;
		/* pass 1 */
		float acc81 = -INFINITY;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v82 = p_t5[(rb + r * a2)];
				const float v83 = p_b[(r)];
				const float v84 = ((v82) + (v83));
				const float v85 = p_multiplier[(r)];
				const float v86 = ((v84) * (v85));
				const float v87 = p_t11[(o * a1 + r)];
				const float v88 = ((v86) - (v87));
				const float v89 = p_t19[(o * a1 + r)];
				const float v90 = ((v88) * (v89));
				const float v92 = krl_maxf(v90, v91);
				const float v94 = krl_minf(v92, v93);
				const float v95 = ((v94) * (v85));
				const float v96 = p_t5[(rb + (r + 8) * a2)];
				const float v97 = p_b[((r + 8))];
				const float v98 = ((v96) + (v97));
				const float v99 = p_multiplier[((r + 8))];
				const float v100 = ((v98) * (v99));
				const float v101 = p_t11[(o * a1 + (r + 8))];
				const float v102 = ((v100) - (v101));
				const float v103 = p_t19[(o * a1 + (r + 8))];
				const float v104 = ((v102) * (v103));
				const float v105 = krl_maxf(v104, v91);
				const float v106 = krl_minf(v105, v93);
				const float v107 = ((v106) * (v99));
				const float v108 = p_t5[(rb + (r + 16) * a2)];
				const float v109 = p_b[((r + 16))];
				const float v110 = ((v108) + (v109));
				const float v111 = p_multiplier[((r + 16))];
				const float v112 = ((v110) * (v111));
				const float v113 = p_t11[(o * a1 + (r + 16))];
				const float v114 = ((v112) - (v113));
				const float v115 = p_t19[(o * a1 + (r + 16))];
				const float v116 = ((v114) * (v115));
				const float v117 = krl_maxf(v116, v91);
				const float v118 = krl_minf(v117, v93);
				const float v119 = ((v118) * (v111));
				const float v120 = p_t5[(rb + (r + 24) * a2)];
				const float v121 = p_b[((r + 24))];
				const float v122 = ((v120) + (v121));
				const float v123 = p_multiplier[((r + 24))];
				const float v124 = ((v122) * (v123));
				const float v125 = p_t11[(o * a1 + (r + 24))];
				const float v126 = ((v124) - (v125));
				const float v127 = p_t19[(o * a1 + (r + 24))];
				const float v128 = ((v126) * (v127));
				const float v129 = krl_maxf(v128, v91);
				const float v130 = krl_minf(v129, v93);
				const float v131 = ((v130) * (v123));
				acc81 = krl_maxf(acc81, krl_maxf(krl_maxf(v95, v107), krl_maxf(v119, v131)));
			}
			for (; r < a1; r += 8) {
				const float v132 = p_t5[(rb + r * a2)];
				const float v133 = p_b[(r)];
				const float v134 = ((v132) + (v133));
				const float v135 = p_multiplier[(r)];
				const float v136 = ((v134) * (v135));
				const float v137 = p_t11[(o * a1 + r)];
				const float v138 = ((v136) - (v137));
				const float v139 = p_t19[(o * a1 + r)];
				const float v140 = ((v138) * (v139));
				const float v141 = krl_maxf(v140, v91);
				const float v142 = krl_minf(v141, v93);
				const float v143 = ((v142) * (v135));
				acc81 = krl_maxf(acc81, v143);
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cf[ty][tx] = acc81;
		__syncthreads();
		acc81 = krl_cf[0][tx];
		for (int k = 1; k < 8; k++)
			acc81 = krl_maxf(acc81, krl_cf[k][tx]);
		const float r144 = acc81;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_y[(o * a2 + c)] = r144;
		}
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t11 f32 [(batch_size), (out_channels), (1), (1), (1)]
buffer t19 f32 [(batch_size), (out_channels), (1), (1), (1)]
# k0: library call (node 5)
call conv(x, w) -> t5
launch k1_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (od) * (oh) * (ow),
    t5,
    (out_channels),
    b,
    multiplier,
    (1.0 / ((od * oh) * ow)),
    t11,
    (eps),
    t19)
launch k2_col grid=(min(((batch_size)) * cdiv((od) * (oh) * (ow), 32), sm_count * 32)) block=(32, 8) args((batch_size),
    (out_channels),
    (od) * (oh) * (ow),
    t5,
    b,
    multiplier,
    t11,
    t19,
    y)
@*/
