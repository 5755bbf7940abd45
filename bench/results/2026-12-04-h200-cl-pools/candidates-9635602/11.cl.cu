/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.strategy=auto row.block=256 row.cache=regs pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=chan8 lib.tconv=dgrad
 * Task level2/11_convtranspose2d_batchnorm_tanh_maxpool_groupnorm, generated at shape set kb1; it serves every shape set.
 * fused 28 ops into 8 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 5 row (block 256, regs; 2 over a channels-last y in its memory order), 1 pool (block 256, ept 1, inc taps; 1 over a channels-last y in its memory order), 1 library (layout nhwc)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: row
 *   k3: row
 *   k4: row
 *   k5: pool
 *   k6: row
 *   k7: map
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
 * k1 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass; the columns of a channels-last input's memory (spatial positions after the reduced axes, then channels)): nodes 9 view, 10 add, 11 sum.
 * Writes: t11.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_col(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t8,
	long a5,
	const float *__restrict__ p_b,
	float *__restrict__ p_t11)
{
	__shared__ double krl_cd[8][33];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a3 + 31) / 32;
	for (long blk = blockIdx.x; blk < a2 * ncb; blk += gridDim.x) {
		const long op = blk / ncb;
		const long cc = (blk % ncb) * 32 + tx;
		const bool valid = cc < a3;
		/* past the last column: compute the last one's values (in bounds), store nothing */
		const long cp = valid ? cc : a3 - 1;
		const long o = op * a5 + cp % a5;
		const long rb = o * a1;
		const long pb = op * a1 * a3 + cp;
		const float v2 = p_b[(krl_mod(krl_div(rb, a1), a5))];
		/* pass 1 */
		double acc0 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v1 = p_t8[(pb + r * a3)];
				const float v3 = ((v1) + (v2));
				const float v4 = p_t8[(pb + (r + 8) * a3)];
				const float v5 = ((v4) + (v2));
				const float v6 = p_t8[(pb + (r + 16) * a3)];
				const float v7 = ((v6) + (v2));
				const float v8 = p_t8[(pb + (r + 24) * a3)];
				const float v9 = ((v8) + (v2));
				acc0 += (double)((v3 + v5) + (v7 + v9));
			}
			for (; r < a1; r += 8) {
				const float v10 = p_t8[(pb + r * a3)];
				const float v11 = ((v10) + (v2));
				acc0 += (double)v11;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc0;
		__syncthreads();
		acc0 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc0 += krl_cd[k][tx];
		const float r12 = (float)acc0;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_t11[o] = r12;
		}
	}
}

/*
 * k2 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 12 sum, 14 mul.
 * Writes: t14.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t11,
	double c4,
	float *__restrict__ p_t14)
{
	__shared__ double krl_cd[8][33];
	const float v20 = (float)c4;
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
		double acc13 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v14 = p_t11[(rb + r * a2)];
				const float v15 = p_t11[(rb + (r + 8) * a2)];
				const float v16 = p_t11[(rb + (r + 16) * a2)];
				const float v17 = p_t11[(rb + (r + 24) * a2)];
				acc13 += (double)((v14 + v15) + (v16 + v17));
			}
			for (; r < a1; r += 8) {
				const float v18 = p_t11[(rb + r * a2)];
				acc13 += (double)v18;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc13;
		__syncthreads();
		acc13 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc13 += krl_cd[k][tx];
		const float r19 = (float)acc13;
		/* the outputs of the row shape */
		const float v21 = ((r19) * (v20));
		if (valid && ty == 0) {
			p_t14[(o * a2 + c)] = v21;
		}
	}
}

