/*
 * krl-choice: row.block=256 probe=reg8
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
 * k0 (hand-written probe): a block per tile of 128 positions of one image,
 * 8 warps; warp w holds features w, w + 8, ..., w + 56 of the tile as
 * float4s (lanes 4 positions apart: 512 contiguous bytes a feature row),
 * sums of squares met in shared memory, the values scaled from registers.
 */
extern "C" __global__ void __launch_bounds__(256)
k0_col(long a0, long a1, long a2, const float *__restrict__ p_x, double c4, double c5, float *__restrict__ p_y)
{
	const float inv = (float)c4, eps = (float)c5;
	__shared__ __align__(16) float part[8][128];
	__shared__ __align__(16) float rr[128];
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	const long ntile = (a2 + 127) / 128;
	const bool fast = a1 == 64 && a2 % 4 == 0;
	for (long blk = blockIdx.x; blk < a0 * ntile; blk += gridDim.x) {
		const long o = blk / ntile;
		const long p0 = (blk % ntile) * 128;
		const float *xb = p_x + o * a1 * a2;
		float *yb = p_y + o * a1 * a2;
		if (fast) {
			const long p = p0 + 4 * lane;
			const bool in = p < a2;
			float4 v[8];
			#pragma unroll
			for (int k = 0; k < 8; k++)
				v[k] = in ? *reinterpret_cast<const float4 *>(xb + (long)(w + 8 * k) * a2 + p)
				          : make_float4(0.f, 0.f, 0.f, 0.f);
			float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
			#pragma unroll
			for (int k = 0; k < 8; k++) {
				s.x += v[k].x * v[k].x;
				s.y += v[k].y * v[k].y;
				s.z += v[k].z * v[k].z;
				s.w += v[k].w * v[k].w;
			}
			*reinterpret_cast<float4 *>(&part[w][4 * lane]) = s;
			__syncthreads();
			if (threadIdx.x < 128) {
				float t = 0.f;
				#pragma unroll
				for (int j = 0; j < 8; j++)
					t += part[j][threadIdx.x];
				rr[threadIdx.x] = sqrtf(t * inv + eps);
			}
			__syncthreads();
			if (in) {
				const float4 r = *reinterpret_cast<const float4 *>(&rr[4 * lane]);
				#pragma unroll
				for (int k = 0; k < 8; k++)
					*reinterpret_cast<float4 *>(yb + (long)(w + 8 * k) * a2 + p) =
						make_float4(v[k].x / r.x, v[k].y / r.y, v[k].z / r.z, v[k].w / r.w);
			}
			__syncthreads();
		} else if (threadIdx.x < 128 && p0 + threadIdx.x < a2) {
			const long p = p0 + threadIdx.x;
			double acc = 0.0;
			for (long k = 0; k < a1; k++) {
				const float t = xb[k * a2 + p];
				acc += (double)(t * t);
			}
			const float r = sqrtf((float)acc * inv + eps);
			for (long k = 0; k < a1; k++)
				yb[k * a2 + p] = xb[k * a2 + p] / r;
		}
	}
}

/*@plan
launch k0_col grid=(((batch_size)) * cdiv((dim1) * (dim2), 128)) block=(256) args((batch_size),
    (features),
    (dim1) * (dim2),
    x,
    (1.0 / (features)),
    (eps),
    y)
@*/
