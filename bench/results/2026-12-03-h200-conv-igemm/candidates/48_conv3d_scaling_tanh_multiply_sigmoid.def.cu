/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8 conv.impl=lib
 * Task level2/48_conv3d_scaling_tanh_multiply_sigmoid, generated at shape set kb1; it serves every shape set.
 * fused 6 ops into 2 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 1 library
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
 * k1 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 7 view, 8 add, 9 mul, 10 tanh, 11 mul, 12 sigmoid.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_map(long a0,
	const float *__restrict__ p_t6,
	long a2,
	long a3,
	const float *__restrict__ p_b,
	const float *__restrict__ p_scaling_factor,
	const float *__restrict__ p_bias,
	float *__restrict__ p_y)
{
	const int tid = threadIdx.x;
	const long nv = (a2 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w0 = *reinterpret_cast<const float4 *>(p_t6 + i);
				const float v1 = p_b[(krl_mod(krl_div(i, a2), a3))];
				const float v2 = ((w0.x) + (v1));
				const float v3 = p_scaling_factor[(krl_mod(krl_div(i, a2), a3))];
				const float v4 = ((v2) * (v3));
				const float v5 = tanhf(v4);
				const float v6 = p_bias[(krl_mod(krl_div(i, a2), a3))];
				const float v7 = ((v5) * (v6));
				const float v8 = (1.f / (1.f + expf(-(v7))));
				const float v9 = p_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v10 = ((w0.y) + (v9));
				const float v11 = ((v10) * (v3));
				const float v12 = tanhf(v11);
				const float v13 = ((v12) * (v6));
				const float v14 = (1.f / (1.f + expf(-(v13))));
				const float v15 = p_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v16 = ((w0.z) + (v15));
				const float v17 = ((v16) * (v3));
				const float v18 = tanhf(v17);
				const float v19 = ((v18) * (v6));
				const float v20 = (1.f / (1.f + expf(-(v19))));
				const float v21 = p_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v22 = ((w0.w) + (v21));
				const float v23 = ((v22) * (v3));
				const float v24 = tanhf(v23);
				const float v25 = ((v24) * (v6));
				const float v26 = (1.f / (1.f + expf(-(v25))));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v8, v14, v20, v26);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v27 = p_t6[i];
		const float v28 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v29 = ((v27) + (v28));
		const float v30 = p_scaling_factor[(krl_mod(krl_div(i, a2), a3))];
		const float v31 = ((v29) * (v30));
		const float v32 = tanhf(v31);
		const float v33 = p_bias[(krl_mod(krl_div(i, a2), a3))];
		const float v34 = ((v32) * (v33));
		const float v35 = (1.f / (1.f + expf(-(v34))));
		p_y[i] = v35;
	}
}

/*@plan
buffer t6 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
# k0: library call (node 6)
call conv(x, w) -> t6
launch k1_map grid=(cdiv((batch_size) * (out_channels) * (od) * (oh) * (ow), 1024)) block=(256) args((batch_size) * (out_channels) * (od) * (oh) * (ow),
    t6,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    scaling_factor,
    bias,
    y)
@*/