/*
 * k3 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass; the columns of a channels-last input's memory (spatial positions after the reduced axes, then channels)): nodes 9 view, 10 add, 15 sub, 16 square, 17 sum.
 * Writes: t17.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_col(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t8,
	long a5,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t14,
	float *__restrict__ p_t17)
{
	__shared__ double krl_cd[8][33];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a3 + 31) / 32;
	for (long blk = blockIdx.x; blk < a2 * ncb; blk += gridDim.x) {
		const long op = blk / ncb;
		const long cc = (blk % ncb) * 32 + tx;
		const bool valid = cc < a3;
		/* past the last column: compute the last one's values (in bounds), store nothing */
		const long cp = valid ? cc : a3 - 1;
		const long o = op * a5 + cp % a5;
		const long rb = o * a1;
		const long pb = op * a1 * a3 + cp;
		const float v24 = p_b[(krl_mod(krl_div(rb, a1), a5))];
		const float v26 = p_t14[(krl_mod(krl_div(rb, a1), a5))];
		/* pass 1 */
		double acc22 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v23 = p_t8[(pb + r * a3)];
				const float v25 = ((v23) + (v24));
				const float v27 = ((v25) - (v26));
				const float v28 = ((v27) * (v27));
				const float v29 = p_t8[(pb + (r + 8) * a3)];
				const float v30 = ((v29) + (v24));
				const float v31 = ((v30) - (v26));
				const float v32 = ((v31) * (v31));
				const float v33 = p_t8[(pb + (r + 16) * a3)];
				const float v34 = ((v33) + (v24));
				const float v35 = ((v34) - (v26));
				const float v36 = ((v35) * (v35));
				const float v37 = p_t8[(pb + (r + 24) * a3)];
				const float v38 = ((v37) + (v24));
				const float v39 = ((v38) - (v26));
				const float v40 = ((v39) * (v39));
				acc22 += (double)((v28 + v32) + (v36 + v40));
			}
			for (; r < a1; r += 8) {
				const float v41 = p_t8[(pb + r * a3)];
				const float v42 = ((v41) + (v24));
				const float v43 = ((v42) - (v26));
				const float v44 = ((v43) * (v43));
				acc22 += (double)v44;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc22;
		__syncthreads();
		acc22 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc22 += krl_cd[k][tx];
		const float r45 = (float)acc22;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_t17[o] = r45;
		}
	}
}

/*
 * k4 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 18 sum, 20 mul, 22 add, 23 rsqrt.
 * Writes: t23.
 */
extern "C" __global__ void __launch_bounds__(256)
k4_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t17,
	double c4,
	double c5,
	float *__restrict__ p_t23)
{
	__shared__ double krl_cd[8][33];
	const float v53 = (float)c4;
	const float v55 = (float)c5;
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
		double acc46 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v47 = p_t17[(rb + r * a2)];
				const float v48 = p_t17[(rb + (r + 8) * a2)];
				const float v49 = p_t17[(rb + (r + 16) * a2)];
				const float v50 = p_t17[(rb + (r + 24) * a2)];
				acc46 += (double)((v47 + v48) + (v49 + v50));
			}
			for (; r < a1; r += 8) {
				const float v51 = p_t17[(rb + r * a2)];
				acc46 += (double)v51;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc46;
		__syncthreads();
		acc46 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc46 += krl_cd[k][tx];
		const float r52 = (float)acc46;
		/* the outputs of the row shape */
		const float v54 = ((r52) * (v53));
		const float v56 = ((v54) + (v55));
		const float v57 = rsqrtf(v56);
		if (valid && ty == 0) {
			p_t23[(o * a2 + c)] = v57;
		}
	}
}
/* k5_pool's outputs, with offsets and coordinates in a plane of type I:
 * int when the plane, widened by a window's reach, fits (the usual case),
 * else long */
