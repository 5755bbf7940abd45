/*
 * krl-choice: rule.conv_bias=on row.block=256 fuse=full lib.algo=2 lib.layout=nhwc_y math=precise
 * Task level2/91_convtranspose2d_softmax_biasadd_scaling_sigmoid, generated at shape set kb1; it serves every shape set.
 * fused 10 ops into 3 kernels: 1 map (block 256, vec 4, ept 1, cdiv; over a channels-last y, tiles of 256 threads), 1 row (block 256, regs; 1 over a channels-last y in its memory order), 1 library (algo 2, layout nhwc; 1 weight kept channels-last)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: map
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

/* Warp reductions; xor shuffles give every lane the same result. Over
 * aligned groups of w lanes (a power of two) with w: a warp-strategy row
 * kernel's rows of few elements, several a warp. The loops stay unrolled
 * with w a run-time value (a test a step); with the default, the code is
 * the whole warp's as before. */
static __device__ __forceinline__ double krl_warp_sum(double v, int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		if (off < w)
			v += __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

static __device__ __forceinline__ double krl_warp_prod(double v, int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		if (off < w)
			v *= __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

static __device__ __forceinline__ float krl_warp_max(float v, int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		if (off < w)
			v = krl_maxf(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}

static __device__ __forceinline__ float krl_warp_min(float v, int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		if (off < w)
			v = krl_minf(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}

/* Lanes a row of n elements takes in a warp-strategy row kernel: a
 * float4 a lane at least, between 4 (the peeled path's head and tail
 * take up to 3 lanes) and 32. */
static __device__ __forceinline__ int krl_row_lanes(long n)
{
	int w = 4;
	while (w < 32 && (long)w * 4 < n)
		w <<= 1;
	return w;
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
 * k1 (row: a warp per row, 256 threads, rows re-read, 1 pass; rows of C contiguous in a channels-last input, one per position): nodes 6 view, 7 add, 8 max, 9 sub, 10 exp, 11 sum.
 * Writes: t8 t11.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_b,
	float *__restrict__ p_t8,
	float *__restrict__ p_t11,
	long a7)
{
	const int tid = threadIdx.x;
	const int lid = tid & 31;
	const long wpb = 8; /* warps (rows) per block */
	for (long op = (long)blockIdx.x * wpb + (tid >> 5); op < a7; op += (long)gridDim.x * wpb) {
		const long o = op / a2, c = op % a2;
		const long rb = o * a1 * a2 + c;
		const long pb = op * a1;
		/* pass 1 */
		float acc0 = -INFINITY;
		double acc1 = 0.0;
		{
			long r = lid;
			for (; r + 3 * 32 < a1; r += 4 * 32) {
				const float v2 = p_t5[(pb + r)];
				const float v3 = p_b[(r)];
				const float v4 = ((v2) + (v3));
				const float v5 = p_t5[(pb + (r + 1 * 32))];
				const float v6 = p_b[((r + 1 * 32))];
				const float v7 = ((v5) + (v6));
				const float v8 = p_t5[(pb + (r + 2 * 32))];
				const float v9 = p_b[((r + 2 * 32))];
				const float v10 = ((v8) + (v9));
				const float v11 = p_t5[(pb + (r + 3 * 32))];
				const float v12 = p_b[((r + 3 * 32))];
				const float v13 = ((v11) + (v12));
				{
					/* online: the running sum follows the running max */
					const float mn = krl_maxf(acc0, krl_maxf(krl_maxf(v4, v7), krl_maxf(v10, v13)));
					if (mn != acc0) {
						acc1 *= (double)expf(acc0 - mn);
						acc0 = mn;
					}
					if (acc0 != -INFINITY)
						acc1 += (double)((expf(v4 - acc0) + expf(v7 - acc0)) + (expf(v10 - acc0) + expf(v13 - acc0)));
				}
			}
			for (; r < a1; r += 32) {
				const float v14 = p_t5[(pb + r)];
				const float v15 = p_b[(r)];
				const float v16 = ((v14) + (v15));
				{
					/* online: the running sum follows the running max */
					const float mn = krl_maxf(acc0, v16);
					if (mn != acc0) {
						acc1 *= (double)expf(acc0 - mn);
						acc0 = mn;
					}
					if (acc0 != -INFINITY)
						acc1 += (double)expf(v16 - acc0);
				}
			}
		}
		const float r17 = krl_warp_max(acc0);
		acc1 = acc0 == -INFINITY ? 0.0 : acc1 * (double)expf(acc0 - r17);
		const float r18 = (float)krl_warp_sum(acc1);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t8[(o * a2 + c)] = r17;
			p_t11[(o * a2 + c)] = r18;
		}
	}
}

/*
 * k2 (map over a channels-last input (node 5), tiles of 128 positions x 32 channels through shared memory: 256 threads, cdiv grid): nodes 6 view, 7 add, 9 sub, 10 exp, 12 div, 13 add, 15 mul, 16 sigmoid.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t5,
	long a5,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t8,
	const float *__restrict__ p_t11,
	const float *__restrict__ p_bias,
	float *__restrict__ p_y)
{
	__shared__ float ttile[128][33];
	const float v28 = 2.000000000e+00f;
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
			tld[k] = *reinterpret_cast<const float4 *>(p_t5 + b);
		} else if (s < a1) {
			if (tlc < a0) tld[k].x = p_t5[b];
			if (tlc + 1 < a0) tld[k].y = p_t5[b + 1];
			if (tlc + 2 < a0) tld[k].z = p_t5[b + 2];
			if (tlc + 3 < a0) tld[k].w = p_t5[b + 3];
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
		const float v19 = p_b[(tc)];
		const float v26 = p_bias[(tc)];
		#pragma unroll
		for (int k = 0; k < 4; k++) {
			const int trr = k * 32 + lane;
			const long ts = ts0 + trr;
			if (ts < a1) {
				const long i = trb + ts;
				const long ts3 = tcs3[k], tq3 = tcq3[k];
				const float v20 = ((ttile[trr][tqq]) + (v19));
				const float v21 = p_t8[(tn * a1 + ts)];
				const float v22 = ((v20) - (v21));
				const float v23 = expf(v22);
				const float v24 = p_t11[(tn * a1 + ts)];
				const float v25 = ((v23) / (v24));
				const float v27 = ((v25) + (v26));
				const float v29 = ((v27) * (v28));
				const float v30 = (1.f / (1.f + expf(-(v29))));
				p_y[i] = v30;
			}
		}
	}
}

/*@plan
derived k0_wt f32 [(in_channels), (out_channels), (kernel_size), (kernel_size)]
buffer t5 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t8 f32 [(batch_size), (1), (oh), (ow)]
buffer t11 f32 [(batch_size), (1), (oh), (ow)]
init
  # k0: the weight of node 5 in cuDNN's channels-last filter format
  launch krl_wkrsc grid=(cdiv(numel(w), 256)) block=(256) args(w, k0_wt, in_channels, out_channels, (kernel_size) * (kernel_size))
end
# k0: library call (node 5), its weight kept channels-last
call conv_transpose(x, k0_wt) -> t5 stride=stride padding=padding output_padding=output_padding w_layout=krsc algo=2 layout=nhwc_y
launch k1_row grid=(min(cdiv((batch_size) * (oh) * (ow), 8), sm_count * 32)) block=(256) args((batch_size),
    (out_channels),
    (oh) * (ow),
    t5,
    b,
    t8,
    t11,
    (batch_size) * (oh) * (ow))
launch k2_map grid=(((batch_size)) * cdiv((oh) * (ow), 128) * cdiv((out_channels), 32)) block=(256) args((out_channels),
    (oh) * (ow),
    cdiv((oh) * (ow), 128),
    cdiv((out_channels), 32),
    t5,
    (ow),
    b,
    t8,
    t11,
    bias,
    y)
@*/
