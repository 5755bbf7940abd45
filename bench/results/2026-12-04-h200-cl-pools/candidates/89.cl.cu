/*
 * krl-choice: rule.conv_bias=on row.block=256 pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nhwc_y
 * Task level2/89_convtranspose3d_maxpool_softmax_subtract_swish_max, generated at shape set kb1; it serves every shape set.
 * fused 12 ops into 3 kernels: 1 row (block 256, regs), 1 pool (block 256, ept 1, inc taps; 1 over a channels-last y in its memory order), 1 library (layout nhwc)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: pool
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
/* k1_pool's outputs, with offsets and coordinates in a plane of type I:
 * int when the plane, widened by a window's reach, fits (the usual case),
 * else long */
template <typename I>
static __device__ __forceinline__ void
k1_pool_walk(long a0,
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
	long a12,
	long a13,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_b,
	float *__restrict__ p_t8)
{
	/* x is [.., IT, IH, IW] and the output [.., OT, OH, OW], seen as [rows, OW] */
	const long rows = a0, IT = a1, IH = a2, IW = a3, OT = a4, OH = a5, OW = a6;
	const long ksize = a7, stride = a8, pad = a9, dil = 1;
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize * dil;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IT + reach) * (IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k1_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, p_t5, p_b, p_t8);
			return;
		}
	}
	const I nT = IT, nH = IH, nW = IW; /* the input's sizes */
	const I st = stride, pd = pad, dl = dil;
	const I kx = (ksize - 1) * dil + 1; /* a window's extent */
	/* x is [N, C, s...], in memory [N, s..., C]; S positions in, OS out */
	const long N = a10, C = a11, S = a12, OS = a13;
	const long ncb = (C + 15) / 16, nsb = (OS + 63) / 64; /* blocks of channels, of positions */
	const bool tvec = (C & 3) == 0; /* float4 loads */
	/* a block's outputs: 16 channels x 64 positions, a row per channel */
	__shared__ float tm[1040];
	const int tq = threadIdx.x % 4, sl = threadIdx.x / 4; /* channels 4 tq.., position sl */
	/* neighbouring blocks: the channel blocks of the same positions */
	for (long b = blockIdx.x; b < N * ncb * nsb; b += gridDim.x) {
		const long bs = krl_div(b, ncb), n = krl_div(bs, nsb);
		const long c0 = (b - bs * ncb) * 16 + 4 * tq, s0 = (bs - n * nsb) * 64;
		const long s = s0 + sl;
		const bool live = s < OS;
		/* channels past C compute channel C - 1's values, not stored */
		const long nc0 = n * C + (c0 + 0 < C ? c0 + 0 : C - 1);
		const long rb0 = nc0 * S; /* x[n, c, 0...]: NCHW */
		const long nc1 = n * C + (c0 + 1 < C ? c0 + 1 : C - 1);
		const long rb1 = nc1 * S; /* x[n, c, 0...]: NCHW */
		const long nc2 = n * C + (c0 + 2 < C ? c0 + 2 : C - 1);
		const long rb2 = nc2 * S; /* x[n, c, 0...]: NCHW */
		const long nc3 = n * C + (c0 + 3 < C ? c0 + 3 : C - 1);
		const long rb3 = nc3 * S; /* x[n, c, 0...]: NCHW */
		const long yb = n * S * C; /* the sample in memory */
		const float v0 = p_b[(krl_mod(krl_div(rb0, a12), a11))];
		const float v2 = p_b[(krl_mod(krl_div(rb1, a12), a11))];
		const float v4 = p_b[(krl_mod(krl_div(rb2, a12), a11))];
		const float v6 = p_b[(krl_mod(krl_div(rb3, a12), a11))];
		const I so = live ? (I)s : 0;
		const I qw = so / (I)OW;
		const I ow = so - qw * (I)OW;
		const I qh = qw / (I)OH;
		const I oh = qw - qh * (I)OH;
		const I ot = qh;
		const I ts = ot * st - pd; /* window start */
		/* the taps inside the input: the first past the padding, in steps of dl */
		const I tlo = ts >= 0 ? ts : ts + (dl - 1 - ts) / dl * dl;
		const I thi = ts + kx < nT ? ts + kx : nT;
		const I hs = oh * st - pd; /* window start */
		/* the taps inside the input: the first past the padding, in steps of dl */
		const I hlo = hs >= 0 ? hs : hs + (dl - 1 - hs) / dl * dl;
		const I hhi = hs + kx < nH ? hs + kx : nH;
		const I ws = (I)ow * st - pd; /* window start */
		/* the taps inside the input: the first past the padding, in steps of dl */
		const I wlo = ws >= 0 ? ws : ws + (dl - 1 - ws) / dl * dl;
		const I whi = ws + kx < nW ? ws + kx : nW;
		float m0 = -INFINITY;
		float m1 = -INFINITY;
		float m2 = -INFINITY;
		float m3 = -INFINITY;
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
						const float4 q4 = *reinterpret_cast<const float4 *>(p_t5 + tb);
						tv[0] = q4.x; tv[1] = q4.y; tv[2] = q4.z; tv[3] = q4.w;
					} else {
						#pragma unroll
						for (int j = 0; j < 4; j++)
							tv[j] = p_t5[tb + (c0 + j < C ? j : C - 1 - c0)];
					}
					const float v1 = ((tv[0]) + (v0));
					if (v1 > m0 || v1 != v1) /* NaN wins */
						m0 = v1;
					const float v3 = ((tv[1]) + (v2));
					if (v3 > m1 || v3 != v3) /* NaN wins */
						m1 = v3;
					const float v5 = ((tv[2]) + (v4));
					if (v5 > m2 || v5 != v5) /* NaN wins */
						m2 = v5;
					const float v7 = ((tv[3]) + (v6));
					if (v7 > m3 || v7 != v7) /* NaN wins */
						m3 = v7;
				}
			}
		}
		tm[(4 * tq + 0) * 65 + sl] = m0;
		tm[(4 * tq + 1) * 65 + sl] = m1;
		tm[(4 * tq + 2) * 65 + sl] = m2;
		tm[(4 * tq + 3) * 65 + sl] = m3;
		__syncthreads();
		/* each channel's run of positions, contiguous in the NCHW outputs */
		const long cb = c0 - 4 * tq;
		for (int e = 0; e < 4; e++) {
			const int t = threadIdx.x + e * 256, cq = t / 64, sq = t % 64;
			const long s = s0 + sq;
			if (cb + cq >= C || s >= OS)
				continue;
			const long nc = n * C + cb + cq, ob = nc * OS, o = ob + s;
			const float m = tm[cq * 65 + sq];
			p_t8[o] = m;
		}
		__syncthreads();
	}
}

