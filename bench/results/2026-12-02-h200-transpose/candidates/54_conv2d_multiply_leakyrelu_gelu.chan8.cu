/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=chan8
 * Task level2/54_conv2d_multiply_leakyrelu_gelu, generated at shape set kb1; it serves every shape set.
 * fused 11 ops into 2 kernels: 1 map (block 1024, vec 4, ept 1, persistent), 1 library (layout nhwc)
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
 * k1 (map over a channels-last input (node 5), 8 channels per thread: 1024 threads, persistent grid): nodes 6 view, 7 add, 8 mul, 10 mul, 12 gt, 13 where, 17 div, 18 erf, 19 add, 20 mul, 21 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(1024)
k1_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_b,
	const float *__restrict__ p_multiplier,
	double c7,
	float *__restrict__ p_y)
{
	const float v0 = 5.000000000e-01f;
	const float v5 = 0.000000000e+00f;
	const float v7 = 1.000000000e-02f;
	const float v11 = 1.000000000e+00f;
	const float v12 = (float)c7;
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
			const float v3 = p_multiplier[((tc0 + 0))];
			const float v4 = ((v2) * (v3));
			const float v6 = ((float)((v4) > (v5)));
			const float v8 = ((v4) * (v7));
			const float v9 = ((v6) != 0.f ? (v4) : (v8));
			const float v10 = ((v0) * (v9));
			const float v13 = ((v9) / (v12));
			const float v14 = erff(v13);
			const float v15 = ((v11) + (v14));
			const float v16 = ((v10) * (v15));
			p_y[i] = v16;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v17 = p_b[((tc0 + 1))];
			const float v18 = ((tv[1]) + (v17));
			const float v19 = p_multiplier[((tc0 + 1))];
			const float v20 = ((v18) * (v19));
			const float v21 = ((float)((v20) > (v5)));
			const float v22 = ((v20) * (v7));
			const float v23 = ((v21) != 0.f ? (v20) : (v22));
			const float v24 = ((v0) * (v23));
			const float v25 = ((v23) / (v12));
			const float v26 = erff(v25);
			const float v27 = ((v11) + (v26));
			const float v28 = ((v24) * (v27));
			p_y[i] = v28;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v29 = p_b[((tc0 + 2))];
			const float v30 = ((tv[2]) + (v29));
			const float v31 = p_multiplier[((tc0 + 2))];
			const float v32 = ((v30) * (v31));
			const float v33 = ((float)((v32) > (v5)));
			const float v34 = ((v32) * (v7));
			const float v35 = ((v33) != 0.f ? (v32) : (v34));
			const float v36 = ((v0) * (v35));
			const float v37 = ((v35) / (v12));
			const float v38 = erff(v37);
			const float v39 = ((v11) + (v38));
			const float v40 = ((v36) * (v39));
			p_y[i] = v40;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v41 = p_b[((tc0 + 3))];
			const float v42 = ((tv[3]) + (v41));
			const float v43 = p_multiplier[((tc0 + 3))];
			const float v44 = ((v42) * (v43));
			const float v45 = ((float)((v44) > (v5)));
			const float v46 = ((v44) * (v7));
			const float v47 = ((v45) != 0.f ? (v44) : (v46));
			const float v48 = ((v0) * (v47));
			const float v49 = ((v47) / (v12));
			const float v50 = erff(v49);
			const float v51 = ((v11) + (v50));
			const float v52 = ((v48) * (v51));
			p_y[i] = v52;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v53 = p_b[((tc0 + 4))];
			const float v54 = ((tv[4]) + (v53));
			const float v55 = p_multiplier[((tc0 + 4))];
			const float v56 = ((v54) * (v55));
			const float v57 = ((float)((v56) > (v5)));
			const float v58 = ((v56) * (v7));
			const float v59 = ((v57) != 0.f ? (v56) : (v58));
			const float v60 = ((v0) * (v59));
			const float v61 = ((v59) / (v12));
			const float v62 = erff(v61);
			const float v63 = ((v11) + (v62));
			const float v64 = ((v60) * (v63));
			p_y[i] = v64;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v65 = p_b[((tc0 + 5))];
			const float v66 = ((tv[5]) + (v65));
			const float v67 = p_multiplier[((tc0 + 5))];
			const float v68 = ((v66) * (v67));
			const float v69 = ((float)((v68) > (v5)));
			const float v70 = ((v68) * (v7));
			const float v71 = ((v69) != 0.f ? (v68) : (v70));
			const float v72 = ((v0) * (v71));
			const float v73 = ((v71) / (v12));
			const float v74 = erff(v73);
			const float v75 = ((v11) + (v74));
			const float v76 = ((v72) * (v75));
			p_y[i] = v76;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v77 = p_b[((tc0 + 6))];
			const float v78 = ((tv[6]) + (v77));
			const float v79 = p_multiplier[((tc0 + 6))];
			const float v80 = ((v78) * (v79));
			const float v81 = ((float)((v80) > (v5)));
			const float v82 = ((v80) * (v7));
			const float v83 = ((v81) != 0.f ? (v80) : (v82));
			const float v84 = ((v0) * (v83));
			const float v85 = ((v83) / (v12));
			const float v86 = erff(v85);
			const float v87 = ((v11) + (v86));
			const float v88 = ((v84) * (v87));
			p_y[i] = v88;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v89 = p_b[((tc0 + 7))];
			const float v90 = ((tv[7]) + (v89));
			const float v91 = p_multiplier[((tc0 + 7))];
			const float v92 = ((v90) * (v91));
			const float v93 = ((float)((v92) > (v5)));
			const float v94 = ((v92) * (v7));
			const float v95 = ((v93) != 0.f ? (v92) : (v94));
			const float v96 = ((v0) * (v95));
			const float v97 = ((v95) / (v12));
			const float v98 = erff(v97);
			const float v99 = ((v11) + (v98));
			const float v100 = ((v96) * (v99));
			p_y[i] = v100;
		}
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (oh), (ow)]
# k0: library call (node 5)
call conv(x, w) -> t5 layout=nhwc_y
launch k1_map grid=(min(sm_count * 8, cdiv(((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)), 1024))) block=(1024) args((out_channels),
    (oh) * (ow),
    cdiv((out_channels), 8),
    ((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)),
    t5,
    b,
    multiplier,
    (sqrt(2.0)),
    y)
@*/
