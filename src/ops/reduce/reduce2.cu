/*
 * kernelrl: kernels of the "reduce" family (reduce.h): pooling and the
 * copies of the scan decompositions (the product reduction, krl_k_prod, is
 * reduce.cu's kernels with a multiply; the cumulative product shares
 * scan.cu with cumsum). Each mirrors the launch structure and the index
 * arithmetic of the CUDA kernel PyTorch eager dispatches to
 * (docs/ops-reduce.md), written from scratch:
 *
 *   - max_pool2d_nchw: one thread per output, 256-thread blocks, window
 *     taps stepped by the dilation, value and int64 index written
 *     (DilatedMaxPool2d.cu, max_pool_forward_nchw); 1-d pooling is this
 *     kernel with H = 1 and a 1 x k window, as PyTorch runs it;
 *   - avg_pool2d_nchw: one thread per output, 1024-thread blocks
 *     (AveragePool2d.cu, avg_pool2d_out_cuda_frame);
 *   - max_pool3d / avg_pool3d: 32 x 8 blocks over the output's (W, H),
 *     grid.z over (plane, T) in launches of at most 65535 (DilatedMaxPool3d
 *     .cu, AveragePool3d.cu; the average kernel unrolled for widths 1-7);
 *   - gather_dim (flip, narrow), fill, mul_mask: elementwise kernels of 128
 *     threads with 4 elements per thread (CUDALoops.cuh's unrolled kernel
 *     with its 32-bit OffsetCalculator; fill with 16-byte stores, its
 *     vectorized kernel);
 *   - cat2: CatArrayBatchedCopy (Shape.cu): 16-byte loads, 128-thread
 *     blocks, up to 32 per SM when the inputs are aligned, else 512-thread
 *     blocks, 2 per SM; blockIdx.y picks the input;
 *   - catn (cat of 3 or more): the same kernel over a batch of up to 64
 *     inputs per launch, their pointers and offsets in a struct passed by
 *     value (PyTorch's CatArrInputTensorMetadata, 128 per batch).
 *
 * Index arithmetic: PyTorch's pooling and copy kernels index in 32 bits
 * whenever the tensors allow it, and per-element 64-bit arithmetic (a
 * 64-bit multiply is several instructions, a 64-bit division a subroutine)
 * makes a kernel of this kind instruction- or register-bound: the
 * 1024-thread average pooling needed 56 registers in 64 bits, so one block
 * per SM ran instead of two. So the pooling kernels and the copies are templates on
 * their index type: 32 bits where every index fits (PyTorch's
 * can_use_int32 / canUse32BitIndexMath), int64_t otherwise, so every size
 * stays correct.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "ops/reduce/reduce.h"
#include "ops/intdiv.cuh"
#include "ops/launch.cuh"

#define MAX_GRID_YZ 65535
#define MAX_I32 ((int64_t)0x7fffffff)

static int64_t cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

template <class I>
__device__ __forceinline__ I lo(I a, I b)
{
	return a < b ? a : b;
}

template <class I>
__device__ __forceinline__ I hi(I a, I b)
{
	return a > b ? a : b;
}

/* ==== Pooling geometry ==== */

/* Window geometry of one spatial dim. */
struct Dim {
	int64_t in, out, k, s, p, d;
};

/* The same in a kernel's index type I (int or int64_t). */
template <class I>
struct Win {
	I in, out, k, s, p, d;
};

template <class I>
static Win<I> win(const Dim &a)
{
	Win<I> w = { (I)a.in, (I)a.out, (I)a.k, (I)a.s, (I)a.p, (I)a.d };
	return w;
}

/* True when a pooling kernel may index in int: the output count (with a
 * block's worth of margin: threads past the end compute their coordinates
 * before they return) and one plane of x below 2^31 (the plane's offset in
 * x is taken in 64 bits), and in each of the nd dims every window bound
 * below 2^31: a window starts at o * s - p <= in + 2p + s and ends
 * (k - 1) * d + 1 later; an average window holds at most k^nd taps. */
static bool fits32(int64_t count, int64_t plane, const Dim *d, int nd)
{
	if (count > MAX_I32 - 1024 || plane > MAX_I32)
		return false;
	int64_t taps = 1;
	for (int i = 0; i < nd; i++) {
		if (d[i].k > MAX_I32 || d[i].d > MAX_I32 ||
		    d[i].in + 2 * d[i].p + d[i].s + d[i].k * d[i].d > MAX_I32)
			return false;
		taps *= d[i].k;
		if (taps > MAX_I32)
			return false;
	}
	return true;
}

