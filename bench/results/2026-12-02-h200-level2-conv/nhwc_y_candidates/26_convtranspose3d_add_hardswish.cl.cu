/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y
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
	const float v5 = 3.000000000e+00f;
	const float v7 = 0.000000000e+00f;
	const float v9 = 6.000000000e+00f;
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
			const float v0 = p_t5[(tbase + 0)];
			const float v1 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v2 = ((v0) + (v1));
			const float v3 = p_add_input[i];
			const float v4 = ((v2) + (v3));
			const float v6 = ((v4) + (v5));
			const float v8 = krl_maxf(v6, v7);
			const float v10 = krl_minf(v8, v9);
			const float v11 = ((v4) * (v10));
			const float v12 = ((v11) / (v9));
			const float v13 = ((v4) * (v12));
			p_y[i] = v13;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v14 = p_t5[(tbase + 1)];
			const float v15 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v16 = ((v14) + (v15));
			const float v17 = p_add_input[i];
			const float v18 = ((v16) + (v17));
			const float v19 = ((v18) + (v5));
			const float v20 = krl_maxf(v19, v7);
			const float v21 = krl_minf(v20, v9);
			const float v22 = ((v18) * (v21));
			const float v23 = ((v22) / (v9));
			const float v24 = ((v18) * (v23));
			p_y[i] = v24;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v25 = p_t5[(tbase + 2)];
			const float v26 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v27 = ((v25) + (v26));
			const float v28 = p_add_input[i];
			const float v29 = ((v27) + (v28));
			const float v30 = ((v29) + (v5));
			const float v31 = krl_maxf(v30, v7);
			const float v32 = krl_minf(v31, v9);
			const float v33 = ((v29) * (v32));
			const float v34 = ((v33) / (v9));
			const float v35 = ((v29) * (v34));
			p_y[i] = v35;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v36 = p_t5[(tbase + 3)];
			const float v37 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v38 = ((v36) + (v37));
			const float v39 = p_add_input[i];
			const float v40 = ((v38) + (v39));
			const float v41 = ((v40) + (v5));
			const float v42 = krl_maxf(v41, v7);
			const float v43 = krl_minf(v42, v9);
			const float v44 = ((v40) * (v43));
			const float v45 = ((v44) / (v9));
			const float v46 = ((v40) * (v45));
			p_y[i] = v46;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v47 = p_t5[(tbase + 4)];
			const float v48 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v49 = ((v47) + (v48));
			const float v50 = p_add_input[i];
			const float v51 = ((v49) + (v50));
			const float v52 = ((v51) + (v5));
			const float v53 = krl_maxf(v52, v7);
			const float v54 = krl_minf(v53, v9);
			const float v55 = ((v51) * (v54));
			const float v56 = ((v55) / (v9));
			const float v57 = ((v51) * (v56));
			p_y[i] = v57;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v58 = p_t5[(tbase + 5)];
			const float v59 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v60 = ((v58) + (v59));
			const float v61 = p_add_input[i];
			const float v62 = ((v60) + (v61));
			const float v63 = ((v62) + (v5));
			const float v64 = krl_maxf(v63, v7);
			const float v65 = krl_minf(v64, v9);
			const float v66 = ((v62) * (v65));
			const float v67 = ((v66) / (v9));
			const float v68 = ((v62) * (v67));
			p_y[i] = v68;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v69 = p_t5[(tbase + 6)];
			const float v70 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v71 = ((v69) + (v70));
			const float v72 = p_add_input[i];
			const float v73 = ((v71) + (v72));
			const float v74 = ((v73) + (v5));
			const float v75 = krl_maxf(v74, v7);
			const float v76 = krl_minf(v75, v9);
			const float v77 = ((v73) * (v76));
			const float v78 = ((v77) / (v9));
			const float v79 = ((v73) * (v78));
			p_y[i] = v79;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v80 = p_t5[(tbase + 7)];
			const float v81 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v82 = ((v80) + (v81));
			const float v83 = p_add_input[i];
			const float v84 = ((v82) + (v83));
			const float v85 = ((v84) + (v5));
			const float v86 = krl_maxf(v85, v7);
			const float v87 = krl_minf(v86, v9);
			const float v88 = ((v84) * (v87));
			const float v89 = ((v88) / (v9));
			const float v90 = ((v84) * (v89));
			p_y[i] = v90;
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
