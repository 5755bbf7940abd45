/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=chan8 conv.impl=lib
 * Task level2/52_conv2d_activation_batchnorm, generated at shape set kb1; it serves every shape set.
 * fused 21 ops into 6 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 4 row (block 256, regs; 2 over a channels-last y in its memory order), 1 library (layout nhwc)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: row
 *   k3: row
 *   k4: row
 *   k5: map
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
 * k1 (row over a middle axis of a channels-last input's memory, the run split into chunks of 4000 rows: pass 1 of 1, column partials to k1_part): nodes 7 view, 8 add, 10 gt, 11 exp, 12 log1p, 13 where, 14 tanh, 15 mul, 16 sum.
 * Writes: t16.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_pass1(long a0,
	long a1,
	long a2,
	double *__restrict__ p_k1_part,
	const float *__restrict__ p_t6,
	long a5,
	const float *__restrict__ p_b)
{
	__shared__ double krl_cd[8][33];
	const float v4 = 2.000000000e+01f;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 3999) / 4000;
	{
		/* block (op, column group, chunk) */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = t % nch, op = t / nch;
		const long r0 = ch * 4000;
		const long r1 = min(a1, r0 + 4000);
		const long cc = cg * 32 + tx;
		const bool valid = cc < a2;
		const long cp = valid ? cc : a2 - 1;
		const long o = op * a5 + cp % a5;
		const long rb = o * a1;
		const long pb = op * a1 * a2 + cp;
		const float v2 = p_b[(krl_mod(krl_div(rb, a1), a5))];
		/* pass 1 */
		double acc0 = 0.0;
		{
			long r = r0 + ty;
			for (; r + 24 < r1; r += 32) {
				const float v1 = p_t6[(pb + r * a2)];
				const float v3 = ((v1) + (v2));
				const float v5 = ((float)((v3) > (v4)));
				const float v6 = expf(v3);
				const float v7 = log1pf(v6);
				const float v8 = ((v5) != 0.f ? (v3) : (v7));
				const float v9 = tanhf(v8);
				const float v10 = ((v9) * (v3));
				const float v11 = p_t6[(pb + (r + 8) * a2)];
				const float v12 = ((v11) + (v2));
				const float v13 = ((float)((v12) > (v4)));
				const float v14 = expf(v12);
				const float v15 = log1pf(v14);
				const float v16 = ((v13) != 0.f ? (v12) : (v15));
				const float v17 = tanhf(v16);
				const float v18 = ((v17) * (v12));
				const float v19 = p_t6[(pb + (r + 16) * a2)];
				const float v20 = ((v19) + (v2));
				const float v21 = ((float)((v20) > (v4)));
				const float v22 = expf(v20);
				const float v23 = log1pf(v22);
				const float v24 = ((v21) != 0.f ? (v20) : (v23));
				const float v25 = tanhf(v24);
				const float v26 = ((v25) * (v20));
				const float v27 = p_t6[(pb + (r + 24) * a2)];
				const float v28 = ((v27) + (v2));
				const float v29 = ((float)((v28) > (v4)));
				const float v30 = expf(v28);
				const float v31 = log1pf(v30);
				const float v32 = ((v29) != 0.f ? (v28) : (v31));
				const float v33 = tanhf(v32);
				const float v34 = ((v33) * (v28));
				acc0 += (double)((v10 + v18) + (v26 + v34));
			}
			for (; r < r1; r += 8) {
				const float v35 = p_t6[(pb + r * a2)];
				const float v36 = ((v35) + (v2));
				const float v37 = ((float)((v36) > (v4)));
				const float v38 = expf(v36);
				const float v39 = log1pf(v38);
				const float v40 = ((v37) != 0.f ? (v36) : (v39));
				const float v41 = tanhf(v40);
				const float v42 = ((v41) * (v36));
				acc0 += (double)v42;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc0;
		__syncthreads();
		acc0 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc0 += krl_cd[k][tx];
		const float r43 = (float)acc0;
		if (ty == 0 && valid) {
			p_k1_part[((op * nch + ch) * a2 + cp) * 1 + 0] = (double)acc0;
		}
	}
}

/*
 * k1 (row over a middle axis of a channels-last input's memory, the run split into chunks of 4000 rows: the outputs): nodes 7 view, 8 add, 10 gt, 11 exp, 12 log1p, 13 where, 14 tanh, 15 mul, 16 sum.
 * Writes: t16.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_out(long a0,
	long a1,
	long a2,
	const double *__restrict__ p_k1_part,
	float *__restrict__ p_t16,
	long a5)
{
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 3999) / 4000;
	{
		/* block (op, column group, chunk); the outputs: chunk 0 only */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = 0, op = t;
		const long r0 = ch * 4000;
		const long r1 = min(a1, r0 + 4000);
		const long cc = cg * 32 + tx;
		const bool valid = cc < a2;
		const long cp = valid ? cc : a2 - 1;
		const long o = op * a5 + cp % a5;
		const long rb = o * a1;
		const long pb = op * a1 * a2 + cp;
		double acc44 = 0.0;
		for (long q = 0; q < nch; q++)
			acc44 += p_k1_part[((op * nch + q) * a2 + cp) * 1 + 0];
		const float r45 = (float)acc44;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_t16[o] = r45;
		}
	}
}

