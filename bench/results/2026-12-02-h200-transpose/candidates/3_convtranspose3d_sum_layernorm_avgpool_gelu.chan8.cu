/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=256 row.cache=regs pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nhwc_y
 * Task level2/3_convtranspose3d_sum_layernorm_avgpool_gelu, generated at shape set kb1; it serves every shape set.
 * fused 20 ops into 3 kernels: 1 row (block 256, regs), 1 pool (block 256, ept 1, inc taps), 1 library (layout nhwc)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: pool
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

/* min and max of 64-bit indices */
static __device__ __forceinline__ long krl_minl(long a, long b)
{
	return a < b ? a : b;
}

static __device__ __forceinline__ long krl_maxl(long a, long b)
{
	return a > b ? a : b;
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

/*
 * k1 (row: a warp per row, 256 threads, rows re-read, 1 pass): nodes 8 view, 9 add, 10 add, 11 sum, 13 mul, 14 sub, 15 square, 16 sum, 18 mul, 20 add, 21 rsqrt.
 * Writes: t13 t21.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	const float *__restrict__ p_t7,
	const float *__restrict__ p_b,
	const float *__restrict__ p_sum_weight,
	double c8,
	float *__restrict__ p_t13,
	double c10,
	float *__restrict__ p_t21)
{
	const float v3 = p_sum_weight[0];
	const float v10 = p_sum_weight[0];
	const float v68 = (float)c8;
	const float v74 = (float)c8;
	const float v76 = (float)c10;
	const int tid = threadIdx.x;
	const int lid = tid & 31;
	const long wpb = 8; /* warps (rows) per block */
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = (long)blockIdx.x * wpb + (tid >> 5); o < a0; o += (long)gridDim.x * wpb) {
		const long rb = o * a1;
		const float v0 = p_t7[((krl_div((rb + 0), a4) * a3 + krl_mod((rb + 0), a3)) * a2 + krl_mod(krl_div((rb + 0), a3), a2))];
		const float v1 = p_b[(krl_mod(krl_div((rb + 0), a3), a2))];
		const float v2 = ((v0) + (v1));
		const float v4 = ((v2) + (v3));
		/* pass 1 */
		double acc5 = 0.0;
		double acc6 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)32 * 4) {
				const float v7 = p_t7[((krl_div((rb + r), a4) * a3 + krl_mod((rb + r), a3)) * a2 + krl_mod(krl_div((rb + r), a3), a2))];
				const float v8 = p_b[(krl_mod(krl_div((rb + r), a3), a2))];
				const float v9 = ((v7) + (v8));
				const float v11 = ((v9) + (v10));
				const float v12 = p_t7[((krl_div((rb + (r + 1)), a4) * a3 + krl_mod((rb + (r + 1)), a3)) * a2 + krl_mod(krl_div((rb + (r + 1)), a3), a2))];
				const float v13 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a2))];
				const float v14 = ((v12) + (v13));
				const float v15 = ((v14) + (v10));
				const float v16 = p_t7[((krl_div((rb + (r + 2)), a4) * a3 + krl_mod((rb + (r + 2)), a3)) * a2 + krl_mod(krl_div((rb + (r + 2)), a3), a2))];
				const float v17 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a2))];
				const float v18 = ((v16) + (v17));
				const float v19 = ((v18) + (v10));
				const float v20 = p_t7[((krl_div((rb + (r + 3)), a4) * a3 + krl_mod((rb + (r + 3)), a3)) * a2 + krl_mod(krl_div((rb + (r + 3)), a3), a2))];
				const float v21 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a2))];
				const float v22 = ((v20) + (v21));
				const float v23 = ((v22) + (v10));
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
					const float v24 = p_t7[((krl_div((rb + r), a4) * a3 + krl_mod((rb + r), a3)) * a2 + krl_mod(krl_div((rb + r), a3), a2))];
					const float v25 = p_b[(krl_mod(krl_div((rb + r), a3), a2))];
					const float v26 = ((v24) + (v25));
					const float v27 = ((v26) + (v10));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v27 - v4;
						acc5 += (double)d0;
						acc6 += (double)(d0 * d0);
					}
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v28 = p_t7[((krl_div((rb + r), a4) * a3 + krl_mod((rb + r), a3)) * a2 + krl_mod(krl_div((rb + r), a3), a2))];
					const float v29 = p_b[(krl_mod(krl_div((rb + r), a3), a2))];
					const float v30 = ((v28) + (v29));
					const float v31 = ((v30) + (v10));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v31 - v4;
						acc5 += (double)d0;
						acc6 += (double)(d0 * d0);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)32 * 4) {
					const float v32 = p_t7[((krl_div((rb + r), a4) * a3 + krl_mod((rb + r), a3)) * a2 + krl_mod(krl_div((rb + r), a3), a2))];
					const float v33 = p_b[(krl_mod(krl_div((rb + r), a3), a2))];
					const float v34 = ((v32) + (v33));
					const float v35 = ((v34) + (v10));
					const float v36 = p_t7[((krl_div((rb + (r + 1)), a4) * a3 + krl_mod((rb + (r + 1)), a3)) * a2 + krl_mod(krl_div((rb + (r + 1)), a3), a2))];
					const float v37 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a2))];
					const float v38 = ((v36) + (v37));
					const float v39 = ((v38) + (v10));
					const float v40 = p_t7[((krl_div((rb + (r + 2)), a4) * a3 + krl_mod((rb + (r + 2)), a3)) * a2 + krl_mod(krl_div((rb + (r + 2)), a3), a2))];
					const float v41 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a2))];
					const float v42 = ((v40) + (v41));
					const float v43 = ((v42) + (v10));
					const float v44 = p_t7[((krl_div((rb + (r + 3)), a4) * a3 + krl_mod((rb + (r + 3)), a3)) * a2 + krl_mod(krl_div((rb + (r + 3)), a3), a2))];
					const float v45 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a2))];
					const float v46 = ((v44) + (v45));
					const float v47 = ((v46) + (v10));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v35 - v4;
						const float d1 = v39 - v4;
						const float d2 = v43 - v4;
						const float d3 = v47 - v4;
						acc5 += (double)((d0 + d1) + (d2 + d3));
						acc6 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 96 < a1; r += 128) {
					const float v48 = p_t7[((krl_div((rb + r), a4) * a3 + krl_mod((rb + r), a3)) * a2 + krl_mod(krl_div((rb + r), a3), a2))];
					const float v49 = p_b[(krl_mod(krl_div((rb + r), a3), a2))];
					const float v50 = ((v48) + (v49));
					const float v51 = ((v50) + (v10));
					const float v52 = p_t7[((krl_div((rb + (r + 32)), a4) * a3 + krl_mod((rb + (r + 32)), a3)) * a2 + krl_mod(krl_div((rb + (r + 32)), a3), a2))];
					const float v53 = p_b[(krl_mod(krl_div((rb + (r + 32)), a3), a2))];
					const float v54 = ((v52) + (v53));
					const float v55 = ((v54) + (v10));
					const float v56 = p_t7[((krl_div((rb + (r + 64)), a4) * a3 + krl_mod((rb + (r + 64)), a3)) * a2 + krl_mod(krl_div((rb + (r + 64)), a3), a2))];
					const float v57 = p_b[(krl_mod(krl_div((rb + (r + 64)), a3), a2))];
					const float v58 = ((v56) + (v57));
					const float v59 = ((v58) + (v10));
					const float v60 = p_t7[((krl_div((rb + (r + 96)), a4) * a3 + krl_mod((rb + (r + 96)), a3)) * a2 + krl_mod(krl_div((rb + (r + 96)), a3), a2))];
					const float v61 = p_b[(krl_mod(krl_div((rb + (r + 96)), a3), a2))];
					const float v62 = ((v60) + (v61));
					const float v63 = ((v62) + (v10));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v51 - v4;
						const float d1 = v55 - v4;
						const float d2 = v59 - v4;
						const float d3 = v63 - v4;
						acc5 += (double)((d0 + d1) + (d2 + d3));
						acc6 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
				for (; r < a1; r += 32) {
					const float v64 = p_t7[((krl_div((rb + r), a4) * a3 + krl_mod((rb + r), a3)) * a2 + krl_mod(krl_div((rb + r), a3), a2))];
					const float v65 = p_b[(krl_mod(krl_div((rb + r), a3), a2))];
					const float v66 = ((v64) + (v65));
					const float v67 = ((v66) + (v10));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v67 - v4;
						acc5 += (double)d0;
						acc6 += (double)(d0 * d0);
					}
				}
			}
		}
		acc5 = krl_warp_sum(acc5);
		acc6 = krl_warp_sum(acc6);
		const float r69 = (float)(acc5 + (double)a1 * (double)v4);
		const float m71 = r69 * v68;
		const double dm72 = (double)m71 - (double)v4;
		const float r70 = (float)fmax(acc6 - 2.0 * dm72 * acc5 + (double)a1 * dm72 * dm72, 0.0);
		/* the outputs of the row shape */
		const float v73 = ((r69) * (v68));
		const float v75 = ((r70) * (v74));
		const float v77 = ((v75) + (v76));
		const float v78 = rsqrtf(v77);
		if (lid == 0) {
			p_t13[o] = v73;
			p_t21[o] = v78;
		}
	}
}
/* k2_pool's outputs, with offsets and coordinates in a plane of type I:
 * int when the plane, widened by a window's reach, fits (the usual case),
 * else long */
