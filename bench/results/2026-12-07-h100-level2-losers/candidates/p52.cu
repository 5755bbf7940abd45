/*
 * krl-choice: rule.conv_bias=on rule.tanh_softplus=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.strategy=auto row.block=256 row.cache=regs row.tail=on fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=tile conv.impl=lib math=precise
 * Task level2/52_conv2d_activation_batchnorm, generated at shape set kb1; it serves every shape set.
 * fused 30 ops into 4 kernels: 1 map (block 256, vec 4, ept 1, cdiv; over a channels-last y, tiles of 256 threads), 2 row (block 256, regs; 1 over a channels-last y in its memory order; 1 writing outputs in a tail), 1 library (layout nhwc; 1 weight kept channels-last)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: row
 *   k3: map
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

/* Tails (docs/optimizer.md section 3, "Tails"): whether this block is the
 * last of the nblk blocks of its group to get here, so that it may read
 * what they all wrote and write the group's outputs, the work of a kernel
 * that no longer runs. Every thread of the block calls it. Each thread's
 * writes are made visible device-wide before the block takes its ticket
 * (*ticket, zeroed by krl_tail_zero at the plan's start); the last block
 * leaves the ticket at 0 again for the next kernel that shares it, and
 * reads the others' writes after a fence, through loads that do not keep
 * lines in L1 (volatile). */
static __device__ __forceinline__ bool krl_tail_last(int *ticket, long nblk)
{
	__shared__ int krl_last;
	__threadfence();
	__syncthreads();
	if (threadIdx.x == 0 && threadIdx.y == 0) {
		const int t = atomicAdd(ticket, 1);
		krl_last = (long)t == nblk - 1;
		if (krl_last)
			*ticket = 0;
	}
	__syncthreads();
	const bool last = krl_last != 0;
	if (last)
		__threadfence();
	return last;
}

/* The tickets of the plan's tails, zeroed at its start. */
extern "C" __global__ void __launch_bounds__(256)
krl_tail_zero(int *__restrict__ t, long n)
{
	for (long i = (long)blockIdx.x * 256 + threadIdx.x; i < n;
	     i += (long)gridDim.x * 256)
		t[i] = 0;
}

/*
 * krl_wkrsc (init): a convolution's weight w [A, B, taps] in cuDNN's
 * channels-last filter format wt [A, taps, B] (what layout=nhwc
 * transposes it to on every call), for w_layout=krsc.
 */
extern "C" __global__ void krl_wkrsc(const float *__restrict__ w,
                                     float *__restrict__ wt, long A,
                                     long B, long taps)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= A * B * taps)
		return;
	const long b = i % B, j = i / B;
	const long t = j % taps, a = j / taps;
	wt[i] = w[(a * B + b) * taps + t];
}

