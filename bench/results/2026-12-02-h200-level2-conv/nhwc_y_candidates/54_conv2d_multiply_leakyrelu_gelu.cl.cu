/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y
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
	const float v6 = 0.000000000e+00f;
	const float v8 = 1.000000000e-02f;
	const float v12 = 1.000000000e+00f;
	const float v13 = (float)c7;
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
			const float v4 = p_multiplier[(krl_mod(krl_div(i, a1), a0))];
			const float v5 = ((v3) * (v4));
			const float v7 = ((float)((v5) > (v6)));
			const float v9 = ((v5) * (v8));
			const float v10 = ((v7) != 0.f ? (v5) : (v9));
			const float v11 = ((v0) * (v10));
			const float v14 = ((v10) / (v13));
			const float v15 = erff(v14);
			const float v16 = ((v12) + (v15));
			const float v17 = ((v11) * (v16));
			p_y[i] = v17;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v18 = p_t5[(tbase + 1)];
			const float v19 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v20 = ((v18) + (v19));
			const float v21 = p_multiplier[(krl_mod(krl_div(i, a1), a0))];
			const float v22 = ((v20) * (v21));
			const float v23 = ((float)((v22) > (v6)));
			const float v24 = ((v22) * (v8));
			const float v25 = ((v23) != 0.f ? (v22) : (v24));
			const float v26 = ((v0) * (v25));
			const float v27 = ((v25) / (v13));
			const float v28 = erff(v27);
			const float v29 = ((v12) + (v28));
			const float v30 = ((v26) * (v29));
			p_y[i] = v30;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v31 = p_t5[(tbase + 2)];
			const float v32 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v33 = ((v31) + (v32));
			const float v34 = p_multiplier[(krl_mod(krl_div(i, a1), a0))];
			const float v35 = ((v33) * (v34));
			const float v36 = ((float)((v35) > (v6)));
			const float v37 = ((v35) * (v8));
			const float v38 = ((v36) != 0.f ? (v35) : (v37));
			const float v39 = ((v0) * (v38));
			const float v40 = ((v38) / (v13));
			const float v41 = erff(v40);
			const float v42 = ((v12) + (v41));
			const float v43 = ((v39) * (v42));
			p_y[i] = v43;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v44 = p_t5[(tbase + 3)];
			const float v45 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v46 = ((v44) + (v45));
			const float v47 = p_multiplier[(krl_mod(krl_div(i, a1), a0))];
			const float v48 = ((v46) * (v47));
			const float v49 = ((float)((v48) > (v6)));
			const float v50 = ((v48) * (v8));
			const float v51 = ((v49) != 0.f ? (v48) : (v50));
			const float v52 = ((v0) * (v51));
			const float v53 = ((v51) / (v13));
			const float v54 = erff(v53);
			const float v55 = ((v12) + (v54));
			const float v56 = ((v52) * (v55));
			p_y[i] = v56;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v57 = p_t5[(tbase + 4)];
			const float v58 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v59 = ((v57) + (v58));
			const float v60 = p_multiplier[(krl_mod(krl_div(i, a1), a0))];
			const float v61 = ((v59) * (v60));
			const float v62 = ((float)((v61) > (v6)));
			const float v63 = ((v61) * (v8));
			const float v64 = ((v62) != 0.f ? (v61) : (v63));
			const float v65 = ((v0) * (v64));
			const float v66 = ((v64) / (v13));
			const float v67 = erff(v66);
			const float v68 = ((v12) + (v67));
			const float v69 = ((v65) * (v68));
			p_y[i] = v69;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v70 = p_t5[(tbase + 5)];
			const float v71 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v72 = ((v70) + (v71));
			const float v73 = p_multiplier[(krl_mod(krl_div(i, a1), a0))];
			const float v74 = ((v72) * (v73));
			const float v75 = ((float)((v74) > (v6)));
			const float v76 = ((v74) * (v8));
			const float v77 = ((v75) != 0.f ? (v74) : (v76));
			const float v78 = ((v0) * (v77));
			const float v79 = ((v77) / (v13));
			const float v80 = erff(v79);
			const float v81 = ((v12) + (v80));
			const float v82 = ((v78) * (v81));
			p_y[i] = v82;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v83 = p_t5[(tbase + 6)];
			const float v84 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v85 = ((v83) + (v84));
			const float v86 = p_multiplier[(krl_mod(krl_div(i, a1), a0))];
			const float v87 = ((v85) * (v86));
			const float v88 = ((float)((v87) > (v6)));
			const float v89 = ((v87) * (v8));
			const float v90 = ((v88) != 0.f ? (v87) : (v89));
			const float v91 = ((v0) * (v90));
			const float v92 = ((v90) / (v13));
			const float v93 = erff(v92);
			const float v94 = ((v12) + (v93));
			const float v95 = ((v91) * (v94));
			p_y[i] = v95;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v96 = p_t5[(tbase + 7)];
			const float v97 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v98 = ((v96) + (v97));
			const float v99 = p_multiplier[(krl_mod(krl_div(i, a1), a0))];
			const float v100 = ((v98) * (v99));
			const float v101 = ((float)((v100) > (v6)));
			const float v102 = ((v100) * (v8));
			const float v103 = ((v101) != 0.f ? (v100) : (v102));
			const float v104 = ((v0) * (v103));
			const float v105 = ((v103) / (v13));
			const float v106 = erff(v105);
			const float v107 = ((v12) + (v106));
			const float v108 = ((v104) * (v107));
			p_y[i] = v108;
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