template <typename I>
static __device__ __forceinline__ void
k2_pool_walk(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	long a7,
	long a8,
	long a9,
	long a10,
	const float *__restrict__ p_t7,
	const float *__restrict__ p_b,
	const float *__restrict__ p_sum_weight,
	const float *__restrict__ p_t13,
	const float *__restrict__ p_t21,
	long a16,
	const float *__restrict__ p_ln_w,
	const float *__restrict__ p_ln_b,
	double c19,
	float *__restrict__ p_y)
{
	const float v82 = p_sum_weight[0];
	const float v92 = 5.000000000e-01f;
	const float v94 = 1.000000000e+00f;
	const float v95 = (float)c19;
	/* x is [.., IT, IH, IW] and the output [.., OT, OH, OW], seen as [rows, OW] */
	const long rows = a0, IT = a1, IH = a2, IW = a3, OT = a4, OH = a5, OW = a6;
	const long ksize = a7, stride = a7, pad = 0;
	const long plane = IT * IH * IW; /* elements of an input plane */
	/* a warp takes 32 consecutive outputs of a row, lane l the outputs l, l + 32, ... */
	const long groups = (OW + 31) / 32; /* per row */
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IT + reach) * (IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k2_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, p_t7, p_b, p_sum_weight, p_t13, p_t21, a16, p_ln_w, p_ln_b, c19, p_y);
			return;
		}
	}
	const I nT = IT, nH = IH, nW = IW; /* the input's sizes */
	const I st = stride, pd = pad;
	const I kx = ksize; /* a window's extent */
	const I tstep = nH * nW; /* from a tap plane to the next */
	const I hstep = nW; /* from a tap row to the next */
	for (long t = (long)blockIdx.x * 256 + threadIdx.x; t < rows * groups * 32;
	     t += (long)gridDim.x * 256) {
		const long row = krl_div(t >> 5, groups);
		const long ow0 = ((t >> 5) - row * groups) * 32 + (t & 31);
		const long rh = krl_div(row, OH);
		const I oh = row - rh * OH;
		const long pl = krl_div(rh, OT); /* the plane */
		const I ot = rh - pl * OT;
		const long xb = pl * plane; /* where the plane starts in x */
		const I ts = ot * st - pd; /* window start */
		const I tp = ts + kx < nT + pd ? ts + kx : nT + pd; /* end in the padded input */
		const I tlo = ts > 0 ? ts : 0, thi = tp < nT ? tp : nT;
		const I hs = oh * st - pd; /* window start */
		const I hp = hs + kx < nH + pd ? hs + kx : nH + pd; /* end in the padded input */
		const I hlo = hs > 0 ? hs : 0, hhi = hp < nH ? hp : nH;
		const long ow = ow0;
		if (ow >= OW)
			continue;
		const I ws = (I)ow * st - pd; /* window start */
		const I wp = ws + kx < nW + pd ? ws + kx : nW + pd; /* end in the padded input */
		const I wlo = ws > 0 ? ws : 0, whi = wp < nW ? wp : nW;
		float sum = 0.f;
		for (I xt = tlo * (nH * nW); xt < thi * (nH * nW); xt += tstep) {
			for (I xh = xt + hlo * nW; xh < xt + hhi * nW; xh += hstep) {
				for (I xw = xh + wlo; xw < xh + whi; xw++) {
					const long xi = xb + xw;
					const float v79 = p_t7[((krl_div(xi, a10) * a9 + krl_mod(xi, a9)) * a8 + krl_mod(krl_div(xi, a9), a8))];
					const float v80 = p_b[(krl_mod(krl_div(xi, a9), a8))];
					const float v81 = ((v79) + (v80));
					const float v83 = ((v81) + (v82));
					const float v84 = p_t13[(krl_div(xi, a3))];
					const float v85 = ((v83) - (v84));
					const float v86 = p_t21[(krl_div(xi, a3))];
					const float v87 = ((v85) * (v86));
					const float v88 = p_ln_w[(krl_mod(xi, a3) * a16)];
					const float v89 = ((v87) * (v88));
					const float v90 = p_ln_b[(krl_mod(xi, a3) * a16)];
					const float v91 = ((v89) + (v90));
					sum += v91;
				}
			}
		}
		/* the divisor: the window in the padded input (count_include_pad) */
		const float div = (float)((tp - ts) * (hp - hs) * (wp - ws));
		const float mean = tlo < thi && hlo < hhi && wlo < whi ? sum / div : 0.f;
		const long o = row * OW + ow;
		const float v93 = ((v92) * (mean));
		const float v96 = ((mean) / (v95));
		const float v97 = erff(v96);
		const float v98 = ((v94) + (v97));
		const float v99 = ((v93) * (v98));
		p_y[o] = v99;
	}
}

