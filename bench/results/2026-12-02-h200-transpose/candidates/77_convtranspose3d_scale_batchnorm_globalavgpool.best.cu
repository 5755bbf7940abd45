/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=1024 row.cache=regs fuse=full lib.algo=0 lib.layout=nhwc lib.tconv=fwd
 * Task level2/77_convtranspose3d_scale_batchnorm_globalavgpool, generated at shape set kb1; it serves every shape set.
 * fused 18 ops into 6 kernels: 5 row (block 1024, regs), 1 library (1 transposed conv as forward) (layout nhwc)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: row
 *   k3: row
 *   k4: row
 *   k5: row
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
 * k0_wflip (init): the transposed convolution's weight as a forward
 * one. w is [groups * cin_g, cout_g, taps], wf [groups * cout_g, cin_g,
 * taps] with the taps reversed (every spatial dim flipped).
 */
extern "C" __global__ void k0_wflip(const float *__restrict__ w,
                                     float *__restrict__ wf, long cin_g,
                                     long cout_g, long groups, long taps)
{
	long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= groups * cout_g * cin_g * taps)
		return;
	long tap = i % taps, j = i / taps;
	long ci = j % cin_g, cof = j / cin_g;
	long g = cof / cout_g, co = cof % cout_g;
	wf[i] = w[((g * cin_g + ci) * cout_g + co) * taps + (taps - 1 - tap)];
}

/*
 * k1 (row: a block per row, 1024 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 10 mul, 11 sum.
 * Writes: t11.
 */
extern "C" __global__ void __launch_bounds__(1024)
k1_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	const float *__restrict__ p_b,
	float *__restrict__ p_t11)
{
	const float v4 = 2.000000000e+00f;
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
			for (long r = (long)lid * 4; r < a1; r += (long)1024 * 4) {
				const float4 w1 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v2 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
				const float v3 = ((w1.x) + (v2));
				const float v5 = ((v3) * (v4));
				const float v6 = p_b[(krl_mod(krl_div((rb + (r + 1)), a1), a3))];
				const float v7 = ((w1.y) + (v6));
				const float v8 = ((v7) * (v4));
				const float v9 = p_b[(krl_mod(krl_div((rb + (r + 2)), a1), a3))];
				const float v10 = ((w1.z) + (v9));
				const float v11 = ((v10) * (v4));
				const float v12 = p_b[(krl_mod(krl_div((rb + (r + 3)), a1), a3))];
				const float v13 = ((w1.w) + (v12));
				const float v14 = ((v13) * (v4));
				acc0 += (double)((v5 + v8) + (v11 + v14));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v15 = p_t6[(rb + r)];
					const float v16 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v17 = ((v15) + (v16));
					const float v18 = ((v17) * (v4));
					acc0 += (double)v18;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v19 = p_t6[(rb + r)];
					const float v20 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v21 = ((v19) + (v20));
					const float v22 = ((v21) * (v4));
					acc0 += (double)v22;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)1024 * 4) {
					const float4 w23 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v24 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v25 = ((w23.x) + (v24));
					const float v26 = ((v25) * (v4));
					const float v27 = p_b[(krl_mod(krl_div((rb + (r + 1)), a1), a3))];
					const float v28 = ((w23.y) + (v27));
					const float v29 = ((v28) * (v4));
					const float v30 = p_b[(krl_mod(krl_div((rb + (r + 2)), a1), a3))];
					const float v31 = ((w23.z) + (v30));
					const float v32 = ((v31) * (v4));
					const float v33 = p_b[(krl_mod(krl_div((rb + (r + 3)), a1), a3))];
					const float v34 = ((w23.w) + (v33));
					const float v35 = ((v34) * (v4));
					acc0 += (double)((v26 + v29) + (v32 + v35));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 3072 < a1; r += 4096) {
					const float v36 = p_t6[(rb + r)];
					const float v37 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v38 = ((v36) + (v37));
					const float v39 = ((v38) * (v4));
					const float v40 = p_t6[(rb + (r + 1024))];
					const float v41 = p_b[(krl_mod(krl_div((rb + (r + 1024)), a1), a3))];
					const float v42 = ((v40) + (v41));
					const float v43 = ((v42) * (v4));
					const float v44 = p_t6[(rb + (r + 2048))];
					const float v45 = p_b[(krl_mod(krl_div((rb + (r + 2048)), a1), a3))];
					const float v46 = ((v44) + (v45));
					const float v47 = ((v46) * (v4));
					const float v48 = p_t6[(rb + (r + 3072))];
					const float v49 = p_b[(krl_mod(krl_div((rb + (r + 3072)), a1), a3))];
					const float v50 = ((v48) + (v49));
					const float v51 = ((v50) * (v4));
					acc0 += (double)((v39 + v43) + (v47 + v51));
				}
				for (; r < a1; r += 1024) {
					const float v52 = p_t6[(rb + r)];
					const float v53 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v54 = ((v52) + (v53));
					const float v55 = ((v54) * (v4));
					acc0 += (double)v55;
				}
			}
		}
		const float r56 = (float)krl_block_sum(acc0);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t11[o] = r56;
		}
	}
}

