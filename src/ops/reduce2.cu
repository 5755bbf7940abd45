/*
 * kernelrl: kernels of the "reduce" family (reduce2.h): pooling, the
 * product reduction, the cumulative product and the copies of the scan
 * decompositions. Each mirrors the launch structure of the CUDA kernel
 * PyTorch eager dispatches to (docs/ops-reduce.md), written from scratch:
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
 *   - prod_rows / prod_cols: Reduce.cuh's reduce_kernel shape, as reduce.cu
 *     does for sum (same block rule, 16-byte loads, split over blocks with
 *     semaphores);
 *   - cumprod: CUB InclusiveScan for one whole-tensor scan, else the
 *     innermost-dim Brent-Kung scan or the outer-dim serial scan
 *     (ScanUtils.cuh);
 *   - gather_dim (flip, narrow), fill, mul_mask: elementwise kernels of 128
 *     threads with 4 elements per thread (CUDALoops.cuh's unrolled kernel;
 *     fill with 16-byte stores, its vectorized kernel);
 *   - cat2: CatArrayBatchedCopy: 512-thread blocks, grid (2 x SMs, inputs).
 */
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "ops/kernels.h"
#include "ops/reduce2.h"

#define MAX_GRID_YZ 65535

static int64_t cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* Grid size for one thread per item, at most 2^31 - 1 blocks (the kernels
 * loop over the rest). */
static unsigned grid_for(int64_t n, int threads)
{
	int64_t g = cdiv(n, threads);
	if (g > 0x7fffffff)
		g = 0x7fffffff;
	return (unsigned)(g < 1 ? 1 : g);
}

/* ==== Pooling, 2-d (and 1-d as H = 1) ==== */

/* Window geometry of one spatial dim. */
struct Dim {
	int64_t in, out, k, s, p, d;
};

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

__global__ void __launch_bounds__(256)
max_pool2d_nchw(const float *__restrict__ x, float *__restrict__ y,
                int64_t *__restrict__ idx, int64_t count, Dim h, Dim w)
{
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	     i < count; i += (int64_t)gridDim.x * blockDim.x) {
		int64_t ow = i % w.out;
		int64_t oh = (i / w.out) % h.out;
		int64_t pl = i / w.out / h.out;
		int64_t h0 = oh * h.s - h.p, w0 = ow * w.s - w.p;
		int64_t h1 = min(h0 + (h.k - 1) * h.d + 1, h.in);
		int64_t w1 = min(w0 + (w.k - 1) * w.d + 1, w.in);
		while (h0 < 0)
			h0 += h.d;
		while (w0 < 0)
			w0 += w.d;
		const float *px = x + pl * h.in * w.in;
		float m = -INFINITY;
		int64_t mi = h0 * w.in + w0;
		for (int64_t a = h0; a < h1; a += h.d)
			for (int64_t b = w0; b < w1; b += w.d) {
				float v = px[a * w.in + b];
				if (v > m || isnan(v)) {
					m = v;
					mi = a * w.in + b;
				}
			}
		y[i] = m;
		idx[i] = mi;
	}
}

template <bool DIVISOR>
__global__ void __launch_bounds__(1024)
avg_pool2d_nchw(const float *__restrict__ x, float *__restrict__ y,
                int64_t count, Dim h, Dim w, int include_pad,
                int64_t divisor)
{
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	     i < count; i += (int64_t)gridDim.x * blockDim.x) {
		int64_t ow = i % w.out;
		int64_t oh = (i / w.out) % h.out;
		int64_t pl = i / w.out / h.out;
		int64_t h0 = oh * h.s - h.p, w0 = ow * w.s - w.p;
		int64_t h1 = min(h0 + h.k, h.in + h.p);
		int64_t w1 = min(w0 + w.k, w.in + w.p);
		int64_t span = (h1 - h0) * (w1 - w0);
		h0 = max(h0, (int64_t)0);
		w0 = max(w0, (int64_t)0);
		h1 = min(h1, h.in);
		w1 = min(w1, w.in);
		if (h0 >= h1 || w0 >= w1) {
			y[i] = 0.f;
			continue;
		}
		const float *px = x + pl * h.in * w.in;
		float s = 0.f;
		for (int64_t a = h0; a < h1; a++)
			for (int64_t b = w0; b < w1; b++)
				s += px[a * w.in + b];
		int64_t div = DIVISOR ? divisor
		            : include_pad ? span : (h1 - h0) * (w1 - w0);
		y[i] = s / (float)div;
	}
}

