/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8
 * Task level2/15_convtranspose3d_batchnorm_subtract, generated at shape set kb1; it serves every shape set.
 * fused 18 ops into 7 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 5 row (block 256, regs), 1 library
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: row
 *   k3: row
 *   k4: row
 *   k5: row
 *   k6: map
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
 * k1 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 9 sum.
 * Writes: t9.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	const float *__restrict__ p_b,
	float *__restrict__ p_t9)
{
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		const float v2 = p_b[(krl_mod(krl_div(rb, a1), a3))];
		/* pass 1 */
		double acc0 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w1 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v3 = ((w1.x) + (v2));
				const float v4 = ((w1.y) + (v2));
				const float v5 = ((w1.z) + (v2));
				const float v6 = ((w1.w) + (v2));
				acc0 += (double)((v3 + v4) + (v5 + v6));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v7 = p_t6[(rb + r)];
					const float v8 = ((v7) + (v2));
					acc0 += (double)v8;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v9 = p_t6[(rb + r)];
					const float v10 = ((v9) + (v2));
					acc0 += (double)v10;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w11 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v12 = ((w11.x) + (v2));
					const float v13 = ((w11.y) + (v2));
					const float v14 = ((w11.z) + (v2));
					const float v15 = ((w11.w) + (v2));
					acc0 += (double)((v12 + v13) + (v14 + v15));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v16 = p_t6[(rb + r)];
					const float v17 = ((v16) + (v2));
					const float v18 = p_t6[(rb + (r + 256))];
					const float v19 = ((v18) + (v2));
					const float v20 = p_t6[(rb + (r + 512))];
					const float v21 = ((v20) + (v2));
					const float v22 = p_t6[(rb + (r + 768))];
					const float v23 = ((v22) + (v2));
					acc0 += (double)((v17 + v19) + (v21 + v23));
				}
				for (; r < a1; r += 256) {
					const float v24 = p_t6[(rb + r)];
					const float v25 = ((v24) + (v2));
					acc0 += (double)v25;
				}
			}
		}
		const float r26 = (float)krl_block_sum(acc0);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t9[o] = r26;
		}
	}
}

/*
 * k2 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 10 sum, 12 mul.
 * Writes: t12.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t9,
	double c4,
	float *__restrict__ p_t12)
{
	__shared__ double krl_cd[8][33];
	const float v34 = (float)c4;
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
		double acc27 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v28 = p_t9[(rb + r * a2)];
				const float v29 = p_t9[(rb + (r + 8) * a2)];
				const float v30 = p_t9[(rb + (r + 16) * a2)];
				const float v31 = p_t9[(rb + (r + 24) * a2)];
				acc27 += (double)((v28 + v29) + (v30 + v31));
			}
			for (; r < a1; r += 8) {
				const float v32 = p_t9[(rb + r * a2)];
				acc27 += (double)v32;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc27;
		__syncthreads();
		acc27 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc27 += krl_cd[k][tx];
		const float r33 = (float)acc27;
		/* the outputs of the row shape */
		const float v35 = ((r33) * (v34));
		if (valid && ty == 0) {
			p_t12[(o * a2 + c)] = v35;
		}
	}
}

