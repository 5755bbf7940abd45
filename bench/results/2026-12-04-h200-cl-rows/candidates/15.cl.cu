/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=chan8
 * Task level2/15_convtranspose3d_batchnorm_subtract, generated at shape set kb1; it serves every shape set.
 * fused 18 ops into 7 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 5 row (block 256, regs; 3 over a channels-last y in its memory order), 1 library (layout nhwc)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: row
 *   k3: row
 *   k4: row
 *   k5: row
 *   k6: map
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
 * k1 (row over a middle axis of a channels-last input's memory, the run split into chunks of 1952 rows: pass 1 of 1, column partials to k1_part): nodes 7 view, 8 add, 9 sum.
 * Writes: t9.
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
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 1951) / 1952;
	{
		/* block (op, column group, chunk) */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = t % nch, op = t / nch;
		const long r0 = ch * 1952;
		const long r1 = min(a1, r0 + 1952);
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
				const float v4 = p_t6[(pb + (r + 8) * a2)];
				const float v5 = ((v4) + (v2));
				const float v6 = p_t6[(pb + (r + 16) * a2)];
				const float v7 = ((v6) + (v2));
				const float v8 = p_t6[(pb + (r + 24) * a2)];
				const float v9 = ((v8) + (v2));
				acc0 += (double)((v3 + v5) + (v7 + v9));
			}
			for (; r < r1; r += 8) {
				const float v10 = p_t6[(pb + r * a2)];
				const float v11 = ((v10) + (v2));
				acc0 += (double)v11;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc0;
		__syncthreads();
		acc0 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc0 += krl_cd[k][tx];
		const float r12 = (float)acc0;
		if (ty == 0 && valid) {
			p_k1_part[((op * nch + ch) * a2 + cp) * 1 + 0] = (double)acc0;
		}
	}
}

/*
 * k1 (row over a middle axis of a channels-last input's memory, the run split into chunks of 1952 rows: the outputs): nodes 7 view, 8 add, 9 sum.
 * Writes: t9.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_out(long a0,
	long a1,
	long a2,
	const double *__restrict__ p_k1_part,
	float *__restrict__ p_t9,
	long a5)
{
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 1951) / 1952;
	{
		/* block (op, column group, chunk); the outputs: chunk 0 only */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = 0, op = t;
		const long r0 = ch * 1952;
		const long r1 = min(a1, r0 + 1952);
		const long cc = cg * 32 + tx;
		const bool valid = cc < a2;
		const long cp = valid ? cc : a2 - 1;
		const long o = op * a5 + cp % a5;
		const long rb = o * a1;
		const long pb = op * a1 * a2 + cp;
		double acc13 = 0.0;
		for (long q = 0; q < nch; q++)
			acc13 += p_k1_part[((op * nch + q) * a2 + cp) * 1 + 0];
		const float r14 = (float)acc13;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_t9[o] = r14;
		}
	}
}

/*
 * k2 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 10 sum, 12 mul.
 * Writes: t12.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t9,
	double c4,
	float *__restrict__ p_t12)
{
	__shared__ double krl_cd[8][33];
	const float v22 = (float)c4;
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
		double acc15 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v16 = p_t9[(rb + r * a2)];
				const float v17 = p_t9[(rb + (r + 8) * a2)];
				const float v18 = p_t9[(rb + (r + 16) * a2)];
				const float v19 = p_t9[(rb + (r + 24) * a2)];
				acc15 += (double)((v16 + v17) + (v18 + v19));
			}
			for (; r < a1; r += 8) {
				const float v20 = p_t9[(rb + r * a2)];
				acc15 += (double)v20;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc15;
		__syncthreads();
		acc15 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc15 += krl_cd[k][tx];
		const float r21 = (float)acc15;
		/* the outputs of the row shape */
		const float v23 = ((r21) * (v22));
		if (valid && ty == 0) {
			p_t12[(o * a2 + c)] = v23;
		}
	}
}

