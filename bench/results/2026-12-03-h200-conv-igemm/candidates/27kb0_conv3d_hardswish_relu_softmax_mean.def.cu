/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nchw conv.impl=lib
 * Task level2/27kb0_conv3d_hardswish_relu_softmax_mean, generated at shape set kb1; it serves every shape set.
 * fused 15 ops into 3 kernels: 2 row (block 256, regs), 1 library
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
 * k1 (row over a middle axis: 32 columns x 8 rows of threads per block, 2 passes): nodes 5 view, 6 add, 10 add, 11 max, 12 min, 13 mul, 14 div, 15 relu, 16 max, 17 sub, 18 exp, 19 sum.
 * Writes: t16 t19.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	float *__restrict__ p_t16,
	float *__restrict__ p_t19)
{
	__shared__ double krl_cd[8][33];
	__shared__ float krl_cf[8][33];
	const float v4 = 3.000000000e+00f;
	const float v6 = 0.000000000e+00f;
	const float v8 = 6.000000000e+00f;
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
		float acc0 = -INFINITY;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v1 = p_t4[(rb + r * a2)];
				const float v2 = p_b[(r)];
				const float v3 = ((v1) + (v2));
				const float v5 = ((v3) + (v4));
				const float v7 = krl_maxf(v5, v6);
				const float v9 = krl_minf(v7, v8);
				const float v10 = ((v3) * (v9));
				const float v11 = ((v10) / (v8));
				const float v12 = krl_maxf(v11, 0.f);
				const float v13 = p_t4[(rb + (r + 8) * a2)];
				const float v14 = p_b[((r + 8))];
				const float v15 = ((v13) + (v14));
				const float v16 = ((v15) + (v4));
				const float v17 = krl_maxf(v16, v6);
				const float v18 = krl_minf(v17, v8);
				const float v19 = ((v15) * (v18));
				const float v20 = ((v19) / (v8));
				const float v21 = krl_maxf(v20, 0.f);
				const float v22 = p_t4[(rb + (r + 16) * a2)];
				const float v23 = p_b[((r + 16))];
				const float v24 = ((v22) + (v23));
				const float v25 = ((v24) + (v4));
				const float v26 = krl_maxf(v25, v6);
				const float v27 = krl_minf(v26, v8);
				const float v28 = ((v24) * (v27));
				const float v29 = ((v28) / (v8));
				const float v30 = krl_maxf(v29, 0.f);
				const float v31 = p_t4[(rb + (r + 24) * a2)];
				const float v32 = p_b[((r + 24))];
				const float v33 = ((v31) + (v32));
				const float v34 = ((v33) + (v4));
				const float v35 = krl_maxf(v34, v6);
				const float v36 = krl_minf(v35, v8);
				const float v37 = ((v33) * (v36));
				const float v38 = ((v37) / (v8));
				const float v39 = krl_maxf(v38, 0.f);
				acc0 = krl_maxf(acc0, krl_maxf(krl_maxf(v12, v21), krl_maxf(v30, v39)));
			}
			for (; r < a1; r += 8) {
				const float v40 = p_t4[(rb + r * a2)];
				const float v41 = p_b[(r)];
				const float v42 = ((v40) + (v41));
				const float v43 = ((v42) + (v4));
				const float v44 = krl_maxf(v43, v6);
				const float v45 = krl_minf(v44, v8);
				const float v46 = ((v42) * (v45));
				const float v47 = ((v46) / (v8));
				const float v48 = krl_maxf(v47, 0.f);
				acc0 = krl_maxf(acc0, v48);
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cf[ty][tx] = acc0;
		__syncthreads();
		acc0 = krl_cf[0][tx];
		for (int k = 1; k < 8; k++)
			acc0 = krl_maxf(acc0, krl_cf[k][tx]);
		const float r49 = acc0;
		/* pass 2 */
		double acc50 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v51 = p_t4[(rb + r * a2)];
				const float v52 = p_b[(r)];
				const float v53 = ((v51) + (v52));
				const float v54 = ((v53) + (v4));
				const float v55 = krl_maxf(v54, v6);
				const float v56 = krl_minf(v55, v8);
				const float v57 = ((v53) * (v56));
				const float v58 = ((v57) / (v8));
				const float v59 = krl_maxf(v58, 0.f);
				const float v60 = ((v59) - (r49));
				const float v61 = expf(v60);
				const float v62 = p_t4[(rb + (r + 8) * a2)];
				const float v63 = p_b[((r + 8))];
				const float v64 = ((v62) + (v63));
				const float v65 = ((v64) + (v4));
				const float v66 = krl_maxf(v65, v6);
				const float v67 = krl_minf(v66, v8);
				const float v68 = ((v64) * (v67));
				const float v69 = ((v68) / (v8));
				const float v70 = krl_maxf(v69, 0.f);
				const float v71 = ((v70) - (r49));
				const float v72 = expf(v71);
				const float v73 = p_t4[(rb + (r + 16) * a2)];
				const float v74 = p_b[((r + 16))];
				const float v75 = ((v73) + (v74));
				const float v76 = ((v75) + (v4));
				const float v77 = krl_maxf(v76, v6);
				const float v78 = krl_minf(v77, v8);
				const float v79 = ((v75) * (v78));
				const float v80 = ((v79) / (v8));
				const float v81 = krl_maxf(v80, 0.f);
				const float v82 = ((v81) - (r49));
				const float v83 = expf(v82);
				const float v84 = p_t4[(rb + (r + 24) * a2)];
				const float v85 = p_b[((r + 24))];
				const float v86 = ((v84) + (v85));
				const float v87 = ((v86) + (v4));
				const float v88 = krl_maxf(v87, v6);
				const float v89 = krl_minf(v88, v8);
				const float v90 = ((v86) * (v89));
				const float v91 = ((v90) / (v8));
				const float v92 = krl_maxf(v91, 0.f);
				const float v93 = ((v92) - (r49));
				const float v94 = expf(v93);
				acc50 += (double)((v61 + v72) + (v83 + v94));
			}
			for (; r < a1; r += 8) {
				const float v95 = p_t4[(rb + r * a2)];
				const float v96 = p_b[(r)];
				const float v97 = ((v95) + (v96));
				const float v98 = ((v97) + (v4));
				const float v99 = krl_maxf(v98, v6);
				const float v100 = krl_minf(v99, v8);
				const float v101 = ((v97) * (v100));
				const float v102 = ((v101) / (v8));
				const float v103 = krl_maxf(v102, 0.f);
				const float v104 = ((v103) - (r49));
				const float v105 = expf(v104);
				acc50 += (double)v105;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc50;
		__syncthreads();
		acc50 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc50 += krl_cd[k][tx];
		const float r106 = (float)acc50;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_t16[(o * a2 + c)] = r49;
			p_t19[(o * a2 + c)] = r106;
		}
	}
}