/*
 * k3 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 13 sub, 14 square, 15 sum.
 * Writes: t15.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t12,
	float *__restrict__ p_t15)
{
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		const float v38 = p_b[(krl_mod(krl_div(rb, a1), a3))];
		const float v40 = p_t12[(krl_mod(krl_div(rb, a1), a3))];
		/* pass 1 */
		double acc36 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w37 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v39 = ((w37.x) + (v38));
				const float v41 = ((v39) - (v40));
				const float v42 = ((v41) * (v41));
				const float v43 = ((w37.y) + (v38));
				const float v44 = ((v43) - (v40));
				const float v45 = ((v44) * (v44));
				const float v46 = ((w37.z) + (v38));
				const float v47 = ((v46) - (v40));
				const float v48 = ((v47) * (v47));
				const float v49 = ((w37.w) + (v38));
				const float v50 = ((v49) - (v40));
				const float v51 = ((v50) * (v50));
				acc36 += (double)((v42 + v45) + (v48 + v51));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v52 = p_t6[(rb + r)];
					const float v53 = ((v52) + (v38));
					const float v54 = ((v53) - (v40));
					const float v55 = ((v54) * (v54));
					acc36 += (double)v55;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v56 = p_t6[(rb + r)];
					const float v57 = ((v56) + (v38));
					const float v58 = ((v57) - (v40));
					const float v59 = ((v58) * (v58));
					acc36 += (double)v59;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w60 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v61 = ((w60.x) + (v38));
					const float v62 = ((v61) - (v40));
					const float v63 = ((v62) * (v62));
					const float v64 = ((w60.y) + (v38));
					const float v65 = ((v64) - (v40));
					const float v66 = ((v65) * (v65));
					const float v67 = ((w60.z) + (v38));
					const float v68 = ((v67) - (v40));
					const float v69 = ((v68) * (v68));
					const float v70 = ((w60.w) + (v38));
					const float v71 = ((v70) - (v40));
					const float v72 = ((v71) * (v71));
					acc36 += (double)((v63 + v66) + (v69 + v72));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v73 = p_t6[(rb + r)];
					const float v74 = ((v73) + (v38));
					const float v75 = ((v74) - (v40));
					const float v76 = ((v75) * (v75));
					const float v77 = p_t6[(rb + (r + 256))];
					const float v78 = ((v77) + (v38));
					const float v79 = ((v78) - (v40));
					const float v80 = ((v79) * (v79));
					const float v81 = p_t6[(rb + (r + 512))];
					const float v82 = ((v81) + (v38));
					const float v83 = ((v82) - (v40));
					const float v84 = ((v83) * (v83));
					const float v85 = p_t6[(rb + (r + 768))];
					const float v86 = ((v85) + (v38));
					const float v87 = ((v86) - (v40));
					const float v88 = ((v87) * (v87));
					acc36 += (double)((v76 + v80) + (v84 + v88));
				}
				for (; r < a1; r += 256) {
					const float v89 = p_t6[(rb + r)];
					const float v90 = ((v89) + (v38));
					const float v91 = ((v90) - (v40));
					const float v92 = ((v91) * (v91));
					acc36 += (double)v92;
				}
			}
		}
		const float r93 = (float)krl_block_sum(acc36);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t15[o] = r93;
		}
	}
}

/*
 * k4 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 16 sum, 18 mul, 20 add, 21 rsqrt.
 * Writes: t21.
 */
extern "C" __global__ void __launch_bounds__(256)
k4_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t15,
	double c4,
	double c5,
	float *__restrict__ p_t21)
{
	__shared__ double krl_cd[8][33];
	const float v101 = (float)c4;
	const float v103 = (float)c5;
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
		double acc94 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v95 = p_t15[(rb + r * a2)];
				const float v96 = p_t15[(rb + (r + 8) * a2)];
				const float v97 = p_t15[(rb + (r + 16) * a2)];
				const float v98 = p_t15[(rb + (r + 24) * a2)];
				acc94 += (double)((v95 + v96) + (v97 + v98));
			}
			for (; r < a1; r += 8) {
				const float v99 = p_t15[(rb + r * a2)];
				acc94 += (double)v99;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc94;
		__syncthreads();
		acc94 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc94 += krl_cd[k][tx];
		const float r100 = (float)acc94;
		/* the outputs of the row shape */
		const float v102 = ((r100) * (v101));
		const float v104 = ((v102) + (v103));
		const float v105 = rsqrtf(v104);
		if (valid && ty == 0) {
			p_t21[(o * a2 + c)] = v105;
		}
	}
}

/*
 * k5 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 13 sub, 22 mul, 23 view, 24 view, 25 mul, 26 add, 27 view, 28 sum, 30 mul, 31 view.
 * Writes: t31.
 */