/* A max window along one dim of d starting at *a0 (which may lie in the
 * padding): returns the end of its dilated taps, clamped to the input, and
 * moves *a0 up to its first tap inside the input. */
template <class I>
__device__ __forceinline__ I max_taps(const Win<I> &d, I *a0)
{
	I a1 = lo(*a0 + (d.k - 1) * d.d + 1, d.in);
	while (*a0 < 0)
		*a0 += d.d;
	return a1;
}

/* ==== Pooling, 2-d (and 1-d as H = 1) ==== */

/* The H and W dims of a 1-d or 2-d pool: a 1-d pool has H = 1 with a
 * window of 1 (stride 1, no padding). */
static void dims2(const krl_pool *g, Dim *h, Dim *w)
{
	Dim one = { 1, 1, 1, 1, 0, 1 };
	Dim full = { 0, 0, g->k, g->s, g->p, g->d };
	*h = one;
	*w = full;
	if (g->rank == 1) {
		w->in = g->in[0];
		w->out = g->out[0];
	} else {
		*h = full;
		h->in = g->in[0];
		h->out = g->out[0];
		w->in = g->in[1];
		w->out = g->out[1];
	}
}

/* Output i of a 2-d pool (flat over [planes, H, W]): its plane and the
 * first row and column of its window, before the padding is cut. */
template <class I>
__device__ __forceinline__ void window2(I i, const Win<I> &h,
                                        const Win<I> &w, I *pl, I *h0,
                                        I *w0)
{
	I ow = i % w.out;
	I oh = (i / w.out) % h.out;
	*pl = i / w.out / h.out;
	*h0 = oh * h.s - h.p;
	*w0 = ow * w.s - w.p;
}

/* One output per thread (the loop counter is int64, the output's
 * coordinates and in-plane offsets are I, as CUDA_KERNEL_LOOP_TYPE). */
template <class I>
__global__ void __launch_bounds__(256)
max_pool2d_nchw(const float *__restrict__ x, float *__restrict__ y,
                int64_t *__restrict__ idx, int64_t count, Win<I> h,
                Win<I> w)
{
	for (int64_t n = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	     n < count; n += (int64_t)gridDim.x * blockDim.x) {
		I pl, h0, w0;
		window2((I)n, h, w, &pl, &h0, &w0);
		I h1 = max_taps(h, &h0), w1 = max_taps(w, &w0);
		const float *px = x + (int64_t)pl * h.in * w.in;
		float m = -INFINITY;
		I mi = h0 * w.in + w0;
		for (I a = h0; a < h1; a += h.d)
			for (I b = w0; b < w1; b += w.d) {
				float v = px[a * w.in + b];
				if (v > m || isnan(v)) {
					m = v;
					mi = a * w.in + b;
				}
			}
		y[n] = m;
		idx[n] = (int64_t)mi;
	}
}

template <class I, bool DIVISOR>
__global__ void __launch_bounds__(1024)
avg_pool2d_nchw(const float *__restrict__ x, float *__restrict__ y,
                int64_t count, Win<I> h, Win<I> w, int include_pad,
                int64_t divisor)
{
	for (int64_t n = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	     n < count; n += (int64_t)gridDim.x * blockDim.x) {
		I pl, h0, w0;
		window2((I)n, h, w, &pl, &h0, &w0);
		I h1 = lo(h0 + h.k, h.in + h.p);
		I w1 = lo(w0 + w.k, w.in + w.p);
		I span = (h1 - h0) * (w1 - w0);
		h0 = hi(h0, (I)0);
		w0 = hi(w0, (I)0);
		h1 = lo(h1, h.in);
		w1 = lo(w1, w.in);
		if (h0 >= h1 || w0 >= w1) {
			y[n] = 0.f;
			continue;
		}
		const float *px = x + (int64_t)pl * h.in * w.in;
		float s = 0.f;
		for (I a = h0; a < h1; a++)
			for (I b = w0; b < w1; b++)
				s += px[a * w.in + b];
		float div = DIVISOR ? (float)divisor
		          : (float)(include_pad ? span : (h1 - h0) * (w1 - w0));
		y[n] = s / div;
	}
}

/* The 1-d or 2-d pool g's dims d and output count: calls f(I(), count, d)
 * with I = int where fits32 allows, else int64_t, and returns the launch's
 * error; 0 at once when there is no output. */