/*
 * k2 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 17 sum, 19 mul.
 * Writes: t19.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t16,
	double c4,
	float *__restrict__ p_t19)
{
	__shared__ double krl_cd[8][33];
	const float v53 = (float)c4;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	for (long blk = blockIdx.x; blk < a0 * ncb; blk += gridDim.x) {
		const long o = blk / ncb;
		const long cc = (blk % ncb) * 32 + tx;
		const bool valid = cc < a2;
		/* past the last column: compute the last one's values (in bounds), store nothing */
		const long c = valid ? cc : a2 - 1;
		const long rb = o * a1 * a2 + c;
		/* pass 1 */
		double acc46 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v47 = p_t16[(rb + r * a2)];
				const float v48 = p_t16[(rb + (r + 8) * a2)];
				const float v49 = p_t16[(rb + (r + 16) * a2)];
				const float v50 = p_t16[(rb + (r + 24) * a2)];
				acc46 += (double)((v47 + v48) + (v49 + v50));
			}
			for (; r < a1; r += 8) {
				const float v51 = p_t16[(rb + r * a2)];
				acc46 += (double)v51;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc46;
		__syncthreads();
		acc46 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc46 += krl_cd[k][tx];
		const float r52 = (float)acc46;
		/* the outputs of the row shape */
		const float v54 = ((r52) * (v53));
		if (valid && ty == 0) {
			p_t19[(o * a2 + c)] = v54;
		}
	}
}