extern "C" __global__ void __launch_bounds__(256)
k5_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	long a4,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t12,
	const float *__restrict__ p_t21,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	double c10,
	float *__restrict__ p_t31)
{
	const float v255 = (float)c10;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a3 % 4 == 0 && a1 % 4 == 0;
	const bool peel = a3 % 4 == 0;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc106 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w107 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v108 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v109 = ((w107.x) + (v108));
				const float v110 = p_t12[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v111 = ((v109) - (v110));
				const float v112 = p_t21[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v113 = ((v111) * (v112));
				const float v114 = p_bn_w[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v115 = ((v113) * (v114));
				const float v116 = p_bn_b[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v117 = ((v115) + (v116));
				const float v118 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
				const float v119 = ((w107.y) + (v118));
				const float v120 = ((v119) - (v110));
				const float v121 = ((v120) * (v112));
				const float v122 = p_bn_w[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
				const float v123 = ((v121) * (v122));
				const float v124 = p_bn_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
				const float v125 = ((v123) + (v124));
				const float v126 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
				const float v127 = ((w107.z) + (v126));
				const float v128 = ((v127) - (v110));
				const float v129 = ((v128) * (v112));
				const float v130 = p_bn_w[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
				const float v131 = ((v129) * (v130));
				const float v132 = p_bn_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
				const float v133 = ((v131) + (v132));
				const float v134 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
				const float v135 = ((w107.w) + (v134));
				const float v136 = ((v135) - (v110));
				const float v137 = ((v136) * (v112));
				const float v138 = p_bn_w[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
				const float v139 = ((v137) * (v138));
				const float v140 = p_bn_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
				const float v141 = ((v139) + (v140));
				acc106 += (double)((v117 + v125) + (v133 + v141));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v142 = p_t6[(rb + r)];
					const float v143 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v144 = ((v142) + (v143));
					const float v145 = p_t12[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v146 = ((v144) - (v145));
					const float v147 = p_t21[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v148 = ((v146) * (v147));
					const float v149 = p_bn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v150 = ((v148) * (v149));
					const float v151 = p_bn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v152 = ((v150) + (v151));
					acc106 += (double)v152;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v153 = p_t6[(rb + r)];
					const float v154 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v155 = ((v153) + (v154));
					const float v156 = p_t12[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v157 = ((v155) - (v156));
					const float v158 = p_t21[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v159 = ((v157) * (v158));
					const float v160 = p_bn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v161 = ((v159) * (v160));
					const float v162 = p_bn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v163 = ((v161) + (v162));
					acc106 += (double)v163;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w164 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v165 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v166 = ((w164.x) + (v165));
					const float v167 = p_t12[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v168 = ((v166) - (v167));
					const float v169 = p_t21[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v170 = ((v168) * (v169));
					const float v171 = p_bn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v172 = ((v170) * (v171));
					const float v173 = p_bn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v174 = ((v172) + (v173));
					const float v175 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
					const float v176 = ((w164.y) + (v175));
					const float v177 = ((v176) - (v167));
					const float v178 = ((v177) * (v169));
					const float v179 = p_bn_w[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
					const float v180 = ((v178) * (v179));
					const float v181 = p_bn_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
					const float v182 = ((v180) + (v181));
					const float v183 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
					const float v184 = ((w164.z) + (v183));
					const float v185 = ((v184) - (v167));
					const float v186 = ((v185) * (v169));
					const float v187 = p_bn_w[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
					const float v188 = ((v186) * (v187));
					const float v189 = p_bn_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
					const float v190 = ((v188) + (v189));
					const float v191 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
					const float v192 = ((w164.w) + (v191));
					const float v193 = ((v192) - (v167));
					const float v194 = ((v193) * (v169));
					const float v195 = p_bn_w[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
					const float v196 = ((v194) * (v195));
					const float v197 = p_bn_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
					const float v198 = ((v196) + (v197));
					acc106 += (double)((v174 + v182) + (v190 + v198));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v199 = p_t6[(rb + r)];
					const float v200 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v201 = ((v199) + (v200));
					const float v202 = p_t12[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v203 = ((v201) - (v202));
					const float v204 = p_t21[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v205 = ((v203) * (v204));
					const float v206 = p_bn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v207 = ((v205) * (v206));
					const float v208 = p_bn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v209 = ((v207) + (v208));
					const float v210 = p_t6[(rb + (r + 256))];
					const float v211 = p_b[(krl_mod(krl_div((rb + (r + 256)), a3), a4))];
					const float v212 = ((v210) + (v211));
					const float v213 = p_t12[(krl_mod(krl_div((rb + (r + 256)), a3), a4))];
					const float v214 = ((v212) - (v213));
					const float v215 = p_t21[(krl_mod(krl_div((rb + (r + 256)), a3), a4))];
					const float v216 = ((v214) * (v215));
					const float v217 = p_bn_w[(krl_mod(krl_div((rb + (r + 256)), a3), a4))];
					const float v218 = ((v216) * (v217));
					const float v219 = p_bn_b[(krl_mod(krl_div((rb + (r + 256)), a3), a4))];
					const float v220 = ((v218) + (v219));
					const float v221 = p_t6[(rb + (r + 512))];
					const float v222 = p_b[(krl_mod(krl_div((rb + (r + 512)), a3), a4))];
					const float v223 = ((v221) + (v222));
					const float v224 = p_t12[(krl_mod(krl_div((rb + (r + 512)), a3), a4))];
					const float v225 = ((v223) - (v224));
					const float v226 = p_t21[(krl_mod(krl_div((rb + (r + 512)), a3), a4))];
					const float v227 = ((v225) * (v226));
					const float v228 = p_bn_w[(krl_mod(krl_div((rb + (r + 512)), a3), a4))];
					const float v229 = ((v227) * (v228));
					const float v230 = p_bn_b[(krl_mod(krl_div((rb + (r + 512)), a3), a4))];
					const float v231 = ((v229) + (v230));
					const float v232 = p_t6[(rb + (r + 768))];
					const float v233 = p_b[(krl_mod(krl_div((rb + (r + 768)), a3), a4))];
					const float v234 = ((v232) + (v233));
					const float v235 = p_t12[(krl_mod(krl_div((rb + (r + 768)), a3), a4))];
					const float v236 = ((v234) - (v235));
					const float v237 = p_t21[(krl_mod(krl_div((rb + (r + 768)), a3), a4))];
					const float v238 = ((v236) * (v237));
					const float v239 = p_bn_w[(krl_mod(krl_div((rb + (r + 768)), a3), a4))];
					const float v240 = ((v238) * (v239));
					const float v241 = p_bn_b[(krl_mod(krl_div((rb + (r + 768)), a3), a4))];
					const float v242 = ((v240) + (v241));
					acc106 += (double)((v209 + v220) + (v231 + v242));
				}
				for (; r < a1; r += 256) {
					const float v243 = p_t6[(rb + r)];
					const float v244 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v245 = ((v243) + (v244));
					const float v246 = p_t12[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v247 = ((v245) - (v246));
					const float v248 = p_t21[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v249 = ((v247) * (v248));
					const float v250 = p_bn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v251 = ((v249) * (v250));
					const float v252 = p_bn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v253 = ((v251) + (v252));
					acc106 += (double)v253;
				}
			}
		}
		const float r254 = (float)krl_block_sum(acc106);
		/* the outputs of the row shape */
		const float v256 = ((r254) * (v255));
		if (lid == 0) {
			p_t31[o] = v256;
		}
	}
}

/*
 * k6 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 7 view, 8 add, 13 sub, 22 mul, 23 view, 24 view, 25 mul, 26 add, 32 sub.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k6_map(long a0,
	const float *__restrict__ p_t6,
	long a2,
	long a3,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t12,
	const float *__restrict__ p_t21,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	const float *__restrict__ p_t31,
	float *__restrict__ p_y)
{
	const int tid = threadIdx.x;
	const long nv = (a2 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w257 = *reinterpret_cast<const float4 *>(p_t6 + i);
				const float v258 = p_b[(krl_mod(krl_div(i, a2), a3))];
				const float v259 = ((w257.x) + (v258));
				const float v260 = p_t12[(krl_mod(krl_div(i, a2), a3))];
				const float v261 = ((v259) - (v260));
				const float v262 = p_t21[(krl_mod(krl_div(i, a2), a3))];
				const float v263 = ((v261) * (v262));
				const float v264 = p_bn_w[(krl_mod(krl_div(i, a2), a3))];
				const float v265 = ((v263) * (v264));
				const float v266 = p_bn_b[(krl_mod(krl_div(i, a2), a3))];
				const float v267 = ((v265) + (v266));
				const float v268 = p_t31[(krl_div(i, a2))];
				const float v269 = ((v267) - (v268));
				const float v270 = p_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v271 = ((w257.y) + (v270));
				const float v272 = ((v271) - (v260));
				const float v273 = ((v272) * (v262));
				const float v274 = p_bn_w[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v275 = ((v273) * (v274));
				const float v276 = p_bn_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v277 = ((v275) + (v276));
				const float v278 = ((v277) - (v268));
				const float v279 = p_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v280 = ((w257.z) + (v279));
				const float v281 = ((v280) - (v260));
				const float v282 = ((v281) * (v262));
				const float v283 = p_bn_w[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v284 = ((v282) * (v283));
				const float v285 = p_bn_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v286 = ((v284) + (v285));
				const float v287 = ((v286) - (v268));
				const float v288 = p_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v289 = ((w257.w) + (v288));
				const float v290 = ((v289) - (v260));
				const float v291 = ((v290) * (v262));
				const float v292 = p_bn_w[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v293 = ((v291) * (v292));
				const float v294 = p_bn_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v295 = ((v293) + (v294));
				const float v296 = ((v295) - (v268));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v269, v278, v287, v296);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v297 = p_t6[i];
		const float v298 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v299 = ((v297) + (v298));
		const float v300 = p_t12[(krl_mod(krl_div(i, a2), a3))];
		const float v301 = ((v299) - (v300));
		const float v302 = p_t21[(krl_mod(krl_div(i, a2), a3))];
		const float v303 = ((v301) * (v302));
		const float v304 = p_bn_w[(krl_mod(krl_div(i, a2), a3))];
		const float v305 = ((v303) * (v304));
		const float v306 = p_bn_b[(krl_mod(krl_div(i, a2), a3))];
		const float v307 = ((v305) + (v306));
		const float v308 = p_t31[(krl_div(i, a2))];
		const float v309 = ((v307) - (v308));
		p_y[i] = v309;
	}
}

/*@plan
buffer t6 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t9 f32 [(batch_size), (out_channels), (1), (1), (1)]
buffer t12 f32 [(1), (out_channels), (1), (1), (1)]
buffer t15 f32 [(batch_size), (out_channels), (1), (1), (1)]
buffer t21 f32 [(1), (out_channels), (1), (1), (1)]
buffer t31 f32 [(batch_size), (out_channels), (1), (1), (1)]
# k0: library call (node 6)
call conv_transpose(x, w) -> t6 stride=stride padding=padding
launch k1_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (od) * (oh) * (ow),
    t6,
    (out_channels),
    b,
    t9)
launch k2_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t9,
    (1.0 / (batch_size * ((od * oh) * ow))),
    t12)
launch k3_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (od) * (oh) * (ow),
    t6,
    (out_channels),
    b,
    t12,
    t15)
launch k4_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t15,
    (1.0 / (batch_size * ((od * oh) * ow))),
    (eps),
    t21)
launch k5_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (od * oh * ow),
    t6,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    t12,
    t21,
    bn_w,
    bn_b,
    (1.0 / (od * oh * ow)),
    t31)
launch k6_map grid=(cdiv((batch_size) * (out_channels) * (od) * (oh) * (ow), 1024)) block=(256) args((batch_size) * (out_channels) * (od) * (oh) * (ow),
    t6,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    t12,
    t21,
    bn_w,
    bn_b,
    t31,
    y)
@*/