template <class F>
static int pool2d(const krl_pool *g, F f)
{
	Dim d[2];
	dims2(g, &d[0], &d[1]);
	int64_t count = g->planes * d[0].out * d[1].out;
	if (count == 0)
		return 0;
	if (fits32(count, d[0].in * d[1].in, d, 2))
		f(int(), count, (const Dim *)d);
	else
		f(int64_t(), count, (const Dim *)d);
	return (int)cudaGetLastError();
}

extern "C" int krl_k_max_pool2d(const float *x, float *y, int64_t *idx,
                                const krl_pool *g, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	return pool2d(g, [&](auto i, int64_t count, const Dim *d) {
		typedef decltype(i) I;
		max_pool2d_nchw<I><<<grid_for(count, 256), 256, 0, s>>>(
			x, y, idx, count, win<I>(d[0]), win<I>(d[1]));
	});
}

template <class I>
static void avg_pool2d_launch(const float *x, float *y, int64_t count,
                              const Dim *d, const krl_pool *g,
                              cudaStream_t s)
{
	unsigned grid = grid_for(count, 1024);
	Win<I> h = win<I>(d[0]), w = win<I>(d[1]);
	int inc = g->count_include_pad;
	if (g->divisor)
		avg_pool2d_nchw<I, true><<<grid, 1024, 0, s>>>(x, y, count, h, w,
		                                               inc, g->divisor);
	else
		avg_pool2d_nchw<I, false><<<grid, 1024, 0, s>>>(x, y, count, h,
		                                                w, inc, 0);
}

extern "C" int krl_k_avg_pool2d(const float *x, float *y, const krl_pool *g,
                                void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	return pool2d(g, [&](auto i, int64_t count, const Dim *d) {
		avg_pool2d_launch<decltype(i)>(x, y, count, d, g, s);
	});
}

/* ==== Pooling, 3-d ==== */

/* The output's (plane, t) of block z + zoff, and (h, w) of the thread;
 * false when the thread is past the output (avg_pool3d_k). */
__device__ bool out3(const Dim &t, const Dim &h, const Dim &w, int64_t zoff,
                     int64_t *pl, int64_t *ot, int64_t *oh, int64_t *ow)
{
	*ow = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	*oh = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
	int64_t z = (int64_t)blockIdx.z + zoff;
	*ot = z % t.out;
	*pl = z / t.out;
	return *oh < h.out && *ow < w.out;
}

/* In-plane offsets and the output's coordinates in I, the plane's offset
 * in x in 64 bits (max_pool3d_with_indices_single_out_frame). */
template <class I>
__global__ void __launch_bounds__(256)
max_pool3d_k(const float *__restrict__ x, float *__restrict__ y,
             int64_t *__restrict__ idx, Win<I> t, Win<I> h, Win<I> w,
             I zoff)
{
	I ow = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
	I oh = (I)blockIdx.y * (I)blockDim.y + (I)threadIdx.y;
	I z = (I)blockIdx.z + zoff;
	I ot = z % t.out, pl = z / t.out;
	if (oh >= h.out || ow >= w.out)
		return;
	I t0 = ot * t.s - t.p, h0 = oh * h.s - h.p, w0 = ow * w.s - w.p;
	I t1 = max_taps(t, &t0), h1 = max_taps(h, &h0), w1 = max_taps(w, &w0);
	const float *px = x + (int64_t)pl * t.in * h.in * w.in;
	float m = -INFINITY;
	I mi = (t0 * h.in + h0) * w.in + w0;
	for (I a = t0; a < t1; a += t.d)
		for (I b = h0; b < h1; b += h.d)
			for (I c = w0; c < w1; c += w.d) {
				I q = (a * h.in + b) * w.in + c;
				float v = px[q];
				if (v > m || isnan(v)) {
					m = v;
					mi = q;
				}
			}
	I o = ((pl * t.out + ot) * h.out + oh) * w.out + ow;
	y[o] = m;
	idx[o] = (int64_t)mi;
}

/* KW > 0: the window width known at compile time (inner loop unrolled, as
 * PyTorch's avg_pool3d_cuda_update_output<KERNEL_WIDTH>); 0: any width.
 * Indexes in 64 bits throughout: at KernelBench's kb1 size it already
 * runs faster than PyTorch's kernel (5.9 vs 8.6 ms on an H200), so it is
 * left as it was rather than made faster still. */
