/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=chan8
 * Task level2/90_conv3d_leakyrelu_sum_clamp_gelu, generated at shape set kb1; it serves every shape set.
 * fused 13 ops into 2 kernels: 1 map (block 1024, vec 4, ept 1, persistent), 1 library (layout nhwc)
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
 * k1 (map over a channels-last input (node 5), 8 channels per thread: 1024 threads, persistent grid): nodes 6 view, 7 add, 9 mul, 11 gt, 12 where, 13 add, 16 max, 17 min, 21 div, 22 erf, 23 add, 24 mul, 25 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(1024)
k1_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_b,
	const float *__restrict__ p_sum_tensor,
	double c7,
	float *__restrict__ p_y)
{
	const float v0 = 5.000000000e-01f;
	const float v3 = 0.000000000e+00f;
	const float v5 = 2.000000000e-01f;
	const float v10 = -1.000000000e+00f;
	const float v12 = 1.000000000e+00f;
	const float v15 = 1.000000000e+00f;
	const float v16 = (float)c7;
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
			const float v1 = p_b[((tc0 + 0))];
			const float v2 = ((tv[0]) + (v1));
			const float v4 = ((float)((v2) > (v3)));
			const float v6 = ((v2) * (v5));
			const float v7 = ((v4) != 0.f ? (v2) : (v6));
			const float v8 = p_sum_tensor[((tc0 + 0))];
			const float v9 = ((v7) + (v8));
			const float v11 = krl_maxf(v9, v10);
			const float v13 = krl_minf(v11, v12);
			const float v14 = ((v0) * (v13));
			const float v17 = ((v13) / (v16));
			const float v18 = erff(v17);
			const float v19 = ((v15) + (v18));
			const float v20 = ((v14) * (v19));
			p_y[i] = v20;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v21 = p_b[((tc0 + 1))];
			const float v22 = ((tv[1]) + (v21));
			const float v23 = ((float)((v22) > (v3)));
			const float v24 = ((v22) * (v5));
			const float v25 = ((v23) != 0.f ? (v22) : (v24));
			const float v26 = p_sum_tensor[((tc0 + 1))];
			const float v27 = ((v25) + (v26));
			const float v28 = krl_maxf(v27, v10);
			const float v29 = krl_minf(v28, v12);
			const float v30 = ((v0) * (v29));
			const float v31 = ((v29) / (v16));
			const float v32 = erff(v31);
			const float v33 = ((v15) + (v32));
			const float v34 = ((v30) * (v33));
			p_y[i] = v34;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v35 = p_b[((tc0 + 2))];
			const float v36 = ((tv[2]) + (v35));
			const float v37 = ((float)((v36) > (v3)));
			const float v38 = ((v36) * (v5));
			const float v39 = ((v37) != 0.f ? (v36) : (v38));
			const float v40 = p_sum_tensor[((tc0 + 2))];
			const float v41 = ((v39) + (v40));
			const float v42 = krl_maxf(v41, v10);
			const float v43 = krl_minf(v42, v12);
			const float v44 = ((v0) * (v43));
			const float v45 = ((v43) / (v16));
			const float v46 = erff(v45);
			const float v47 = ((v15) + (v46));
			const float v48 = ((v44) * (v47));
			p_y[i] = v48;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v49 = p_b[((tc0 + 3))];
			const float v50 = ((tv[3]) + (v49));
			const float v51 = ((float)((v50) > (v3)));
			const float v52 = ((v50) * (v5));
			const float v53 = ((v51) != 0.f ? (v50) : (v52));
			const float v54 = p_sum_tensor[((tc0 + 3))];
			const float v55 = ((v53) + (v54));
			const float v56 = krl_maxf(v55, v10);
			const float v57 = krl_minf(v56, v12);
			const float v58 = ((v0) * (v57));
			const float v59 = ((v57) / (v16));
			const float v60 = erff(v59);
			const float v61 = ((v15) + (v60));
			const float v62 = ((v58) * (v61));
			p_y[i] = v62;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v63 = p_b[((tc0 + 4))];
			const float v64 = ((tv[4]) + (v63));
			const float v65 = ((float)((v64) > (v3)));
			const float v66 = ((v64) * (v5));
			const float v67 = ((v65) != 0.f ? (v64) : (v66));
			const float v68 = p_sum_tensor[((tc0 + 4))];
			const float v69 = ((v67) + (v68));
			const float v70 = krl_maxf(v69, v10);
			const float v71 = krl_minf(v70, v12);
			const float v72 = ((v0) * (v71));
			const float v73 = ((v71) / (v16));
			const float v74 = erff(v73);
			const float v75 = ((v15) + (v74));
			const float v76 = ((v72) * (v75));
			p_y[i] = v76;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v77 = p_b[((tc0 + 5))];
			const float v78 = ((tv[5]) + (v77));
			const float v79 = ((float)((v78) > (v3)));
			const float v80 = ((v78) * (v5));
			const float v81 = ((v79) != 0.f ? (v78) : (v80));
			const float v82 = p_sum_tensor[((tc0 + 5))];
			const float v83 = ((v81) + (v82));
			const float v84 = krl_maxf(v83, v10);
			const float v85 = krl_minf(v84, v12);
			const float v86 = ((v0) * (v85));
			const float v87 = ((v85) / (v16));
			const float v88 = erff(v87);
			const float v89 = ((v15) + (v88));
			const float v90 = ((v86) * (v89));
			p_y[i] = v90;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v91 = p_b[((tc0 + 6))];
			const float v92 = ((tv[6]) + (v91));
			const float v93 = ((float)((v92) > (v3)));
			const float v94 = ((v92) * (v5));
			const float v95 = ((v93) != 0.f ? (v92) : (v94));
			const float v96 = p_sum_tensor[((tc0 + 6))];
			const float v97 = ((v95) + (v96));
			const float v98 = krl_maxf(v97, v10);
			const float v99 = krl_minf(v98, v12);
			const float v100 = ((v0) * (v99));
			const float v101 = ((v99) / (v16));
			const float v102 = erff(v101);
			const float v103 = ((v15) + (v102));
			const float v104 = ((v100) * (v103));
			p_y[i] = v104;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v105 = p_b[((tc0 + 7))];
			const float v106 = ((tv[7]) + (v105));
			const float v107 = ((float)((v106) > (v3)));
			const float v108 = ((v106) * (v5));
			const float v109 = ((v107) != 0.f ? (v106) : (v108));
			const float v110 = p_sum_tensor[((tc0 + 7))];
			const float v111 = ((v109) + (v110));
			const float v112 = krl_maxf(v111, v10);
			const float v113 = krl_minf(v112, v12);
			const float v114 = ((v0) * (v113));
			const float v115 = ((v113) / (v16));
			const float v116 = erff(v115);
			const float v117 = ((v15) + (v116));
			const float v118 = ((v114) * (v117));
			p_y[i] = v118;
		}
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
# k0: library call (node 5)
call conv(x, w) -> t5 layout=nhwc_y
launch k1_map grid=(min(sm_count * 8, cdiv(((batch_size)) * cdiv((out_channels), 8) * ((od) * (oh) * (ow)), 1024))) block=(1024) args((out_channels),
    (od) * (oh) * (ow),
    cdiv((out_channels), 8),
    ((batch_size)) * cdiv((out_channels), 8) * ((od) * (oh) * (ow)),
    t5,
    b,
    sum_tensor,
    (sqrt(2.0)),
    y)
@*/