/*
 * k1 (row over a middle axis of a channels-last input's memory, the run split into chunks of 4000 rows: pass 1 of 1, column partials to k1_part; the last block of a group writes its outputs): nodes 7 view, 8 add, 10 gt, 11 exp, 14 add, 15 mul, 16 add, 17 div, 18 where, 19 mul, 22 sum, 24 mul, 25 sub, 26 square, 27 sum.
 * Writes: t24 t27.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_pass1(long a0,
	long a1,
	long a2,
	double *__restrict__ p_k1_part,
	long a4,
	long a5,
	const float *__restrict__ p_t6,
	const float *__restrict__ p_b,
	int *__restrict__ p_krl_tk,
	double c9,
	float *__restrict__ p_t24,
	float *__restrict__ p_t27)
{
	{
		__shared__ double krl_cd[8][33];
		const float v3 = 2.000000000e+01f;
		const float v5 = 1.000000000e+00f;
		const float v7 = 2.000000000e+00f;
		const int tx = threadIdx.x, ty = threadIdx.y;
		const long ncb = (a2 + 31) / 32;
		const long nch = (a1 + 3999) / 4000;
		{
			/* block (op, column group, chunk) */
			const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
			const long ch = t % nch, op = t / nch;
			const long r0 = ch * 4000;
			const long r1 = min(a1, r0 + 4000);
			const long cc = cg * 32 + tx;
			const bool valid = cc < a2;
			const long cp = valid ? cc : a2 - 1;
			const long o = op * a4 + cp % a4;
			const long rb = o * a1;
			const long pb = op * a1 * a2 + cp;
			const float v0 = p_t6[((krl_div((rb + 0), a5) * a1 + krl_mod((rb + 0), a1)) * a4 + krl_mod(krl_div((rb + 0), a1), a4))];
			const float v1 = p_b[(krl_mod(krl_div(rb, a1), a4))];
			const float v2 = ((v0) + (v1));
			const float v4 = ((float)((v2) > (v3)));
			const float v6 = expf(v2);
			const float v8 = ((v6) + (v7));
			const float v9 = ((v6) * (v8));
			const float v10 = ((v9) + (v7));
			const float v11 = ((v9) / (v10));
			const float v12 = ((v4) != 0.f ? (v5) : (v11));
			const float v13 = ((v12) * (v2));
			/* pass 1 */
			double acc14 = 0.0;
			double acc15 = 0.0;
			{
				long r = r0 + ty;
				for (; r + 3 * 8 < r1; r += 4 * 8) {
					const float v16 = p_t6[(pb + r * a2)];
					const float v17 = ((v16) + (v1));
					const float v18 = ((float)((v17) > (v3)));
					const float v19 = expf(v17);
					const float v20 = ((v19) + (v7));
					const float v21 = ((v19) * (v20));
					const float v22 = ((v21) + (v7));
					const float v23 = ((v21) / (v22));
					const float v24 = ((v18) != 0.f ? (v5) : (v23));
					const float v25 = ((v24) * (v17));
					const float v26 = p_t6[(pb + (r + 1 * 8) * a2)];
					const float v27 = ((v26) + (v1));
					const float v28 = ((float)((v27) > (v3)));
					const float v29 = expf(v27);
					const float v30 = ((v29) + (v7));
					const float v31 = ((v29) * (v30));
					const float v32 = ((v31) + (v7));
					const float v33 = ((v31) / (v32));
					const float v34 = ((v28) != 0.f ? (v5) : (v33));
					const float v35 = ((v34) * (v27));
					const float v36 = p_t6[(pb + (r + 2 * 8) * a2)];
					const float v37 = ((v36) + (v1));
					const float v38 = ((float)((v37) > (v3)));
					const float v39 = expf(v37);
					const float v40 = ((v39) + (v7));
					const float v41 = ((v39) * (v40));
					const float v42 = ((v41) + (v7));
					const float v43 = ((v41) / (v42));
					const float v44 = ((v38) != 0.f ? (v5) : (v43));
					const float v45 = ((v44) * (v37));
					const float v46 = p_t6[(pb + (r + 3 * 8) * a2)];
					const float v47 = ((v46) + (v1));
					const float v48 = ((float)((v47) > (v3)));
					const float v49 = expf(v47);
					const float v50 = ((v49) + (v7));
					const float v51 = ((v49) * (v50));
					const float v52 = ((v51) + (v7));
					const float v53 = ((v51) / (v52));
					const float v54 = ((v48) != 0.f ? (v5) : (v53));
					const float v55 = ((v54) * (v47));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v25 - v13;
						const float d1 = v35 - v13;
						const float d2 = v45 - v13;
						const float d3 = v55 - v13;
						acc14 += (double)((d0 + d1) + (d2 + d3));
						acc15 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
				for (; r < r1; r += 8) {
					const float v56 = p_t6[(pb + r * a2)];
					const float v57 = ((v56) + (v1));
					const float v58 = ((float)((v57) > (v3)));
					const float v59 = expf(v57);
					const float v60 = ((v59) + (v7));
					const float v61 = ((v59) * (v60));
					const float v62 = ((v61) + (v7));
					const float v63 = ((v61) / (v62));
					const float v64 = ((v58) != 0.f ? (v5) : (v63));
					const float v65 = ((v64) * (v57));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v65 - v13;
						acc14 += (double)d0;
						acc15 += (double)(d0 * d0);
					}
				}
			}
			__syncthreads(); /* the slots may still be read */
			krl_cd[ty][tx] = acc14;
			__syncthreads();
			acc14 = krl_cd[0][tx];
			for (int k = 1; k < 8; k++)
				acc14 += krl_cd[k][tx];
			const float r66 = (float)acc14;
			if (ty == 0 && valid) {
				p_k1_part[((op * nch + ch) * a2 + cp) * 2 + 0] = (double)acc14;
			}
			__syncthreads(); /* the slots may still be read */
			krl_cd[ty][tx] = acc15;
			__syncthreads();
			acc15 = krl_cd[0][tx];
			for (int k = 1; k < 8; k++)
				acc15 += krl_cd[k][tx];
			const float r67 = (float)acc15;
			if (ty == 0 && valid) {
				p_k1_part[((op * nch + ch) * a2 + cp) * 2 + 1] = (double)acc15;
			}
		}
	}
	{
		/* the outputs: the last of the group's blocks (row, column group) to finish its chunk writes them (a tail) */
		const long krl_ncb = (a2 + 31) / 32, krl_nch = (a1 + 3999) / 4000;
		const long krl_g = (long)blockIdx.x / krl_ncb / krl_nch * krl_ncb + (long)blockIdx.x % krl_ncb;
		if (!krl_tail_last(p_krl_tk + krl_g, krl_nch))
			return;
		const volatile double *krl_pp = p_k1_part;
		{
			__shared__ double krl_cd[8][33];
			const float v75 = 2.000000000e+01f;
			const float v77 = 1.000000000e+00f;
			const float v79 = 2.000000000e+00f;
			const float v86 = (float)c9;
			const int tx = threadIdx.x, ty = threadIdx.y;
			const long ncb = (a2 + 31) / 32;
			const long nch = (a1 + 3999) / 4000;
			{
				/* block (op, column group, chunk); the outputs: chunk 0 only */
				const long cg = krl_g % ncb, t = krl_g / ncb;
				const long ch = 0, op = t;
				const long r0 = ch * 4000;
				const long r1 = min(a1, r0 + 4000);
				const long cc = cg * 32 + tx;
				const bool valid = cc < a2;
				const long cp = valid ? cc : a2 - 1;
				const long o = op * a4 + cp % a4;
				const long rb = o * a1;
				const long pb = op * a1 * a2 + cp;
				double acc68 = 0.0, acc69 = 0.0;
				for (long q = ty; q < nch; q += 8) {
					acc68 += krl_pp[((op * nch + q) * a2 + cp) * 2 + 0];
					acc69 += krl_pp[((op * nch + q) * a2 + cp) * 2 + 1];
				}
				__syncthreads(); /* the slots may still be read */
				krl_cd[ty][tx] = acc68;
				__syncthreads();
				acc68 = krl_cd[0][tx];
				for (int k = 1; k < 8; k++)
					acc68 += krl_cd[k][tx];
				const float r70 = (float)acc68;
				__syncthreads(); /* the slots may still be read */
				krl_cd[ty][tx] = acc69;
				__syncthreads();
				acc69 = krl_cd[0][tx];
				for (int k = 1; k < 8; k++)
					acc69 += krl_cd[k][tx];
				const float r71 = (float)acc69;
				const float v72 = p_t6[((krl_div((rb + 0), a5) * a1 + krl_mod((rb + 0), a1)) * a4 + krl_mod(krl_div((rb + 0), a1), a4))];
				const float v73 = p_b[(krl_mod(krl_div(rb, a1), a4))];
				const float v74 = ((v72) + (v73));
				const float v76 = ((float)((v74) > (v75)));
				const float v78 = expf(v74);
				const float v80 = ((v78) + (v79));
				const float v81 = ((v78) * (v80));
				const float v82 = ((v81) + (v79));
				const float v83 = ((v81) / (v82));
				const float v84 = ((v76) != 0.f ? (v77) : (v83));
				const float v85 = ((v84) * (v74));
				const float r87 = (float)(acc68 + (double)a1 * (double)v85);
				const float m89 = r87 * v86;
				const double dm90 = (double)m89 - (double)v85;
				const float r88 = (float)fmax(acc69 - 2.0 * dm90 * acc68 + (double)a1 * dm90 * dm90, 0.0);
				/* the outputs of the row shape */
				const float v91 = ((r87) * (v86));
				if (valid && ty == 0) {
					p_t24[o] = v91;
					p_t27[o] = r88;
				}
			}
		}
	}
}

