/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nhwc_y conv.impl=lib
 * Task level2/17_conv2d_instancenorm_divide, generated at shape set kb1; it serves every shape set.
 * fused 12 ops into 3 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 1 row (block 256, regs; 1 over a channels-last y in its memory order), 1 library (layout nhwc)
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

/*
 * k1 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass; the columns of a channels-last input's memory (spatial positions after the reduced axes, then channels)): nodes 5 view, 6 add, 7 sum, 9 mul, 10 sub, 11 square, 12 sum, 14 mul, 16 add, 17 rsqrt.
 * Writes: t9 t17.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_col(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	double c8,
	float *__restrict__ p_t9,
	double c10,
	float *__restrict__ p_t17)
{
	__shared__ double krl_cd[8][33];
	const float v17 = (float)c8;
	const float v23 = (float)c8;
	const float v25 = (float)c10;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a3 + 31) / 32;
	for (long blk = blockIdx.x; blk < a2 * ncb; blk += gridDim.x) {
		const long op = blk / ncb;
		const long cc = (blk % ncb) * 32 + tx;
		const bool valid = cc < a3;
		/* past the last column: compute the last one's values (in bounds), store nothing */
		const long cp = valid ? cc : a3 - 1;
		const long o = op * a4 + cp % a4;
		const long rb = o * a1;
		const long pb = op * a1 * a3 + cp;
		const float v0 = p_t4[((krl_div((rb + 0), a5) * a1 + krl_mod((rb + 0), a1)) * a4 + krl_mod(krl_div((rb + 0), a1), a4))];
		const float v1 = p_b[(krl_mod(krl_div(rb, a1), a4))];
		const float v2 = ((v0) + (v1));
		/* pass 1 */
		double acc3 = 0.0;
		double acc4 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v5 = p_t4[(pb + r * a3)];
				const float v6 = ((v5) + (v1));
				const float v7 = p_t4[(pb + (r + 8) * a3)];
				const float v8 = ((v7) + (v1));
				const float v9 = p_t4[(pb + (r + 16) * a3)];
				const float v10 = ((v9) + (v1));
				const float v11 = p_t4[(pb + (r + 24) * a3)];
				const float v12 = ((v11) + (v1));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v6 - v2;
					const float d1 = v8 - v2;
					const float d2 = v10 - v2;
					const float d3 = v12 - v2;
					acc3 += (double)((d0 + d1) + (d2 + d3));
					acc4 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
				}
			}
			for (; r < a1; r += 8) {
				const float v13 = p_t4[(pb + r * a3)];
				const float v14 = ((v13) + (v1));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = v14 - v2;
					acc3 += (double)d0;
					acc4 += (double)(d0 * d0);
				}
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc3;
		__syncthreads();
		acc3 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc3 += krl_cd[k][tx];
		const float r15 = (float)acc3;
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc4;
		__syncthreads();
		acc4 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc4 += krl_cd[k][tx];
		const float r16 = (float)acc4;
		const float r18 = (float)(acc3 + (double)a1 * (double)v2);
		const float m20 = r18 * v17;
		const double dm21 = (double)m20 - (double)v2;
		const float r19 = (float)fmax(acc4 - 2.0 * dm21 * acc3 + (double)a1 * dm21 * dm21, 0.0);
		/* the outputs of the row shape */
		const float v22 = ((r18) * (v17));
		const float v24 = ((r19) * (v23));
		const float v26 = ((v24) + (v25));
		const float v27 = rsqrtf(v26);
		if (valid && ty == 0) {
			p_t9[o] = v22;
			p_t17[o] = v27;
		}
	}
}

