/*
 * krl-choice: rule.conv_bias=on rule.tanh_softplus=off map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.strategy=auto row.block=256 row.cache=regs row.tail=on fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=tile conv.impl=lib math=precise
 * Task level2/52_conv2d_activation_batchnorm, generated at shape set kb1; it serves every shape set.
 * fused 28 ops into 4 kernels: 1 map (block 256, vec 4, ept 1, cdiv; over a channels-last y, tiles of 256 threads), 2 row (block 256, regs; 1 over a channels-last y in its memory order; 1 writing outputs in a tail), 1 library (layout nhwc; 1 weight kept channels-last)
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
 * k1 (row over a middle axis of a channels-last input's memory, the run split into chunks of 4000 rows: pass 1 of 1, column partials to k1_part; the last block of a group writes its outputs): nodes 7 view, 8 add, 10 gt, 11 exp, 12 log1p, 13 where, 14 tanh, 15 mul, 18 sum, 20 mul, 21 sub, 22 square, 23 sum.
 * Writes: t20 t23.
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
	float *__restrict__ p_t20,
	float *__restrict__ p_t23)
{
	{
		__shared__ double krl_cd[8][33];
		const float v3 = 2.000000000e+01f;
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
			const float v5 = expf(v2);
			const float v6 = log1pf(v5);
			const float v7 = ((v4) != 0.f ? (v2) : (v6));
			const float v8 = tanhf(v7);
			const float v9 = ((v8) * (v2));
			/* pass 1 */
			double acc10 = 0.0;
			double acc11 = 0.0;
			{
				long r = r0 + ty;
				for (; r + 3 * 8 < r1; r += 4 * 8) {
					const float v12 = p_t6[(pb + r * a2)];
					const float v13 = ((v12) + (v1));
					const float v14 = ((float)((v13) > (v3)));
					const float v15 = expf(v13);
					const float v16 = log1pf(v15);
					const float v17 = ((v14) != 0.f ? (v13) : (v16));
					const float v18 = tanhf(v17);
					const float v19 = ((v18) * (v13));
					const float v20 = p_t6[(pb + (r + 1 * 8) * a2)];
					const float v21 = ((v20) + (v1));
					const float v22 = ((float)((v21) > (v3)));
					const float v23 = expf(v21);
					const float v24 = log1pf(v23);
					const float v25 = ((v22) != 0.f ? (v21) : (v24));
					const float v26 = tanhf(v25);
					const float v27 = ((v26) * (v21));
					const float v28 = p_t6[(pb + (r + 2 * 8) * a2)];
					const float v29 = ((v28) + (v1));
					const float v30 = ((float)((v29) > (v3)));
					const float v31 = expf(v29);
					const float v32 = log1pf(v31);
					const float v33 = ((v30) != 0.f ? (v29) : (v32));
					const float v34 = tanhf(v33);
					const float v35 = ((v34) * (v29));
					const float v36 = p_t6[(pb + (r + 3 * 8) * a2)];
					const float v37 = ((v36) + (v1));
					const float v38 = ((float)((v37) > (v3)));
					const float v39 = expf(v37);
					const float v40 = log1pf(v39);
					const float v41 = ((v38) != 0.f ? (v37) : (v40));
					const float v42 = tanhf(v41);
					const float v43 = ((v42) * (v37));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v19 - v9;
						const float d1 = v27 - v9;
						const float d2 = v35 - v9;
						const float d3 = v43 - v9;
						acc10 += (double)((d0 + d1) + (d2 + d3));
						acc11 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
				for (; r < r1; r += 8) {
					const float v44 = p_t6[(pb + r * a2)];
					const float v45 = ((v44) + (v1));
					const float v46 = ((float)((v45) > (v3)));
					const float v47 = expf(v45);
					const float v48 = log1pf(v47);
					const float v49 = ((v46) != 0.f ? (v45) : (v48));
					const float v50 = tanhf(v49);
					const float v51 = ((v50) * (v45));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v51 - v9;
						acc10 += (double)d0;
						acc11 += (double)(d0 * d0);
					}
				}
			}
			__syncthreads(); /* the slots may still be read */
			krl_cd[ty][tx] = acc10;
			__syncthreads();
			acc10 = krl_cd[0][tx];
			for (int k = 1; k < 8; k++)
				acc10 += krl_cd[k][tx];
			const float r52 = (float)acc10;
			if (ty == 0 && valid) {
				p_k1_part[((op * nch + ch) * a2 + cp) * 2 + 0] = (double)acc10;
			}
			__syncthreads(); /* the slots may still be read */
			krl_cd[ty][tx] = acc11;
			__syncthreads();
			acc11 = krl_cd[0][tx];
			for (int k = 1; k < 8; k++)
				acc11 += krl_cd[k][tx];
			const float r53 = (float)acc11;
			if (ty == 0 && valid) {
				p_k1_part[((op * nch + ch) * a2 + cp) * 2 + 1] = (double)acc11;
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
			const float v61 = 2.000000000e+01f;
			const float v68 = (float)c9;
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
				double acc54 = 0.0, acc55 = 0.0;
				for (long q = ty; q < nch; q += 8) {
					acc54 += krl_pp[((op * nch + q) * a2 + cp) * 2 + 0];
					acc55 += krl_pp[((op * nch + q) * a2 + cp) * 2 + 1];
				}
				__syncthreads(); /* the slots may still be read */
				krl_cd[ty][tx] = acc54;
				__syncthreads();
				acc54 = krl_cd[0][tx];
				for (int k = 1; k < 8; k++)
					acc54 += krl_cd[k][tx];
				const float r56 = (float)acc54;
				__syncthreads(); /* the slots may still be read */
				krl_cd[ty][tx] = acc55;
				__syncthreads();
				acc55 = krl_cd[0][tx];
				for (int k = 1; k < 8; k++)
					acc55 += krl_cd[k][tx];
				const float r57 = (float)acc55;
				const float v58 = p_t6[((krl_div((rb + 0), a5) * a1 + krl_mod((rb + 0), a1)) * a4 + krl_mod(krl_div((rb + 0), a1), a4))];
				const float v59 = p_b[(krl_mod(krl_div(rb, a1), a4))];
				const float v60 = ((v58) + (v59));
				const float v62 = ((float)((v60) > (v61)));
				const float v63 = expf(v60);
				const float v64 = log1pf(v63);
				const float v65 = ((v62) != 0.f ? (v60) : (v64));
				const float v66 = tanhf(v65);
				const float v67 = ((v66) * (v60));
				const float r69 = (float)(acc54 + (double)a1 * (double)v67);
				const float m71 = r69 * v68;
				const double dm72 = (double)m71 - (double)v67;
				const float r70 = (float)fmax(acc55 - 2.0 * dm72 * acc54 + (double)a1 * dm72 * dm72, 0.0);
				/* the outputs of the row shape */
				const float v73 = ((r69) * (v68));
				if (valid && ty == 0) {
					p_t20[o] = v73;
					p_t23[o] = r70;
				}
			}
		}
	}
}