/*
 * k2 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 28 sum, 30 mul, 31 sub, 32 square, 33 sum, 34 sum, 35 mul, 36 add, 37 mul, 40 add, 41 rsqrt.
 * Writes: t30 t33 t41.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t24,
	const float *__restrict__ p_t27,
	double c5,
	float *__restrict__ p_t30,
	float *__restrict__ p_t33,
	double c8,
	double c9,
	double c10,
	float *__restrict__ p_t41)
{
	__shared__ double krl_cd[8][33];
	const float v108 = (float)c5;
	const float v115 = (float)c8;
	const float v118 = (float)c9;
	const float v120 = (float)c10;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	for (long blk = blockIdx.x; blk < a0 * ncb; blk += gridDim.x) {
		const long o = blk / ncb;
		const long cc = (blk % ncb) * 32 + tx;
		const bool valid = cc < a2;
		/* past the last column: compute the last one's values (in bounds), store nothing */
		const long c = valid ? cc : a2 - 1;
		const long rb = o * a1 * a2 + c;
		const float v92 = p_t24[(rb + 0 * a2)];
		/* pass 1 */
		double acc93 = 0.0;
		double acc94 = 0.0;
		double acc95 = 0.0;
		{
			long r = ty;
			for (; r + 3 * 8 < a1; r += 4 * 8) {
				const float v96 = p_t24[(rb + r * a2)];
				const float v97 = p_t27[(rb + r * a2)];
				const float v98 = p_t24[(rb + (r + 1 * 8) * a2)];
				const float v99 = p_t27[(rb + (r + 1 * 8) * a2)];
				const float v100 = p_t24[(rb + (r + 2 * 8) * a2)];
				const float v101 = p_t27[(rb + (r + 2 * 8) * a2)];
				const float v102 = p_t24[(rb + (r + 3 * 8) * a2)];
				const float v103 = p_t27[(rb + (r + 3 * 8) * a2)];
				acc94 += (double)((v97 + v99) + (v101 + v103));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v96 - v92;
					const float d1 = v98 - v92;
					const float d2 = v100 - v92;
					const float d3 = v102 - v92;
					acc93 += (double)((d0 + d1) + (d2 + d3));
					acc95 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
				}
			}
			for (; r < a1; r += 8) {
				const float v104 = p_t24[(rb + r * a2)];
				const float v105 = p_t27[(rb + r * a2)];
				acc94 += (double)v105;
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v104 - v92;
					acc93 += (double)d0;
					acc95 += (double)(d0 * d0);
				}
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc93;
		__syncthreads();
		acc93 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc93 += krl_cd[k][tx];
		const float r106 = (float)acc93;
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc95;
		__syncthreads();
		acc95 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc95 += krl_cd[k][tx];
		const float r107 = (float)acc95;
		const float r109 = (float)(acc93 + (double)a1 * (double)v92);
		const float m111 = r109 * v108;
		const double dm112 = (double)m111 - (double)v92;
		const float r110 = (float)fmax(acc95 - 2.0 * dm112 * acc93 + (double)a1 * dm112 * dm112, 0.0);
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc94;
		__syncthreads();
		acc94 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc94 += krl_cd[k][tx];
		const float r113 = (float)acc94;
		/* the outputs of the row shape */
		const float v114 = ((r109) * (v108));
		const float v116 = ((r110) * (v115));
		const float v117 = ((r113) + (v116));
		const float v119 = ((v117) * (v118));
		const float v121 = ((v119) + (v120));
		const float v122 = rsqrtf(v121);
		if (valid && ty == 0) {
			p_t30[(o * a2 + c)] = v114;
			p_t33[(o * a2 + c)] = r113;
			p_t41[(o * a2 + c)] = v122;
		}
	}
}

