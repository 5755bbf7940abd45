/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=256 row.cache=regs pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nhwc_y
 * Task level2/72_convtranspose3d_batchnorm_avgpool_avgpool, generated at shape set kb1; it serves every shape set.
 * fused 17 ops into 7 kernels: 4 row (block 256, regs; 2 over a channels-last y in its memory order), 2 pool (block 256, ept 1, inc taps; 1 over a channels-last y in its memory order), 1 library (layout nhwc)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: row
 *   k3: row
 *   k4: row
 *   k5: pool
 *   k6: pool
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
 * k1 (row over a middle axis of a channels-last input's memory, the run split into chunks of 15648 rows: pass 1 of 1, column partials to k1_part): nodes 7 view, 8 add, 9 sum.
 * Writes: t9.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_pass1(long a0,
	long a1,
	long a2,
	double *__restrict__ p_k1_part,
	const float *__restrict__ p_t6,
	long a5,
	const float *__restrict__ p_b)
{
	__shared__ double krl_cd[8][33];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 15647) / 15648;
	{
		/* block (op, column group, chunk) */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = t % nch, op = t / nch;
		const long r0 = ch * 15648;
		const long r1 = min(a1, r0 + 15648);
		const long cc = cg * 32 + tx;
		const bool valid = cc < a2;
		const long cp = valid ? cc : a2 - 1;
		const long o = op * a5 + cp % a5;
		const long rb = o * a1;
		const long pb = op * a1 * a2 + cp;
		const float v2 = p_b[(krl_mod(krl_div(rb, a1), a5))];
		/* pass 1 */
		double acc0 = 0.0;
		{
			long r = r0 + ty;
			for (; r + 24 < r1; r += 32) {
				const float v1 = p_t6[(pb + r * a2)];
				const float v3 = ((v1) + (v2));
				const float v4 = p_t6[(pb + (r + 8) * a2)];
				const float v5 = ((v4) + (v2));
				const float v6 = p_t6[(pb + (r + 16) * a2)];
				const float v7 = ((v6) + (v2));
				const float v8 = p_t6[(pb + (r + 24) * a2)];
				const float v9 = ((v8) + (v2));
				acc0 += (double)((v3 + v5) + (v7 + v9));
			}
			for (; r < r1; r += 8) {
				const float v10 = p_t6[(pb + r * a2)];
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
		if (ty == 0 && valid) {
			p_k1_part[((op * nch + ch) * a2 + cp) * 1 + 0] = (double)acc0;
		}
	}
}

/*
 * k1 (row over a middle axis of a channels-last input's memory, the run split into chunks of 15648 rows: the outputs): nodes 7 view, 8 add, 9 sum.
 * Writes: t9.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_out(long a0,
	long a1,
	long a2,
	const double *__restrict__ p_k1_part,
	float *__restrict__ p_t9,
	long a5)
{
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 15647) / 15648;
	{
		/* block (op, column group, chunk); the outputs: chunk 0 only */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = 0, op = t;
		const long r0 = ch * 15648;
		const long r1 = min(a1, r0 + 15648);
		const long cc = cg * 32 + tx;
		const bool valid = cc < a2;
		const long cp = valid ? cc : a2 - 1;
		const long o = op * a5 + cp % a5;
		const long rb = o * a1;
		const long pb = op * a1 * a2 + cp;
		double acc13 = 0.0;
		for (long q = 0; q < nch; q++)
			acc13 += p_k1_part[((op * nch + q) * a2 + cp) * 1 + 0];
		const float r14 = (float)acc13;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_t9[o] = r14;
		}
	}
}

/*
 * k2 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 10 sum, 12 mul.
 * Writes: t12.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t9,
	double c4,
	float *__restrict__ p_t12)
{
	__shared__ double krl_cd[8][33];
	const float v22 = (float)c4;
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
		double acc15 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v16 = p_t9[(rb + r * a2)];
				const float v17 = p_t9[(rb + (r + 8) * a2)];
				const float v18 = p_t9[(rb + (r + 16) * a2)];
				const float v19 = p_t9[(rb + (r + 24) * a2)];
				acc15 += (double)((v16 + v17) + (v18 + v19));
			}
			for (; r < a1; r += 8) {
				const float v20 = p_t9[(rb + r * a2)];
				acc15 += (double)v20;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc15;
		__syncthreads();
		acc15 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc15 += krl_cd[k][tx];
		const float r21 = (float)acc15;
		/* the outputs of the row shape */
		const float v23 = ((r21) * (v22));
		if (valid && ty == 0) {
			p_t12[(o * a2 + c)] = v23;
		}
	}
}