/*
 * k2 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 24 sum, 26 mul, 27 sub, 28 square, 29 sum, 30 sum, 31 mul, 32 add, 33 mul, 36 add, 37 rsqrt.
 * Writes: t26 t29 t37.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t20,
	const float *__restrict__ p_t23,
	double c5,
	float *__restrict__ p_t26,
	float *__restrict__ p_t29,
	double c8,
	double c9,
	double c10,
	float *__restrict__ p_t37)
{
	__shared__ double krl_cd[8][33];
	const float v90 = (float)c5;
	const float v97 = (float)c8;
	const float v100 = (float)c9;
	const float v102 = (float)c10;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	for (long blk = blockIdx.x; blk < a0 * ncb; blk += gridDim.x) {
		const long o = blk / ncb;
		const long cc = (blk % ncb) * 32 + tx;
		const bool valid = cc < a2;
		/* past the last column: compute the last one's values (in bounds), store nothing */
		const long c = valid ? cc : a2 - 1;
		const long rb = o * a1 * a2 + c;
		const float v74 = p_t20[(rb + 0 * a2)];
		/* pass 1 */
		double acc75 = 0.0;
		double acc76 = 0.0;
		double acc77 = 0.0;
		{
			long r = ty;
			for (; r + 3 * 8 < a1; r += 4 * 8) {
				const float v78 = p_t20[(rb + r * a2)];
				const float v79 = p_t23[(rb + r * a2)];
				const float v80 = p_t20[(rb + (r + 1 * 8) * a2)];
				const float v81 = p_t23[(rb + (r + 1 * 8) * a2)];
				const float v82 = p_t20[(rb + (r + 2 * 8) * a2)];
				const float v83 = p_t23[(rb + (r + 2 * 8) * a2)];
				const float v84 = p_t20[(rb + (r + 3 * 8) * a2)];
				const float v85 = p_t23[(rb + (r + 3 * 8) * a2)];
				acc76 += (double)((v79 + v81) + (v83 + v85));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v78 - v74;
					const float d1 = v80 - v74;
					const float d2 = v82 - v74;
					const float d3 = v84 - v74;
					acc75 += (double)((d0 + d1) + (d2 + d3));
					acc77 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
				}
			}
			for (; r < a1; r += 8) {
				const float v86 = p_t20[(rb + r * a2)];
				const float v87 = p_t23[(rb + r * a2)];
				acc76 += (double)v87;
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v86 - v74;
					acc75 += (double)d0;
					acc77 += (double)(d0 * d0);
				}
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc75;
		__syncthreads();
		acc75 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc75 += krl_cd[k][tx];
		const float r88 = (float)acc75;
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc77;
		__syncthreads();
		acc77 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc77 += krl_cd[k][tx];
		const float r89 = (float)acc77;
		const float r91 = (float)(acc75 + (double)a1 * (double)v74);
		const float m93 = r91 * v90;
		const double dm94 = (double)m93 - (double)v74;
		const float r92 = (float)fmax(acc77 - 2.0 * dm94 * acc75 + (double)a1 * dm94 * dm94, 0.0);
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc76;
		__syncthreads();
		acc76 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc76 += krl_cd[k][tx];
		const float r95 = (float)acc76;
		/* the outputs of the row shape */
		const float v96 = ((r91) * (v90));
		const float v98 = ((r92) * (v97));
		const float v99 = ((r95) + (v98));
		const float v101 = ((v99) * (v100));
		const float v103 = ((v101) + (v102));
		const float v104 = rsqrtf(v103);
		if (valid && ty == 0) {
			p_t26[(o * a2 + c)] = v96;
			p_t29[(o * a2 + c)] = r95;
			p_t37[(o * a2 + c)] = v104;
		}
	}
}