/*
 * k3 (row over a middle axis of a channels-last input's memory, the run split into chunks of 4000 rows: pass 1 of 1, column partials to k3_part): nodes 7 view, 8 add, 10 gt, 11 exp, 12 log1p, 13 where, 14 tanh, 15 mul, 20 sub, 21 square, 22 sum.
 * Writes: t22.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_pass1(long a0,
	long a1,
	long a2,
	double *__restrict__ p_k3_part,
	const float *__restrict__ p_t6,
	long a5,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t19)
{
	__shared__ double krl_cd[8][33];
	const float v59 = 2.000000000e+01f;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 3999) / 4000;
	{
		/* block (op, column group, chunk) */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = t % nch, op = t / nch;
		const long r0 = ch * 4000;
		const long r1 = min(a1, r0 + 4000);
		const long cc = cg * 32 + tx;
		const bool valid = cc < a2;
		const long cp = valid ? cc : a2 - 1;
		const long o = op * a5 + cp % a5;
		const long rb = o * a1;
		const long pb = op * a1 * a2 + cp;
		const float v57 = p_b[(krl_mod(krl_div(rb, a1), a5))];
		const float v66 = p_t19[(krl_mod(krl_div(rb, a1), a5))];
		/* pass 1 */
		double acc55 = 0.0;
		{
			long r = r0 + ty;
			for (; r + 24 < r1; r += 32) {
				const float v56 = p_t6[(pb + r * a2)];
				const float v58 = ((v56) + (v57));
				const float v60 = ((float)((v58) > (v59)));
				const float v61 = expf(v58);
				const float v62 = log1pf(v61);
				const float v63 = ((v60) != 0.f ? (v58) : (v62));
				const float v64 = tanhf(v63);
				const float v65 = ((v64) * (v58));
				const float v67 = ((v65) - (v66));
				const float v68 = ((v67) * (v67));
				const float v69 = p_t6[(pb + (r + 8) * a2)];
				const float v70 = ((v69) + (v57));
				const float v71 = ((float)((v70) > (v59)));
				const float v72 = expf(v70);
				const float v73 = log1pf(v72);
				const float v74 = ((v71) != 0.f ? (v70) : (v73));
				const float v75 = tanhf(v74);
				const float v76 = ((v75) * (v70));
				const float v77 = ((v76) - (v66));
				const float v78 = ((v77) * (v77));
				const float v79 = p_t6[(pb + (r + 16) * a2)];
				const float v80 = ((v79) + (v57));
				const float v81 = ((float)((v80) > (v59)));
				const float v82 = expf(v80);
				const float v83 = log1pf(v82);
				const float v84 = ((v81) != 0.f ? (v80) : (v83));
				const float v85 = tanhf(v84);
				const float v86 = ((v85) * (v80));
				const float v87 = ((v86) - (v66));
				const float v88 = ((v87) * (v87));
				const float v89 = p_t6[(pb + (r + 24) * a2)];
				const float v90 = ((v89) + (v57));
				const float v91 = ((float)((v90) > (v59)));
				const float v92 = expf(v90);
				const float v93 = log1pf(v92);
				const float v94 = ((v91) != 0.f ? (v90) : (v93));
				const float v95 = tanhf(v94);
				const float v96 = ((v95) * (v90));
				const float v97 = ((v96) - (v66));
				const float v98 = ((v97) * (v97));
				acc55 += (double)((v68 + v78) + (v88 + v98));
			}
			for (; r < r1; r += 8) {
				const float v99 = p_t6[(pb + r * a2)];
				const float v100 = ((v99) + (v57));
				const float v101 = ((float)((v100) > (v59)));
				const float v102 = expf(v100);
				const float v103 = log1pf(v102);
				const float v104 = ((v101) != 0.f ? (v100) : (v103));
				const float v105 = tanhf(v104);
				const float v106 = ((v105) * (v100));
				const float v107 = ((v106) - (v66));
				const float v108 = ((v107) * (v107));
				acc55 += (double)v108;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc55;
		__syncthreads();
		acc55 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc55 += krl_cd[k][tx];
		const float r109 = (float)acc55;
		if (ty == 0 && valid) {
			p_k3_part[((op * nch + ch) * a2 + cp) * 1 + 0] = (double)acc55;
		}
	}
}

/*
 * k3 (row over a middle axis of a channels-last input's memory, the run split into chunks of 4000 rows: the outputs): nodes 7 view, 8 add, 10 gt, 11 exp, 12 log1p, 13 where, 14 tanh, 15 mul, 20 sub, 21 square, 22 sum.
 * Writes: t22.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_out(long a0,
	long a1,
	long a2,
	const double *__restrict__ p_k3_part,
	float *__restrict__ p_t22,
	long a5)
{
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 3999) / 4000;
	{
		/* block (op, column group, chunk); the outputs: chunk 0 only */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = 0, op = t;
		const long r0 = ch * 4000;
		const long r1 = min(a1, r0 + 4000);
		const long cc = cg * 32 + tx;
		const bool valid = cc < a2;
		const long cp = valid ? cc : a2 - 1;
		const long o = op * a5 + cp % a5;
		const long rb = o * a1;
		const long pb = op * a1 * a2 + cp;
		double acc110 = 0.0;
		for (long q = 0; q < nch; q++)
			acc110 += p_k3_part[((op * nch + q) * a2 + cp) * 1 + 0];
		const float r111 = (float)acc110;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_t22[o] = r111;
		}
	}
}

