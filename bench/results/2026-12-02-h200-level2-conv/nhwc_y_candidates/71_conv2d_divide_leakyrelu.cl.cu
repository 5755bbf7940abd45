/*
 * krl-choice: rule.fold=on rule.conv_bias=on map.block=256 map.vec=4 map.ept=4 map.grid=cdiv fuse=full lib.algo=0 lib.layout=nhwc_y
 * Task level2/71_conv2d_divide_leakyrelu, generated at shape set kb1; it serves every shape set.
 * fused 6 ops into 2 kernels: 1 map (block 256, vec 4, ept 4, cdiv), 1 library (layout nhwc)
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
 * k1 (map over a channels-last input (node 4), 8 channels per thread: 256 threads, cdiv grid): nodes 5 view, 6 add, 8 mul, 10 mul, 12 gt, 13 where.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	float *__restrict__ p_y)
{
	const float v3 = 5.000000000e-01f;
	const float v5 = 0.000000000e+00f;
	const float v7 = 5.000000000e-03f;
	const int tid = threadIdx.x;
	for (long e = (long)blockIdx.x * 256 + tid; e < a3;
	     e += (long)gridDim.x * 256) {
		const long ts = krl_mod(e, a1);
		const long tq = krl_div(e, a1);
		const long tc0 = krl_mod(tq, a2) * 8;
		const long tn = krl_div(tq, a2);
		const long tbase = (tn * a1 + ts) * a0 + tc0;
		if (tc0 + 0 < a0) {
			const long i = (tn * a0 + tc0 + 0) * a1 + ts;
			const float v0 = p_t4[(tbase + 0)];
			const float v1 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v2 = ((v0) + (v1));
			const float v4 = ((v2) * (v3));
			const float v6 = ((float)((v4) > (v5)));
			const float v8 = ((v2) * (v7));
			const float v9 = ((v6) != 0.f ? (v4) : (v8));
			p_y[i] = v9;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v10 = p_t4[(tbase + 1)];
			const float v11 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v12 = ((v10) + (v11));
			const float v13 = ((v12) * (v3));
			const float v14 = ((float)((v13) > (v5)));
			const float v15 = ((v12) * (v7));
			const float v16 = ((v14) != 0.f ? (v13) : (v15));
			p_y[i] = v16;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v17 = p_t4[(tbase + 2)];
			const float v18 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v19 = ((v17) + (v18));
			const float v20 = ((v19) * (v3));
			const float v21 = ((float)((v20) > (v5)));
			const float v22 = ((v19) * (v7));
			const float v23 = ((v21) != 0.f ? (v20) : (v22));
			p_y[i] = v23;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v24 = p_t4[(tbase + 3)];
			const float v25 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v26 = ((v24) + (v25));
			const float v27 = ((v26) * (v3));
			const float v28 = ((float)((v27) > (v5)));
			const float v29 = ((v26) * (v7));
			const float v30 = ((v28) != 0.f ? (v27) : (v29));
			p_y[i] = v30;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v31 = p_t4[(tbase + 4)];
			const float v32 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v33 = ((v31) + (v32));
			const float v34 = ((v33) * (v3));
			const float v35 = ((float)((v34) > (v5)));
			const float v36 = ((v33) * (v7));
			const float v37 = ((v35) != 0.f ? (v34) : (v36));
			p_y[i] = v37;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v38 = p_t4[(tbase + 5)];
			const float v39 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v40 = ((v38) + (v39));
			const float v41 = ((v40) * (v3));
			const float v42 = ((float)((v41) > (v5)));
			const float v43 = ((v40) * (v7));
			const float v44 = ((v42) != 0.f ? (v41) : (v43));
			p_y[i] = v44;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v45 = p_t4[(tbase + 6)];
			const float v46 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v47 = ((v45) + (v46));
			const float v48 = ((v47) * (v3));
			const float v49 = ((float)((v48) > (v5)));
			const float v50 = ((v47) * (v7));
			const float v51 = ((v49) != 0.f ? (v48) : (v50));
			p_y[i] = v51;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v52 = p_t4[(tbase + 7)];
			const float v53 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v54 = ((v52) + (v53));
			const float v55 = ((v54) * (v3));
			const float v56 = ((float)((v55) > (v5)));
			const float v57 = ((v54) * (v7));
			const float v58 = ((v56) != 0.f ? (v55) : (v57));
			p_y[i] = v58;
		}
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (oh), (ow)]
# k0: library call (node 4)
call conv(x, w) -> t4 layout=nhwc_y
launch k1_map grid=(cdiv(((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)), 256)) block=(256) args((out_channels),
    (oh) * (ow),
    cdiv((out_channels), 8),
    ((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)),
    t4,
    b,
    y)
@*/
