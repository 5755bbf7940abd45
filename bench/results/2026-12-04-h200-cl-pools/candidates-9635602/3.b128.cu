/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=256 row.cache=regs pool.block=128 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nhwc_y
 * Task level2/3_convtranspose3d_sum_layernorm_avgpool_gelu, generated at shape set kb1; it serves every shape set.
 * fused 20 ops into 3 kernels: 1 row (block 256, regs; 1 over a channels-last y in its memory order), 1 pool (block 128, ept 1, inc taps; 1 over a channels-last y in its memory order), 1 library (layout nhwc)
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

/*
 * k1 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass; the columns of a channels-last input's memory (spatial positions after the reduced axes, then channels)): nodes 8 view, 9 add, 10 add, 11 sum, 13 mul, 14 sub, 15 square, 16 sum, 18 mul, 20 add, 21 rsqrt.
 * Writes: t13 t21.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_col(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	const float *__restrict__ p_t7,
	const float *__restrict__ p_b,
	const float *__restrict__ p_sum_weight,
	double c10,
	float *__restrict__ p_t13,
	double c12,
	float *__restrict__ p_t21,
	long a14)
{
	__shared__ double krl_cd[8][33];
	const float v3 = p_sum_weight[0];
	const float v9 = p_sum_weight[0];
	const float v25 = (float)c10;
	const float v31 = (float)c10;
	const float v33 = (float)c12;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a3 + 31) / 32;
	for (long blk = blockIdx.x; blk < a2 * ncb; blk += gridDim.x) {
		const long op = blk / ncb;
		const long cc = (blk % ncb) * 32 + tx;
		const bool valid = cc < a3;
		/* past the last column: compute the last one's values (in bounds), store nothing */
		const long cp = valid ? cc : a3 - 1;
		const long o = ((op / a14) * a4 + cp % a4) * a14 + op % a14;
		const long rb = o * a1;
		const long pb = op * a1 * a3 + cp;
		const float v0 = p_t7[((krl_div((rb + 0), a6) * a5 + krl_mod((rb + 0), a5)) * a4 + krl_mod(krl_div((rb + 0), a5), a4))];
		const float v1 = p_b[(krl_mod(krl_div(rb, a5), a4))];
		const float v2 = ((v0) + (v1));
		const float v4 = ((v2) + (v3));
		/* pass 1 */
		double acc5 = 0.0;
		double acc6 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v7 = p_t7[(pb + r * a3)];
				const float v8 = ((v7) + (v1));
				const float v10 = ((v8) + (v9));
				const float v11 = p_t7[(pb + (r + 8) * a3)];
				const float v12 = ((v11) + (v1));
				const float v13 = ((v12) + (v9));
				const float v14 = p_t7[(pb + (r + 16) * a3)];
				const float v15 = ((v14) + (v1));
				const float v16 = ((v15) + (v9));
				const float v17 = p_t7[(pb + (r + 24) * a3)];
				const float v18 = ((v17) + (v1));
				const float v19 = ((v18) + (v9));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v10 - v4;
					const float d1 = v13 - v4;
					const float d2 = v16 - v4;
					const float d3 = v19 - v4;
					acc5 += (double)((d0 + d1) + (d2 + d3));
					acc6 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
				}
			}
			for (; r < a1; r += 8) {
				const float v20 = p_t7[(pb + r * a3)];
				const float v21 = ((v20) + (v1));
				const float v22 = ((v21) + (v9));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v22 - v4;
					acc5 += (double)d0;
					acc6 += (double)(d0 * d0);
				}
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc5;
		__syncthreads();
		acc5 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc5 += krl_cd[k][tx];
		const float r23 = (float)acc5;
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc6;
		__syncthreads();
		acc6 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc6 += krl_cd[k][tx];
		const float r24 = (float)acc6;
		const float r26 = (float)(acc5 + (double)a1 * (double)v4);
		const float m28 = r26 * v25;
		const double dm29 = (double)m28 - (double)v4;
		const float r27 = (float)fmax(acc6 - 2.0 * dm29 * acc5 + (double)a1 * dm29 * dm29, 0.0);
		/* the outputs of the row shape */
		const float v30 = ((r26) * (v25));
		const float v32 = ((r27) * (v31));
		const float v34 = ((v32) + (v33));
		const float v35 = rsqrtf(v34);
		if (valid && ty == 0) {
			p_t13[o] = v30;
			p_t21[o] = v35;
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
	long a11,
	const float *__restrict__ p_t7,
	const float *__restrict__ p_b,
	const float *__restrict__ p_sum_weight,
	long a15,
	long a16,
	const float *__restrict__ p_t13,
	const float *__restrict__ p_t21,
	long a19,
	const float *__restrict__ p_ln_w,
	const float *__restrict__ p_ln_b,
	double c22,
	float *__restrict__ p_y)
{
	const float v38 = p_sum_weight[0];
	const float v81 = 5.000000000e-01f;
	const float v83 = 1.000000000e+00f;
	const float v84 = (float)c22;
	/* x is [.., IT, IH, IW] and the output [.., OT, OH, OW], seen as [rows, OW] */
	const long rows = a0, IT = a1, IH = a2, IW = a3, OT = a4, OH = a5, OW = a6;
	const long ksize = a7, stride = a7, pad = 0;
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IT + reach) * (IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k2_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, p_t7, p_b, p_sum_weight, a15, a16, p_t13, p_t21, a19, p_ln_w, p_ln_b, c22, p_y);
			return;
		}
	}
	const I nT = IT, nH = IH, nW = IW; /* the input's sizes */
	const I st = stride, pd = pad;
	const I kx = ksize; /* a window's extent */
	/* x is [N, C, s...], in memory [N, s..., C]; S positions in, OS out */
	const long N = a8, C = a9, S = a10, OS = a11;
	const long ncb = (C + 31) / 32, nsb = (OS + 15) / 16; /* blocks of channels, of positions */
	const bool tvec = (C & 3) == 0; /* float4 loads */
	/* a block's outputs: 32 channels x 16 positions, a row per channel */
	__shared__ float tmean[544];
	const int tq = threadIdx.x % 8, sl = threadIdx.x / 8; /* channels 4 tq.., position sl */
	/* neighbouring blocks: the channel blocks of the same positions */
	for (long b = blockIdx.x; b < N * ncb * nsb; b += gridDim.x) {
		const long bs = krl_div(b, ncb), n = krl_div(bs, nsb);
		const long c0 = (b - bs * ncb) * 32 + 4 * tq, s0 = (bs - n * nsb) * 16;
		const long s = s0 + sl;
		const bool live = s < OS;
		/* channels past C compute channel C - 1's values, not stored */
		const long ch0 = c0 + 0 < C ? c0 + 0 : C - 1;
		const long nc0 = n * C + ch0;
		const long rb0 = nc0 * S; /* x[n, c, 0...]: NCHW */
		const long ch1 = c0 + 1 < C ? c0 + 1 : C - 1;
		const long nc1 = n * C + ch1;
		const long rb1 = nc1 * S; /* x[n, c, 0...]: NCHW */
		const long ch2 = c0 + 2 < C ? c0 + 2 : C - 1;
		const long nc2 = n * C + ch2;
		const long rb2 = nc2 * S; /* x[n, c, 0...]: NCHW */
		const long ch3 = c0 + 3 < C ? c0 + 3 : C - 1;
		const long nc3 = n * C + ch3;
		const long rb3 = nc3 * S; /* x[n, c, 0...]: NCHW */
		const long yb = n * S * C; /* the sample in memory */
		const float v36 = p_b[(ch0)];
		const float v48 = p_b[(ch1)];
		const float v59 = p_b[(ch2)];
		const float v70 = p_b[(ch3)];
		const I so = live ? (I)s : 0;
		const I qw = so / (I)OW;
		const I ow = so - qw * (I)OW;
		const I qh = qw / (I)OH;
		const I oh = qw - qh * (I)OH;
		const I ot = qh;
		const I ts = ot * st - pd; /* window start */
		const I tp = ts + kx < nT + pd ? ts + kx : nT + pd; /* end in the padded input */
		const I tlo = ts > 0 ? ts : 0, thi = tp < nT ? tp : nT;
		const I hs = oh * st - pd; /* window start */
		const I hp = hs + kx < nH + pd ? hs + kx : nH + pd; /* end in the padded input */
		const I hlo = hs > 0 ? hs : 0, hhi = hp < nH ? hp : nH;
		const I ws = (I)ow * st - pd; /* window start */
		const I wp = ws + kx < nW + pd ? ws + kx : nW + pd; /* end in the padded input */
		const I wlo = ws > 0 ? ws : 0, whi = wp < nW ? wp : nW;
		float sum0 = 0.f;
		float sum1 = 0.f;
		float sum2 = 0.f;
		float sum3 = 0.f;
		/* the window's 2 x 2 x 2 taps, those outside the input skipped */
		#pragma unroll
		for (int kt = 0; kt < 2; kt++) {
			const I it = ts + kt;
			if (!live || it < 0 || it >= nT)
				continue;
			#pragma unroll
			for (int kh = 0; kh < 2; kh++) {
				const I ih = hs + kh;
				if (ih < 0 || ih >= nH)
					continue;
				#pragma unroll
				for (int kw = 0; kw < 2; kw++) {
					const I iw = ws + kw;
					if (iw < 0 || iw >= nW)
						continue;
					const I rr = (it * nH + ih) * nW + iw; /* the tap in the plane */
					const long tb = yb + (long)rr * C + c0;
					float tv[4];
					if (tvec && c0 + 4 <= C) {
						const float4 q4 = *reinterpret_cast<const float4 *>(p_t7 + tb);
						tv[0] = q4.x; tv[1] = q4.y; tv[2] = q4.z; tv[3] = q4.w;
					} else {
						#pragma unroll
						for (int j = 0; j < 4; j++)
							tv[j] = p_t7[tb + (c0 + j < C ? j : C - 1 - c0)];
					}
					const float v37 = ((tv[0]) + (v36));
					const float v39 = ((v37) + (v38));
					const float v40 = p_t13[(n * a15 + ch0 * a16 + it * a2 + ih)];
					const float v41 = ((v39) - (v40));
					const float v42 = p_t21[(n * a15 + ch0 * a16 + it * a2 + ih)];
					const float v43 = ((v41) * (v42));
					const float v44 = p_ln_w[(krl_mod((rb0 + rr), a3) * a19)];
					const float v45 = ((v43) * (v44));
					const float v46 = p_ln_b[(krl_mod((rb0 + rr), a3) * a19)];
					const float v47 = ((v45) + (v46));
					sum0 += v47;
					const float v49 = ((tv[1]) + (v48));
					const float v50 = ((v49) + (v38));
					const float v51 = p_t13[(n * a15 + ch1 * a16 + it * a2 + ih)];
					const float v52 = ((v50) - (v51));
					const float v53 = p_t21[(n * a15 + ch1 * a16 + it * a2 + ih)];
					const float v54 = ((v52) * (v53));
					const float v55 = p_ln_w[(krl_mod((rb1 + rr), a3) * a19)];
					const float v56 = ((v54) * (v55));
					const float v57 = p_ln_b[(krl_mod((rb1 + rr), a3) * a19)];
					const float v58 = ((v56) + (v57));
					sum1 += v58;
					const float v60 = ((tv[2]) + (v59));
					const float v61 = ((v60) + (v38));
					const float v62 = p_t13[(n * a15 + ch2 * a16 + it * a2 + ih)];
					const float v63 = ((v61) - (v62));
					const float v64 = p_t21[(n * a15 + ch2 * a16 + it * a2 + ih)];
					const float v65 = ((v63) * (v64));
					const float v66 = p_ln_w[(krl_mod((rb2 + rr), a3) * a19)];
					const float v67 = ((v65) * (v66));
					const float v68 = p_ln_b[(krl_mod((rb2 + rr), a3) * a19)];
					const float v69 = ((v67) + (v68));
					sum2 += v69;
					const float v71 = ((tv[3]) + (v70));
					const float v72 = ((v71) + (v38));
					const float v73 = p_t13[(n * a15 + ch3 * a16 + it * a2 + ih)];
					const float v74 = ((v72) - (v73));
					const float v75 = p_t21[(n * a15 + ch3 * a16 + it * a2 + ih)];
					const float v76 = ((v74) * (v75));
					const float v77 = p_ln_w[(krl_mod((rb3 + rr), a3) * a19)];
					const float v78 = ((v76) * (v77));
					const float v79 = p_ln_b[(krl_mod((rb3 + rr), a3) * a19)];
					const float v80 = ((v78) + (v79));
					sum3 += v80;
				}
			}
		}
		{
			const float sum = sum0;
			/* the divisor: the window in the padded input (count_include_pad) */
			const float div = (float)((tp - ts) * (hp - hs) * (wp - ws));
			const float mean = tlo < thi && hlo < hhi && wlo < whi ? sum / div : 0.f;
			tmean[(4 * tq + 0) * 17 + sl] = mean;
		}
		{
			const float sum = sum1;
			/* the divisor: the window in the padded input (count_include_pad) */
			const float div = (float)((tp - ts) * (hp - hs) * (wp - ws));
			const float mean = tlo < thi && hlo < hhi && wlo < whi ? sum / div : 0.f;
			tmean[(4 * tq + 1) * 17 + sl] = mean;
		}
		{
			const float sum = sum2;
			/* the divisor: the window in the padded input (count_include_pad) */
			const float div = (float)((tp - ts) * (hp - hs) * (wp - ws));
			const float mean = tlo < thi && hlo < hhi && wlo < whi ? sum / div : 0.f;
			tmean[(4 * tq + 2) * 17 + sl] = mean;
		}
		{
			const float sum = sum3;
			/* the divisor: the window in the padded input (count_include_pad) */
			const float div = (float)((tp - ts) * (hp - hs) * (wp - ws));
			const float mean = tlo < thi && hlo < hhi && wlo < whi ? sum / div : 0.f;
			tmean[(4 * tq + 3) * 17 + sl] = mean;
		}
		__syncthreads();
		/* each channel's run of positions, contiguous in the NCHW outputs */
		const long cb = c0 - 4 * tq;
		for (int e = 0; e < 4; e++) {
			const int t = threadIdx.x + e * 128, cq = t / 16, sq = t % 16;
			const long s = s0 + sq;
			if (cb + cq >= C || s >= OS)
				continue;
			const long nc = n * C + cb + cq, ob = nc * OS, o = ob + s;
			const float mean = tmean[cq * 17 + sq];
			const float v82 = ((v81) * (mean));
			const float v85 = ((mean) / (v84));
			const float v86 = erff(v85);
			const float v87 = ((v83) + (v86));
			const float v88 = ((v82) * (v87));
			p_y[o] = v88;
		}
		__syncthreads();
	}
}

