/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y
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
	const float v5 = 0.000000000e+00f;
	const float v7 = 1.000000000e-02f;
	const float v11 = 1.000000000e+00f;
	const float v12 = (float)c6;
	const int tid = threadIdx.x;
	for (long e = (long)blockIdx.x * 1024 + tid; e < a3;
	     e += (long)gridDim.x * 1024) {
		const long ts = krl_mod(e, a1);
		const long tq = krl_div(e, a1);
		const long tc0 = krl_mod(tq, a2) * 8;
		const long tn = krl_div(tq, a2);
		const long tbase = (tn * a1 + ts) * a0 + tc0;
		if (tc0 + 0 < a0) {
			const long i = (tn * a0 + tc0 + 0) * a1 + ts;
			const float v1 = p_t5[(tbase + 0)];
			const float v2 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v3 = ((v1) + (v2));
			const float v4 = krl_maxf(v3, 0.f);
			const float v6 = ((float)((v4) > (v5)));
			const float v8 = ((v4) * (v7));
			const float v9 = ((v6) != 0.f ? (v4) : (v8));
			const float v10 = ((v0) * (v9));
			const float v13 = ((v9) / (v12));
			const float v14 = erff(v13);
			const float v15 = ((v11) + (v14));
			const float v16 = ((v10) * (v15));
			const float v17 = (1.f / (1.f + expf(-(v16))));
			const float v18 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v19 = ((v17) + (v18));
			p_y[i] = v19;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v20 = p_t5[(tbase + 1)];
			const float v21 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v22 = ((v20) + (v21));
			const float v23 = krl_maxf(v22, 0.f);
			const float v24 = ((float)((v23) > (v5)));
			const float v25 = ((v23) * (v7));
			const float v26 = ((v24) != 0.f ? (v23) : (v25));
			const float v27 = ((v0) * (v26));
			const float v28 = ((v26) / (v12));
			const float v29 = erff(v28);
			const float v30 = ((v11) + (v29));
			const float v31 = ((v27) * (v30));
			const float v32 = (1.f / (1.f + expf(-(v31))));
			const float v33 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v34 = ((v32) + (v33));
			p_y[i] = v34;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v35 = p_t5[(tbase + 2)];
			const float v36 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v37 = ((v35) + (v36));
			const float v38 = krl_maxf(v37, 0.f);
			const float v39 = ((float)((v38) > (v5)));
			const float v40 = ((v38) * (v7));
			const float v41 = ((v39) != 0.f ? (v38) : (v40));
			const float v42 = ((v0) * (v41));
			const float v43 = ((v41) / (v12));
			const float v44 = erff(v43);
			const float v45 = ((v11) + (v44));
			const float v46 = ((v42) * (v45));
			const float v47 = (1.f / (1.f + expf(-(v46))));
			const float v48 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v49 = ((v47) + (v48));
			p_y[i] = v49;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v50 = p_t5[(tbase + 3)];
			const float v51 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v52 = ((v50) + (v51));
			const float v53 = krl_maxf(v52, 0.f);
			const float v54 = ((float)((v53) > (v5)));
			const float v55 = ((v53) * (v7));
			const float v56 = ((v54) != 0.f ? (v53) : (v55));
			const float v57 = ((v0) * (v56));
			const float v58 = ((v56) / (v12));
			const float v59 = erff(v58);
			const float v60 = ((v11) + (v59));
			const float v61 = ((v57) * (v60));
			const float v62 = (1.f / (1.f + expf(-(v61))));
			const float v63 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v64 = ((v62) + (v63));
			p_y[i] = v64;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v65 = p_t5[(tbase + 4)];
			const float v66 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v67 = ((v65) + (v66));
			const float v68 = krl_maxf(v67, 0.f);
			const float v69 = ((float)((v68) > (v5)));
			const float v70 = ((v68) * (v7));
			const float v71 = ((v69) != 0.f ? (v68) : (v70));
			const float v72 = ((v0) * (v71));
			const float v73 = ((v71) / (v12));
			const float v74 = erff(v73);
			const float v75 = ((v11) + (v74));
			const float v76 = ((v72) * (v75));
			const float v77 = (1.f / (1.f + expf(-(v76))));
			const float v78 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v79 = ((v77) + (v78));
			p_y[i] = v79;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v80 = p_t5[(tbase + 5)];
			const float v81 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v82 = ((v80) + (v81));
			const float v83 = krl_maxf(v82, 0.f);
			const float v84 = ((float)((v83) > (v5)));
			const float v85 = ((v83) * (v7));
			const float v86 = ((v84) != 0.f ? (v83) : (v85));
			const float v87 = ((v0) * (v86));
			const float v88 = ((v86) / (v12));
			const float v89 = erff(v88);
			const float v90 = ((v11) + (v89));
			const float v91 = ((v87) * (v90));
			const float v92 = (1.f / (1.f + expf(-(v91))));
			const float v93 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v94 = ((v92) + (v93));
			p_y[i] = v94;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v95 = p_t5[(tbase + 6)];
			const float v96 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v97 = ((v95) + (v96));
			const float v98 = krl_maxf(v97, 0.f);
			const float v99 = ((float)((v98) > (v5)));
			const float v100 = ((v98) * (v7));
			const float v101 = ((v99) != 0.f ? (v98) : (v100));
			const float v102 = ((v0) * (v101));
			const float v103 = ((v101) / (v12));
			const float v104 = erff(v103);
			const float v105 = ((v11) + (v104));
			const float v106 = ((v102) * (v105));
			const float v107 = (1.f / (1.f + expf(-(v106))));
			const float v108 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v109 = ((v107) + (v108));
			p_y[i] = v109;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v110 = p_t5[(tbase + 7)];
			const float v111 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v112 = ((v110) + (v111));
			const float v113 = krl_maxf(v112, 0.f);
			const float v114 = ((float)((v113) > (v5)));
			const float v115 = ((v113) * (v7));
			const float v116 = ((v114) != 0.f ? (v113) : (v115));
			const float v117 = ((v0) * (v116));
			const float v118 = ((v116) / (v12));
			const float v119 = erff(v118);
			const float v120 = ((v11) + (v119));
			const float v121 = ((v117) * (v120));
			const float v122 = (1.f / (1.f + expf(-(v121))));
			const float v123 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v124 = ((v122) + (v123));
			p_y[i] = v124;
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
