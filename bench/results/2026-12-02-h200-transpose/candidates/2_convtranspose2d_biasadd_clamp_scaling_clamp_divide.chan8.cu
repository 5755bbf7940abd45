/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=chan8
 * Task level2/2_convtranspose2d_biasadd_clamp_scaling_clamp_divide, generated at shape set kb1; it serves every shape set.
 * fused 9 ops into 2 kernels: 1 map (block 1024, vec 4, ept 1, persistent), 1 library (layout nhwc)
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
 * k1 (map over a channels-last input (node 5), 8 channels per thread: 1024 threads, persistent grid): nodes 6 view, 7 add, 8 add, 11 max, 12 min, 14 mul, 17 max, 18 min, 20 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(1024)
k1_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_b,
	const float *__restrict__ p_bias,
	float *__restrict__ p_y)
{
	const float v4 = 0.000000000e+00f;
	const float v6 = 1.000000000e+00f;
	const float v8 = 2.000000000e+00f;
	const float v10 = 0.000000000e+00f;
	const float v12 = 1.000000000e+00f;
	const float v14 = 5.000000000e-01f;
	const int tid = threadIdx.x;
	const bool tvec = (a0 & 3) == 0;
	for (long e = (long)blockIdx.x * 1024 + tid; e < a3;
	     e += (long)gridDim.x * 1024) {
		const long ts = krl_mod(e, a1);
		const long tq = krl_div(e, a1);
		const long tc0 = krl_mod(tq, a2) * 8;
		const long tn = krl_div(tq, a2);
		const long tbase = (tn * a1 + ts) * a0 + tc0;
		float tv[8];
		if (tvec && tc0 + 8 <= a0) {
			const float4 q0 = *reinterpret_cast<const float4 *>(p_t5 + tbase);
			const float4 q1 = *reinterpret_cast<const float4 *>(p_t5 + tbase + 4);
			tv[0] = q0.x; tv[1] = q0.y; tv[2] = q0.z; tv[3] = q0.w;
			tv[4] = q1.x; tv[5] = q1.y; tv[6] = q1.z; tv[7] = q1.w;
		} else {
			#pragma unroll
			for (int j = 0; j < 8; j++)
				tv[j] = tc0 + j < a0 ? p_t5[tbase + j] : 0.f;
		}
		if (tc0 + 0 < a0) {
			const long i = (tn * a0 + tc0 + 0) * a1 + ts;
			const float v0 = p_b[((tc0 + 0))];
			const float v1 = ((tv[0]) + (v0));
			const float v2 = p_bias[((tc0 + 0))];
			const float v3 = ((v1) + (v2));
			const float v5 = krl_maxf(v3, v4);
			const float v7 = krl_minf(v5, v6);
			const float v9 = ((v7) * (v8));
			const float v11 = krl_maxf(v9, v10);
			const float v13 = krl_minf(v11, v12);
			const float v15 = ((v13) * (v14));
			p_y[i] = v15;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v16 = p_b[((tc0 + 1))];
			const float v17 = ((tv[1]) + (v16));
			const float v18 = p_bias[((tc0 + 1))];
			const float v19 = ((v17) + (v18));
			const float v20 = krl_maxf(v19, v4);
			const float v21 = krl_minf(v20, v6);
			const float v22 = ((v21) * (v8));
			const float v23 = krl_maxf(v22, v10);
			const float v24 = krl_minf(v23, v12);
			const float v25 = ((v24) * (v14));
			p_y[i] = v25;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v26 = p_b[((tc0 + 2))];
			const float v27 = ((tv[2]) + (v26));
			const float v28 = p_bias[((tc0 + 2))];
			const float v29 = ((v27) + (v28));
			const float v30 = krl_maxf(v29, v4);
			const float v31 = krl_minf(v30, v6);
			const float v32 = ((v31) * (v8));
			const float v33 = krl_maxf(v32, v10);
			const float v34 = krl_minf(v33, v12);
			const float v35 = ((v34) * (v14));
			p_y[i] = v35;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v36 = p_b[((tc0 + 3))];
			const float v37 = ((tv[3]) + (v36));
			const float v38 = p_bias[((tc0 + 3))];
			const float v39 = ((v37) + (v38));
			const float v40 = krl_maxf(v39, v4);
			const float v41 = krl_minf(v40, v6);
			const float v42 = ((v41) * (v8));
			const float v43 = krl_maxf(v42, v10);
			const float v44 = krl_minf(v43, v12);
			const float v45 = ((v44) * (v14));
			p_y[i] = v45;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v46 = p_b[((tc0 + 4))];
			const float v47 = ((tv[4]) + (v46));
			const float v48 = p_bias[((tc0 + 4))];
			const float v49 = ((v47) + (v48));
			const float v50 = krl_maxf(v49, v4);
			const float v51 = krl_minf(v50, v6);
			const float v52 = ((v51) * (v8));
			const float v53 = krl_maxf(v52, v10);
			const float v54 = krl_minf(v53, v12);
			const float v55 = ((v54) * (v14));
			p_y[i] = v55;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v56 = p_b[((tc0 + 5))];
			const float v57 = ((tv[5]) + (v56));
			const float v58 = p_bias[((tc0 + 5))];
			const float v59 = ((v57) + (v58));
			const float v60 = krl_maxf(v59, v4);
			const float v61 = krl_minf(v60, v6);
			const float v62 = ((v61) * (v8));
			const float v63 = krl_maxf(v62, v10);
			const float v64 = krl_minf(v63, v12);
			const float v65 = ((v64) * (v14));
			p_y[i] = v65;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v66 = p_b[((tc0 + 6))];
			const float v67 = ((tv[6]) + (v66));
			const float v68 = p_bias[((tc0 + 6))];
			const float v69 = ((v67) + (v68));
			const float v70 = krl_maxf(v69, v4);
			const float v71 = krl_minf(v70, v6);
			const float v72 = ((v71) * (v8));
			const float v73 = krl_maxf(v72, v10);
			const float v74 = krl_minf(v73, v12);
			const float v75 = ((v74) * (v14));
			p_y[i] = v75;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v76 = p_b[((tc0 + 7))];
			const float v77 = ((tv[7]) + (v76));
			const float v78 = p_bias[((tc0 + 7))];
			const float v79 = ((v77) + (v78));
			const float v80 = krl_maxf(v79, v4);
			const float v81 = krl_minf(v80, v6);
			const float v82 = ((v81) * (v8));
			const float v83 = krl_maxf(v82, v10);
			const float v84 = krl_minf(v83, v12);
			const float v85 = ((v84) * (v14));
			p_y[i] = v85;
		}
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (oh), (ow)]
# k0: library call (node 5)
call conv_transpose(x, w) -> t5 stride=stride padding=padding output_padding=output_padding layout=nhwc_y
launch k1_map grid=(min(sm_count * 8, cdiv(((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)), 1024))) block=(1024) args((out_channels),
    (oh) * (ow),
    cdiv((out_channels), 8),
    ((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)),
    t5,
    b,
    bias,
    y)
@*/