/*
 * k3 (map over a channels-last input (node 6), tiles of 128 positions x 32 channels through shared memory: 256 threads, cdiv grid): nodes 7 view, 8 add, 10 gt, 11 exp, 14 add, 15 mul, 16 add, 17 div, 18 where, 19 mul, 38 sub, 42 mul, 43 view, 44 view, 45 mul, 46 add.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t6,
	long a5,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t30,
	const float *__restrict__ p_t41,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	float *__restrict__ p_y)
{
	__shared__ float ttile[128][33];
	const float v125 = 2.000000000e+01f;
	const float v127 = 1.000000000e+00f;
	const float v129 = 2.000000000e+00f;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const long ts0 = krl_mod((long)blockIdx.x, a2) * 128;
	const long tcq = krl_div((long)blockIdx.x, a2);
	const long tc0 = krl_mod(tcq, a3) * 32;
	const long tn = krl_div(tcq, a3);
	/* load: a warp step reads 4 positions x 32 channels */
	float4 tld[4];
	const int tlq = (lane % 8) * 4;
	const long tlc = tc0 + tlq;
	#pragma unroll
	for (int k = 0; k < 4; k++) {
		const long s = ts0 + (k * 8 + warp) * 4 + lane / 8;
		const long b = (tn * a1 + s) * a0 + tlc;
		tld[k] = make_float4(0.f, 0.f, 0.f, 0.f);
		if (s < a1 && (a0 & 3) == 0 && tlc < a0) {
			tld[k] = *reinterpret_cast<const float4 *>(p_t6 + b);
		} else if (s < a1) {
			if (tlc < a0) tld[k].x = p_t6[b];
			if (tlc + 1 < a0) tld[k].y = p_t6[b + 1];
			if (tlc + 2 < a0) tld[k].z = p_t6[b + 2];
			if (tlc + 3 < a0) tld[k].w = p_t6[b + 3];
		}
	}
	#pragma unroll
	for (int k = 0; k < 4; k++) {
		const int r = (k * 8 + warp) * 4 + lane / 8;
		ttile[r][tlq] = tld[k].x;
		ttile[r][tlq + 1] = tld[k].y;
		ttile[r][tlq + 2] = tld[k].z;
		ttile[r][tlq + 3] = tld[k].w;
	}
	__syncthreads();
	/* the coordinates of the thread's positions */
	long tcs3[4], tcq3[4];
	#pragma unroll
	for (int k = 0; k < 4; k++) {
		const long ts = ts0 + k * 32 + lane;
		const long ts3 = krl_mod(ts, a5), tq3 = krl_div(ts, a5);
		tcs3[k] = ts3;
		tcq3[k] = tq3;
	}
	/* the chain: a warp step writes one channel's 32 positions */
	#pragma unroll
	for (int j = 0; j < 4; j++) {
		const int tqq = j * 8 + warp;
		const long tc = tc0 + tqq;
		if (tc >= a0)
			continue;
		const long tno = tn * a0 + tc, trb = tno * a1;
		const float v123 = p_b[(tc)];
		const float v136 = p_t30[(tc)];
		const float v138 = p_t41[(tc)];
		const float v140 = p_bn_w[(tc)];
		const float v142 = p_bn_b[(tc)];
		#pragma unroll
		for (int k = 0; k < 4; k++) {
			const int trr = k * 32 + lane;
			const long ts = ts0 + trr;
			if (ts < a1) {
				const long i = trb + ts;
				const long ts3 = tcs3[k], tq3 = tcq3[k];
				const float v124 = ((ttile[trr][tqq]) + (v123));
				const float v126 = ((float)((v124) > (v125)));
				const float v128 = expf(v124);
				const float v130 = ((v128) + (v129));
				const float v131 = ((v128) * (v130));
				const float v132 = ((v131) + (v129));
				const float v133 = ((v131) / (v132));
				const float v134 = ((v126) != 0.f ? (v127) : (v133));
				const float v135 = ((v134) * (v124));
				const float v137 = ((v135) - (v136));
				const float v139 = ((v137) * (v138));
				const float v141 = ((v139) * (v140));
				const float v143 = ((v141) + (v142));
				p_y[i] = v143;
			}
		}
	}
}