/*
 * k2 (pool: 3-d mean over windows of its input (computed at every tap), a channels-last input read 32 channels x 16 positions a block, 4 channels a thread, stored through shared memory, 128 threads): nodes 8 view, 9 add, 10 add, 14 sub, 22 mul, 23 mul, 24 add, 25 avg_pool, 29 div, 30 erf, 31 add, 32 mul, 33 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(128)
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
	long a11,
	const float *__restrict__ p_t7,
	const float *__restrict__ p_b,
	const float *__restrict__ p_sum_weight,
	long a15,
	long a16,
	const float *__restrict__ p_t13,
	const float *__restrict__ p_t21,
	long a19,
	const float *__restrict__ p_ln_w,
	const float *__restrict__ p_ln_b,
	double c22,
	float *__restrict__ p_y)
{
	k2_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, p_t7, p_b, p_sum_weight, a15, a16, p_t13, p_t21, a19, p_ln_w, p_ln_b, c22, p_y);
}

/*@plan
buffer t7 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t13 f32 [(batch_size), (out_channels), (od), (oh), (1)]
buffer t21 f32 [(batch_size), (out_channels), (od), (oh), (1)]
# k0: library call (node 7)
call conv_transpose(x, w) -> t7 stride=stride padding=padding output_padding=output_padding layout=nhwc_y
launch k1_col grid=(min(((batch_size) * (od) * (oh)) * cdiv(1 * (out_channels), 32), sm_count * 32)) block=(32, 8) args((batch_size) * (out_channels) * (od) * (oh),
    (ow),
    (batch_size) * (od) * (oh),
    1 * (out_channels),
    (out_channels),
    (od) * (oh) * (ow),
    (out_channels) * (od) * (oh) * (ow),
    t7,
    b,
    sum_weight,
    (1.0 / (ow)),
    t13,
    (eps),
    t21,
    (od) * (oh))
launch k2_pool grid=(min((batch_size) * cdiv((out_channels), 32) * cdiv((pd) * (ph) * (pw), 16), sm_count * 256)) block=(128) args((batch_size) * (out_channels) * (pd) * (ph),
    (od),
    (oh),
    (ow),
    (pd),
    (ph),
    (pw),
    (pool),
    (batch_size),
    (out_channels),
    (od) * (oh) * (ow),
    (pd) * (ph) * (pw),
    t7,
    b,
    sum_weight,
    (out_channels) * (od) * (oh),
    (od) * (oh),
    t13,
    t21,
    (min((out_channels), 2) - 1) * 1,
    ln_w,
    ln_b,
    (sqrt(2.0)),
    y)
@*/
