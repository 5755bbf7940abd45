/*
 * krl-choice: map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.block=256 pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8 conv.impl=lib
 * Task level2/43_conv3d_max_logsumexp_relu, generated at shape set kb1; it serves every shape set.
 * fused 12 ops into 4 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 1 row (block 256, regs), 1 pool (block 256, ept 1, inc taps), 1 library
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: pool
 *   k2: row
 *   k3: map
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
	const float *__restrict__ p_t4,
	float *__restrict__ p_t5)
{
	/* x is [.., IT, IH, IW] and the output [.., OT, OH, OW], seen as [rows, OW] */
	const long rows = a0, IT = a1, IH = a2, IW = a3, OT = a4, OH = a5, OW = a6;
	const long ksize = 2, stride = 2, pad = 0, dil = 1;
	const long plane = IT * IH * IW; /* elements of an input plane */
	/* a warp takes 32 consecutive outputs of a row, lane l the outputs l, l + 32, ... */
	const long groups = (OW + 31) / 32; /* per row */
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize * dil;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IT + reach) * (IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k1_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, p_t4, p_t5);
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
					const float v0 = p_t4[xi];
					if (v0 > m || v0 != v0) /* NaN wins */
						m = v0;
				}
			}
		}
		const long o = row * OW + ow;
		p_t5[o] = m;
	}
}

/*
 * k1 (pool: 3-d max over windows of t4, 1 output per thread along the last dim, 256 threads): nodes 5 max_pool.
 * Writes: t5.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_pool(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	const float *__restrict__ p_t4,
	float *__restrict__ p_t5)
{
	k1_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, p_t4, p_t5);
}

/*
 * k2 (row over a middle axis: 32 columns x 8 rows of threads per block, 2 passes): nodes 6 max, 7 sub, 9 eq, 10 where, 11 sub, 12 exp, 13 sum, 14 log.
 * Writes: t10 t14.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t5,
	float *__restrict__ p_t10,
	float *__restrict__ p_t14)
{
	__shared__ double krl_cd[8][33];
	__shared__ float krl_cf[8][33];
	const float v11 = 0.000000000e+00f;
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
		float acc1 = -INFINITY;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v2 = p_t5[(rb + r * a2)];
				const float v3 = p_t5[(rb + (r + 8) * a2)];
				const float v4 = p_t5[(rb + (r + 16) * a2)];
				const float v5 = p_t5[(rb + (r + 24) * a2)];
				acc1 = krl_maxf(acc1, krl_maxf(krl_maxf(v2, v3), krl_maxf(v4, v5)));
			}
			for (; r < a1; r += 8) {
				const float v6 = p_t5[(rb + r * a2)];
				acc1 = krl_maxf(acc1, v6);
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cf[ty][tx] = acc1;
		__syncthreads();
		acc1 = krl_cf[0][tx];
		for (int k = 1; k < 8; k++)
			acc1 = krl_maxf(acc1, krl_cf[k][tx]);
		const float r7 = acc1;
		const float v10 = ((r7) - (r7));
		const float v12 = ((float)((v10) == (v11)));
		const float v13 = ((v12) != 0.f ? (r7) : (v11));
		/* pass 2 */
		double acc8 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v9 = p_t5[(rb + r * a2)];
				const float v14 = ((v9) - (v13));
				const float v15 = expf(v14);
				const float v16 = p_t5[(rb + (r + 8) * a2)];
				const float v17 = ((v16) - (v13));
				const float v18 = expf(v17);
				const float v19 = p_t5[(rb + (r + 16) * a2)];
				const float v20 = ((v19) - (v13));
				const float v21 = expf(v20);
				const float v22 = p_t5[(rb + (r + 24) * a2)];
				const float v23 = ((v22) - (v13));
				const float v24 = expf(v23);
				acc8 += (double)((v15 + v18) + (v21 + v24));
			}
			for (; r < a1; r += 8) {
				const float v25 = p_t5[(rb + r * a2)];
				const float v26 = ((v25) - (v13));
				const float v27 = expf(v26);
				acc8 += (double)v27;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc8;
		__syncthreads();
		acc8 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc8 += krl_cd[k][tx];
		const float r28 = (float)acc8;
		/* the outputs of the row shape */
		const float v29 = ((r7) - (r7));
		const float v30 = ((float)((v29) == (v11)));
		const float v31 = ((v30) != 0.f ? (r7) : (v11));
		const float v32 = logf(r28);
		if (valid && ty == 0) {
			p_t10[(o * a2 + c)] = v31;
			p_t14[(o * a2 + c)] = v32;
		}
	}
}

/*
 * k3 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 15 add, 16 relu.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_map(long a0,
	const float *__restrict__ p_t14,
	const float *__restrict__ p_t10,
	float *__restrict__ p_y)
{
	const int tid = threadIdx.x;
	const long nv = (true) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w33 = *reinterpret_cast<const float4 *>(p_t14 + i);
				const float4 w34 = *reinterpret_cast<const float4 *>(p_t10 + i);
				const float v35 = ((w33.x) + (w34.x));
				const float v36 = krl_maxf(v35, 0.f);
				const float v37 = ((w33.y) + (w34.y));
				const float v38 = krl_maxf(v37, 0.f);
				const float v39 = ((w33.z) + (w34.z));
				const float v40 = krl_maxf(v39, 0.f);
				const float v41 = ((w33.w) + (w34.w));
				const float v42 = krl_maxf(v41, 0.f);
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v36, v38, v40, v42);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v43 = p_t14[i];
		const float v44 = p_t10[i];
		const float v45 = ((v43) + (v44));
		const float v46 = krl_maxf(v45, 0.f);
		p_y[i] = v46;
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t5 f32 [(batch_size), (out_channels), (pd), (ph), (pw)]
buffer t10 f32 [(batch_size), (1), (pd), (ph), (pw)]
buffer t14 f32 [(batch_size), (1), (pd), (ph), (pw)]
# k0: library call (node 4)
call conv_bias(x, w, b) -> t4 stride=stride padding=padding
launch k1_pool grid=(min(cdiv((batch_size) * (out_channels) * (pd) * (ph) * cdiv((pw), 32) * 32, 256), sm_count * 1024)) block=(256) args((batch_size) * (out_channels) * (pd) * (ph),
    (od),
    (oh),
    (ow),
    (pd),
    (ph),
    (pw),
    t4,
    t5)
launch k2_col grid=(min(((batch_size)) * cdiv((pd) * (ph) * (pw), 32), sm_count * 32)) block=(32, 8) args((batch_size),
    (out_channels),
    (pd) * (ph) * (pw),
    t5,
    t10,
    t14)
launch k3_map grid=(cdiv((batch_size) * (pd) * (ph) * (pw), 1024)) block=(256) args((batch_size) * (pd) * (ph) * (pw),
    t14,
    t10,
    y)
@*/