template <int KW>
__global__ void __launch_bounds__(256)
avg_pool3d_k(const float *__restrict__ x, float *__restrict__ y, Dim t,
             Dim h, Dim w, int include_pad, int64_t divisor, int64_t zoff)
{
	int64_t pl, ot, oh, ow;
	if (!out3(t, h, w, zoff, &pl, &ot, &oh, &ow))
		return;
	int64_t t0 = ot * t.s - t.p, h0 = oh * h.s - h.p, w0 = ow * w.s - w.p;
	int64_t t1 = min(t0 + t.k, t.in + t.p);
	int64_t h1 = min(h0 + h.k, h.in + h.p);
	int64_t w1 = min(w0 + w.k, w.in + w.p);
	int64_t span = (t1 - t0) * (h1 - h0) * (w1 - w0);
	t0 = max(t0, (int64_t)0);
	h0 = max(h0, (int64_t)0);
	w0 = max(w0, (int64_t)0);
	t1 = min(t1, t.in);
	h1 = min(h1, h.in);
	w1 = min(w1, w.in);
	int64_t o = ((pl * t.out + ot) * h.out + oh) * w.out + ow;
	if (t0 >= t1 || h0 >= h1 || w0 >= w1) {
		y[o] = 0.f;
		return;
	}
	float div = (float)(divisor ? divisor : include_pad ? span
	                    : (t1 - t0) * (h1 - h0) * (w1 - w0));
	const float *px = x + pl * t.in * h.in * w.in;
	float s = 0.f;
	for (int64_t a = t0; a < t1; a++)
		for (int64_t b = h0; b < h1; b++) {
			const float *row = px + (a * h.in + b) * w.in;
			if (KW > 0) {
#pragma unroll
				for (int c = 0; c < KW; c++)
					if (w0 + c < w1)
						s += row[w0 + c];
			} else {
				for (int64_t c = w0; c < w1; c++)
					s += row[c];
			}
		}
	y[o] = s / div;
}

static void dims3(const krl_pool *g, Dim *t, Dim *h, Dim *w)
{
	Dim *d[3] = { t, h, w };
	for (int i = 0; i < 3; i++) {
		Dim v = { g->in[i], g->out[i], g->k, g->s, g->p, g->d };
		*d[i] = v;
	}
}

/* Launches `launch(zoff, zcount)` for grid.z chunks of at most 65535 over
 * planes * T outputs, as PyTorch's 3-d pooling does. */
template <class L>
static int over_z(const Dim &t, const Dim &h, const Dim &w, int64_t planes,
                  L launch)
{
	int64_t total = planes * t.out;
	if (total == 0 || h.out == 0 || w.out == 0)
		return 0;
	if (cdiv(w.out, 32) > 0x7fffffff || cdiv(h.out, 8) > MAX_GRID_YZ)
		return (int)cudaErrorInvalidConfiguration;
	for (int64_t z = 0; z < total; z += MAX_GRID_YZ) {
		int64_t n = total - z < MAX_GRID_YZ ? total - z : MAX_GRID_YZ;
		dim3 grid((unsigned)cdiv(w.out, 32), (unsigned)cdiv(h.out, 8),
		          (unsigned)n);
		launch(grid, z);
		int e = (int)cudaGetLastError();
		if (e)
			return e;
	}
	return 0;
}

extern "C" int krl_k_max_pool3d(const float *x, float *y, int64_t *idx,
                                const krl_pool *g, void *stream)
{
	Dim d[3];
	dims3(g, &d[0], &d[1], &d[2]);
	const Dim &t = d[0], &h = d[1], &w = d[2];
	cudaStream_t s = (cudaStream_t)stream;
	int64_t count = g->planes * t.out * h.out * w.out;
	if (fits32(count, t.in * h.in * w.in, d, 3)) {
		Win<int> t32 = win<int>(t), h32 = win<int>(h), w32 = win<int>(w);
		return over_z(t, h, w, g->planes, [&](dim3 grid, int64_t z) {
			max_pool3d_k<int><<<grid, dim3(32, 8), 0, s>>>(
				x, y, idx, t32, h32, w32, (int)z);
		});
	}
	Win<int64_t> t64 = win<int64_t>(t), h64 = win<int64_t>(h);
	Win<int64_t> w64 = win<int64_t>(w);
	return over_z(t, h, w, g->planes, [&](dim3 grid, int64_t z) {
		max_pool3d_k<int64_t><<<grid, dim3(32, 8), 0, s>>>(
			x, y, idx, t64, h64, w64, z);
	});
}