extern "C" int krl_k_max_pool2d(const float *x, float *y, int64_t *idx,
                                const krl_pool *g, void *stream)
{
	Dim h, w;
	dims2(g, &h, &w);
	int64_t count = g->planes * h.out * w.out;
	if (count == 0)
		return 0;
	max_pool2d_nchw<<<grid_for(count, 256), 256, 0,
	                  (cudaStream_t)stream>>>(x, y, idx, count, h, w);
	return (int)cudaGetLastError();
}

extern "C" int krl_k_avg_pool2d(const float *x, float *y, const krl_pool *g,
                                void *stream)
{
	Dim h, w;
	dims2(g, &h, &w);
	int64_t count = g->planes * h.out * w.out;
	if (count == 0)
		return 0;
	cudaStream_t s = (cudaStream_t)stream;
	if (g->divisor)
		avg_pool2d_nchw<true><<<grid_for(count, 1024), 1024, 0, s>>>(
			x, y, count, h, w, g->count_include_pad, g->divisor);
	else
		avg_pool2d_nchw<false><<<grid_for(count, 1024), 1024, 0, s>>>(
			x, y, count, h, w, g->count_include_pad, 0);
	return (int)cudaGetLastError();
}

/* ==== Pooling, 3-d ==== */

/* The output's (plane, t) of block z + zoff, and (h, w) of the thread;
 * false when the thread is past the output. */
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

__global__ void __launch_bounds__(256)
max_pool3d_k(const float *__restrict__ x, float *__restrict__ y,
             int64_t *__restrict__ idx, Dim t, Dim h, Dim w, int64_t zoff)
{
	int64_t pl, ot, oh, ow;
	if (!out3(t, h, w, zoff, &pl, &ot, &oh, &ow))
		return;
	int64_t t0 = ot * t.s - t.p, h0 = oh * h.s - h.p, w0 = ow * w.s - w.p;
	int64_t t1 = min(t0 + (t.k - 1) * t.d + 1, t.in);
	int64_t h1 = min(h0 + (h.k - 1) * h.d + 1, h.in);
	int64_t w1 = min(w0 + (w.k - 1) * w.d + 1, w.in);
	while (t0 < 0)
		t0 += t.d;
	while (h0 < 0)
		h0 += h.d;
	while (w0 < 0)
		w0 += w.d;
	const float *px = x + pl * t.in * h.in * w.in;
	float m = -INFINITY;
	int64_t mi = (t0 * h.in + h0) * w.in + w0;
	for (int64_t a = t0; a < t1; a += t.d)
		for (int64_t b = h0; b < h1; b += h.d)
			for (int64_t c = w0; c < w1; c += w.d) {
				int64_t q = (a * h.in + b) * w.in + c;
				float v = px[q];
				if (v > m || isnan(v)) {
					m = v;
					mi = q;
				}
			}
	int64_t o = ((pl * t.out + ot) * h.out + oh) * w.out + ow;
	y[o] = m;
	idx[o] = mi;
}