/*
 * k3 (row over a middle axis of a channels-last input's memory, the run split into chunks of 1952 rows: pass 1 of 1, column partials to k3_part): nodes 7 view, 8 add, 13 sub, 14 square, 15 sum.
 * Writes: t15.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_pass1(long a0,
	long a1,
	long a2,
	double *__restrict__ p_k3_part,
	const float *__restrict__ p_t6,
	long a5,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t12)
{
	__shared__ double krl_cd[8][33];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 1951) / 1952;
	{
		/* block (op, column group, chunk) */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = t % nch, op = t / nch;
		const long r0 = ch * 1952;
		const long r1 = min(a1, r0 + 1952);
		const long cc = cg * 32 + tx;
		const bool valid = cc < a2;
		const long cp = valid ? cc : a2 - 1;
		const long o = op * a5 + cp % a5;
		const long rb = o * a1;
		const long pb = op * a1 * a2 + cp;
		const float v26 = p_b[(krl_mod(krl_div(rb, a1), a5))];
		const float v28 = p_t12[(krl_mod(krl_div(rb, a1), a5))];
		/* pass 1 */
		double acc24 = 0.0;
		{
			long r = r0 + ty;
			for (; r + 24 < r1; r += 32) {
				const float v25 = p_t6[(pb + r * a2)];
				const float v27 = ((v25) + (v26));
				const float v29 = ((v27) - (v28));
				const float v30 = ((v29) * (v29));
				const float v31 = p_t6[(pb + (r + 8) * a2)];
				const float v32 = ((v31) + (v26));
				const float v33 = ((v32) - (v28));
				const float v34 = ((v33) * (v33));
				const float v35 = p_t6[(pb + (r + 16) * a2)];
				const float v36 = ((v35) + (v26));
				const float v37 = ((v36) - (v28));
				const float v38 = ((v37) * (v37));
				const float v39 = p_t6[(pb + (r + 24) * a2)];
				const float v40 = ((v39) + (v26));
				const float v41 = ((v40) - (v28));
				const float v42 = ((v41) * (v41));
				acc24 += (double)((v30 + v34) + (v38 + v42));
			}
			for (; r < r1; r += 8) {
				const float v43 = p_t6[(pb + r * a2)];
				const float v44 = ((v43) + (v26));
				const float v45 = ((v44) - (v28));
				const float v46 = ((v45) * (v45));
				acc24 += (double)v46;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc24;
		__syncthreads();
		acc24 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc24 += krl_cd[k][tx];
		const float r47 = (float)acc24;
		if (ty == 0 && valid) {
			p_k3_part[((op * nch + ch) * a2 + cp) * 1 + 0] = (double)acc24;
		}
	}
}

/*
 * k3 (row over a middle axis of a channels-last input's memory, the run split into chunks of 1952 rows: the outputs): nodes 7 view, 8 add, 13 sub, 14 square, 15 sum.
 * Writes: t15.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_out(long a0,
	long a1,
	long a2,
	const double *__restrict__ p_k3_part,
	float *__restrict__ p_t15,
	long a5)
{
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 1951) / 1952;
	{
		/* block (op, column group, chunk); the outputs: chunk 0 only */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = 0, op = t;
		const long r0 = ch * 1952;
		const long r1 = min(a1, r0 + 1952);
		const long cc = cg * 32 + tx;
		const bool valid = cc < a2;
		const long cp = valid ? cc : a2 - 1;
		const long o = op * a5 + cp % a5;
		const long rb = o * a1;
		const long pb = op * a1 * a2 + cp;
		double acc48 = 0.0;
		for (long q = 0; q < nch; q++)
			acc48 += p_k3_part[((op * nch + q) * a2 + cp) * 1 + 0];
		const float r49 = (float)acc48;
		/* the outputs of the row shape */
		if (valid && ty == 0) {
			p_t15[o] = r49;
		}
	}
}

/*
 * k4 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 16 sum, 18 mul, 20 add, 21 rsqrt.
 * Writes: t21.
 */
extern "C" __global__ void __launch_bounds__(256)
k4_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t15,
	double c4,
	double c5,
	float *__restrict__ p_t21)
{
	__shared__ double krl_cd[8][33];
	const float v57 = (float)c4;
	const float v59 = (float)c5;
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
		double acc50 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v51 = p_t15[(rb + r * a2)];
				const float v52 = p_t15[(rb + (r + 8) * a2)];
				const float v53 = p_t15[(rb + (r + 16) * a2)];
				const float v54 = p_t15[(rb + (r + 24) * a2)];
				acc50 += (double)((v51 + v52) + (v53 + v54));
			}
			for (; r < a1; r += 8) {
				const float v55 = p_t15[(rb + r * a2)];
				acc50 += (double)v55;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc50;
		__syncthreads();
		acc50 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc50 += krl_cd[k][tx];
		const float r56 = (float)acc50;
		/* the outputs of the row shape */
		const float v58 = ((r56) * (v57));
		const float v60 = ((v58) + (v59));
		const float v61 = rsqrtf(v60);
		if (valid && ty == 0) {
			p_t21[(o * a2 + c)] = v61;
		}
	}
}

