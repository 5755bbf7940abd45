/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y
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
	const float v5 = 0.000000000e+00f;
	const float v7 = 1.000000000e+00f;
	const float v9 = 2.000000000e+00f;
	const float v11 = 0.000000000e+00f;
	const float v13 = 1.000000000e+00f;
	const float v15 = 5.000000000e-01f;
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
			const float v3 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v4 = ((v2) + (v3));
			const float v6 = krl_maxf(v4, v5);
			const float v8 = krl_minf(v6, v7);
			const float v10 = ((v8) * (v9));
			const float v12 = krl_maxf(v10, v11);
			const float v14 = krl_minf(v12, v13);
			const float v16 = ((v14) * (v15));
			p_y[i] = v16;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v17 = p_t5[(tbase + 1)];
			const float v18 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v19 = ((v17) + (v18));
			const float v20 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v21 = ((v19) + (v20));
			const float v22 = krl_maxf(v21, v5);
			const float v23 = krl_minf(v22, v7);
			const float v24 = ((v23) * (v9));
			const float v25 = krl_maxf(v24, v11);
			const float v26 = krl_minf(v25, v13);
			const float v27 = ((v26) * (v15));
			p_y[i] = v27;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v28 = p_t5[(tbase + 2)];
			const float v29 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v30 = ((v28) + (v29));
			const float v31 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v32 = ((v30) + (v31));
			const float v33 = krl_maxf(v32, v5);
			const float v34 = krl_minf(v33, v7);
			const float v35 = ((v34) * (v9));
			const float v36 = krl_maxf(v35, v11);
			const float v37 = krl_minf(v36, v13);
			const float v38 = ((v37) * (v15));
			p_y[i] = v38;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v39 = p_t5[(tbase + 3)];
			const float v40 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v41 = ((v39) + (v40));
			const float v42 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v43 = ((v41) + (v42));
			const float v44 = krl_maxf(v43, v5);
			const float v45 = krl_minf(v44, v7);
			const float v46 = ((v45) * (v9));
			const float v47 = krl_maxf(v46, v11);
			const float v48 = krl_minf(v47, v13);
			const float v49 = ((v48) * (v15));
			p_y[i] = v49;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v50 = p_t5[(tbase + 4)];
			const float v51 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v52 = ((v50) + (v51));
			const float v53 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v54 = ((v52) + (v53));
			const float v55 = krl_maxf(v54, v5);
			const float v56 = krl_minf(v55, v7);
			const float v57 = ((v56) * (v9));
			const float v58 = krl_maxf(v57, v11);
			const float v59 = krl_minf(v58, v13);
			const float v60 = ((v59) * (v15));
			p_y[i] = v60;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v61 = p_t5[(tbase + 5)];
			const float v62 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v63 = ((v61) + (v62));
			const float v64 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v65 = ((v63) + (v64));
			const float v66 = krl_maxf(v65, v5);
			const float v67 = krl_minf(v66, v7);
			const float v68 = ((v67) * (v9));
			const float v69 = krl_maxf(v68, v11);
			const float v70 = krl_minf(v69, v13);
			const float v71 = ((v70) * (v15));
			p_y[i] = v71;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v72 = p_t5[(tbase + 6)];
			const float v73 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v74 = ((v72) + (v73));
			const float v75 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v76 = ((v74) + (v75));
			const float v77 = krl_maxf(v76, v5);
			const float v78 = krl_minf(v77, v7);
			const float v79 = ((v78) * (v9));
			const float v80 = krl_maxf(v79, v11);
			const float v81 = krl_minf(v80, v13);
			const float v82 = ((v81) * (v15));
			p_y[i] = v82;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v83 = p_t5[(tbase + 7)];
			const float v84 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v85 = ((v83) + (v84));
			const float v86 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v87 = ((v85) + (v86));
			const float v88 = krl_maxf(v87, v5);
			const float v89 = krl_minf(v88, v7);
			const float v90 = ((v89) * (v9));
			const float v91 = krl_maxf(v90, v11);
			const float v92 = krl_minf(v91, v13);
			const float v93 = ((v92) * (v15));
			p_y[i] = v93;
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
