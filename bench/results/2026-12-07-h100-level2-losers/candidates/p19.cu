/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nchw map.cl=tile lib.tconv=fwd
 * Task level2/19_convtranspose2d_gelu_groupnorm, generated at shape set kb1; it serves every shape set.
 * fused 18 ops into 3 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 1 row (block 256, regs), 1 library (1 transposed conv as forward)
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
 * k1 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 12 mul, 13 erf, 14 add, 15 mul, 16 mul, 17 view, 18 sum, 20 mul, 21 sub, 22 square, 23 sum, 25 mul, 27 add, 28 rsqrt.
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
	double c7,
	float *__restrict__ p_t20,
	double c9,
	float *__restrict__ p_t28)
{
	const float v0 = 5.000000000e-01f;
	const float v5 = 1.000000000e+00f;
	const float v6 = (float)c6;
	const float v121 = (float)c7;
	const float v127 = (float)c7;
	const float v129 = (float)c9;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a3 % 4 == 0 && a1 % 4 == 0;
	const bool peel = a3 % 4 == 0;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		const float v1 = p_t6[(rb + 0)];
		const float v2 = p_b[(krl_mod(krl_div((rb + 0), a3), a4))];
		const float v3 = ((v1) + (v2));
		const float v4 = ((v0) * (v3));
		const float v7 = ((v3) * (v6));
		const float v8 = erff(v7);
		const float v9 = ((v5) + (v8));
		const float v10 = ((v4) * (v9));
		/* pass 1 */
		double acc11 = 0.0;
		double acc12 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w13 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v14 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v15 = ((w13.x) + (v14));
				const float v16 = ((v0) * (v15));
				const float v17 = ((v15) * (v6));
				const float v18 = erff(v17);
				const float v19 = ((v5) + (v18));
				const float v20 = ((v16) * (v19));
				const float v21 = ((w13.y) + (v14));
				const float v22 = ((v0) * (v21));
				const float v23 = ((v21) * (v6));
				const float v24 = erff(v23);
				const float v25 = ((v5) + (v24));
				const float v26 = ((v22) * (v25));
				const float v27 = ((w13.z) + (v14));
				const float v28 = ((v0) * (v27));
				const float v29 = ((v27) * (v6));
				const float v30 = erff(v29);
				const float v31 = ((v5) + (v30));
				const float v32 = ((v28) * (v31));
				const float v33 = ((w13.w) + (v14));
				const float v34 = ((v0) * (v33));
				const float v35 = ((v33) * (v6));
				const float v36 = erff(v35);
				const float v37 = ((v5) + (v36));
				const float v38 = ((v34) * (v37));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v20 - v10;
					const float d1 = v26 - v10;
					const float d2 = v32 - v10;
					const float d3 = v38 - v10;
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
					const float v39 = p_t6[(rb + r)];
					const float v40 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v41 = ((v39) + (v40));
					const float v42 = ((v0) * (v41));
					const float v43 = ((v41) * (v6));
					const float v44 = erff(v43);
					const float v45 = ((v5) + (v44));
					const float v46 = ((v42) * (v45));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v46 - v10;
						acc11 += (double)d0;
						acc12 += (double)(d0 * d0);
					}
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v47 = p_t6[(rb + r)];
					const float v48 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v49 = ((v47) + (v48));
					const float v50 = ((v0) * (v49));
					const float v51 = ((v49) * (v6));
					const float v52 = erff(v51);
					const float v53 = ((v5) + (v52));
					const float v54 = ((v50) * (v53));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v54 - v10;
						acc11 += (double)d0;
						acc12 += (double)(d0 * d0);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w55 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v56 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v57 = ((w55.x) + (v56));
					const float v58 = ((v0) * (v57));
					const float v59 = ((v57) * (v6));
					const float v60 = erff(v59);
					const float v61 = ((v5) + (v60));
					const float v62 = ((v58) * (v61));
					const float v63 = ((w55.y) + (v56));
					const float v64 = ((v0) * (v63));
					const float v65 = ((v63) * (v6));
					const float v66 = erff(v65);
					const float v67 = ((v5) + (v66));
					const float v68 = ((v64) * (v67));
					const float v69 = ((w55.z) + (v56));
					const float v70 = ((v0) * (v69));
					const float v71 = ((v69) * (v6));
					const float v72 = erff(v71);
					const float v73 = ((v5) + (v72));
					const float v74 = ((v70) * (v73));
					const float v75 = ((w55.w) + (v56));
					const float v76 = ((v0) * (v75));
					const float v77 = ((v75) * (v6));
					const float v78 = erff(v77);
					const float v79 = ((v5) + (v78));
					const float v80 = ((v76) * (v79));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v62 - v10;
						const float d1 = v68 - v10;
						const float d2 = v74 - v10;
						const float d3 = v80 - v10;
						acc11 += (double)((d0 + d1) + (d2 + d3));
						acc12 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 3 * 256 < a1; r += 4 * 256) {
					const float v81 = p_t6[(rb + r)];
					const float v82 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v83 = ((v81) + (v82));
					const float v84 = ((v0) * (v83));
					const float v85 = ((v83) * (v6));
					const float v86 = erff(v85);
					const float v87 = ((v5) + (v86));
					const float v88 = ((v84) * (v87));
					const float v89 = p_t6[(rb + (r + 1 * 256))];
					const float v90 = p_b[(krl_mod(krl_div((rb + (r + 1 * 256)), a3), a4))];
					const float v91 = ((v89) + (v90));
					const float v92 = ((v0) * (v91));
					const float v93 = ((v91) * (v6));
					const float v94 = erff(v93);
					const float v95 = ((v5) + (v94));
					const float v96 = ((v92) * (v95));
					const float v97 = p_t6[(rb + (r + 2 * 256))];
					const float v98 = p_b[(krl_mod(krl_div((rb + (r + 2 * 256)), a3), a4))];
					const float v99 = ((v97) + (v98));
					const float v100 = ((v0) * (v99));
					const float v101 = ((v99) * (v6));
					const float v102 = erff(v101);
					const float v103 = ((v5) + (v102));
					const float v104 = ((v100) * (v103));
					const float v105 = p_t6[(rb + (r + 3 * 256))];
					const float v106 = p_b[(krl_mod(krl_div((rb + (r + 3 * 256)), a3), a4))];
					const float v107 = ((v105) + (v106));
					const float v108 = ((v0) * (v107));
					const float v109 = ((v107) * (v6));
					const float v110 = erff(v109);
					const float v111 = ((v5) + (v110));
					const float v112 = ((v108) * (v111));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v88 - v10;
						const float d1 = v96 - v10;
						const float d2 = v104 - v10;
						const float d3 = v112 - v10;
						acc11 += (double)((d0 + d1) + (d2 + d3));
						acc12 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
				for (; r < a1; r += 256) {
					const float v113 = p_t6[(rb + r)];
					const float v114 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v115 = ((v113) + (v114));
					const float v116 = ((v0) * (v115));
					const float v117 = ((v115) * (v6));
					const float v118 = erff(v117);
					const float v119 = ((v5) + (v118));
					const float v120 = ((v116) * (v119));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v120 - v10;
						acc11 += (double)d0;
						acc12 += (double)(d0 * d0);
					}
				}
			}
		}
		acc11 = krl_block_sum(acc11);
		acc12 = krl_block_sum(acc12);
		const float r122 = (float)(acc11 + (double)a1 * (double)v10);
		const float m124 = r122 * v121;
		const double dm125 = (double)m124 - (double)v10;
		const float r123 = (float)fmax(acc12 - 2.0 * dm125 * acc11 + (double)a1 * dm125 * dm125, 0.0);
		/* the outputs of the row shape */
		const float v126 = ((r122) * (v121));
		const float v128 = ((r123) * (v127));
		const float v130 = ((v128) + (v129));
		const float v131 = rsqrtf(v130);
		if (lid == 0) {
			p_t20[o] = v126;
			p_t28[o] = v131;
		}
	}
}

