/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8 conv.impl=lib
 * Task level2/52_conv2d_activation_batchnorm, generated at shape set kb1; it serves every shape set.
 * fused 21 ops into 6 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 4 row (block 256, regs), 1 library
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: row
 *   k3: row
 *   k4: row
 *   k5: map
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
 * k1 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 10 gt, 11 exp, 12 log1p, 13 where, 14 tanh, 15 mul, 16 sum.
 * Writes: t16.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	const float *__restrict__ p_b,
	float *__restrict__ p_t16)
{
	const float v4 = 2.000000000e+01f;
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
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w1 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v2 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
				const float v3 = ((w1.x) + (v2));
				const float v5 = ((float)((v3) > (v4)));
				const float v6 = expf(v3);
				const float v7 = log1pf(v6);
				const float v8 = ((v5) != 0.f ? (v3) : (v7));
				const float v9 = tanhf(v8);
				const float v10 = ((v9) * (v3));
				const float v11 = p_b[(krl_mod(krl_div((rb + (r + 1)), a1), a3))];
				const float v12 = ((w1.y) + (v11));
				const float v13 = ((float)((v12) > (v4)));
				const float v14 = expf(v12);
				const float v15 = log1pf(v14);
				const float v16 = ((v13) != 0.f ? (v12) : (v15));
				const float v17 = tanhf(v16);
				const float v18 = ((v17) * (v12));
				const float v19 = p_b[(krl_mod(krl_div((rb + (r + 2)), a1), a3))];
				const float v20 = ((w1.z) + (v19));
				const float v21 = ((float)((v20) > (v4)));
				const float v22 = expf(v20);
				const float v23 = log1pf(v22);
				const float v24 = ((v21) != 0.f ? (v20) : (v23));
				const float v25 = tanhf(v24);
				const float v26 = ((v25) * (v20));
				const float v27 = p_b[(krl_mod(krl_div((rb + (r + 3)), a1), a3))];
				const float v28 = ((w1.w) + (v27));
				const float v29 = ((float)((v28) > (v4)));
				const float v30 = expf(v28);
				const float v31 = log1pf(v30);
				const float v32 = ((v29) != 0.f ? (v28) : (v31));
				const float v33 = tanhf(v32);
				const float v34 = ((v33) * (v28));
				acc0 += (double)((v10 + v18) + (v26 + v34));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v35 = p_t6[(rb + r)];
					const float v36 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v37 = ((v35) + (v36));
					const float v38 = ((float)((v37) > (v4)));
					const float v39 = expf(v37);
					const float v40 = log1pf(v39);
					const float v41 = ((v38) != 0.f ? (v37) : (v40));
					const float v42 = tanhf(v41);
					const float v43 = ((v42) * (v37));
					acc0 += (double)v43;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v44 = p_t6[(rb + r)];
					const float v45 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v46 = ((v44) + (v45));
					const float v47 = ((float)((v46) > (v4)));
					const float v48 = expf(v46);
					const float v49 = log1pf(v48);
					const float v50 = ((v47) != 0.f ? (v46) : (v49));
					const float v51 = tanhf(v50);
					const float v52 = ((v51) * (v46));
					acc0 += (double)v52;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w53 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v54 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v55 = ((w53.x) + (v54));
					const float v56 = ((float)((v55) > (v4)));
					const float v57 = expf(v55);
					const float v58 = log1pf(v57);
					const float v59 = ((v56) != 0.f ? (v55) : (v58));
					const float v60 = tanhf(v59);
					const float v61 = ((v60) * (v55));
					const float v62 = p_b[(krl_mod(krl_div((rb + (r + 1)), a1), a3))];
					const float v63 = ((w53.y) + (v62));
					const float v64 = ((float)((v63) > (v4)));
					const float v65 = expf(v63);
					const float v66 = log1pf(v65);
					const float v67 = ((v64) != 0.f ? (v63) : (v66));
					const float v68 = tanhf(v67);
					const float v69 = ((v68) * (v63));
					const float v70 = p_b[(krl_mod(krl_div((rb + (r + 2)), a1), a3))];
					const float v71 = ((w53.z) + (v70));
					const float v72 = ((float)((v71) > (v4)));
					const float v73 = expf(v71);
					const float v74 = log1pf(v73);
					const float v75 = ((v72) != 0.f ? (v71) : (v74));
					const float v76 = tanhf(v75);
					const float v77 = ((v76) * (v71));
					const float v78 = p_b[(krl_mod(krl_div((rb + (r + 3)), a1), a3))];
					const float v79 = ((w53.w) + (v78));
					const float v80 = ((float)((v79) > (v4)));
					const float v81 = expf(v79);
					const float v82 = log1pf(v81);
					const float v83 = ((v80) != 0.f ? (v79) : (v82));
					const float v84 = tanhf(v83);
					const float v85 = ((v84) * (v79));
					acc0 += (double)((v61 + v69) + (v77 + v85));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v86 = p_t6[(rb + r)];
					const float v87 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v88 = ((v86) + (v87));
					const float v89 = ((float)((v88) > (v4)));
					const float v90 = expf(v88);
					const float v91 = log1pf(v90);
					const float v92 = ((v89) != 0.f ? (v88) : (v91));
					const float v93 = tanhf(v92);
					const float v94 = ((v93) * (v88));
					const float v95 = p_t6[(rb + (r + 256))];
					const float v96 = p_b[(krl_mod(krl_div((rb + (r + 256)), a1), a3))];
					const float v97 = ((v95) + (v96));
					const float v98 = ((float)((v97) > (v4)));
					const float v99 = expf(v97);
					const float v100 = log1pf(v99);
					const float v101 = ((v98) != 0.f ? (v97) : (v100));
					const float v102 = tanhf(v101);
					const float v103 = ((v102) * (v97));
					const float v104 = p_t6[(rb + (r + 512))];
					const float v105 = p_b[(krl_mod(krl_div((rb + (r + 512)), a1), a3))];
					const float v106 = ((v104) + (v105));
					const float v107 = ((float)((v106) > (v4)));
					const float v108 = expf(v106);
					const float v109 = log1pf(v108);
					const float v110 = ((v107) != 0.f ? (v106) : (v109));
					const float v111 = tanhf(v110);
					const float v112 = ((v111) * (v106));
					const float v113 = p_t6[(rb + (r + 768))];
					const float v114 = p_b[(krl_mod(krl_div((rb + (r + 768)), a1), a3))];
					const float v115 = ((v113) + (v114));
					const float v116 = ((float)((v115) > (v4)));
					const float v117 = expf(v115);
					const float v118 = log1pf(v117);
					const float v119 = ((v116) != 0.f ? (v115) : (v118));
					const float v120 = tanhf(v119);
					const float v121 = ((v120) * (v115));
					acc0 += (double)((v94 + v103) + (v112 + v121));
				}
				for (; r < a1; r += 256) {
					const float v122 = p_t6[(rb + r)];
					const float v123 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v124 = ((v122) + (v123));
					const float v125 = ((float)((v124) > (v4)));
					const float v126 = expf(v124);
					const float v127 = log1pf(v126);
					const float v128 = ((v125) != 0.f ? (v124) : (v127));
					const float v129 = tanhf(v128);
					const float v130 = ((v129) * (v124));
					acc0 += (double)v130;
				}
			}
		}
		const float r131 = (float)krl_block_sum(acc0);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t16[o] = r131;
		}
	}
}

