/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8 conv.impl=lib
 * Task level2/47_conv3d_mish_tanh, generated at shape set kb1; it serves every shape set.
 * fused 9 ops into 2 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 1 library
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
 * k1 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 5 view, 6 add, 8 gt, 9 exp, 10 log1p, 11 where, 12 tanh, 13 mul, 14 tanh.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_map(long a0,
	const float *__restrict__ p_t4,
	long a2,
	long a3,
	const float *__restrict__ p_b,
	float *__restrict__ p_y)
{
	const float v3 = 2.000000000e+01f;
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
				const float v4 = ((float)((v2) > (v3)));
				const float v5 = expf(v2);
				const float v6 = log1pf(v5);
				const float v7 = ((v4) != 0.f ? (v2) : (v6));
				const float v8 = tanhf(v7);
				const float v9 = ((v2) * (v8));
				const float v10 = tanhf(v9);
				const float v11 = p_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v12 = ((w0.y) + (v11));
				const float v13 = ((float)((v12) > (v3)));
				const float v14 = expf(v12);
				const float v15 = log1pf(v14);
				const float v16 = ((v13) != 0.f ? (v12) : (v15));
				const float v17 = tanhf(v16);
				const float v18 = ((v12) * (v17));
				const float v19 = tanhf(v18);
				const float v20 = p_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v21 = ((w0.z) + (v20));
				const float v22 = ((float)((v21) > (v3)));
				const float v23 = expf(v21);
				const float v24 = log1pf(v23);
				const float v25 = ((v22) != 0.f ? (v21) : (v24));
				const float v26 = tanhf(v25);
				const float v27 = ((v21) * (v26));
				const float v28 = tanhf(v27);
				const float v29 = p_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v30 = ((w0.w) + (v29));
				const float v31 = ((float)((v30) > (v3)));
				const float v32 = expf(v30);
				const float v33 = log1pf(v32);
				const float v34 = ((v31) != 0.f ? (v30) : (v33));
				const float v35 = tanhf(v34);
				const float v36 = ((v30) * (v35));
				const float v37 = tanhf(v36);
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v10, v19, v28, v37);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v38 = p_t4[i];
		const float v39 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v40 = ((v38) + (v39));
		const float v41 = ((float)((v40) > (v3)));
		const float v42 = expf(v40);
		const float v43 = log1pf(v42);
		const float v44 = ((v41) != 0.f ? (v40) : (v43));
		const float v45 = tanhf(v44);
		const float v46 = ((v40) * (v45));
		const float v47 = tanhf(v46);
		p_y[i] = v47;
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
# k0: library call (node 4)
call conv(x, w) -> t4
launch k1_map grid=(cdiv((batch_size) * (out_channels) * (od) * (oh) * (ow), 1024)) block=(256) args((batch_size) * (out_channels) * (od) * (oh) * (ow),
    t4,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    y)
@*/