template <typename I>
static __device__ __forceinline__ void
k5_pool_walk(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	long a7,
	long a8,
	long a9,
	const float *__restrict__ p_t8,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t14,
	const float *__restrict__ p_t23,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	float *__restrict__ p_t30)
{
	/* x is [.., IH, IW] and the output [.., OH, OW], seen as [rows, OW] */
	const long rows = a0, IH = a1, IW = a2, OH = a3, OW = a4;
	const long ksize = a5, stride = a5, pad = 0, dil = 1;
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize * dil;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k5_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, p_t8, p_b, p_t14, p_t23, p_bn_w, p_bn_b, p_t30);
			return;
		}
	}
	const I nH = IH, nW = IW; /* the input's sizes */
	const I st = stride, pd = pad, dl = dil;
	const I kx = (ksize - 1) * dil + 1; /* a window's extent */
	/* x is [N, C, s...], in memory [N, s..., C]; S positions in, OS out */
	const long N = a6, C = a7, S = a8, OS = a9;
	const long ncb = (C + 31) / 32, nsb = (OS + 31) / 32; /* blocks of channels, of positions */
	const bool tvec = (C & 3) == 0; /* float4 loads */
	/* a block's outputs: 32 channels x 32 positions, a row per channel */
	__shared__ float tm[1056];
	const int tq = threadIdx.x % 8, sl = threadIdx.x / 8; /* channels 4 tq.., position sl */
	/* neighbouring blocks: the channel blocks of the same positions */
	for (long b = blockIdx.x; b < N * ncb * nsb; b += gridDim.x) {
		const long bs = krl_div(b, ncb), n = krl_div(bs, nsb);
		const long c0 = (b - bs * ncb) * 32 + 4 * tq, s0 = (bs - n * nsb) * 32;
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
		const float v58 = p_b[(ch0)];
		const float v60 = p_t14[(ch0)];
		const float v62 = p_t23[(ch0)];
		const float v64 = p_bn_w[(ch0)];
		const float v66 = p_bn_b[(ch0)];
		const float v69 = p_b[(ch1)];
		const float v71 = p_t14[(ch1)];
		const float v73 = p_t23[(ch1)];
		const float v75 = p_bn_w[(ch1)];
		const float v77 = p_bn_b[(ch1)];
		const float v80 = p_b[(ch2)];
		const float v82 = p_t14[(ch2)];
		const float v84 = p_t23[(ch2)];
		const float v86 = p_bn_w[(ch2)];
		const float v88 = p_bn_b[(ch2)];
		const float v91 = p_b[(ch3)];
		const float v93 = p_t14[(ch3)];
		const float v95 = p_t23[(ch3)];
		const float v97 = p_bn_w[(ch3)];
		const float v99 = p_bn_b[(ch3)];
		const I so = live ? (I)s : 0;
		const I qw = so / (I)OW;
		const I ow = so - qw * (I)OW;
		const I oh = qw;
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
		/* the window's 2 x 2 taps, those outside the input skipped */
		#pragma unroll
		for (int kh = 0; kh < 2; kh++) {
			const I ih = hs + kh;
			if (!live || ih < 0 || ih >= nH)
				continue;
			#pragma unroll
			for (int kw = 0; kw < 2; kw++) {
				const I iw = ws + kw;
				if (iw < 0 || iw >= nW)
					continue;
				const I rr = ih * nW + iw; /* the tap in the plane */
				const long tb = yb + (long)rr * C + c0;
				float tv[4];
				if (tvec && c0 + 4 <= C) {
					const float4 q4 = *reinterpret_cast<const float4 *>(p_t8 + tb);
					tv[0] = q4.x; tv[1] = q4.y; tv[2] = q4.z; tv[3] = q4.w;
				} else {
					#pragma unroll
					for (int j = 0; j < 4; j++)
						tv[j] = p_t8[tb + (c0 + j < C ? j : C - 1 - c0)];
				}
				const float v59 = ((tv[0]) + (v58));
				const float v61 = ((v59) - (v60));
				const float v63 = ((v61) * (v62));
				const float v65 = ((v63) * (v64));
				const float v67 = ((v65) + (v66));
				const float v68 = tanhf(v67);
				if (v68 > m0 || v68 != v68) /* NaN wins */
					m0 = v68;
				const float v70 = ((tv[1]) + (v69));
				const float v72 = ((v70) - (v71));
				const float v74 = ((v72) * (v73));
				const float v76 = ((v74) * (v75));
				const float v78 = ((v76) + (v77));
				const float v79 = tanhf(v78);
				if (v79 > m1 || v79 != v79) /* NaN wins */
					m1 = v79;
				const float v81 = ((tv[2]) + (v80));
				const float v83 = ((v81) - (v82));
				const float v85 = ((v83) * (v84));
				const float v87 = ((v85) * (v86));
				const float v89 = ((v87) + (v88));
				const float v90 = tanhf(v89);
				if (v90 > m2 || v90 != v90) /* NaN wins */
					m2 = v90;
				const float v92 = ((tv[3]) + (v91));
				const float v94 = ((v92) - (v93));
				const float v96 = ((v94) * (v95));
				const float v98 = ((v96) * (v97));
				const float v100 = ((v98) + (v99));
				const float v101 = tanhf(v100);
				if (v101 > m3 || v101 != v101) /* NaN wins */
					m3 = v101;
			}
		}
		tm[(4 * tq + 0) * 33 + sl] = m0;
		tm[(4 * tq + 1) * 33 + sl] = m1;
		tm[(4 * tq + 2) * 33 + sl] = m2;
		tm[(4 * tq + 3) * 33 + sl] = m3;
		__syncthreads();
		/* each channel's run of positions, contiguous in the NCHW outputs */
		const long cb = c0 - 4 * tq;
		for (int e = 0; e < 4; e++) {
			const int t = threadIdx.x + e * 256, cq = t / 32, sq = t % 32;
			const long s = s0 + sq;
			if (cb + cq >= C || s >= OS)
				continue;
			const long nc = n * C + cb + cq, ob = nc * OS, o = ob + s;
			const float m = tm[cq * 33 + sq];
			p_t30[o] = m;
		}
		__syncthreads();
	}
}