/*
 * k2 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 17 sum, 19 mul.
 * Writes: t19.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t16,
	double c4,
	float *__restrict__ p_t19)
{
	__shared__ double krl_cd[8][33];
	const float v139 = (float)c4;
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
		double acc132 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v133 = p_t16[(rb + r * a2)];
				const float v134 = p_t16[(rb + (r + 8) * a2)];
				const float v135 = p_t16[(rb + (r + 16) * a2)];
				const float v136 = p_t16[(rb + (r + 24) * a2)];
				acc132 += (double)((v133 + v134) + (v135 + v136));
			}
			for (; r < a1; r += 8) {
				const float v137 = p_t16[(rb + r * a2)];
				acc132 += (double)v137;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc132;
		__syncthreads();
		acc132 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc132 += krl_cd[k][tx];
		const float r138 = (float)acc132;
		/* the outputs of the row shape */
		const float v140 = ((r138) * (v139));
		if (valid && ty == 0) {
			p_t19[(o * a2 + c)] = v140;
		}
	}
}

/*
 * k3 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 10 gt, 11 exp, 12 log1p, 13 where, 14 tanh, 15 mul, 20 sub, 21 square, 22 sum.
 * Writes: t22.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t19,
	float *__restrict__ p_t22)
{
	const float v145 = 2.000000000e+01f;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = a1 % 4 == 0;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc141 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w142 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v143 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
				const float v144 = ((w142.x) + (v143));
				const float v146 = ((float)((v144) > (v145)));
				const float v147 = expf(v144);
				const float v148 = log1pf(v147);
				const float v149 = ((v146) != 0.f ? (v144) : (v148));
				const float v150 = tanhf(v149);
				const float v151 = ((v150) * (v144));
				const float v152 = p_t19[(krl_mod(krl_div((rb + r), a1), a3))];
				const float v153 = ((v151) - (v152));
				const float v154 = ((v153) * (v153));
				const float v155 = p_b[(krl_mod(krl_div((rb + (r + 1)), a1), a3))];
				const float v156 = ((w142.y) + (v155));
				const float v157 = ((float)((v156) > (v145)));
				const float v158 = expf(v156);
				const float v159 = log1pf(v158);
				const float v160 = ((v157) != 0.f ? (v156) : (v159));
				const float v161 = tanhf(v160);
				const float v162 = ((v161) * (v156));
				const float v163 = ((v162) - (v152));
				const float v164 = ((v163) * (v163));
				const float v165 = p_b[(krl_mod(krl_div((rb + (r + 2)), a1), a3))];
				const float v166 = ((w142.z) + (v165));
				const float v167 = ((float)((v166) > (v145)));
				const float v168 = expf(v166);
				const float v169 = log1pf(v168);
				const float v170 = ((v167) != 0.f ? (v166) : (v169));
				const float v171 = tanhf(v170);
				const float v172 = ((v171) * (v166));
				const float v173 = ((v172) - (v152));
				const float v174 = ((v173) * (v173));
				const float v175 = p_b[(krl_mod(krl_div((rb + (r + 3)), a1), a3))];
				const float v176 = ((w142.w) + (v175));
				const float v177 = ((float)((v176) > (v145)));
				const float v178 = expf(v176);
				const float v179 = log1pf(v178);
				const float v180 = ((v177) != 0.f ? (v176) : (v179));
				const float v181 = tanhf(v180);
				const float v182 = ((v181) * (v176));
				const float v183 = ((v182) - (v152));
				const float v184 = ((v183) * (v183));
				acc141 += (double)((v154 + v164) + (v174 + v184));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v185 = p_t6[(rb + r)];
					const float v186 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v187 = ((v185) + (v186));
					const float v188 = ((float)((v187) > (v145)));
					const float v189 = expf(v187);
					const float v190 = log1pf(v189);
					const float v191 = ((v188) != 0.f ? (v187) : (v190));
					const float v192 = tanhf(v191);
					const float v193 = ((v192) * (v187));
					const float v194 = p_t19[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v195 = ((v193) - (v194));
					const float v196 = ((v195) * (v195));
					acc141 += (double)v196;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v197 = p_t6[(rb + r)];
					const float v198 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v199 = ((v197) + (v198));
					const float v200 = ((float)((v199) > (v145)));
					const float v201 = expf(v199);
					const float v202 = log1pf(v201);
					const float v203 = ((v200) != 0.f ? (v199) : (v202));
					const float v204 = tanhf(v203);
					const float v205 = ((v204) * (v199));
					const float v206 = p_t19[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v207 = ((v205) - (v206));
					const float v208 = ((v207) * (v207));
					acc141 += (double)v208;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w209 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v210 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v211 = ((w209.x) + (v210));
					const float v212 = ((float)((v211) > (v145)));
					const float v213 = expf(v211);
					const float v214 = log1pf(v213);
					const float v215 = ((v212) != 0.f ? (v211) : (v214));
					const float v216 = tanhf(v215);
					const float v217 = ((v216) * (v211));
					const float v218 = p_t19[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v219 = ((v217) - (v218));
					const float v220 = ((v219) * (v219));
					const float v221 = p_b[(krl_mod(krl_div((rb + (r + 1)), a1), a3))];
					const float v222 = ((w209.y) + (v221));
					const float v223 = ((float)((v222) > (v145)));
					const float v224 = expf(v222);
					const float v225 = log1pf(v224);
					const float v226 = ((v223) != 0.f ? (v222) : (v225));
					const float v227 = tanhf(v226);
					const float v228 = ((v227) * (v222));
					const float v229 = ((v228) - (v218));
					const float v230 = ((v229) * (v229));
					const float v231 = p_b[(krl_mod(krl_div((rb + (r + 2)), a1), a3))];
					const float v232 = ((w209.z) + (v231));
					const float v233 = ((float)((v232) > (v145)));
					const float v234 = expf(v232);
					const float v235 = log1pf(v234);
					const float v236 = ((v233) != 0.f ? (v232) : (v235));
					const float v237 = tanhf(v236);
					const float v238 = ((v237) * (v232));
					const float v239 = ((v238) - (v218));
					const float v240 = ((v239) * (v239));
					const float v241 = p_b[(krl_mod(krl_div((rb + (r + 3)), a1), a3))];
					const float v242 = ((w209.w) + (v241));
					const float v243 = ((float)((v242) > (v145)));
					const float v244 = expf(v242);
					const float v245 = log1pf(v244);
					const float v246 = ((v243) != 0.f ? (v242) : (v245));
					const float v247 = tanhf(v246);
					const float v248 = ((v247) * (v242));
					const float v249 = ((v248) - (v218));
					const float v250 = ((v249) * (v249));
					acc141 += (double)((v220 + v230) + (v240 + v250));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v251 = p_t6[(rb + r)];
					const float v252 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v253 = ((v251) + (v252));
					const float v254 = ((float)((v253) > (v145)));
					const float v255 = expf(v253);
					const float v256 = log1pf(v255);
					const float v257 = ((v254) != 0.f ? (v253) : (v256));
					const float v258 = tanhf(v257);
					const float v259 = ((v258) * (v253));
					const float v260 = p_t19[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v261 = ((v259) - (v260));
					const float v262 = ((v261) * (v261));
					const float v263 = p_t6[(rb + (r + 256))];
					const float v264 = p_b[(krl_mod(krl_div((rb + (r + 256)), a1), a3))];
					const float v265 = ((v263) + (v264));
					const float v266 = ((float)((v265) > (v145)));
					const float v267 = expf(v265);
					const float v268 = log1pf(v267);
					const float v269 = ((v266) != 0.f ? (v265) : (v268));
					const float v270 = tanhf(v269);
					const float v271 = ((v270) * (v265));
					const float v272 = p_t19[(krl_mod(krl_div((rb + (r + 256)), a1), a3))];
					const float v273 = ((v271) - (v272));
					const float v274 = ((v273) * (v273));
					const float v275 = p_t6[(rb + (r + 512))];
					const float v276 = p_b[(krl_mod(krl_div((rb + (r + 512)), a1), a3))];
					const float v277 = ((v275) + (v276));
					const float v278 = ((float)((v277) > (v145)));
					const float v279 = expf(v277);
					const float v280 = log1pf(v279);
					const float v281 = ((v278) != 0.f ? (v277) : (v280));
					const float v282 = tanhf(v281);
					const float v283 = ((v282) * (v277));
					const float v284 = p_t19[(krl_mod(krl_div((rb + (r + 512)), a1), a3))];
					const float v285 = ((v283) - (v284));
					const float v286 = ((v285) * (v285));
					const float v287 = p_t6[(rb + (r + 768))];
					const float v288 = p_b[(krl_mod(krl_div((rb + (r + 768)), a1), a3))];
					const float v289 = ((v287) + (v288));
					const float v290 = ((float)((v289) > (v145)));
					const float v291 = expf(v289);
					const float v292 = log1pf(v291);
					const float v293 = ((v290) != 0.f ? (v289) : (v292));
					const float v294 = tanhf(v293);
					const float v295 = ((v294) * (v289));
					const float v296 = p_t19[(krl_mod(krl_div((rb + (r + 768)), a1), a3))];
					const float v297 = ((v295) - (v296));
					const float v298 = ((v297) * (v297));
					acc141 += (double)((v262 + v274) + (v286 + v298));
				}
				for (; r < a1; r += 256) {
					const float v299 = p_t6[(rb + r)];
					const float v300 = p_b[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v301 = ((v299) + (v300));
					const float v302 = ((float)((v301) > (v145)));
					const float v303 = expf(v301);
					const float v304 = log1pf(v303);
					const float v305 = ((v302) != 0.f ? (v301) : (v304));
					const float v306 = tanhf(v305);
					const float v307 = ((v306) * (v301));
					const float v308 = p_t19[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v309 = ((v307) - (v308));
					const float v310 = ((v309) * (v309));
					acc141 += (double)v310;
				}
			}
		}
		const float r311 = (float)krl_block_sum(acc141);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t22[o] = r311;
		}
	}
}

/*
 * k4 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 23 sum, 25 mul, 27 add, 28 rsqrt.
 * Writes: t28.
 */
