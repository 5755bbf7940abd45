/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nhwc
 * Task level2/34_convtranspose3d_layernorm_gelu_scaling, generated at shape set kb1; it serves every shape set.
 * fused 19 ops into 2 kernels: 1 row (block 256, regs), 1 library (layout nhwc; 1 weight kept channels-last)
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

/* a / b and a % b for b > 0: a shift or a mask where b is a power of two
 * and a >= 0 (most of KernelBench's extents; b is the same for every
 * thread), else 32-bit division when both fit (a ~20-instruction
 * sequence), else C's 64-bit division (a negative a rounds toward 0). */
static __device__ __forceinline__ long krl_div(long a, long b)
{
	if ((b & (b - 1)) == 0 && a >= 0)
		return a >> (__ffsll(b) - 1);
	return ((unsigned long)a | (unsigned long)b) < 0x100000000ul ?
	       (long)((unsigned)a / (unsigned)b) : a / b;
}

static __device__ __forceinline__ long krl_mod(long a, long b)
{
	if ((b & (b - 1)) == 0 && a >= 0)
		return a & (b - 1);
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

/* Warp reductions; xor shuffles give every lane the same result. Over
 * aligned groups of w lanes (a power of two) with w: a warp-strategy row
 * kernel's rows of few elements, several a warp. The loops stay unrolled
 * with w a run-time value (a test a step); with the default, the code is
 * the whole warp's as before. */
static __device__ __forceinline__ double krl_warp_sum(double v, int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		if (off < w)
			v += __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

static __device__ __forceinline__ double krl_warp_prod(double v, int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		if (off < w)
			v *= __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

static __device__ __forceinline__ float krl_warp_max(float v, int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		if (off < w)
			v = krl_maxf(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}

static __device__ __forceinline__ float krl_warp_min(float v, int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		if (off < w)
			v = krl_minf(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}

/* Lanes a row of n elements takes in a warp-strategy row kernel: a
 * float4 a lane at least, between 4 (the peeled path's head and tail
 * take up to 3 lanes) and 32. */
static __device__ __forceinline__ int krl_row_lanes(long n)
{
	int w = 4;
	while (w < 32 && (long)w * 4 < n)
		w <<= 1;
	return w;
}

/*
 * krl_wkrsc (init): a convolution's weight w [A, B, taps] in cuDNN's
 * channels-last filter format wt [A, taps, B] (what layout=nhwc
 * transposes it to on every call), for w_layout=krsc.
 */
extern "C" __global__ void krl_wkrsc(const float *__restrict__ w,
                                     float *__restrict__ wt, long A,
                                     long B, long taps)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= A * B * taps)
		return;
	const long b = i % B, j = i / B;
	const long t = j % taps, a = j / taps;
	wt[i] = w[(a * B + b) * taps + t];
}

/*
 * k1 (row: 4 to 32 lanes per row, 256 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 9 sum, 11 mul, 12 sub, 13 square, 14 sum, 16 mul, 18 add, 19 rsqrt, 20 mul, 21 mul, 22 add, 26 mul, 27 erf, 28 add, 29 mul, 30 mul, 32 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	long a4,
	const float *__restrict__ p_b,
	double c6,
	double c7,
	long a8,
	const float *__restrict__ p_ln_w,
	const float *__restrict__ p_ln_b,
	double c11,
	double c12,
	float *__restrict__ p_y)
{
	const float v29 = (float)c6;
	const float v34 = 5.000000000e-01f;
	const float v39 = (float)c6;
	const float v41 = (float)c7;
	const float v50 = 1.000000000e+00f;
	const float v51 = (float)c11;
	const float v56 = (float)c12;
	const int tid = threadIdx.x;
	const int lpr = krl_row_lanes(a1); /* lanes a row */
	const int lsh = __ffs(lpr) - 1; /* lpr = 1 << lsh */
	const int lid = tid & (lpr - 1);
	const long rpw = 32 >> lsh; /* rows a warp */
	const long wpb = 8; /* warps per block */
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long g = (long)blockIdx.x * wpb + (tid >> 5); g * rpw < a0; g += (long)gridDim.x * wpb) {
		const long o = min(g * rpw + (long)((tid & 31) >> lsh), a0 - 1);
		const long rb = o * a1;
		const float v0 = p_t6[(rb + 0)];
		const float v1 = p_b[(krl_mod(krl_div(rb, a3), a4))];
		const float v2 = ((v0) + (v1));
		/* pass 1 */
		double acc3 = 0.0;
		double acc4 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)lpr * 4) {
				const float4 w5 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v6 = ((w5.x) + (v1));
				const float v7 = ((w5.y) + (v1));
				const float v8 = ((w5.z) + (v1));
				const float v9 = ((w5.w) + (v1));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v6 - v2;
					const float d1 = v7 - v2;
					const float d2 = v8 - v2;
					const float d3 = v9 - v2;
					acc3 += (double)((d0 + d1) + (d2 + d3));
					acc4 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
				}
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v10 = p_t6[(rb + r)];
					const float v11 = ((v10) + (v1));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v11 - v2;
						acc3 += (double)d0;
						acc4 += (double)(d0 * d0);
					}
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v12 = p_t6[(rb + r)];
					const float v13 = ((v12) + (v1));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v13 - v2;
						acc3 += (double)d0;
						acc4 += (double)(d0 * d0);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)lpr * 4) {
					const float4 w14 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v15 = ((w14.x) + (v1));
					const float v16 = ((w14.y) + (v1));
					const float v17 = ((w14.z) + (v1));
					const float v18 = ((w14.w) + (v1));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v15 - v2;
						const float d1 = v16 - v2;
						const float d2 = v17 - v2;
						const float d3 = v18 - v2;
						acc3 += (double)((d0 + d1) + (d2 + d3));
						acc4 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 3 * lpr < a1; r += 4 * lpr) {
					const float v19 = p_t6[(rb + r)];
					const float v20 = ((v19) + (v1));
					const float v21 = p_t6[(rb + (r + 1 * lpr))];
					const float v22 = ((v21) + (v1));
					const float v23 = p_t6[(rb + (r + 2 * lpr))];
					const float v24 = ((v23) + (v1));
					const float v25 = p_t6[(rb + (r + 3 * lpr))];
					const float v26 = ((v25) + (v1));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v20 - v2;
						const float d1 = v22 - v2;
						const float d2 = v24 - v2;
						const float d3 = v26 - v2;
						acc3 += (double)((d0 + d1) + (d2 + d3));
						acc4 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
				for (; r < a1; r += lpr) {
					const float v27 = p_t6[(rb + r)];
					const float v28 = ((v27) + (v1));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v28 - v2;
						acc3 += (double)d0;
						acc4 += (double)(d0 * d0);
					}
				}
			}
		}
		acc3 = krl_warp_sum(acc3, lpr);
		acc4 = krl_warp_sum(acc4, lpr);
		const float r30 = (float)(acc3 + (double)a1 * (double)v2);
		const float m32 = r30 * v29;
		const double dm33 = (double)m32 - (double)v2;
		const float r31 = (float)fmax(acc4 - 2.0 * dm33 * acc3 + (double)a1 * dm33 * dm33, 0.0);
		const float v37 = ((r30) * (v29));
		const float v40 = ((r31) * (v39));
		const float v42 = ((v40) + (v41));
		const float v43 = rsqrtf(v42);
		/* the outputs of the full shape */
		if (vec) {
			{
				long r = (long)lid * 4;
				for (; r + 12 * (long)lpr < a1; r += 16 * (long)lpr) {
					const float4 w35 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v36 = ((w35.x) + (v1));
					const float v38 = ((v36) - (v37));
					const float v44 = ((v38) * (v43));
					const float v45 = p_ln_w[(krl_mod((rb + r), a1) * a8)];
					const float v46 = ((v44) * (v45));
					const float v47 = p_ln_b[(krl_mod((rb + r), a1) * a8)];
					const float v48 = ((v46) + (v47));
					const float v49 = ((v34) * (v48));
					const float v52 = ((v48) * (v51));
					const float v53 = erff(v52);
					const float v54 = ((v50) + (v53));
					const float v55 = ((v49) * (v54));
					const float v57 = ((v55) * (v56));
					const float v58 = ((w35.y) + (v1));
					const float v59 = ((v58) - (v37));
					const float v60 = ((v59) * (v43));
					const float v61 = p_ln_w[(krl_mod((rb + (r + 1)), a1) * a8)];
					const float v62 = ((v60) * (v61));
					const float v63 = p_ln_b[(krl_mod((rb + (r + 1)), a1) * a8)];
					const float v64 = ((v62) + (v63));
					const float v65 = ((v34) * (v64));
					const float v66 = ((v64) * (v51));
					const float v67 = erff(v66);
					const float v68 = ((v50) + (v67));
					const float v69 = ((v65) * (v68));
					const float v70 = ((v69) * (v56));
					const float v71 = ((w35.z) + (v1));
					const float v72 = ((v71) - (v37));
					const float v73 = ((v72) * (v43));
					const float v74 = p_ln_w[(krl_mod((rb + (r + 2)), a1) * a8)];
					const float v75 = ((v73) * (v74));
					const float v76 = p_ln_b[(krl_mod((rb + (r + 2)), a1) * a8)];
					const float v77 = ((v75) + (v76));
					const float v78 = ((v34) * (v77));
					const float v79 = ((v77) * (v51));
					const float v80 = erff(v79);
					const float v81 = ((v50) + (v80));
					const float v82 = ((v78) * (v81));
					const float v83 = ((v82) * (v56));
					const float v84 = ((w35.w) + (v1));
					const float v85 = ((v84) - (v37));
					const float v86 = ((v85) * (v43));
					const float v87 = p_ln_w[(krl_mod((rb + (r + 3)), a1) * a8)];
					const float v88 = ((v86) * (v87));
					const float v89 = p_ln_b[(krl_mod((rb + (r + 3)), a1) * a8)];
					const float v90 = ((v88) + (v89));
					const float v91 = ((v34) * (v90));
					const float v92 = ((v90) * (v51));
					const float v93 = erff(v92);
					const float v94 = ((v50) + (v93));
					const float v95 = ((v91) * (v94));
					const float v96 = ((v95) * (v56));
					const float4 w97 = *reinterpret_cast<const float4 *>(p_t6 + (rb + (r + 4 * (long)lpr)));
					const float v98 = ((w97.x) + (v1));
					const float v99 = ((v98) - (v37));
					const float v100 = ((v99) * (v43));
					const float v101 = p_ln_w[(krl_mod((rb + (r + 4 * (long)lpr)), a1) * a8)];
					const float v102 = ((v100) * (v101));
					const float v103 = p_ln_b[(krl_mod((rb + (r + 4 * (long)lpr)), a1) * a8)];
					const float v104 = ((v102) + (v103));
					const float v105 = ((v34) * (v104));
					const float v106 = ((v104) * (v51));
					const float v107 = erff(v106);
					const float v108 = ((v50) + (v107));
					const float v109 = ((v105) * (v108));
					const float v110 = ((v109) * (v56));
					const float v111 = ((w97.y) + (v1));
					const float v112 = ((v111) - (v37));
					const float v113 = ((v112) * (v43));
					const float v114 = p_ln_w[(krl_mod((rb + ((r + 4 * (long)lpr) + 1)), a1) * a8)];
					const float v115 = ((v113) * (v114));
					const float v116 = p_ln_b[(krl_mod((rb + ((r + 4 * (long)lpr) + 1)), a1) * a8)];
					const float v117 = ((v115) + (v116));
					const float v118 = ((v34) * (v117));
					const float v119 = ((v117) * (v51));
					const float v120 = erff(v119);
					const float v121 = ((v50) + (v120));
					const float v122 = ((v118) * (v121));
					const float v123 = ((v122) * (v56));
					const float v124 = ((w97.z) + (v1));
					const float v125 = ((v124) - (v37));
					const float v126 = ((v125) * (v43));
					const float v127 = p_ln_w[(krl_mod((rb + ((r + 4 * (long)lpr) + 2)), a1) * a8)];
					const float v128 = ((v126) * (v127));
					const float v129 = p_ln_b[(krl_mod((rb + ((r + 4 * (long)lpr) + 2)), a1) * a8)];
					const float v130 = ((v128) + (v129));
					const float v131 = ((v34) * (v130));
					const float v132 = ((v130) * (v51));
					const float v133 = erff(v132);
					const float v134 = ((v50) + (v133));
					const float v135 = ((v131) * (v134));
					const float v136 = ((v135) * (v56));
					const float v137 = ((w97.w) + (v1));
					const float v138 = ((v137) - (v37));
					const float v139 = ((v138) * (v43));
					const float v140 = p_ln_w[(krl_mod((rb + ((r + 4 * (long)lpr) + 3)), a1) * a8)];
					const float v141 = ((v139) * (v140));
					const float v142 = p_ln_b[(krl_mod((rb + ((r + 4 * (long)lpr) + 3)), a1) * a8)];
					const float v143 = ((v141) + (v142));
					const float v144 = ((v34) * (v143));
					const float v145 = ((v143) * (v51));
					const float v146 = erff(v145);
					const float v147 = ((v50) + (v146));
					const float v148 = ((v144) * (v147));
					const float v149 = ((v148) * (v56));
					const float4 w150 = *reinterpret_cast<const float4 *>(p_t6 + (rb + (r + 8 * (long)lpr)));
					const float v151 = ((w150.x) + (v1));
					const float v152 = ((v151) - (v37));
					const float v153 = ((v152) * (v43));
					const float v154 = p_ln_w[(krl_mod((rb + (r + 8 * (long)lpr)), a1) * a8)];
					const float v155 = ((v153) * (v154));
					const float v156 = p_ln_b[(krl_mod((rb + (r + 8 * (long)lpr)), a1) * a8)];
					const float v157 = ((v155) + (v156));
					const float v158 = ((v34) * (v157));
					const float v159 = ((v157) * (v51));
					const float v160 = erff(v159);
					const float v161 = ((v50) + (v160));
					const float v162 = ((v158) * (v161));
					const float v163 = ((v162) * (v56));
					const float v164 = ((w150.y) + (v1));
					const float v165 = ((v164) - (v37));
					const float v166 = ((v165) * (v43));
					const float v167 = p_ln_w[(krl_mod((rb + ((r + 8 * (long)lpr) + 1)), a1) * a8)];
					const float v168 = ((v166) * (v167));
					const float v169 = p_ln_b[(krl_mod((rb + ((r + 8 * (long)lpr) + 1)), a1) * a8)];
					const float v170 = ((v168) + (v169));
					const float v171 = ((v34) * (v170));
					const float v172 = ((v170) * (v51));
					const float v173 = erff(v172);
					const float v174 = ((v50) + (v173));
					const float v175 = ((v171) * (v174));
					const float v176 = ((v175) * (v56));
					const float v177 = ((w150.z) + (v1));
					const float v178 = ((v177) - (v37));
					const float v179 = ((v178) * (v43));
					const float v180 = p_ln_w[(krl_mod((rb + ((r + 8 * (long)lpr) + 2)), a1) * a8)];
					const float v181 = ((v179) * (v180));
					const float v182 = p_ln_b[(krl_mod((rb + ((r + 8 * (long)lpr) + 2)), a1) * a8)];
					const float v183 = ((v181) + (v182));
					const float v184 = ((v34) * (v183));
					const float v185 = ((v183) * (v51));
					const float v186 = erff(v185);
					const float v187 = ((v50) + (v186));
					const float v188 = ((v184) * (v187));
					const float v189 = ((v188) * (v56));
					const float v190 = ((w150.w) + (v1));
					const float v191 = ((v190) - (v37));
					const float v192 = ((v191) * (v43));
					const float v193 = p_ln_w[(krl_mod((rb + ((r + 8 * (long)lpr) + 3)), a1) * a8)];
					const float v194 = ((v192) * (v193));
					const float v195 = p_ln_b[(krl_mod((rb + ((r + 8 * (long)lpr) + 3)), a1) * a8)];
					const float v196 = ((v194) + (v195));
					const float v197 = ((v34) * (v196));
					const float v198 = ((v196) * (v51));
					const float v199 = erff(v198);
					const float v200 = ((v50) + (v199));
					const float v201 = ((v197) * (v200));
					const float v202 = ((v201) * (v56));
					const float4 w203 = *reinterpret_cast<const float4 *>(p_t6 + (rb + (r + 12 * (long)lpr)));
					const float v204 = ((w203.x) + (v1));
					const float v205 = ((v204) - (v37));
					const float v206 = ((v205) * (v43));
					const float v207 = p_ln_w[(krl_mod((rb + (r + 12 * (long)lpr)), a1) * a8)];
					const float v208 = ((v206) * (v207));
					const float v209 = p_ln_b[(krl_mod((rb + (r + 12 * (long)lpr)), a1) * a8)];
					const float v210 = ((v208) + (v209));
					const float v211 = ((v34) * (v210));
					const float v212 = ((v210) * (v51));
					const float v213 = erff(v212);
					const float v214 = ((v50) + (v213));
					const float v215 = ((v211) * (v214));
					const float v216 = ((v215) * (v56));
					const float v217 = ((w203.y) + (v1));
					const float v218 = ((v217) - (v37));
					const float v219 = ((v218) * (v43));
					const float v220 = p_ln_w[(krl_mod((rb + ((r + 12 * (long)lpr) + 1)), a1) * a8)];
					const float v221 = ((v219) * (v220));
					const float v222 = p_ln_b[(krl_mod((rb + ((r + 12 * (long)lpr) + 1)), a1) * a8)];
					const float v223 = ((v221) + (v222));
					const float v224 = ((v34) * (v223));
					const float v225 = ((v223) * (v51));
					const float v226 = erff(v225);
					const float v227 = ((v50) + (v226));
					const float v228 = ((v224) * (v227));
					const float v229 = ((v228) * (v56));
					const float v230 = ((w203.z) + (v1));
					const float v231 = ((v230) - (v37));
					const float v232 = ((v231) * (v43));
					const float v233 = p_ln_w[(krl_mod((rb + ((r + 12 * (long)lpr) + 2)), a1) * a8)];
					const float v234 = ((v232) * (v233));
					const float v235 = p_ln_b[(krl_mod((rb + ((r + 12 * (long)lpr) + 2)), a1) * a8)];
					const float v236 = ((v234) + (v235));
					const float v237 = ((v34) * (v236));
					const float v238 = ((v236) * (v51));
					const float v239 = erff(v238);
					const float v240 = ((v50) + (v239));
					const float v241 = ((v237) * (v240));
					const float v242 = ((v241) * (v56));
					const float v243 = ((w203.w) + (v1));
					const float v244 = ((v243) - (v37));
					const float v245 = ((v244) * (v43));
					const float v246 = p_ln_w[(krl_mod((rb + ((r + 12 * (long)lpr) + 3)), a1) * a8)];
					const float v247 = ((v245) * (v246));
					const float v248 = p_ln_b[(krl_mod((rb + ((r + 12 * (long)lpr) + 3)), a1) * a8)];
					const float v249 = ((v247) + (v248));
					const float v250 = ((v34) * (v249));
					const float v251 = ((v249) * (v51));
					const float v252 = erff(v251);
					const float v253 = ((v50) + (v252));
					const float v254 = ((v250) * (v253));
					const float v255 = ((v254) * (v56));
					*reinterpret_cast<float4 *>(p_y + (rb + r)) = make_float4(v57, v70, v83, v96);
					*reinterpret_cast<float4 *>(p_y + (rb + (r + 4 * (long)lpr))) = make_float4(v110, v123, v136, v149);
					*reinterpret_cast<float4 *>(p_y + (rb + (r + 8 * (long)lpr))) = make_float4(v163, v176, v189, v202);
					*reinterpret_cast<float4 *>(p_y + (rb + (r + 12 * (long)lpr))) = make_float4(v216, v229, v242, v255);
				}
				for (; r < a1; r += (long)lpr * 4) {
					const float4 w256 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v257 = ((w256.x) + (v1));
					const float v258 = ((v257) - (v37));
					const float v259 = ((v258) * (v43));
					const float v260 = p_ln_w[(krl_mod((rb + r), a1) * a8)];
					const float v261 = ((v259) * (v260));
					const float v262 = p_ln_b[(krl_mod((rb + r), a1) * a8)];
					const float v263 = ((v261) + (v262));
					const float v264 = ((v34) * (v263));
					const float v265 = ((v263) * (v51));
					const float v266 = erff(v265);
					const float v267 = ((v50) + (v266));
					const float v268 = ((v264) * (v267));
					const float v269 = ((v268) * (v56));
					const float v270 = ((w256.y) + (v1));
					const float v271 = ((v270) - (v37));
					const float v272 = ((v271) * (v43));
					const float v273 = p_ln_w[(krl_mod((rb + (r + 1)), a1) * a8)];
					const float v274 = ((v272) * (v273));
					const float v275 = p_ln_b[(krl_mod((rb + (r + 1)), a1) * a8)];
					const float v276 = ((v274) + (v275));
					const float v277 = ((v34) * (v276));
					const float v278 = ((v276) * (v51));
					const float v279 = erff(v278);
					const float v280 = ((v50) + (v279));
					const float v281 = ((v277) * (v280));
					const float v282 = ((v281) * (v56));
					const float v283 = ((w256.z) + (v1));
					const float v284 = ((v283) - (v37));
					const float v285 = ((v284) * (v43));
					const float v286 = p_ln_w[(krl_mod((rb + (r + 2)), a1) * a8)];
					const float v287 = ((v285) * (v286));
					const float v288 = p_ln_b[(krl_mod((rb + (r + 2)), a1) * a8)];
					const float v289 = ((v287) + (v288));
					const float v290 = ((v34) * (v289));
					const float v291 = ((v289) * (v51));
					const float v292 = erff(v291);
					const float v293 = ((v50) + (v292));
					const float v294 = ((v290) * (v293));
					const float v295 = ((v294) * (v56));
					const float v296 = ((w256.w) + (v1));
					const float v297 = ((v296) - (v37));
					const float v298 = ((v297) * (v43));
					const float v299 = p_ln_w[(krl_mod((rb + (r + 3)), a1) * a8)];
					const float v300 = ((v298) * (v299));
					const float v301 = p_ln_b[(krl_mod((rb + (r + 3)), a1) * a8)];
					const float v302 = ((v300) + (v301));
					const float v303 = ((v34) * (v302));
					const float v304 = ((v302) * (v51));
					const float v305 = erff(v304);
					const float v306 = ((v50) + (v305));
					const float v307 = ((v303) * (v306));
					const float v308 = ((v307) * (v56));
					*reinterpret_cast<float4 *>(p_y + (rb + r)) = make_float4(v269, v282, v295, v308);
				}
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v309 = p_t6[(rb + r)];
					const float v310 = ((v309) + (v1));
					const float v311 = ((v310) - (v37));
					const float v312 = ((v311) * (v43));
					const float v313 = p_ln_w[(krl_mod((rb + r), a1) * a8)];
					const float v314 = ((v312) * (v313));
					const float v315 = p_ln_b[(krl_mod((rb + r), a1) * a8)];
					const float v316 = ((v314) + (v315));
					const float v317 = ((v34) * (v316));
					const float v318 = ((v316) * (v51));
					const float v319 = erff(v318);
					const float v320 = ((v50) + (v319));
					const float v321 = ((v317) * (v320));
					const float v322 = ((v321) * (v56));
					p_y[(rb + r)] = v322;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v323 = p_t6[(rb + r)];
					const float v324 = ((v323) + (v1));
					const float v325 = ((v324) - (v37));
					const float v326 = ((v325) * (v43));
					const float v327 = p_ln_w[(krl_mod((rb + r), a1) * a8)];
					const float v328 = ((v326) * (v327));
					const float v329 = p_ln_b[(krl_mod((rb + r), a1) * a8)];
					const float v330 = ((v328) + (v329));
					const float v331 = ((v34) * (v330));
					const float v332 = ((v330) * (v51));
					const float v333 = erff(v332);
					const float v334 = ((v50) + (v333));
					const float v335 = ((v331) * (v334));
					const float v336 = ((v335) * (v56));
					p_y[(rb + r)] = v336;
				}
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)lpr * 4) {
					const float4 w337 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v338 = ((w337.x) + (v1));
					const float v339 = ((v338) - (v37));
					const float v340 = ((v339) * (v43));
					const float v341 = p_ln_w[(krl_mod((rb + r), a1) * a8)];
					const float v342 = ((v340) * (v341));
					const float v343 = p_ln_b[(krl_mod((rb + r), a1) * a8)];
					const float v344 = ((v342) + (v343));
					const float v345 = ((v34) * (v344));
					const float v346 = ((v344) * (v51));
					const float v347 = erff(v346);
					const float v348 = ((v50) + (v347));
					const float v349 = ((v345) * (v348));
					const float v350 = ((v349) * (v56));
					const float v351 = ((w337.y) + (v1));
					const float v352 = ((v351) - (v37));
					const float v353 = ((v352) * (v43));
					const float v354 = p_ln_w[(krl_mod((rb + (r + 1)), a1) * a8)];
					const float v355 = ((v353) * (v354));
					const float v356 = p_ln_b[(krl_mod((rb + (r + 1)), a1) * a8)];
					const float v357 = ((v355) + (v356));
					const float v358 = ((v34) * (v357));
					const float v359 = ((v357) * (v51));
					const float v360 = erff(v359);
					const float v361 = ((v50) + (v360));
					const float v362 = ((v358) * (v361));
					const float v363 = ((v362) * (v56));
					const float v364 = ((w337.z) + (v1));
					const float v365 = ((v364) - (v37));
					const float v366 = ((v365) * (v43));
					const float v367 = p_ln_w[(krl_mod((rb + (r + 2)), a1) * a8)];
					const float v368 = ((v366) * (v367));
					const float v369 = p_ln_b[(krl_mod((rb + (r + 2)), a1) * a8)];
					const float v370 = ((v368) + (v369));
					const float v371 = ((v34) * (v370));
					const float v372 = ((v370) * (v51));
					const float v373 = erff(v372);
					const float v374 = ((v50) + (v373));
					const float v375 = ((v371) * (v374));
					const float v376 = ((v375) * (v56));
					const float v377 = ((w337.w) + (v1));
					const float v378 = ((v377) - (v37));
					const float v379 = ((v378) * (v43));
					const float v380 = p_ln_w[(krl_mod((rb + (r + 3)), a1) * a8)];
					const float v381 = ((v379) * (v380));
					const float v382 = p_ln_b[(krl_mod((rb + (r + 3)), a1) * a8)];
					const float v383 = ((v381) + (v382));
					const float v384 = ((v34) * (v383));
					const float v385 = ((v383) * (v51));
					const float v386 = erff(v385);
					const float v387 = ((v50) + (v386));
					const float v388 = ((v384) * (v387));
					const float v389 = ((v388) * (v56));
					*reinterpret_cast<float4 *>(p_y + (rb + r)) = make_float4(v350, v363, v376, v389);
				}
			}
		} else {
			{
				long r = lid;
				for (; r < a1; r += lpr) {
					const float v390 = p_t6[(rb + r)];
					const float v391 = ((v390) + (v1));
					const float v392 = ((v391) - (v37));
					const float v393 = ((v392) * (v43));
					const float v394 = p_ln_w[(krl_mod((rb + r), a1) * a8)];
					const float v395 = ((v393) * (v394));
					const float v396 = p_ln_b[(krl_mod((rb + r), a1) * a8)];
					const float v397 = ((v395) + (v396));
					const float v398 = ((v34) * (v397));
					const float v399 = ((v397) * (v51));
					const float v400 = erff(v399);
					const float v401 = ((v50) + (v400));
					const float v402 = ((v398) * (v401));
					const float v403 = ((v402) * (v56));
					p_y[(rb + r)] = v403;
				}
			}
		}
	}
}

/*@plan
derived k0_wt f32 [(in_channels), (out_channels), (kernel_size), (kernel_size), (kernel_size)]
buffer t6 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
init
  # k0: the weight of node 6 in cuDNN's channels-last filter format
  launch krl_wkrsc grid=(cdiv(numel(w), 256)) block=(256) args(w, k0_wt, in_channels, out_channels, (kernel_size) * (kernel_size) * (kernel_size))
end
# k0: library call (node 6), its weight kept channels-last
call conv_transpose(x, k0_wt) -> t6 stride=stride padding=padding w_layout=krsc layout=nhwc
launch k1_row grid=(min(cdiv((batch_size) * (out_channels) * (od) * (oh), 8), sm_count * 32)) block=(256) args((batch_size) * (out_channels) * (od) * (oh),
    (ow),
    t6,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    (1.0 / (ow)),
    (eps),
    (min((out_channels), 2) - 1) * 1,
    ln_w,
    ln_b,
    (sqrt(0.5)),
    (scaling_factor),
    y)
@*/
