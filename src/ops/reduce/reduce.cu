/*
 * kernelrl: reductions over one dimension (sum, mean, max, min, argmax,
 * argmin: krl_k_reduce; product: krl_k_prod), on x viewed as
 * [outer, r, inner]. The kernels are written once, as templates over a
 * reduction operator (its accumulator, identity, combine and final step);
 * each launcher instantiates them with its own operator.
 *
 * The launch configuration follows PyTorch's ReduceConfig (ATen
 * Reduce.cuh): a block of at most 512 threads is a (width, height) grid;
 * when the reduced dim is the contiguous one (inner == 1) `width` threads
 * share each output and read its row with 16-byte loads into four
 * independent accumulators, `height` outputs per block; otherwise `width`
 * threads cover consecutive outputs (coalesced reads along inner, four
 * outputs per thread with 16-byte loads when inner allows, and then at most
 * 128 threads, as PyTorch's output_vec_size = 4) and `height` threads share
 * the reduced dim with four loads in flight (vt0 = 4), combined through
 * shared memory.
 * When there are too few outputs to fill the GPU and each thread would see
 * many values, one output is split over several blocks along grid.y
 * (PyTorch's ctas_per_output); each writes a partial to global scratch and
 * the last block to arrive (a per-output-block semaphore, reset by that
 * block) combines them. A full reduction (mean of everything) is the
 * outer = inner = 1 case of the same kernel.
 */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "ops/reduce/reduce.h"

#define RED_MAX_THREADS 512

/* ==== Reduction operators ====
 *
 * An operator names its accumulator (acc_t) and result (out_t) types and
 * gives: ident(), the identity; make(v, j), the accumulator of value v at
 * index j of the reduced dim; combine(a, b); shfl(a, off, w), a's value in
 * lane + off (__shfl_down_sync over width w); project(a), the final step.
 * Every op keeps its own accumulation type and final step; the kernels
 * below fix the order in which values are combined, the same for all. */

/* Float accumulators, one value each (one shuffle moves one). */
struct FloatAcc {
	typedef float acc_t;
	typedef float out_t;
	__device__ acc_t make(float v, int64_t) const { return v; }
	__device__ acc_t shfl(acc_t a, int off, int w) const
	{
		return __shfl_down_sync(0xffffffffu, a, off, w);
	}
};

/* sum, and mean as the sum times scale = (float)(1 / r). */
struct SumOp : FloatAcc {
	float scale; /* 1, or 1/r for mean */
	explicit SumOp(float s) : scale(s) {}
	__device__ acc_t ident() const { return 0.f; }
	__device__ acc_t combine(acc_t a, acc_t b) const { return a + b; }
	__device__ out_t project(acc_t a) const { return a * scale; }
};

/* prod: float accumulation, no final step (torch.prod on CUDA). */
struct ProdOp : FloatAcc {
	__device__ acc_t ident() const { return 1.f; }
	__device__ acc_t combine(acc_t a, acc_t b) const { return a * b; }
	__device__ out_t project(acc_t a) const { return a; }
};

/* max/min propagate NaN, as torch.max/amax do. */
template <bool MAX> struct ExtOp : FloatAcc {
	__device__ acc_t ident() const { return MAX ? -INFINITY : INFINITY; }
	__device__ acc_t combine(acc_t a, acc_t b) const
	{
		if (a != a)
			return a;
		if (b != b)
			return b;
		return MAX ? (a > b ? a : b) : (a < b ? a : b);
	}
	__device__ out_t project(acc_t a) const { return a; }
};

struct ValIdx {
	float v;
	int64_t i;
};

/* argmax/argmin: the first index of the extreme; NaN counts as the
 * extreme (PyTorch's greater_or_nan / less_or_nan). */