extern "C" __global__ void __launch_bounds__(256)
k4_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t22,
	double c4,
	double c5,
	float *__restrict__ p_t28)
{
	__shared__ double krl_cd[8][33];
	const float v319 = (float)c4;
	const float v321 = (float)c5;
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
		double acc312 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v313 = p_t22[(rb + r * a2)];
				const float v314 = p_t22[(rb + (r + 8) * a2)];
				const float v315 = p_t22[(rb + (r + 16) * a2)];
				const float v316 = p_t22[(rb + (r + 24) * a2)];
				acc312 += (double)((v313 + v314) + (v315 + v316));
			}
			for (; r < a1; r += 8) {
				const float v317 = p_t22[(rb + r * a2)];
				acc312 += (double)v317;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc312;
		__syncthreads();
		acc312 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc312 += krl_cd[k][tx];
		const float r318 = (float)acc312;
		/* the outputs of the row shape */
		const float v320 = ((r318) * (v319));
		const float v322 = ((v320) + (v321));
		const float v323 = rsqrtf(v322);
		if (valid && ty == 0) {
			p_t28[(o * a2 + c)] = v323;
		}
	}
}

/*
 * k5 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 7 view, 8 add, 10 gt, 11 exp, 12 log1p, 13 where, 14 tanh, 15 mul, 20 sub, 29 mul, 30 view, 31 view, 32 mul, 33 add.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k5_map(long a0,
	const float *__restrict__ p_t6,
	long a2,
	long a3,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t19,
	const float *__restrict__ p_t28,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	float *__restrict__ p_y)
{
	const float v327 = 2.000000000e+01f;
	const int tid = threadIdx.x;
	const long nv = (a2 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w324 = *reinterpret_cast<const float4 *>(p_t6 + i);
				const float v325 = p_b[(krl_mod(krl_div(i, a2), a3))];
				const float v326 = ((w324.x) + (v325));
				const float v328 = ((float)((v326) > (v327)));
				const float v329 = expf(v326);
				const float v330 = log1pf(v329);
				const float v331 = ((v328) != 0.f ? (v326) : (v330));
				const float v332 = tanhf(v331);
				const float v333 = ((v332) * (v326));
				const float v334 = p_t19[(krl_mod(krl_div(i, a2), a3))];
				const float v335 = ((v333) - (v334));
				const float v336 = p_t28[(krl_mod(krl_div(i, a2), a3))];
				const float v337 = ((v335) * (v336));
				const float v338 = p_bn_w[(krl_mod(krl_div(i, a2), a3))];
				const float v339 = ((v337) * (v338));
				const float v340 = p_bn_b[(krl_mod(krl_div(i, a2), a3))];
				const float v341 = ((v339) + (v340));
				const float v342 = p_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v343 = ((w324.y) + (v342));
				const float v344 = ((float)((v343) > (v327)));
				const float v345 = expf(v343);
				const float v346 = log1pf(v345);
				const float v347 = ((v344) != 0.f ? (v343) : (v346));
				const float v348 = tanhf(v347);
				const float v349 = ((v348) * (v343));
				const float v350 = ((v349) - (v334));
				const float v351 = ((v350) * (v336));
				const float v352 = p_bn_w[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v353 = ((v351) * (v352));
				const float v354 = p_bn_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v355 = ((v353) + (v354));
				const float v356 = p_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v357 = ((w324.z) + (v356));
				const float v358 = ((float)((v357) > (v327)));
				const float v359 = expf(v357);
				const float v360 = log1pf(v359);
				const float v361 = ((v358) != 0.f ? (v357) : (v360));
				const float v362 = tanhf(v361);
				const float v363 = ((v362) * (v357));
				const float v364 = ((v363) - (v334));
				const float v365 = ((v364) * (v336));
				const float v366 = p_bn_w[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v367 = ((v365) * (v366));
				const float v368 = p_bn_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v369 = ((v367) + (v368));
				const float v370 = p_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v371 = ((w324.w) + (v370));
				const float v372 = ((float)((v371) > (v327)));
				const float v373 = expf(v371);
				const float v374 = log1pf(v373);
				const float v375 = ((v372) != 0.f ? (v371) : (v374));
				const float v376 = tanhf(v375);
				const float v377 = ((v376) * (v371));
				const float v378 = ((v377) - (v334));
				const float v379 = ((v378) * (v336));
				const float v380 = p_bn_w[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v381 = ((v379) * (v380));
				const float v382 = p_bn_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v383 = ((v381) + (v382));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v341, v355, v369, v383);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v384 = p_t6[i];
		const float v385 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v386 = ((v384) + (v385));
		const float v387 = ((float)((v386) > (v327)));
		const float v388 = expf(v386);
		const float v389 = log1pf(v388);
		const float v390 = ((v387) != 0.f ? (v386) : (v389));
		const float v391 = tanhf(v390);
		const float v392 = ((v391) * (v386));
		const float v393 = p_t19[(krl_mod(krl_div(i, a2), a3))];
		const float v394 = ((v392) - (v393));
		const float v395 = p_t28[(krl_mod(krl_div(i, a2), a3))];
		const float v396 = ((v394) * (v395));
		const float v397 = p_bn_w[(krl_mod(krl_div(i, a2), a3))];
		const float v398 = ((v396) * (v397));
		const float v399 = p_bn_b[(krl_mod(krl_div(i, a2), a3))];
		const float v400 = ((v398) + (v399));
		p_y[i] = v400;
	}
}

/*@plan
buffer t6 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t16 f32 [(batch_size), (out_channels), (1), (1)]
buffer t19 f32 [(1), (out_channels), (1), (1)]
buffer t22 f32 [(batch_size), (out_channels), (1), (1)]
buffer t28 f32 [(1), (out_channels), (1), (1)]
# k0: library call (node 6)
call conv(x, w) -> t6
launch k1_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (oh) * (ow),
    t6,
    (out_channels),
    b,
    t16)
launch k2_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t16,
    (1.0 / (batch_size * (oh * ow))),
    t19)
launch k3_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (oh) * (ow),
    t6,
    (out_channels),
    b,
    t19,
    t22)
launch k4_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t22,
    (1.0 / (batch_size * (oh * ow))),
    (eps),
    t28)
launch k5_map grid=(cdiv((batch_size) * (out_channels) * (oh) * (ow), 1024)) block=(256) args((batch_size) * (out_channels) * (oh) * (ow),
    t6,
    (oh) * (ow),
    (out_channels),
    b,
    t19,
    t28,
    bn_w,
    bn_b,
    y)
@*/
