/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8 conv.impl=lib
 * Task level2/1_conv2d_relu_biasadd, generated at shape set kb1; it serves every shape set.
 * fused 4 ops into 2 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 1 library
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
 * k1 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 6 view, 7 add, 8 relu, 9 add.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_map(long a0,
	const float *__restrict__ p_t5,
	long a2,
	long a3,
	const float *__restrict__ p_b,
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
				const float4 w0 = *reinterpret_cast<const float4 *>(p_t5 + i);
				const float v1 = p_b[(krl_mod(krl_div(i, a2), a3))];
				const float v2 = ((w0.x) + (v1));
				const float v3 = krl_maxf(v2, 0.f);
				const float v4 = p_bias[(krl_mod(krl_div(i, a2), a3))];
				const float v5 = ((v3) + (v4));
				const float v6 = p_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v7 = ((w0.y) + (v6));
				const float v8 = krl_maxf(v7, 0.f);
				const float v9 = ((v8) + (v4));
				const float v10 = p_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v11 = ((w0.z) + (v10));
				const float v12 = krl_maxf(v11, 0.f);
				const float v13 = ((v12) + (v4));
				const float v14 = p_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v15 = ((w0.w) + (v14));
				const float v16 = krl_maxf(v15, 0.f);
				const float v17 = ((v16) + (v4));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v5, v9, v13, v17);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v18 = p_t5[i];
		const float v19 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v20 = ((v18) + (v19));
		const float v21 = krl_maxf(v20, 0.f);
		const float v22 = p_bias[(krl_mod(krl_div(i, a2), a3))];
		const float v23 = ((v21) + (v22));
		p_y[i] = v23;
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (oh), (ow)]
# k0: library call (node 5)
call conv(x, w) -> t5
launch k1_map grid=(cdiv((batch_size) * (out_channels) * (oh) * (ow), 1024)) block=(256) args((batch_size) * (out_channels) * (oh) * (ow),
    t5,
    (oh) * (ow),
    (out_channels),
    b,
    bias,
    y)
@*/