/*
 * k2 (pool: 3-d mean over windows of its input (computed at every tap), 1 output per thread along the last dim, 256 threads): nodes 8 view, 9 add, 10 add, 14 sub, 22 mul, 23 mul, 24 add, 25 avg_pool, 29 div, 30 erf, 31 add, 32 mul, 33 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_pool(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	long a7,
	long a8,
	long a9,
	long a10,
	const float *__restrict__ p_t7,
	const float *__restrict__ p_b,
	const float *__restrict__ p_sum_weight,
	const float *__restrict__ p_t13,
	const float *__restrict__ p_t21,
	long a16,
	const float *__restrict__ p_ln_w,
	const float *__restrict__ p_ln_b,
	double c19,
	float *__restrict__ p_y)
{
	k2_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, p_t7, p_b, p_sum_weight, p_t13, p_t21, a16, p_ln_w, p_ln_b, c19, p_y);
}

/*@plan
buffer t7 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t13 f32 [(batch_size), (out_channels), (od), (oh), (1)]
buffer t21 f32 [(batch_size), (out_channels), (od), (oh), (1)]
# k0: library call (node 7)
call conv_transpose(x, w) -> t7 stride=stride padding=padding output_padding=output_padding layout=nhwc_y
launch k1_row grid=(min(cdiv((batch_size) * (out_channels) * (od) * (oh), 8), sm_count * 32)) block=(256) args((batch_size) * (out_channels) * (od) * (oh),
    (ow),
    (out_channels),
    (od) * (oh) * (ow),
    (out_channels) * (od) * (oh) * (ow),
    t7,
    b,
    sum_weight,
    (1.0 / (ow)),
    t13,
    (eps),
    t21)
launch k2_pool grid=(min(cdiv((batch_size) * (out_channels) * (pd) * (ph) * cdiv((pw), 32) * 32, 256), sm_count * 1024)) block=(256) args((batch_size) * (out_channels) * (pd) * (ph),
    (od),
    (oh),
    (ow),
    (pd),
    (ph),
    (pw),
    (pool),
    (out_channels),
    (od) * (oh) * (ow),
    (out_channels) * (od) * (oh) * (ow),
    t7,
    b,
    sum_weight,
    t13,
    t21,
    (min((out_channels), 2) - 1) * 1,
    ln_w,
    ln_b,
    (sqrt(2.0)),
    y)
@*/
