/*
 * kernelrl: batch norm (training mode) of a channels-last x [rows, c]
 * (BatchNorm1d on a 2-D input; docs/ops-norm.md) and the batch counter
 * that every batchnorm launches first.
 *
 * PyTorch runs a contiguous [N, C] input (stride 1 along C) through its
 * native channels-last kernels; these are written from scratch with the
 * same launch structure:
 *   1. statistics: grid (ceil(c / bx), gy), block (bx, by) from PyTorch's
 *      flexible launch rule (bx threads along C read each row coalesced,
 *      by rows per block, gy blocks splitting the rows; gy = 1 when the
 *      split would be under 8). Each thread runs Welford over its
 *      column's rows (four rows in flight), the block combines its rows;
 *      with gy > 1 each block writes its partial to a staging area and
 *      the last block of a column group (a semaphore per blockIdx.x,
 *      zeroed by a memset before the launch, as PyTorch zeroes its
 *      semaphores) combines the gy partials. Out: mean and biased var.
 *   2. per channel: the running-stat update (momentum, unbiased var; a
 *      side effect no output shows) and invstd = rsqrt(var + eps),
 *      written over var (batch_norm_update_stats_and_invert's work, as a
 *      128-thread, 4-elements-per-thread elementwise kernel);
 *   3. transform: the statistics' grid rule without the split floor,
 *      y = w * (x - mean) * invstd + b read and written row-coalesced.
 * The counter kernel is `num_batches_tracked.add_(1)`: one int64 element.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "ops/norm/norm.h"
#include "ops/norm/welford.cuh"

/* PyTorch's channels-last batch norm constants: most threads per block,
 * widest tile along C, rows a thread should see, most row-splitting
 * blocks. */
#define CL_MAX_THREADS 512
#define CL_TILE_W 32
#define CL_ELEMS 16
#define CL_MAX_GY 128

/* ==== The batch counter ==== */

__global__ void __launch_bounds__(128) bn_count(long long *n)
{
	if (threadIdx.x == 0)
		*n += 1;
}

extern "C" int krl_kn_bn_count(int64_t *counter, void *stream)
{
	bn_count<<<1, 128, 0, (cudaStream_t)stream>>>((long long *)counter);
	return (int)cudaGetLastError();
}

/* ==== Channels-last batch norm ==== */

/* The staged statistics of one block and column. */
struct ClPart {
	float mean, m2;
	int count, pad;
};

/* Combines the Welford states of the blockDim.y threads of each column
 * threadIdx.x (through sm, blockDim.x * blockDim.y entries); the result
 * is valid in row threadIdx.y == 0. Every thread of the block calls it. */
static __device__ __forceinline__ Welford cl_col_reduce(Welford s,
                                                        ClPart *sm)
{
	int bx = blockDim.x, i = threadIdx.y * bx + threadIdx.x;
	__syncthreads(); /* sm may still be read by a previous call */
	ClPart p = { s.mean, s.m2, s.count, 0 };
	sm[i] = p;
	__syncthreads();
	for (int h = blockDim.y / 2; h > 0; h >>= 1) {
		if ((int)threadIdx.y < h) {
			ClPart o = sm[i + h * bx];
			Welford w = { o.mean, o.m2, o.count };
			s = wf_combine(s, w);
			ClPart q = { s.mean, s.m2, s.count, 0 };
			sm[i] = q;
		}
		__syncthreads();
	}
	return s;
}

/* Statistics (grid and block as the file header says); mean and var get
 * c floats each. staging (gy * c) and sem (gridDim.x, all zero) are used
 * only when gridDim.y > 1. */
