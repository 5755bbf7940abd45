/*
 * krl-choice: rule.conv_bias=on row.block=256 pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nhwc_y conv.impl=lib
 * Task level2/6_conv3d_softmax_maxpool_maxpool, generated at shape set kb1; it serves every shape set.
 * fused 9 ops into 4 kernels: 1 row (block 256, regs), 2 pool (block 256, ept 1, inc taps; 1 over a channels-last y in its memory order), 1 library (layout nhwc)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: pool
 *   k3: pool
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
 * k1 (row over a middle axis: 32 columns x 8 rows of threads per block, 2 passes): nodes 5 view, 6 add, 7 max, 8 sub, 9 exp, 10 sum.
 * Writes: t7 t10.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_col(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	float *__restrict__ p_t7,
	float *__restrict__ p_t10)
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
		float acc0 = -INFINITY;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v1 = p_t4[((krl_div((rb + r * a2), a3) * a2 + krl_mod((rb + r * a2), a2)) * a1 + krl_mod(krl_div((rb + r * a2), a2), a1))];
				const float v2 = p_b[(r)];
				const float v3 = ((v1) + (v2));
				const float v4 = p_t4[((krl_div((rb + (r + 8) * a2), a3) * a2 + krl_mod((rb + (r + 8) * a2), a2)) * a1 + krl_mod(krl_div((rb + (r + 8) * a2), a2), a1))];
				const float v5 = p_b[((r + 8))];
				const float v6 = ((v4) + (v5));
				const float v7 = p_t4[((krl_div((rb + (r + 16) * a2), a3) * a2 + krl_mod((rb + (r + 16) * a2), a2)) * a1 + krl_mod(krl_div((rb + (r + 16) * a2), a2), a1))];
				const float v8 = p_b[((r + 16))];
				const float v9 = ((v7) + (v8));
				const float v10 = p_t4[((krl_div((rb + (r + 24) * a2), a3) * a2 + krl_mod((rb + (r + 24) * a2), a2)) * a1 + krl_mod(krl_div((rb + (r + 24) * a2), a2), a1))];
				const float v11 = p_b[((r + 24))];
				const float v12 = ((v10) + (v11));
				acc0 = krl_maxf(acc0, krl_maxf(krl_maxf(v3, v6), krl_maxf(v9, v12)));
			}
			for (; r < a1; r += 8) {
				const float v13 = p_t4[((krl_div((rb + r * a2), a3) * a2 + krl_mod((rb + r * a2), a2)) * a1 + krl_mod(krl_div((rb + r * a2), a2), a1))];
				const float v14 = p_b[(r)];
				const float v15 = ((v13) + (v14));
				acc0 = krl_maxf(acc0, v15);
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cf[ty][tx] = acc0;
		__syncthreads();
		acc0 = krl_cf[0][tx];
		for (int k = 1; k < 8; k++)
			acc0 = krl_maxf(acc0, krl_cf[k][tx]);
		const float r16 = acc0;
		/* pass 2 */
		double acc17 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v18 = p_t4[((krl_div((rb + r * a2), a3) * a2 + krl_mod((rb + r * a2), a2)) * a1 + krl_mod(krl_div((rb + r * a2), a2), a1))];
				const float v19 = p_b[(r)];
				const float v20 = ((v18) + (v19));
				const float v21 = ((v20) - (r16));
				const float v22 = expf(v21);
				const float v23 = p_t4[((krl_div((rb + (r + 8) * a2), a3) * a2 + krl_mod((rb + (r + 8) * a2), a2)) * a1 + krl_mod(krl_div((rb + (r + 8) * a2), a2), a1))];
				const float v24 = p_b[((r + 8))];
				const float v25 = ((v23) + (v24));
				const float v26 = ((v25) - (r16));
				const float v27 = expf(v26);
				const float v28 = p_t4[((krl_div((rb + (r + 16) * a2), a3) * a2 + krl_mod((rb + (r + 16) * a2), a2)) * a1 + krl_mod(krl_div((rb + (r + 16) * a2), a2), a1))];
				const float v29 = p_b[((r + 16))];
				const float v30 = ((v28) + (v29));
				const float v31 = ((v30) - (r16));
				const float v32 = expf(v31);
				const float v33 = p_t4[((krl_div((rb + (r + 24) * a2), a3) * a2 + krl_mod((rb + (r + 24) * a2), a2)) * a1 + krl_mod(krl_div((rb + (r + 24) * a2), a2), a1))];
				const float v34 = p_b[((r + 24))];
				const float v35 = ((v33) + (v34));
				const float v36 = ((v35) - (r16));
				const float v37 = expf(v36);
				acc17 += (double)((v22 + v27) + (v32 + v37));
			}
			for (; r < a1; r += 8) {
				const float v38 = p_t4[((krl_div((rb + r * a2), a3) * a2 + krl_mod((rb + r * a2), a2)) * a1 + krl_mod(krl_div((rb + r * a2), a2), a1))];
				const float v39 = p_b[(r)];
				const float v40 = ((v38) + (v39));
				const float v41 = ((v40) - (r16));
				const float v42 = expf(v41);
				acc17 += (double)v42;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc17;
		__syncthreads();
		acc17 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc17 += krl_cd[k][tx];
		const float r43 = (float)acc17;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_t7[(o * a2 + c)] = r16;
			p_t10[(o * a2 + c)] = r43;
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
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	long a14,
	const float *__restrict__ p_t7,
	const float *__restrict__ p_t10,
	float *__restrict__ p_t12)
{
	/* x is [.., IT, IH, IW] and the output [.., OT, OH, OW], seen as [rows, OW] */
	const long rows = a0, IT = a1, IH = a2, IW = a3, OT = a4, OH = a5, OW = a6;
	const long ksize = a7, stride = a7, pad = 0, dil = 1;
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize * dil;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IT + reach) * (IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k2_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, p_t4, p_b, a14, p_t7, p_t10, p_t12);
			return;
		}
	}
	const I nT = IT, nH = IH, nW = IW; /* the input's sizes */
	const I st = stride, pd = pad, dl = dil;
	const I kx = (ksize - 1) * dil + 1; /* a window's extent */
	/* x is [N, C, s...], in memory [N, s..., C]; S positions in, OS out */
	const long N = a8, C = a9, S = a10, OS = a11;
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
		const float v44 = p_b[(krl_mod(krl_div(rb0, a10), a9))];
		const float v51 = p_b[(krl_mod(krl_div(rb1, a10), a9))];
		const float v58 = p_b[(krl_mod(krl_div(rb2, a10), a9))];
		const float v65 = p_b[(krl_mod(krl_div(rb3, a10), a9))];
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
						const float4 q4 = *reinterpret_cast<const float4 *>(p_t4 + tb);
						tv[0] = q4.x; tv[1] = q4.y; tv[2] = q4.z; tv[3] = q4.w;
					} else {
						#pragma unroll
						for (int j = 0; j < 4; j++)
							tv[j] = p_t4[tb + (c0 + j < C ? j : C - 1 - c0)];
					}
					const float v45 = ((tv[0]) + (v44));
					const float v46 = p_t7[(krl_mod((rb0 + rr), a10) + krl_div((rb0 + rr), a14) * a10)];
					const float v47 = ((v45) - (v46));
					const float v48 = expf(v47);
					const float v49 = p_t10[(krl_mod((rb0 + rr), a10) + krl_div((rb0 + rr), a14) * a10)];
					const float v50 = ((v48) / (v49));
					if (v50 > m0 || v50 != v50) /* NaN wins */
						m0 = v50;
					const float v52 = ((tv[1]) + (v51));
					const float v53 = p_t7[(krl_mod((rb1 + rr), a10) + krl_div((rb1 + rr), a14) * a10)];
					const float v54 = ((v52) - (v53));
					const float v55 = expf(v54);
					const float v56 = p_t10[(krl_mod((rb1 + rr), a10) + krl_div((rb1 + rr), a14) * a10)];
					const float v57 = ((v55) / (v56));
					if (v57 > m1 || v57 != v57) /* NaN wins */
						m1 = v57;
					const float v59 = ((tv[2]) + (v58));
					const float v60 = p_t7[(krl_mod((rb2 + rr), a10) + krl_div((rb2 + rr), a14) * a10)];
					const float v61 = ((v59) - (v60));
					const float v62 = expf(v61);
					const float v63 = p_t10[(krl_mod((rb2 + rr), a10) + krl_div((rb2 + rr), a14) * a10)];
					const float v64 = ((v62) / (v63));
					if (v64 > m2 || v64 != v64) /* NaN wins */
						m2 = v64;
					const float v66 = ((tv[3]) + (v65));
					const float v67 = p_t7[(krl_mod((rb3 + rr), a10) + krl_div((rb3 + rr), a14) * a10)];
					const float v68 = ((v66) - (v67));
					const float v69 = expf(v68);
					const float v70 = p_t10[(krl_mod((rb3 + rr), a10) + krl_div((rb3 + rr), a14) * a10)];
					const float v71 = ((v69) / (v70));
					if (v71 > m3 || v71 != v71) /* NaN wins */
						m3 = v71;
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
			p_t12[o] = m;
		}
		__syncthreads();
	}
}

