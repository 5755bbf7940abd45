/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=chan8
 * Task level2/7_conv3d_relu_leakyrelu_gelu_sigmoid_biasadd, generated at shape set kb1; it serves every shape set.
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
 * k1 (map over a channels-last input (node 5), 8 channels per thread: 1024 threads, persistent grid): nodes 6 view, 7 add, 8 relu, 10 mul, 12 gt, 13 where, 17 div, 18 erf, 19 add, 20 mul, 21 mul, 22 sigmoid, 23 add.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(1024)
k1_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_b,
	double c6,
	const float *__restrict__ p_bias,
	float *__restrict__ p_y)
{
	const float v0 = 5.000000000e-01f;
	const float v4 = 0.000000000e+00f;
	const float v6 = 1.000000000e-02f;
	const float v10 = 1.000000000e+00f;
	const float v11 = (float)c6;
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
			const float v3 = krl_maxf(v2, 0.f);
			const float v5 = ((float)((v3) > (v4)));
			const float v7 = ((v3) * (v6));
			const float v8 = ((v5) != 0.f ? (v3) : (v7));
			const float v9 = ((v0) * (v8));
			const float v12 = ((v8) / (v11));
			const float v13 = erff(v12);
			const float v14 = ((v10) + (v13));
			const float v15 = ((v9) * (v14));
			const float v16 = (1.f / (1.f + expf(-(v15))));
			const float v17 = p_bias[((tc0 + 0))];
			const float v18 = ((v16) + (v17));
			p_y[i] = v18;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v19 = p_b[((tc0 + 1))];
			const float v20 = ((tv[1]) + (v19));
			const float v21 = krl_maxf(v20, 0.f);
			const float v22 = ((float)((v21) > (v4)));
			const float v23 = ((v21) * (v6));
			const float v24 = ((v22) != 0.f ? (v21) : (v23));
			const float v25 = ((v0) * (v24));
			const float v26 = ((v24) / (v11));
			const float v27 = erff(v26);
			const float v28 = ((v10) + (v27));
			const float v29 = ((v25) * (v28));
			const float v30 = (1.f / (1.f + expf(-(v29))));
			const float v31 = p_bias[((tc0 + 1))];
			const float v32 = ((v30) + (v31));
			p_y[i] = v32;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v33 = p_b[((tc0 + 2))];
			const float v34 = ((tv[2]) + (v33));
			const float v35 = krl_maxf(v34, 0.f);
			const float v36 = ((float)((v35) > (v4)));
			const float v37 = ((v35) * (v6));
			const float v38 = ((v36) != 0.f ? (v35) : (v37));
			const float v39 = ((v0) * (v38));
			const float v40 = ((v38) / (v11));
			const float v41 = erff(v40);
			const float v42 = ((v10) + (v41));
			const float v43 = ((v39) * (v42));
			const float v44 = (1.f / (1.f + expf(-(v43))));
			const float v45 = p_bias[((tc0 + 2))];
			const float v46 = ((v44) + (v45));
			p_y[i] = v46;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v47 = p_b[((tc0 + 3))];
			const float v48 = ((tv[3]) + (v47));
			const float v49 = krl_maxf(v48, 0.f);
			const float v50 = ((float)((v49) > (v4)));
			const float v51 = ((v49) * (v6));
			const float v52 = ((v50) != 0.f ? (v49) : (v51));
			const float v53 = ((v0) * (v52));
			const float v54 = ((v52) / (v11));
			const float v55 = erff(v54);
			const float v56 = ((v10) + (v55));
			const float v57 = ((v53) * (v56));
			const float v58 = (1.f / (1.f + expf(-(v57))));
			const float v59 = p_bias[((tc0 + 3))];
			const float v60 = ((v58) + (v59));
			p_y[i] = v60;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v61 = p_b[((tc0 + 4))];
			const float v62 = ((tv[4]) + (v61));
			const float v63 = krl_maxf(v62, 0.f);
			const float v64 = ((float)((v63) > (v4)));
			const float v65 = ((v63) * (v6));
			const float v66 = ((v64) != 0.f ? (v63) : (v65));
			const float v67 = ((v0) * (v66));
			const float v68 = ((v66) / (v11));
			const float v69 = erff(v68);
			const float v70 = ((v10) + (v69));
			const float v71 = ((v67) * (v70));
			const float v72 = (1.f / (1.f + expf(-(v71))));
			const float v73 = p_bias[((tc0 + 4))];
			const float v74 = ((v72) + (v73));
			p_y[i] = v74;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v75 = p_b[((tc0 + 5))];
			const float v76 = ((tv[5]) + (v75));
			const float v77 = krl_maxf(v76, 0.f);
			const float v78 = ((float)((v77) > (v4)));
			const float v79 = ((v77) * (v6));
			const float v80 = ((v78) != 0.f ? (v77) : (v79));
			const float v81 = ((v0) * (v80));
			const float v82 = ((v80) / (v11));
			const float v83 = erff(v82);
			const float v84 = ((v10) + (v83));
			const float v85 = ((v81) * (v84));
			const float v86 = (1.f / (1.f + expf(-(v85))));
			const float v87 = p_bias[((tc0 + 5))];
			const float v88 = ((v86) + (v87));
			p_y[i] = v88;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v89 = p_b[((tc0 + 6))];
			const float v90 = ((tv[6]) + (v89));
			const float v91 = krl_maxf(v90, 0.f);
			const float v92 = ((float)((v91) > (v4)));
			const float v93 = ((v91) * (v6));
			const float v94 = ((v92) != 0.f ? (v91) : (v93));
			const float v95 = ((v0) * (v94));
			const float v96 = ((v94) / (v11));
			const float v97 = erff(v96);
			const float v98 = ((v10) + (v97));
			const float v99 = ((v95) * (v98));
			const float v100 = (1.f / (1.f + expf(-(v99))));
			const float v101 = p_bias[((tc0 + 6))];
			const float v102 = ((v100) + (v101));
			p_y[i] = v102;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v103 = p_b[((tc0 + 7))];
			const float v104 = ((tv[7]) + (v103));
			const float v105 = krl_maxf(v104, 0.f);
			const float v106 = ((float)((v105) > (v4)));
			const float v107 = ((v105) * (v6));
			const float v108 = ((v106) != 0.f ? (v105) : (v107));
			const float v109 = ((v0) * (v108));
			const float v110 = ((v108) / (v11));
			const float v111 = erff(v110);
			const float v112 = ((v10) + (v111));
			const float v113 = ((v109) * (v112));
			const float v114 = (1.f / (1.f + expf(-(v113))));
			const float v115 = p_bias[((tc0 + 7))];
			const float v116 = ((v114) + (v115));
			p_y[i] = v116;
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
    (sqrt(2.0)),
    bias,
    y)
@*/
