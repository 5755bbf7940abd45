/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nhwc_y
 * Task level2/34_convtranspose3d_layernorm_gelu_scaling, generated at shape set kb1; it serves every shape set.
 * fused 19 ops into 3 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 1 row (block 256, regs; 1 over a channels-last y in its memory order), 1 library (layout nhwc)
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
 * k1 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass; the columns of a channels-last input's memory (spatial positions after the reduced axes, then channels)): nodes 7 view, 8 add, 9 sum, 11 mul, 12 sub, 13 square, 14 sum, 16 mul, 18 add, 19 rsqrt.
 * Writes: t11 t19.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_col(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	const float *__restrict__ p_t6,
	const float *__restrict__ p_b,
	double c9,
	float *__restrict__ p_t11,
	double c11,
	float *__restrict__ p_t19,
	long a13)
{
	__shared__ double krl_cd[8][33];
	const float v17 = (float)c9;
	const float v23 = (float)c9;
	const float v25 = (float)c11;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a3 + 31) / 32;
	for (long blk = blockIdx.x; blk < a2 * ncb; blk += gridDim.x) {
		const long op = blk / ncb;
		const long cc = (blk % ncb) * 32 + tx;
		const bool valid = cc < a3;
		/* past the last column: compute the last one's values (in bounds), store nothing */
		const long cp = valid ? cc : a3 - 1;
		const long o = ((op / a13) * a4 + cp % a4) * a13 + op % a13;
		const long rb = o * a1;
		const long pb = op * a1 * a3 + cp;
		const float v0 = p_t6[((krl_div((rb + 0), a6) * a5 + krl_mod((rb + 0), a5)) * a4 + krl_mod(krl_div((rb + 0), a5), a4))];
		const float v1 = p_b[(krl_mod(krl_div(rb, a5), a4))];
		const float v2 = ((v0) + (v1));
		/* pass 1 */
		double acc3 = 0.0;
		double acc4 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v5 = p_t6[(pb + r * a3)];
				const float v6 = ((v5) + (v1));
				const float v7 = p_t6[(pb + (r + 8) * a3)];
				const float v8 = ((v7) + (v1));
				const float v9 = p_t6[(pb + (r + 16) * a3)];
				const float v10 = ((v9) + (v1));
				const float v11 = p_t6[(pb + (r + 24) * a3)];
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
				const float v13 = p_t6[(pb + r * a3)];
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
			p_t11[o] = v22;
			p_t19[o] = v27;
		}
	}
}