/*
 * k3 (row over a middle axis of a channels-last input's memory, the run split into chunks of 15648 rows: pass 1 of 1, column partials to k3_part): nodes 7 view, 8 add, 13 sub, 14 square, 15 sum.
 * Writes: t15.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_pass1(long a0,
	long a1,
	long a2,
	double *__restrict__ p_k3_part,
	const float *__restrict__ p_t6,
	long a5,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t12)
{
	__shared__ double krl_cd[8][33];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 15647) / 15648;
	{
		/* block (op, column group, chunk) */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = t % nch, op = t / nch;
		const long r0 = ch * 15648;
		const long r1 = min(a1, r0 + 15648);
		const long cc = cg * 32 + tx;
		const bool valid = cc < a2;
		const long cp = valid ? cc : a2 - 1;
		const long o = op * a5 + cp % a5;
		const long rb = o * a1;
		const long pb = op * a1 * a2 + cp;
		const float v26 = p_b[(krl_mod(krl_div(rb, a1), a5))];
		const float v28 = p_t12[(krl_mod(krl_div(rb, a1), a5))];
		/* pass 1 */
		double acc24 = 0.0;
		{
			long r = r0 + ty;
			for (; r + 24 < r1; r += 32) {
				const float v25 = p_t6[(pb + r * a2)];
				const float v27 = ((v25) + (v26));
				const float v29 = ((v27) - (v28));
				const float v30 = ((v29) * (v29));
				const float v31 = p_t6[(pb + (r + 8) * a2)];
				const float v32 = ((v31) + (v26));
				const float v33 = ((v32) - (v28));
				const float v34 = ((v33) * (v33));
				const float v35 = p_t6[(pb + (r + 16) * a2)];
				const float v36 = ((v35) + (v26));
				const float v37 = ((v36) - (v28));
				const float v38 = ((v37) * (v37));
				const float v39 = p_t6[(pb + (r + 24) * a2)];
				const float v40 = ((v39) + (v26));
				const float v41 = ((v40) - (v28));
				const float v42 = ((v41) * (v41));
				acc24 += (double)((v30 + v34) + (v38 + v42));
			}
			for (; r < r1; r += 8) {
				const float v43 = p_t6[(pb + r * a2)];
				const float v44 = ((v43) + (v26));
				const float v45 = ((v44) - (v28));
				const float v46 = ((v45) * (v45));
				acc24 += (double)v46;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc24;
		__syncthreads();
		acc24 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc24 += krl_cd[k][tx];
		const float r47 = (float)acc24;
		if (ty == 0 && valid) {
			p_k3_part[((op * nch + ch) * a2 + cp) * 1 + 0] = (double)acc24;
		}
	}
}

/*
 * k3 (row over a middle axis of a channels-last input's memory, the run split into chunks of 15648 rows: the outputs): nodes 7 view, 8 add, 13 sub, 14 square, 15 sum.
 * Writes: t15.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_out(long a0,
	long a1,
	long a2,
	const double *__restrict__ p_k3_part,
	float *__restrict__ p_t15,
	long a5)
{
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 15647) / 15648;
	{
		/* block (op, column group, chunk); the outputs: chunk 0 only */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = 0, op = t;
		const long r0 = ch * 15648;
		const long r1 = min(a1, r0 + 15648);
		const long cc = cg * 32 + tx;
		const bool valid = cc < a2;
		const long cp = valid ? cc : a2 - 1;
		const long o = op * a5 + cp % a5;
		const long rb = o * a1;
		const long pb = op * a1 * a2 + cp;
		double acc48 = 0.0;
		for (long q = 0; q < nch; q++)
			acc48 += p_k3_part[((op * nch + q) * a2 + cp) * 1 + 0];
		const float r49 = (float)acc48;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_t15[o] = r49;
		}
	}
}