template <bool MAX> struct ArgOp {
	typedef ValIdx acc_t;
	typedef int64_t out_t;
	__device__ acc_t ident() const
	{
		ValIdx r = { MAX ? -INFINITY : INFINITY, INT64_MAX };
		return r;
	}
	__device__ acc_t make(float v, int64_t i) const
	{
		ValIdx r = { v, i };
		return r;
	}
	__device__ acc_t combine(acc_t a, acc_t b) const
	{
		bool an = a.v != a.v, bn = b.v != b.v;
		if (an || bn) {
			if (an && bn)
				return a.i < b.i ? a : b;
			return an ? a : b;
		}
		if (a.v == b.v)
			return a.i < b.i ? a : b;
		return (MAX ? a.v > b.v : a.v < b.v) ? a : b;
	}
	__device__ out_t project(acc_t a) const { return a.i; }
	__device__ acc_t shfl(acc_t a, int off, int w) const
	{
		ValIdx r;
		r.v = __shfl_down_sync(0xffffffffu, a.v, off, w);
		r.i = __shfl_down_sync(0xffffffffu, a.i, off, w);
		return r;
	}
};

/* ==== Block-level combination ==== */

/* Combines the `width` values of each row ty of the block into lane tx == 0
 * of that row. width and height are powers of two; smem holds
 * width * height accumulators. Every thread must call it. */
template <class Op>
__device__ typename Op::acc_t
combine_x(const Op &op, typename Op::acc_t acc, typename Op::acc_t *smem)
{
	int tx = threadIdx.x, ty = threadIdx.y, w = blockDim.x;
	if (w <= 32) {
		for (int off = w / 2; off > 0; off >>= 1) {
			typename Op::acc_t o = op.shfl(acc, off, w);
			acc = op.combine(acc, o);
		}
		return acc;
	}
	smem[ty * w + tx] = acc;
	__syncthreads();
	for (int off = w / 2; off > 0; off >>= 1) {
		if (tx < off)
			smem[ty * w + tx] = op.combine(smem[ty * w + tx],
			                               smem[ty * w + tx + off]);
		__syncthreads();
	}
	return smem[ty * w];
}

/* Combines the `height` values of each column tx into row ty == 0. */
template <class Op>
__device__ typename Op::acc_t
combine_y(const Op &op, typename Op::acc_t acc, typename Op::acc_t *smem)
{
	int tx = threadIdx.x, ty = threadIdx.y, w = blockDim.x;
	smem[ty * w + tx] = acc;
	__syncthreads();
	for (int off = blockDim.y / 2; off > 0; off >>= 1) {
		if (ty < off)
			smem[ty * w + tx] = op.combine(smem[ty * w + tx],
			                               smem[(ty + off) * w + tx]);
		__syncthreads();
	}
	return smem[tx];
}

/* When the reduced range is split over gridDim.y blocks: stores this
 * block's partial for `out` (owned by the thread when `owner`), and returns
 * true in the block that arrives last, after which that block's threads
 * call finish(). */
__device__ bool arrive_last(unsigned *sem)
{
	__shared__ bool last;
	__threadfence();
	__syncthreads();
	if (threadIdx.x == 0 && threadIdx.y == 0) {
		unsigned ticket = atomicAdd(&sem[blockIdx.x], 1u);
		last = ticket == gridDim.y - 1;
		if (last)
			sem[blockIdx.x] = 0; /* ready for the next call */
	}
	__syncthreads();
	if (last)
		__threadfence();
	return last;
}

template <class A> __device__ A load_cg(const A *p);
template <> __device__ float load_cg<float>(const float *p)
{
	return __ldcg(p);
}
template <> __device__ ValIdx load_cg<ValIdx>(const ValIdx *p)
{
	ValIdx r;
	r.v = __ldcg(&p->v);
	r.i = (int64_t)__ldcg((const long long *)&p->i);
	return r;
}

/* ==== Contiguous reduction (inner == 1) ==== */