/*
 * k2 (map over a channels-last input (node 6), 8 channels per thread: 256 threads, cdiv grid): nodes 7 view, 8 add, 12 sub, 20 mul, 21 mul, 22 add, 26 div, 27 erf, 28 add, 29 mul, 30 mul, 32 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t6,
	long a5,
	long a6,
	const float *__restrict__ p_b,
	long a8,
	long a9,
	const float *__restrict__ p_t11,
	const float *__restrict__ p_t19,
	long a12,
	const float *__restrict__ p_ln_w,
	const float *__restrict__ p_ln_b,
	double c15,
	double c16,
	float *__restrict__ p_y)
{
	const float v28 = 5.000000000e-01f;
	const float v40 = 1.000000000e+00f;
	const float v41 = (float)c15;
	const float v46 = (float)c16;
	const int tid = threadIdx.x;
	const bool tvec = (a0 & 3) == 0;
	for (long e = (long)blockIdx.x * 256 + tid; e < a3;
	     e += (long)gridDim.x * 256) {
		const long ts = krl_mod(e, a1);
		const long tq = krl_div(e, a1);
		const long tc0 = krl_mod(tq, a2) * 8;
		const long tn = krl_div(tq, a2);
		const long tbase = (tn * a1 + ts) * a0 + tc0;
		const long ts4 = krl_mod(ts, a5), tq4 = krl_div(ts, a5);
		const long ts3 = krl_mod(tq4, a6), tq3 = krl_div(tq4, a6);
		float tv[8];
		if (tvec && tc0 + 8 <= a0) {
			const float4 q0 = *reinterpret_cast<const float4 *>(p_t6 + tbase);
			const float4 q1 = *reinterpret_cast<const float4 *>(p_t6 + tbase + 4);
			tv[0] = q0.x; tv[1] = q0.y; tv[2] = q0.z; tv[3] = q0.w;
			tv[4] = q1.x; tv[5] = q1.y; tv[6] = q1.z; tv[7] = q1.w;
		} else {
			#pragma unroll
			for (int j = 0; j < 8; j++)
				tv[j] = tc0 + j < a0 ? p_t6[tbase + j] : 0.f;
		}
		if (tc0 + 0 < a0) {
			const long i = (tn * a0 + tc0 + 0) * a1 + ts;
			const float v29 = p_b[((tc0 + 0))];
			const float v30 = ((tv[0]) + (v29));
			const float v31 = p_t11[(tn * a8 + (tc0 + 0) * a9 + tq3 * a6 + ts3)];
			const float v32 = ((v30) - (v31));
			const float v33 = p_t19[(tn * a8 + (tc0 + 0) * a9 + tq3 * a6 + ts3)];
			const float v34 = ((v32) * (v33));
			const float v35 = p_ln_w[(krl_mod(i, a5) * a12)];
			const float v36 = ((v34) * (v35));
			const float v37 = p_ln_b[(krl_mod(i, a5) * a12)];
			const float v38 = ((v36) + (v37));
			const float v39 = ((v28) * (v38));
			const float v42 = ((v38) / (v41));
			const float v43 = erff(v42);
			const float v44 = ((v40) + (v43));
			const float v45 = ((v39) * (v44));
			const float v47 = ((v45) * (v46));
			p_y[i] = v47;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v48 = p_b[((tc0 + 1))];
			const float v49 = ((tv[1]) + (v48));
			const float v50 = p_t11[(tn * a8 + (tc0 + 1) * a9 + tq3 * a6 + ts3)];
			const float v51 = ((v49) - (v50));
			const float v52 = p_t19[(tn * a8 + (tc0 + 1) * a9 + tq3 * a6 + ts3)];
			const float v53 = ((v51) * (v52));
			const float v54 = p_ln_w[(krl_mod(i, a5) * a12)];
			const float v55 = ((v53) * (v54));
			const float v56 = p_ln_b[(krl_mod(i, a5) * a12)];
			const float v57 = ((v55) + (v56));
			const float v58 = ((v28) * (v57));
			const float v59 = ((v57) / (v41));
			const float v60 = erff(v59);
			const float v61 = ((v40) + (v60));
			const float v62 = ((v58) * (v61));
			const float v63 = ((v62) * (v46));
			p_y[i] = v63;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v64 = p_b[((tc0 + 2))];
			const float v65 = ((tv[2]) + (v64));
			const float v66 = p_t11[(tn * a8 + (tc0 + 2) * a9 + tq3 * a6 + ts3)];
			const float v67 = ((v65) - (v66));
			const float v68 = p_t19[(tn * a8 + (tc0 + 2) * a9 + tq3 * a6 + ts3)];
			const float v69 = ((v67) * (v68));
			const float v70 = p_ln_w[(krl_mod(i, a5) * a12)];
			const float v71 = ((v69) * (v70));
			const float v72 = p_ln_b[(krl_mod(i, a5) * a12)];
			const float v73 = ((v71) + (v72));
			const float v74 = ((v28) * (v73));
			const float v75 = ((v73) / (v41));
			const float v76 = erff(v75);
			const float v77 = ((v40) + (v76));
			const float v78 = ((v74) * (v77));
			const float v79 = ((v78) * (v46));
			p_y[i] = v79;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v80 = p_b[((tc0 + 3))];
			const float v81 = ((tv[3]) + (v80));
			const float v82 = p_t11[(tn * a8 + (tc0 + 3) * a9 + tq3 * a6 + ts3)];
			const float v83 = ((v81) - (v82));
			const float v84 = p_t19[(tn * a8 + (tc0 + 3) * a9 + tq3 * a6 + ts3)];
			const float v85 = ((v83) * (v84));
			const float v86 = p_ln_w[(krl_mod(i, a5) * a12)];
			const float v87 = ((v85) * (v86));
			const float v88 = p_ln_b[(krl_mod(i, a5) * a12)];
			const float v89 = ((v87) + (v88));
			const float v90 = ((v28) * (v89));
			const float v91 = ((v89) / (v41));
			const float v92 = erff(v91);
			const float v93 = ((v40) + (v92));
			const float v94 = ((v90) * (v93));
			const float v95 = ((v94) * (v46));
			p_y[i] = v95;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v96 = p_b[((tc0 + 4))];
			const float v97 = ((tv[4]) + (v96));
			const float v98 = p_t11[(tn * a8 + (tc0 + 4) * a9 + tq3 * a6 + ts3)];
			const float v99 = ((v97) - (v98));
			const float v100 = p_t19[(tn * a8 + (tc0 + 4) * a9 + tq3 * a6 + ts3)];
			const float v101 = ((v99) * (v100));
			const float v102 = p_ln_w[(krl_mod(i, a5) * a12)];
			const float v103 = ((v101) * (v102));
			const float v104 = p_ln_b[(krl_mod(i, a5) * a12)];
			const float v105 = ((v103) + (v104));
			const float v106 = ((v28) * (v105));
			const float v107 = ((v105) / (v41));
			const float v108 = erff(v107);
			const float v109 = ((v40) + (v108));
			const float v110 = ((v106) * (v109));
			const float v111 = ((v110) * (v46));
			p_y[i] = v111;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v112 = p_b[((tc0 + 5))];
			const float v113 = ((tv[5]) + (v112));
			const float v114 = p_t11[(tn * a8 + (tc0 + 5) * a9 + tq3 * a6 + ts3)];
			const float v115 = ((v113) - (v114));
			const float v116 = p_t19[(tn * a8 + (tc0 + 5) * a9 + tq3 * a6 + ts3)];
			const float v117 = ((v115) * (v116));
			const float v118 = p_ln_w[(krl_mod(i, a5) * a12)];
			const float v119 = ((v117) * (v118));
			const float v120 = p_ln_b[(krl_mod(i, a5) * a12)];
			const float v121 = ((v119) + (v120));
			const float v122 = ((v28) * (v121));
			const float v123 = ((v121) / (v41));
			const float v124 = erff(v123);
			const float v125 = ((v40) + (v124));
			const float v126 = ((v122) * (v125));
			const float v127 = ((v126) * (v46));
			p_y[i] = v127;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v128 = p_b[((tc0 + 6))];
			const float v129 = ((tv[6]) + (v128));
			const float v130 = p_t11[(tn * a8 + (tc0 + 6) * a9 + tq3 * a6 + ts3)];
			const float v131 = ((v129) - (v130));
			const float v132 = p_t19[(tn * a8 + (tc0 + 6) * a9 + tq3 * a6 + ts3)];
			const float v133 = ((v131) * (v132));
			const float v134 = p_ln_w[(krl_mod(i, a5) * a12)];
			const float v135 = ((v133) * (v134));
			const float v136 = p_ln_b[(krl_mod(i, a5) * a12)];
			const float v137 = ((v135) + (v136));
			const float v138 = ((v28) * (v137));
			const float v139 = ((v137) / (v41));
			const float v140 = erff(v139);
			const float v141 = ((v40) + (v140));
			const float v142 = ((v138) * (v141));
			const float v143 = ((v142) * (v46));
			p_y[i] = v143;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v144 = p_b[((tc0 + 7))];
			const float v145 = ((tv[7]) + (v144));
			const float v146 = p_t11[(tn * a8 + (tc0 + 7) * a9 + tq3 * a6 + ts3)];
			const float v147 = ((v145) - (v146));
			const float v148 = p_t19[(tn * a8 + (tc0 + 7) * a9 + tq3 * a6 + ts3)];
			const float v149 = ((v147) * (v148));
			const float v150 = p_ln_w[(krl_mod(i, a5) * a12)];
			const float v151 = ((v149) * (v150));
			const float v152 = p_ln_b[(krl_mod(i, a5) * a12)];
			const float v153 = ((v151) + (v152));
			const float v154 = ((v28) * (v153));
			const float v155 = ((v153) / (v41));
			const float v156 = erff(v155);
			const float v157 = ((v40) + (v156));
			const float v158 = ((v154) * (v157));
			const float v159 = ((v158) * (v46));
			p_y[i] = v159;
		}
	}
}

/*@plan
buffer t6 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t11 f32 [(batch_size), (out_channels), (od), (oh), (1)]
buffer t19 f32 [(batch_size), (out_channels), (od), (oh), (1)]
# k0: library call (node 6)
call conv_transpose(x, w) -> t6 stride=stride padding=padding layout=nhwc_y
launch k1_col grid=(min(((batch_size) * (od) * (oh)) * cdiv(1 * (out_channels), 32), sm_count * 32)) block=(32, 8) args((batch_size) * (out_channels) * (od) * (oh),
    (ow),
    (batch_size) * (od) * (oh),
    1 * (out_channels),
    (out_channels),
    (od) * (oh) * (ow),
    (out_channels) * (od) * (oh) * (ow),
    t6,
    b,
    (1.0 / (ow)),
    t11,
    (eps),
    t19,
    (od) * (oh))
launch k2_map grid=(cdiv(((batch_size)) * cdiv((out_channels), 8) * ((od) * (oh) * (ow)), 256)) block=(256) args((out_channels),
    (od) * (oh) * (ow),
    cdiv((out_channels), 8),
    ((batch_size)) * cdiv((out_channels), 8) * ((od) * (oh) * (ow)),
    t6,
    (ow),
    (oh),
    b,
    (out_channels) * (od) * (oh),
    (od) * (oh),
    t11,
    t19,
    (min((out_channels), 2) - 1) * 1,
    ln_w,
    ln_b,
    (sqrt(2.0)),
    (scaling_factor),
    y)
@*/
