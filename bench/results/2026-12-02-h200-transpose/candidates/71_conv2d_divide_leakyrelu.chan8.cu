/*
 * krl-choice: rule.fold=on rule.conv_bias=on map.block=256 map.vec=4 map.ept=4 map.grid=cdiv fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=chan8
 * Task level2/71_conv2d_divide_leakyrelu, generated at shape set kb1; it serves every shape set.
 * fused 6 ops into 2 kernels: 1 map (block 256, vec 4, ept 4, cdiv), 1 library (layout nhwc)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: map
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
 * k1 (map over a channels-last input (node 4), 8 channels per thread: 256 threads, cdiv grid): nodes 5 view, 6 add, 8 mul, 10 mul, 12 gt, 13 where.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	float *__restrict__ p_y)
{
	const float v2 = 5.000000000e-01f;
	const float v4 = 0.000000000e+00f;
	const float v6 = 5.000000000e-03f;
	const int tid = threadIdx.x;
	const bool tvec = (a0 & 3) == 0;
	for (long e = (long)blockIdx.x * 256 + tid; e < a3;
	     e += (long)gridDim.x * 256) {
		const long ts = krl_mod(e, a1);
		const long tq = krl_div(e, a1);
		const long tc0 = krl_mod(tq, a2) * 8;
		const long tn = krl_div(tq, a2);
		const long tbase = (tn * a1 + ts) * a0 + tc0;
		float tv[8];
		if (tvec && tc0 + 8 <= a0) {
			const float4 q0 = *reinterpret_cast<const float4 *>(p_t4 + tbase);
			const float4 q1 = *reinterpret_cast<const float4 *>(p_t4 + tbase + 4);
			tv[0] = q0.x; tv[1] = q0.y; tv[2] = q0.z; tv[3] = q0.w;
			tv[4] = q1.x; tv[5] = q1.y; tv[6] = q1.z; tv[7] = q1.w;
		} else {
			#pragma unroll
			for (int j = 0; j < 8; j++)
				tv[j] = tc0 + j < a0 ? p_t4[tbase + j] : 0.f;
		}
		if (tc0 + 0 < a0) {
			const long i = (tn * a0 + tc0 + 0) * a1 + ts;
			const float v0 = p_b[((tc0 + 0))];
			const float v1 = ((tv[0]) + (v0));
			const float v3 = ((v1) * (v2));
			const float v5 = ((float)((v3) > (v4)));
			const float v7 = ((v1) * (v6));
			const float v8 = ((v5) != 0.f ? (v3) : (v7));
			p_y[i] = v8;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v9 = p_b[((tc0 + 1))];
			const float v10 = ((tv[1]) + (v9));
			const float v11 = ((v10) * (v2));
			const float v12 = ((float)((v11) > (v4)));
			const float v13 = ((v10) * (v6));
			const float v14 = ((v12) != 0.f ? (v11) : (v13));
			p_y[i] = v14;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v15 = p_b[((tc0 + 2))];
			const float v16 = ((tv[2]) + (v15));
			const float v17 = ((v16) * (v2));
			const float v18 = ((float)((v17) > (v4)));
			const float v19 = ((v16) * (v6));
			const float v20 = ((v18) != 0.f ? (v17) : (v19));
			p_y[i] = v20;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v21 = p_b[((tc0 + 3))];
			const float v22 = ((tv[3]) + (v21));
			const float v23 = ((v22) * (v2));
			const float v24 = ((float)((v23) > (v4)));
			const float v25 = ((v22) * (v6));
			const float v26 = ((v24) != 0.f ? (v23) : (v25));
			p_y[i] = v26;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v27 = p_b[((tc0 + 4))];
			const float v28 = ((tv[4]) + (v27));
			const float v29 = ((v28) * (v2));
			const float v30 = ((float)((v29) > (v4)));
			const float v31 = ((v28) * (v6));
			const float v32 = ((v30) != 0.f ? (v29) : (v31));
			p_y[i] = v32;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v33 = p_b[((tc0 + 5))];
			const float v34 = ((tv[5]) + (v33));
			const float v35 = ((v34) * (v2));
			const float v36 = ((float)((v35) > (v4)));
			const float v37 = ((v34) * (v6));
			const float v38 = ((v36) != 0.f ? (v35) : (v37));
			p_y[i] = v38;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v39 = p_b[((tc0 + 6))];
			const float v40 = ((tv[6]) + (v39));
			const float v41 = ((v40) * (v2));
			const float v42 = ((float)((v41) > (v4)));
			const float v43 = ((v40) * (v6));
			const float v44 = ((v42) != 0.f ? (v41) : (v43));
			p_y[i] = v44;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v45 = p_b[((tc0 + 7))];
			const float v46 = ((tv[7]) + (v45));
			const float v47 = ((v46) * (v2));
			const float v48 = ((float)((v47) > (v4)));
			const float v49 = ((v46) * (v6));
			const float v50 = ((v48) != 0.f ? (v47) : (v49));
			p_y[i] = v50;
		}
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (oh), (ow)]
# k0: library call (node 4)
call conv(x, w) -> t4 layout=nhwc_y
launch k1_map grid=(cdiv(((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)), 256)) block=(256) args((out_channels),
    (oh) * (ow),
    cdiv((out_channels), 8),
    ((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)),
    t4,
    b,
    y)
@*/
