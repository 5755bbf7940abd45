/*
 * kernelrl: softmax and log_softmax along one dimension of x viewed as
 * [outer, r, inner].
 *
 * The dispatch is PyTorch's host_softmax (ATen SoftMax.cu, torch >= 2.7):
 *   - inner == 1 and r <= 2048: the warp softmax (softmax_warp_forward):
 *     one row per warp (or per 2^k lanes for short rows), the row held in
 *     registers, max and sum by warp shuffles; 128 threads per block.
 *   - inner == 1, longer rows: one block per row, block size min(r, 1024)
 *     rounded up to a warp, and then
 *       - r <= 9 * block (PyTorch's potential_register_count < 10): the
 *         row held in registers, REGS = ceil(r / block) coalesced scalar
 *         loads per thread (cunn_SoftMaxForwardReg): one read, one write;
 *       - else, if the row fits in the 48 KiB of shared memory (and
 *         pointers and r allow 16-byte vectors), it is read once into
 *         shared memory (cunn_SoftMaxForwardSmem);
 *       - otherwise the row is read from global memory three times: max,
 *         sum of exp, write (cunn_SoftMaxForward).
 *   - inner > 1: the spatial softmax (cunn_SpatialSoftMaxForward): a block
 *     of (width along inner, height along r) threads per group of columns,
 *     three passes combined over height through shared memory.
 * exp and log are the accurate expf/logf, as PyTorch's std::exp/std::log.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "ops/norm/norm.h"

#define SMEM_LIMIT (48 * 1024)

/* Longest row of the warp softmax (PyTorch: dim_size <= 2048 and at most
 * 8 KiB per row). */
#define WARP_MAX_ROW 2048

/* ==== Warp softmax (rows up to 2048) ==== */

template <int LOG2, bool LOG>
__global__ void __launch_bounds__(128)
softmax_warp(const float *__restrict__ x, float *__restrict__ y,
             int64_t rows, int r)
{
	constexpr int P = 1 << LOG2;
	constexpr int W = P < 32 ? P : 32;
	constexpr int ITER = P / W;
	int lane = threadIdx.x % W;
	int64_t row = (int64_t)blockIdx.x * (blockDim.x / W) + threadIdx.x / W;
	bool valid = row < rows;
	const float *px = x + (valid ? row : 0) * r;
	float v[ITER];
	float mx = -INFINITY;
#pragma unroll
	for (int it = 0; it < ITER; it++) {
		int j = lane + it * W;
		v[it] = valid && j < r ? px[j] : -INFINITY;
		mx = fmaxf(mx, v[it]);
	}
#pragma unroll
	for (int off = W / 2; off > 0; off >>= 1)
		mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off, W));
	float sum = 0.f;
#pragma unroll
	for (int it = 0; it < ITER; it++) {
		int j = lane + it * W;
		if (j < r) {
			float e = expf(v[it] - mx);
			sum += e;
			if (!LOG)
				v[it] = e;
		}
	}
#pragma unroll
	for (int off = W / 2; off > 0; off >>= 1)
		sum += __shfl_xor_sync(0xffffffffu, sum, off, W);
	if (!valid)
		return;
	float *py = y + row * r;
	float ls = logf(sum);
#pragma unroll
	for (int it = 0; it < ITER; it++) {
		int j = lane + it * W;
		if (j < r)
			py[j] = LOG ? v[it] - mx - ls : v[it] / sum;
	}
}

/* ==== Block reductions ==== */

/* Max (MAX) or sum of val over the block; every thread gets the result.
 * blockDim.x is a multiple of 32; buf holds 32 floats. */
