/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=256 row.cache=regs pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nchw
 * Task level2/3_convtranspose3d_sum_layernorm_avgpool_gelu, generated at shape set kb1; it serves every shape set.
 * fused 20 ops into 3 kernels: 1 row (block 256, regs), 1 pool (block 256, ept 1, inc taps), 1 library
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
	const float *__restrict__ p_t7,
	long a3,
	long a4,
	const float *__restrict__ p_b,
	const float *__restrict__ p_sum_weight,
	double c7,
	float *__restrict__ p_t13,
	double c9,
	float *__restrict__ p_t21)
{
	const float v3 = p_sum_weight[0];
	const float v10 = p_sum_weight[0];
	const float v62 = (float)c7;
	const float v68 = (float)c7;
	const float v70 = (float)c9;
	const int tid = threadIdx.x;
	const int lid = tid & 31;
	const long wpb = 8; /* warps (rows) per block */
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = (long)blockIdx.x * wpb + (tid >> 5); o < a0; o += (long)gridDim.x * wpb) {
		const long rb = o * a1;
		const float v0 = p_t7[(rb + 0)];
		const float v1 = p_b[(krl_mod(krl_div((rb + 0), a3), a4))];
		const float v2 = ((v0) + (v1));
		const float v4 = ((v2) + (v3));
		/* pass 1 */
		double acc5 = 0.0;
		double acc6 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)32 * 4) {
				const float4 w7 = *reinterpret_cast<const float4 *>(p_t7 + (rb + r));
				const float v8 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
				const float v9 = ((w7.x) + (v8));
				const float v11 = ((v9) + (v10));
				const float v12 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
				const float v13 = ((w7.y) + (v12));
				const float v14 = ((v13) + (v10));
				const float v15 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
				const float v16 = ((w7.z) + (v15));
				const float v17 = ((v16) + (v10));
				const float v18 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
				const float v19 = ((w7.w) + (v18));
				const float v20 = ((v19) + (v10));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v11 - v4;
					const float d1 = v14 - v4;
					const float d2 = v17 - v4;
					const float d3 = v20 - v4;
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
					const float v21 = p_t7[(rb + r)];
					const float v22 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v23 = ((v21) + (v22));
					const float v24 = ((v23) + (v10));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v24 - v4;
						acc5 += (double)d0;
						acc6 += (double)(d0 * d0);
					}
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v25 = p_t7[(rb + r)];
					const float v26 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v27 = ((v25) + (v26));
					const float v28 = ((v27) + (v10));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v28 - v4;
						acc5 += (double)d0;
						acc6 += (double)(d0 * d0);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)32 * 4) {
					const float4 w29 = *reinterpret_cast<const float4 *>(p_t7 + (rb + r));
					const float v30 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v31 = ((w29.x) + (v30));
					const float v32 = ((v31) + (v10));
					const float v33 = p_b[(krl_mod(krl_div((rb + (r + 1)), a3), a4))];
					const float v34 = ((w29.y) + (v33));
					const float v35 = ((v34) + (v10));
					const float v36 = p_b[(krl_mod(krl_div((rb + (r + 2)), a3), a4))];
					const float v37 = ((w29.z) + (v36));
					const float v38 = ((v37) + (v10));
					const float v39 = p_b[(krl_mod(krl_div((rb + (r + 3)), a3), a4))];
					const float v40 = ((w29.w) + (v39));
					const float v41 = ((v40) + (v10));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v32 - v4;
						const float d1 = v35 - v4;
						const float d2 = v38 - v4;
						const float d3 = v41 - v4;
						acc5 += (double)((d0 + d1) + (d2 + d3));
						acc6 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 96 < a1; r += 128) {
					const float v42 = p_t7[(rb + r)];
					const float v43 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v44 = ((v42) + (v43));
					const float v45 = ((v44) + (v10));
					const float v46 = p_t7[(rb + (r + 32))];
					const float v47 = p_b[(krl_mod(krl_div((rb + (r + 32)), a3), a4))];
					const float v48 = ((v46) + (v47));
					const float v49 = ((v48) + (v10));
					const float v50 = p_t7[(rb + (r + 64))];
					const float v51 = p_b[(krl_mod(krl_div((rb + (r + 64)), a3), a4))];
					const float v52 = ((v50) + (v51));
					const float v53 = ((v52) + (v10));
					const float v54 = p_t7[(rb + (r + 96))];
					const float v55 = p_b[(krl_mod(krl_div((rb + (r + 96)), a3), a4))];
					const float v56 = ((v54) + (v55));
					const float v57 = ((v56) + (v10));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v45 - v4;
						const float d1 = v49 - v4;
						const float d2 = v53 - v4;
						const float d3 = v57 - v4;
						acc5 += (double)((d0 + d1) + (d2 + d3));
						acc6 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
				for (; r < a1; r += 32) {
					const float v58 = p_t7[(rb + r)];
					const float v59 = p_b[(krl_mod(krl_div((rb + r), a3), a4))];
					const float v60 = ((v58) + (v59));
					const float v61 = ((v60) + (v10));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v61 - v4;
						acc5 += (double)d0;
						acc6 += (double)(d0 * d0);
					}
				}
			}
		}
		acc5 = krl_warp_sum(acc5);
		acc6 = krl_warp_sum(acc6);
		const float r63 = (float)(acc5 + (double)a1 * (double)v4);
		const float m65 = r63 * v62;
		const double dm66 = (double)m65 - (double)v4;
		const float r64 = (float)fmax(acc6 - 2.0 * dm66 * acc5 + (double)a1 * dm66 * dm66, 0.0);
		/* the outputs of the row shape */
		const float v67 = ((r63) * (v62));
		const float v69 = ((r64) * (v68));
		const float v71 = ((v69) + (v70));
		const float v72 = rsqrtf(v71);
		if (lid == 0) {
			p_t13[o] = v67;
			p_t21[o] = v72;
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
	const float *__restrict__ p_t7,
	long a9,
	long a10,
	const float *__restrict__ p_b,
	const float *__restrict__ p_sum_weight,
	const float *__restrict__ p_t13,
	const float *__restrict__ p_t21,
	long a15,
	const float *__restrict__ p_ln_w,
	const float *__restrict__ p_ln_b,
	double c18,
	float *__restrict__ p_y)
{
	const float v76 = p_sum_weight[0];
	const float v86 = 5.000000000e-01f;
	const float v88 = 1.000000000e+00f;
	const float v89 = (float)c18;
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
			k2_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, p_t7, a9, a10, p_b, p_sum_weight, p_t13, p_t21, a15, p_ln_w, p_ln_b, c18, p_y);
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
					const float v73 = p_t7[xi];
					const float v74 = p_b[(krl_mod(krl_div(xi, a9), a10))];
					const float v75 = ((v73) + (v74));
					const float v77 = ((v75) + (v76));
					const float v78 = p_t13[(krl_div(xi, a3))];
					const float v79 = ((v77) - (v78));
					const float v80 = p_t21[(krl_div(xi, a3))];
					const float v81 = ((v79) * (v80));
					const float v82 = p_ln_w[(krl_mod(xi, a3) * a15)];
					const float v83 = ((v81) * (v82));
					const float v84 = p_ln_b[(krl_mod(xi, a3) * a15)];
					const float v85 = ((v83) + (v84));
					sum += v85;
				}
			}
		}
		/* the divisor: the window in the padded input (count_include_pad) */
		const float div = (float)((tp - ts) * (hp - hs) * (wp - ws));
		const float mean = tlo < thi && hlo < hhi && wlo < whi ? sum / div : 0.f;
		const long o = row * OW + ow;
		const float v87 = ((v86) * (mean));
		const float v90 = ((mean) / (v89));
		const float v91 = erff(v90);
		const float v92 = ((v88) + (v91));
		const float v93 = ((v87) * (v92));
		p_y[o] = v93;
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
	const float *__restrict__ p_t7,
	long a9,
	long a10,
	const float *__restrict__ p_b,
	const float *__restrict__ p_sum_weight,
	const float *__restrict__ p_t13,
	const float *__restrict__ p_t21,
	long a15,
	const float *__restrict__ p_ln_w,
	const float *__restrict__ p_ln_b,
	double c18,
	float *__restrict__ p_y)
{
	k2_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, p_t7, a9, a10, p_b, p_sum_weight, p_t13, p_t21, a15, p_ln_w, p_ln_b, c18, p_y);
}

/*@plan
buffer t7 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t13 f32 [(batch_size), (out_channels), (od), (oh), (1)]
buffer t21 f32 [(batch_size), (out_channels), (od), (oh), (1)]
# k0: library call (node 7)
call conv_transpose(x, w) -> t7 stride=stride padding=padding output_padding=output_padding
launch k1_row grid=(min(cdiv((batch_size) * (out_channels) * (od) * (oh), 8), sm_count * 32)) block=(256) args((batch_size) * (out_channels) * (od) * (oh),
    (ow),
    t7,
    (od) * (oh) * (ow),
    (out_channels),
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
    t7,
    (od) * (oh) * (ow),
    (out_channels),
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