__global__ void __launch_bounds__(CL_MAX_THREADS)
cl_stats(const float *__restrict__ x, int64_t rows, int64_t c,
         ClPart *staging, int *sem, float *__restrict__ mean,
         float *__restrict__ var)
{
	__shared__ ClPart sm[CL_MAX_THREADS];
	__shared__ int last;
	int64_t col = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	bool live = col < c;
	int64_t step = (int64_t)gridDim.y * blockDim.y;
	Welford s[4] = { { 0.f, 0.f, 0 }, { 0.f, 0.f, 0 }, { 0.f, 0.f, 0 },
	                 { 0.f, 0.f, 0 } };
	if (live) {
		int64_t r = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
		for (; r + 3 * step < rows; r += 4 * step) {
			float v[4];
#pragma unroll
			for (int k = 0; k < 4; k++)
				v[k] = x[(r + k * step) * c + col];
#pragma unroll
			for (int k = 0; k < 4; k++)
				s[k] = wf_push(s[k], v[k]);
		}
		/* at most three rows left; constant indices keep s in
		 * registers */
#pragma unroll
		for (int k = 0; k < 3; k++, r += step)
			if (r < rows)
				s[k] = wf_push(s[k], x[r * c + col]);
	}
	Welford t = wf_combine(wf_combine(s[0], s[1]),
	                       wf_combine(s[2], s[3]));
	t = cl_col_reduce(t, sm);
	if (gridDim.y > 1) {
		if (threadIdx.y == 0 && live) {
			ClPart p = { t.mean, t.m2, t.count, 0 };
			staging[(int64_t)blockIdx.y * c + col] = p;
		}
		__threadfence();
		__syncthreads();
		if (threadIdx.x == 0 && threadIdx.y == 0)
			last = atomicAdd(&sem[blockIdx.x], 1) ==
			       (int)gridDim.y - 1;
		__syncthreads();
		if (!last)
			return;
		__threadfence();
		t.mean = 0.f;
		t.m2 = 0.f;
		t.count = 0;
		if (live)
			for (int k = threadIdx.y; k < (int)gridDim.y;
			     k += blockDim.y) {
				const ClPart *p = &staging[(int64_t)k * c + col];
				Welford o = { __ldcg(&p->mean), __ldcg(&p->m2),
				              __ldcg(&p->count) };
				t = wf_combine(t, o);
			}
		t = cl_col_reduce(t, sm);
	}
	if (threadIdx.y == 0 && live) {
		mean[col] = t.mean;
		var[col] = t.count > 0 ? fmaxf(t.m2 / (float)t.count, 0.f)
		                       : 0.f;
	}
}

/* Per channel i < c (4 per thread, 128-thread blocks): running mean and
 * var updated with `momentum` (unbiased var: var * n / (n - 1)), then
 * var[i] becomes rsqrt(var + eps). */
__global__ void __launch_bounds__(128)
cl_invert(const float *__restrict__ mean, float *__restrict__ var,
          float *__restrict__ rmean, float *__restrict__ rvar, int64_t c,
          float bessel, float momentum, float eps)
{
	int64_t base = (int64_t)blockIdx.x * 512 + threadIdx.x;
#pragma unroll
	for (int k = 0; k < 4; k++) {
		int64_t i = base + k * 128;
		if (i < c) {
			float m = mean[i], v = var[i];
			rmean[i] = m * momentum + (1.f - momentum) * rmean[i];
			rvar[i] = v * bessel * momentum +
			          (1.f - momentum) * rvar[i];
			var[i] = rsqrtf(v + eps);
		}
	}
}

/* y = w * (x - mean) * invstd + b, each thread one column over its rows
 * of the grid's row stride. */
__global__ void __launch_bounds__(CL_MAX_THREADS)
cl_apply(const float *__restrict__ x, const float *__restrict__ w,
         const float *__restrict__ b, const float *__restrict__ mean,
         const float *__restrict__ invstd, float *__restrict__ y,
         int64_t rows, int64_t c)
{
	int64_t col = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (col >= c)
		return;
	float mu = mean[col], is = invstd[col];
	float g = w ? w[col] : 1.f, bb = b ? b[col] : 0.f;
	int64_t step = (int64_t)gridDim.y * blockDim.y;
	for (int64_t r = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
	     r < rows; r += step)
		y[r * c + col] = g * (x[r * c + col] - mu) * is + bb;
}