template <bool MAX>
__device__ float block_reduce(float val, float *buf)
{
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	int nwarps = blockDim.x / 32;
	for (int off = 16; off > 0; off >>= 1) {
		float o = __shfl_xor_sync(0xffffffffu, val, off);
		val = MAX ? fmaxf(val, o) : val + o;
	}
	__syncthreads(); /* buf may still be read by a previous call */
	if (lane == 0)
		buf[warp] = val;
	__syncthreads();
	val = lane < nwarps ? buf[lane] : (MAX ? -INFINITY : 0.f);
	for (int off = 16; off > 0; off >>= 1) {
		float o = __shfl_xor_sync(0xffffffffu, val, off);
		val = MAX ? fmaxf(val, o) : val + o;
	}
	return val;
}

/* ==== Block softmax (one block per row) ==== */

/* The row in registers: thread t holds elements t + k * blockDim.x for
 * k < REGS (REGS * blockDim.x >= r), loaded once and written once. */
template <int REGS, bool LOG>
__global__ void __launch_bounds__(1024)
softmax_block_reg(const float *__restrict__ x, float *__restrict__ y, int r)
{
	__shared__ float buf[32];
	const float *px = x + (int64_t)blockIdx.x * r;
	float *py = y + (int64_t)blockIdx.x * r;
	int t = threadIdx.x, nt = blockDim.x;
	float v[REGS];
	float mx = -INFINITY;
#pragma unroll
	for (int k = 0; k < REGS; k++) {
		int j = t + k * nt;
		v[k] = j < r ? px[j] : -INFINITY;
		mx = fmaxf(mx, v[k]);
	}
	mx = block_reduce<true>(mx, buf);
	float sum = 0.f;
#pragma unroll
	for (int k = 0; k < REGS; k++)
		if (t + k * nt < r)
			sum += expf(v[k] - mx);
	sum = block_reduce<false>(sum, buf);
	float ls = logf(sum);
#pragma unroll
	for (int k = 0; k < REGS; k++) {
		int j = t + k * nt;
		if (j < r)
			py[j] = LOG ? v[k] - mx - ls : expf(v[k] - mx) / sum;
	}
}

/* The four outputs of a float4 of the row: log_softmax's x - max -
 * log(sum), or softmax's exp(x - max) / sum (as inv = 1 / sum). */
template <bool LOG>
__device__ __forceinline__ float4 out4(float4 v, float mx, float ls,
                                       float inv)
{
	float4 o;
	if (LOG) {
		o.x = v.x - mx - ls; o.y = v.y - mx - ls;
		o.z = v.z - mx - ls; o.w = v.w - mx - ls;
	} else {
		o.x = expf(v.x - mx) * inv; o.y = expf(v.y - mx) * inv;
		o.z = expf(v.z - mx) * inv; o.w = expf(v.w - mx) * inv;
	}
	return o;
}

/* exp(x - max) summed over a float4, in the order x, y, z, w. */
__device__ __forceinline__ float expsum4(float4 v, float mx)
{
	return expf(v.x - mx) + expf(v.y - mx) + expf(v.z - mx) +
	       expf(v.w - mx);
}

/* Three passes over global memory; 16-byte vectors when VEC. */
/* Deliberate twin: softmax_block opens as softmax_block_reg does (row
 * pointers, shared buffer); they are PyTorch's cunn_SoftMaxForward and
 * cunn_SoftMaxForwardReg, which keep the row in registers or re-read it,
 * and one template would mix the two. */
