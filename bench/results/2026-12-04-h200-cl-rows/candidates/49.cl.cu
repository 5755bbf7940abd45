/*
 * krl-choice: rule.conv_bias=on row.block=256 fuse=full lib.algo=0 lib.layout=nhwc_y
 * Task level2/49_convtranspose3d_softmax_sigmoid, generated at shape set kb1; it serves every shape set.
 * fused 8 ops into 3 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 1 row (block 256, regs; 1 over a channels-last y in its memory order), 1 library (layout nhwc)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: map
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

/* Warp reductions; xor shuffles give every lane the same result. */
static __device__ __forceinline__ double krl_warp_sum(double v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

static __device__ __forceinline__ double krl_warp_prod(double v)
{
	for (int off = 16; off > 0; off >>= 1)
		v *= __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

static __device__ __forceinline__ float krl_warp_max(float v)
{
	for (int off = 16; off > 0; off >>= 1)
		v = krl_maxf(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}

static __device__ __forceinline__ float krl_warp_min(float v)
{
	for (int off = 16; off > 0; off >>= 1)
		v = krl_minf(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}

/*
 * k1 (row: a warp per row, 256 threads, rows re-read, 1 pass; rows of C contiguous in a channels-last input, one per position): nodes 5 view, 6 add, 7 max, 8 sub, 9 exp, 10 sum.
 * Writes: t7 t10.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	float *__restrict__ p_t7,
	float *__restrict__ p_t10,
	long a7)
{
	const int tid = threadIdx.x;
	const int lid = tid & 31;
	const long wpb = 8; /* warps (rows) per block */
	for (long op = (long)blockIdx.x * wpb + (tid >> 5); op < a7; op += (long)gridDim.x * wpb) {
		const long o = op / a2, c = op % a2;
		const long rb = o * a1 * a2 + c;
		const long pb = op * a1;
		/* pass 1 */
		float acc0 = -INFINITY;
		double acc1 = 0.0;
		{
			long r = lid;
			for (; r + 96 < a1; r += 128) {
				const float v2 = p_t4[(pb + r)];
				const float v3 = p_b[(r)];
				const float v4 = ((v2) + (v3));
				const float v5 = p_t4[(pb + (r + 32))];
				const float v6 = p_b[((r + 32))];
				const float v7 = ((v5) + (v6));
				const float v8 = p_t4[(pb + (r + 64))];
				const float v9 = p_b[((r + 64))];
				const float v10 = ((v8) + (v9));
				const float v11 = p_t4[(pb + (r + 96))];
				const float v12 = p_b[((r + 96))];
				const float v13 = ((v11) + (v12));
				{
					/* online: the running sum follows the running max */
					const float mn = krl_maxf(acc0, krl_maxf(krl_maxf(v4, v7), krl_maxf(v10, v13)));
					if (mn != acc0) {
						acc1 *= (double)expf(acc0 - mn);
						acc0 = mn;
					}
					if (acc0 != -INFINITY)
						acc1 += (double)((expf(v4 - acc0) + expf(v7 - acc0)) + (expf(v10 - acc0) + expf(v13 - acc0)));
				}
			}
			for (; r < a1; r += 32) {
				const float v14 = p_t4[(pb + r)];
				const float v15 = p_b[(r)];
				const float v16 = ((v14) + (v15));
				{
					/* online: the running sum follows the running max */
					const float mn = krl_maxf(acc0, v16);
					if (mn != acc0) {
						acc1 *= (double)expf(acc0 - mn);
						acc0 = mn;
					}
					if (acc0 != -INFINITY)
						acc1 += (double)expf(v16 - acc0);
				}
			}
		}
		const float r17 = krl_warp_max(acc0);
		acc1 = acc0 == -INFINITY ? 0.0 : acc1 * (double)expf(acc0 - r17);
		const float r18 = (float)krl_warp_sum(acc1);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t7[(o * a2 + c)] = r17;
			p_t10[(o * a2 + c)] = r18;
		}
	}
}

/*
 * k2 (map over a channels-last input (node 4), 8 channels per thread: 256 threads, cdiv grid): nodes 5 view, 6 add, 8 sub, 9 exp, 11 div, 12 sigmoid.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t7,
	const float *__restrict__ p_t10,
	float *__restrict__ p_y)
{
	const int tid = threadIdx.x;
	const bool tvec = (a0 & 3) == 0;
	for (long e = (long)blockIdx.x * 256 + tid; e < a3;
	     e += (long)gridDim.x * 256) {
		const long ts = krl_mod(e, a1);
		const long tq = krl_div(e, a1);
		const long tc0 = krl_mod(tq, a2) * 8;
		const long tn = krl_div(tq, a2);
		const long tbase = (tn * a1 + ts) * a0 + tc0;
		float tv[8];
		if (tvec && tc0 + 8 <= a0) {
			const float4 q0 = *reinterpret_cast<const float4 *>(p_t4 + tbase);
			const float4 q1 = *reinterpret_cast<const float4 *>(p_t4 + tbase + 4);
			tv[0] = q0.x; tv[1] = q0.y; tv[2] = q0.z; tv[3] = q0.w;
			tv[4] = q1.x; tv[5] = q1.y; tv[6] = q1.z; tv[7] = q1.w;
		} else {
			#pragma unroll
			for (int j = 0; j < 8; j++)
				tv[j] = tc0 + j < a0 ? p_t4[tbase + j] : 0.f;
		}
		if (tc0 + 0 < a0) {
			const long i = (tn * a0 + tc0 + 0) * a1 + ts;
			const float v19 = p_b[((tc0 + 0))];
			const float v20 = ((tv[0]) + (v19));
			const float v21 = p_t7[(tn * a1 + ts)];
			const float v22 = ((v20) - (v21));
			const float v23 = expf(v22);
			const float v24 = p_t10[(tn * a1 + ts)];
			const float v25 = ((v23) / (v24));
			const float v26 = (1.f / (1.f + expf(-(v25))));
			p_y[i] = v26;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v27 = p_b[((tc0 + 1))];
			const float v28 = ((tv[1]) + (v27));
			const float v29 = p_t7[(tn * a1 + ts)];
			const float v30 = ((v28) - (v29));
			const float v31 = expf(v30);
			const float v32 = p_t10[(tn * a1 + ts)];
			const float v33 = ((v31) / (v32));
			const float v34 = (1.f / (1.f + expf(-(v33))));
			p_y[i] = v34;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v35 = p_b[((tc0 + 2))];
			const float v36 = ((tv[2]) + (v35));
			const float v37 = p_t7[(tn * a1 + ts)];
			const float v38 = ((v36) - (v37));
			const float v39 = expf(v38);
			const float v40 = p_t10[(tn * a1 + ts)];
			const float v41 = ((v39) / (v40));
			const float v42 = (1.f / (1.f + expf(-(v41))));
			p_y[i] = v42;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v43 = p_b[((tc0 + 3))];
			const float v44 = ((tv[3]) + (v43));
			const float v45 = p_t7[(tn * a1 + ts)];
			const float v46 = ((v44) - (v45));
			const float v47 = expf(v46);
			const float v48 = p_t10[(tn * a1 + ts)];
			const float v49 = ((v47) / (v48));
			const float v50 = (1.f / (1.f + expf(-(v49))));
			p_y[i] = v50;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v51 = p_b[((tc0 + 4))];
			const float v52 = ((tv[4]) + (v51));
			const float v53 = p_t7[(tn * a1 + ts)];
			const float v54 = ((v52) - (v53));
			const float v55 = expf(v54);
			const float v56 = p_t10[(tn * a1 + ts)];
			const float v57 = ((v55) / (v56));
			const float v58 = (1.f / (1.f + expf(-(v57))));
			p_y[i] = v58;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v59 = p_b[((tc0 + 5))];
			const float v60 = ((tv[5]) + (v59));
			const float v61 = p_t7[(tn * a1 + ts)];
			const float v62 = ((v60) - (v61));
			const float v63 = expf(v62);
			const float v64 = p_t10[(tn * a1 + ts)];
			const float v65 = ((v63) / (v64));
			const float v66 = (1.f / (1.f + expf(-(v65))));
			p_y[i] = v66;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v67 = p_b[((tc0 + 6))];
			const float v68 = ((tv[6]) + (v67));
			const float v69 = p_t7[(tn * a1 + ts)];
			const float v70 = ((v68) - (v69));
			const float v71 = expf(v70);
			const float v72 = p_t10[(tn * a1 + ts)];
			const float v73 = ((v71) / (v72));
			const float v74 = (1.f / (1.f + expf(-(v73))));
			p_y[i] = v74;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v75 = p_b[((tc0 + 7))];
			const float v76 = ((tv[7]) + (v75));
			const float v77 = p_t7[(tn * a1 + ts)];
			const float v78 = ((v76) - (v77));
			const float v79 = expf(v78);
			const float v80 = p_t10[(tn * a1 + ts)];
			const float v81 = ((v79) / (v80));
			const float v82 = (1.f / (1.f + expf(-(v81))));
			p_y[i] = v82;
		}
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t7 f32 [(batch_size), (1), (od), (oh), (ow)]
buffer t10 f32 [(batch_size), (1), (od), (oh), (ow)]
# k0: library call (node 4)
call conv_transpose(x, w) -> t4 stride=stride padding=padding output_padding=output_padding layout=nhwc_y
launch k1_row grid=(min(cdiv((batch_size) * (od) * (oh) * (ow), 8), sm_count * 32)) block=(256) args((batch_size),
    (out_channels),
    (od) * (oh) * (ow),
    t4,
    b,
    t7,
    t10,
    (batch_size) * (od) * (oh) * (ow))
launch k2_map grid=(cdiv(((batch_size)) * cdiv((out_channels), 8) * ((od) * (oh) * (ow)), 256)) block=(256) args((out_channels),
    (od) * (oh) * (ow),
    cdiv((out_channels), 8),
    ((batch_size)) * cdiv((out_channels), 8) * ((od) * (oh) * (ow)),
    t4,
    b,
    t7,
    t10,
    y)
@*/
