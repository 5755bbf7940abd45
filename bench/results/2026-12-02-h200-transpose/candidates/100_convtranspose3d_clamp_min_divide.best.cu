/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8
 * Task level2/100_convtranspose3d_clamp_min_divide, generated at shape set kb1; it serves every shape set.
 * fused 4 ops into 2 kernels: 1 map (block 1024, vec 4, ept 1, persistent), 1 library
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
 * k1 (map: 1024 threads, 4-wide vectors, 1 per thread, persistent grid): nodes 5 view, 6 add, 8 max, 10 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(1024)
k1_map(long a0,
	const float *__restrict__ p_t4,
	long a2,
	long a3,
	const float *__restrict__ p_b,
	float *__restrict__ p_y)
{
	const float v3 = -1.000000000e+00f;
	const float v5 = 5.000000000e-01f;
	const int tid = threadIdx.x;
	const long nv = (true) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 1024; base < nv;
	     base += (long)gridDim.x * 1024) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w0 = *reinterpret_cast<const float4 *>(p_t4 + i);
				const float v1 = p_b[(krl_mod(krl_div(i, a2), a3))];
				const float v2 = ((w0.x) + (v1));
				const float v4 = krl_maxf(v2, v3);
				const float v6 = ((v4) * (v5));
				const float v7 = p_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v8 = ((w0.y) + (v7));
				const float v9 = krl_maxf(v8, v3);
				const float v10 = ((v9) * (v5));
				const float v11 = p_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v12 = ((w0.z) + (v11));
				const float v13 = krl_maxf(v12, v3);
				const float v14 = ((v13) * (v5));
				const float v15 = p_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v16 = ((w0.w) + (v15));
				const float v17 = krl_maxf(v16, v3);
				const float v18 = ((v17) * (v5));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v6, v10, v14, v18);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 1024 + tid; i < a0;
	     i += (long)gridDim.x * 1024) {
		const float v19 = p_t4[i];
		const float v20 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v21 = ((v19) + (v20));
		const float v22 = krl_maxf(v21, v3);
		const float v23 = ((v22) * (v5));
		p_y[i] = v23;
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
# k0: library call (node 4)
call conv_transpose(x, w) -> t4 stride=stride padding=padding
launch k1_map grid=(min(sm_count * 8, cdiv((batch_size) * (out_channels) * (od) * (oh) * (ow), 4096))) block=(1024) args((batch_size) * (out_channels) * (od) * (oh) * (ow),
    t4,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    y)
@*/
