/*
 * kernelrl: the kernels of the op family "shape" (shape.h; docs/ops-shape.md),
 * each with the launch structure of the PyTorch kernel it stands for,
 * written from scratch:
 *   - strided_copy (pad's copy into the padded output, permute's copy of
 *     a permuted view into a contiguous y): the legacy elementwise kernel
 *     of CUDALoops.cuh that copy_ runs for a non-contiguous source or
 *     destination (gpu_kernel_impl_nocast -> elementwise_kernel<128, vt>):
 *     128 threads, vt = 2 elements a thread (4 under 4 bytes) at a
 *     stride of 128, each element's two offsets found dim by dim with
 *     multiply-high divisions (OffsetCalculator's IntDivider), dims that
 *     are contiguous in both tensors merged first as TensorIterator
 *     coalesces them; 32-bit indices where every offset fits;
 *   - roll: roll_cuda_kernel (TensorTransformations.cu): 512-thread blocks
 *     (getApplyBlock), min(ceil(n / 512), 2^31 - 1) blocks, one element a
 *     thread in a grid-stride loop, 64-bit `%` and `/` as PyTorch's;
 *   - index_select: index_kernel (IndexKernel.cu) through
 *     launch_kernel<128, 4>: 128 threads, 4 elements a thread at a stride
 *     of 128, the index read per element; an index outside the dim (where
 *     PyTorch's device assert fires) reads nothing and writes NaN.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "ops/intdiv.cuh"
#include "ops/launch.cuh"
#include "ops/shape/shape.h"

#define EW_THREADS 128
#define EW_WORK 4
#define ROLL_THREADS 512
#define MAX_I32 ((int64_t)0x7fffffff)

/* ==== strided_copy ==== */

/* The box on the device: sizes as divisors, strides in I. */
template <class I, class D>
struct Box {
	int m;
	D size[KRL_COPY_MAX_DIMS];
	I in_stride[KRL_COPY_MAX_DIMS], out_stride[KRL_COPY_MAX_DIMS];
	I in_off, out_off;
};

/* Elements a thread of the strided copy: PyTorch's non-contiguous path of
 * gpu_kernel_impl_nocast launches elementwise_kernel<128, vt> with vt = 2
 * for elements of 4 bytes or more and 4 for smaller ones. */
template <class T>
struct CopyWork {
	enum { vt = sizeof(T) >= 4 ? 2 : 4 };
};

/* The legacy elementwise structure: thread t of block b copies elements
 * b * 128 * VT + t + 128 u (u < VT), each read and written at once. */
template <class T, class I, class D, int VT>
__global__ void __launch_bounds__(EW_THREADS)
strided_copy_k(const T *__restrict__ x, T *__restrict__ y, I n, Box<I, D> b)
{
	I k0 = (I)blockIdx.x * (EW_THREADS * VT) + (I)threadIdx.x;
#pragma unroll
	for (int u = 0; u < VT; u++) {
		I k = k0 + (I)(u * EW_THREADS);
		if (k >= n)
			return;
		I xi = b.in_off, yi = b.out_off;
#pragma unroll
		for (int i = KRL_COPY_MAX_DIMS - 1; i >= 0; i--) {
			if (i >= b.m)
				continue;
			I q = b.size[i].div(k), c = k - q * (I)b.size[i].d;
			xi += c * b.in_stride[i];
			yi += c * b.out_stride[i];
			k = q;
		}
		y[yi] = x[xi];
	}
}

/* Merges dim i - 1 into dim i where both tensors hold them contiguously
 * (TensorIterator's coalescing), and drops dims of size 1. */
static krl_copy_box coalesce(const krl_copy_box *in)
{
	krl_copy_box b = *in;
	b.m = 0;
	for (int i = 0; i < in->m; i++) {
		if (in->size[i] == 1 && in->m > 1)
			continue;
		if (b.m > 0 &&
		    b.in_stride[b.m - 1] == in->in_stride[i] * in->size[i] &&
		    b.out_stride[b.m - 1] == in->out_stride[i] * in->size[i]) {
			b.size[b.m - 1] *= in->size[i];
			b.in_stride[b.m - 1] = in->in_stride[i];
			b.out_stride[b.m - 1] = in->out_stride[i];
			continue;
		}
		b.size[b.m] = in->size[i];
		b.in_stride[b.m] = in->in_stride[i];
		b.out_stride[b.m] = in->out_stride[i];
		b.m++;
	}
	if (b.m == 0) {
		b.m = 1;
		b.size[0] = 1;
		b.in_stride[0] = b.out_stride[0] = 1;
	}
	return b;
}

/* The last offset b reaches in the input and in the output, plus one. */
static int64_t box_end(const krl_copy_box *b, int out)
{
	int64_t e = out ? b->out_off : b->in_off;
	for (int i = 0; i < b->m; i++)
		e += (b->size[i] - 1) * (out ? b->out_stride[i] : b->in_stride[i]);
	return e + 1;
}