/*
 * k4 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 16 sum, 18 mul, 20 add, 21 rsqrt.
 * Writes: t21.
 */
extern "C" __global__ void __launch_bounds__(256)
k4_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t15,
	double c4,
	double c5,
	float *__restrict__ p_t21)
{
	__shared__ double krl_cd[8][33];
	const float v57 = (float)c4;
	const float v59 = (float)c5;
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
		double acc50 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v51 = p_t15[(rb + r * a2)];
				const float v52 = p_t15[(rb + (r + 8) * a2)];
				const float v53 = p_t15[(rb + (r + 16) * a2)];
				const float v54 = p_t15[(rb + (r + 24) * a2)];
				acc50 += (double)((v51 + v52) + (v53 + v54));
			}
			for (; r < a1; r += 8) {
				const float v55 = p_t15[(rb + r * a2)];
				acc50 += (double)v55;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc50;
		__syncthreads();
		acc50 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc50 += krl_cd[k][tx];
		const float r56 = (float)acc50;
		/* the outputs of the row shape */
		const float v58 = ((r56) * (v57));
		const float v60 = ((v58) + (v59));
		const float v61 = rsqrtf(v60);
		if (valid && ty == 0) {
			p_t21[(o * a2 + c)] = v61;
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
	long a10,
	const float *__restrict__ p_t6,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t12,
	const float *__restrict__ p_t21,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	float *__restrict__ p_t27)
{
	/* x is [.., IT, IH, IW] and the output [.., OT, OH, OW], seen as [rows, OW] */
	const long rows = a0, IT = a1, IH = a2, IW = a3, OT = a4, OH = a5, OW = a6;
	const long ksize = 2, stride = 2, pad = 0;
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IT + reach) * (IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k5_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, p_t6, p_b, p_t12, p_t21, p_bn_w, p_bn_b, p_t27);
			return;
		}
	}
	const I nT = IT, nH = IH, nW = IW; /* the input's sizes */
	const I st = stride, pd = pad;
	const I kx = ksize; /* a window's extent */
	/* x is [N, C, s...], in memory [N, s..., C]; S positions in, OS out */
	const long N = a7, C = a8, S = a9, OS = a10;
	const long ncb = (C + 15) / 16, nsb = (OS + 63) / 64; /* blocks of channels, of positions */
	const bool tvec = (C & 3) == 0; /* float4 loads */
	/* a block's outputs: 16 channels x 64 positions, a row per channel */
	__shared__ float tmean[1040];
	const int tq = threadIdx.x % 4, sl = threadIdx.x / 4; /* channels 4 tq.., position sl */
	/* neighbouring blocks: the channel blocks of the same positions */
	for (long b = blockIdx.x; b < N * ncb * nsb; b += gridDim.x) {
		const long bs = krl_div(b, ncb), n = krl_div(bs, nsb);
		const long c0 = (b - bs * ncb) * 16 + 4 * tq, s0 = (bs - n * nsb) * 64;
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
		const float v62 = p_b[(ch0)];
		const float v64 = p_t12[(ch0)];
		const float v66 = p_t21[(ch0)];
		const float v68 = p_bn_w[(ch0)];
		const float v70 = p_bn_b[(ch0)];
		const float v72 = p_b[(ch1)];
		const float v74 = p_t12[(ch1)];
		const float v76 = p_t21[(ch1)];
		const float v78 = p_bn_w[(ch1)];
		const float v80 = p_bn_b[(ch1)];
		const float v82 = p_b[(ch2)];
		const float v84 = p_t12[(ch2)];
		const float v86 = p_t21[(ch2)];
		const float v88 = p_bn_w[(ch2)];
		const float v90 = p_bn_b[(ch2)];
		const float v92 = p_b[(ch3)];
		const float v94 = p_t12[(ch3)];
		const float v96 = p_t21[(ch3)];
		const float v98 = p_bn_w[(ch3)];
		const float v100 = p_bn_b[(ch3)];
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
						const float4 q4 = *reinterpret_cast<const float4 *>(p_t6 + tb);
						tv[0] = q4.x; tv[1] = q4.y; tv[2] = q4.z; tv[3] = q4.w;
					} else {
						#pragma unroll
						for (int j = 0; j < 4; j++)
							tv[j] = p_t6[tb + (c0 + j < C ? j : C - 1 - c0)];
					}
					const float v63 = ((tv[0]) + (v62));
					const float v65 = ((v63) - (v64));
					const float v67 = ((v65) * (v66));
					const float v69 = ((v67) * (v68));
					const float v71 = ((v69) + (v70));
					sum0 += v71;
					const float v73 = ((tv[1]) + (v72));
					const float v75 = ((v73) - (v74));
					const float v77 = ((v75) * (v76));
					const float v79 = ((v77) * (v78));
					const float v81 = ((v79) + (v80));
					sum1 += v81;
					const float v83 = ((tv[2]) + (v82));
					const float v85 = ((v83) - (v84));
					const float v87 = ((v85) * (v86));
					const float v89 = ((v87) * (v88));
					const float v91 = ((v89) + (v90));
					sum2 += v91;
					const float v93 = ((tv[3]) + (v92));
					const float v95 = ((v93) - (v94));
					const float v97 = ((v95) * (v96));
					const float v99 = ((v97) * (v98));
					const float v101 = ((v99) + (v100));
					sum3 += v101;
				}
			}
		}
		{
			const float sum = sum0;
			/* the divisor: the window in the padded input (count_include_pad) */
			const float div = (float)((tp - ts) * (hp - hs) * (wp - ws));
			const float mean = tlo < thi && hlo < hhi && wlo < whi ? sum / div : 0.f;
			tmean[(4 * tq + 0) * 65 + sl] = mean;
		}
		{
			const float sum = sum1;
			/* the divisor: the window in the padded input (count_include_pad) */
			const float div = (float)((tp - ts) * (hp - hs) * (wp - ws));
			const float mean = tlo < thi && hlo < hhi && wlo < whi ? sum / div : 0.f;
			tmean[(4 * tq + 1) * 65 + sl] = mean;
		}
		{
			const float sum = sum2;
			/* the divisor: the window in the padded input (count_include_pad) */
			const float div = (float)((tp - ts) * (hp - hs) * (wp - ws));
			const float mean = tlo < thi && hlo < hhi && wlo < whi ? sum / div : 0.f;
			tmean[(4 * tq + 2) * 65 + sl] = mean;
		}
		{
			const float sum = sum3;
			/* the divisor: the window in the padded input (count_include_pad) */
			const float div = (float)((tp - ts) * (hp - hs) * (wp - ws));
			const float mean = tlo < thi && hlo < hhi && wlo < whi ? sum / div : 0.f;
			tmean[(4 * tq + 3) * 65 + sl] = mean;
		}
		__syncthreads();
		/* each channel's run of positions, contiguous in the NCHW outputs */
		const long cb = c0 - 4 * tq;
		for (int e = 0; e < 4; e++) {
			const int t = threadIdx.x + e * 256, cq = t / 64, sq = t % 64;
			const long s = s0 + sq;
			if (cb + cq >= C || s >= OS)
				continue;
			const long nc = n * C + cb + cq, ob = nc * OS, o = ob + s;
			const float mean = tmean[cq * 65 + sq];
			p_t27[o] = mean;
		}
		__syncthreads();
	}
}

