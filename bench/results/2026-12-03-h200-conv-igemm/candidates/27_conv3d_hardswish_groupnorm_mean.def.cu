/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nchw conv.impl=lib
 * Task level2/27_conv3d_hardswish_groupnorm_mean, generated at shape set kb1; it serves every shape set.
 * fused 20 ops into 3 kernels: 2 row (block 256, regs), 1 library
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
 * k1 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 12 add, 13 max, 14 min, 15 mul, 16 div, 17 view, 18 sum, 20 mul, 21 sub, 22 square, 23 sum, 25 mul, 27 add, 28 rsqrt.
 * Writes: t20 t28.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	long a4,
	const float *__restrict__ p_b,
	double c6,
	float *__restrict__ p_t20,
	double c8,
	float *__restrict__ p_t28)
{
	const float v3 = 3.000000000e+00f;
	const float v5 = 0.000000000e+00f;
	const float v7 = 6.000000000e+00f;
	const float v127 = (float)c6;
	const float v133 = (float)c6;
	const float v135 = (float)c8;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		const float v0 = p_t6[(rb + 0)];
		const float v1 = p_b[(krl_mod(krl_div((rb + 0), a3), a4))];
		const float v2 = ((v0) + (v1));
		const float v4 = ((v2) + (v3));
		const float v6 = krl_maxf(v4, v5);
		const float v8 = krl_minf(v6, v7);
		const float v9 = ((v2) * (v8));
		const float v10 = ((v9) / (v7));
		/* pass 1 */
		double acc11 = 0.0;
		double acc12 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w13 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v14 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v15 = ((w13.x) + (v14));
				const float v16 = ((v15) + (v3));
				const float v17 = krl_maxf(v16, v5);
				const float v18 = krl_minf(v17, v7);
				const float v19 = ((v15) * (v18));
				const float v20 = ((v19) / (v7));
				const float v21 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
				const float v22 = ((w13.y) + (v21));
				const float v23 = ((v22) + (v3));
				const float v24 = krl_maxf(v23, v5);
				const float v25 = krl_minf(v24, v7);
				const float v26 = ((v22) * (v25));
				const float v27 = ((v26) / (v7));
				const float v28 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
				const float v29 = ((w13.z) + (v28));
				const float v30 = ((v29) + (v3));
				const float v31 = krl_maxf(v30, v5);
				const float v32 = krl_minf(v31, v7);
				const float v33 = ((v29) * (v32));
				const float v34 = ((v33) / (v7));
				const float v35 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
				const float v36 = ((w13.w) + (v35));
				const float v37 = ((v36) + (v3));
				const float v38 = krl_maxf(v37, v5);
				const float v39 = krl_minf(v38, v7);
				const float v40 = ((v36) * (v39));
				const float v41 = ((v40) / (v7));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v20 - v10;
					const float d1 = v27 - v10;
					const float d2 = v34 - v10;
					const float d3 = v41 - v10;
					acc11 += (double)((d0 + d1) + (d2 + d3));
					acc12 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
				}
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v42 = p_t6[(rb + r)];
					const float v43 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v44 = ((v42) + (v43));
					const float v45 = ((v44) + (v3));
					const float v46 = krl_maxf(v45, v5);
					const float v47 = krl_minf(v46, v7);
					const float v48 = ((v44) * (v47));
					const float v49 = ((v48) / (v7));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v49 - v10;
						acc11 += (double)d0;
						acc12 += (double)(d0 * d0);
					}
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v50 = p_t6[(rb + r)];
					const float v51 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v52 = ((v50) + (v51));
					const float v53 = ((v52) + (v3));
					const float v54 = krl_maxf(v53, v5);
					const float v55 = krl_minf(v54, v7);
					const float v56 = ((v52) * (v55));
					const float v57 = ((v56) / (v7));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v57 - v10;
						acc11 += (double)d0;
						acc12 += (double)(d0 * d0);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w58 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v59 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v60 = ((w58.x) + (v59));
					const float v61 = ((v60) + (v3));
					const float v62 = krl_maxf(v61, v5);
					const float v63 = krl_minf(v62, v7);
					const float v64 = ((v60) * (v63));
					const float v65 = ((v64) / (v7));
					const float v66 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
					const float v67 = ((w58.y) + (v66));
					const float v68 = ((v67) + (v3));
					const float v69 = krl_maxf(v68, v5);
					const float v70 = krl_minf(v69, v7);
					const float v71 = ((v67) * (v70));
					const float v72 = ((v71) / (v7));
					const float v73 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
					const float v74 = ((w58.z) + (v73));
					const float v75 = ((v74) + (v3));
					const float v76 = krl_maxf(v75, v5);
					const float v77 = krl_minf(v76, v7);
					const float v78 = ((v74) * (v77));
					const float v79 = ((v78) / (v7));
					const float v80 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
					const float v81 = ((w58.w) + (v80));
					const float v82 = ((v81) + (v3));
					const float v83 = krl_maxf(v82, v5);
					const float v84 = krl_minf(v83, v7);
					const float v85 = ((v81) * (v84));
					const float v86 = ((v85) / (v7));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v65 - v10;
						const float d1 = v72 - v10;
						const float d2 = v79 - v10;
						const float d3 = v86 - v10;
						acc11 += (double)((d0 + d1) + (d2 + d3));
						acc12 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v87 = p_t6[(rb + r)];
					const float v88 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v89 = ((v87) + (v88));
					const float v90 = ((v89) + (v3));
					const float v91 = krl_maxf(v90, v5);
					const float v92 = krl_minf(v91, v7);
					const float v93 = ((v89) * (v92));
					const float v94 = ((v93) / (v7));
					const float v95 = p_t6[(rb + (r + 256))];
					const float v96 = p_b[(krl_mod(krl_div((rb + (r + 256)), a3), a4))];
					const float v97 = ((v95) + (v96));
					const float v98 = ((v97) + (v3));
					const float v99 = krl_maxf(v98, v5);
					const float v100 = krl_minf(v99, v7);
					const float v101 = ((v97) * (v100));
					const float v102 = ((v101) / (v7));
					const float v103 = p_t6[(rb + (r + 512))];
					const float v104 = p_b[(krl_mod(krl_div((rb + (r + 512)), a3), a4))];
					const float v105 = ((v103) + (v104));
					const float v106 = ((v105) + (v3));
					const float v107 = krl_maxf(v106, v5);
					const float v108 = krl_minf(v107, v7);
					const float v109 = ((v105) * (v108));
					const float v110 = ((v109) / (v7));
					const float v111 = p_t6[(rb + (r + 768))];
					const float v112 = p_b[(krl_mod(krl_div((rb + (r + 768)), a3), a4))];
					const float v113 = ((v111) + (v112));
					const float v114 = ((v113) + (v3));
					const float v115 = krl_maxf(v114, v5);
					const float v116 = krl_minf(v115, v7);
					const float v117 = ((v113) * (v116));
					const float v118 = ((v117) / (v7));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v94 - v10;
						const float d1 = v102 - v10;
						const float d2 = v110 - v10;
						const float d3 = v118 - v10;
						acc11 += (double)((d0 + d1) + (d2 + d3));
						acc12 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
				for (; r < a1; r += 256) {
					const float v119 = p_t6[(rb + r)];
					const float v120 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v121 = ((v119) + (v120));
					const float v122 = ((v121) + (v3));
					const float v123 = krl_maxf(v122, v5);
					const float v124 = krl_minf(v123, v7);
					const float v125 = ((v121) * (v124));
					const float v126 = ((v125) / (v7));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v126 - v10;
						acc11 += (double)d0;
						acc12 += (double)(d0 * d0);
					}
				}
			}
		}
		acc11 = krl_block_sum(acc11);
		acc12 = krl_block_sum(acc12);
		const float r128 = (float)(acc11 + (double)a1 * (double)v10);
		const float m130 = r128 * v127;
		const double dm131 = (double)m130 - (double)v10;
		const float r129 = (float)fmax(acc12 - 2.0 * dm131 * acc11 + (double)a1 * dm131 * dm131, 0.0);
		/* the outputs of the row shape */
		const float v132 = ((r128) * (v127));
		const float v134 = ((r129) * (v133));
		const float v136 = ((v134) + (v135));
		const float v137 = rsqrtf(v136);
		if (lid == 0) {
			p_t20[o] = v132;
			p_t28[o] = v137;
		}
	}
}

