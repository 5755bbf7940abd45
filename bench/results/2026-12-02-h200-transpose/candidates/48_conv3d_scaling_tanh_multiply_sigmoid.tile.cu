/*
 * krl-choice: rule.conv_bias=on map.block=1024 map.vec=4 map.ept=1 map.grid=persist8 fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=tile
 * Task level2/48_conv3d_scaling_tanh_multiply_sigmoid, generated at shape set kb1; it serves every shape set.
 * fused 6 ops into 2 kernels: 1 map (block 1024, vec 4, ept 1, persistent; over a channels-last y, tiles of 256 threads), 1 library (layout nhwc)
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
 * k1 (map over a channels-last input (node 6), tiles of 128 positions x 64 channels through shared memory: 256 threads, persistent grid): nodes 7 view, 8 add, 9 mul, 10 tanh, 11 mul, 12 sigmoid.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_map(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	const float *__restrict__ p_t6,
	const float *__restrict__ p_b,
	const float *__restrict__ p_scaling_factor,
	const float *__restrict__ p_bias,
	float *__restrict__ p_y)
{
	__shared__ float ttile[128][65];
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
				v = *reinterpret_cast<const float4 *>(p_t6 + b);
			} else if (s < a1) {
				if (c < a0) v.x = p_t6[b];
				if (c + 1 < a0) v.y = p_t6[b + 1];
				if (c + 2 < a0) v.z = p_t6[b + 2];
				if (c + 3 < a0) v.w = p_t6[b + 3];
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
					const float v0 = p_b[(tc)];
					const float v1 = (((ttile[trr + 0][tqq])) + (v0));
					const float v2 = p_scaling_factor[(tc)];
					const float v3 = ((v1) * (v2));
					const float v4 = tanhf(v3);
					const float v5 = p_bias[(tc)];
					const float v6 = ((v4) * (v5));
					const float v7 = (1.f / (1.f + expf(-(v6))));
					const float v8 = (((ttile[trr + 1][tqq])) + (v0));
					const float v9 = ((v8) * (v2));
					const float v10 = tanhf(v9);
					const float v11 = ((v10) * (v5));
					const float v12 = (1.f / (1.f + expf(-(v11))));
					const float v13 = (((ttile[trr + 2][tqq])) + (v0));
					const float v14 = ((v13) * (v2));
					const float v15 = tanhf(v14);
					const float v16 = ((v15) * (v5));
					const float v17 = (1.f / (1.f + expf(-(v16))));
					const float v18 = (((ttile[trr + 3][tqq])) + (v0));
					const float v19 = ((v18) * (v2));
					const float v20 = tanhf(v19);
					const float v21 = ((v20) * (v5));
					const float v22 = (1.f / (1.f + expf(-(v21))));
					*reinterpret_cast<float4 *>(p_y + i) = make_float4(v7, v12, v17, v22);
				}
			} else {
				{
					if (ts + 0 < a1) {
						const long i = (tn * a0 + tc) * a1 + ts + 0;
						const float v23 = p_b[(tc)];
						const float v24 = (((ttile[trr + 0][tqq])) + (v23));
						const float v25 = p_scaling_factor[(tc)];
						const float v26 = ((v24) * (v25));
						const float v27 = tanhf(v26);
						const float v28 = p_bias[(tc)];
						const float v29 = ((v27) * (v28));
						const float v30 = (1.f / (1.f + expf(-(v29))));
						p_y[i] = v30;
					}
					if (ts + 1 < a1) {
						const long i = (tn * a0 + tc) * a1 + ts + 1;
						const float v31 = p_b[(tc)];
						const float v32 = (((ttile[trr + 1][tqq])) + (v31));
						const float v33 = p_scaling_factor[(tc)];
						const float v34 = ((v32) * (v33));
						const float v35 = tanhf(v34);
						const float v36 = p_bias[(tc)];
						const float v37 = ((v35) * (v36));
						const float v38 = (1.f / (1.f + expf(-(v37))));
						p_y[i] = v38;
					}
					if (ts + 2 < a1) {
						const long i = (tn * a0 + tc) * a1 + ts + 2;
						const float v39 = p_b[(tc)];
						const float v40 = (((ttile[trr + 2][tqq])) + (v39));
						const float v41 = p_scaling_factor[(tc)];
						const float v42 = ((v40) * (v41));
						const float v43 = tanhf(v42);
						const float v44 = p_bias[(tc)];
						const float v45 = ((v43) * (v44));
						const float v46 = (1.f / (1.f + expf(-(v45))));
						p_y[i] = v46;
					}
					if (ts + 3 < a1) {
						const long i = (tn * a0 + tc) * a1 + ts + 3;
						const float v47 = p_b[(tc)];
						const float v48 = (((ttile[trr + 3][tqq])) + (v47));
						const float v49 = p_scaling_factor[(tc)];
						const float v50 = ((v48) * (v49));
						const float v51 = tanhf(v50);
						const float v52 = p_bias[(tc)];
						const float v53 = ((v51) * (v52));
						const float v54 = (1.f / (1.f + expf(-(v53))));
						p_y[i] = v54;
					}
				}
			}
		}
		/* the tile is refilled for the next e */
		__syncthreads();
	}
}

/*@plan
buffer t6 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
# k0: library call (node 6)
call conv(x, w) -> t6 layout=nhwc_y
launch k1_map grid=(min(sm_count * 8, ((batch_size)) * cdiv((od) * (oh) * (ow), 128) * cdiv((out_channels), 64))) block=(256) args((out_channels),
    (od) * (oh) * (ow),
    cdiv((od) * (oh) * (ow), 128),
    cdiv((out_channels), 64),
    ((batch_size)) * cdiv((od) * (oh) * (ow), 128) * cdiv((out_channels), 64),
    t6,
    b,
    scaling_factor,
    bias,
    y)
@*/