extern "C" int krl_k_avg_pool3d(const float *x, float *y, const krl_pool *g,
                                void *stream)
{
	Dim t, h, w;
	dims3(g, &t, &h, &w);
	cudaStream_t s = (cudaStream_t)stream;
	int inc = g->count_include_pad;
	int64_t dv = g->divisor;
	return over_z(t, h, w, g->planes, [&](dim3 grid, int64_t z) {
		dim3 b(32, 8);
		switch (g->k) {
		case 1: avg_pool3d_k<1><<<grid, b, 0, s>>>(x, y, t, h, w, inc, dv, z); break;
		case 2: avg_pool3d_k<2><<<grid, b, 0, s>>>(x, y, t, h, w, inc, dv, z); break;
		case 3: avg_pool3d_k<3><<<grid, b, 0, s>>>(x, y, t, h, w, inc, dv, z); break;
		case 4: avg_pool3d_k<4><<<grid, b, 0, s>>>(x, y, t, h, w, inc, dv, z); break;
		case 5: avg_pool3d_k<5><<<grid, b, 0, s>>>(x, y, t, h, w, inc, dv, z); break;
		case 6: avg_pool3d_k<6><<<grid, b, 0, s>>>(x, y, t, h, w, inc, dv, z); break;
		case 7: avg_pool3d_k<7><<<grid, b, 0, s>>>(x, y, t, h, w, inc, dv, z); break;
		default: avg_pool3d_k<0><<<grid, b, 0, s>>>(x, y, t, h, w, inc, dv, z); break;
		}
	});
}

/* ==== Copies: gather along a dim, cat, fill, mul_mask ==== */

#define EW_THREADS 128
#define EW_WORK 4

/* Each block covers 512 consecutive outputs, thread tx the elements tx,
 * tx + 128, tx + 256, tx + 384 of them, all four loaded before any is
 * stored (CUDALoops.cuh's unrolled layout). Output k is (o, j, i) of
 * [outer, ry, inner] and copies x at (o, start + j, i), or (o, start - j,
 * i) when rev. I and D: uint32_t with Div32, or int64_t with Div64. At
 * most 32 registers (16 blocks per SM), so that a full SM of threads keeps
 * its loads in flight (without the bound ptxas takes 34-38 and only 3/4
 * of an SM's threads fit). */
template <class T, class I, class D>
__global__ void __launch_bounds__(EW_THREADS, 16)
gather_dim_k(const T *__restrict__ x, T *__restrict__ y, I n, I rx,
             I start, bool rev, D inner, D ry)
{
	for (I base = (I)blockIdx.x * (EW_THREADS * EW_WORK); base < n;
	     base += (I)gridDim.x * (EW_THREADS * EW_WORK)) {
		T v[EW_WORK];
#pragma unroll
		for (int u = 0; u < EW_WORK; u++) {
			I k = base + (I)(u * EW_THREADS + threadIdx.x);
			v[u] = T(0);
			if (k < n) {
				I q = inner.div(k), i = k - q * (I)inner.d;
				I o = ry.div(q), j = q - o * (I)ry.d;
				I r = rev ? start - j : start + j;
				v[u] = x[(o * rx + r) * (I)inner.d + i];
			}
		}
#pragma unroll
		for (int u = 0; u < EW_WORK; u++) {
			I k = base + (I)(u * EW_THREADS + threadIdx.x);
			if (k < n)
				y[k] = v[u];
		}
	}
}

/* 32-bit indices where x and y have fewer than 2^31 elements (PyTorch
 * splits larger copies into 32-bit pieces; we index those in 64 bits). */
template <class T>
static void gather_launch(const void *x, void *y, int64_t outer, int64_t rx,
                          int64_t ry, int64_t inner, int64_t start,
                          bool rev, cudaStream_t s)
{
	int64_t n = outer * ry * inner;
	unsigned g = grid_for(n, EW_THREADS * EW_WORK);
	if (n <= MAX_I32 && outer * rx * inner <= MAX_I32) {
		gather_dim_k<T, uint32_t, Div32><<<g, EW_THREADS, 0, s>>>(
			(const T *)x, (T *)y, (uint32_t)n, (uint32_t)rx,
			(uint32_t)start, rev, div32(inner), div32(ry));
	} else {
		Div64 di = { inner }, dr = { ry };
		gather_dim_k<T, int64_t, Div64><<<g, EW_THREADS, 0, s>>>(
			(const T *)x, (T *)y, n, rx, start, rev, di, dr);
	}
}