/*
 * k2 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 5 view, 6 add, 10 add, 11 max, 12 min, 13 mul, 14 div, 15 relu, 17 sub, 18 exp, 20 div, 21 view, 22 sum, 24 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_row(long a0,
	long a1,
	const float *__restrict__ p_t4,
	long a3,
	long a4,
	const float *__restrict__ p_b,
	long a6,
	const float *__restrict__ p_t16,
	const float *__restrict__ p_t19,
	double c9,
	float *__restrict__ p_y)
{
	const float v111 = 3.000000000e+00f;
	const float v113 = 0.000000000e+00f;
	const float v115 = 6.000000000e+00f;
	const float v304 = (float)c9;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a3 % 4 == 0 && a1 % 4 == 0;
	const bool peel = a3 % 4 == 0;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc107 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w108 = *reinterpret_cast<const float4 *>(p_t4 + (rb + r));
				const float v109 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v110 = ((w108.x) + (v109));
				const float v112 = ((v110) + (v111));
				const float v114 = krl_maxf(v112, v113);
				const float v116 = krl_minf(v114, v115);
				const float v117 = ((v110) * (v116));
				const float v118 = ((v117) / (v115));
				const float v119 = krl_maxf(v118, 0.f);
				const float4 w120 = *reinterpret_cast<const float4 *>(p_t16 + (krl_mod((rb + r), a3) + krl_div((rb + r), a6) * a3));
				const float v121 = ((v119) - (w120.x));
				const float v122 = expf(v121);
				const float4 w123 = *reinterpret_cast<const float4 *>(p_t19 + (krl_mod((rb + r), a3) + krl_div((rb + r), a6) * a3));
				const float v124 = ((v122) / (w123.x));
				const float v125 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
				const float v126 = ((w108.y) + (v125));
				const float v127 = ((v126) + (v111));
				const float v128 = krl_maxf(v127, v113);
				const float v129 = krl_minf(v128, v115);
				const float v130 = ((v126) * (v129));
				const float v131 = ((v130) / (v115));
				const float v132 = krl_maxf(v131, 0.f);
				const float v133 = ((v132) - (w120.y));
				const float v134 = expf(v133);
				const float v135 = ((v134) / (w123.y));
				const float v136 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
				const float v137 = ((w108.z) + (v136));
				const float v138 = ((v137) + (v111));
				const float v139 = krl_maxf(v138, v113);
				const float v140 = krl_minf(v139, v115);
				const float v141 = ((v137) * (v140));
				const float v142 = ((v141) / (v115));
				const float v143 = krl_maxf(v142, 0.f);
				const float v144 = ((v143) - (w120.z));
				const float v145 = expf(v144);
				const float v146 = ((v145) / (w123.z));
				const float v147 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
				const float v148 = ((w108.w) + (v147));
				const float v149 = ((v148) + (v111));
				const float v150 = krl_maxf(v149, v113);
				const float v151 = krl_minf(v150, v115);
				const float v152 = ((v148) * (v151));
				const float v153 = ((v152) / (v115));
				const float v154 = krl_maxf(v153, 0.f);
				const float v155 = ((v154) - (w120.w));
				const float v156 = expf(v155);
				const float v157 = ((v156) / (w123.w));
				acc107 += (double)((v124 + v135) + (v146 + v157));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v158 = p_t4[(rb + r)];
					const float v159 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v160 = ((v158) + (v159));
					const float v161 = ((v160) + (v111));
					const float v162 = krl_maxf(v161, v113);
					const float v163 = krl_minf(v162, v115);
					const float v164 = ((v160) * (v163));
					const float v165 = ((v164) / (v115));
					const float v166 = krl_maxf(v165, 0.f);
					const float v167 = p_t16[(krl_mod((rb + r), a3) + krl_div((rb + r), a6) * a3)];
					const float v168 = ((v166) - (v167));
					const float v169 = expf(v168);
					const float v170 = p_t19[(krl_mod((rb + r), a3) + krl_div((rb + r), a6) * a3)];
					const float v171 = ((v169) / (v170));
					acc107 += (double)v171;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v172 = p_t4[(rb + r)];
					const float v173 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v174 = ((v172) + (v173));
					const float v175 = ((v174) + (v111));
					const float v176 = krl_maxf(v175, v113);
					const float v177 = krl_minf(v176, v115);
					const float v178 = ((v174) * (v177));
					const float v179 = ((v178) / (v115));
					const float v180 = krl_maxf(v179, 0.f);
					const float v181 = p_t16[(krl_mod((rb + r), a3) + krl_div((rb + r), a6) * a3)];
					const float v182 = ((v180) - (v181));
					const float v183 = expf(v182);
					const float v184 = p_t19[(krl_mod((rb + r), a3) + krl_div((rb + r), a6) * a3)];
					const float v185 = ((v183) / (v184));
					acc107 += (double)v185;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w186 = *reinterpret_cast<const float4 *>(p_t4 + (rb + r));
					const float v187 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v188 = ((w186.x) + (v187));
					const float v189 = ((v188) + (v111));
					const float v190 = krl_maxf(v189, v113);
					const float v191 = krl_minf(v190, v115);
					const float v192 = ((v188) * (v191));
					const float v193 = ((v192) / (v115));
					const float v194 = krl_maxf(v193, 0.f);
					const float4 w195 = *reinterpret_cast<const float4 *>(p_t16 + (krl_mod((rb + r), a3) + krl_div((rb + r), a6) * a3));
					const float v196 = ((v194) - (w195.x));
					const float v197 = expf(v196);
					const float4 w198 = *reinterpret_cast<const float4 *>(p_t19 + (krl_mod((rb + r), a3) + krl_div((rb + r), a6) * a3));
					const float v199 = ((v197) / (w198.x));
					const float v200 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
					const float v201 = ((w186.y) + (v200));
					const float v202 = ((v201) + (v111));
					const float v203 = krl_maxf(v202, v113);
					const float v204 = krl_minf(v203, v115);
					const float v205 = ((v201) * (v204));
					const float v206 = ((v205) / (v115));
					const float v207 = krl_maxf(v206, 0.f);
					const float v208 = ((v207) - (w195.y));
					const float v209 = expf(v208);
					const float v210 = ((v209) / (w198.y));
					const float v211 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
					const float v212 = ((w186.z) + (v211));
					const float v213 = ((v212) + (v111));
					const float v214 = krl_maxf(v213, v113);
					const float v215 = krl_minf(v214, v115);
					const float v216 = ((v212) * (v215));
					const float v217 = ((v216) / (v115));
					const float v218 = krl_maxf(v217, 0.f);
					const float v219 = ((v218) - (w195.z));
					const float v220 = expf(v219);
					const float v221 = ((v220) / (w198.z));
					const float v222 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
					const float v223 = ((w186.w) + (v222));
					const float v224 = ((v223) + (v111));
					const float v225 = krl_maxf(v224, v113);
					const float v226 = krl_minf(v225, v115);
					const float v227 = ((v223) * (v226));
					const float v228 = ((v227) / (v115));
					const float v229 = krl_maxf(v228, 0.f);
					const float v230 = ((v229) - (w195.w));
					const float v231 = expf(v230);
					const float v232 = ((v231) / (w198.w));
					acc107 += (double)((v199 + v210) + (v221 + v232));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v233 = p_t4[(rb + r)];
					const float v234 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v235 = ((v233) + (v234));
					const float v236 = ((v235) + (v111));
					const float v237 = krl_maxf(v236, v113);
					const float v238 = krl_minf(v237, v115);
					const float v239 = ((v235) * (v238));
					const float v240 = ((v239) / (v115));
					const float v241 = krl_maxf(v240, 0.f);
					const float v242 = p_t16[(krl_mod((rb + r), a3) + krl_div((rb + r), a6) * a3)];
					const float v243 = ((v241) - (v242));
					const float v244 = expf(v243);
					const float v245 = p_t19[(krl_mod((rb + r), a3) + krl_div((rb + r), a6) * a3)];
					const float v246 = ((v244) / (v245));
					const float v247 = p_t4[(rb + (r + 256))];
					const float v248 = p_b[(krl_mod(krl_div((rb + (r + 256)), a3), a4))];
					const float v249 = ((v247) + (v248));
					const float v250 = ((v249) + (v111));
					const float v251 = krl_maxf(v250, v113);
					const float v252 = krl_minf(v251, v115);
					const float v253 = ((v249) * (v252));
					const float v254 = ((v253) / (v115));
					const float v255 = krl_maxf(v254, 0.f);
					const float v256 = p_t16[(krl_mod((rb + (r + 256)), a3) + krl_div((rb + (r + 256)), a6) * a3)];
					const float v257 = ((v255) - (v256));
					const float v258 = expf(v257);
					const float v259 = p_t19[(krl_mod((rb + (r + 256)), a3) + krl_div((rb + (r + 256)), a6) * a3)];
					const float v260 = ((v258) / (v259));
					const float v261 = p_t4[(rb + (r + 512))];
					const float v262 = p_b[(krl_mod(krl_div((rb + (r + 512)), a3), a4))];
					const float v263 = ((v261) + (v262));
					const float v264 = ((v263) + (v111));
					const float v265 = krl_maxf(v264, v113);
					const float v266 = krl_minf(v265, v115);
					const float v267 = ((v263) * (v266));
					const float v268 = ((v267) / (v115));
					const float v269 = krl_maxf(v268, 0.f);
					const float v270 = p_t16[(krl_mod((rb + (r + 512)), a3) + krl_div((rb + (r + 512)), a6) * a3)];
					const float v271 = ((v269) - (v270));
					const float v272 = expf(v271);
					const float v273 = p_t19[(krl_mod((rb + (r + 512)), a3) + krl_div((rb + (r + 512)), a6) * a3)];
					const float v274 = ((v272) / (v273));
					const float v275 = p_t4[(rb + (r + 768))];
					const float v276 = p_b[(krl_mod(krl_div((rb + (r + 768)), a3), a4))];
					const float v277 = ((v275) + (v276));
					const float v278 = ((v277) + (v111));
					const float v279 = krl_maxf(v278, v113);
					const float v280 = krl_minf(v279, v115);
					const float v281 = ((v277) * (v280));
					const float v282 = ((v281) / (v115));
					const float v283 = krl_maxf(v282, 0.f);
					const float v284 = p_t16[(krl_mod((rb + (r + 768)), a3) + krl_div((rb + (r + 768)), a6) * a3)];
					const float v285 = ((v283) - (v284));
					const float v286 = expf(v285);
					const float v287 = p_t19[(krl_mod((rb + (r + 768)), a3) + krl_div((rb + (r + 768)), a6) * a3)];
					const float v288 = ((v286) / (v287));
					acc107 += (double)((v246 + v260) + (v274 + v288));
				}
				for (; r < a1; r += 256) {
					const float v289 = p_t4[(rb + r)];
					const float v290 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v291 = ((v289) + (v290));
					const float v292 = ((v291) + (v111));
					const float v293 = krl_maxf(v292, v113);
					const float v294 = krl_minf(v293, v115);
					const float v295 = ((v291) * (v294));
					const float v296 = ((v295) / (v115));
					const float v297 = krl_maxf(v296, 0.f);
					const float v298 = p_t16[(krl_mod((rb + r), a3) + krl_div((rb + r), a6) * a3)];
					const float v299 = ((v297) - (v298));
					const float v300 = expf(v299);
					const float v301 = p_t19[(krl_mod((rb + r), a3) + krl_div((rb + r), a6) * a3)];
					const float v302 = ((v300) / (v301));
					acc107 += (double)v302;
				}
			}
		}
		const float r303 = (float)krl_block_sum(acc107);
		/* the outputs of the row shape */
		const float v305 = ((r303) * (v304));
		if (lid == 0) {
			p_y[o] = v305;
		}
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t16 f32 [(batch_size), (1), (od), (oh), (ow)]
buffer t19 f32 [(batch_size), (1), (od), (oh), (ow)]
# k0: library call (node 4)
call conv(x, w) -> t4
launch k1_col grid=(min(((batch_size)) * cdiv((od) * (oh) * (ow), 32), sm_count * 32)) block=(32, 8) args((batch_size),
    (out_channels),
    (od) * (oh) * (ow),
    t4,
    b,
    t16,
    t19)
launch k2_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (od * oh * ow),
    t4,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    (out_channels) * (od) * (oh) * (ow),
    t16,
    t19,
    (1.0 / (od * oh * ow)),
    y)
@*/