/*
 * k1 (pool: 3-d max over windows of its input (computed at every tap), a channels-last input read 16 channels x 64 positions a block, 4 channels a thread, stored through shared memory, 256 threads): nodes 6 view, 7 add, 8 max_pool.
 * Writes: t8.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_pool(long a0,
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
	long a12,
	long a13,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_b,
	float *__restrict__ p_t8)
{
	k1_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, p_t5, p_b, p_t8);
}

/*
 * k2 (row over a middle axis: 32 columns x 8 rows of threads per block, 3 passes): nodes 9 max, 10 sub, 11 exp, 12 sum, 13 div, 14 view, 15 sub, 16 sigmoid, 17 mul, 18 max.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t8,
	const float *__restrict__ p_subtract,
	float *__restrict__ p_y)
{
	__shared__ double krl_cd[8][33];
	__shared__ float krl_cf[8][33];
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
		float acc8 = -INFINITY;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v9 = p_t8[(rb + r * a2)];
				const float v10 = p_t8[(rb + (r + 8) * a2)];
				const float v11 = p_t8[(rb + (r + 16) * a2)];
				const float v12 = p_t8[(rb + (r + 24) * a2)];
				acc8 = krl_maxf(acc8, krl_maxf(krl_maxf(v9, v10), krl_maxf(v11, v12)));
			}
			for (; r < a1; r += 8) {
				const float v13 = p_t8[(rb + r * a2)];
				acc8 = krl_maxf(acc8, v13);
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cf[ty][tx] = acc8;
		__syncthreads();
		acc8 = krl_cf[0][tx];
		for (int k = 1; k < 8; k++)
			acc8 = krl_maxf(acc8, krl_cf[k][tx]);
		const float r14 = acc8;
		/* pass 2 */
		double acc15 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v16 = p_t8[(rb + r * a2)];
				const float v17 = ((v16) - (r14));
				const float v18 = expf(v17);
				const float v19 = p_t8[(rb + (r + 8) * a2)];
				const float v20 = ((v19) - (r14));
				const float v21 = expf(v20);
				const float v22 = p_t8[(rb + (r + 16) * a2)];
				const float v23 = ((v22) - (r14));
				const float v24 = expf(v23);
				const float v25 = p_t8[(rb + (r + 24) * a2)];
				const float v26 = ((v25) - (r14));
				const float v27 = expf(v26);
				acc15 += (double)((v18 + v21) + (v24 + v27));
			}
			for (; r < a1; r += 8) {
				const float v28 = p_t8[(rb + r * a2)];
				const float v29 = ((v28) - (r14));
				const float v30 = expf(v29);
				acc15 += (double)v30;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc15;
		__syncthreads();
		acc15 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc15 += krl_cd[k][tx];
		const float r31 = (float)acc15;
		/* pass 3 */
		float acc32 = -INFINITY;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v33 = p_t8[(rb + r * a2)];
				const float v34 = ((v33) - (r14));
				const float v35 = expf(v34);
				const float v36 = ((v35) / (r31));
				const float v37 = p_subtract[(r)];
				const float v38 = ((v36) - (v37));
				const float v39 = (1.f / (1.f + expf(-(v38))));
				const float v40 = ((v39) * (v38));
				const float v41 = p_t8[(rb + (r + 8) * a2)];
				const float v42 = ((v41) - (r14));
				const float v43 = expf(v42);
				const float v44 = ((v43) / (r31));
				const float v45 = p_subtract[((r + 8))];
				const float v46 = ((v44) - (v45));
				const float v47 = (1.f / (1.f + expf(-(v46))));
				const float v48 = ((v47) * (v46));
				const float v49 = p_t8[(rb + (r + 16) * a2)];
				const float v50 = ((v49) - (r14));
				const float v51 = expf(v50);
				const float v52 = ((v51) / (r31));
				const float v53 = p_subtract[((r + 16))];
				const float v54 = ((v52) - (v53));
				const float v55 = (1.f / (1.f + expf(-(v54))));
				const float v56 = ((v55) * (v54));
				const float v57 = p_t8[(rb + (r + 24) * a2)];
				const float v58 = ((v57) - (r14));
				const float v59 = expf(v58);
				const float v60 = ((v59) / (r31));
				const float v61 = p_subtract[((r + 24))];
				const float v62 = ((v60) - (v61));
				const float v63 = (1.f / (1.f + expf(-(v62))));
				const float v64 = ((v63) * (v62));
				acc32 = krl_maxf(acc32, krl_maxf(krl_maxf(v40, v48), krl_maxf(v56, v64)));
			}
			for (; r < a1; r += 8) {
				const float v65 = p_t8[(rb + r * a2)];
				const float v66 = ((v65) - (r14));
				const float v67 = expf(v66);
				const float v68 = ((v67) / (r31));
				const float v69 = p_subtract[(r)];
				const float v70 = ((v68) - (v69));
				const float v71 = (1.f / (1.f + expf(-(v70))));
				const float v72 = ((v71) * (v70));
				acc32 = krl_maxf(acc32, v72);
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cf[ty][tx] = acc32;
		__syncthreads();
		acc32 = krl_cf[0][tx];
		for (int k = 1; k < 8; k++)
			acc32 = krl_maxf(acc32, krl_cf[k][tx]);
		const float r73 = acc32;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_y[(o * a2 + c)] = r73;
		}
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t8 f32 [(batch_size), (out_channels), (pd), (ph), (pw)]
# k0: library call (node 5)
call conv_transpose(x, w) -> t5 stride=stride padding=padding output_padding=output_padding layout=nhwc_y
launch k1_pool grid=(min((batch_size) * cdiv((out_channels), 16) * cdiv((pd) * (ph) * (pw), 64), sm_count * 256)) block=(256) args((batch_size) * (out_channels) * (pd) * (ph),
    (od),
    (oh),
    (ow),
    (pd),
    (ph),
    (pw),
    (pool_kernel_size),
    (pool_stride),
    (pool_padding),
    (batch_size),
    (out_channels),
    (od) * (oh) * (ow),
    (pd) * (ph) * (pw),
    t5,
    b,
    t8)
launch k2_col grid=(min(((batch_size)) * cdiv((pd) * (ph) * (pw), 32), sm_count * 32)) block=(32, 8) args((batch_size),
    (out_channels),
    (pd) * (ph) * (pw),
    t8,
    subtract,
    y)
@*/
