/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=tile
 * Task level2/7_conv3d_relu_leakyrelu_gelu_sigmoid_biasadd, generated at shape set kb1; it serves every shape set.
 * fused 13 ops into 2 kernels: 1 map (block 1024, vec 4, ept 1, persistent; over a channels-last y, tiles of 256 threads), 1 library (layout nhwc)
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
 * k1 (map over a channels-last input (node 5), tiles of 128 positions x 64 channels through shared memory: 256 threads, persistent grid): nodes 6 view, 7 add, 8 relu, 10 mul, 12 gt, 13 where, 17 div, 18 erf, 19 add, 20 mul, 21 mul, 22 sigmoid, 23 add.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_map(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_b,
	double c7,
	const float *__restrict__ p_bias,
	float *__restrict__ p_y)
{
	__shared__ float ttile[128][65];
	const float v0 = 5.000000000e-01f;
	const float v4 = 0.000000000e+00f;
	const float v6 = 1.000000000e-02f;
	const float v10 = 1.000000000e+00f;
	const float v11 = (float)c7;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const bool tld4 = (a0 & 3) == 0;
	const bool tst4 = (a1 & 3) == 0 && (a1 % 4 == 0);
	for (long e = blockIdx.x; e < a4; e += gridDim.x) {
		const long ts0 = krl_mod(e, a2) * 128;
		const long tq = krl_div(e, a2);
		const long tc0 = krl_mod(tq, a3) * 64;
		const long tn = krl_div(tq, a3);
		/* load: a warp step reads 4 positions x 32 channels */
		for (int w = warp; w < 64; w += 8) {
			const int trr = w % 32 * 4 + (lane >> 3);
			const int tqq = w / 32 * 32 + (lane & 7) * 4;
			const long s = ts0 + trr, c = tc0 + tqq;
			const long b = (tn * a1 + s) * a0 + c;
			float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
			if (s < a1 && tld4 && c < a0) {
				v = *reinterpret_cast<const float4 *>(p_t5 + b);
			} else if (s < a1) {
				if (c < a0) v.x = p_t5[b];
				if (c + 1 < a0) v.y = p_t5[b + 1];
				if (c + 2 < a0) v.z = p_t5[b + 2];
				if (c + 3 < a0) v.w = p_t5[b + 3];
			}
			ttile[trr][tqq] = v.x;
			ttile[trr][tqq + 1] = v.y;
			ttile[trr][tqq + 2] = v.z;
			ttile[trr][tqq + 3] = v.w;
		}
		__syncthreads();
		/* the chain: a warp step writes 4 channels x 32 positions */
		for (int w = warp; w < 64; w += 8) {
			const int trr = w % 4 * 32 + (lane & 7) * 4;
			const int tqq = w / 4 * 4 + (lane >> 3);
			const long tc = tc0 + tqq, ts = ts0 + trr;
			if (tc >= a0 || ts >= a1)
				continue;
			if (tst4) {
				{
					const long i = (tn * a0 + tc) * a1 + ts;
					const float v1 = p_b[(tc)];
					const float v2 = (((ttile[trr + 0][tqq])) + (v1));
					const float v3 = krl_maxf(v2, 0.f);
					const float v5 = ((float)((v3) > (v4)));
					const float v7 = ((v3) * (v6));
					const float v8 = ((v5) != 0.f ? (v3) : (v7));
					const float v9 = ((v0) * (v8));
					const float v12 = ((v8) / (v11));
					const float v13 = erff(v12);
					const float v14 = ((v10) + (v13));
					const float v15 = ((v9) * (v14));
					const float v16 = (1.f / (1.f + expf(-(v15))));
					const float v17 = p_bias[(tc)];
					const float v18 = ((v16) + (v17));
					const float v19 = (((ttile[trr + 1][tqq])) + (v1));
					const float v20 = krl_maxf(v19, 0.f);
					const float v21 = ((float)((v20) > (v4)));
					const float v22 = ((v20) * (v6));
					const float v23 = ((v21) != 0.f ? (v20) : (v22));
					const float v24 = ((v0) * (v23));
					const float v25 = ((v23) / (v11));
					const float v26 = erff(v25);
					const float v27 = ((v10) + (v26));
					const float v28 = ((v24) * (v27));
					const float v29 = (1.f / (1.f + expf(-(v28))));
					const float v30 = ((v29) + (v17));
					const float v31 = (((ttile[trr + 2][tqq])) + (v1));
					const float v32 = krl_maxf(v31, 0.f);
					const float v33 = ((float)((v32) > (v4)));
					const float v34 = ((v32) * (v6));
					const float v35 = ((v33) != 0.f ? (v32) : (v34));
					const float v36 = ((v0) * (v35));
					const float v37 = ((v35) / (v11));
					const float v38 = erff(v37);
					const float v39 = ((v10) + (v38));
					const float v40 = ((v36) * (v39));
					const float v41 = (1.f / (1.f + expf(-(v40))));
					const float v42 = ((v41) + (v17));
					const float v43 = (((ttile[trr + 3][tqq])) + (v1));
					const float v44 = krl_maxf(v43, 0.f);
					const float v45 = ((float)((v44) > (v4)));
					const float v46 = ((v44) * (v6));
					const float v47 = ((v45) != 0.f ? (v44) : (v46));
					const float v48 = ((v0) * (v47));
					const float v49 = ((v47) / (v11));
					const float v50 = erff(v49);
					const float v51 = ((v10) + (v50));
					const float v52 = ((v48) * (v51));
					const float v53 = (1.f / (1.f + expf(-(v52))));
					const float v54 = ((v53) + (v17));
					*reinterpret_cast<float4 *>(p_y + i) = make_float4(v18, v30, v42, v54);
				}
			} else {
				{
					if (ts + 0 < a1) {
						const long i = (tn * a0 + tc) * a1 + ts + 0;
						const float v55 = p_b[(tc)];
						const float v56 = (((ttile[trr + 0][tqq])) + (v55));
						const float v57 = krl_maxf(v56, 0.f);
						const float v58 = ((float)((v57) > (v4)));
						const float v59 = ((v57) * (v6));
						const float v60 = ((v58) != 0.f ? (v57) : (v59));
						const float v61 = ((v0) * (v60));
						const float v62 = ((v60) / (v11));
						const float v63 = erff(v62);
						const float v64 = ((v10) + (v63));
						const float v65 = ((v61) * (v64));
						const float v66 = (1.f / (1.f + expf(-(v65))));
						const float v67 = p_bias[(tc)];
						const float v68 = ((v66) + (v67));
						p_y[i] = v68;
					}
					if (ts + 1 < a1) {
						const long i = (tn * a0 + tc) * a1 + ts + 1;
						const float v69 = p_b[(tc)];
						const float v70 = (((ttile[trr + 1][tqq])) + (v69));
						const float v71 = krl_maxf(v70, 0.f);
						const float v72 = ((float)((v71) > (v4)));
						const float v73 = ((v71) * (v6));
						const float v74 = ((v72) != 0.f ? (v71) : (v73));
						const float v75 = ((v0) * (v74));
						const float v76 = ((v74) / (v11));
						const float v77 = erff(v76);
						const float v78 = ((v10) + (v77));
						const float v79 = ((v75) * (v78));
						const float v80 = (1.f / (1.f + expf(-(v79))));
						const float v81 = p_bias[(tc)];
						const float v82 = ((v80) + (v81));
						p_y[i] = v82;
					}
					if (ts + 2 < a1) {
						const long i = (tn * a0 + tc) * a1 + ts + 2;
						const float v83 = p_b[(tc)];
						const float v84 = (((ttile[trr + 2][tqq])) + (v83));
						const float v85 = krl_maxf(v84, 0.f);
						const float v86 = ((float)((v85) > (v4)));
						const float v87 = ((v85) * (v6));
						const float v88 = ((v86) != 0.f ? (v85) : (v87));
						const float v89 = ((v0) * (v88));
						const float v90 = ((v88) / (v11));
						const float v91 = erff(v90);
						const float v92 = ((v10) + (v91));
						const float v93 = ((v89) * (v92));
						const float v94 = (1.f / (1.f + expf(-(v93))));
						const float v95 = p_bias[(tc)];
						const float v96 = ((v94) + (v95));
						p_y[i] = v96;
					}
					if (ts + 3 < a1) {
						const long i = (tn * a0 + tc) * a1 + ts + 3;
						const float v97 = p_b[(tc)];
						const float v98 = (((ttile[trr + 3][tqq])) + (v97));
						const float v99 = krl_maxf(v98, 0.f);
						const float v100 = ((float)((v99) > (v4)));
						const float v101 = ((v99) * (v6));
						const float v102 = ((v100) != 0.f ? (v99) : (v101));
						const float v103 = ((v0) * (v102));
						const float v104 = ((v102) / (v11));
						const float v105 = erff(v104);
						const float v106 = ((v10) + (v105));
						const float v107 = ((v103) * (v106));
						const float v108 = (1.f / (1.f + expf(-(v107))));
						const float v109 = p_bias[(tc)];
						const float v110 = ((v108) + (v109));
						p_y[i] = v110;
					}
				}
			}
		}
		/* the tile is refilled for the next e */
		__syncthreads();
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
# k0: library call (node 5)
call conv(x, w) -> t5 layout=nhwc_y
launch k1_map grid=(min(sm_count * 8, ((batch_size)) * cdiv((od) * (oh) * (ow), 128) * cdiv((out_channels), 64))) block=(256) args((out_channels),
    (od) * (oh) * (ow),
    cdiv((od) * (oh) * (ow), 128),
    cdiv((out_channels), 64),
    ((batch_size)) * cdiv((od) * (oh) * (ow), 128) * cdiv((out_channels), 64),
    t5,
    b,
    (sqrt(2.0)),
    bias,
    y)
@*/
