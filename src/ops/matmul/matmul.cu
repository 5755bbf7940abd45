/*
 * kernelrl: kernels of the op family "matmul" (docs/ops-matmul.md): the
 * non-GEMM kernels that eager PyTorch runs in KernelBench's matmul
 * problems.
 *
 * - diag (torch.diag of a vector, which is diag_embed: at::zeros, then a
 *   copy_ into the diagonal view): two kernels, as PyTorch launches them.
 *   The zero fill has the structure of vectorized_elementwise_kernel with
 *   a nullary FillFunctor (128 threads, one float4 store per thread, one
 *   block per 512 elements, a scalar path for the tail and for a
 *   misaligned y); the diagonal copy that of launch_legacy_kernel for a
 *   strided 4-byte output (128 threads, 2 elements per thread 128 apart).
 * - triu / tril: the structure of triu_tril_kernel (TriangularOps.cu): 128
 *   threads, 2 consecutive columns per thread for 4-byte types (the last
 *   dim padded to 2), scalar loads and stores; a thread whose columns are
 *   all masked out stores zeros without reading x.
 * - linear's bias copy (only where addmm does not take cuBLASLt's bias
 *   epilogue: a dim of 1, a misaligned bias): the copy of the bias expanded
 *   to [rows, cols] into y, launch_legacy_kernel<128, 2> with an offset
 *   calculator (the input's row stride is 0), before a GEMM with beta = 1.
 *
 * All indexing is int64, so tensors beyond 2^31 elements work.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "ops/matmul/matmul.h"

/* ==== Zero fill (vectorized_elementwise_kernel, FillFunctor) ==== */

#define FILL_THREADS 128
#define FILL_VEC 4
#define FILL_BLOCK_WORK (FILL_THREADS * FILL_VEC)

__global__ void __launch_bounds__(FILL_THREADS)
fill_vec_kernel(float *__restrict__ y, int64_t n, float v)
{
	int64_t base = (int64_t)blockIdx.x * FILL_BLOCK_WORK;
	int64_t remaining = n - base;
	if (remaining >= FILL_BLOCK_WORK) {
		int64_t i = base + (int64_t)threadIdx.x * FILL_VEC;
		*reinterpret_cast<float4 *>(y + i) = make_float4(v, v, v, v);
		return;
	}
	for (int64_t k = threadIdx.x; k < remaining; k += FILL_THREADS)
		y[base + k] = v;
}

__global__ void __launch_bounds__(FILL_THREADS)
fill_scalar_kernel(float *__restrict__ y, int64_t n, float v)
{
	int64_t base = (int64_t)blockIdx.x * FILL_BLOCK_WORK;
	for (int k = 0; k < FILL_VEC; k++) {
		int64_t i = base + threadIdx.x + (int64_t)k * FILL_THREADS;
		if (i < n)
			y[i] = v;
	}
}