/*
 * k3 (map over a channels-last input (node 6), tiles of 128 positions x 32 channels through shared memory: 256 threads, cdiv grid): nodes 7 view, 8 add, 10 gt, 11 exp, 12 log1p, 13 where, 14 tanh, 15 mul, 34 sub, 38 mul, 39 view, 40 view, 41 mul, 42 add.
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
	const float *__restrict__ p_t26,
	const float *__restrict__ p_t37,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	float *__restrict__ p_y)
{
	__shared__ float ttile[128][33];
	const float v107 = 2.000000000e+01f;
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
		const float v105 = p_b[(tc)];
		const float v114 = p_t26[(tc)];
		const float v116 = p_t37[(tc)];
		const float v118 = p_bn_w[(tc)];
		const float v120 = p_bn_b[(tc)];
		#pragma unroll
		for (int k = 0; k < 4; k++) {
			const int trr = k * 32 + lane;
			const long ts = ts0 + trr;
			if (ts < a1) {
				const long i = trb + ts;
				const long ts3 = tcs3[k], tq3 = tcq3[k];
				const float v106 = ((ttile[trr][tqq]) + (v105));
				const float v108 = ((float)((v106) > (v107)));
				const float v109 = expf(v106);
				const float v110 = log1pf(v109);
				const float v111 = ((v108) != 0.f ? (v106) : (v110));
				const float v112 = tanhf(v111);
				const float v113 = ((v112) * (v106));
				const float v115 = ((v113) - (v114));
				const float v117 = ((v115) * (v116));
				const float v119 = ((v117) * (v118));
				const float v121 = ((v119) + (v120));
				p_y[i] = v121;
			}
		}
	}
}

/*@plan
derived k0_wt f32 [(out_channels), (in_channels), (kernel_size), (kernel_size)]
buffer k1_part f64 [(batch_size) * 1, cdiv((oh) * (ow), 4000), 1 * (out_channels), 2]
buffer t6 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t20 f32 [(batch_size), (out_channels), (1), (1)]
buffer t23 f32 [(batch_size), (out_channels), (1), (1)]
buffer t26 f32 [(1), (out_channels), (1), (1)]
buffer t29 f32 [(1), (out_channels), (1), (1)]
buffer t37 f32 [(1), (out_channels), (1), (1)]
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
    t20,
    t23)
launch k2_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t20,
    t23,
    (1.0 / (batch_size)),
    t26,
    t29,
    (oh * ow),
    (1.0 / (batch_size * (oh * ow))),
    (eps),
    t37)
launch k3_map grid=(((batch_size)) * cdiv((oh) * (ow), 128) * cdiv((out_channels), 32)) block=(256) args((out_channels),
    (oh) * (ow),
    cdiv((oh) * (ow), 128),
    cdiv((out_channels), 32),
    t6,
    (ow),
    b,
    t26,
    t37,
    bn_w,
    bn_b,
    y)
@*/