/*
 * k2 (pool: 3-d max over windows of its input (computed at every tap), a channels-last input read 16 channels x 64 positions a block, 4 channels a thread, stored through shared memory, 256 threads): nodes 5 view, 6 add, 8 sub, 9 exp, 11 div, 12 max_pool.
 * Writes: t12.
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
	long a11,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	long a14,
	const float *__restrict__ p_t7,
	const float *__restrict__ p_t10,
	float *__restrict__ p_t12)
{
	k2_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, p_t4, p_b, a14, p_t7, p_t10, p_t12);
}
/* k3_pool's outputs, with offsets and coordinates in a plane of type I:
 * int when the plane, widened by a window's reach, fits (the usual case),
 * else long */
template <typename I>
static __device__ __forceinline__ void
k3_pool_walk(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	long a7,
	const float *__restrict__ p_t12,
	float *__restrict__ p_y)
{
	/* x is [.., IT, IH, IW] and the output [.., OT, OH, OW], seen as [rows, OW] */
	const long rows = a0, IT = a1, IH = a2, IW = a3, OT = a4, OH = a5, OW = a6;
	const long ksize = a7, stride = a7, pad = 0, dil = 1;
	const long plane = IT * IH * IW; /* elements of an input plane */
	/* a warp takes 32 consecutive outputs of a row, lane l the outputs l, l + 32, ... */
	const long groups = (OW + 31) / 32; /* per row */
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize * dil;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IT + reach) * (IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k3_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, p_t12, p_y);
			return;
		}
	}
	const I nT = IT, nH = IH, nW = IW; /* the input's sizes */
	const I st = stride, pd = pad, dl = dil;
	const I kx = (ksize - 1) * dil + 1; /* a window's extent */
	const I tstep = dl * nH * nW; /* from a tap plane to the next */
	const I hstep = dl * nW; /* from a tap row to the next */
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
		/* the taps inside the input: the first past the padding, in steps of dl */
		const I tlo = ts >= 0 ? ts : ts + (dl - 1 - ts) / dl * dl;
		const I thi = ts + kx < nT ? ts + kx : nT;
		const I hs = oh * st - pd; /* window start */
		/* the taps inside the input: the first past the padding, in steps of dl */
		const I hlo = hs >= 0 ? hs : hs + (dl - 1 - hs) / dl * dl;
		const I hhi = hs + kx < nH ? hs + kx : nH;
		const long ow = ow0;
		if (ow >= OW)
			continue;
		const I ws = (I)ow * st - pd; /* window start */
		/* the taps inside the input: the first past the padding, in steps of dl */
		const I wlo = ws >= 0 ? ws : ws + (dl - 1 - ws) / dl * dl;
		const I whi = ws + kx < nW ? ws + kx : nW;
		float m = -INFINITY;
		for (I xt = tlo * (nH * nW); xt < thi * (nH * nW); xt += tstep) {
			for (I xh = xt + hlo * nW; xh < xt + hhi * nW; xh += hstep) {
				for (I xw = xh + wlo; xw < xh + whi; xw += dl) {
					const long xi = xb + xw;
					const float v72 = p_t12[xi];
					if (v72 > m || v72 != v72) /* NaN wins */
						m = v72;
				}
			}
		}
		const long o = row * OW + ow;
		p_y[o] = m;
	}
}

