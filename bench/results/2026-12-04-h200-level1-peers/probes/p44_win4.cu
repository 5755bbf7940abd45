/*
 * krl-choice: pool.block=256 pool.ept=1 pool.taps=inc fuse=full
 * Task level1/44_avg_pool1d, generated at shape set kb1; it serves every shape set.
 * fused 1 op into 1 kernel: 1 pool (block 256, ept 1, inc taps)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: pool
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
/* k0_pool's outputs, with offsets and coordinates in a plane of type I:
 * int when the plane, widened by a window's reach, fits (the usual case),
 * else long */

#define E 4
extern "C" __global__ void __launch_bounds__(256)
k0_pool(long rows, long IW, long OW, long ksize, long stride, long pad, const float *__restrict__ p_x, float *__restrict__ p_y)
{
	const long G = (OW + E - 1) / E;
	const bool geo = ksize == 8 && stride == 1 && pad == 4 && (IW & 3) == 0;
	for (long t = (long)blockIdx.x * 256 + threadIdx.x; t < rows * G; t += (long)gridDim.x * 256) {
		const long row = t / G, o0 = (t - row * G) * E;
		const float *xr = p_x + row * IW;
		float *yr = p_y + row * OW;
		const long ws = o0 - pad;
		if (geo && ws >= 0 && ws + 12 <= IW && o0 + E <= OW) {
			const float4 a = *reinterpret_cast<const float4 *>(xr + ws);
			const float4 b = *reinterpret_cast<const float4 *>(xr + ws + 4);
			const float4 c = *reinterpret_cast<const float4 *>(xr + ws + 8);
			const float v[12] = { a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w };
			#pragma unroll
			for (int e = 0; e < E; e++) {
				float s = 0.f;
				#pragma unroll
				for (int k = 0; k < 8; k++)
					s += v[e + k];
				yr[o0 + e] = s / 8.f;
			}
		} else {
			for (int e = 0; e < E && o0 + e < OW; e++) {
				const long s0 = (o0 + e) * stride - pad;
				const long wp = s0 + ksize < IW + pad ? s0 + ksize : IW + pad;
				const long lo = s0 > 0 ? s0 : 0, hi = wp < IW ? wp : IW;
				float s = 0.f;
				for (long i = lo; i < hi; i++)
					s += xr[i];
				yr[o0 + e] = lo < hi ? s / (float)(wp - s0) : 0.f;
			}
		}
	}
}
/*@plan
launch k0_pool grid=(min(cdiv((batch_size) * (in_channels) * cdiv((lout), 4), 256), sm_count * 1024)) block=(256) args((batch_size) * (in_channels),
    (input_length),
    (lout),
    (kernel_size),
    (stride),
    (padding),
    x,
    y)
@*/