/*
 * k2 (row over a middle axis: 32 columns x 32 rows of threads per block, 1 pass): nodes 12 sum, 14 mul.
 * Writes: t14.
 */
extern "C" __global__ void __launch_bounds__(1024)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t11,
	double c4,
	float *__restrict__ p_t14)
{
	__shared__ double krl_cd[32][33];
	const float v64 = (float)c4;
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
		double acc57 = 0.0;
		{
			long r = ty;
			for (; r + 96 < a1; r += 128) {
				const float v58 = p_t11[(rb + r * a2)];
				const float v59 = p_t11[(rb + (r + 32) * a2)];
				const float v60 = p_t11[(rb + (r + 64) * a2)];
				const float v61 = p_t11[(rb + (r + 96) * a2)];
				acc57 += (double)((v58 + v59) + (v60 + v61));
			}
			for (; r < a1; r += 32) {
				const float v62 = p_t11[(rb + r * a2)];
				acc57 += (double)v62;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc57;
		__syncthreads();
		acc57 = krl_cd[0][tx];
		for (int k = 1; k < 32; k++)
			acc57 += krl_cd[k][tx];
		const float r63 = (float)acc57;
		/* the outputs of the row shape */
		const float v65 = ((r63) * (v64));
		if (valid && ty == 0) {
			p_t14[(o * a2 + c)] = v65;
		}
	}
}

/*
 * k3 (row: a block per row, 1024 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 10 mul, 15 sub, 16 square, 17 sum.
 * Writes: t17.
 */
extern "C" __global__ void __launch_bounds__(1024)
k3_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t14,
	float *__restrict__ p_t17)
{
	const float v70 = 2.000000000e+00f;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = a1 % 4 == 0;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc66 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)1024 * 4) {
				const float4 w67 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v68 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
				const float v69 = ((w67.x) + (v68));
				const float v71 = ((v69) * (v70));
				const float v72 = p_t14[(krl_mod(krl_div((rb + r), a1), a3))];
				const float v73 = ((v71) - (v72));
				const float v74 = ((v73) * (v73));
				const float v75 = p_b[(krl_mod(krl_div((rb + (r + 1)), a1), a3))];
				const float v76 = ((w67.y) + (v75));
				const float v77 = ((v76) * (v70));
				const float v78 = ((v77) - (v72));
				const float v79 = ((v78) * (v78));
				const float v80 = p_b[(krl_mod(krl_div((rb + (r + 2)), a1), a3))];
				const float v81 = ((w67.z) + (v80));
				const float v82 = ((v81) * (v70));
				const float v83 = ((v82) - (v72));
				const float v84 = ((v83) * (v83));
				const float v85 = p_b[(krl_mod(krl_div((rb + (r + 3)), a1), a3))];
				const float v86 = ((w67.w) + (v85));
				const float v87 = ((v86) * (v70));
				const float v88 = ((v87) - (v72));
				const float v89 = ((v88) * (v88));
				acc66 += (double)((v74 + v79) + (v84 + v89));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v90 = p_t6[(rb + r)];
					const float v91 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v92 = ((v90) + (v91));
					const float v93 = ((v92) * (v70));
					const float v94 = p_t14[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v95 = ((v93) - (v94));
					const float v96 = ((v95) * (v95));
					acc66 += (double)v96;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v97 = p_t6[(rb + r)];
					const float v98 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v99 = ((v97) + (v98));
					const float v100 = ((v99) * (v70));
					const float v101 = p_t14[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v102 = ((v100) - (v101));
					const float v103 = ((v102) * (v102));
					acc66 += (double)v103;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)1024 * 4) {
					const float4 w104 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v105 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v106 = ((w104.x) + (v105));
					const float v107 = ((v106) * (v70));
					const float v108 = p_t14[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v109 = ((v107) - (v108));
					const float v110 = ((v109) * (v109));
					const float v111 = p_b[(krl_mod(krl_div((rb + (r + 1)), a1), a3))];
					const float v112 = ((w104.y) + (v111));
					const float v113 = ((v112) * (v70));
					const float v114 = ((v113) - (v108));
					const float v115 = ((v114) * (v114));
					const float v116 = p_b[(krl_mod(krl_div((rb + (r + 2)), a1), a3))];
					const float v117 = ((w104.z) + (v116));
					const float v118 = ((v117) * (v70));
					const float v119 = ((v118) - (v108));
					const float v120 = ((v119) * (v119));
					const float v121 = p_b[(krl_mod(krl_div((rb + (r + 3)), a1), a3))];
					const float v122 = ((w104.w) + (v121));
					const float v123 = ((v122) * (v70));
					const float v124 = ((v123) - (v108));
					const float v125 = ((v124) * (v124));
					acc66 += (double)((v110 + v115) + (v120 + v125));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 3072 < a1; r += 4096) {
					const float v126 = p_t6[(rb + r)];
					const float v127 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v128 = ((v126) + (v127));
					const float v129 = ((v128) * (v70));
					const float v130 = p_t14[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v131 = ((v129) - (v130));
					const float v132 = ((v131) * (v131));
					const float v133 = p_t6[(rb + (r + 1024))];
					const float v134 = p_b[(krl_mod(krl_div((rb + (r + 1024)), a1), a3))];
					const float v135 = ((v133) + (v134));
					const float v136 = ((v135) * (v70));
					const float v137 = p_t14[(krl_mod(krl_div((rb + (r + 1024)), a1), a3))];
					const float v138 = ((v136) - (v137));
					const float v139 = ((v138) * (v138));
					const float v140 = p_t6[(rb + (r + 2048))];
					const float v141 = p_b[(krl_mod(krl_div((rb + (r + 2048)), a1), a3))];
					const float v142 = ((v140) + (v141));
					const float v143 = ((v142) * (v70));
					const float v144 = p_t14[(krl_mod(krl_div((rb + (r + 2048)), a1), a3))];
					const float v145 = ((v143) - (v144));
					const float v146 = ((v145) * (v145));
					const float v147 = p_t6[(rb + (r + 3072))];
					const float v148 = p_b[(krl_mod(krl_div((rb + (r + 3072)), a1), a3))];
					const float v149 = ((v147) + (v148));
					const float v150 = ((v149) * (v70));
					const float v151 = p_t14[(krl_mod(krl_div((rb + (r + 3072)), a1), a3))];
					const float v152 = ((v150) - (v151));
					const float v153 = ((v152) * (v152));
					acc66 += (double)((v132 + v139) + (v146 + v153));
				}
				for (; r < a1; r += 1024) {
					const float v154 = p_t6[(rb + r)];
					const float v155 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v156 = ((v154) + (v155));
					const float v157 = ((v156) * (v70));
					const float v158 = p_t14[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v159 = ((v157) - (v158));
					const float v160 = ((v159) * (v159));
					acc66 += (double)v160;
				}
			}
		}
		const float r161 = (float)krl_block_sum(acc66);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t17[o] = r161;
		}
	}
}