template <class Op>
__global__ void __launch_bounds__(RED_MAX_THREADS)
reduce_rows(Op op, const float *__restrict__ x, typename Op::out_t *y,
            int64_t outer, int64_t r, int64_t chunk, bool vec,
            typename Op::acc_t *part, unsigned *sem)
{
	typedef typename Op::acc_t acc_t;
	__shared__ acc_t smem[RED_MAX_THREADS];
	int tx = threadIdx.x, w = blockDim.x;
	int64_t o = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;
	acc_t acc = op.ident();
	if (o < outer) {
		const float *row = x + o * r;
		int64_t lo = (int64_t)blockIdx.y * chunk;
		int64_t hi = lo + chunk < r ? lo + chunk : r;
		if (vec) {
			/* four accumulators, one per lane of a float4 */
			acc_t a0 = op.ident(), a1 = a0, a2 = a0, a3 = a0;
			int64_t j = lo + (int64_t)tx * 4;
			for (; j + 3 < hi; j += (int64_t)w * 4) {
				float4 v = *reinterpret_cast<const float4 *>(row + j);
				a0 = op.combine(a0, op.make(v.x, j));
				a1 = op.combine(a1, op.make(v.y, j + 1));
				a2 = op.combine(a2, op.make(v.z, j + 2));
				a3 = op.combine(a3, op.make(v.w, j + 3));
			}
			for (; j < hi; j++)
				a0 = op.combine(a0, op.make(row[j], j));
			acc = op.combine(op.combine(a0, a1), op.combine(a2, a3));
		} else {
			for (int64_t j = lo + tx; j < hi; j += w)
				acc = op.combine(acc, op.make(row[j], j));
		}
	}
	acc = combine_x(op, acc, smem);
	if (gridDim.y == 1) {
		if (tx == 0 && o < outer)
			y[o] = op.project(acc);
		return;
	}
	if (tx == 0 && o < outer)
		part[(int64_t)blockIdx.y * outer + o] = acc;
	if (!arrive_last(sem))
		return;
	acc = op.ident();
	if (o < outer)
		for (int s = tx; s < (int)gridDim.y; s += w)
			acc = op.combine(acc, load_cg(&part[(int64_t)s * outer + o]));
	__syncthreads();
	acc = combine_x(op, acc, smem);
	if (tx == 0 && o < outer)
		y[o] = op.project(acc);
}

/* ==== Strided reduction (inner > 1) ==== */

/* Each thread owns OV consecutive outputs (OV = 4: one 16-byte load per
 * step, PyTorch's output_vec_size) and keeps four loads in flight along r
 * (PyTorch's vt0 = 4). */
template <class Op, int OV>
__global__ void __launch_bounds__(RED_MAX_THREADS)
reduce_cols(Op op, const float *__restrict__ x, typename Op::out_t *y,
            int64_t outer, int64_t r, int64_t inner, int64_t tiles,
            int64_t chunk, typename Op::acc_t *part, unsigned *sem)
{
	typedef typename Op::acc_t acc_t;
	__shared__ acc_t smem[RED_MAX_THREADS];
	int tx = threadIdx.x, ty = threadIdx.y, h = blockDim.y;
	int64_t o = blockIdx.x / tiles;
	int64_t i = ((blockIdx.x % tiles) * blockDim.x + tx) * OV;
	int64_t nout = outer * inner;
	bool live = i < inner; /* inner % OV == 0 */
	acc_t acc[OV];
#pragma unroll
	for (int v = 0; v < OV; v++)
		acc[v] = op.ident();
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
					acc[v] = op.combine(acc[v],
						op.make(buf[u][v], j + u * (int64_t)h));
		}
		for (; j < hi; j += h)
#pragma unroll
			for (int v = 0; v < OV; v++)
				acc[v] = op.combine(acc[v],
				                    op.make(col[j * inner + v], j));
	}
