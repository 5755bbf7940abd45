/*
 * kernelrl: inclusive cumulative sum along one dimension of x viewed as
 * [outer, r, inner], with float accumulation (as PyTorch on CUDA).
 *
 * PyTorch's dispatch (ATen ScanUtils.cuh, CumsumKernel.cu):
 *   - the whole tensor is one scan (outer == inner == 1): CUB's
 *     DeviceScan::InclusiveSum, decoupled look-back over the whole GPU;
 *   - inner == 1: tensor_kernel_scan_innermost_dim: blocks of 16 x 32
 *     threads, 32 rows per block, each row scanned by 16 threads in chunks
 *     of 32 elements with a Brent-Kung scan in shared memory, the chunk's
 *     total carried into the next;
 *   - inner > 1: tensor_kernel_scan_outer_dim: one thread per column
 *     (outer, i), walking r serially (coalesced across threads along inner).
 */
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

#include "ops/kernels.h"

#define SCAN_NX 16
#define SCAN_NY 32
#define MAX_GRID 65535

__global__ void __launch_bounds__(SCAN_NX * SCAN_NY)
scan_innermost(const float *__restrict__ x, float *__restrict__ y,
               int64_t rows, int64_t r)
{
	__shared__ float sbuf[SCAN_NY][2 * SCAN_NX];
	float *buf = sbuf[threadIdx.y];
	int tx = threadIdx.x;
	for (int64_t row0 = (int64_t)blockIdx.x * SCAN_NY; row0 < rows;
	     row0 += (int64_t)gridDim.x * SCAN_NY) {
		int64_t row = row0 + threadIdx.y;
		bool live = row < rows;
		const float *px = x + (live ? row : 0) * r;
		float *py = y + (live ? row : 0) * r;
		float carry = 0.f;
		for (int64_t c = 0; c < r; c += 2 * SCAN_NX) {
			int64_t i1 = c + tx, i2 = c + SCAN_NX + tx;
			buf[tx] = live && i1 < r ? px[i1] : 0.f;
			buf[SCAN_NX + tx] = live && i2 < r ? px[i2] : 0.f;
			if (tx == 0)
				buf[0] += carry;
			__syncthreads();
			/* up-sweep: partial sums at 2^k - 1 strides */
			for (int s = SCAN_NX, d = 1; s >= 1; s >>= 1, d <<= 1) {
				if (tx < s) {
					int off = (2 * tx + 1) * d - 1;
					buf[off + d] += buf[off];
				}
				__syncthreads();
			}
			/* down-sweep: fill in the remaining prefixes */
			for (int s = 2, d = SCAN_NX / 2; d >= 1; s <<= 1, d >>= 1) {
				if (tx < s - 1) {
					int off = 2 * (tx + 1) * d - 1;
					buf[off + d] += buf[off];
				}
				__syncthreads();
			}
			if (live && i1 < r)
				py[i1] = buf[tx];
			if (live && i2 < r)
				py[i2] = buf[SCAN_NX + tx];
			carry = buf[2 * SCAN_NX - 1];
			__syncthreads();
		}
	}
}

__global__ void __launch_bounds__(512)
scan_outer(const float *__restrict__ x, float *__restrict__ y,
           int64_t outer, int64_t r, int64_t inner)
{
	for (int64_t o = blockIdx.x; o < outer; o += gridDim.x)
		for (int64_t i = (int64_t)blockIdx.y * blockDim.x + threadIdx.x;
		     i < inner; i += (int64_t)gridDim.y * blockDim.x) {
			const float *px = x + o * r * inner + i;
			float *py = y + o * r * inner + i;
			float acc = 0.f;
			for (int64_t j = 0; j < r; j++) {
				acc += px[j * inner];
				py[j * inner] = acc;
			}
		}
}

static int64_t cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* One scan of n <= 2^30 elements with CUB (its item counts are int), its
 * temporary storage in scratch. Returns cudaErrorMemoryAllocation, having
 * launched nothing, when scratch is too small. */
static int cub_scan(const float *x, float *y, int64_t n, void *scratch,
                    int64_t scratch_bytes, cudaStream_t s)
{
	size_t need = 0;
	cudaError_t e = cub::DeviceScan::InclusiveSum(nullptr, need, x, y,
	                                              (int)n, s);
	if (e != cudaSuccess)
		return (int)e;
	if ((int64_t)need > scratch_bytes)
		return (int)cudaErrorMemoryAllocation;
	e = cub::DeviceScan::InclusiveSum(scratch, need, x, y, (int)n, s);
	if (e != cudaSuccess)
		return (int)e;
	return (int)cudaGetLastError();
}

extern "C" int krl_k_cumsum(const float *x, float *y, int64_t outer,
                            int64_t r, int64_t inner, void *scratch,
                            int64_t scratch_bytes, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	if (outer * r * inner == 0)
		return 0;
	if (outer == 1 && inner == 1 && r <= ((int64_t)1 << 30)) {
		int e = cub_scan(x, y, r, scratch, scratch_bytes, s);
		if (e != (int)cudaErrorMemoryAllocation)
			return e;
	}
	if (inner == 1) {
		int64_t grid = cdiv(outer, SCAN_NY);
		if (grid > MAX_GRID)
			grid = MAX_GRID;
		scan_innermost<<<(unsigned)grid, dim3(SCAN_NX, SCAN_NY), 0, s>>>(
			x, y, outer, r);
		return (int)cudaGetLastError();
	}
	int threads = inner < 512 ? (int)inner : 512;
	int64_t gx = outer < MAX_GRID ? outer : MAX_GRID;
	int64_t gy = cdiv(inner, threads);
	if (gy > MAX_GRID)
		gy = MAX_GRID;
	scan_outer<<<dim3((unsigned)gx, (unsigned)gy), threads, 0, s>>>(
		x, y, outer, r, inner);
	return (int)cudaGetLastError();
}