/*
 * k3 (pool: 3-d max over windows of t12, 1 output per thread along the last dim, 256 threads): nodes 13 max_pool.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_pool(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	long a7,
	const float *__restrict__ p_t12,
	float *__restrict__ p_y)
{
	k3_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, p_t12, p_y);
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t7 f32 [(batch_size), (1), (od), (oh), (ow)]
buffer t10 f32 [(batch_size), (1), (od), (oh), (ow)]
buffer t12 f32 [(batch_size), (out_channels), (pd), (ph), (pw)]
# k0: library call (node 4)
call conv(x, w) -> t4 layout=nhwc_y
launch k1_col grid=(min(((batch_size)) * cdiv((od) * (oh) * (ow), 32), sm_count * 32)) block=(32, 8) args((batch_size),
    (out_channels),
    (od) * (oh) * (ow),
    (out_channels) * (od) * (oh) * (ow),
    t4,
    b,
    t7,
    t10)
launch k2_pool grid=(min((batch_size) * cdiv((out_channels), 16) * cdiv((pd) * (ph) * (pw), 64), sm_count * 256)) block=(256) args((batch_size) * (out_channels) * (pd) * (ph),
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
    t4,
    b,
    (out_channels) * (od) * (oh) * (ow),
    t7,
    t10,
    t12)
launch k3_pool grid=(min(cdiv((batch_size) * (out_channels) * (qd) * (qh) * cdiv((qw), 32) * 32, 256), sm_count * 1024)) block=(256) args((batch_size) * (out_channels) * (qd) * (qh),
    (pd),
    (ph),
    (pw),
    (qd),
    (qh),
    (qw),
    (pool),
    t12,
    y)
@*/
