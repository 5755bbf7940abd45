/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=2 map.grid=cdiv row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nchw map.cl=tile math=precise
 * Task level2/60_convtranspose3d_swish_groupnorm_hardswish, generated at shape set kb1; it serves every shape set.
 * fused 20 ops into 3 kernels: 1 map (block 256, vec 4, ept 2, cdiv), 1 row (block 256, regs), 1 library
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
 * k1 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 9 sigmoid, 10 mul, 11 view, 12 sum, 14 mul, 15 sub, 16 square, 17 sum, 19 mul, 21 add, 22 rsqrt.
 * Writes: t14 t22.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	long a4,
	const float *__restrict__ p_b,
	double c6,
	float *__restrict__ p_t14,
	double c8,
	float *__restrict__ p_t22)
{
	const float v76 = (float)c6;
	const float v82 = (float)c6;
	const float v84 = (float)c8;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a3 >= 4 && a1 % 4 == 0;
	const bool peel = a3 >= 4;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		const float v0 = p_t6[(rb + 0)];
		const float v1 = p_b[(krl_mod(krl_div((rb + 0), a3), a4))];
		const float v2 = ((v0) + (v1));
		const float v3 = (1.f / (1.f + expf(-(v2))));
		const float v4 = ((v3) * (v2));
		/* pass 1 */
		double acc5 = 0.0;
		double acc6 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w7 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v8 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v9 = ((w7.x) + (v8));
				const float v10 = (1.f / (1.f + expf(-(v9))));
				const float v11 = ((v10) * (v9));
				const float v12 = p_b[(krl_mod((rb + r), a3) + 1 >= a3 ? (krl_mod((krl_div((rb + r), a3) + 1), a4)) : (krl_mod(krl_div((rb + r), a3), a4)))];
				const float v13 = ((w7.y) + (v12));
				const float v14 = (1.f / (1.f + expf(-(v13))));
				const float v15 = ((v14) * (v13));
				const float v16 = p_b[(krl_mod((rb + r), a3) + 2 >= a3 ? (krl_mod((krl_div((rb + r), a3) + 1), a4)) : (krl_mod(krl_div((rb + r), a3), a4)))];
				const float v17 = ((w7.z) + (v16));
				const float v18 = (1.f / (1.f + expf(-(v17))));
				const float v19 = ((v18) * (v17));
				const float v20 = p_b[(krl_mod((rb + r), a3) + 3 >= a3 ? (krl_mod((krl_div((rb + r), a3) + 1), a4)) : (krl_mod(krl_div((rb + r), a3), a4)))];
				const float v21 = ((w7.w) + (v20));
				const float v22 = (1.f / (1.f + expf(-(v21))));
				const float v23 = ((v22) * (v21));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v11 - v4;
					const float d1 = v15 - v4;
					const float d2 = v19 - v4;
					const float d3 = v23 - v4;
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
					const float v24 = p_t6[(rb + r)];
					const float v25 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v26 = ((v24) + (v25));
					const float v27 = (1.f / (1.f + expf(-(v26))));
					const float v28 = ((v27) * (v26));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v28 - v4;
						acc5 += (double)d0;
						acc6 += (double)(d0 * d0);
					}
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v29 = p_t6[(rb + r)];
					const float v30 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v31 = ((v29) + (v30));
					const float v32 = (1.f / (1.f + expf(-(v31))));
					const float v33 = ((v32) * (v31));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v33 - v4;
						acc5 += (double)d0;
						acc6 += (double)(d0 * d0);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w34 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v35 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v36 = ((w34.x) + (v35));
					const float v37 = (1.f / (1.f + expf(-(v36))));
					const float v38 = ((v37) * (v36));
					const float v39 = p_b[(krl_mod((rb + r), a3) + 1 >= a3 ? (krl_mod((krl_div((rb + r), a3) + 1), a4)) : (krl_mod(krl_div((rb + r), a3), a4)))];
					const float v40 = ((w34.y) + (v39));
					const float v41 = (1.f / (1.f + expf(-(v40))));
					const float v42 = ((v41) * (v40));
					const float v43 = p_b[(krl_mod((rb + r), a3) + 2 >= a3 ? (krl_mod((krl_div((rb + r), a3) + 1), a4)) : (krl_mod(krl_div((rb + r), a3), a4)))];
					const float v44 = ((w34.z) + (v43));
					const float v45 = (1.f / (1.f + expf(-(v44))));
					const float v46 = ((v45) * (v44));
					const float v47 = p_b[(krl_mod((rb + r), a3) + 3 >= a3 ? (krl_mod((krl_div((rb + r), a3) + 1), a4)) : (krl_mod(krl_div((rb + r), a3), a4)))];
					const float v48 = ((w34.w) + (v47));
					const float v49 = (1.f / (1.f + expf(-(v48))));
					const float v50 = ((v49) * (v48));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v38 - v4;
						const float d1 = v42 - v4;
						const float d2 = v46 - v4;
						const float d3 = v50 - v4;
						acc5 += (double)((d0 + d1) + (d2 + d3));
						acc6 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 3 * 256 < a1; r += 4 * 256) {
					const float v51 = p_t6[(rb + r)];
					const float v52 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v53 = ((v51) + (v52));
					const float v54 = (1.f / (1.f + expf(-(v53))));
					const float v55 = ((v54) * (v53));
					const float v56 = p_t6[(rb + (r + 1 * 256))];
					const float v57 = p_b[(krl_mod(krl_div((rb + (r + 1 * 256)), a3), a4))];
					const float v58 = ((v56) + (v57));
					const float v59 = (1.f / (1.f + expf(-(v58))));
					const float v60 = ((v59) * (v58));
					const float v61 = p_t6[(rb + (r + 2 * 256))];
					const float v62 = p_b[(krl_mod(krl_div((rb + (r + 2 * 256)), a3), a4))];
					const float v63 = ((v61) + (v62));
					const float v64 = (1.f / (1.f + expf(-(v63))));
					const float v65 = ((v64) * (v63));
					const float v66 = p_t6[(rb + (r + 3 * 256))];
					const float v67 = p_b[(krl_mod(krl_div((rb + (r + 3 * 256)), a3), a4))];
					const float v68 = ((v66) + (v67));
					const float v69 = (1.f / (1.f + expf(-(v68))));
					const float v70 = ((v69) * (v68));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v55 - v4;
						const float d1 = v60 - v4;
						const float d2 = v65 - v4;
						const float d3 = v70 - v4;
						acc5 += (double)((d0 + d1) + (d2 + d3));
						acc6 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
				for (; r < a1; r += 256) {
					const float v71 = p_t6[(rb + r)];
					const float v72 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v73 = ((v71) + (v72));
					const float v74 = (1.f / (1.f + expf(-(v73))));
					const float v75 = ((v74) * (v73));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v75 - v4;
						acc5 += (double)d0;
						acc6 += (double)(d0 * d0);
					}
				}
			}
		}
		acc5 = krl_block_sum(acc5);
		acc6 = krl_block_sum(acc6);
		const float r77 = (float)(acc5 + (double)a1 * (double)v4);
		const float m79 = r77 * v76;
		const double dm80 = (double)m79 - (double)v4;
		const float r78 = (float)fmax(acc6 - 2.0 * dm80 * acc5 + (double)a1 * dm80 * dm80, 0.0);
		/* the outputs of the row shape */
		const float v81 = ((r77) * (v76));
		const float v83 = ((r78) * (v82));
		const float v85 = ((v83) + (v84));
		const float v86 = rsqrtf(v85);
		if (lid == 0) {
			p_t14[o] = v81;
			p_t22[o] = v86;
		}
	}
}

