/*
 * krl-choice: row.block=128 row.cache=regs fuse=full
 * Task level1/36_rms_norm, generated at shape set kb1; it serves every shape set.
 * fused 6 ops into 1 kernel: 1 row (block 128, regs)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: row
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

/*
 * k0 (row over a middle axis: 32 columns x 4 rows of threads per block, 1 pass, the thread's 16 rows in registers when they fit): nodes 2 square, 3 sum, 5 mul, 7 add, 8 sqrt, 9 div.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(128)
k0_col(long a0, long a1, long a2, const float *__restrict__ p_x, double c4, double c5, float *__restrict__ p_y)
{
	const float inv = (float)c4, eps = (float)c5;
	const long ncb = (a2 + 127) / 128;
	for (long blk = blockIdx.x; blk < a0 * ncb; blk += gridDim.x) {
		const long o = blk / ncb;
		const long c = (blk % ncb) * 128 + threadIdx.x;
		if (c >= a2)
			continue;
		const float *xr = p_x + o * a1 * a2 + c;
		float *yr = p_y + o * a1 * a2 + c;
		if (a1 <= 64) {
			float v[64];
			#pragma unroll
			for (int k = 0; k < 64; k++)
				v[k] = k < a1 ? xr[k * a2] : 0.f;
			double acc = 0.0;
			#pragma unroll
			for (int k = 0; k < 64; k++)
				acc += (double)(v[k] * v[k]);
			const float r = sqrtf((float)acc * inv + eps);
			#pragma unroll
			for (int k = 0; k < 64; k++)
				if (k < a1)
					yr[k * a2] = v[k] / r;
		} else {
			double acc = 0.0;
			for (long k = 0; k < a1; k++) {
				const float t = xr[k * a2];
				acc += (double)(t * t);
			}
			const float r = sqrtf((float)acc * inv + eps);
			for (long k = 0; k < a1; k++)
				yr[k * a2] = xr[k * a2] / r;
		}
	}
}

/*@plan
launch k0_col grid=(min(((batch_size)) * cdiv((dim1) * (dim2), 128), sm_count * 16)) block=(128) args((batch_size),
    (features),
    (dim1) * (dim2),
    x,
    (1.0 / (features)),
    (eps),
    y)
@*/