extern "C" int krl_k_gather_dim(const void *x, void *y, int64_t outer,
                                int64_t rx, int64_t ry, int64_t inner,
                                int64_t start, int64_t step, int esize,
                                void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	if (outer * ry * inner == 0)
		return 0;
	bool rev = step < 0;
	by_esize(esize, [&](auto t) {
		gather_launch<decltype(t)>(x, y, outer, rx, ry, inner, start,
		                           rev, s);
	});
	return (int)cudaGetLastError();
}

/* V elements of T moved by one load instruction. */
template <class T, int V>
struct alignas(sizeof(T) * V) Vec {
	T v[V];
};

/* One input's share of a cat: its n elements (outer slabs of `slab`)
 * strided over the grid, V per thread per step, each to its place in y
 * (slabs of yslab, this input's at offset off): one V-wide load (V = 1:
 * scalar), then V scalar stores, each at an offset found by one division
 * (CatArrIndexToOffset); a thread whose V elements would pass the end
 * copies the last n % V one by one. */
template <class T, class I, int V>
static __device__ __forceinline__ void cat_slab(const T *__restrict__ src,
                                                T *__restrict__ y, I n,
                                                I slab, I yslab, I off)
{
	I k = ((I)blockIdx.x * blockDim.x + threadIdx.x) * V;
	I step = (I)gridDim.x * blockDim.x * V;
	for (; k + V <= n; k += step) {
		Vec<T, V> v = *reinterpret_cast<const Vec<T, V> *>(src + k);
#pragma unroll
		for (int u = 0; u < V; u++) {
			I e = k + u, o = e / slab;
			y[o * yslab + off + (e - o * slab)] = v.v[u];
		}
	}
	for (; V > 1 && k < n; k++) {
		I o = k / slab;
		y[o * yslab + off + (k - o * slab)] = src[k];
	}
}

/* y [outer, ra + rb, inner] = a then b along the middle dim. blockIdx.y
 * picks the input (cat_slab). */
template <class T, class I, int V>
__global__ void __launch_bounds__(512)
cat2_k(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ y,
       I outer, I ra, I rb, I inner)
{
	const T *src = blockIdx.y == 0 ? a : b;
	I slab = (blockIdx.y == 0 ? ra : rb) * inner;  /* per outer index */
	I off = blockIdx.y == 0 ? 0 : ra * inner;
	I yslab = (ra + rb) * inner;
	cat_slab<T, I, V>(src, y, outer * slab, slab, yslab, off);
}

/* PyTorch's parallel_cat for two contiguous inputs: 32-bit indices when y
 * has fewer than 2^31 elements; then, with both inputs aligned to a
 * vector, CatArrayBatchedCopy_alignedK_contig's shape (16-byte loads, 8
 * for 2-byte types; 128 threads; at most 32 blocks per SM, enough for the
 * larger input), else CatArrayBatchedCopy_contig's (scalar, 512 threads,
 * 2 blocks per SM). Larger tensors (PyTorch: one copy_ per input) run the
 * scalar kernel in 64 bits. */
template <class T>
static void cat2_launch(const void *a, const void *b, void *y, int64_t outer,
                        int64_t ra, int64_t rb, int64_t inner, int sm,
                        cudaStream_t s)
{
	const T *pa = (const T *)a, *pb = (const T *)b;
	T *py = (T *)y;
	int64_t na = outer * ra * inner, nb = outer * rb * inner;
	dim3 g2(2 * (unsigned)sm, 2);
	if (na + nb > MAX_I32) {
		cat2_k<T, int64_t, 1><<<g2, 512, 0, s>>>(pa, pb, py, outer, ra,
		                                         rb, inner);
		return;
	}
	const int V = sizeof(T) >= 4 ? 16 / (int)sizeof(T)
	            : sizeof(T) == 2 ? 4 : 1;
	const uintptr_t vb = sizeof(T) * V;
	uint32_t o32 = (uint32_t)outer, a32 = (uint32_t)ra, b32 = (uint32_t)rb;
	uint32_t i32 = (uint32_t)inner;
	if (V > 1 && (uintptr_t)a % vb == 0 && (uintptr_t)b % vb == 0) {
		int64_t nmax = na > nb ? na : nb;
		int64_t g = cdiv(cdiv(nmax, V), 128);
		if (g > 32 * (int64_t)sm)
			g = 32 * (int64_t)sm;
		cat2_k<T, uint32_t, V><<<dim3((unsigned)(g < 1 ? 1 : g), 2), 128,
		                         0, s>>>(pa, pb, py, o32, a32, b32, i32);
	} else {
		cat2_k<T, uint32_t, 1><<<g2, 512, 0, s>>>(pa, pb, py, o32, a32,
		                                          b32, i32);
	}
}