/*
 * k2 (map: 256 threads, 4-wide vectors, 2 per thread, cdiv grid): nodes 7 view, 8 add, 9 sigmoid, 10 mul, 11 view, 15 sub, 23 mul, 24 view, 25 view, 26 view, 27 mul, 28 add, 32 add, 33 max, 34 min, 35 mul, 36 div.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_map(long a0,
	const float *__restrict__ p_t6,
	long a2,
	long a3,
	const float *__restrict__ p_b,
	long a5,
	const float *__restrict__ p_t14,
	const float *__restrict__ p_t22,
	const float *__restrict__ p_gn_w,
	const float *__restrict__ p_gn_b,
	float *__restrict__ p_y)
{
	const float v100 = 3.000000000e+00f;
	const float v102 = 0.000000000e+00f;
	const float v104 = 6.000000000e+00f;
	const int tid = threadIdx.x;
	const long nv = (a2 >= 4 && a5 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 512; base < nv;
	     base += (long)gridDim.x * 512) {
		#pragma unroll
		for (int e = 0; e < 2; e++) {
			const long s = base + e * 256 + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w87 = *reinterpret_cast<const float4 *>(p_t6 + i);
				const float v88 = p_b[(krl_mod(krl_div(i, a2), a3))];
				const float v89 = ((w87.x) + (v88));
				const float v90 = (1.f / (1.f + expf(-(v89))));
				const float v91 = ((v90) * (v89));
				const float v92 = p_t14[(krl_div(i, a5))];
				const float v93 = ((v91) - (v92));
				const float v94 = p_t22[(krl_div(i, a5))];
				const float v95 = ((v93) * (v94));
				const float v96 = p_gn_w[(krl_mod(krl_div(i, a2), a3))];
				const float v97 = ((v95) * (v96));
				const float v98 = p_gn_b[(krl_mod(krl_div(i, a2), a3))];
				const float v99 = ((v97) + (v98));
				const float v101 = ((v99) + (v100));
				const float v103 = krl_maxf(v101, v102);
				const float v105 = krl_minf(v103, v104);
				const float v106 = ((v99) * (v105));
				const float v107 = ((v106) / (v104));
				const float v108 = p_b[(krl_mod(i, a2) + 1 >= a2 ? (krl_mod((krl_div(i, a2) + 1), a3)) : (krl_mod(krl_div(i, a2), a3)))];
				const float v109 = ((w87.y) + (v108));
				const float v110 = (1.f / (1.f + expf(-(v109))));
				const float v111 = ((v110) * (v109));
				const float v112 = ((v111) - (v92));
				const float v113 = ((v112) * (v94));
				const float v114 = p_gn_w[(krl_mod(i, a2) + 1 >= a2 ? (krl_mod((krl_div(i, a2) + 1), a3)) : (krl_mod(krl_div(i, a2), a3)))];
				const float v115 = ((v113) * (v114));
				const float v116 = p_gn_b[(krl_mod(i, a2) + 1 >= a2 ? (krl_mod((krl_div(i, a2) + 1), a3)) : (krl_mod(krl_div(i, a2), a3)))];
				const float v117 = ((v115) + (v116));
				const float v118 = ((v117) + (v100));
				const float v119 = krl_maxf(v118, v102);
				const float v120 = krl_minf(v119, v104);
				const float v121 = ((v117) * (v120));
				const float v122 = ((v121) / (v104));
				const float v123 = p_b[(krl_mod(i, a2) + 2 >= a2 ? (krl_mod((krl_div(i, a2) + 1), a3)) : (krl_mod(krl_div(i, a2), a3)))];
				const float v124 = ((w87.z) + (v123));
				const float v125 = (1.f / (1.f + expf(-(v124))));
				const float v126 = ((v125) * (v124));
				const float v127 = ((v126) - (v92));
				const float v128 = ((v127) * (v94));
				const float v129 = p_gn_w[(krl_mod(i, a2) + 2 >= a2 ? (krl_mod((krl_div(i, a2) + 1), a3)) : (krl_mod(krl_div(i, a2), a3)))];
				const float v130 = ((v128) * (v129));
				const float v131 = p_gn_b[(krl_mod(i, a2) + 2 >= a2 ? (krl_mod((krl_div(i, a2) + 1), a3)) : (krl_mod(krl_div(i, a2), a3)))];
				const float v132 = ((v130) + (v131));
				const float v133 = ((v132) + (v100));
				const float v134 = krl_maxf(v133, v102);
				const float v135 = krl_minf(v134, v104);
				const float v136 = ((v132) * (v135));
				const float v137 = ((v136) / (v104));
				const float v138 = p_b[(krl_mod(i, a2) + 3 >= a2 ? (krl_mod((krl_div(i, a2) + 1), a3)) : (krl_mod(krl_div(i, a2), a3)))];
				const float v139 = ((w87.w) + (v138));
				const float v140 = (1.f / (1.f + expf(-(v139))));
				const float v141 = ((v140) * (v139));
				const float v142 = ((v141) - (v92));
				const float v143 = ((v142) * (v94));
				const float v144 = p_gn_w[(krl_mod(i, a2) + 3 >= a2 ? (krl_mod((krl_div(i, a2) + 1), a3)) : (krl_mod(krl_div(i, a2), a3)))];
				const float v145 = ((v143) * (v144));
				const float v146 = p_gn_b[(krl_mod(i, a2) + 3 >= a2 ? (krl_mod((krl_div(i, a2) + 1), a3)) : (krl_mod(krl_div(i, a2), a3)))];
				const float v147 = ((v145) + (v146));
				const float v148 = ((v147) + (v100));
				const float v149 = krl_maxf(v148, v102);
				const float v150 = krl_minf(v149, v104);
				const float v151 = ((v147) * (v150));
				const float v152 = ((v151) / (v104));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v107, v122, v137, v152);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v153 = p_t6[i];
		const float v154 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v155 = ((v153) + (v154));
		const float v156 = (1.f / (1.f + expf(-(v155))));
		const float v157 = ((v156) * (v155));
		const float v158 = p_t14[(krl_div(i, a5))];
		const float v159 = ((v157) - (v158));
		const float v160 = p_t22[(krl_div(i, a5))];
		const float v161 = ((v159) * (v160));
		const float v162 = p_gn_w[(krl_mod(krl_div(i, a2), a3))];
		const float v163 = ((v161) * (v162));
		const float v164 = p_gn_b[(krl_mod(krl_div(i, a2), a3))];
		const float v165 = ((v163) + (v164));
		const float v166 = ((v165) + (v100));
		const float v167 = krl_maxf(v166, v102);
		const float v168 = krl_minf(v167, v104);
		const float v169 = ((v165) * (v168));
		const float v170 = ((v169) / (v104));
		p_y[i] = v170;
	}
}

/*@plan
buffer t6 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t14 f32 [(batch_size), (groups), (1)]
buffer t22 f32 [(batch_size), (groups), (1)]
# k0: library call (node 6)
call conv_transpose(x, w) -> t6 stride=stride padding=padding
launch k1_row grid=(min((batch_size) * (groups), sm_count * 32)) block=(256) args((batch_size) * (groups),
    ((out_channels / groups) * ((od * oh) * ow)),
    t6,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    (1.0 / ((out_channels / groups) * ((od * oh) * ow))),
    t14,
    (eps),
    t22)
launch k2_map grid=(cdiv((batch_size) * (out_channels) * (od) * (oh) * (ow), 2048)) block=(256) args((batch_size) * (out_channels) * (od) * (oh) * (ow),
    t6,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    ((out_channels / groups) * ((od * oh) * ow)),
    t14,
    t22,
    gn_w,
    gn_b,
    y)
@*/