template <class T>
static void strided_launch(const void *x, void *y, const krl_copy_box *b,
                           int64_t n, cudaStream_t s)
{
	const int vt = CopyWork<T>::vt;
	unsigned g = grid_for(n, EW_THREADS * vt);
	if (n <= MAX_I32 && box_end(b, 0) <= MAX_I32 && box_end(b, 1) <= MAX_I32) {
		Box<uint32_t, Div32> d;
		d.m = b->m;
		for (int i = 0; i < KRL_COPY_MAX_DIMS; i++) {
			int live = i < b->m;
			d.size[i] = div32(live ? b->size[i] : 1);
			d.in_stride[i] = live ? (uint32_t)b->in_stride[i] : 0;
			d.out_stride[i] = live ? (uint32_t)b->out_stride[i] : 0;
		}
		d.in_off = (uint32_t)b->in_off;
		d.out_off = (uint32_t)b->out_off;
		strided_copy_k<T, uint32_t, Div32, vt><<<g, EW_THREADS, 0, s>>>(
			(const T *)x, (T *)y, (uint32_t)n, d);
	} else {
		Box<int64_t, Div64> d;
		d.m = b->m;
		for (int i = 0; i < KRL_COPY_MAX_DIMS; i++) {
			int live = i < b->m;
			d.size[i].d = live ? b->size[i] : 1;
			d.in_stride[i] = live ? b->in_stride[i] : 0;
			d.out_stride[i] = live ? b->out_stride[i] : 0;
		}
		d.in_off = b->in_off;
		d.out_off = b->out_off;
		strided_copy_k<T, int64_t, Div64, vt><<<g, EW_THREADS, 0, s>>>(
			(const T *)x, (T *)y, n, d);
	}
}

extern "C" int krl_k_strided_copy(const void *x, void *y,
                                  const krl_copy_box *box, int esize,
                                  void *stream)
{
	int64_t n = 1;
	for (int i = 0; i < box->m; i++)
		n *= box->size[i];
	if (n == 0)
		return 0;
	krl_copy_box b = coalesce(box);
	/* a launch covers at most 2^31 - 1 blocks of 256 elements or more;
	 * larger boxes are not expected (2^39 elements) */
	if (n > (int64_t)0x7fffffff * EW_THREADS * 2)
		return (int)cudaErrorInvalidValue;
	by_esize(esize, [&](auto t) {
		strided_launch<decltype(t)>(x, y, &b, n, (cudaStream_t)stream);
	});
	return (int)cudaGetLastError();
}

/* ==== roll ==== */

template <class T>
__global__ void __launch_bounds__(ROLL_THREADS)
roll_k(const T *__restrict__ x, T *__restrict__ y, int64_t n, int64_t size,
       int64_t inner, int64_t start)
{
	int64_t span = size * inner, wrap = (size - start) * inner;
	for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n;
	     k += (int64_t)blockDim.x * gridDim.x) {
		int64_t j = k % span / inner;
		y[k] = x[j >= size - start ? k - wrap : k + start * inner];
	}
}

extern "C" int krl_k_roll(const void *x, void *y, int64_t n, int64_t size,
                          int64_t inner, int64_t start, int esize,
                          void *stream)
{
	if (n == 0)
		return 0;
	cudaStream_t s = (cudaStream_t)stream;
	unsigned g = grid_for(n, ROLL_THREADS);
	by_esize(esize, [&](auto t) {
		typedef decltype(t) T;
		roll_k<T><<<g, ROLL_THREADS, 0, s>>>((const T *)x, (T *)y, n,
		                                      size, inner, start);
	});
	return (int)cudaGetLastError();
}

/* ==== index_select ==== */

template <class I, class D>
__global__ void __launch_bounds__(EW_THREADS, 4)
index_select_k(const float *__restrict__ x, const int64_t *__restrict__ idx,
               float *__restrict__ y, I n, I rx, D inner, D nidx)
{
	I k = (I)blockIdx.x * (EW_THREADS * EW_WORK) + (I)threadIdx.x;
#pragma unroll
	for (int u = 0; u < EW_WORK; u++, k += EW_THREADS) {
		if (k >= n)
			return;
		I q = inner.div(k), i = k - q * (I)inner.d;
		I o = nidx.div(q), j = q - o * (I)nidx.d;
		int64_t r = idx[j];
		y[k] = (r >= 0 && r < (int64_t)rx)
			? x[(o * rx + (I)r) * (I)inner.d + i]
			: __int_as_float(0x7fffffff);
	}
}

extern "C" int krl_k_index_select(const float *x, const int64_t *idx,
                                  float *y, int64_t outer, int64_t rx,
                                  int64_t nidx, int64_t inner, void *stream)
{
	int64_t n = outer * nidx * inner;
	if (n == 0)
		return 0;
	cudaStream_t s = (cudaStream_t)stream;
	if (n > (int64_t)0x7fffffff * EW_THREADS * EW_WORK)
		return (int)cudaErrorInvalidValue;   /* 2^40 elements */
	unsigned g = grid_for(n, EW_THREADS * EW_WORK);
	if (n <= MAX_I32 && outer * rx * inner <= MAX_I32) {
		index_select_k<uint32_t, Div32><<<g, EW_THREADS, 0, s>>>(
			x, idx, y, (uint32_t)n, (uint32_t)rx, div32(inner),
			div32(nidx));
	} else {
		Div64 di = { inner }, dn = { nidx };
		index_select_k<int64_t, Div64><<<g, EW_THREADS, 0, s>>>(
			x, idx, y, n, rx, di, dn);
	}
	return (int)cudaGetLastError();
}