/* y[0 .. n) = v. */
static int fill(float *y, int64_t n, float v, cudaStream_t s)
{
	if (n <= 0)
		return 0;
	int64_t blocks = (n + FILL_BLOCK_WORK - 1) / FILL_BLOCK_WORK;
	if (blocks > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	if (((uintptr_t)y & 15) == 0)
		fill_vec_kernel<<<(unsigned)blocks, FILL_THREADS, 0, s>>>(y, n, v);
	else
		fill_scalar_kernel<<<(unsigned)blocks, FILL_THREADS, 0, s>>>(y, n,
		                                                             v);
	return (int)cudaGetLastError();
}

/* ==== diag: copy onto the diagonal (launch_legacy_kernel<128, 2>) ==== */

#define DIAG_THREADS 128
#define DIAG_UNROLL 2
#define DIAG_BLOCK_WORK (DIAG_THREADS * DIAG_UNROLL)

/* y[start + i * step] = v[i] for i < n; each thread takes DIAG_UNROLL
 * elements DIAG_THREADS apart, as the legacy elementwise loop does. */
__global__ void __launch_bounds__(DIAG_THREADS)
diag_copy_kernel(const float *__restrict__ v, float *__restrict__ y,
                 int64_t n, int64_t start, int64_t step)
{
	int64_t base = (int64_t)blockIdx.x * DIAG_BLOCK_WORK + threadIdx.x;
#pragma unroll
	for (int k = 0; k < DIAG_UNROLL; k++) {
		int64_t i = base + (int64_t)k * DIAG_THREADS;
		if (i < n)
			y[start + i * step] = v[i];
	}
}

extern "C" int krl_k_diag(const float *v, float *y, int64_t n,
                          int64_t offset, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	int64_t sz = n + (offset < 0 ? -offset : offset);
	int e = fill(y, sz * sz, 0.f, s);
	if (e || n <= 0)
		return e;
	int64_t blocks = (n + DIAG_BLOCK_WORK - 1) / DIAG_BLOCK_WORK;
	if (blocks > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	/* the diagonal view: offset k >= 0 starts at column k of row 0, a
	 * negative one at row -k of column 0; it steps one row and one
	 * column at a time */
	int64_t start = offset >= 0 ? offset : -offset * sz;
	diag_copy_kernel<<<(unsigned)blocks, DIAG_THREADS, 0, s>>>(v, y, n,
	                                                          start, sz + 1);
	return (int)cudaGetLastError();
}

/* ==== triu / tril (triu_tril_kernel) ==== */

#define TRI_THREADS 128

/*
 * Thread t owns columns [col, col + EPT) of one row, EPT = 8 bytes of T
 * (2 floats, 8 bools, as PyTorch's elements_per_thread), where the flat
 * index t * EPT runs over [batch * rows, cols_padded] (cols rounded up
 * to EPT so a thread never straddles two rows). Kept elements are
 * col + i - row >= k (upper) or <= k (lower). x and y may be the same
 * buffer: every element is read and written by one thread, read first.
 */
template <typename T, bool UPPER>
__global__ void __launch_bounds__(TRI_THREADS)
tri_kernel(const T *x, T *y, int64_t rows, int64_t cols,
           int64_t cols_padded, int64_t n_padded, int64_t k)
{
	constexpr int TRI_EPT = 8 / sizeof(T);
	int64_t lin = ((int64_t)blockIdx.x * TRI_THREADS + threadIdx.x) *
	              TRI_EPT;
	if (lin >= n_padded)
		return;
	int64_t col = lin % cols_padded;
	int64_t mat_row = lin / cols_padded;   /* b * rows + row */
	int64_t row = mat_row % rows;
	int64_t off = mat_row * cols + col;
	T frag[TRI_EPT];
#pragma unroll
	for (int i = 0; i < TRI_EPT; i++)
		frag[i] = 0;
	/* whether any of this thread's columns may be kept (PyTorch's test,
	 * one column loose for triu; the exact mask follows) */
	bool any = UPPER ? col + TRI_EPT - row >= k : col - row <= k;
	if (any) {
#pragma unroll
		for (int i = 0; i < TRI_EPT; i++)
			if (col + i < cols)
				frag[i] = x[off + i];
#pragma unroll
		for (int i = 0; i < TRI_EPT; i++) {
			bool keep = UPPER ? col + i - row >= k
			                  : col + i - row <= k;
			if (!keep)
				frag[i] = 0;
		}
	}
#pragma unroll
	for (int i = 0; i < TRI_EPT; i++)
		if (col + i < cols)
			y[off + i] = frag[i];
}

template <typename T>
static int tri_launch(const void *x, void *y, int64_t batch, int64_t rows,
                      int64_t cols, int64_t k, int upper, cudaStream_t s)
{
	constexpr int TRI_EPT = 8 / sizeof(T);
	int64_t cols_padded = (cols + TRI_EPT - 1) / TRI_EPT * TRI_EPT;
	int64_t n_padded = batch * rows * cols_padded;
	int64_t threads = n_padded / TRI_EPT;
	int64_t blocks = (threads + TRI_THREADS - 1) / TRI_THREADS;
	if (blocks > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	if (upper)
		tri_kernel<T, true><<<(unsigned)blocks, TRI_THREADS, 0, s>>>(
			(const T *)x, (T *)y, rows, cols, cols_padded, n_padded, k);
	else
		tri_kernel<T, false><<<(unsigned)blocks, TRI_THREADS, 0, s>>>(
			(const T *)x, (T *)y, rows, cols, cols_padded, n_padded, k);
	return (int)cudaGetLastError();
}

extern "C" int krl_k_triu_tril(const void *x, void *y, size_t esize,
                               int64_t batch, int64_t rows, int64_t cols,
                               int64_t k, int upper, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	if (batch <= 0 || rows <= 0 || cols <= 0)
		return 0;
	if (esize == 1)
		return tri_launch<unsigned char>(x, y, batch, rows, cols, k,
		                                 upper, s);
	if (esize == 4)
		return tri_launch<float>(x, y, batch, rows, cols, k, upper, s);
	return (int)cudaErrorInvalidValue;
}

/* ==== linear's bias copy (launch_legacy_kernel<128, 2>) ==== */

#define BIAS_THREADS 128
#define BIAS_UNROLL 2
#define BIAS_BLOCK_WORK (BIAS_THREADS * BIAS_UNROLL)

/* y[i] = b[i % cols] for i < n; each thread takes BIAS_UNROLL elements
 * BIAS_THREADS apart, as the legacy elementwise loop does. */
__global__ void __launch_bounds__(BIAS_THREADS)
bias_rows_kernel(const float *__restrict__ b, float *__restrict__ y,
                 int64_t n, int64_t cols)
{
	int64_t base = (int64_t)blockIdx.x * BIAS_BLOCK_WORK + threadIdx.x;
#pragma unroll
	for (int k = 0; k < BIAS_UNROLL; k++) {
		int64_t i = base + (int64_t)k * BIAS_THREADS;
		if (i < n)
			y[i] = b[i % cols];
	}
}

extern "C" int krl_k_bias_rows(const float *b, float *y, int64_t rows,
                               int64_t cols, void *stream)
{
	if (rows <= 0 || cols <= 0)
		return 0;
	int64_t n = rows * cols;
	int64_t blocks = (n + BIAS_BLOCK_WORK - 1) / BIAS_BLOCK_WORK;
	if (blocks > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	bias_rows_kernel<<<(unsigned)blocks, BIAS_THREADS, 0,
	                   (cudaStream_t)stream>>>(b, y, n, cols);
	return (int)cudaGetLastError();
}