/*
 * k4 (row over a middle axis: 32 columns x 32 rows of threads per block, 1 pass): nodes 18 sum, 20 mul, 22 add, 23 rsqrt.
 * Writes: t23.
 */
extern "C" __global__ void __launch_bounds__(1024)
k4_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t17,
	double c4,
	double c5,
	float *__restrict__ p_t23)
{
	__shared__ double krl_cd[32][33];
	const float v169 = (float)c4;
	const float v171 = (float)c5;
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
		double acc162 = 0.0;
		{
			long r = ty;
			for (; r + 96 < a1; r += 128) {
				const float v163 = p_t17[(rb + r * a2)];
				const float v164 = p_t17[(rb + (r + 32) * a2)];
				const float v165 = p_t17[(rb + (r + 64) * a2)];
				const float v166 = p_t17[(rb + (r + 96) * a2)];
				acc162 += (double)((v163 + v164) + (v165 + v166));
			}
			for (; r < a1; r += 32) {
				const float v167 = p_t17[(rb + r * a2)];
				acc162 += (double)v167;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc162;
		__syncthreads();
		acc162 = krl_cd[0][tx];
		for (int k = 1; k < 32; k++)
			acc162 += krl_cd[k][tx];
		const float r168 = (float)acc162;
		/* the outputs of the row shape */
		const float v170 = ((r168) * (v169));
		const float v172 = ((v170) + (v171));
		const float v173 = rsqrtf(v172);
		if (valid && ty == 0) {
			p_t23[(o * a2 + c)] = v173;
		}
	}
}

/*
 * k5 (row: a block per row, 1024 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 10 mul, 15 sub, 24 mul, 25 view, 26 view, 27 mul, 28 add, 29 view, 30 sum, 32 mul, 33 view.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(1024)
k5_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	long a4,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t14,
	const float *__restrict__ p_t23,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	double c10,
	float *__restrict__ p_y)
{
	const float v178 = 2.000000000e+00f;
	const float v339 = (float)c10;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a3 % 4 == 0 && a1 % 4 == 0;
	const bool peel = a3 % 4 == 0;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc174 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)1024 * 4) {
				const float4 w175 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v176 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v177 = ((w175.x) + (v176));
				const float v179 = ((v177) * (v178));
				const float v180 = p_t14[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v181 = ((v179) - (v180));
				const float v182 = p_t23[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v183 = ((v181) * (v182));
				const float v184 = p_bn_w[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v185 = ((v183) * (v184));
				const float v186 = p_bn_b[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v187 = ((v185) + (v186));
				const float v188 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
				const float v189 = ((w175.y) + (v188));
				const float v190 = ((v189) * (v178));
				const float v191 = ((v190) - (v180));
				const float v192 = ((v191) * (v182));
				const float v193 = p_bn_w[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
				const float v194 = ((v192) * (v193));
				const float v195 = p_bn_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
				const float v196 = ((v194) + (v195));
				const float v197 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
				const float v198 = ((w175.z) + (v197));
				const float v199 = ((v198) * (v178));
				const float v200 = ((v199) - (v180));
				const float v201 = ((v200) * (v182));
				const float v202 = p_bn_w[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
				const float v203 = ((v201) * (v202));
				const float v204 = p_bn_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
				const float v205 = ((v203) + (v204));
				const float v206 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
				const float v207 = ((w175.w) + (v206));
				const float v208 = ((v207) * (v178));
				const float v209 = ((v208) - (v180));
				const float v210 = ((v209) * (v182));
				const float v211 = p_bn_w[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
				const float v212 = ((v210) * (v211));
				const float v213 = p_bn_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
				const float v214 = ((v212) + (v213));
				acc174 += (double)((v187 + v196) + (v205 + v214));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v215 = p_t6[(rb + r)];
					const float v216 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v217 = ((v215) + (v216));
					const float v218 = ((v217) * (v178));
					const float v219 = p_t14[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v220 = ((v218) - (v219));
					const float v221 = p_t23[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v222 = ((v220) * (v221));
					const float v223 = p_bn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v224 = ((v222) * (v223));
					const float v225 = p_bn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v226 = ((v224) + (v225));
					acc174 += (double)v226;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v227 = p_t6[(rb + r)];
					const float v228 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v229 = ((v227) + (v228));
					const float v230 = ((v229) * (v178));
					const float v231 = p_t14[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v232 = ((v230) - (v231));
					const float v233 = p_t23[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v234 = ((v232) * (v233));
					const float v235 = p_bn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v236 = ((v234) * (v235));
					const float v237 = p_bn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v238 = ((v236) + (v237));
					acc174 += (double)v238;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)1024 * 4) {
					const float4 w239 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v240 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v241 = ((w239.x) + (v240));
					const float v242 = ((v241) * (v178));
					const float v243 = p_t14[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v244 = ((v242) - (v243));
					const float v245 = p_t23[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v246 = ((v244) * (v245));
					const float v247 = p_bn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v248 = ((v246) * (v247));
					const float v249 = p_bn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v250 = ((v248) + (v249));
					const float v251 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
					const float v252 = ((w239.y) + (v251));
					const float v253 = ((v252) * (v178));
					const float v254 = ((v253) - (v243));
					const float v255 = ((v254) * (v245));
					const float v256 = p_bn_w[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
					const float v257 = ((v255) * (v256));
					const float v258 = p_bn_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
					const float v259 = ((v257) + (v258));
					const float v260 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
					const float v261 = ((w239.z) + (v260));
					const float v262 = ((v261) * (v178));
					const float v263 = ((v262) - (v243));
					const float v264 = ((v263) * (v245));
					const float v265 = p_bn_w[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
					const float v266 = ((v264) * (v265));
					const float v267 = p_bn_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
					const float v268 = ((v266) + (v267));
					const float v269 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
					const float v270 = ((w239.w) + (v269));
					const float v271 = ((v270) * (v178));
					const float v272 = ((v271) - (v243));
					const float v273 = ((v272) * (v245));
					const float v274 = p_bn_w[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
					const float v275 = ((v273) * (v274));
					const float v276 = p_bn_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
					const float v277 = ((v275) + (v276));
					acc174 += (double)((v250 + v259) + (v268 + v277));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 3072 < a1; r += 4096) {
					const float v278 = p_t6[(rb + r)];
					const float v279 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v280 = ((v278) + (v279));
					const float v281 = ((v280) * (v178));
					const float v282 = p_t14[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v283 = ((v281) - (v282));
					const float v284 = p_t23[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v285 = ((v283) * (v284));
					const float v286 = p_bn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v287 = ((v285) * (v286));
					const float v288 = p_bn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v289 = ((v287) + (v288));
					const float v290 = p_t6[(rb + (r + 1024))];
					const float v291 = p_b[(krl_mod(krl_div((rb + (r + 1024)), a3), a4))];
					const float v292 = ((v290) + (v291));
					const float v293 = ((v292) * (v178));
					const float v294 = p_t14[(krl_mod(krl_div((rb + (r + 1024)), a3), a4))];
					const float v295 = ((v293) - (v294));
					const float v296 = p_t23[(krl_mod(krl_div((rb + (r + 1024)), a3), a4))];
					const float v297 = ((v295) * (v296));
					const float v298 = p_bn_w[(krl_mod(krl_div((rb + (r + 1024)), a3), a4))];
					const float v299 = ((v297) * (v298));
					const float v300 = p_bn_b[(krl_mod(krl_div((rb + (r + 1024)), a3), a4))];
					const float v301 = ((v299) + (v300));
					const float v302 = p_t6[(rb + (r + 2048))];
					const float v303 = p_b[(krl_mod(krl_div((rb + (r + 2048)), a3), a4))];
					const float v304 = ((v302) + (v303));
					const float v305 = ((v304) * (v178));
					const float v306 = p_t14[(krl_mod(krl_div((rb + (r + 2048)), a3), a4))];
					const float v307 = ((v305) - (v306));
					const float v308 = p_t23[(krl_mod(krl_div((rb + (r + 2048)), a3), a4))];
					const float v309 = ((v307) * (v308));
					const float v310 = p_bn_w[(krl_mod(krl_div((rb + (r + 2048)), a3), a4))];
					const float v311 = ((v309) * (v310));
					const float v312 = p_bn_b[(krl_mod(krl_div((rb + (r + 2048)), a3), a4))];
					const float v313 = ((v311) + (v312));
					const float v314 = p_t6[(rb + (r + 3072))];
					const float v315 = p_b[(krl_mod(krl_div((rb + (r + 3072)), a3), a4))];
					const float v316 = ((v314) + (v315));
					const float v317 = ((v316) * (v178));
					const float v318 = p_t14[(krl_mod(krl_div((rb + (r + 3072)), a3), a4))];
					const float v319 = ((v317) - (v318));
					const float v320 = p_t23[(krl_mod(krl_div((rb + (r + 3072)), a3), a4))];
					const float v321 = ((v319) * (v320));
					const float v322 = p_bn_w[(krl_mod(krl_div((rb + (r + 3072)), a3), a4))];
					const float v323 = ((v321) * (v322));
					const float v324 = p_bn_b[(krl_mod(krl_div((rb + (r + 3072)), a3), a4))];
					const float v325 = ((v323) + (v324));
					acc174 += (double)((v289 + v301) + (v313 + v325));
				}
				for (; r < a1; r += 1024) {
					const float v326 = p_t6[(rb + r)];
					const float v327 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v328 = ((v326) + (v327));
					const float v329 = ((v328) * (v178));
					const float v330 = p_t14[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v331 = ((v329) - (v330));
					const float v332 = p_t23[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v333 = ((v331) * (v332));
					const float v334 = p_bn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v335 = ((v333) * (v334));
					const float v336 = p_bn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v337 = ((v335) + (v336));
					acc174 += (double)v337;
				}
			}
		}
		const float r338 = (float)krl_block_sum(acc174);
		/* the outputs of the row shape */
		const float v340 = ((r338) * (v339));
		if (lid == 0) {
			p_y[o] = v340;
		}
	}
}

