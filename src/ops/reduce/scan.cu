/*
 * kernelrl: inclusive scans along one dimension of x viewed as
 * [outer, r, inner]: the cumulative sum and product (reduce.h), with float accumulation as PyTorch on CUDA.
 *
 * PyTorch's dispatch (ATen ScanUtils.cuh scan_dim, CumsumKernel.cu,
 * CumprodKernel.cu), mirrored launch for launch:
 *   - the whole tensor is one scan (outer == inner == 1): CUB's
 *     DeviceScan, decoupled look-back over the whole GPU;
 *   - inner == 1: tensor_kernel_scan_innermost_dim: 512-thread blocks of
 *     nx x (512 / nx) threads, nx from the ratio of row length to row
 *     count (get_log_num_threads_x_inner_scan), one row per threadIdx.y;
 *     each row is scanned in chunks of 2 nx elements (two loads per
 *     thread) by Sklansky's method in shared memory (log2(2 nx) steps, one
 *     barrier each), the chunk's total carried into the next;
 *   - inner > 1: tensor_kernel_scan_outer_dim: one thread per column
 *     (outer, i), walking r serially (coalesced across threads along
 *     inner).
 * Column indices within a row are 32-bit where the row allows, as
 * PyTorch's (which are uint32_t throughout); row offsets are 64-bit.
 *
 * The innermost scan waits on a barrier per step, so its time follows the
 * barrier count: a 32-element chunk takes 7 (load, 5 steps, carry), where
 * the Brent-Kung up- and down-sweep this file used before took 11 and ran
 * about 20% slower than PyTorch at 32768 x 32768.
 */
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

#include "ops/reduce/reduce.h"

#define SCAN_THREADS 512
#define MAX_GRID_X 0x7fffffff
#define MAX_GRID_YZ 65535

struct SumOp {
	__host__ __device__ float operator()(float a, float b) const
	{
		return a + b;
	}
};

struct MulOp {
	__host__ __device__ float operator()(float a, float b) const
	{
		return a * b;
	}
};

/* ==== Innermost dim ==== */

/* Rows of r elements, blockDim = (2^log_nx, 512 / 2^log_nx); C indexes
 * within a row (uint32_t where r < 2^31, so c + 1024 cannot wrap; else
 * int64_t). Sklansky step m adds the last element of each 2^m-element
 * first half to every element of the half that follows it, one thread per
 * element of a second half; the element read lies in a first half, which
 * the step does not write. Rows past the end still take part in every
 * barrier. */
template <class C, class Op>
__global__ void __launch_bounds__(SCAN_THREADS)
scan_innermost(const float *__restrict__ x, float *__restrict__ y,
               int64_t rows, C r, int log_nx, float init, Op op)
{
	extern __shared__ float sbuf[];
	const C nx = (C)1 << log_nx;
	const C tx = threadIdx.x;
	float *buf = sbuf + 2 * nx * threadIdx.y;
	for (int64_t row0 = (int64_t)blockIdx.x * blockDim.y; row0 < rows;
	     row0 += (int64_t)gridDim.x * blockDim.y) {
		int64_t row = row0 + threadIdx.y;
		bool live = row < rows;
		const float *px = x + (live ? row : 0) * (int64_t)r;
		float *py = y + (live ? row : 0) * (int64_t)r;
		float carry = init;
		for (C c = 0; c < r; c += 2 * nx) {
			C i1 = c + tx, i2 = c + nx + tx;
			if (live) {
				buf[tx] = i1 < r ? px[i1] : init;
				buf[nx + tx] = i2 < r ? px[i2] : init;
				if (tx == 0)
					buf[0] = op(buf[0], carry);
			}
			__syncthreads();
			for (int m = 0; m <= log_nx; m++) {
				if (live) {
					C a = ((tx >> m) << (m + 1)) | ((C)1 << m);
					C t = a + (tx & (((C)1 << m) - 1));
					buf[t] = op(buf[t], buf[a - 1]);
				}
				__syncthreads();
			}
			if (live) {
				if (i1 < r)
					py[i1] = buf[tx];
				if (i2 < r)
					py[i2] = buf[nx + tx];
			}
			carry = buf[2 * nx - 1];
			__syncthreads();
		}
	}
}

/* PyTorch's get_log_num_threads_x_inner_scan<uint32_t>: ceil(log2) of the
 * row length minus that of the row count, halved around log2(512) = 9 and
 * clamped to 4..9. Its arithmetic is unsigned, so when rows outnumber the
 * row length by 2^10 or more the difference wraps and the result is 9 (512
 * threads along each short row); we keep that, as it is what PyTorch
 * runs. */
static int scan_log_nx(int64_t rows, int64_t r)
{
	uint32_t lx = 0, ly = 0;
	while (lx < 62 && ((int64_t)1 << lx) < r)
		lx++;
	while (ly < 62 && ((int64_t)1 << ly) < rows)
		ly++;
	uint32_t diff = lx - ly;
	lx = (9u + diff) / 2u;
	lx = lx < 4u ? 4u : lx;
	return (int)(lx > 9u ? 9u : lx);
}

