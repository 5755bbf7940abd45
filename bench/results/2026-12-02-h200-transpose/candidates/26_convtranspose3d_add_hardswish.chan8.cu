/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=chan8
 * Task level2/26_convtranspose3d_add_hardswish, generated at shape set kb1; it serves every shape set.
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
 * k1 (map over a channels-last input (node 5), 8 channels per thread: 1024 threads, persistent grid): nodes 6 view, 7 add, 8 add, 12 add, 13 max, 14 min, 15 mul, 16 div, 17 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(1024)
k1_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_b,
	const float *__restrict__ p_add_input,
	float *__restrict__ p_y)
{
	const float v4 = 3.000000000e+00f;
	const float v6 = 0.000000000e+00f;
	const float v8 = 6.000000000e+00f;
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
			const float v2 = p_add_input[i];
			const float v3 = ((v1) + (v2));
			const float v5 = ((v3) + (v4));
			const float v7 = krl_maxf(v5, v6);
			const float v9 = krl_minf(v7, v8);
			const float v10 = ((v3) * (v9));
			const float v11 = ((v10) / (v8));
			const float v12 = ((v3) * (v11));
			p_y[i] = v12;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v13 = p_b[((tc0 + 1))];
			const float v14 = ((tv[1]) + (v13));
			const float v15 = p_add_input[i];
			const float v16 = ((v14) + (v15));
			const float v17 = ((v16) + (v4));
			const float v18 = krl_maxf(v17, v6);
			const float v19 = krl_minf(v18, v8);
			const float v20 = ((v16) * (v19));
			const float v21 = ((v20) / (v8));
			const float v22 = ((v16) * (v21));
			p_y[i] = v22;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v23 = p_b[((tc0 + 2))];
			const float v24 = ((tv[2]) + (v23));
			const float v25 = p_add_input[i];
			const float v26 = ((v24) + (v25));
			const float v27 = ((v26) + (v4));
			const float v28 = krl_maxf(v27, v6);
			const float v29 = krl_minf(v28, v8);
			const float v30 = ((v26) * (v29));
			const float v31 = ((v30) / (v8));
			const float v32 = ((v26) * (v31));
			p_y[i] = v32;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v33 = p_b[((tc0 + 3))];
			const float v34 = ((tv[3]) + (v33));
			const float v35 = p_add_input[i];
			const float v36 = ((v34) + (v35));
			const float v37 = ((v36) + (v4));
			const float v38 = krl_maxf(v37, v6);
			const float v39 = krl_minf(v38, v8);
			const float v40 = ((v36) * (v39));
			const float v41 = ((v40) / (v8));
			const float v42 = ((v36) * (v41));
			p_y[i] = v42;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v43 = p_b[((tc0 + 4))];
			const float v44 = ((tv[4]) + (v43));
			const float v45 = p_add_input[i];
			const float v46 = ((v44) + (v45));
			const float v47 = ((v46) + (v4));
			const float v48 = krl_maxf(v47, v6);
			const float v49 = krl_minf(v48, v8);
			const float v50 = ((v46) * (v49));
			const float v51 = ((v50) / (v8));
			const float v52 = ((v46) * (v51));
			p_y[i] = v52;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v53 = p_b[((tc0 + 5))];
			const float v54 = ((tv[5]) + (v53));
			const float v55 = p_add_input[i];
			const float v56 = ((v54) + (v55));
			const float v57 = ((v56) + (v4));
			const float v58 = krl_maxf(v57, v6);
			const float v59 = krl_minf(v58, v8);
			const float v60 = ((v56) * (v59));
			const float v61 = ((v60) / (v8));
			const float v62 = ((v56) * (v61));
			p_y[i] = v62;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v63 = p_b[((tc0 + 6))];
			const float v64 = ((tv[6]) + (v63));
			const float v65 = p_add_input[i];
			const float v66 = ((v64) + (v65));
			const float v67 = ((v66) + (v4));
			const float v68 = krl_maxf(v67, v6);
			const float v69 = krl_minf(v68, v8);
			const float v70 = ((v66) * (v69));
			const float v71 = ((v70) / (v8));
			const float v72 = ((v66) * (v71));
			p_y[i] = v72;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v73 = p_b[((tc0 + 7))];
			const float v74 = ((tv[7]) + (v73));
			const float v75 = p_add_input[i];
			const float v76 = ((v74) + (v75));
			const float v77 = ((v76) + (v4));
			const float v78 = krl_maxf(v77, v6);
			const float v79 = krl_minf(v78, v8);
			const float v80 = ((v76) * (v79));
			const float v81 = ((v80) / (v8));
			const float v82 = ((v76) * (v81));
			p_y[i] = v82;
		}
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
# k0: library call (node 5)
call conv_transpose(x, w) -> t5 stride=stride padding=padding output_padding=output_padding layout=nhwc_y
launch k1_map grid=(min(sm_count * 8, cdiv(((batch_size)) * cdiv((out_channels), 8) * ((od) * (oh) * (ow)), 1024))) block=(1024) args((out_channels),
    (od) * (oh) * (ow),
    cdiv((out_channels), 8),
    ((batch_size)) * cdiv((out_channels), 8) * ((od) * (oh) * (ow)),
    t5,
    b,
    add_input,
    y)
@*/
