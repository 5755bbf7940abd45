/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8
 * Task level2/2_convtranspose2d_biasadd_clamp_scaling_clamp_divide, generated at shape set kb1; it serves every shape set.
 * fused 9 ops into 2 kernels: 1 map (block 1024, vec 4, ept 1, persistent), 1 library
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
 * k1 (map: 1024 threads, 4-wide vectors, 1 per thread, persistent grid): nodes 6 view, 7 add, 8 add, 11 max, 12 min, 14 mul, 17 max, 18 min, 20 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(1024)
k1_map(long a0,
	const float *__restrict__ p_t5,
	long a2,
	long a3,
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
	const long nv = (a2 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 1024; base < nv;
	     base += (long)gridDim.x * 1024) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w0 = *reinterpret_cast<const float4 *>(p_t5 + i);
				const float v1 = p_b[(krl_mod(krl_div(i, a2), a3))];
				const float v2 = ((w0.x) + (v1));
				const float v3 = p_bias[(krl_mod(krl_div(i, a2), a3))];
				const float v4 = ((v2) + (v3));
				const float v6 = krl_maxf(v4, v5);
				const float v8 = krl_minf(v6, v7);
				const float v10 = ((v8) * (v9));
				const float v12 = krl_maxf(v10, v11);
				const float v14 = krl_minf(v12, v13);
				const float v16 = ((v14) * (v15));
				const float v17 = p_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v18 = ((w0.y) + (v17));
				const float v19 = ((v18) + (v3));
				const float v20 = krl_maxf(v19, v5);
				const float v21 = krl_minf(v20, v7);
				const float v22 = ((v21) * (v9));
				const float v23 = krl_maxf(v22, v11);
				const float v24 = krl_minf(v23, v13);
				const float v25 = ((v24) * (v15));
				const float v26 = p_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v27 = ((w0.z) + (v26));
				const float v28 = ((v27) + (v3));
				const float v29 = krl_maxf(v28, v5);
				const float v30 = krl_minf(v29, v7);
				const float v31 = ((v30) * (v9));
				const float v32 = krl_maxf(v31, v11);
				const float v33 = krl_minf(v32, v13);
				const float v34 = ((v33) * (v15));
				const float v35 = p_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v36 = ((w0.w) + (v35));
				const float v37 = ((v36) + (v3));
				const float v38 = krl_maxf(v37, v5);
				const float v39 = krl_minf(v38, v7);
				const float v40 = ((v39) * (v9));
				const float v41 = krl_maxf(v40, v11);
				const float v42 = krl_minf(v41, v13);
				const float v43 = ((v42) * (v15));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v16, v25, v34, v43);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 1024 + tid; i < a0;
	     i += (long)gridDim.x * 1024) {
		const float v44 = p_t5[i];
		const float v45 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v46 = ((v44) + (v45));
		const float v47 = p_bias[(krl_mod(krl_div(i, a2), a3))];
		const float v48 = ((v46) + (v47));
		const float v49 = krl_maxf(v48, v5);
		const float v50 = krl_minf(v49, v7);
		const float v51 = ((v50) * (v9));
		const float v52 = krl_maxf(v51, v11);
		const float v53 = krl_minf(v52, v13);
		const float v54 = ((v53) * (v15));
		p_y[i] = v54;
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (oh), (ow)]
# k0: library call (node 5)
call conv_transpose(x, w) -> t5 stride=stride padding=padding output_padding=output_padding
launch k1_map grid=(min(sm_count * 8, cdiv((batch_size) * (out_channels) * (oh) * (ow), 4096))) block=(1024) args((batch_size) * (out_channels) * (oh) * (ow),
    t5,
    (oh) * (ow),
    (out_channels),
    b,
    bias,
    y)
@*/
