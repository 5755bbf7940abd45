/*
 * krl-choice: rule.conv_bias=on row.block=256 fuse=full lib.algo=0 lib.layout=nhwc math=precise
 * Task level2/49_convtranspose3d_softmax_sigmoid, generated at shape set kb1; it serves every shape set.
 * fused 8 ops into 2 kernels: 1 row (block 256, regs), 1 library (layout nhwc; 1 weight kept channels-last)
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
 * k1 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 5 view, 6 add, 7 max, 8 sub, 9 exp, 10 sum, 11 div, 12 sigmoid.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	float *__restrict__ p_y)
{
	__shared__ double krl_cd[8][33];
	__shared__ float krl_cf[8][33];
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
		float acc0 = -INFINITY;
		double acc1 = 0.0;
		{
			long r = ty;
			for (; r + 3 * 8 < a1; r += 4 * 8) {
				const float v2 = p_t4[(rb + r * a2)];
				const float v3 = p_b[(r)];
				const float v4 = ((v2) + (v3));
				const float v5 = p_t4[(rb + (r + 1 * 8) * a2)];
				const float v6 = p_b[((r + 1 * 8))];
				const float v7 = ((v5) + (v6));
				const float v8 = p_t4[(rb + (r + 2 * 8) * a2)];
				const float v9 = p_b[((r + 2 * 8))];
				const float v10 = ((v8) + (v9));
				const float v11 = p_t4[(rb + (r + 3 * 8) * a2)];
				const float v12 = p_b[((r + 3 * 8))];
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
			for (; r < a1; r += 8) {
				const float v14 = p_t4[(rb + r * a2)];
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
		const float lm17 = acc0;
		__syncthreads(); /* the slots may still be read */
		krl_cf[ty][tx] = acc0;
		__syncthreads();
		acc0 = krl_cf[0][tx];
		for (int k = 1; k < 8; k++)
			acc0 = krl_maxf(acc0, krl_cf[k][tx]);
		const float r18 = acc0;
		acc1 = lm17 == -INFINITY ? 0.0 : acc1 * (double)expf(lm17 - r18);
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc1;
		__syncthreads();
		acc1 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc1 += krl_cd[k][tx];
		const float r19 = (float)acc1;
		/* the outputs of the full shape */
		{
			long r = ty;
			for (; r < a1; r += 8) {
				if (!valid)
					break;
				const float v20 = p_t4[(rb + r * a2)];
				const float v21 = p_b[(r)];
				const float v22 = ((v20) + (v21));
				const float v23 = ((v22) - (r18));
				const float v24 = expf(v23);
				const float v25 = ((v24) / (r19));
				const float v26 = (1.f / (1.f + expf(-(v25))));
				p_y[(rb + r * a2)] = v26;
			}
		}
	}
}

/*@plan
derived k0_wt f32 [(in_channels), (out_channels), (kernel_size), (kernel_size), (kernel_size)]
buffer t4 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
init
  # k0: the weight of node 4 in cuDNN's channels-last filter format
  launch krl_wkrsc grid=(cdiv(numel(w), 256)) block=(256) args(w, k0_wt, in_channels, out_channels, (kernel_size) * (kernel_size) * (kernel_size))
end
# k0: library call (node 4), its weight kept channels-last
call conv_transpose(x, k0_wt) -> t4 stride=stride padding=padding output_padding=output_padding w_layout=krsc layout=nhwc
launch k1_col grid=(min(((batch_size)) * cdiv((od) * (oh) * (ow), 32), sm_count * 32)) block=(32, 8) args((batch_size),
    (out_channels),
    (od) * (oh) * (ow),
    t4,
    b,
    y)
@*/