extern "C" int krl_k_cat2(const void *a, const void *b, void *y,
                          int64_t outer, int64_t ra, int64_t rb,
                          int64_t inner, int esize, int sm_count,
                          void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	if (outer * (ra + rb) * inner == 0)
		return 0;
	int sm = sm_count > 0 ? sm_count : 1;
	by_esize(esize, [&](auto t) {
		cat2_launch<decltype(t)>(a, b, y, outer, ra, rb, inner, sm, s);
	});
	return (int)cudaGetLastError();
}

/* One launch of catn_k: up to CATN_BATCH inputs, passed by value (1.5
 * KB of kernel parameters, under the 4 KB limit): input q's data, its
 * start along the cat dim times inner in y's slab, and its slab. */
#define CATN_BATCH 64
struct CatBatch {
	const void *src[CATN_BATCH];
	int64_t off[CATN_BATCH];
	int64_t slab[CATN_BATCH];
};

/* cat2_k for a batch: blockIdx.y picks input q of the batch, whose
 * elements are strided over grid.x as in cat2_k. */
template <class T, class I, int V>
__global__ void __launch_bounds__(512)
catn_k(const CatBatch b, T *__restrict__ y, I outer, I yslab)
{
	const T *src = (const T *)b.src[blockIdx.y];
	I slab = (I)b.slab[blockIdx.y], off = (I)b.off[blockIdx.y];
	cat_slab<T, I, V>(src, y, outer * slab, slab, yslab, off);
}

/* One launch per batch of CATN_BATCH inputs (CatArrayBatchedCopy's
 * batching), each as cat2_launch chooses: 32-bit indices below 2^31
 * elements of y, vector loads when every input of the batch is aligned;
 * grid.x sized for the batch's largest input, at most 32 blocks per SM
 * over the whole batch. */
template <class T>
static void catn_launch(const void *const *x, const int64_t *r, int n,
                        void *y, int64_t outer, int64_t inner, int sm,
                        cudaStream_t s)
{
	int64_t ry = 0;
	for (int q = 0; q < n; q++)
		ry += r[q];
	const int V = sizeof(T) >= 4 ? 16 / (int)sizeof(T)
	            : sizeof(T) == 2 ? 4 : 1;
	const uintptr_t vb = sizeof(T) * V;
	bool big = outer * ry * inner > MAX_I32;
	int64_t start = 0;
	for (int q0 = 0; q0 < n; q0 += CATN_BATCH) {
		CatBatch b;
		int nb = n - q0 < CATN_BATCH ? n - q0 : CATN_BATCH;
		int64_t nmax = 0;
		bool aligned = V > 1;
		for (int q = 0; q < nb; q++) {
			b.src[q] = x[q0 + q];
			b.off[q] = start * inner;
			b.slab[q] = r[q0 + q] * inner;
			start += r[q0 + q];
			if (outer * b.slab[q] > nmax)
				nmax = outer * b.slab[q];
			aligned = aligned && (uintptr_t)x[q0 + q] % vb == 0;
		}
		for (int q = nb; q < CATN_BATCH; q++) {
			b.src[q] = NULL;
			b.off[q] = b.slab[q] = 0;
		}
		if (nmax == 0)
			continue;
		int64_t cap = 32 * (int64_t)sm / nb;
		cap = cap < 1 ? 1 : cap;
		int64_t yslab = ry * inner;
		if (big) {
			int64_t g = cdiv(nmax, 512);
			g = g > cap ? cap : g;
			catn_k<T, int64_t, 1><<<dim3((unsigned)g, nb), 512, 0, s>>>(
				b, (T *)y, outer, yslab);
		} else if (aligned) {
			int64_t g = cdiv(cdiv(nmax, V), 128);
			g = g > cap ? cap : g;
			catn_k<T, uint32_t, V><<<dim3((unsigned)g, nb), 128, 0, s>>>(
				b, (T *)y, (uint32_t)outer, (uint32_t)yslab);
		} else {
			int64_t g = cdiv(nmax, 512);
			g = g > cap ? cap : g;
			catn_k<T, uint32_t, 1><<<dim3((unsigned)g, nb), 512, 0, s>>>(
				b, (T *)y, (uint32_t)outer, (uint32_t)yslab);
		}
	}
}