/*
 * k5 (pool: 3-d mean over windows of its input (computed at every tap), a channels-last input read 16 channels x 64 positions a block, 4 channels a thread, stored through shared memory, 256 threads): nodes 7 view, 8 add, 13 sub, 22 mul, 23 view, 24 view, 25 mul, 26 add, 27 avg_pool.
 * Writes: t27.
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
	long a10,
	const float *__restrict__ p_t6,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t12,
	const float *__restrict__ p_t21,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	float *__restrict__ p_t27)
{
	k5_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, p_t6, p_b, p_t12, p_t21, p_bn_w, p_bn_b, p_t27);
}
/* k6_pool's outputs, with offsets and coordinates in a plane of type I:
 * int when the plane, widened by a window's reach, fits (the usual case),
 * else long */
template <typename I>
static __device__ __forceinline__ void
k6_pool_walk(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	const float *__restrict__ p_t27,
	float *__restrict__ p_y)
{
	/* x is [.., IT, IH, IW] and the output [.., OT, OH, OW], seen as [rows, OW] */
	const long rows = a0, IT = a1, IH = a2, IW = a3, OT = a4, OH = a5, OW = a6;
	const long ksize = 2, stride = 2, pad = 0;
	const long plane = IT * IH * IW; /* elements of an input plane */
	/* a warp takes 32 consecutive outputs of a row, lane l the outputs l, l + 32, ... */
	const long groups = (OW + 31) / 32; /* per row */
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IT + reach) * (IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k6_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, p_t27, p_y);
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
					const float v102 = p_t27[xi];
					sum += v102;
				}
			}
		}
		/* the divisor: the window in the padded input (count_include_pad) */
		const float div = (float)((tp - ts) * (hp - hs) * (wp - ws));
		const float mean = tlo < thi && hlo < hhi && wlo < whi ? sum / div : 0.f;
		const long o = row * OW + ow;
		p_y[o] = mean;
	}
}

