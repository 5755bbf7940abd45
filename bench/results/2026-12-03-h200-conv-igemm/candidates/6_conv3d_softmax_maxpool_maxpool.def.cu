/*
 * krl-choice: row.block=256 pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nchw conv.impl=lib
 * Task level2/6_conv3d_softmax_maxpool_maxpool, generated at shape set kb1; it serves every shape set.
 * fused 8 ops into 4 kernels: 1 row (block 256, regs), 2 pool (block 256, ept 1, inc taps), 1 library
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
 * k1 (row over a middle axis: 32 columns x 8 rows of threads per block, 2 passes): nodes 5 max, 6 sub, 7 exp, 8 sum.
 * Writes: t5 t8.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t4,
	float *__restrict__ p_t5,
	float *__restrict__ p_t8)
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
				const float v1 = p_t4[(rb + r * a2)];
				const float v2 = p_t4[(rb + (r + 8) * a2)];
				const float v3 = p_t4[(rb + (r + 16) * a2)];
				const float v4 = p_t4[(rb + (r + 24) * a2)];
				acc0 = krl_maxf(acc0, krl_maxf(krl_maxf(v1, v2), krl_maxf(v3, v4)));
			}
			for (; r < a1; r += 8) {
				const float v5 = p_t4[(rb + r * a2)];
				acc0 = krl_maxf(acc0, v5);
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cf[ty][tx] = acc0;
		__syncthreads();
		acc0 = krl_cf[0][tx];
		for (int k = 1; k < 8; k++)
			acc0 = krl_maxf(acc0, krl_cf[k][tx]);
		const float r6 = acc0;
		/* pass 2 */
		double acc7 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v8 = p_t4[(rb + r * a2)];
				const float v9 = ((v8) - (r6));
				const float v10 = expf(v9);
				const float v11 = p_t4[(rb + (r + 8) * a2)];
				const float v12 = ((v11) - (r6));
				const float v13 = expf(v12);
				const float v14 = p_t4[(rb + (r + 16) * a2)];
				const float v15 = ((v14) - (r6));
				const float v16 = expf(v15);
				const float v17 = p_t4[(rb + (r + 24) * a2)];
				const float v18 = ((v17) - (r6));
				const float v19 = expf(v18);
				acc7 += (double)((v10 + v13) + (v16 + v19));
			}
			for (; r < a1; r += 8) {
				const float v20 = p_t4[(rb + r * a2)];
				const float v21 = ((v20) - (r6));
				const float v22 = expf(v21);
				acc7 += (double)v22;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc7;
		__syncthreads();
		acc7 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc7 += krl_cd[k][tx];
		const float r23 = (float)acc7;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_t5[(o * a2 + c)] = r6;
			p_t8[(o * a2 + c)] = r23;
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
	const float *__restrict__ p_t4,
	long a9,
	long a10,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_t8,
	float *__restrict__ p_t10)
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
			k2_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, p_t4, a9, a10, p_t5, p_t8, p_t10);
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
					const float v24 = p_t4[xi];
					const float v25 = p_t5[(krl_mod(xi, a9) + krl_div(xi, a10) * a9)];
					const float v26 = ((v24) - (v25));
					const float v27 = expf(v26);
					const float v28 = p_t8[(krl_mod(xi, a9) + krl_div(xi, a10) * a9)];
					const float v29 = ((v27) / (v28));
					if (v29 > m || v29 != v29) /* NaN wins */
						m = v29;
				}
			}
		}
		const long o = row * OW + ow;
		p_t10[o] = m;
	}
}

/*
 * k2 (pool: 3-d max over windows of its input (computed at every tap), 1 output per thread along the last dim, 256 threads): nodes 6 sub, 7 exp, 9 div, 10 max_pool.
 * Writes: t10.
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
	const float *__restrict__ p_t4,
	long a9,
	long a10,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_t8,
	float *__restrict__ p_t10)
{
	k2_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, p_t4, a9, a10, p_t5, p_t8, p_t10);
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
	const float *__restrict__ p_t10,
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
			k3_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, p_t10, p_y);
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
					const float v30 = p_t10[xi];
					if (v30 > m || v30 != v30) /* NaN wins */
						m = v30;
				}
			}
		}
		const long o = row * OW + ow;
		p_y[o] = m;
	}
}

/*
 * k3 (pool: 3-d max over windows of t10, 1 output per thread along the last dim, 256 threads): nodes 11 max_pool.
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
	const float *__restrict__ p_t10,
	float *__restrict__ p_y)
{
	k3_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, p_t10, p_y);
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t5 f32 [(batch_size), (1), (od), (oh), (ow)]
buffer t8 f32 [(batch_size), (1), (od), (oh), (ow)]
buffer t10 f32 [(batch_size), (out_channels), (pd), (ph), (pw)]
# k0: library call (node 4)
call conv_bias(x, w, b) -> t4
launch k1_col grid=(min(((batch_size)) * cdiv((od) * (oh) * (ow), 32), sm_count * 32)) block=(32, 8) args((batch_size),
    (out_channels),
    (od) * (oh) * (ow),
    t4,
    t5,
    t8)
launch k2_pool grid=(min(cdiv((batch_size) * (out_channels) * (pd) * (ph) * cdiv((pw), 32) * 32, 256), sm_count * 1024)) block=(256) args((batch_size) * (out_channels) * (pd) * (ph),
    (od),
    (oh),
    (ow),
    (pd),
    (ph),
    (pw),
    (pool),
    t4,
    (od) * (oh) * (ow),
    (out_channels) * (od) * (oh) * (ow),
    t5,
    t8,
    t10)
launch k3_pool grid=(min(cdiv((batch_size) * (out_channels) * (qd) * (qh) * cdiv((qw), 32) * 32, 256), sm_count * 1024)) block=(256) args((batch_size) * (out_channels) * (qd) * (qh),
    (pd),
    (ph),
    (pw),
    (qd),
    (qh),
    (qw),
    (pool),
    t10,
    y)
@*/
