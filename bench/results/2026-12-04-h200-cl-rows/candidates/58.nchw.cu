/*
 * krl-choice: rule.conv_bias=on row.block=256 fuse=full lib.algo=0 lib.layout=nchw
 * Task level2/58_convtranspose3d_logsumexp_hardswish_subtract_clamp, generated at shape set kb1; it serves every shape set.
 * fused 18 ops into 2 kernels: 1 row (block 256, regs), 1 library
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
 * k1 (row over a middle axis: 32 columns x 8 rows of threads per block, 2 passes): nodes 6 view, 7 add, 8 max, 9 sub, 11 eq, 12 where, 13 sub, 14 exp, 15 sum, 16 log, 17 add, 19 add, 20 sigmoid, 21 mul, 23 mul, 24 sub, 27 max, 28 min.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_b,
	double c5,
	const float *__restrict__ p_bias,
	float *__restrict__ p_y)
{
	__shared__ double krl_cd[8][33];
	__shared__ float krl_cf[8][33];
	const float v22 = 0.000000000e+00f;
	const float v53 = 3.000000000e+00f;
	const float v57 = (float)c5;
	const float v59 = p_bias[0];
	const float v61 = -1.000000000e+00f;
	const float v63 = 1.000000000e+00f;
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
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v1 = p_t5[(rb + r * a2)];
				const float v2 = p_b[(r)];
				const float v3 = ((v1) + (v2));
				const float v4 = p_t5[(rb + (r + 8) * a2)];
				const float v5 = p_b[((r + 8))];
				const float v6 = ((v4) + (v5));
				const float v7 = p_t5[(rb + (r + 16) * a2)];
				const float v8 = p_b[((r + 16))];
				const float v9 = ((v7) + (v8));
				const float v10 = p_t5[(rb + (r + 24) * a2)];
				const float v11 = p_b[((r + 24))];
				const float v12 = ((v10) + (v11));
				acc0 = krl_maxf(acc0, krl_maxf(krl_maxf(v3, v6), krl_maxf(v9, v12)));
			}
			for (; r < a1; r += 8) {
				const float v13 = p_t5[(rb + r * a2)];
				const float v14 = p_b[(r)];
				const float v15 = ((v13) + (v14));
				acc0 = krl_maxf(acc0, v15);
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cf[ty][tx] = acc0;
		__syncthreads();
		acc0 = krl_cf[0][tx];
		for (int k = 1; k < 8; k++)
			acc0 = krl_maxf(acc0, krl_cf[k][tx]);
		const float r16 = acc0;
		const float v21 = ((r16) - (r16));
		const float v23 = ((float)((v21) == (v22)));
		const float v24 = ((v23) != 0.f ? (r16) : (v22));
		/* pass 2 */
		double acc17 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v18 = p_t5[(rb + r * a2)];
				const float v19 = p_b[(r)];
				const float v20 = ((v18) + (v19));
				const float v25 = ((v20) - (v24));
				const float v26 = expf(v25);
				const float v27 = p_t5[(rb + (r + 8) * a2)];
				const float v28 = p_b[((r + 8))];
				const float v29 = ((v27) + (v28));
				const float v30 = ((v29) - (v24));
				const float v31 = expf(v30);
				const float v32 = p_t5[(rb + (r + 16) * a2)];
				const float v33 = p_b[((r + 16))];
				const float v34 = ((v32) + (v33));
				const float v35 = ((v34) - (v24));
				const float v36 = expf(v35);
				const float v37 = p_t5[(rb + (r + 24) * a2)];
				const float v38 = p_b[((r + 24))];
				const float v39 = ((v37) + (v38));
				const float v40 = ((v39) - (v24));
				const float v41 = expf(v40);
				acc17 += (double)((v26 + v31) + (v36 + v41));
			}
			for (; r < a1; r += 8) {
				const float v42 = p_t5[(rb + r * a2)];
				const float v43 = p_b[(r)];
				const float v44 = ((v42) + (v43));
				const float v45 = ((v44) - (v24));
				const float v46 = expf(v45);
				acc17 += (double)v46;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc17;
		__syncthreads();
		acc17 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc17 += krl_cd[k][tx];
		const float r47 = (float)acc17;
		/* the outputs of the row shape */
		const float v48 = logf(r47);
		const float v49 = ((r16) - (r16));
		const float v50 = ((float)((v49) == (v22)));
		const float v51 = ((v50) != 0.f ? (r16) : (v22));
		const float v52 = ((v48) + (v51));
		const float v54 = ((v52) + (v53));
		const float v55 = (1.f / (1.f + expf(-(v54))));
		const float v56 = ((v52) * (v55));
		const float v58 = ((v56) * (v57));
		const float v60 = ((v58) - (v59));
		const float v62 = krl_maxf(v60, v61);
		const float v64 = krl_minf(v62, v63);
		if (valid && ty == 0) {
			p_y[(o * a2 + c)] = v64;
		}
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
# k0: library call (node 5)
call conv_transpose(x, w) -> t5 stride=stride padding=padding
launch k1_col grid=(min(((batch_size)) * cdiv((od) * (oh) * (ow), 32), sm_count * 32)) block=(32, 8) args((batch_size),
    (out_channels),
    (od) * (oh) * (ow),
    t5,
    b,
    (1.0 / 6),
    bias,
    y)
@*/