/*
 * k2 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 7 view, 8 add, 12 mul, 13 erf, 14 add, 15 mul, 16 mul, 17 view, 21 sub, 29 mul, 30 view, 31 view, 32 view, 33 mul, 34 add.
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
	const float v132 = 5.000000000e-01f;
	const float v137 = 1.000000000e+00f;
	const float v138 = (float)c5;
	const int tid = threadIdx.x;
	const long nv = (a2 % 4 == 0 && a6 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w133 = *reinterpret_cast<const float4 *>(p_t6 + i);
				const float v134 = p_b[(krl_mod(krl_div(i, a2), a3))];
				const float v135 = ((w133.x) + (v134));
				const float v136 = ((v132) * (v135));
				const float v139 = ((v135) * (v138));
				const float v140 = erff(v139);
				const float v141 = ((v137) + (v140));
				const float v142 = ((v136) * (v141));
				const float v143 = p_t20[(krl_div(i, a6))];
				const float v144 = ((v142) - (v143));
				const float v145 = p_t28[(krl_div(i, a6))];
				const float v146 = ((v144) * (v145));
				const float v147 = p_gn_w[(krl_mod(krl_div(i, a2), a3))];
				const float v148 = ((v146) * (v147));
				const float v149 = p_gn_b[(krl_mod(krl_div(i, a2), a3))];
				const float v150 = ((v148) + (v149));
				const float v151 = ((w133.y) + (v134));
				const float v152 = ((v132) * (v151));
				const float v153 = ((v151) * (v138));
				const float v154 = erff(v153);
				const float v155 = ((v137) + (v154));
				const float v156 = ((v152) * (v155));
				const float v157 = ((v156) - (v143));
				const float v158 = ((v157) * (v145));
				const float v159 = ((v158) * (v147));
				const float v160 = ((v159) + (v149));
				const float v161 = ((w133.z) + (v134));
				const float v162 = ((v132) * (v161));
				const float v163 = ((v161) * (v138));
				const float v164 = erff(v163);
				const float v165 = ((v137) + (v164));
				const float v166 = ((v162) * (v165));
				const float v167 = ((v166) - (v143));
				const float v168 = ((v167) * (v145));
				const float v169 = ((v168) * (v147));
				const float v170 = ((v169) + (v149));
				const float v171 = ((w133.w) + (v134));
				const float v172 = ((v132) * (v171));
				const float v173 = ((v171) * (v138));
				const float v174 = erff(v173);
				const float v175 = ((v137) + (v174));
				const float v176 = ((v172) * (v175));
				const float v177 = ((v176) - (v143));
				const float v178 = ((v177) * (v145));
				const float v179 = ((v178) * (v147));
				const float v180 = ((v179) + (v149));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v150, v160, v170, v180);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v181 = p_t6[i];
		const float v182 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v183 = ((v181) + (v182));
		const float v184 = ((v132) * (v183));
		const float v185 = ((v183) * (v138));
		const float v186 = erff(v185);
		const float v187 = ((v137) + (v186));
		const float v188 = ((v184) * (v187));
		const float v189 = p_t20[(krl_div(i, a6))];
		const float v190 = ((v188) - (v189));
		const float v191 = p_t28[(krl_div(i, a6))];
		const float v192 = ((v190) * (v191));
		const float v193 = p_gn_w[(krl_mod(krl_div(i, a2), a3))];
		const float v194 = ((v192) * (v193));
		const float v195 = p_gn_b[(krl_mod(krl_div(i, a2), a3))];
		const float v196 = ((v194) + (v195));
		p_y[i] = v196;
	}
}

/*@plan
derived k0_wf f32 [(out_channels), (in_channels), (kernel_size), (kernel_size)]
buffer t6 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t20 f32 [(batch_size), (num_groups), (1)]
buffer t28 f32 [(batch_size), (num_groups), (1)]
init
  # k0: the weight of node 6 flipped for the forward convolution
  launch k0_wflip grid=(cdiv(numel(w), 256)) block=(256) args(w, k0_wf, (in_channels), out_channels, 1, (kernel_size) * (kernel_size))
end
# k0: node 6, the transposed convolution, as a forward one
call conv(x, k0_wf) -> t6 padding_h=((kernel_size) - 1) * ((1) / (stride)) - ((((stride) - (0) % (stride)) % (stride) + (0)) / (stride)) dilation_h=((1) / (stride)) padding_w=((kernel_size) - 1) * ((1) / (stride)) - ((((stride) - (0) % (stride)) % (stride) + (0)) / (stride)) dilation_w=((1) / (stride))
launch k1_row grid=(min((batch_size) * (num_groups), sm_count * 32)) block=(256) args((batch_size) * (num_groups),
    ((out_channels / num_groups) * (oh * ow)),
    t6,
    (oh) * (ow),
    (out_channels),
    b,
    (sqrt(0.5)),
    (1.0 / ((out_channels / num_groups) * (oh * ow))),
    t20,
    (eps),
    t28)
launch k2_map grid=(cdiv((batch_size) * (out_channels) * (oh) * (ow), 1024)) block=(256) args((batch_size) * (out_channels) * (oh) * (ow),
    t6,
    (oh) * (ow),
    (out_channels),
    b,
    (sqrt(0.5)),
    ((out_channels / num_groups) * (oh * ow)),
    t20,
    t28,
    gn_w,
    gn_b,
    y)
@*/