template <bool LOG, bool VEC>
__global__ void __launch_bounds__(1024)
softmax_block(const float *__restrict__ x, float *__restrict__ y, int64_t r)
{
	__shared__ float buf[32];
	const float *px = x + (int64_t)blockIdx.x * r;
	float *py = y + (int64_t)blockIdx.x * r;
	int t = threadIdx.x, nt = blockDim.x;
	int64_t r4 = VEC ? r / 4 : 0;
	const float4 *px4 = reinterpret_cast<const float4 *>(px);
	float mx = -INFINITY;
	for (int64_t j = t; j < r4; j += nt) {
		float4 v = px4[j];
		mx = fmaxf(mx, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
	}
	for (int64_t j = r4 * 4 + t; j < r; j += nt)
		mx = fmaxf(mx, px[j]);
	mx = block_reduce<true>(mx, buf);
	float sum = 0.f;
	for (int64_t j = t; j < r4; j += nt) {
		float4 v = px4[j];
		sum += expsum4(v, mx);
	}
	for (int64_t j = r4 * 4 + t; j < r; j += nt)
		sum += expf(px[j] - mx);
	sum = block_reduce<false>(sum, buf);
	float ls = logf(sum), inv = 1.f / sum;
	float4 *py4 = reinterpret_cast<float4 *>(py);
	for (int64_t j = t; j < r4; j += nt) {
		py4[j] = out4<LOG>(px4[j], mx, ls, inv);
	}
	for (int64_t j = r4 * 4 + t; j < r; j += nt)
		py[j] = LOG ? px[j] - mx - ls : expf(px[j] - mx) * inv;
}

/* The row is read once into dynamic shared memory (r % 4 == 0, aligned). */
template <bool LOG>
__global__ void __launch_bounds__(1024)
softmax_block_smem(const float *__restrict__ x, float *__restrict__ y,
                   int64_t r)
{
	__shared__ float buf[32];
	extern __shared__ float4 row4[];
	const float4 *px4 =
		reinterpret_cast<const float4 *>(x + (int64_t)blockIdx.x * r);
	float4 *py4 = reinterpret_cast<float4 *>(y + (int64_t)blockIdx.x * r);
	int t = threadIdx.x, nt = blockDim.x;
	int r4 = (int)(r / 4);
	float mx = -INFINITY;
	for (int j = t; j < r4; j += nt) {
		float4 v = px4[j];
		row4[j] = v;
		mx = fmaxf(mx, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
	}
	mx = block_reduce<true>(mx, buf);
	float sum = 0.f;
	for (int j = t; j < r4; j += nt) {
		float4 v = row4[j];
		sum += expsum4(v, mx);
	}
	sum = block_reduce<false>(sum, buf);
	float ls = logf(sum), inv = 1.f / sum;
	for (int j = t; j < r4; j += nt) {
		py4[j] = out4<LOG>(row4[j], mx, ls, inv);
	}
}

/* ==== Spatial softmax (inner > 1) ==== */

/* Combines over threadIdx.y; buf holds blockDim.x * blockDim.y floats. */
template <bool MAX>
__device__ float col_reduce(float val, float *buf)
{
	int tx = threadIdx.x, ty = threadIdx.y, w = blockDim.x;
	__syncthreads();
	buf[ty * w + tx] = val;
	__syncthreads();
	for (int off = blockDim.y / 2; off > 0; off >>= 1) {
		if (ty < off) {
			float o = buf[(ty + off) * w + tx];
			float s = buf[ty * w + tx];
			buf[ty * w + tx] = MAX ? fmaxf(s, o) : s + o;
		}
		__syncthreads();
	}
	return buf[tx];
}

template <bool LOG>
__global__ void __launch_bounds__(512)
softmax_spatial(const float *__restrict__ x, float *__restrict__ y,
                int64_t r, int64_t inner, int64_t tiles)
{
	__shared__ float buf[512];
	int64_t o = blockIdx.x / tiles;
	int64_t i = (blockIdx.x % tiles) * blockDim.x + threadIdx.x;
	bool live = i < inner;
	int64_t base = o * r * inner + (live ? i : 0);
	const float *px = x + base;
	float *py = y + base;
	float mx = -INFINITY;
	if (live)
		for (int64_t j = threadIdx.y; j < r; j += blockDim.y)
			mx = fmaxf(mx, px[j * inner]);
	mx = col_reduce<true>(mx, buf);
	float sum = 0.f;
	if (live)
		for (int64_t j = threadIdx.y; j < r; j += blockDim.y)
			sum += expf(px[j * inner] - mx);
	sum = col_reduce<false>(sum, buf);
	if (!live)
		return;
	float ls = logf(sum), inv = 1.f / sum;
	for (int64_t j = threadIdx.y; j < r; j += blockDim.y) {
		float v = px[j * inner];
		py[j * inner] = LOG ? v - mx - ls : expf(v - mx) * inv;
	}
}

/* ==== Dispatch ==== */

template <bool LOG>
static int warp_launch(const float *x, float *y, int64_t rows, int r,
                       cudaStream_t s)
{
	int log2 = 0;
	while ((1 << log2) < r)
		log2++;
	int w = (1 << log2) < 32 ? (1 << log2) : 32;
	int rows_per_block = 128 / w;
	int64_t grid = (rows + rows_per_block - 1) / rows_per_block;
	if (grid > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	dim3 g((unsigned)grid);
	switch (log2) {
#define WCASE(L) \
	case L: softmax_warp<L, LOG><<<g, 128, 0, s>>>(x, y, rows, r); break;
	WCASE(0) WCASE(1) WCASE(2) WCASE(3) WCASE(4) WCASE(5) WCASE(6)
	WCASE(7) WCASE(8) WCASE(9) WCASE(10) WCASE(11)
#undef WCASE
	default:
		return (int)cudaErrorInvalidValue;
	}
	return (int)cudaGetLastError();
}

template <bool LOG>
static int softmax_launch(const float *x, float *y, int64_t outer,
                          int64_t r, int64_t inner, cudaStream_t s)
{
	if (outer * r * inner == 0)
		return 0;
	if (inner == 1) {
		if (r <= WARP_MAX_ROW)
			return warp_launch<LOG>(x, y, outer, (int)r, s);
		if (outer > 0x7fffffff)
			return (int)cudaErrorInvalidConfiguration;
		int block = r < 1024 ? (int)r : 1024;
		block = (block + 31) / 32 * 32;
		/* r > 2048, so the block is 1024 threads and regs >= 3 */
		int64_t regs = (r + block - 1) / block;
		if (regs < 10) {
			dim3 g((unsigned)outer);
			switch (regs) {
#define RCASE(R) \
	case R: softmax_block_reg<R, LOG><<<g, block, 0, s>>>(x, y, (int)r); \
		break;
			RCASE(3) RCASE(4) RCASE(5) RCASE(6) RCASE(7) RCASE(8)
			RCASE(9)
#undef RCASE
			default:
				return (int)cudaErrorInvalidValue;
			}
			return (int)cudaGetLastError();
		}
		bool aligned = ((uintptr_t)x & 15) == 0 &&
		               ((uintptr_t)y & 15) == 0 && r % 4 == 0;
		size_t smem = (size_t)r * sizeof(float);
		if (aligned && smem + 32 * sizeof(float) <= SMEM_LIMIT)
			softmax_block_smem<LOG><<<(unsigned)outer, block, smem,
			                          s>>>(x, y, r);
		else if (aligned)
			softmax_block<LOG, true><<<(unsigned)outer, block, 0,
			                           s>>>(x, y, r);
		else
			softmax_block<LOG, false><<<(unsigned)outer, block, 0,
			                            s>>>(x, y, r);
		return (int)cudaGetLastError();
	}
	int w = 1;
	while (w * 2 <= inner && w < 32)
		w *= 2;
	int h = 1;
	while (h * 2 <= r && w * h * 2 <= 512)
		h *= 2;
	int64_t tiles = (inner + w - 1) / w;
	int64_t grid = outer * tiles;
	if (grid > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	softmax_spatial<LOG><<<(unsigned)grid, dim3(w, h), 0, s>>>(x, y, r,
	                                                          inner, tiles);
	return (int)cudaGetLastError();
}

extern "C" int krl_k_softmax(const float *x, float *y, int64_t outer,
                             int64_t r, int64_t inner, int log_,
                             void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	return log_ ? softmax_launch<true>(x, y, outer, r, inner, s)
	            : softmax_launch<false>(x, y, outer, r, inner, s);
}