/*
 * k5 (row over a middle axis of a channels-last input's memory, the run split into chunks of 1952 rows: pass 1 of 1, column partials to k5_part): nodes 7 view, 8 add, 13 sub, 22 mul, 23 view, 24 view, 25 mul, 26 add, 27 view, 28 sum, 30 mul, 31 view.
 * Writes: t31.
 */
extern "C" __global__ void __launch_bounds__(256)
k5_pass1(long a0,
	long a1,
	long a2,
	double *__restrict__ p_k5_part,
	const float *__restrict__ p_t6,
	long a5,
	long a6,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t12,
	const float *__restrict__ p_t21,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b)
{
	__shared__ double krl_cd[8][33];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 1951) / 1952;
	{
		/* block (op, column group, chunk) */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = t % nch, op = t / nch;
		const long r0 = ch * 1952;
		const long r1 = min(a1, r0 + 1952);
		const long cc = cg * 32 + tx;
		const bool valid = cc < a2;
		const long cp = valid ? cc : a2 - 1;
		const long o = op * a6 + cp % a6;
		const long rb = o * a1;
		const long pb = op * a1 * a2 + cp;
		/* pass 1 */
		double acc62 = 0.0;
		{
			long r = r0 + ty;
			for (; r + 24 < r1; r += 32) {
				const float v63 = p_t6[(pb + r * a2)];
				const float v64 = p_b[(krl_mod(krl_div((rb + r), a5), a6))];
				const float v65 = ((v63) + (v64));
				const float v66 = p_t12[(krl_mod(krl_div((rb + r), a5), a6))];
				const float v67 = ((v65) - (v66));
				const float v68 = p_t21[(krl_mod(krl_div((rb + r), a5), a6))];
				const float v69 = ((v67) * (v68));
				const float v70 = p_bn_w[(krl_mod(krl_div((rb + r), a5), a6))];
				const float v71 = ((v69) * (v70));
				const float v72 = p_bn_b[(krl_mod(krl_div((rb + r), a5), a6))];
				const float v73 = ((v71) + (v72));
				const float v74 = p_t6[(pb + (r + 8) * a2)];
				const float v75 = p_b[(krl_mod(krl_div((rb + (r + 8)), a5), a6))];
				const float v76 = ((v74) + (v75));
				const float v77 = p_t12[(krl_mod(krl_div((rb + (r + 8)), a5), a6))];
				const float v78 = ((v76) - (v77));
				const float v79 = p_t21[(krl_mod(krl_div((rb + (r + 8)), a5), a6))];
				const float v80 = ((v78) * (v79));
				const float v81 = p_bn_w[(krl_mod(krl_div((rb + (r + 8)), a5), a6))];
				const float v82 = ((v80) * (v81));
				const float v83 = p_bn_b[(krl_mod(krl_div((rb + (r + 8)), a5), a6))];
				const float v84 = ((v82) + (v83));
				const float v85 = p_t6[(pb + (r + 16) * a2)];
				const float v86 = p_b[(krl_mod(krl_div((rb + (r + 16)), a5), a6))];
				const float v87 = ((v85) + (v86));
				const float v88 = p_t12[(krl_mod(krl_div((rb + (r + 16)), a5), a6))];
				const float v89 = ((v87) - (v88));
				const float v90 = p_t21[(krl_mod(krl_div((rb + (r + 16)), a5), a6))];
				const float v91 = ((v89) * (v90));
				const float v92 = p_bn_w[(krl_mod(krl_div((rb + (r + 16)), a5), a6))];
				const float v93 = ((v91) * (v92));
				const float v94 = p_bn_b[(krl_mod(krl_div((rb + (r + 16)), a5), a6))];
				const float v95 = ((v93) + (v94));
				const float v96 = p_t6[(pb + (r + 24) * a2)];
				const float v97 = p_b[(krl_mod(krl_div((rb + (r + 24)), a5), a6))];
				const float v98 = ((v96) + (v97));
				const float v99 = p_t12[(krl_mod(krl_div((rb + (r + 24)), a5), a6))];
				const float v100 = ((v98) - (v99));
				const float v101 = p_t21[(krl_mod(krl_div((rb + (r + 24)), a5), a6))];
				const float v102 = ((v100) * (v101));
				const float v103 = p_bn_w[(krl_mod(krl_div((rb + (r + 24)), a5), a6))];
				const float v104 = ((v102) * (v103));
				const float v105 = p_bn_b[(krl_mod(krl_div((rb + (r + 24)), a5), a6))];
				const float v106 = ((v104) + (v105));
				acc62 += (double)((v73 + v84) + (v95 + v106));
			}
			for (; r < r1; r += 8) {
				const float v107 = p_t6[(pb + r * a2)];
				const float v108 = p_b[(krl_mod(krl_div((rb + r), a5), a6))];
				const float v109 = ((v107) + (v108));
				const float v110 = p_t12[(krl_mod(krl_div((rb + r), a5), a6))];
				const float v111 = ((v109) - (v110));
				const float v112 = p_t21[(krl_mod(krl_div((rb + r), a5), a6))];
				const float v113 = ((v111) * (v112));
				const float v114 = p_bn_w[(krl_mod(krl_div((rb + r), a5), a6))];
				const float v115 = ((v113) * (v114));
				const float v116 = p_bn_b[(krl_mod(krl_div((rb + r), a5), a6))];
				const float v117 = ((v115) + (v116));
				acc62 += (double)v117;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc62;
		__syncthreads();
		acc62 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc62 += krl_cd[k][tx];
		const float r118 = (float)acc62;
		if (ty == 0 && valid) {
			p_k5_part[((op * nch + ch) * a2 + cp) * 1 + 0] = (double)acc62;
		}
	}
}

/*
 * k5 (row over a middle axis of a channels-last input's memory, the run split into chunks of 1952 rows: the outputs): nodes 7 view, 8 add, 13 sub, 22 mul, 23 view, 24 view, 25 mul, 26 add, 27 view, 28 sum, 30 mul, 31 view.
 * Writes: t31.
 */
extern "C" __global__ void __launch_bounds__(256)
k5_out(long a0,
	long a1,
	long a2,
	const double *__restrict__ p_k5_part,
	double c4,
	float *__restrict__ p_t31,
	long a6)
{
	const float v121 = (float)c4;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	const long nch = (a1 + 1951) / 1952;
	{
		/* block (op, column group, chunk); the outputs: chunk 0 only */
		const long cg = blockIdx.x % ncb, t = blockIdx.x / ncb;
		const long ch = 0, op = t;
		const long r0 = ch * 1952;
		const long r1 = min(a1, r0 + 1952);
		const long cc = cg * 32 + tx;
		const bool valid = cc < a2;
		const long cp = valid ? cc : a2 - 1;
		const long o = op * a6 + cp % a6;
		const long rb = o * a1;
		const long pb = op * a1 * a2 + cp;
		double acc119 = 0.0;
		for (long q = 0; q < nch; q++)
			acc119 += p_k5_part[((op * nch + q) * a2 + cp) * 1 + 0];
		const float r120 = (float)acc119;
		/* the outputs of the row shape */
		const float v122 = ((r120) * (v121));
		if (valid && ty == 0) {
			p_t31[o] = v122;
		}
	}
}

/*
 * k6 (map over a channels-last input (node 6), 8 channels per thread: 256 threads, cdiv grid): nodes 7 view, 8 add, 13 sub, 22 mul, 23 view, 24 view, 25 mul, 26 add, 32 sub.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k6_map(long a0,
	long a1,
	long a2,
	long a3,
	const float *__restrict__ p_t6,
	const float *__restrict__ p_b,
	const float *__restrict__ p_t12,
	const float *__restrict__ p_t21,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	const float *__restrict__ p_t31,
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
			const float v123 = p_b[((tc0 + 0))];
			const float v124 = ((tv[0]) + (v123));
			const float v125 = p_t12[((tc0 + 0))];
			const float v126 = ((v124) - (v125));
			const float v127 = p_t21[((tc0 + 0))];
			const float v128 = ((v126) * (v127));
			const float v129 = p_bn_w[((tc0 + 0))];
			const float v130 = ((v128) * (v129));
			const float v131 = p_bn_b[((tc0 + 0))];
			const float v132 = ((v130) + (v131));
			const float v133 = p_t31[(tn * a0 + (tc0 + 0))];
			const float v134 = ((v132) - (v133));
			p_y[i] = v134;
		}
		if (tc0 + 1 < a0) {
			const long i = (tn * a0 + tc0 + 1) * a1 + ts;
			const float v135 = p_b[((tc0 + 1))];
			const float v136 = ((tv[1]) + (v135));
			const float v137 = p_t12[((tc0 + 1))];
			const float v138 = ((v136) - (v137));
			const float v139 = p_t21[((tc0 + 1))];
			const float v140 = ((v138) * (v139));
			const float v141 = p_bn_w[((tc0 + 1))];
			const float v142 = ((v140) * (v141));
			const float v143 = p_bn_b[((tc0 + 1))];
			const float v144 = ((v142) + (v143));
			const float v145 = p_t31[(tn * a0 + (tc0 + 1))];
			const float v146 = ((v144) - (v145));
			p_y[i] = v146;
		}
		if (tc0 + 2 < a0) {
			const long i = (tn * a0 + tc0 + 2) * a1 + ts;
			const float v147 = p_b[((tc0 + 2))];
			const float v148 = ((tv[2]) + (v147));
			const float v149 = p_t12[((tc0 + 2))];
			const float v150 = ((v148) - (v149));
			const float v151 = p_t21[((tc0 + 2))];
			const float v152 = ((v150) * (v151));
			const float v153 = p_bn_w[((tc0 + 2))];
			const float v154 = ((v152) * (v153));
			const float v155 = p_bn_b[((tc0 + 2))];
			const float v156 = ((v154) + (v155));
			const float v157 = p_t31[(tn * a0 + (tc0 + 2))];
			const float v158 = ((v156) - (v157));
			p_y[i] = v158;
		}
		if (tc0 + 3 < a0) {
			const long i = (tn * a0 + tc0 + 3) * a1 + ts;
			const float v159 = p_b[((tc0 + 3))];
			const float v160 = ((tv[3]) + (v159));
			const float v161 = p_t12[((tc0 + 3))];
			const float v162 = ((v160) - (v161));
			const float v163 = p_t21[((tc0 + 3))];
			const float v164 = ((v162) * (v163));
			const float v165 = p_bn_w[((tc0 + 3))];
			const float v166 = ((v164) * (v165));
			const float v167 = p_bn_b[((tc0 + 3))];
			const float v168 = ((v166) + (v167));
			const float v169 = p_t31[(tn * a0 + (tc0 + 3))];
			const float v170 = ((v168) - (v169));
			p_y[i] = v170;
		}
		if (tc0 + 4 < a0) {
			const long i = (tn * a0 + tc0 + 4) * a1 + ts;
			const float v171 = p_b[((tc0 + 4))];
			const float v172 = ((tv[4]) + (v171));
			const float v173 = p_t12[((tc0 + 4))];
			const float v174 = ((v172) - (v173));
			const float v175 = p_t21[((tc0 + 4))];
			const float v176 = ((v174) * (v175));
			const float v177 = p_bn_w[((tc0 + 4))];
			const float v178 = ((v176) * (v177));
			const float v179 = p_bn_b[((tc0 + 4))];
			const float v180 = ((v178) + (v179));
			const float v181 = p_t31[(tn * a0 + (tc0 + 4))];
			const float v182 = ((v180) - (v181));
			p_y[i] = v182;
		}
		if (tc0 + 5 < a0) {
			const long i = (tn * a0 + tc0 + 5) * a1 + ts;
			const float v183 = p_b[((tc0 + 5))];
			const float v184 = ((tv[5]) + (v183));
			const float v185 = p_t12[((tc0 + 5))];
			const float v186 = ((v184) - (v185));
			const float v187 = p_t21[((tc0 + 5))];
			const float v188 = ((v186) * (v187));
			const float v189 = p_bn_w[((tc0 + 5))];
			const float v190 = ((v188) * (v189));
			const float v191 = p_bn_b[((tc0 + 5))];
			const float v192 = ((v190) + (v191));
			const float v193 = p_t31[(tn * a0 + (tc0 + 5))];
			const float v194 = ((v192) - (v193));
			p_y[i] = v194;
		}
		if (tc0 + 6 < a0) {
			const long i = (tn * a0 + tc0 + 6) * a1 + ts;
			const float v195 = p_b[((tc0 + 6))];
			const float v196 = ((tv[6]) + (v195));
			const float v197 = p_t12[((tc0 + 6))];
			const float v198 = ((v196) - (v197));
			const float v199 = p_t21[((tc0 + 6))];
			const float v200 = ((v198) * (v199));
			const float v201 = p_bn_w[((tc0 + 6))];
			const float v202 = ((v200) * (v201));
			const float v203 = p_bn_b[((tc0 + 6))];
			const float v204 = ((v202) + (v203));
			const float v205 = p_t31[(tn * a0 + (tc0 + 6))];
			const float v206 = ((v204) - (v205));
			p_y[i] = v206;
		}
		if (tc0 + 7 < a0) {
			const long i = (tn * a0 + tc0 + 7) * a1 + ts;
			const float v207 = p_b[((tc0 + 7))];
			const float v208 = ((tv[7]) + (v207));
			const float v209 = p_t12[((tc0 + 7))];
			const float v210 = ((v208) - (v209));
			const float v211 = p_t21[((tc0 + 7))];
			const float v212 = ((v210) * (v211));
			const float v213 = p_bn_w[((tc0 + 7))];
			const float v214 = ((v212) * (v213));
			const float v215 = p_bn_b[((tc0 + 7))];
			const float v216 = ((v214) + (v215));
			const float v217 = p_t31[(tn * a0 + (tc0 + 7))];
			const float v218 = ((v216) - (v217));
			p_y[i] = v218;
		}
	}
}

/*@plan
buffer k1_part f64 [(batch_size) * 1, cdiv((od) * (oh) * (ow), 1952), 1 * (out_channels), 1]
buffer k3_part f64 [(batch_size) * 1, cdiv((od) * (oh) * (ow), 1952), 1 * (out_channels), 1]
buffer k5_part f64 [(batch_size) * 1, cdiv((od * oh * ow), 1952), 1 * (out_channels), 1]
buffer t6 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t9 f32 [(batch_size), (out_channels), (1), (1), (1)]
buffer t12 f32 [(1), (out_channels), (1), (1), (1)]
buffer t15 f32 [(batch_size), (out_channels), (1), (1), (1)]
buffer t21 f32 [(1), (out_channels), (1), (1), (1)]
buffer t31 f32 [(batch_size), (out_channels), (1), (1), (1)]
# k0: library call (node 6)
call conv_transpose(x, w) -> t6 stride=stride padding=padding layout=nhwc_y
launch k1_pass1 grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32) * cdiv((od) * (oh) * (ow), 1952)) block=(32, 8) args((batch_size) * (out_channels),
    (od) * (oh) * (ow),
    1 * (out_channels),
    k1_part,
    t6,
    (out_channels),
    b)
launch k1_out grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32)) block=(32, 8) args((batch_size) * (out_channels),
    (od) * (oh) * (ow),
    1 * (out_channels),
    k1_part,
    t9,
    (out_channels))
launch k2_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t9,
    (1.0 / (batch_size * ((od * oh) * ow))),
    t12)
launch k3_pass1 grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32) * cdiv((od) * (oh) * (ow), 1952)) block=(32, 8) args((batch_size) * (out_channels),
    (od) * (oh) * (ow),
    1 * (out_channels),
    k3_part,
    t6,
    (out_channels),
    b,
    t12)
launch k3_out grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32)) block=(32, 8) args((batch_size) * (out_channels),
    (od) * (oh) * (ow),
    1 * (out_channels),
    k3_part,
    t15,
    (out_channels))
launch k4_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t15,
    (1.0 / (batch_size * ((od * oh) * ow))),
    (eps),
    t21)
launch k5_pass1 grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32) * cdiv((od * oh * ow), 1952)) block=(32, 8) args((batch_size) * (out_channels),
    (od * oh * ow),
    1 * (out_channels),
    k5_part,
    t6,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    t12,
    t21,
    bn_w,
    bn_b)
launch k5_out grid=(((batch_size) * 1) * cdiv(1 * (out_channels), 32)) block=(32, 8) args((batch_size) * (out_channels),
    (od * oh * ow),
    1 * (out_channels),
    k5_part,
    (1.0 / (od * oh * ow)),
    t31,
    (out_channels))
launch k6_map grid=(cdiv(((batch_size)) * cdiv((out_channels), 8) * ((od) * (oh) * (ow)), 256)) block=(256) args((out_channels),
    (od) * (oh) * (ow),
    cdiv((out_channels), 8),
    ((batch_size)) * cdiv((out_channels), 8) * ((od) * (oh) * (ow)),
    t6,
    b,
    t12,
    t21,
    bn_w,
    bn_b,
    t31,
    y)
@*/
