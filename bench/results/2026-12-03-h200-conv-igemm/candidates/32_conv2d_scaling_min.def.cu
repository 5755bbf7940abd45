/*
 * krl-choice: rule.conv_bias=on row.block=256 fuse=full lib.algo=0 lib.layout=nchw conv.impl=lib
 * Task level2/32_conv2d_scaling_min, generated at shape set kb1; it serves every shape set.
 * fused 4 ops into 2 kernels: 1 row (block 256, regs), 1 library
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

/*
 * k1 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 5 view, 6 add, 8 mul, 9 min.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	double c5,
	float *__restrict__ p_y)
{
	__shared__ float krl_cf[8][33];
	const float v4 = (float)c5;
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
		float acc0 = INFINITY;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v1 = p_t4[(rb + r * a2)];
				const float v2 = p_b[(r)];
				const float v3 = ((v1) + (v2));
				const float v5 = ((v3) * (v4));
				const float v6 = p_t4[(rb + (r + 8) * a2)];
				const float v7 = p_b[((r + 8))];
				const float v8 = ((v6) + (v7));
				const float v9 = ((v8) * (v4));
				const float v10 = p_t4[(rb + (r + 16) * a2)];
				const float v11 = p_b[((r + 16))];
				const float v12 = ((v10) + (v11));
				const float v13 = ((v12) * (v4));
				const float v14 = p_t4[(rb + (r + 24) * a2)];
				const float v15 = p_b[((r + 24))];
				const float v16 = ((v14) + (v15));
				const float v17 = ((v16) * (v4));
				acc0 = krl_minf(acc0, krl_minf(krl_minf(v5, v9), krl_minf(v13, v17)));
			}
			for (; r < a1; r += 8) {
				const float v18 = p_t4[(rb + r * a2)];
				const float v19 = p_b[(r)];
				const float v20 = ((v18) + (v19));
				const float v21 = ((v20) * (v4));
				acc0 = krl_minf(acc0, v21);
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cf[ty][tx] = acc0;
		__syncthreads();
		acc0 = krl_cf[0][tx];
		for (int k = 1; k < 8; k++)
			acc0 = krl_minf(acc0, krl_cf[k][tx]);
		const float r22 = acc0;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_y[(o * a2 + c)] = r22;
		}
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (oh), (ow)]
# k0: library call (node 4)
call conv(x, w) -> t4
launch k1_col grid=(min(((batch_size)) * cdiv((oh) * (ow), 32), sm_count * 32)) block=(32, 8) args((batch_size),
    (out_channels),
    (oh) * (ow),
    t4,
    b,
    (scale_factor),
    y)
@*/
