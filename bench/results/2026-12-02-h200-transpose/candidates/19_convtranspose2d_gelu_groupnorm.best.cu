/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.strategy=auto row.block=512 row.cache=regs fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8 lib.tconv=dgrad
 * Task level2/19_convtranspose2d_gelu_groupnorm, generated at shape set kb1; it serves every shape set.
 * fused 18 ops into 3 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 1 row (block 512, regs), 1 library
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
 * k1 (row: a block per row, 512 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 12 div, 13 erf, 14 add, 15 mul, 16 mul, 17 view, 18 sum, 20 mul, 21 sub, 22 square, 23 sum, 25 mul, 27 add, 28 rsqrt.
 * Writes: t20 t28.
 */
extern "C" __global__ void __launch_bounds__(512)
k1_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	long a4,
	const float *__restrict__ p_b,
	double c6,
	double c7,
	float *__restrict__ p_t20,
	double c9,
	float *__restrict__ p_t28)
{
	const float v0 = 5.000000000e-01f;
	const float v5 = 1.000000000e+00f;
	const float v6 = (float)c6;
	const float v127 = (float)c7;
	const float v133 = (float)c7;
	const float v135 = (float)c9;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		const float v1 = p_t6[(rb + 0)];
		const float v2 = p_b[(krl_mod(krl_div((rb + 0), a3), a4))];
		const float v3 = ((v1) + (v2));
		const float v4 = ((v0) * (v3));
		const float v7 = ((v3) / (v6));
		const float v8 = erff(v7);
		const float v9 = ((v5) + (v8));
		const float v10 = ((v4) * (v9));
		/* pass 1 */
		double acc11 = 0.0;
		double acc12 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)512 * 4) {
				const float4 w13 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v14 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v15 = ((w13.x) + (v14));
				const float v16 = ((v0) * (v15));
				const float v17 = ((v15) / (v6));
				const float v18 = erff(v17);
				const float v19 = ((v5) + (v18));
				const float v20 = ((v16) * (v19));
				const float v21 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
				const float v22 = ((w13.y) + (v21));
				const float v23 = ((v0) * (v22));
				const float v24 = ((v22) / (v6));
				const float v25 = erff(v24);
				const float v26 = ((v5) + (v25));
				const float v27 = ((v23) * (v26));
				const float v28 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
				const float v29 = ((w13.z) + (v28));
				const float v30 = ((v0) * (v29));
				const float v31 = ((v29) / (v6));
				const float v32 = erff(v31);
				const float v33 = ((v5) + (v32));
				const float v34 = ((v30) * (v33));
				const float v35 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
				const float v36 = ((w13.w) + (v35));
				const float v37 = ((v0) * (v36));
				const float v38 = ((v36) / (v6));
				const float v39 = erff(v38);
				const float v40 = ((v5) + (v39));
				const float v41 = ((v37) * (v40));
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
					const float v45 = ((v0) * (v44));
					const float v46 = ((v44) / (v6));
					const float v47 = erff(v46);
					const float v48 = ((v5) + (v47));
					const float v49 = ((v45) * (v48));
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
					const float v53 = ((v0) * (v52));
					const float v54 = ((v52) / (v6));
					const float v55 = erff(v54);
					const float v56 = ((v5) + (v55));
					const float v57 = ((v53) * (v56));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v57 - v10;
						acc11 += (double)d0;
						acc12 += (double)(d0 * d0);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)512 * 4) {
					const float4 w58 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v59 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v60 = ((w58.x) + (v59));
					const float v61 = ((v0) * (v60));
					const float v62 = ((v60) / (v6));
					const float v63 = erff(v62);
					const float v64 = ((v5) + (v63));
					const float v65 = ((v61) * (v64));
					const float v66 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
					const float v67 = ((w58.y) + (v66));
					const float v68 = ((v0) * (v67));
					const float v69 = ((v67) / (v6));
					const float v70 = erff(v69);
					const float v71 = ((v5) + (v70));
					const float v72 = ((v68) * (v71));
					const float v73 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
					const float v74 = ((w58.z) + (v73));
					const float v75 = ((v0) * (v74));
					const float v76 = ((v74) / (v6));
					const float v77 = erff(v76);
					const float v78 = ((v5) + (v77));
					const float v79 = ((v75) * (v78));
					const float v80 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
					const float v81 = ((w58.w) + (v80));
					const float v82 = ((v0) * (v81));
					const float v83 = ((v81) / (v6));
					const float v84 = erff(v83);
					const float v85 = ((v5) + (v84));
					const float v86 = ((v82) * (v85));
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
				for (; r + 1536 < a1; r += 2048) {
					const float v87 = p_t6[(rb + r)];
					const float v88 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v89 = ((v87) + (v88));
					const float v90 = ((v0) * (v89));
					const float v91 = ((v89) / (v6));
					const float v92 = erff(v91);
					const float v93 = ((v5) + (v92));
					const float v94 = ((v90) * (v93));
					const float v95 = p_t6[(rb + (r + 512))];
					const float v96 = p_b[(krl_mod(krl_div((rb + (r + 512)), a3), a4))];
					const float v97 = ((v95) + (v96));
					const float v98 = ((v0) * (v97));
					const float v99 = ((v97) / (v6));
					const float v100 = erff(v99);
					const float v101 = ((v5) + (v100));
					const float v102 = ((v98) * (v101));
					const float v103 = p_t6[(rb + (r + 1024))];
					const float v104 = p_b[(krl_mod(krl_div((rb + (r + 1024)), a3), a4))];
					const float v105 = ((v103) + (v104));
					const float v106 = ((v0) * (v105));
					const float v107 = ((v105) / (v6));
					const float v108 = erff(v107);
					const float v109 = ((v5) + (v108));
					const float v110 = ((v106) * (v109));
					const float v111 = p_t6[(rb + (r + 1536))];
					const float v112 = p_b[(krl_mod(krl_div((rb + (r + 1536)), a3), a4))];
					const float v113 = ((v111) + (v112));
					const float v114 = ((v0) * (v113));
					const float v115 = ((v113) / (v6));
					const float v116 = erff(v115);
					const float v117 = ((v5) + (v116));
					const float v118 = ((v114) * (v117));
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
				for (; r < a1; r += 512) {
					const float v119 = p_t6[(rb + r)];
					const float v120 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v121 = ((v119) + (v120));
					const float v122 = ((v0) * (v121));
					const float v123 = ((v121) / (v6));
					const float v124 = erff(v123);
					const float v125 = ((v5) + (v124));
					const float v126 = ((v122) * (v125));
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
 * k2 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 7 view, 8 add, 12 div, 13 erf, 14 add, 15 mul, 16 mul, 17 view, 21 sub, 29 mul, 30 view, 31 view, 32 view, 33 mul, 34 add.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_map(long a0,
	const float *__restrict__ p_t6,
	long a2,
	long a3,
	const float *__restrict__ p_b,
	double c5,
	long a6,
	const float *__restrict__ p_t20,
	const float *__restrict__ p_t28,
	const float *__restrict__ p_gn_w,
	const float *__restrict__ p_gn_b,
	float *__restrict__ p_y)
{
	const float v138 = 5.000000000e-01f;
	const float v143 = 1.000000000e+00f;
	const float v144 = (float)c5;
	const int tid = threadIdx.x;
	const long nv = (a6 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w139 = *reinterpret_cast<const float4 *>(p_t6 + i);
				const float v140 = p_b[(krl_mod(krl_div(i, a2), a3))];
				const float v141 = ((w139.x) + (v140));
				const float v142 = ((v138) * (v141));
				const float v145 = ((v141) / (v144));
				const float v146 = erff(v145);
				const float v147 = ((v143) + (v146));
				const float v148 = ((v142) * (v147));
				const float v149 = p_t20[(krl_div(i, a6))];
				const float v150 = ((v148) - (v149));
				const float v151 = p_t28[(krl_div(i, a6))];
				const float v152 = ((v150) * (v151));
				const float v153 = p_gn_w[(krl_mod(krl_div(i, a2), a3))];
				const float v154 = ((v152) * (v153));
				const float v155 = p_gn_b[(krl_mod(krl_div(i, a2), a3))];
				const float v156 = ((v154) + (v155));
				const float v157 = p_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v158 = ((w139.y) + (v157));
				const float v159 = ((v138) * (v158));
				const float v160 = ((v158) / (v144));
				const float v161 = erff(v160);
				const float v162 = ((v143) + (v161));
				const float v163 = ((v159) * (v162));
				const float v164 = ((v163) - (v149));
				const float v165 = ((v164) * (v151));
				const float v166 = p_gn_w[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v167 = ((v165) * (v166));
				const float v168 = p_gn_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v169 = ((v167) + (v168));
				const float v170 = p_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v171 = ((w139.z) + (v170));
				const float v172 = ((v138) * (v171));
				const float v173 = ((v171) / (v144));
				const float v174 = erff(v173);
				const float v175 = ((v143) + (v174));
				const float v176 = ((v172) * (v175));
				const float v177 = ((v176) - (v149));
				const float v178 = ((v177) * (v151));
				const float v179 = p_gn_w[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v180 = ((v178) * (v179));
				const float v181 = p_gn_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v182 = ((v180) + (v181));
				const float v183 = p_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v184 = ((w139.w) + (v183));
				const float v185 = ((v138) * (v184));
				const float v186 = ((v184) / (v144));
				const float v187 = erff(v186);
				const float v188 = ((v143) + (v187));
				const float v189 = ((v185) * (v188));
				const float v190 = ((v189) - (v149));
				const float v191 = ((v190) * (v151));
				const float v192 = p_gn_w[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v193 = ((v191) * (v192));
				const float v194 = p_gn_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v195 = ((v193) + (v194));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v156, v169, v182, v195);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v196 = p_t6[i];
		const float v197 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v198 = ((v196) + (v197));
		const float v199 = ((v138) * (v198));
		const float v200 = ((v198) / (v144));
		const float v201 = erff(v200);
		const float v202 = ((v143) + (v201));
		const float v203 = ((v199) * (v202));
		const float v204 = p_t20[(krl_div(i, a6))];
		const float v205 = ((v203) - (v204));
		const float v206 = p_t28[(krl_div(i, a6))];
		const float v207 = ((v205) * (v206));
		const float v208 = p_gn_w[(krl_mod(krl_div(i, a2), a3))];
		const float v209 = ((v207) * (v208));
		const float v210 = p_gn_b[(krl_mod(krl_div(i, a2), a3))];
		const float v211 = ((v209) + (v210));
		p_y[i] = v211;
	}
}

/*@plan
buffer t6 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t20 f32 [(batch_size), (num_groups), (1)]
buffer t28 f32 [(batch_size), (num_groups), (1)]
# k0: library call (node 6)
call conv_transpose(x, w) -> t6 stride=stride
launch k1_row grid=(min((batch_size) * (num_groups), sm_count * 32)) block=(512) args((batch_size) * (num_groups),
    ((out_channels / num_groups) * (oh * ow)),
    t6,
    (oh) * (ow),
    (out_channels),
    b,
    (sqrt(2.0)),
    (1.0 / ((out_channels / num_groups) * (oh * ow))),
    t20,
    (eps),
    t28)
launch k2_map grid=(cdiv((batch_size) * (out_channels) * (oh) * (ow), 1024)) block=(256) args((batch_size) * (out_channels) * (oh) * (ow),
    t6,
    (oh) * (ow),
    (out_channels),
    b,
    (sqrt(2.0)),
    ((out_channels / num_groups) * (oh * ow)),
    t20,
    t28,
    gn_w,
    gn_b,
    y)
@*/