/*
 * k2 (map over a channels-last input (node 4), 8 channels per thread: 256 threads, cdiv grid): nodes 5 view, 6 add, 10 sub, 18 mul, 20 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t4,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t9,
	const float *__restrict__ p_t17,
	float *__restrict__ p_y)
{
	const float v34 = 5.000000000e-01f;
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
			const float v28 = p_b[((tc0 + 0))];
			const float v29 = ((tv[0]) + (v28));
			const float v30 = p_t9[(tn * a0 + (tc0 + 0))];
			const float v31 = ((v29) - (v30));
			const float v32 = p_t17[(tn * a0 + (tc0 + 0))];
			const float v33 = ((v31) * (v32));
			const float v35 = ((v33) * (v34));
			p_y[i] = v35;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v36 = p_b[((tc0 + 1))];
			const float v37 = ((tv[1]) + (v36));
			const float v38 = p_t9[(tn * a0 + (tc0 + 1))];
			const float v39 = ((v37) - (v38));
			const float v40 = p_t17[(tn * a0 + (tc0 + 1))];
			const float v41 = ((v39) * (v40));
			const float v42 = ((v41) * (v34));
			p_y[i] = v42;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v43 = p_b[((tc0 + 2))];
			const float v44 = ((tv[2]) + (v43));
			const float v45 = p_t9[(tn * a0 + (tc0 + 2))];
			const float v46 = ((v44) - (v45));
			const float v47 = p_t17[(tn * a0 + (tc0 + 2))];
			const float v48 = ((v46) * (v47));
			const float v49 = ((v48) * (v34));
			p_y[i] = v49;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v50 = p_b[((tc0 + 3))];
			const float v51 = ((tv[3]) + (v50));
			const float v52 = p_t9[(tn * a0 + (tc0 + 3))];
			const float v53 = ((v51) - (v52));
			const float v54 = p_t17[(tn * a0 + (tc0 + 3))];
			const float v55 = ((v53) * (v54));
			const float v56 = ((v55) * (v34));
			p_y[i] = v56;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v57 = p_b[((tc0 + 4))];
			const float v58 = ((tv[4]) + (v57));
			const float v59 = p_t9[(tn * a0 + (tc0 + 4))];
			const float v60 = ((v58) - (v59));
			const float v61 = p_t17[(tn * a0 + (tc0 + 4))];
			const float v62 = ((v60) * (v61));
			const float v63 = ((v62) * (v34));
			p_y[i] = v63;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v64 = p_b[((tc0 + 5))];
			const float v65 = ((tv[5]) + (v64));
			const float v66 = p_t9[(tn * a0 + (tc0 + 5))];
			const float v67 = ((v65) - (v66));
			const float v68 = p_t17[(tn * a0 + (tc0 + 5))];
			const float v69 = ((v67) * (v68));
			const float v70 = ((v69) * (v34));
			p_y[i] = v70;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v71 = p_b[((tc0 + 6))];
			const float v72 = ((tv[6]) + (v71));
			const float v73 = p_t9[(tn * a0 + (tc0 + 6))];
			const float v74 = ((v72) - (v73));
			const float v75 = p_t17[(tn * a0 + (tc0 + 6))];
			const float v76 = ((v74) * (v75));
			const float v77 = ((v76) * (v34));
			p_y[i] = v77;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v78 = p_b[((tc0 + 7))];
			const float v79 = ((tv[7]) + (v78));
			const float v80 = p_t9[(tn * a0 + (tc0 + 7))];
			const float v81 = ((v79) - (v80));
			const float v82 = p_t17[(tn * a0 + (tc0 + 7))];
			const float v83 = ((v81) * (v82));
			const float v84 = ((v83) * (v34));
			p_y[i] = v84;
		}
	}
}

/*@plan
buffer t4 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t9 f32 [(batch_size), (out_channels), (1), (1)]
buffer t17 f32 [(batch_size), (out_channels), (1), (1)]
# k0: library call (node 4)
call conv(x, w) -> t4 layout=nhwc_y
launch k1_col grid=(min(((batch_size) * 1) * cdiv(1 * (out_channels), 32), sm_count * 32)) block=(32, 8) args((batch_size) * (out_channels),
    (oh) * (ow),
    (batch_size) * 1,
    1 * (out_channels),
    (out_channels),
    (out_channels) * (oh) * (ow),
    t4,
    b,
    (1.0 / (oh * ow)),
    t9,
    (eps),
    t17)
launch k2_map grid=(cdiv(((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)), 256)) block=(256) args((out_channels),
    (oh) * (ow),
    cdiv((out_channels), 8),
    ((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)),
    t4,
    b,
    t9,
    t17,
    y)
@*/
