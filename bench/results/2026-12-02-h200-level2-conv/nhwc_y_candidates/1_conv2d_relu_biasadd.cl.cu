/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y
 * Task level2/1_conv2d_relu_biasadd, generated at shape set kb1; it serves every shape set.
 * fused 4 ops into 2 kernels: 1 map (block 1024, vec 4, ept 1, persistent), 1 library (layout nhwc)
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
 * k1 (map over a channels-last input (node 5), 8 channels per thread: 1024 threads, persistent grid): nodes 6 view, 7 add, 8 relu, 9 add.
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
			const float v3 = krl_maxf(v2, 0.f);
			const float v4 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v5 = ((v3) + (v4));
			p_y[i] = v5;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v6 = p_t5[(tbase + 1)];
			const float v7 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v8 = ((v6) + (v7));
			const float v9 = krl_maxf(v8, 0.f);
			const float v10 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v11 = ((v9) + (v10));
			p_y[i] = v11;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v12 = p_t5[(tbase + 2)];
			const float v13 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v14 = ((v12) + (v13));
			const float v15 = krl_maxf(v14, 0.f);
			const float v16 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v17 = ((v15) + (v16));
			p_y[i] = v17;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v18 = p_t5[(tbase + 3)];
			const float v19 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v20 = ((v18) + (v19));
			const float v21 = krl_maxf(v20, 0.f);
			const float v22 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v23 = ((v21) + (v22));
			p_y[i] = v23;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v24 = p_t5[(tbase + 4)];
			const float v25 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v26 = ((v24) + (v25));
			const float v27 = krl_maxf(v26, 0.f);
			const float v28 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v29 = ((v27) + (v28));
			p_y[i] = v29;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v30 = p_t5[(tbase + 5)];
			const float v31 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v32 = ((v30) + (v31));
			const float v33 = krl_maxf(v32, 0.f);
			const float v34 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v35 = ((v33) + (v34));
			p_y[i] = v35;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v36 = p_t5[(tbase + 6)];
			const float v37 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v38 = ((v36) + (v37));
			const float v39 = krl_maxf(v38, 0.f);
			const float v40 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v41 = ((v39) + (v40));
			p_y[i] = v41;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v42 = p_t5[(tbase + 7)];
			const float v43 = p_b[(krl_mod(krl_div(i, a1), a0))];
			const float v44 = ((v42) + (v43));
			const float v45 = krl_maxf(v44, 0.f);
			const float v46 = p_bias[(krl_mod(krl_div(i, a1), a0))];
			const float v47 = ((v45) + (v46));
			p_y[i] = v47;
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
    bias,
    y)
@*/