/*
 * k2 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 12 add, 13 max, 14 min, 15 mul, 16 div, 17 view, 21 sub, 29 mul, 30 view, 31 view, 32 view, 33 mul, 34 add, 35 view, 36 sum, 38 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	long a4,
	const float *__restrict__ p_b,
	long a6,
	const float *__restrict__ p_t20,
	const float *__restrict__ p_t28,
	const float *__restrict__ p_gn_w,
	const float *__restrict__ p_gn_b,
	double c11,
	float *__restrict__ p_y)
{
	const float v142 = 3.000000000e+00f;
	const float v144 = 0.000000000e+00f;
	const float v146 = 6.000000000e+00f;
	const float v365 = (float)c11;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a6 % 4 == 0 && a1 % 4 == 0;
	const bool peel = a6 % 4 == 0;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc138 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w139 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v140 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v141 = ((w139.x) + (v140));
				const float v143 = ((v141) + (v142));
				const float v145 = krl_maxf(v143, v144);
				const float v147 = krl_minf(v145, v146);
				const float v148 = ((v141) * (v147));
				const float v149 = ((v148) / (v146));
				const float v150 = p_t20[(krl_div((rb + r), a6))];
				const float v151 = ((v149) - (v150));
				const float v152 = p_t28[(krl_div((rb + r), a6))];
				const float v153 = ((v151) * (v152));
				const float v154 = p_gn_w[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v155 = ((v153) * (v154));
				const float v156 = p_gn_b[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v157 = ((v155) + (v156));
				const float v158 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
				const float v159 = ((w139.y) + (v158));
				const float v160 = ((v159) + (v142));
				const float v161 = krl_maxf(v160, v144);
				const float v162 = krl_minf(v161, v146);
				const float v163 = ((v159) * (v162));
				const float v164 = ((v163) / (v146));
				const float v165 = ((v164) - (v150));
				const float v166 = ((v165) * (v152));
				const float v167 = p_gn_w[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
				const float v168 = ((v166) * (v167));
				const float v169 = p_gn_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
				const float v170 = ((v168) + (v169));
				const float v171 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
				const float v172 = ((w139.z) + (v171));
				const float v173 = ((v172) + (v142));
				const float v174 = krl_maxf(v173, v144);
				const float v175 = krl_minf(v174, v146);
				const float v176 = ((v172) * (v175));
				const float v177 = ((v176) / (v146));
				const float v178 = ((v177) - (v150));
				const float v179 = ((v178) * (v152));
				const float v180 = p_gn_w[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
				const float v181 = ((v179) * (v180));
				const float v182 = p_gn_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
				const float v183 = ((v181) + (v182));
				const float v184 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
				const float v185 = ((w139.w) + (v184));
				const float v186 = ((v185) + (v142));
				const float v187 = krl_maxf(v186, v144);
				const float v188 = krl_minf(v187, v146);
				const float v189 = ((v185) * (v188));
				const float v190 = ((v189) / (v146));
				const float v191 = ((v190) - (v150));
				const float v192 = ((v191) * (v152));
				const float v193 = p_gn_w[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
				const float v194 = ((v192) * (v193));
				const float v195 = p_gn_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
				const float v196 = ((v194) + (v195));
				acc138 += (double)((v157 + v170) + (v183 + v196));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v197 = p_t6[(rb + r)];
					const float v198 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v199 = ((v197) + (v198));
					const float v200 = ((v199) + (v142));
					const float v201 = krl_maxf(v200, v144);
					const float v202 = krl_minf(v201, v146);
					const float v203 = ((v199) * (v202));
					const float v204 = ((v203) / (v146));
					const float v205 = p_t20[(krl_div((rb + r), a6))];
					const float v206 = ((v204) - (v205));
					const float v207 = p_t28[(krl_div((rb + r), a6))];
					const float v208 = ((v206) * (v207));
					const float v209 = p_gn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v210 = ((v208) * (v209));
					const float v211 = p_gn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v212 = ((v210) + (v211));
					acc138 += (double)v212;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v213 = p_t6[(rb + r)];
					const float v214 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v215 = ((v213) + (v214));
					const float v216 = ((v215) + (v142));
					const float v217 = krl_maxf(v216, v144);
					const float v218 = krl_minf(v217, v146);
					const float v219 = ((v215) * (v218));
					const float v220 = ((v219) / (v146));
					const float v221 = p_t20[(krl_div((rb + r), a6))];
					const float v222 = ((v220) - (v221));
					const float v223 = p_t28[(krl_div((rb + r), a6))];
					const float v224 = ((v222) * (v223));
					const float v225 = p_gn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v226 = ((v224) * (v225));
					const float v227 = p_gn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v228 = ((v226) + (v227));
					acc138 += (double)v228;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w229 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v230 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v231 = ((w229.x) + (v230));
					const float v232 = ((v231) + (v142));
					const float v233 = krl_maxf(v232, v144);
					const float v234 = krl_minf(v233, v146);
					const float v235 = ((v231) * (v234));
					const float v236 = ((v235) / (v146));
					const float v237 = p_t20[(krl_div((rb + r), a6))];
					const float v238 = ((v236) - (v237));
					const float v239 = p_t28[(krl_div((rb + r), a6))];
					const float v240 = ((v238) * (v239));
					const float v241 = p_gn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v242 = ((v240) * (v241));
					const float v243 = p_gn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v244 = ((v242) + (v243));
					const float v245 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
					const float v246 = ((w229.y) + (v245));
					const float v247 = ((v246) + (v142));
					const float v248 = krl_maxf(v247, v144);
					const float v249 = krl_minf(v248, v146);
					const float v250 = ((v246) * (v249));
					const float v251 = ((v250) / (v146));
					const float v252 = ((v251) - (v237));
					const float v253 = ((v252) * (v239));
					const float v254 = p_gn_w[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
					const float v255 = ((v253) * (v254));
					const float v256 = p_gn_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
					const float v257 = ((v255) + (v256));
					const float v258 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
					const float v259 = ((w229.z) + (v258));
					const float v260 = ((v259) + (v142));
					const float v261 = krl_maxf(v260, v144);
					const float v262 = krl_minf(v261, v146);
					const float v263 = ((v259) * (v262));
					const float v264 = ((v263) / (v146));
					const float v265 = ((v264) - (v237));
					const float v266 = ((v265) * (v239));
					const float v267 = p_gn_w[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
					const float v268 = ((v266) * (v267));
					const float v269 = p_gn_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
					const float v270 = ((v268) + (v269));
					const float v271 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
					const float v272 = ((w229.w) + (v271));
					const float v273 = ((v272) + (v142));
					const float v274 = krl_maxf(v273, v144);
					const float v275 = krl_minf(v274, v146);
					const float v276 = ((v272) * (v275));
					const float v277 = ((v276) / (v146));
					const float v278 = ((v277) - (v237));
					const float v279 = ((v278) * (v239));
					const float v280 = p_gn_w[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
					const float v281 = ((v279) * (v280));
					const float v282 = p_gn_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
					const float v283 = ((v281) + (v282));
					acc138 += (double)((v244 + v257) + (v270 + v283));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v284 = p_t6[(rb + r)];
					const float v285 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v286 = ((v284) + (v285));
					const float v287 = ((v286) + (v142));
					const float v288 = krl_maxf(v287, v144);
					const float v289 = krl_minf(v288, v146);
					const float v290 = ((v286) * (v289));
					const float v291 = ((v290) / (v146));
					const float v292 = p_t20[(krl_div((rb + r), a6))];
					const float v293 = ((v291) - (v292));
					const float v294 = p_t28[(krl_div((rb + r), a6))];
					const float v295 = ((v293) * (v294));
					const float v296 = p_gn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v297 = ((v295) * (v296));
					const float v298 = p_gn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v299 = ((v297) + (v298));
					const float v300 = p_t6[(rb + (r + 256))];
					const float v301 = p_b[(krl_mod(krl_div((rb + (r + 256)), a3), a4))];
					const float v302 = ((v300) + (v301));
					const float v303 = ((v302) + (v142));
					const float v304 = krl_maxf(v303, v144);
					const float v305 = krl_minf(v304, v146);
					const float v306 = ((v302) * (v305));
					const float v307 = ((v306) / (v146));
					const float v308 = p_t20[(krl_div((rb + (r + 256)), a6))];
					const float v309 = ((v307) - (v308));
					const float v310 = p_t28[(krl_div((rb + (r + 256)), a6))];
					const float v311 = ((v309) * (v310));
					const float v312 = p_gn_w[(krl_mod(krl_div((rb + (r + 256)), a3), a4))];
					const float v313 = ((v311) * (v312));
					const float v314 = p_gn_b[(krl_mod(krl_div((rb + (r + 256)), a3), a4))];
					const float v315 = ((v313) + (v314));
					const float v316 = p_t6[(rb + (r + 512))];
					const float v317 = p_b[(krl_mod(krl_div((rb + (r + 512)), a3), a4))];
					const float v318 = ((v316) + (v317));
					const float v319 = ((v318) + (v142));
					const float v320 = krl_maxf(v319, v144);
					const float v321 = krl_minf(v320, v146);
					const float v322 = ((v318) * (v321));
					const float v323 = ((v322) / (v146));
					const float v324 = p_t20[(krl_div((rb + (r + 512)), a6))];
					const float v325 = ((v323) - (v324));
					const float v326 = p_t28[(krl_div((rb + (r + 512)), a6))];
					const float v327 = ((v325) * (v326));
					const float v328 = p_gn_w[(krl_mod(krl_div((rb + (r + 512)), a3), a4))];
					const float v329 = ((v327) * (v328));
					const float v330 = p_gn_b[(krl_mod(krl_div((rb + (r + 512)), a3), a4))];
					const float v331 = ((v329) + (v330));
					const float v332 = p_t6[(rb + (r + 768))];
					const float v333 = p_b[(krl_mod(krl_div((rb + (r + 768)), a3), a4))];
					const float v334 = ((v332) + (v333));
					const float v335 = ((v334) + (v142));
					const float v336 = krl_maxf(v335, v144);
					const float v337 = krl_minf(v336, v146);
					const float v338 = ((v334) * (v337));
					const float v339 = ((v338) / (v146));
					const float v340 = p_t20[(krl_div((rb + (r + 768)), a6))];
					const float v341 = ((v339) - (v340));
					const float v342 = p_t28[(krl_div((rb + (r + 768)), a6))];
					const float v343 = ((v341) * (v342));
					const float v344 = p_gn_w[(krl_mod(krl_div((rb + (r + 768)), a3), a4))];
					const float v345 = ((v343) * (v344));
					const float v346 = p_gn_b[(krl_mod(krl_div((rb + (r + 768)), a3), a4))];
					const float v347 = ((v345) + (v346));
					acc138 += (double)((v299 + v315) + (v331 + v347));
				}
				for (; r < a1; r += 256) {
					const float v348 = p_t6[(rb + r)];
					const float v349 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v350 = ((v348) + (v349));
					const float v351 = ((v350) + (v142));
					const float v352 = krl_maxf(v351, v144);
					const float v353 = krl_minf(v352, v146);
					const float v354 = ((v350) * (v353));
					const float v355 = ((v354) / (v146));
					const float v356 = p_t20[(krl_div((rb + r), a6))];
					const float v357 = ((v355) - (v356));
					const float v358 = p_t28[(krl_div((rb + r), a6))];
					const float v359 = ((v357) * (v358));
					const float v360 = p_gn_w[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v361 = ((v359) * (v360));
					const float v362 = p_gn_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v363 = ((v361) + (v362));
					acc138 += (double)v363;
				}
			}
		}
		const float r364 = (float)krl_block_sum(acc138);
		/* the outputs of the row shape */
		const float v366 = ((r364) * (v365));
		if (lid == 0) {
			p_y[o] = v366;
		}
	}
}

/*@plan
buffer t6 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t20 f32 [(batch_size), (num_groups), (1)]
buffer t28 f32 [(batch_size), (num_groups), (1)]
# k0: library call (node 6)
call conv(x, w) -> t6
launch k1_row grid=(min((batch_size) * (num_groups), sm_count * 32)) block=(256) args((batch_size) * (num_groups),
    ((out_channels / num_groups) * ((od * oh) * ow)),
    t6,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    (1.0 / ((out_channels / num_groups) * ((od * oh) * ow))),
    t20,
    (eps),
    t28)
launch k2_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (od * oh * ow),
    t6,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    ((out_channels / num_groups) * ((od * oh) * ow)),
    t20,
    t28,
    gn_w,
    gn_b,
    (1.0 / (od * oh * ow)),
    y)
@*/