extern "C" int krl_k_catn(const void *const *x, const int64_t *r, int n,
                          void *y, int64_t outer, int64_t inner, int esize,
                          int sm_count, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	if (outer * inner == 0 || n <= 0)
		return 0;
	int sm = sm_count > 0 ? sm_count : 1;
	by_esize(esize, [&](auto t) {
		catn_launch<decltype(t)>(x, r, n, y, outer, inner, sm, s);
	});
	return (int)cudaGetLastError();
}

/* 16-byte stores where y is aligned, scalar stores for the tail. */
__global__ void __launch_bounds__(EW_THREADS)
fill_k(float *__restrict__ y, int64_t n, float v, bool vec)
{
	for (int64_t base = (int64_t)blockIdx.x * EW_THREADS * EW_WORK; base < n;
	     base += (int64_t)gridDim.x * EW_THREADS * EW_WORK) {
		int64_t k = base + (int64_t)threadIdx.x * EW_WORK;
		if (vec && k + EW_WORK <= n) {
			*reinterpret_cast<float4 *>(y + k) = make_float4(v, v, v, v);
			continue;
		}
		for (int u = 0; u < EW_WORK && k + u < n; u++)
			y[k + u] = v;
	}
}

extern "C" int krl_k_fill(float *y, int64_t n, float value, void *stream)
{
	if (n == 0)
		return 0;
	bool vec = ((uintptr_t)y & 15) == 0;
	fill_k<<<grid_for(n, EW_THREADS * EW_WORK), EW_THREADS, 0,
	         (cudaStream_t)stream>>>(y, n, value, vec);
	return (int)cudaGetLastError();
}

/* The bool fill: 4 bytes a thread (one uchar4 store when aligned). */
__global__ void __launch_bounds__(EW_THREADS)
fill_bool_k(unsigned char *__restrict__ y, int64_t n, unsigned char v,
            bool vec)
{
	for (int64_t base = (int64_t)blockIdx.x * EW_THREADS * EW_WORK; base < n;
	     base += (int64_t)gridDim.x * EW_THREADS * EW_WORK) {
		int64_t k = base + (int64_t)threadIdx.x * EW_WORK;
		if (vec && k + EW_WORK <= n) {
			*reinterpret_cast<uchar4 *>(y + k) = make_uchar4(v, v, v, v);
			continue;
		}
		for (int u = 0; u < EW_WORK && k + u < n; u++)
			y[k + u] = v;
	}
}

extern "C" int krl_k_fill_bool(unsigned char *y, int64_t n, int v,
                               void *stream)
{
	if (n == 0)
		return 0;
	bool vec = ((uintptr_t)y & 3) == 0;
	fill_bool_k<<<grid_for(n, EW_THREADS * EW_WORK), EW_THREADS, 0,
	              (cudaStream_t)stream>>>(y, n, (unsigned char)(v != 0), vec);
	return (int)cudaGetLastError();
}

__global__ void __launch_bounds__(EW_THREADS)
mul_mask_k(const float *__restrict__ x, const unsigned char *__restrict__ m,
           float *__restrict__ y, int64_t n)
{
	for (int64_t base = (int64_t)blockIdx.x * EW_THREADS * EW_WORK; base < n;
	     base += (int64_t)gridDim.x * EW_THREADS * EW_WORK) {
		float xv[EW_WORK], mv[EW_WORK];
#pragma unroll
		for (int u = 0; u < EW_WORK; u++) {
			int64_t k = base + u * EW_THREADS + threadIdx.x;
			xv[u] = k < n ? x[k] : 0.f;
			mv[u] = k < n ? (float)(m[k] != 0) : 0.f;
		}
#pragma unroll
		for (int u = 0; u < EW_WORK; u++) {
			int64_t k = base + u * EW_THREADS + threadIdx.x;
			if (k < n)
				y[k] = xv[u] * mv[u];
		}
	}
}

extern "C" int krl_k_mul_mask(const float *x, const unsigned char *mask,
                              float *y, int64_t n, void *stream)
{
	if (n == 0)
		return 0;
	mul_mask_k<<<grid_for(n, EW_THREADS * EW_WORK), EW_THREADS, 0,
	             (cudaStream_t)stream>>>(x, mask, y, n);
	return (int)cudaGetLastError();
}