#pragma unroll
	for (int v = 0; v < OV; v++) {
		acc[v] = combine_y(op, acc[v], smem);
		__syncthreads();
	}
	int64_t out = o * inner + i;
	if (gridDim.y == 1) {
		if (ty == 0 && live)
#pragma unroll
			for (int v = 0; v < OV; v++)
				y[out + v] = op.project(acc[v]);
		return;
	}
	if (ty == 0 && live)
#pragma unroll
		for (int v = 0; v < OV; v++)
			part[(int64_t)blockIdx.y * nout + out + v] = acc[v];
	if (!arrive_last(sem))
		return;
#pragma unroll
	for (int v = 0; v < OV; v++) {
		acc[v] = op.ident();
		if (live)
			for (int s = ty; s < (int)gridDim.y; s += h)
				acc[v] = op.combine(acc[v], load_cg(&part[
					(int64_t)s * nout + out + v]));
		__syncthreads();
		acc[v] = combine_y(op, acc[v], smem);
	}
	if (ty == 0 && live)
#pragma unroll
		for (int v = 0; v < OV; v++)
			y[out + v] = op.project(acc[v]);
}

/* ==== Configuration (after ReduceConfig::set_block_dimension) ==== */

static int last_pow2(int64_t n)
{
	int p = 1;
	while ((int64_t)p * 2 <= n && p < RED_MAX_THREADS)
		p *= 2;
	return p;
}

static int64_t cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* A block of at most maxt threads for nx values along x and ny along y,
 * both powers of two: x first takes up to a warp, y what that leaves, then
 * x what y leaves (ReduceConfig::set_block_dimension). */
static void block_dims(int64_t nx, int64_t ny, int maxt, int *w, int *h)
{
	int x = last_pow2(nx) < 32 ? last_pow2(nx) : 32;
	int y = last_pow2(ny);
	if (y > maxt / x)
		y = maxt / x;
	x = last_pow2(nx);
	if (x > maxt / y)
		x = maxt / y;
	*w = x;
	*h = y;
}

/* Number of blocks one output is split over: PyTorch's ctas_per_output
 * rule (split when the grid is at most what fills the GPU and each thread
 * would read >= 256 values; aim at 16..256 values per thread), limited by
 * the scratch space for partials and by grid.y. */
static int64_t splits_for(int64_t grid, int64_t values_per_thread,
                          int threads, int sm_count, int64_t nout,
                          size_t acc_bytes, int64_t part_bytes)
{
	int64_t target = (int64_t)sm_count * (2048 / threads);
	if (values_per_thread < 256 || grid > target)
		return 1;
	int64_t s1 = cdiv(target, grid);
	int64_t s2 = cdiv(values_per_thread, 16);
	int64_t s3 = cdiv(values_per_thread, 256);
	int64_t s = s1 < s2 ? s1 : s2;
	if (s3 > s)
		s = s3;
	if (s > 65535)
		s = 65535;
	int64_t room = part_bytes / (int64_t)(acc_bytes * (size_t)nout);
	if (s > room)
		s = room;
	if (grid > (int64_t)(KRL_REDUCE_SEM_BYTES / sizeof(unsigned)))
		s = 1;
	return s < 1 ? 1 : s;
}

