/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8 conv.impl=lib
 * Task level2/57_conv2d_relu_hardswish, generated at shape set kb1; it serves every shape set.
 * fused 8 ops into 2 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 1 library
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
 * k1 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 5 view, 6 add, 7 relu, 9 add, 11 mul, 14 max, 15 min, 16 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_map(long a0,
	const float *__restrict__ p_t4,
	long a2,
	long a3,
	const float *__restrict__ p_b,
	double c5,
	float *__restrict__ p_y)
{
	const float v4 = 3.000000000e+00f;
	const float v6 = (float)c5;
	const float v8 = 0.000000000e+00f;
	const float v10 = 1.000000000e+00f;
	const int tid = threadIdx.x;
	const long nv = (true) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w0 = *reinterpret_cast<const float4 *>(p_t4 + i);
				const float v1 = p_b[(krl_mod(krl_div(i, a2), a3))];
				const float v2 = ((w0.x) + (v1));
				const float v3 = krl_maxf(v2, 0.f);
				const float v5 = ((v3) + (v4));
				const float v7 = ((v5) * (v6));
				const float v9 = krl_maxf(v7, v8);
				const float v11 = krl_minf(v9, v10);
				const float v12 = ((v3) * (v11));
				const float v13 = p_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v14 = ((w0.y) + (v13));
				const float v15 = krl_maxf(v14, 0.f);
				const float v16 = ((v15) + (v4));
				const float v17 = ((v16) * (v6));
				const float v18 = krl_maxf(v17, v8);
				const float v19 = krl_minf(v18, v10);
				const float v20 = ((v15) * (v19));
				const float v21 = p_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v22 = ((w0.z) + (v21));
				const float v23 = krl_maxf(v22, 0.f);
				const float v24 = ((v23) + (v4));
				const float v25 = ((v24) * (v6));
				const float v26 = krl_maxf(v25, v8);
				const float v27 = krl_minf(v26, v10);
				const float v28 = ((v23) * (v27));
				const float v29 = p_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v30 = ((w0.w) + (v29));
				const float v31 = krl_maxf(v30, 0.f);
				const float v32 = ((v31) + (v4));
				const float v33 = ((v32) * (v6));
				const float v34 = krl_maxf(v33, v8);
				const float v35 = krl_minf(v34, v10);
				const float v36 = ((v31) * (v35));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v12, v20, v28, v36);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v37 = p_t4[i];
		const float v38 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v39 = ((v37) + (v38));
		const float v40 = krl_maxf(v39, 0.f);
		const float v41 = ((v40) + (v4));
		const float v42 = ((v41) * (v6));
		const float v43 = krl_maxf(v42, v8);
		const float v44 = krl_minf(v43, v10);
		const float v45 = ((v40) * (v44));
		p_y[i] = v45;
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (oh), (ow)]
# k0: library call (node 4)
call conv(x, w) -> t4
launch k1_map grid=(cdiv((batch_size) * (out_channels) * (oh) * (ow), 1024)) block=(256) args((batch_size) * (out_channels) * (oh) * (ow),
    t4,
    (oh) * (ow),
    (out_channels),
    b,
    (1.0 / 6),
    y)
@*/