/*
 * k4 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 23 sum, 25 mul, 27 add, 28 rsqrt.
 * Writes: t28.
 */
extern "C" __global__ void __launch_bounds__(256)
k4_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t22,
	double c4,
	double c5,
	float *__restrict__ p_t28)
{
	__shared__ double krl_cd[8][33];
	const float v119 = (float)c4;
	const float v121 = (float)c5;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	for (long blk = blockIdx.x; blk < a0 * ncb; blk += gridDim.x) {
		const long o = blk / ncb;
		const long cc = (blk % ncb) * 32 + tx;
		const bool valid = cc < a2;
		/* past the last column: compute the last one's values (in bounds), store nothing */
		const long c = valid ? cc : a2 - 1;
		const long rb = o * a1 * a2 + c;
		/* pass 1 */
		double acc112 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v113 = p_t22[(rb + r * a2)];
				const float v114 = p_t22[(rb + (r + 8) * a2)];
				const float v115 = p_t22[(rb + (r + 16) * a2)];
				const float v116 = p_t22[(rb + (r + 24) * a2)];
				acc112 += (double)((v113 + v114) + (v115 + v116));
			}
			for (; r < a1; r += 8) {
				const float v117 = p_t22[(rb + r * a2)];
				acc112 += (double)v117;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc112;
		__syncthreads();
		acc112 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc112 += krl_cd[k][tx];
		const float r118 = (float)acc112;
		/* the outputs of the row shape */
		const float v120 = ((r118) * (v119));
		const float v122 = ((v120) + (v121));
		const float v123 = rsqrtf(v122);
		if (valid && ty == 0) {
			p_t28[(o * a2 + c)] = v123;
		}
	}
}