/*@plan
derived k0_wt f32 [(out_channels), (in_channels), (kernel_size), (kernel_size)]
buffer k1_part f64 [(batch_size) * 1, cdiv((oh) * (ow), 4000), 1 * (out_channels), 2]
buffer t6 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t24 f32 [(batch_size), (out_channels), (1), (1)]
buffer t27 f32 [(batch_size), (out_channels), (1), (1)]
buffer t30 f32 [(1), (out_channels), (1), (1)]
buffer t33 f32 [(1), (out_channels), (1), (1)]
buffer t41 f32 [(1), (out_channels), (1), (1)]
buffer krl_tk i32 [((batch_size) * 1) * cdiv(1 * (out_channels), 32)]
init
  # k0: the weight of node 6 in cuDNN's channels-last filter format
  launch krl_wkrsc grid=(cdiv(numel(w), 256)) block=(256) args(w, k0_wt, out_channels, in_channels, (kernel_size) * (kernel_size))
end
# the tickets of the tails, zeroed
launch krl_tail_zero grid=(min(cdiv(((batch_size) * 1) * cdiv(1 * (out_channels), 32), 256), 1024)) block=(256) args(krl_tk, ((batch_size) * 1) * cdiv(1 * (out_channels), 32))
# k0: library call (node 6), its weight kept channels-last
call conv(x, k0_wt) -> t6 w_layout=krsc layout=nhwc_y
launch k1_pass1 grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32) * cdiv((oh) * (ow), 4000)) block=(32, 8) args((batch_size) * (out_channels),
    (oh) * (ow),
    1 * (out_channels),
    k1_part,
    (out_channels),
    (out_channels) * (oh) * (ow),
    t6,
    b,
    krl_tk,
    (1.0 / (oh * ow)),
    t24,
    t27)
launch k2_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t24,
    t27,
    (1.0 / (batch_size)),
    t30,
    t33,
    (oh * ow),
    (1.0 / (batch_size * (oh * ow))),
    (eps),
    t41)
launch k3_map grid=(((batch_size)) * cdiv((oh) * (ow), 128) * cdiv((out_channels), 32)) block=(256) args((out_channels),
    (oh) * (ow),
    cdiv((oh) * (ow), 128),
    cdiv((out_channels), 32),
    t6,
    (ow),
    b,
    t30,
    t41,
    bn_w,
    bn_b,
    y)
@*/
