/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=tile
 * Task level2/90_conv3d_leakyrelu_sum_clamp_gelu, generated at shape set kb1; it serves every shape set.
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
 * k1 (map over a channels-last input (node 5), tiles of 128 positions x 64 channels through shared memory: 256 threads, persistent grid): nodes 6 view, 7 add, 9 mul, 11 gt, 12 where, 13 add, 16 max, 17 min, 21 div, 22 erf, 23 add, 24 mul, 25 mul.
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
	const float *__restrict__ p_sum_tensor,
	double c8,
	float *__restrict__ p_y)
{
	__shared__ float ttile[128][65];
	const float v0 = 5.000000000e-01f;
	const float v3 = 0.000000000e+00f;
	const float v5 = 2.000000000e-01f;
	const float v10 = -1.000000000e+00f;
	const float v12 = 1.000000000e+00f;
	const float v15 = 1.000000000e+00f;
	const float v16 = (float)c8;
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
					const float v4 = ((float)((v2) > (v3)));
					const float v6 = ((v2) * (v5));
					const float v7 = ((v4) != 0.f ? (v2) : (v6));
					const float v8 = p_sum_tensor[(tc)];
					const float v9 = ((v7) + (v8));
					const float v11 = krl_maxf(v9, v10);
					const float v13 = krl_minf(v11, v12);
					const float v14 = ((v0) * (v13));
					const float v17 = ((v13) / (v16));
					const float v18 = erff(v17);
					const float v19 = ((v15) + (v18));
					const float v20 = ((v14) * (v19));
					const float v21 = (((ttile[trr + 1][tqq])) + (v1));
					const float v22 = ((float)((v21) > (v3)));
					const float v23 = ((v21) * (v5));
					const float v24 = ((v22) != 0.f ? (v21) : (v23));
					const float v25 = ((v24) + (v8));
					const float v26 = krl_maxf(v25, v10);
					const float v27 = krl_minf(v26, v12);
					const float v28 = ((v0) * (v27));
					const float v29 = ((v27) / (v16));
					const float v30 = erff(v29);
					const float v31 = ((v15) + (v30));
					const float v32 = ((v28) * (v31));
					const float v33 = (((ttile[trr + 2][tqq])) + (v1));
					const float v34 = ((float)((v33) > (v3)));
					const float v35 = ((v33) * (v5));
					const float v36 = ((v34) != 0.f ? (v33) : (v35));
					const float v37 = ((v36) + (v8));
					const float v38 = krl_maxf(v37, v10);
					const float v39 = krl_minf(v38, v12);
					const float v40 = ((v0) * (v39));
					const float v41 = ((v39) / (v16));
					const float v42 = erff(v41);
					const float v43 = ((v15) + (v42));
					const float v44 = ((v40) * (v43));
					const float v45 = (((ttile[trr + 3][tqq])) + (v1));
					const float v46 = ((float)((v45) > (v3)));
					const float v47 = ((v45) * (v5));
					const float v48 = ((v46) != 0.f ? (v45) : (v47));
					const float v49 = ((v48) + (v8));
					const float v50 = krl_maxf(v49, v10);
					const float v51 = krl_minf(v50, v12);
					const float v52 = ((v0) * (v51));
					const float v53 = ((v51) / (v16));
					const float v54 = erff(v53);
					const float v55 = ((v15) + (v54));
					const float v56 = ((v52) * (v55));
					*reinterpret_cast<float4 *>(p_y + i) = make_float4(v20, v32, v44, v56);
				}
			} else {
				{
					if (ts + 0 < a1) {
						const long i = (tn * a0 + tc) * a1 + ts + 0;
						const float v57 = p_b[(tc)];
						const float v58 = (((ttile[trr + 0][tqq])) + (v57));
						const float v59 = ((float)((v58) > (v3)));
						const float v60 = ((v58) * (v5));
						const float v61 = ((v59) != 0.f ? (v58) : (v60));
						const float v62 = p_sum_tensor[(tc)];
						const float v63 = ((v61) + (v62));
						const float v64 = krl_maxf(v63, v10);
						const float v65 = krl_minf(v64, v12);
						const float v66 = ((v0) * (v65));
						const float v67 = ((v65) / (v16));
						const float v68 = erff(v67);
						const float v69 = ((v15) + (v68));
						const float v70 = ((v66) * (v69));
						p_y[i] = v70;
					}
					if (ts + 1 < a1) {
						const long i = (tn * a0 + tc) * a1 + ts + 1;
						const float v71 = p_b[(tc)];
						const float v72 = (((ttile[trr + 1][tqq])) + (v71));
						const float v73 = ((float)((v72) > (v3)));
						const float v74 = ((v72) * (v5));
						const float v75 = ((v73) != 0.f ? (v72) : (v74));
						const float v76 = p_sum_tensor[(tc)];
						const float v77 = ((v75) + (v76));
						const float v78 = krl_maxf(v77, v10);
						const float v79 = krl_minf(v78, v12);
						const float v80 = ((v0) * (v79));
						const float v81 = ((v79) / (v16));
						const float v82 = erff(v81);
						const float v83 = ((v15) + (v82));
						const float v84 = ((v80) * (v83));
						p_y[i] = v84;
					}
					if (ts + 2 < a1) {
						const long i = (tn * a0 + tc) * a1 + ts + 2;
						const float v85 = p_b[(tc)];
						const float v86 = (((ttile[trr + 2][tqq])) + (v85));
						const float v87 = ((float)((v86) > (v3)));
						const float v88 = ((v86) * (v5));
						const float v89 = ((v87) != 0.f ? (v86) : (v88));
						const float v90 = p_sum_tensor[(tc)];
						const float v91 = ((v89) + (v90));
						const float v92 = krl_maxf(v91, v10);
						const float v93 = krl_minf(v92, v12);
						const float v94 = ((v0) * (v93));
						const float v95 = ((v93) / (v16));
						const float v96 = erff(v95);
						const float v97 = ((v15) + (v96));
						const float v98 = ((v94) * (v97));
						p_y[i] = v98;
					}
					if (ts + 3 < a1) {
						const long i = (tn * a0 + tc) * a1 + ts + 3;
						const float v99 = p_b[(tc)];
						const float v100 = (((ttile[trr + 3][tqq])) + (v99));
						const float v101 = ((float)((v100) > (v3)));
						const float v102 = ((v100) * (v5));
						const float v103 = ((v101) != 0.f ? (v100) : (v102));
						const float v104 = p_sum_tensor[(tc)];
						const float v105 = ((v103) + (v104));
						const float v106 = krl_maxf(v105, v10);
						const float v107 = krl_minf(v106, v12);
						const float v108 = ((v0) * (v107));
						const float v109 = ((v107) / (v16));
						const float v110 = erff(v109);
						const float v111 = ((v15) + (v110));
						const float v112 = ((v108) * (v111));
						p_y[i] = v112;
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
    sum_tensor,
    (sqrt(2.0)),
    y)
@*/