/*
 * k5 (pool: 2-d max over windows of its input (computed at every tap), a channels-last input read 32 channels x 32 positions a block, 4 channels a thread, stored through shared memory, 256 threads): nodes 9 view, 10 add, 15 sub, 24 mul, 25 view, 26 view, 27 mul, 28 add, 29 tanh, 30 max_pool.
 * Writes: t30.
 */
extern "C" __global__ void __launch_bounds__(256)
k5_pool(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	long a7,
	long a8,
	long a9,
	const float *__restrict__ p_t8,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t14,
	const float *__restrict__ p_t23,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	float *__restrict__ p_t30)
{
	k5_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, p_t8, p_b, p_t14, p_t23, p_bn_w, p_bn_b, p_t30);
}

/*
 * k6 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 31 view, 32 sum, 34 mul, 35 sub, 36 square, 37 sum, 39 mul, 41 add, 42 rsqrt.
 * Writes: t34 t42.
 */
extern "C" __global__ void __launch_bounds__(256)
k6_row(long a0,
	long a1,
	const float *__restrict__ p_t30,
	double c3,
	float *__restrict__ p_t34,
	double c5,
	float *__restrict__ p_t42)
{
	const float v114 = (float)c3;
	const float v120 = (float)c3;
	const float v122 = (float)c5;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		const float v102 = p_t30[(rb + 0)];
		/* pass 1 */
		double acc103 = 0.0;
		double acc104 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w105 = *reinterpret_cast<const float4 *>(p_t30 + (rb + r));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = w105.x - v102;
					const float d1 = w105.y - v102;
					const float d2 = w105.z - v102;
					const float d3 = w105.w - v102;
					acc103 += (double)((d0 + d1) + (d2 + d3));
					acc104 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
				}
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v106 = p_t30[(rb + r)];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v106 - v102;
						acc103 += (double)d0;
						acc104 += (double)(d0 * d0);
					}
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v107 = p_t30[(rb + r)];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v107 - v102;
						acc103 += (double)d0;
						acc104 += (double)(d0 * d0);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w108 = *reinterpret_cast<const float4 *>(p_t30 + (rb + r));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = w108.x - v102;
						const float d1 = w108.y - v102;
						const float d2 = w108.z - v102;
						const float d3 = w108.w - v102;
						acc103 += (double)((d0 + d1) + (d2 + d3));
						acc104 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v109 = p_t30[(rb + r)];
					const float v110 = p_t30[(rb + (r + 256))];
					const float v111 = p_t30[(rb + (r + 512))];
					const float v112 = p_t30[(rb + (r + 768))];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v109 - v102;
						const float d1 = v110 - v102;
						const float d2 = v111 - v102;
						const float d3 = v112 - v102;
						acc103 += (double)((d0 + d1) + (d2 + d3));
						acc104 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
				for (; r < a1; r += 256) {
					const float v113 = p_t30[(rb + r)];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v113 - v102;
						acc103 += (double)d0;
						acc104 += (double)(d0 * d0);
					}
				}
			}
		}
		acc103 = krl_block_sum(acc103);
		acc104 = krl_block_sum(acc104);
		const float r115 = (float)(acc103 + (double)a1 * (double)v102);
		const float m117 = r115 * v114;
		const double dm118 = (double)m117 - (double)v102;
		const float r116 = (float)fmax(acc104 - 2.0 * dm118 * acc103 + (double)a1 * dm118 * dm118, 0.0);
		/* the outputs of the row shape */
		const float v119 = ((r115) * (v114));
		const float v121 = ((r116) * (v120));
		const float v123 = ((v121) + (v122));
		const float v124 = rsqrtf(v123);
		if (lid == 0) {
			p_t34[o] = v119;
			p_t42[o] = v124;
		}
	}
}