/*
 * k5 (map over a channels-last input (node 6), 8 channels per thread: 256 threads, cdiv grid): nodes 7 view, 8 add, 10 gt, 11 exp, 12 log1p, 13 where, 14 tanh, 15 mul, 20 sub, 29 mul, 30 view, 31 view, 32 mul, 33 add.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k5_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t6,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t19,
	const float *__restrict__ p_t28,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	float *__restrict__ p_y)
{
	const float v126 = 2.000000000e+01f;
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
			const float v124 = p_b[((tc0 + 0))];
			const float v125 = ((tv[0]) + (v124));
			const float v127 = ((float)((v125) > (v126)));
			const float v128 = expf(v125);
			const float v129 = log1pf(v128);
			const float v130 = ((v127) != 0.f ? (v125) : (v129));
			const float v131 = tanhf(v130);
			const float v132 = ((v131) * (v125));
			const float v133 = p_t19[((tc0 + 0))];
			const float v134 = ((v132) - (v133));
			const float v135 = p_t28[((tc0 + 0))];
			const float v136 = ((v134) * (v135));
			const float v137 = p_bn_w[((tc0 + 0))];
			const float v138 = ((v136) * (v137));
			const float v139 = p_bn_b[((tc0 + 0))];
			const float v140 = ((v138) + (v139));
			p_y[i] = v140;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v141 = p_b[((tc0 + 1))];
			const float v142 = ((tv[1]) + (v141));
			const float v143 = ((float)((v142) > (v126)));
			const float v144 = expf(v142);
			const float v145 = log1pf(v144);
			const float v146 = ((v143) != 0.f ? (v142) : (v145));
			const float v147 = tanhf(v146);
			const float v148 = ((v147) * (v142));
			const float v149 = p_t19[((tc0 + 1))];
			const float v150 = ((v148) - (v149));
			const float v151 = p_t28[((tc0 + 1))];
			const float v152 = ((v150) * (v151));
			const float v153 = p_bn_w[((tc0 + 1))];
			const float v154 = ((v152) * (v153));
			const float v155 = p_bn_b[((tc0 + 1))];
			const float v156 = ((v154) + (v155));
			p_y[i] = v156;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v157 = p_b[((tc0 + 2))];
			const float v158 = ((tv[2]) + (v157));
			const float v159 = ((float)((v158) > (v126)));
			const float v160 = expf(v158);
			const float v161 = log1pf(v160);
			const float v162 = ((v159) != 0.f ? (v158) : (v161));
			const float v163 = tanhf(v162);
			const float v164 = ((v163) * (v158));
			const float v165 = p_t19[((tc0 + 2))];
			const float v166 = ((v164) - (v165));
			const float v167 = p_t28[((tc0 + 2))];
			const float v168 = ((v166) * (v167));
			const float v169 = p_bn_w[((tc0 + 2))];
			const float v170 = ((v168) * (v169));
			const float v171 = p_bn_b[((tc0 + 2))];
			const float v172 = ((v170) + (v171));
			p_y[i] = v172;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v173 = p_b[((tc0 + 3))];
			const float v174 = ((tv[3]) + (v173));
			const float v175 = ((float)((v174) > (v126)));
			const float v176 = expf(v174);
			const float v177 = log1pf(v176);
			const float v178 = ((v175) != 0.f ? (v174) : (v177));
			const float v179 = tanhf(v178);
			const float v180 = ((v179) * (v174));
			const float v181 = p_t19[((tc0 + 3))];
			const float v182 = ((v180) - (v181));
			const float v183 = p_t28[((tc0 + 3))];
			const float v184 = ((v182) * (v183));
			const float v185 = p_bn_w[((tc0 + 3))];
			const float v186 = ((v184) * (v185));
			const float v187 = p_bn_b[((tc0 + 3))];
			const float v188 = ((v186) + (v187));
			p_y[i] = v188;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v189 = p_b[((tc0 + 4))];
			const float v190 = ((tv[4]) + (v189));
			const float v191 = ((float)((v190) > (v126)));
			const float v192 = expf(v190);
			const float v193 = log1pf(v192);
			const float v194 = ((v191) != 0.f ? (v190) : (v193));
			const float v195 = tanhf(v194);
			const float v196 = ((v195) * (v190));
			const float v197 = p_t19[((tc0 + 4))];
			const float v198 = ((v196) - (v197));
			const float v199 = p_t28[((tc0 + 4))];
			const float v200 = ((v198) * (v199));
			const float v201 = p_bn_w[((tc0 + 4))];
			const float v202 = ((v200) * (v201));
			const float v203 = p_bn_b[((tc0 + 4))];
			const float v204 = ((v202) + (v203));
			p_y[i] = v204;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v205 = p_b[((tc0 + 5))];
			const float v206 = ((tv[5]) + (v205));
			const float v207 = ((float)((v206) > (v126)));
			const float v208 = expf(v206);
			const float v209 = log1pf(v208);
			const float v210 = ((v207) != 0.f ? (v206) : (v209));
			const float v211 = tanhf(v210);
			const float v212 = ((v211) * (v206));
			const float v213 = p_t19[((tc0 + 5))];
			const float v214 = ((v212) - (v213));
			const float v215 = p_t28[((tc0 + 5))];
			const float v216 = ((v214) * (v215));
			const float v217 = p_bn_w[((tc0 + 5))];
			const float v218 = ((v216) * (v217));
			const float v219 = p_bn_b[((tc0 + 5))];
			const float v220 = ((v218) + (v219));
			p_y[i] = v220;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v221 = p_b[((tc0 + 6))];
			const float v222 = ((tv[6]) + (v221));
			const float v223 = ((float)((v222) > (v126)));
			const float v224 = expf(v222);
			const float v225 = log1pf(v224);
			const float v226 = ((v223) != 0.f ? (v222) : (v225));
			const float v227 = tanhf(v226);
			const float v228 = ((v227) * (v222));
			const float v229 = p_t19[((tc0 + 6))];
			const float v230 = ((v228) - (v229));
			const float v231 = p_t28[((tc0 + 6))];
			const float v232 = ((v230) * (v231));
			const float v233 = p_bn_w[((tc0 + 6))];
			const float v234 = ((v232) * (v233));
			const float v235 = p_bn_b[((tc0 + 6))];
			const float v236 = ((v234) + (v235));
			p_y[i] = v236;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v237 = p_b[((tc0 + 7))];
			const float v238 = ((tv[7]) + (v237));
			const float v239 = ((float)((v238) > (v126)));
			const float v240 = expf(v238);
			const float v241 = log1pf(v240);
			const float v242 = ((v239) != 0.f ? (v238) : (v241));
			const float v243 = tanhf(v242);
			const float v244 = ((v243) * (v238));
			const float v245 = p_t19[((tc0 + 7))];
			const float v246 = ((v244) - (v245));
			const float v247 = p_t28[((tc0 + 7))];
			const float v248 = ((v246) * (v247));
			const float v249 = p_bn_w[((tc0 + 7))];
			const float v250 = ((v248) * (v249));
			const float v251 = p_bn_b[((tc0 + 7))];
			const float v252 = ((v250) + (v251));
			p_y[i] = v252;
		}
	}
}

/*@plan
buffer k1_part f64 [(batch_size) * 1, cdiv((oh) * (ow), 4000), 1 * (out_channels), 1]
buffer k3_part f64 [(batch_size) * 1, cdiv((oh) * (ow), 4000), 1 * (out_channels), 1]
buffer t6 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t16 f32 [(batch_size), (out_channels), (1), (1)]
buffer t19 f32 [(1), (out_channels), (1), (1)]
buffer t22 f32 [(batch_size), (out_channels), (1), (1)]
buffer t28 f32 [(1), (out_channels), (1), (1)]
# k0: library call (node 6)
call conv(x, w) -> t6 layout=nhwc_y
launch k1_pass1 grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32) * cdiv((oh) * (ow), 4000)) block=(32, 8) args((batch_size) * (out_channels),
    (oh) * (ow),
    1 * (out_channels),
    k1_part,
    t6,
    (out_channels),
    b)
launch k1_out grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32)) block=(32, 8) args((batch_size) * (out_channels),
    (oh) * (ow),
    1 * (out_channels),
    k1_part,
    t16,
    (out_channels))
launch k2_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t16,
    (1.0 / (batch_size * (oh * ow))),
    t19)
launch k3_pass1 grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32) * cdiv((oh) * (ow), 4000)) block=(32, 8) args((batch_size) * (out_channels),
    (oh) * (ow),
    1 * (out_channels),
    k3_part,
    t6,
    (out_channels),
    b,
    t19)
launch k3_out grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32)) block=(32, 8) args((batch_size) * (out_channels),
    (oh) * (ow),
    1 * (out_channels),
    k3_part,
    t22,
    (out_channels))
launch k4_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t22,
    (1.0 / (batch_size * (oh * ow))),
    (eps),
    t28)
launch k5_map grid=(cdiv(((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)), 256)) block=(256) args((out_channels),
    (oh) * (ow),
    cdiv((out_channels), 8),
    ((batch_size)) * cdiv((out_channels), 8) * ((oh) * (ow)),
    t6,
    b,
    t19,
    t28,
    bn_w,
    bn_b,
    y)
@*/
