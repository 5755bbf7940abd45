/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y
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
	const float v4 = 0.000000000e+00f;
	const float v6 = 2.000000000e-01f;
	const float v11 = -1.000000000e+00f;
	const float v13 = 1.000000000e+00f;
	const float v16 = 1.000000000e+00f;
	const float v17 = (float)c7;
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
			const float v5 = ((float)((v3) > (v4)));
			const float v7 = ((v3) * (v6));
			const float v8 = ((v5) != 0.f ? (v3) : (v7));
			const float v9 = p_sum_tensor[(krl_mod(krl_div(i, a1), a0))];
			const float v10 = ((v8) + (v9));
			const float v12 = krl_maxf(v10, v11);
			const float v14 = krl_minf(v12, v13);
			const float v15 = ((v0) * (v14));
			const float v18 = ((v14) / (v17));
			const float v19 = erff(v18);
			const float v20 = ((v16) + (v19));
			const float v21 = ((v15) * (v20));
			p_y[i] = v21;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v22 = p_t5[(tbase + 1)];
			const float v23 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v24 = ((v22) + (v23));
			const float v25 = ((float)((v24) > (v4)));
			const float v26 = ((v24) * (v6));
			const float v27 = ((v25) != 0.f ? (v24) : (v26));
			const float v28 = p_sum_tensor[(krl_mod(krl_div(i, a1), a0))];
			const float v29 = ((v27) + (v28));
			const float v30 = krl_maxf(v29, v11);
			const float v31 = krl_minf(v30, v13);
			const float v32 = ((v0) * (v31));
			const float v33 = ((v31) / (v17));
			const float v34 = erff(v33);
			const float v35 = ((v16) + (v34));
			const float v36 = ((v32) * (v35));
			p_y[i] = v36;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v37 = p_t5[(tbase + 2)];
			const float v38 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v39 = ((v37) + (v38));
			const float v40 = ((float)((v39) > (v4)));
			const float v41 = ((v39) * (v6));
			const float v42 = ((v40) != 0.f ? (v39) : (v41));
			const float v43 = p_sum_tensor[(krl_mod(krl_div(i, a1), a0))];
			const float v44 = ((v42) + (v43));
			const float v45 = krl_maxf(v44, v11);
			const float v46 = krl_minf(v45, v13);
			const float v47 = ((v0) * (v46));
			const float v48 = ((v46) / (v17));
			const float v49 = erff(v48);
			const float v50 = ((v16) + (v49));
			const float v51 = ((v47) * (v50));
			p_y[i] = v51;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v52 = p_t5[(tbase + 3)];
			const float v53 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v54 = ((v52) + (v53));
			const float v55 = ((float)((v54) > (v4)));
			const float v56 = ((v54) * (v6));
			const float v57 = ((v55) != 0.f ? (v54) : (v56));
			const float v58 = p_sum_tensor[(krl_mod(krl_div(i, a1), a0))];
			const float v59 = ((v57) + (v58));
			const float v60 = krl_maxf(v59, v11);
			const float v61 = krl_minf(v60, v13);
			const float v62 = ((v0) * (v61));
			const float v63 = ((v61) / (v17));
			const float v64 = erff(v63);
			const float v65 = ((v16) + (v64));
			const float v66 = ((v62) * (v65));
			p_y[i] = v66;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v67 = p_t5[(tbase + 4)];
			const float v68 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v69 = ((v67) + (v68));
			const float v70 = ((float)((v69) > (v4)));
			const float v71 = ((v69) * (v6));
			const float v72 = ((v70) != 0.f ? (v69) : (v71));
			const float v73 = p_sum_tensor[(krl_mod(krl_div(i, a1), a0))];
			const float v74 = ((v72) + (v73));
			const float v75 = krl_maxf(v74, v11);
			const float v76 = krl_minf(v75, v13);
			const float v77 = ((v0) * (v76));
			const float v78 = ((v76) / (v17));
			const float v79 = erff(v78);
			const float v80 = ((v16) + (v79));
			const float v81 = ((v77) * (v80));
			p_y[i] = v81;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v82 = p_t5[(tbase + 5)];
			const float v83 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v84 = ((v82) + (v83));
			const float v85 = ((float)((v84) > (v4)));
			const float v86 = ((v84) * (v6));
			const float v87 = ((v85) != 0.f ? (v84) : (v86));
			const float v88 = p_sum_tensor[(krl_mod(krl_div(i, a1), a0))];
			const float v89 = ((v87) + (v88));
			const float v90 = krl_maxf(v89, v11);
			const float v91 = krl_minf(v90, v13);
			const float v92 = ((v0) * (v91));
			const float v93 = ((v91) / (v17));
			const float v94 = erff(v93);
			const float v95 = ((v16) + (v94));
			const float v96 = ((v92) * (v95));
			p_y[i] = v96;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v97 = p_t5[(tbase + 6)];
			const float v98 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v99 = ((v97) + (v98));
			const float v100 = ((float)((v99) > (v4)));
			const float v101 = ((v99) * (v6));
			const float v102 = ((v100) != 0.f ? (v99) : (v101));
			const float v103 = p_sum_tensor[(krl_mod(krl_div(i, a1), a0))];
			const float v104 = ((v102) + (v103));
			const float v105 = krl_maxf(v104, v11);
			const float v106 = krl_minf(v105, v13);
			const float v107 = ((v0) * (v106));
			const float v108 = ((v106) / (v17));
			const float v109 = erff(v108);
			const float v110 = ((v16) + (v109));
			const float v111 = ((v107) * (v110));
			p_y[i] = v111;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v112 = p_t5[(tbase + 7)];
			const float v113 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v114 = ((v112) + (v113));
			const float v115 = ((float)((v114) > (v4)));
			const float v116 = ((v114) * (v6));
			const float v117 = ((v115) != 0.f ? (v114) : (v116));
			const float v118 = p_sum_tensor[(krl_mod(krl_div(i, a1), a0))];
			const float v119 = ((v117) + (v118));
			const float v120 = krl_maxf(v119, v11);
			const float v121 = krl_minf(v120, v13);
			const float v122 = ((v0) * (v121));
			const float v123 = ((v121) / (v17));
			const float v124 = erff(v123);
			const float v125 = ((v16) + (v124));
			const float v126 = ((v122) * (v125));
			p_y[i] = v126;
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
