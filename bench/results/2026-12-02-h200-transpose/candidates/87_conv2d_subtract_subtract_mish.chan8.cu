/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=chan8
 * Task level2/87_conv2d_subtract_subtract_mish, generated at shape set kb1; it serves every shape set.
 * fused 10 ops into 2 kernels: 1 map (block 1024, vec 4, ept 1, persistent), 1 library (layout nhwc)
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
 * k1 (map over a channels-last input (node 4), 8 channels per thread: 1024 threads, persistent grid): nodes 5 view, 6 add, 8 add, 10 add, 12 gt, 13 exp, 14 log1p, 15 where, 16 tanh, 17 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(1024)
k1_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	float *__restrict__ p_y)
{
	const float v2 = -5.000000000e-01f;
	const float v4 = -2.000000000e-01f;
	const float v6 = 2.000000000e+01f;
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
			const float4 q0 = *reinterpret_cast<const float4 *>(p_t4 + tbase);
			const float4 q1 = *reinterpret_cast<const float4 *>(p_t4 + tbase + 4);
			tv[0] = q0.x; tv[1] = q0.y; tv[2] = q0.z; tv[3] = q0.w;
			tv[4] = q1.x; tv[5] = q1.y; tv[6] = q1.z; tv[7] = q1.w;
		} else {
			#pragma unroll
			for (int j = 0; j < 8; j++)
				tv[j] = tc0 + j < a0 ? p_t4[tbase + j] : 0.f;
		}
		if (tc0 + 0 < a0) {
			const long i = (tn * a0 + tc0 + 0) * a1 + ts;
			const float v0 = p_b[((tc0 + 0))];
			const float v1 = ((tv[0]) + (v0));
			const float v3 = ((v1) + (v2));
			const float v5 = ((v3) + (v4));
			const float v7 = ((float)((v5) > (v6)));
			const float v8 = expf(v5);
			const float v9 = log1pf(v8);
			const float v10 = ((v7) != 0.f ? (v5) : (v9));
			const float v11 = tanhf(v10);
			const float v12 = ((v5) * (v11));
			p_y[i] = v12;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v13 = p_b[((tc0 + 1))];
			const float v14 = ((tv[1]) + (v13));
			const float v15 = ((v14) + (v2));
			const float v16 = ((v15) + (v4));
			const float v17 = ((float)((v16) > (v6)));
			const float v18 = expf(v16);
			const float v19 = log1pf(v18);
			const float v20 = ((v17) != 0.f ? (v16) : (v19));
			const float v21 = tanhf(v20);
			const float v22 = ((v16) * (v21));
			p_y[i] = v22;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v23 = p_b[((tc0 + 2))];
			const float v24 = ((tv[2]) + (v23));
			const float v25 = ((v24) + (v2));
			const float v26 = ((v25) + (v4));
			const float v27 = ((float)((v26) > (v6)));
			const float v28 = expf(v26);
			const float v29 = log1pf(v28);
			const float v30 = ((v27) != 0.f ? (v26) : (v29));
			const float v31 = tanhf(v30);
			const float v32 = ((v26) * (v31));
			p_y[i] = v32;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v33 = p_b[((tc0 + 3))];
			const float v34 = ((tv[3]) + (v33));
			const float v35 = ((v34) + (v2));
			const float v36 = ((v35) + (v4));
			const float v37 = ((float)((v36) > (v6)));
			const float v38 = expf(v36);
			const float v39 = log1pf(v38);
			const float v40 = ((v37) != 0.f ? (v36) : (v39));
			const float v41 = tanhf(v40);
			const float v42 = ((v36) * (v41));
			p_y[i] = v42;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v43 = p_b[((tc0 + 4))];
			const float v44 = ((tv[4]) + (v43));
			const float v45 = ((v44) + (v2));
			const float v46 = ((v45) + (v4));
			const float v47 = ((float)((v46) > (v6)));
			const float v48 = expf(v46);
			const float v49 = log1pf(v48);
			const float v50 = ((v47) != 0.f ? (v46) : (v49));
			const float v51 = tanhf(v50);
			const float v52 = ((v46) * (v51));
			p_y[i] = v52;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v53 = p_b[((tc0 + 5))];
			const float v54 = ((tv[5]) + (v53));
			const float v55 = ((v54) + (v2));
			const float v56 = ((v55) + (v4));
			const float v57 = ((float)((v56) > (v6)));
			const float v58 = expf(v56);
			const float v59 = log1pf(v58);
			const float v60 = ((v57) != 0.f ? (v56) : (v59));
			const float v61 = tanhf(v60);
			const float v62 = ((v56) * (v61));
			p_y[i] = v62;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v63 = p_b[((tc0 + 6))];
			const float v64 = ((tv[6]) + (v63));
			const float v65 = ((v64) + (v2));
			const float v66 = ((v65) + (v4));
			const float v67 = ((float)((v66) > (v6)));
			const float v68 = expf(v66);
			const float v69 = log1pf(v68);
			const float v70 = ((v67) != 0.f ? (v66) : (v69));
			const float v71 = tanhf(v70);
			const float v72 = ((v66) * (v71));
			p_y[i] = v72;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v73 = p_b[((tc0 + 7))];
			const float v74 = ((tv[7]) + (v73));
			const float v75 = ((v74) + (v2));
			const float v76 = ((v75) + (v4));
			const float v77 = ((float)((v76) > (v6)));
			const float v78 = expf(v76);
			const float v79 = log1pf(v78);
			const float v80 = ((v77) != 0.f ? (v76) : (v79));
			const float v81 = tanhf(v80);
			const float v82 = ((v76) * (v81));
			p_y[i] = v82;
		}
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (oh), (ow)]
# k0: library call (node 4)
call conv(x, w) -> t4 layout=nhwc_y
launch k1_map grid=(min(sm_count * 8, cdiv(((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)), 1024))) block=(1024) args((out_channels),
    (oh) * (ow),
    cdiv((out_channels), 8),
    ((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)),
    t4,
    b,
    y)
@*/