/*@plan
derived k0_wf f32 [(out_channels), (in_channels), (kernel_size), (kernel_size), (kernel_size)]
buffer t6 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t11 f32 [(batch_size), (out_channels), (1), (1), (1)]
buffer t14 f32 [(1), (out_channels), (1), (1), (1)]
buffer t17 f32 [(batch_size), (out_channels), (1), (1), (1)]
buffer t23 f32 [(1), (out_channels), (1), (1), (1)]
init
  # k0: the weight of node 6 flipped for the forward convolution
  launch k0_wflip grid=(cdiv(numel(w), 256)) block=(256) args(w, k0_wf, (in_channels), out_channels, 1, (kernel_size) * (kernel_size) * (kernel_size))
end
# k0: node 6, the transposed convolution, as a forward one
call conv(x, k0_wf) -> t6 padding_d=((kernel_size) - 1) * (1) - (0) padding_h=((kernel_size) - 1) * (1) - (0) padding_w=((kernel_size) - 1) * (1) - (0) layout=nhwc
launch k1_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(1024) args((batch_size) * (out_channels),
    (od) * (oh) * (ow),
    t6,
    (out_channels),
    b,
    t11)
launch k2_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 32) args(1,
    (batch_size),
    (out_channels),
    t11,
    (1.0 / (batch_size * ((od * oh) * ow))),
    t14)
launch k3_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(1024) args((batch_size) * (out_channels),
    (od) * (oh) * (ow),
    t6,
    (out_channels),
    b,
    t14,
    t17)
launch k4_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 32) args(1,
    (batch_size),
    (out_channels),
    t17,
    (1.0 / (batch_size * ((od * oh) * ow))),
    (eps),
    t23)
launch k5_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(1024) args((batch_size) * (out_channels),
    (od * oh * ow),
    t6,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    t14,
    t23,
    bn_w,
    bn_b,
    (1.0 / (od * oh * ow)),
    y)
@*/