/*
 * k7 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 31 view, 35 sub, 43 mul, 44 view, 45 view, 46 view, 47 mul, 48 add.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k7_map(long a0,
	const float *__restrict__ p_t30,
	long a2,
	const float *__restrict__ p_t34,
	const float *__restrict__ p_t42,
	long a5,
	long a6,
	const float *__restrict__ p_gn_w,
	const float *__restrict__ p_gn_b,
	float *__restrict__ p_y)
{
	const int tid = threadIdx.x;
	const long nv = (a2 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w125 = *reinterpret_cast<const float4 *>(p_t30 + i);
				const float v126 = p_t34[(krl_div(i, a2))];
				const float v127 = ((w125.x) - (v126));
				const float v128 = p_t42[(krl_div(i, a2))];
				const float v129 = ((v127) * (v128));
				const float v130 = p_gn_w[(krl_mod(krl_div(i, a5), a6))];
				const float v131 = ((v129) * (v130));
				const float v132 = p_gn_b[(krl_mod(krl_div(i, a5), a6))];
				const float v133 = ((v131) + (v132));
				const float v134 = ((w125.y) - (v126));
				const float v135 = ((v134) * (v128));
				const float v136 = p_gn_w[(krl_mod(krl_div((i + 1), a5), a6))];
				const float v137 = ((v135) * (v136));
				const float v138 = p_gn_b[(krl_mod(krl_div((i + 1), a5), a6))];
				const float v139 = ((v137) + (v138));
				const float v140 = ((w125.z) - (v126));
				const float v141 = ((v140) * (v128));
				const float v142 = p_gn_w[(krl_mod(krl_div((i + 2), a5), a6))];
				const float v143 = ((v141) * (v142));
				const float v144 = p_gn_b[(krl_mod(krl_div((i + 2), a5), a6))];
				const float v145 = ((v143) + (v144));
				const float v146 = ((w125.w) - (v126));
				const float v147 = ((v146) * (v128));
				const float v148 = p_gn_w[(krl_mod(krl_div((i + 3), a5), a6))];
				const float v149 = ((v147) * (v148));
				const float v150 = p_gn_b[(krl_mod(krl_div((i + 3), a5), a6))];
				const float v151 = ((v149) + (v150));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v133, v139, v145, v151);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v152 = p_t30[i];
		const float v153 = p_t34[(krl_div(i, a2))];
		const float v154 = ((v152) - (v153));
		const float v155 = p_t42[(krl_div(i, a2))];
		const float v156 = ((v154) * (v155));
		const float v157 = p_gn_w[(krl_mod(krl_div(i, a5), a6))];
		const float v158 = ((v156) * (v157));
		const float v159 = p_gn_b[(krl_mod(krl_div(i, a5), a6))];
		const float v160 = ((v158) + (v159));
		p_y[i] = v160;
	}
}

/*@plan
buffer t8 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t11 f32 [(batch_size), (out_channels), (1), (1)]
buffer t14 f32 [(1), (out_channels), (1), (1)]
buffer t17 f32 [(batch_size), (out_channels), (1), (1)]
buffer t23 f32 [(1), (out_channels), (1), (1)]
buffer t30 f32 [(batch_size), (out_channels), (ph), (pw)]
buffer t34 f32 [(batch_size), (num_groups), (1)]
buffer t42 f32 [(batch_size), (num_groups), (1)]
# k0: library call (node 8)
call conv_transpose(x, w) -> t8 stride=stride padding=padding layout=nhwc_y
launch k1_col grid=(min(((batch_size) * 1) * cdiv(1 * (out_channels), 32), sm_count * 32)) block=(32, 8) args((batch_size) * (out_channels),
    (oh) * (ow),
    (batch_size) * 1,
    1 * (out_channels),
    t8,
    (out_channels),
    b,
    t11)
launch k2_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t11,
    (1.0 / (batch_size * (oh * ow))),
    t14)
launch k3_col grid=(min(((batch_size) * 1) * cdiv(1 * (out_channels), 32), sm_count * 32)) block=(32, 8) args((batch_size) * (out_channels),
    (oh) * (ow),
    (batch_size) * 1,
    1 * (out_channels),
    t8,
    (out_channels),
    b,
    t14,
    t17)
launch k4_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t17,
    (1.0 / (batch_size * (oh * ow))),
    (eps),
    t23)
launch k5_pool grid=(min((batch_size) * cdiv((out_channels), 32) * cdiv((ph) * (pw), 32), sm_count * 256)) block=(256) args((batch_size) * (out_channels) * (ph),
    (oh),
    (ow),
    (ph),
    (pw),
    (pool),
    (batch_size),
    (out_channels),
    (oh) * (ow),
    (ph) * (pw),
    t8,
    b,
    t14,
    t23,
    bn_w,
    bn_b,
    t30)
launch k6_row grid=(min((batch_size) * (num_groups), sm_count * 32)) block=(256) args((batch_size) * (num_groups),
    ((out_channels / num_groups) * (ph * pw)),
    t30,
    (1.0 / ((out_channels / num_groups) * (ph * pw))),
    t34,
    (eps),
    t42)
launch k7_map grid=(cdiv((batch_size) * (out_channels) * (ph) * (pw), 1024)) block=(256) args((batch_size) * (out_channels) * (ph) * (pw),
    t30,
    ((out_channels / num_groups) * (ph * pw)),
    t34,
    t42,
    (ph) * (pw),
    (out_channels),
    gn_w,
    gn_b,
    y)
@*/