template <class Op>
static int reduce_launch(Op op, const float *x, void *yv, int64_t outer,
                         int64_t r, int64_t inner, void *scratch,
                         int64_t scratch_bytes, int sm_count,
                         cudaStream_t s)
{
	typedef typename Op::acc_t acc_t;
	typename Op::out_t *y = (typename Op::out_t *)yv;
	unsigned *sem = (unsigned *)scratch;
	acc_t *part = (acc_t *)((char *)scratch + KRL_REDUCE_SEM_BYTES);
	int64_t part_bytes = scratch_bytes - KRL_REDUCE_SEM_BYTES;
	int64_t nout = outer * inner;
	if (nout == 0)
		return 0;
	if (inner == 1) {
		/* width along r, height along outputs */
		int w, h;
		block_dims(r, outer, RED_MAX_THREADS, &w, &h);
		bool vec = r % 4 == 0 && ((uintptr_t)x & 15) == 0;
		int64_t grid = cdiv(outer, h);
		int64_t vpt = cdiv(r, (int64_t)w);
		int64_t sp = splits_for(grid, vpt, w * h, sm_count, nout,
		                        sizeof(acc_t), part_bytes);
		int64_t chunk = cdiv(r, sp);
		if (vec)
			chunk = cdiv(chunk, 4) * 4;
		sp = cdiv(r, chunk);
		if (grid > 0x7fffffff)
			return (int)cudaErrorInvalidConfiguration;
		dim3 block(w, h), g((unsigned)grid, (unsigned)sp);
		reduce_rows<Op><<<g, block, 0, s>>>(op, x, y, outer, r, chunk,
		                                     vec, part, sem);
		return (int)cudaGetLastError();
	}
	/* width along inner (coalesced, 4 outputs per thread when 16-byte
	 * loads allow: then at most 128 threads), height along r */
	int ov = inner % 4 == 0 && ((uintptr_t)x & 15) == 0 ? 4 : 1;
	int maxt = RED_MAX_THREADS / ov;
	int64_t cols = inner / ov;
	int w, h;
	block_dims(cols, r, maxt, &w, &h);
	if (r < 16 * (int64_t)h && r < 256) {
		/* few values per thread: PyTorch's ReduceConfig then spends
		 * the block on outputs (split_output), not on r; one thread
		 * reading all of a short column keeps four loads in flight
		 * without the shared-memory combine (on the H200, r = 16 over
		 * 123039 columns took 1.6 ms for 1 GB with 16 rows a block) */
		h = 1;
		w = last_pow2(cols) < maxt ? last_pow2(cols) : maxt;
	}
	int64_t tiles = cdiv(cols, w);
	int64_t grid = outer * tiles;
	int64_t vpt = cdiv(r, (int64_t)h);
	int64_t sp = splits_for(grid, vpt, w * h, sm_count, nout,
	                        sizeof(acc_t), part_bytes);
	int64_t chunk = cdiv(r, sp);
	sp = cdiv(r, chunk);
	if (grid > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	dim3 block(w, h), g((unsigned)grid, (unsigned)sp);
	if (ov == 4)
		reduce_cols<Op, 4><<<g, block, 0, s>>>(op, x, y, outer, r, inner,
		                                        tiles, chunk, part, sem);
	else
		reduce_cols<Op, 1><<<g, block, 0, s>>>(op, x, y, outer, r, inner,
		                                        tiles, chunk, part, sem);
	return (int)cudaGetLastError();
}

extern "C" int krl_k_reduce(krl_red_op op, const float *x, void *y,
                            int64_t outer, int64_t r, int64_t inner,
                            void *scratch, int64_t scratch_bytes,
                            int sm_count, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	auto run = [&](auto o) {
		return reduce_launch(o, x, y, outer, r, inner, scratch,
		                     scratch_bytes, sm_count, s);
	};
	switch (op) {
	case KRL_RED_SUM:
		return run(SumOp(1.f));
	case KRL_RED_MEAN:
		return run(SumOp((float)(1.0 / (double)r)));
	case KRL_RED_MAX:
		return run(ExtOp<true>());
	case KRL_RED_MIN:
		return run(ExtOp<false>());
	case KRL_RED_ARGMAX:
		return run(ArgOp<true>());
	case KRL_RED_ARGMIN:
		return run(ArgOp<false>());
	}
	return (int)cudaErrorInvalidValue;
}

extern "C" int krl_k_prod(const float *x, float *y, int64_t outer, int64_t r,
                          int64_t inner, void *scratch, int64_t scratch_bytes,
                          int sm_count, void *stream)
{
	return reduce_launch(ProdOp(), x, y, outer, r, inner, scratch,
	                     scratch_bytes, sm_count, (cudaStream_t)stream);
}
