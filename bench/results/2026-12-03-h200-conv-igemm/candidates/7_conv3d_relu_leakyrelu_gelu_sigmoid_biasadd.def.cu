/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8 conv.impl=lib
 * Task level2/7_conv3d_relu_leakyrelu_gelu_sigmoid_biasadd, generated at shape set kb1; it serves every shape set.
 * fused 13 ops into 2 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 1 library
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
 * k1 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 6 view, 7 add, 8 relu, 10 mul, 12 gt, 13 where, 17 div, 18 erf, 19 add, 20 mul, 21 mul, 22 sigmoid, 23 add.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_map(long a0,
	const float *__restrict__ p_t5,
	long a2,
	long a3,
	const float *__restrict__ p_b,
	double c5,
	const float *__restrict__ p_bias,
	float *__restrict__ p_y)
{
	const float v0 = 5.000000000e-01f;
	const float v5 = 0.000000000e+00f;
	const float v7 = 1.000000000e-02f;
	const float v11 = 1.000000000e+00f;
	const float v12 = (float)c5;
	const int tid = threadIdx.x;
	const long nv = (a2 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w1 = *reinterpret_cast<const float4 *>(p_t5 + i);
				const float v2 = p_b[(krl_mod(krl_div(i, a2), a3))];
				const float v3 = ((w1.x) + (v2));
				const float v4 = krl_maxf(v3, 0.f);
				const float v6 = ((float)((v4) > (v5)));
				const float v8 = ((v4) * (v7));
				const float v9 = ((v6) != 0.f ? (v4) : (v8));
				const float v10 = ((v0) * (v9));
				const float v13 = ((v9) / (v12));
				const float v14 = erff(v13);
				const float v15 = ((v11) + (v14));
				const float v16 = ((v10) * (v15));
				const float v17 = (1.f / (1.f + expf(-(v16))));
				const float v18 = p_bias[(krl_mod(krl_div(i, a2), a3))];
				const float v19 = ((v17) + (v18));
				const float v20 = p_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v21 = ((w1.y) + (v20));
				const float v22 = krl_maxf(v21, 0.f);
				const float v23 = ((float)((v22) > (v5)));
				const float v24 = ((v22) * (v7));
				const float v25 = ((v23) != 0.f ? (v22) : (v24));
				const float v26 = ((v0) * (v25));
				const float v27 = ((v25) / (v12));
				const float v28 = erff(v27);
				const float v29 = ((v11) + (v28));
				const float v30 = ((v26) * (v29));
				const float v31 = (1.f / (1.f + expf(-(v30))));
				const float v32 = ((v31) + (v18));
				const float v33 = p_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v34 = ((w1.z) + (v33));
				const float v35 = krl_maxf(v34, 0.f);
				const float v36 = ((float)((v35) > (v5)));
				const float v37 = ((v35) * (v7));
				const float v38 = ((v36) != 0.f ? (v35) : (v37));
				const float v39 = ((v0) * (v38));
				const float v40 = ((v38) / (v12));
				const float v41 = erff(v40);
				const float v42 = ((v11) + (v41));
				const float v43 = ((v39) * (v42));
				const float v44 = (1.f / (1.f + expf(-(v43))));
				const float v45 = ((v44) + (v18));
				const float v46 = p_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v47 = ((w1.w) + (v46));
				const float v48 = krl_maxf(v47, 0.f);
				const float v49 = ((float)((v48) > (v5)));
				const float v50 = ((v48) * (v7));
				const float v51 = ((v49) != 0.f ? (v48) : (v50));
				const float v52 = ((v0) * (v51));
				const float v53 = ((v51) / (v12));
				const float v54 = erff(v53);
				const float v55 = ((v11) + (v54));
				const float v56 = ((v52) * (v55));
				const float v57 = (1.f / (1.f + expf(-(v56))));
				const float v58 = ((v57) + (v18));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v19, v32, v45, v58);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v59 = p_t5[i];
		const float v60 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v61 = ((v59) + (v60));
		const float v62 = krl_maxf(v61, 0.f);
		const float v63 = ((float)((v62) > (v5)));
		const float v64 = ((v62) * (v7));
		const float v65 = ((v63) != 0.f ? (v62) : (v64));
		const float v66 = ((v0) * (v65));
		const float v67 = ((v65) / (v12));
		const float v68 = erff(v67);
		const float v69 = ((v11) + (v68));
		const float v70 = ((v66) * (v69));
		const float v71 = (1.f / (1.f + expf(-(v70))));
		const float v72 = p_bias[(krl_mod(krl_div(i, a2), a3))];
		const float v73 = ((v71) + (v72));
		p_y[i] = v73;
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
# k0: library call (node 5)
call conv(x, w) -> t5
launch k1_map grid=(cdiv((batch_size) * (out_channels) * (od) * (oh) * (ow), 1024)) block=(256) args((batch_size) * (out_channels) * (od) * (oh) * (ow),
    t5,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    (sqrt(2.0)),
    bias,
    y)
@*/