static int64_t cl_last_pow2(int64_t n)
{
	int64_t p = 1;
	while (p * 2 <= n)
		p *= 2;
	return p;
}

/* PyTorch's flexible launch rule for `rows` rows of c channels; coop
 * (the statistics) drops a row split of fewer than 8 blocks. */
static void cl_config(int64_t rows, int64_t c, bool coop, dim3 *block,
                      dim3 *grid)
{
	int64_t bx = cl_last_pow2(c) < CL_TILE_W ? cl_last_pow2(c) : CL_TILE_W;
	int64_t by = cl_last_pow2((rows + CL_ELEMS - 1) / CL_ELEMS);
	if (by > CL_MAX_THREADS / bx)
		by = CL_MAX_THREADS / bx;
	if (bx * by != CL_MAX_THREADS) {
		bx = cl_last_pow2(c);
		if (bx > CL_MAX_THREADS / by)
			bx = CL_MAX_THREADS / by;
	}
	int64_t gy = (rows + by * CL_ELEMS - 1) / (by * CL_ELEMS);
	if (gy > CL_MAX_GY)
		gy = CL_MAX_GY;
	if (coop && gy < 8)
		gy = 1;
	*block = dim3((unsigned)bx, (unsigned)by);
	*grid = dim3((unsigned)((c + bx - 1) / bx), (unsigned)gy);
}

extern "C" int krl_kn_batchnorm_cl(const float *x, const float *w,
                                   const float *b, float *y, int64_t rows,
                                   int64_t c, float eps, float momentum,
                                   float *rmean, float *rvar, void *scratch,
                                   int64_t scratch_bytes, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	if (rows * c == 0)
		return 0;
	if ((c + CL_TILE_W - 1) / CL_TILE_W > 0x7fffffffLL)
		return (int)cudaErrorInvalidConfiguration;
	/* scratch: mean, var (then invstd), the semaphores, the staging */
	int64_t stat = (2 * c * 4 + 255) / 256 * 256;
	if (stat > scratch_bytes)
		return (int)cudaErrorMemoryAllocation;
	float *mean = (float *)scratch, *var = mean + c;
	dim3 blk, grd;
	cl_config(rows, c, true, &blk, &grd);
	int *sem = (int *)((char *)scratch + stat);
	int64_t sem_bytes = ((int64_t)grd.x * 4 + 255) / 256 * 256;
	ClPart *staging = (ClPart *)((char *)sem + sem_bytes);
	if (grd.y > 1) {
		/* fewer splits where the staging would not fit (c of tens of
		 * thousands of channels): same kernel, fewer blocks */
		int64_t room = (scratch_bytes - stat - sem_bytes) /
		               (c * (int64_t)sizeof(ClPart));
		if (room < (int64_t)grd.y)
			grd.y = (unsigned)(room < 8 ? 1 : room);
	}
	if (grd.y > 1)
		TRY(cudaMemsetAsync(sem, 0, (size_t)grd.x * 4, s));
	cl_stats<<<grd, blk, 0, s>>>(x, rows, c, staging, sem, mean, var);
	TRY(cudaGetLastError());
	/* n / (n - 1), infinite for one row as PyTorch's */
	float bessel = rows > 1 ? (float)((double)rows / (double)(rows - 1))
	                        : INFINITY;
	cl_invert<<<(unsigned)((c + 511) / 512), 128, 0, s>>>(
		mean, var, rmean, rvar, c, bessel, momentum, eps);
	TRY(cudaGetLastError());
	cl_config(rows, c, false, &blk, &grd);
	cl_apply<<<grd, blk, 0, s>>>(x, w, b, mean, var, y, rows, c);
	return (int)cudaGetLastError();
}