/*
 * k6 (pool: 3-d mean over windows of t27, 1 output per thread along the last dim, 256 threads): nodes 28 avg_pool.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k6_pool(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	const float *__restrict__ p_t27,
	float *__restrict__ p_y)
{
	k6_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, p_t27, p_y);
}

/*@plan
buffer k1_part f64 [(batch_size) * 1, cdiv((od) * (oh) * (ow), 15648), 1 * (out_channels), 1]
buffer k3_part f64 [(batch_size) * 1, cdiv((od) * (oh) * (ow), 15648), 1 * (out_channels), 1]
buffer t6 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t9 f32 [(batch_size), (out_channels), (1), (1), (1)]
buffer t12 f32 [(1), (out_channels), (1), (1), (1)]
buffer t15 f32 [(batch_size), (out_channels), (1), (1), (1)]
buffer t21 f32 [(1), (out_channels), (1), (1), (1)]
buffer t27 f32 [(batch_size), (out_channels), (pd), (ph), (pw)]
# k0: library call (node 6)
call conv_transpose(x, w) -> t6 stride=stride padding=padding layout=nhwc_y
launch k1_pass1 grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32) * cdiv((od) * (oh) * (ow), 15648)) block=(32, 8) args((batch_size) * (out_channels),
    (od) * (oh) * (ow),
    1 * (out_channels),
    k1_part,
    t6,
    (out_channels),
    b)
launch k1_out grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32)) block=(32, 8) args((batch_size) * (out_channels),
    (od) * (oh) * (ow),
    1 * (out_channels),
    k1_part,
    t9,
    (out_channels))
launch k2_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t9,
    (1.0 / (batch_size * ((od * oh) * ow))),
    t12)
launch k3_pass1 grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32) * cdiv((od) * (oh) * (ow), 15648)) block=(32, 8) args((batch_size) * (out_channels),
    (od) * (oh) * (ow),
    1 * (out_channels),
    k3_part,
    t6,
    (out_channels),
    b,
    t12)
launch k3_out grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32)) block=(32, 8) args((batch_size) * (out_channels),
    (od) * (oh) * (ow),
    1 * (out_channels),
    k3_part,
    t15,
    (out_channels))
launch k4_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t15,
    (1.0 / (batch_size * ((od * oh) * ow))),
    (eps),
    t21)
launch k5_pool grid=(min((batch_size) * cdiv((out_channels), 16) * cdiv((pd) * (ph) * (pw), 64), sm_count * 256)) block=(256) args((batch_size) * (out_channels) * (pd) * (ph),
    (od),
    (oh),
    (ow),
    (pd),
    (ph),
    (pw),
    (batch_size),
    (out_channels),
    (od) * (oh) * (ow),
    (pd) * (ph) * (pw),
    t6,
    b,
    t12,
    t21,
    bn_w,
    bn_b,
    t27)
launch k6_pool grid=(min(cdiv((batch_size) * (out_channels) * (qd) * (qh) * cdiv((qw), 32) * 32, 256), sm_count * 1024)) block=(256) args((batch_size) * (out_channels) * (qd) * (qh),
    (pd),
    (ph),
    (pw),
    (qd),
    (qh),
    (qw),
    t27,
    y)
@*/
