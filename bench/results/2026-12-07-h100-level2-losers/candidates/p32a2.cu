/*
 * krl-choice: rule.conv_bias=on row.block=256 fuse=full lib.algo=2 lib.layout=nhwc_y conv.impl=lib
 * Task level2/32_conv2d_scaling_min, generated at shape set kb1; it serves every shape set.
 * fused 4 ops into 2 kernels: 1 row (block 256, regs; 1 over a channels-last y in its memory order), 1 library (algo 2, layout nhwc; 1 weight kept channels-last)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 * Every kernel indexes with 64-bit integers, guards every load and store,
 * and takes its vector path only where a run-time check says sizes allow.
 */

/* NVRTC has no <math.h>: spell out infinity. */
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

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
 * k1 (row: a warp per row, 256 threads, rows re-read, 1 pass; rows of C contiguous in a channels-last input, one per position): nodes 5 view, 6 add, 8 mul, 9 min.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	double c5,
	float *__restrict__ p_y,
	long a7)
{
	const float v4 = (float)c5;
	const int tid = threadIdx.x;
	const int lid = tid & 31;
	const long wpb = 8; /* warps (rows) per block */
	for (long op = (long)blockIdx.x * wpb + (tid >> 5); op < a7; op += (long)gridDim.x * wpb) {
		const long o = op / a2, c = op % a2;
		const long rb = o * a1 * a2 + c;
		const long pb = op * a1;
		/* pass 1 */
		float acc0 = INFINITY;
		{
			long r = lid;
			for (; r + 3 * 32 < a1; r += 4 * 32) {
				const float v1 = p_t4[(pb + r)];
				const float v2 = p_b[(r)];
				const float v3 = ((v1) + (v2));
				const float v5 = ((v3) * (v4));
				const float v6 = p_t4[(pb + (r + 1 * 32))];
				const float v7 = p_b[((r + 1 * 32))];
				const float v8 = ((v6) + (v7));
				const float v9 = ((v8) * (v4));
				const float v10 = p_t4[(pb + (r + 2 * 32))];
				const float v11 = p_b[((r + 2 * 32))];
				const float v12 = ((v10) + (v11));
				const float v13 = ((v12) * (v4));
				const float v14 = p_t4[(pb + (r + 3 * 32))];
				const float v15 = p_b[((r + 3 * 32))];
				const float v16 = ((v14) + (v15));
				const float v17 = ((v16) * (v4));
				acc0 = krl_minf(acc0, krl_minf(krl_minf(v5, v9), krl_minf(v13, v17)));
			}
			for (; r < a1; r += 32) {
				const float v18 = p_t4[(pb + r)];
				const float v19 = p_b[(r)];
				const float v20 = ((v18) + (v19));
				const float v21 = ((v20) * (v4));
				acc0 = krl_minf(acc0, v21);
			}
		}
		const float r22 = krl_warp_min(acc0);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_y[(o * a2 + c)] = r22;
		}
	}
}

/*@plan
derived k0_wt f32 [(out_channels), (in_channels), (kernel_size), (kernel_size)]
buffer t4 f32 [(batch_size), (out_channels), (oh), (ow)]
init
  # k0: the weight of node 4 in cuDNN's channels-last filter format
  launch krl_wkrsc grid=(cdiv(numel(w), 256)) block=(256) args(w, k0_wt, out_channels, in_channels, (kernel_size) * (kernel_size))
end
# k0: library call (node 4), its weight kept channels-last
call conv(x, k0_wt) -> t4 w_layout=krsc algo=2 layout=nhwc_y
launch k1_row grid=(min(cdiv((batch_size) * (oh) * (ow), 8), sm_count * 32)) block=(256) args((batch_size),
    (out_channels),
    (oh) * (ow),
    t4,
    b,
    (scale_factor),
    y,
    (batch_size) * (oh) * (ow))
@*/