template <class Op>
static int scan_innermost_launch(const float *x, float *y, int64_t rows,
                                 int64_t r, float init, Op op, cudaStream_t s)
{
	int log_nx = scan_log_nx(rows, r);
	dim3 block(1u << log_nx, SCAN_THREADS >> log_nx);
	int64_t grid = (rows + block.y - 1) / block.y;
	if (grid > MAX_GRID_X)
		grid = MAX_GRID_X;
	size_t smem = 2 * SCAN_THREADS * sizeof(float);
	if (r <= 0x7fffffff)
		scan_innermost<uint32_t><<<(unsigned)grid, block, smem, s>>>(
			x, y, rows, (uint32_t)r, log_nx, init, op);
	else
		scan_innermost<int64_t><<<(unsigned)grid, block, smem, s>>>(
			x, y, rows, r, log_nx, init, op);
	return (int)cudaGetLastError();
}

/* ==== Outer dims ==== */

template <class Op>
__global__ void __launch_bounds__(512)
scan_outer(const float *__restrict__ x, float *__restrict__ y,
           int64_t outer, int64_t r, int64_t inner, float init, Op op)
{
	for (int64_t o = blockIdx.x; o < outer; o += gridDim.x)
		for (int64_t i = (int64_t)blockIdx.y * blockDim.x + threadIdx.x;
		     i < inner; i += (int64_t)gridDim.y * blockDim.x) {
			const float *px = x + o * r * inner + i;
			float *py = y + o * r * inner + i;
			float acc = init;
			for (int64_t j = 0; j < r; j++) {
				acc = op(acc, px[j * inner]);
				py[j * inner] = acc;
			}
		}
}

template <class Op>
static int scan_outer_launch(const float *x, float *y, int64_t outer,
                             int64_t r, int64_t inner, float init, Op op,
                             cudaStream_t s)
{
	int threads = inner < 512 ? (int)inner : 512;
	int64_t gx = outer < MAX_GRID_YZ ? outer : MAX_GRID_YZ;
	int64_t gy = (inner + threads - 1) / threads;
	if (gy > MAX_GRID_YZ)
		gy = MAX_GRID_YZ;
	scan_outer<<<dim3((unsigned)gx, (unsigned)gy), threads, 0, s>>>(
		x, y, outer, r, inner, init, op);
	return (int)cudaGetLastError();
}

/* ==== One whole-tensor scan ==== */

/* One scan of n <= 2^30 elements with CUB (its item counts are int), its
 * temporary storage in scratch. Returns cudaErrorMemoryAllocation, having
 * launched nothing, when scratch is too small. */
template <class Op>
static int cub_scan(const float *x, float *y, int64_t n, Op op,
                    void *scratch, int64_t scratch_bytes, cudaStream_t s)
{
	size_t need = 0;
	cudaError_t e = cub::DeviceScan::InclusiveScan(nullptr, need, x, y, op,
	                                               (int)n, s);
	if (e != cudaSuccess)
		return (int)e;
	if ((int64_t)need > scratch_bytes)
		return (int)cudaErrorMemoryAllocation;
	e = cub::DeviceScan::InclusiveScan(scratch, need, x, y, op, (int)n, s);
	if (e != cudaSuccess)
		return (int)e;
	return (int)cudaGetLastError();
}

/* scan_dim: CUB for one whole-tensor scan (when scratch holds its
 * temporaries; else the innermost kernel, one row), the innermost kernel
 * for inner == 1, the outer kernel otherwise. */
template <class Op>
static int scan_dim(const float *x, float *y, int64_t outer, int64_t r,
                    int64_t inner, float init, Op op, void *scratch,
                    int64_t scratch_bytes, cudaStream_t s)
{
	if (outer * r * inner == 0)
		return 0;
	if (outer == 1 && inner == 1 && r <= ((int64_t)1 << 30)) {
		int e = cub_scan(x, y, r, op, scratch, scratch_bytes, s);
		if (e != (int)cudaErrorMemoryAllocation)
			return e;
	}
	if (inner == 1)
		return scan_innermost_launch(x, y, outer, r, init, op, s);
	return scan_outer_launch(x, y, outer, r, inner, init, op, s);
}

extern "C" int krl_k_cumsum(const float *x, float *y, int64_t outer,
                            int64_t r, int64_t inner, void *scratch,
                            int64_t scratch_bytes, void *stream)
{
	return scan_dim(x, y, outer, r, inner, 0.f, SumOp(), scratch,
	                scratch_bytes, (cudaStream_t)stream);
}

extern "C" int krl_k_cumprod(const float *x, float *y, int64_t outer,
                             int64_t r, int64_t inner, void *scratch,
                             int64_t scratch_bytes, void *stream)
{
	return scan_dim(x, y, outer, r, inner, 1.f, MulOp(), scratch,
	                scratch_bytes, (cudaStream_t)stream);
}
