/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8
 * Task level2/26_convtranspose3d_add_hardswish, generated at shape set kb1; it serves every shape set.
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
 * k1 (map: 1024 threads, 4-wide vectors, 1 per thread, persistent grid): nodes 6 view, 7 add, 8 add, 12 add, 13 max, 14 min, 15 mul, 16 div, 17 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(1024)
k1_map(long a0,
	const float *__restrict__ p_t5,
	long a2,
	long a3,
	const float *__restrict__ p_b,
	const float *__restrict__ p_add_input,
	float *__restrict__ p_y)
{
	const float v5 = 3.000000000e+00f;
	const float v7 = 0.000000000e+00f;
	const float v9 = 6.000000000e+00f;
	const int tid = threadIdx.x;
	const long nv = (true) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 1024; base < nv;
	     base += (long)gridDim.x * 1024) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w0 = *reinterpret_cast<const float4 *>(p_t5 + i);
				const float v1 = p_b[(krl_mod(krl_div(i, a2), a3))];
				const float v2 = ((w0.x) + (v1));
				const float4 w3 = *reinterpret_cast<const float4 *>(p_add_input + i);
				const float v4 = ((v2) + (w3.x));
				const float v6 = ((v4) + (v5));
				const float v8 = krl_maxf(v6, v7);
				const float v10 = krl_minf(v8, v9);
				const float v11 = ((v4) * (v10));
				const float v12 = ((v11) / (v9));
				const float v13 = ((v4) * (v12));
				const float v14 = p_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v15 = ((w0.y) + (v14));
				const float v16 = ((v15) + (w3.y));
				const float v17 = ((v16) + (v5));
				const float v18 = krl_maxf(v17, v7);
				const float v19 = krl_minf(v18, v9);
				const float v20 = ((v16) * (v19));
				const float v21 = ((v20) / (v9));
				const float v22 = ((v16) * (v21));
				const float v23 = p_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v24 = ((w0.z) + (v23));
				const float v25 = ((v24) + (w3.z));
				const float v26 = ((v25) + (v5));
				const float v27 = krl_maxf(v26, v7);
				const float v28 = krl_minf(v27, v9);
				const float v29 = ((v25) * (v28));
				const float v30 = ((v29) / (v9));
				const float v31 = ((v25) * (v30));
				const float v32 = p_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v33 = ((w0.w) + (v32));
				const float v34 = ((v33) + (w3.w));
				const float v35 = ((v34) + (v5));
				const float v36 = krl_maxf(v35, v7);
				const float v37 = krl_minf(v36, v9);
				const float v38 = ((v34) * (v37));
				const float v39 = ((v38) / (v9));
				const float v40 = ((v34) * (v39));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v13, v22, v31, v40);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 1024 + tid; i < a0;
	     i += (long)gridDim.x * 1024) {
		const float v41 = p_t5[i];
		const float v42 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v43 = ((v41) + (v42));
		const float v44 = p_add_input[i];
		const float v45 = ((v43) + (v44));
		const float v46 = ((v45) + (v5));
		const float v47 = krl_maxf(v46, v7);
		const float v48 = krl_minf(v47, v9);
		const float v49 = ((v45) * (v48));
		const float v50 = ((v49) / (v9));
		const float v51 = ((v45) * (v50));
		p_y[i] = v51;
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
# k0: library call (node 5)
call conv_transpose(x, w) -> t5 stride=stride padding=padding output_padding=output_padding
launch k1_map grid=(min(sm_count * 8, cdiv((batch_size) * (out_channels) * (od) * (oh) * (ow), 4096))) block=(1024) args((batch_size) * (out_channels) * (od) * (oh) * (ow),
    t5,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    add_input,
    y)
@*/