/* KW > 0: the window width known at compile time (inner loop unrolled, as
 * PyTorch's avg_pool3d_cuda_update_output<KERNEL_WIDTH>); 0: any width. */
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
	Dim t, h, w;
	dims3(g, &t, &h, &w);
	cudaStream_t s = (cudaStream_t)stream;
	return over_z(t, h, w, g->planes, [&](dim3 grid, int64_t z) {
		max_pool3d_k<<<grid, dim3(32, 8), 0, s>>>(x, y, idx, t, h, w, z);
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

/* ==== Product reduction ==== */

#define RED_MAX_THREADS 512

/* Combines the width values of row ty into lane 0 (tree in shared memory,
 * warp shuffles when the row fits a warp). Every thread must call it. */
__device__ float prod_x(float acc, float *smem)
{
	int tx = threadIdx.x, ty = threadIdx.y, w = blockDim.x;
	if (w <= 32) {
		for (int off = w / 2; off > 0; off >>= 1)
			acc *= __shfl_down_sync(0xffffffffu, acc, off, w);
		return acc;
	}
	smem[ty * w + tx] = acc;
	__syncthreads();
	for (int off = w / 2; off > 0; off >>= 1) {
		if (tx < off)
			smem[ty * w + tx] *= smem[ty * w + tx + off];
		__syncthreads();
	}
	return smem[ty * w];
}

/* Combines the height values of column tx into row 0. */
__device__ float prod_y(float acc, float *smem)
{
	int tx = threadIdx.x, ty = threadIdx.y, w = blockDim.x;
	smem[ty * w + tx] = acc;
	__syncthreads();
	for (int off = blockDim.y / 2; off > 0; off >>= 1) {
		if (ty < off)
			smem[ty * w + tx] *= smem[(ty + off) * w + tx];
		__syncthreads();
	}
	return smem[tx];
}

/* True in the block of output block blockIdx.x that arrives last (it
 * resets the semaphore for the next call). */
__device__ bool last_block(unsigned *sem)
{
	__shared__ bool last;
	__threadfence();
	__syncthreads();
	if (threadIdx.x == 0 && threadIdx.y == 0) {
		unsigned ticket = atomicAdd(&sem[blockIdx.x], 1u);
		last = ticket == gridDim.y - 1;
		if (last)
			sem[blockIdx.x] = 0;
	}
	__syncthreads();
	if (last)
		__threadfence();
	return last;
}

/* Reduced dim contiguous: `width` threads per row (float4 loads into four
 * accumulators when vec), `height` rows per block, the row split over
 * grid.y chunks. */
__global__ void __launch_bounds__(RED_MAX_THREADS)
prod_rows(const float *__restrict__ x, float *y, int64_t outer, int64_t r,
          int64_t chunk, bool vec, float *part, unsigned *sem)
{
	__shared__ float smem[RED_MAX_THREADS];
	int tx = threadIdx.x, w = blockDim.x;
	int64_t o = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;
	float acc = 1.f;
	if (o < outer) {
		const float *row = x + o * r;
		int64_t lo = (int64_t)blockIdx.y * chunk;
		int64_t hi = lo + chunk < r ? lo + chunk : r;
		if (vec) {
			float a0 = 1.f, a1 = 1.f, a2 = 1.f, a3 = 1.f;
			int64_t j = lo + (int64_t)tx * 4;
			for (; j + 3 < hi; j += (int64_t)w * 4) {
				float4 v = *reinterpret_cast<const float4 *>(row + j);
				a0 *= v.x;
				a1 *= v.y;
				a2 *= v.z;
				a3 *= v.w;
			}
			for (; j < hi; j++)
				a0 *= row[j];
			acc = (a0 * a1) * (a2 * a3);
		} else {
			for (int64_t j = lo + tx; j < hi; j += w)
				acc *= row[j];
		}
	}
	acc = prod_x(acc, smem);
	if (gridDim.y == 1) {
		if (tx == 0 && o < outer)
			y[o] = acc;
		return;
	}
	if (tx == 0 && o < outer)
		part[(int64_t)blockIdx.y * outer + o] = acc;
	if (!last_block(sem))
		return;
	acc = 1.f;
	if (o < outer)
		for (int s = tx; s < (int)gridDim.y; s += w)
			acc *= __ldcg(&part[(int64_t)s * outer + o]);
	__syncthreads();
	acc = prod_x(acc, smem);
	if (tx == 0 && o < outer)
		y[o] = acc;
}

/* Reduced dim strided: threads across OV consecutive outputs each (float4
 * loads when OV = 4), `height` threads along r with four loads in flight. */
template <int OV>
__global__ void __launch_bounds__(RED_MAX_THREADS)
prod_cols(const float *__restrict__ x, float *y, int64_t outer, int64_t r,
          int64_t inner, int64_t tiles, int64_t chunk, float *part,
          unsigned *sem)
{
	__shared__ float smem[RED_MAX_THREADS];
	int tx = threadIdx.x, ty = threadIdx.y, h = blockDim.y;
	int64_t o = blockIdx.x / tiles;
	int64_t i = ((blockIdx.x % tiles) * blockDim.x + tx) * OV;
	int64_t nout = outer * inner;
	bool live = i < inner;
	float acc[OV];
#pragma unroll
	for (int v = 0; v < OV; v++)
		acc[v] = 1.f;
	if (live) {
		const float *col = x + o * r * inner + i;
		int64_t lo = (int64_t)blockIdx.y * chunk;
		int64_t hi = lo + chunk < r ? lo + chunk : r;
		int64_t j = lo + ty;
		for (; j + 3 * (int64_t)h < hi; j += 4 * (int64_t)h) {
			float buf[4][OV];
#pragma unroll
			for (int u = 0; u < 4; u++) {
				const float *p = col + (j + u * (int64_t)h) * inner;
				if (OV == 4) {
					float4 q = *reinterpret_cast<const float4 *>(p);
					buf[u][0] = q.x;
					buf[u][OV > 1 ? 1 : 0] = q.y;
					buf[u][OV > 2 ? 2 : 0] = q.z;
					buf[u][OV > 3 ? 3 : 0] = q.w;
				} else {
					buf[u][0] = p[0];
				}
			}
#pragma unroll
			for (int u = 0; u < 4; u++)
#pragma unroll
				for (int v = 0; v < OV; v++)
					acc[v] *= buf[u][v];
		}
		for (; j < hi; j += h)
#pragma unroll
			for (int v = 0; v < OV; v++)
				acc[v] *= col[j * inner + v];
	}
#pragma unroll
	for (int v = 0; v < OV; v++) {
		acc[v] = prod_y(acc[v], smem);
		__syncthreads();
	}
	int64_t out = o * inner + i;
	if (gridDim.y == 1) {
		if (ty == 0 && live)
#pragma unroll
			for (int v = 0; v < OV; v++)
				y[out + v] = acc[v];
		return;
	}
	if (ty == 0 && live)
#pragma unroll
		for (int v = 0; v < OV; v++)
			part[(int64_t)blockIdx.y * nout + out + v] = acc[v];
	if (!last_block(sem))
		return;
#pragma unroll
	for (int v = 0; v < OV; v++) {
		acc[v] = 1.f;
		if (live)
			for (int s = ty; s < (int)gridDim.y; s += h)
				acc[v] *= __ldcg(&part[(int64_t)s * nout + out + v]);
		__syncthreads();
		acc[v] = prod_y(acc[v], smem);
	}
	if (ty == 0 && live)
#pragma unroll
		for (int v = 0; v < OV; v++)
			y[out + v] = acc[v];
}

static int last_pow2(int64_t n)
{
	int p = 1;
	while ((int64_t)p * 2 <= n && p < RED_MAX_THREADS)
		p *= 2;
	return p;
}

/* Blocks per output: PyTorch's ctas_per_output rule (as reduce.cu). */
static int64_t splits_for(int64_t grid, int64_t vpt, int threads,
                          int sm_count, int64_t nout, int64_t part_bytes)
{
	int64_t target = (int64_t)sm_count * (2048 / threads);
	if (vpt < 256 || grid > target)
		return 1;
	int64_t s1 = cdiv(target, grid), s2 = cdiv(vpt, 16);
	int64_t s3 = cdiv(vpt, 256);
	int64_t s = s1 < s2 ? s1 : s2;
	if (s3 > s)
		s = s3;
	if (s > MAX_GRID_YZ)
		s = MAX_GRID_YZ;
	int64_t room = part_bytes / (int64_t)(sizeof(float) * (size_t)nout);
	if (s > room)
		s = room;
	if (grid > (int64_t)(KRL_REDUCE_SEM_BYTES / sizeof(unsigned)))
		s = 1;
	return s < 1 ? 1 : s;
}

extern "C" int krl_k_prod(const float *x, float *y, int64_t outer, int64_t r,
                          int64_t inner, void *scratch, int64_t scratch_bytes,
                          int sm_count, void *stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	unsigned *sem = (unsigned *)scratch;
	float *part = (float *)((char *)scratch + KRL_REDUCE_SEM_BYTES);
	int64_t part_bytes = scratch_bytes - KRL_REDUCE_SEM_BYTES;
	int64_t nout = outer * inner;
	if (nout == 0)
		return 0;
	if (inner == 1) {
		int w = last_pow2(r) < 32 ? last_pow2(r) : 32;
		int h = last_pow2(outer);
		if (h > RED_MAX_THREADS / w)
			h = RED_MAX_THREADS / w;
		w = last_pow2(r);
		if (w > RED_MAX_THREADS / h)
			w = RED_MAX_THREADS / h;
		bool vec = r % 4 == 0 && ((uintptr_t)x & 15) == 0;
		int64_t grid = cdiv(outer, h);
		int64_t sp = splits_for(grid, cdiv(r, w), w * h, sm_count, nout,
		                        part_bytes);
		int64_t chunk = cdiv(r, sp);
		if (vec)
			chunk = cdiv(chunk, 4) * 4;
		sp = cdiv(r, chunk);
		if (grid > 0x7fffffff)
			return (int)cudaErrorInvalidConfiguration;
		prod_rows<<<dim3((unsigned)grid, (unsigned)sp), dim3(w, h), 0,
		            st>>>(x, y, outer, r, chunk, vec, part, sem);
		return (int)cudaGetLastError();
	}
	int ov = inner % 4 == 0 && ((uintptr_t)x & 15) == 0 ? 4 : 1;
	int maxt = RED_MAX_THREADS / ov;
	int64_t cols = inner / ov;
	int w = last_pow2(cols) < 32 ? last_pow2(cols) : 32;
	int h = last_pow2(r);
	if (h > maxt / w)
		h = maxt / w;
	w = last_pow2(cols);
	if (w > maxt / h)
		w = maxt / h;
	int64_t tiles = cdiv(cols, w);
	int64_t grid = outer * tiles;
	int64_t sp = splits_for(grid, cdiv(r, h), w * h, sm_count, nout,
	                        part_bytes);
	int64_t chunk = cdiv(r, sp);
	sp = cdiv(r, chunk);
	if (grid > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	dim3 g((unsigned)grid, (unsigned)sp), b(w, h);
	if (ov == 4)
		prod_cols<4><<<g, b, 0, st>>>(x, y, outer, r, inner, tiles, chunk,
		                              part, sem);
	else
		prod_cols<1><<<g, b, 0, st>>>(x, y, outer, r, inner, tiles, chunk,
		                              part, sem);
	return (int)cudaGetLastError();
}

/* ==== Cumulative product ==== */

#define SCAN_NX 16
#define SCAN_NY 32

/* 16 x 32 threads, one row per threadIdx.y, chunks of 32 elements scanned
 * Brent-Kung in shared memory, each chunk's product carried on. */
__global__ void __launch_bounds__(SCAN_NX * SCAN_NY)
cumprod_innermost(const float *__restrict__ x, float *__restrict__ y,
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
		float carry = 1.f;
		for (int64_t c = 0; c < r; c += 2 * SCAN_NX) {
			int64_t i1 = c + tx, i2 = c + SCAN_NX + tx;
			buf[tx] = live && i1 < r ? px[i1] : 1.f;
			buf[SCAN_NX + tx] = live && i2 < r ? px[i2] : 1.f;
			if (tx == 0)
				buf[0] *= carry;
			__syncthreads();
			for (int s = SCAN_NX, d = 1; s >= 1; s >>= 1, d <<= 1) {
				if (tx < s) {
					int off = (2 * tx + 1) * d - 1;
					buf[off + d] *= buf[off];
				}
				__syncthreads();
			}
			for (int s = 2, d = SCAN_NX / 2; d >= 1; s <<= 1, d >>= 1) {
				if (tx < s - 1) {
					int off = 2 * (tx + 1) * d - 1;
					buf[off + d] *= buf[off];
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

/* One thread per column (outer, i) walking r. */
__global__ void __launch_bounds__(512)
cumprod_outer(const float *__restrict__ x, float *__restrict__ y,
              int64_t outer, int64_t r, int64_t inner)
{
	for (int64_t o = blockIdx.x; o < outer; o += gridDim.x)
		for (int64_t i = (int64_t)blockIdx.y * blockDim.x + threadIdx.x;
		     i < inner; i += (int64_t)gridDim.y * blockDim.x) {
			const float *px = x + o * r * inner + i;
			float *py = y + o * r * inner + i;
			float acc = 1.f;
			for (int64_t j = 0; j < r; j++) {
				acc *= px[j * inner];
				py[j * inner] = acc;
			}
		}
}

struct MulOp {
	__host__ __device__ float operator()(float a, float b) const
	{
		return a * b;
	}
};

/* One whole-tensor scan of n <= 2^30 with CUB; cudaErrorMemoryAllocation,
 * with nothing launched, when scratch is too small. */
static int cub_cumprod(const float *x, float *y, int64_t n, void *scratch,
                       int64_t scratch_bytes, cudaStream_t s)
{
	size_t need = 0;
	cudaError_t e = cub::DeviceScan::InclusiveScan(nullptr, need, x, y,
	                                               MulOp(), (int)n, s);
	if (e != cudaSuccess)
		return (int)e;
	if ((int64_t)need > scratch_bytes)
		return (int)cudaErrorMemoryAllocation;
	e = cub::DeviceScan::InclusiveScan(scratch, need, x, y, MulOp(), (int)n,
	                                   s);
	if (e != cudaSuccess)
		return (int)e;
	return (int)cudaGetLastError();
}

extern "C" int krl_k_cumprod(const float *x, float *y, int64_t outer,
                             int64_t r, int64_t inner, void *scratch,
                             int64_t scratch_bytes, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	if (outer * r * inner == 0)
		return 0;
	if (outer == 1 && inner == 1 && r <= ((int64_t)1 << 30)) {
		int e = cub_cumprod(x, y, r, scratch, scratch_bytes, s);
		if (e != (int)cudaErrorMemoryAllocation)
			return e;
	}
	if (inner == 1) {
		int64_t grid = cdiv(outer, SCAN_NY);
		if (grid > MAX_GRID_YZ)
			grid = MAX_GRID_YZ;
		cumprod_innermost<<<(unsigned)grid, dim3(SCAN_NX, SCAN_NY), 0,
		                    s>>>(x, y, outer, r);
		return (int)cudaGetLastError();
	}
	int threads = inner < 512 ? (int)inner : 512;
	int64_t gx = outer < MAX_GRID_YZ ? outer : MAX_GRID_YZ;
	int64_t gy = cdiv(inner, threads);
	if (gy > MAX_GRID_YZ)
		gy = MAX_GRID_YZ;
	cumprod_outer<<<dim3((unsigned)gx, (unsigned)gy), threads, 0, s>>>(
		x, y, outer, r, inner);
	return (int)cudaGetLastError();
}

/* ==== Copies: gather along a dim, cat, fill, mul_mask ==== */

#define EW_THREADS 128
#define EW_WORK 4

/* Each block covers 512 consecutive outputs, thread tx the elements
 * tx, tx + 128, tx + 256, tx + 384 of them (CUDALoops.cuh's unrolled
 * layout). */
template <class T>
__global__ void __launch_bounds__(EW_THREADS)
gather_dim_k(const T *__restrict__ x, T *__restrict__ y, int64_t n,
             int64_t rx, int64_t ry, int64_t inner, int64_t start,
             int64_t step)
{
	for (int64_t base = (int64_t)blockIdx.x * EW_THREADS * EW_WORK; base < n;
	     base += (int64_t)gridDim.x * EW_THREADS * EW_WORK) {
#pragma unroll
		for (int u = 0; u < EW_WORK; u++) {
			int64_t k = base + u * EW_THREADS + threadIdx.x;
			if (k >= n)
				break;
			int64_t i = k % inner;
			int64_t j = (k / inner) % ry;
			int64_t o = k / inner / ry;
			y[k] = x[(o * rx + start + step * j) * inner + i];
		}
	}
}

extern "C" int krl_k_gather_dim(const void *x, void *y, int64_t outer,
                                int64_t rx, int64_t ry, int64_t inner,
                                int64_t start, int64_t step, int esize,
                                void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	int64_t n = outer * ry * inner;
	if (n == 0)
		return 0;
	unsigned g = grid_for(n, EW_THREADS * EW_WORK);
	switch (esize) {
	case 1:
		gather_dim_k<<<g, EW_THREADS, 0, s>>>((const uint8_t *)x,
			(uint8_t *)y, n, rx, ry, inner, start, step);
		break;
	case 2:
		gather_dim_k<<<g, EW_THREADS, 0, s>>>((const uint16_t *)x,
			(uint16_t *)y, n, rx, ry, inner, start, step);
		break;
	case 8:
		gather_dim_k<<<g, EW_THREADS, 0, s>>>((const uint64_t *)x,
			(uint64_t *)y, n, rx, ry, inner, start, step);
		break;
	default:
		gather_dim_k<<<g, EW_THREADS, 0, s>>>((const uint32_t *)x,
			(uint32_t *)y, n, rx, ry, inner, start, step);
		break;
	}
	return (int)cudaGetLastError();
}

/* blockIdx.y picks the input; its elements are strided over grid.x. */
template <class T>
__global__ void __launch_bounds__(512)
cat2_k(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ y,
       int64_t outer, int64_t ra, int64_t rb, int64_t inner)
{
	const T *src = blockIdx.y == 0 ? a : b;
	int64_t rs = blockIdx.y == 0 ? ra : rb;
	int64_t off = blockIdx.y == 0 ? 0 : ra;
	int64_t ry = ra + rb;
	int64_t n = outer * rs * inner;
	for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n;
	     k += (int64_t)gridDim.x * blockDim.x) {
		int64_t o = k / (rs * inner), rem = k % (rs * inner);
		y[o * ry * inner + off * inner + rem] = src[k];
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
	dim3 g((unsigned)(2 * (sm_count > 0 ? sm_count : 1)), 2);
	switch (esize) {
	case 1:
		cat2_k<<<g, 512, 0, s>>>((const uint8_t *)a, (const uint8_t *)b,
			(uint8_t *)y, outer, ra, rb, inner);
		break;
	case 2:
		cat2_k<<<g, 512, 0, s>>>((const uint16_t *)a,
			(const uint16_t *)b, (uint16_t *)y, outer, ra, rb, inner);
		break;
	case 8:
		cat2_k<<<g, 512, 0, s>>>((const uint64_t *)a,
			(const uint64_t *)b, (uint64_t *)y, outer, ra, rb, inner);
		break;
	default:
		cat2_k<<<g, 512, 0, s>>>((const uint32_t *)a,
			(const uint32_t *)b, (uint32_t *)y, outer, ra, rb, inner);
		break;
	}
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
