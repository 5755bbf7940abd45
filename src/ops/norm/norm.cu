/*
 * kernelrl: kernels of the op family "norm" (docs/ops-norm.md): batch
 * norm's native NCHW path (instance norm, and batchnorm where neither
 * cuDNN nor bn1d.cu's channels-last kernels run), group norm, the 2-norm
 * reduction and nll_loss (sdpa, the fused attention, is sdpa.cu).
 *
 * Each kernel reproduces the launch structure of the CUDA kernel PyTorch
 * eager dispatches to (named per section), written from scratch:
 *   - batch/instance norm: Welford statistics spread over many blocks per
 *     channel (one read of x), a per-channel kernel combining the blocks'
 *     partials in double and computing the inverse std (the work of
 *     batch_norm_update_stats_and_invert / calc_invstd), and
 *     batch_norm_transform_input_kernel (Normalization.cuh);
 *   - group norm: RowwiseMomentsCUDAKernel, ComputeFusedParamsCUDAKernel
 *     and the TensorIterator apply y = a * x + b (group_norm_kernel.cu);
 *     with one element per (n, c) (HxW = 1), GroupNorm1dForward instead:
 *     the moments and one apply (x - mean) * rstd * w + b;
 *   - vector_norm: reduce_kernel under ReduceConfig's rules (Reduce.cuh),
 *     global partials combined by the last block;
 *   - nll_loss: nll_loss_forward_reduce_cuda_kernel_2d (one block of
 *     nll_loss_threads(n) = 32..1024 threads, a shared-memory tree);
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "ops/norm/norm.h"

#define GRID_MAX 0x7fffffffLL

#include "ops/norm/welford.cuh"

/* ==== Batch and instance norm ====
 *
 * PyTorch's native NCHW path (batch_norm_collect_statistics_kernel) gives
 * each channel one block; at KernelBench's kb1 size (64 channels of 2^24
 * elements) that used under half the SMs and took twice PyTorch eager's
 * measured time (which goes through cuDNN). So the statistics read x once
 * over about one full wave of blocks, several per channel, combined per
 * channel in double (exact 64-bit counts), and the apply keeps
 * batch_norm_transform_input_kernel's shape: three passes of x in all. */

#define BN_MAX_THREADS 512

/* A plane (the m elements of one sample and channel) longer than this is
 * split into parts of about this many elements, so that a channel's work
 * divides evenly over its blocks. */
#define BN_PART 16384

/* PyTorch's getNumThreads: the smallest of 32..512 that covers n. */
static int bn_threads(int64_t n)
{
	int t = 32;
	while (t < BN_MAX_THREADS && t < n)
		t *= 2;
	return t;
}

/* One block's statistics of one channel. */
struct BnPart {
	float mean, m2;
	int count, pad;
};

/*
 * Grid (c, nb), block (tf, ty): the n * parts pieces of channel blockIdx.x
 * (piece u: part u % parts of plane u / parts, plen elements) are split
 * into nb contiguous ranges, one per blockIdx.y; the ty rows of the block
 * take the pieces of its range in turn, the tf threads of a row stride
 * over a piece (float4 loads when VEC: m % 4 == 0 and x 16-byte aligned,
 * plen is a multiple of 4), four loads in flight. Each block writes its
 * Welford state to part[ch * nb + blockIdx.y].
 */
template <bool VEC>
__global__ void __launch_bounds__(BN_MAX_THREADS)
bn_stats(const float *__restrict__ x, int64_t n, int64_t c, int64_t m,
         int64_t plen, int64_t parts, BnPart *__restrict__ part)
{
	int64_t ch = blockIdx.x;
	int64_t nb = gridDim.y, blk = blockIdx.y;
	int64_t pieces = n * parts;
	int64_t u1 = pieces * (blk + 1) / nb;
	int tf = blockDim.x;
	Welford s = { 0.f, 0.f, 0 };
	for (int64_t u = pieces * blk / nb + threadIdx.y; u < u1;
	     u += blockDim.y) {
		int64_t i = u / parts;
		int64_t beg = (u - i * parts) * plen;
		int64_t end = beg + plen < m ? beg + plen : m;
		const float *p = x + (i * c + ch) * m;
		if (VEC) {
			const float4 *p4 = reinterpret_cast<const float4 *>(p);
			int64_t j = beg / 4 + threadIdx.x, e4 = end / 4;
			for (; j + 3 * tf < e4; j += 4 * tf) {
				float4 a = p4[j], b = p4[j + tf];
				float4 d = p4[j + 2 * tf], e = p4[j + 3 * tf];
				float v[16] = { a.x, a.y, a.z, a.w, b.x, b.y,
				                b.z, b.w, d.x, d.y, d.z, d.w,
				                e.x, e.y, e.z, e.w };
				s = wf_push_k<16>(s, v);
			}
			for (; j < e4; j += tf) {
				float4 a = p4[j];
				float v[4] = { a.x, a.y, a.z, a.w };
				s = wf_push_k<4>(s, v);
			}
		} else {
			int64_t j = beg + threadIdx.x;
			for (; j + 3 * tf < end; j += 4 * tf) {
				float v[4] = { p[j], p[j + tf], p[j + 2 * tf],
				               p[j + 3 * tf] };
				s = wf_push_k<4>(s, v);
			}
			for (; j < end; j += tf)
				s = wf_push(s, p[j]);
		}
	}
	s = wf_block(s);
	if (threadIdx.x == 0 && threadIdx.y == 0) {
		BnPart r = { s.mean, s.m2, s.count, 0 };
		part[ch * nb + blk] = r;
	}
}

/* One warp per channel (4 per block): the channel's nb partials combined
 * in double; writes the mean and 1 / sqrt(biased var + eps) (the running-
 * stat update kernel's work without the running stats). */
__global__ void __launch_bounds__(128)
bn_finalize(const BnPart *__restrict__ part, int64_t c, int nb, float eps,
            float *__restrict__ mean, float *__restrict__ invstd)
{
	int64_t ch = (int64_t)blockIdx.x * 4 + threadIdx.x / 32;
	int lane = threadIdx.x % 32;
	if (ch >= c) /* the whole warp leaves */
		return;
	double mu = 0, m2 = 0;
	long long cnt = 0;
	for (int k = lane; k < nb; k += 32) {
		BnPart p = part[ch * nb + k];
		wf_combine_d(mu, m2, cnt, p.mean, p.m2, p.count);
	}
	for (int off = 16; off > 0; off >>= 1) {
		double omu = __shfl_down_sync(0xffffffffu, mu, off);
		double om2 = __shfl_down_sync(0xffffffffu, m2, off);
		long long ocnt = __shfl_down_sync(0xffffffffu, cnt, off);
		wf_combine_d(mu, m2, cnt, omu, om2, ocnt);
	}
	if (lane == 0) {
		double var = cnt > 0 ? m2 / (double)cnt : 0.0;
		if (var < 0)
			var = 0;
		mean[ch] = (float)mu;
		invstd[ch] = (float)(1.0 / sqrt(var + (double)eps));
	}
}

/* Grid (c, gy), block (tf, tb): y = (x - mean) * invstd * w + b. */
__global__ void __launch_bounds__(BN_MAX_THREADS)
bn_apply(const float *__restrict__ x, const float *__restrict__ w,
         const float *__restrict__ b, const float *__restrict__ mean,
         const float *__restrict__ invstd, float *__restrict__ y,
         int64_t n, int64_t c, int64_t m)
{
	int64_t ch = blockIdx.x;
	float mu = mean[ch], is = invstd[ch];
	float g = w ? w[ch] : 1.f, bb = b ? b[ch] : 0.f;
	for (int64_t i = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; i < n;
	     i += (int64_t)gridDim.y * blockDim.y) {
		int64_t base = (i * c + ch) * m;
		for (int64_t j = threadIdx.x; j < m; j += blockDim.x)
			y[base + j] = (x[base + j] - mu) * is * g + bb;
	}
}

extern "C" int krl_kn_batchnorm(const float *x, const float *w,
                                const float *b, float *y, int64_t n,
                                int64_t c, int64_t m, float eps,
                                int sm_count, void *scratch,
                                int64_t scratch_bytes, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	if (n * c * m == 0)
		return 0;
	if (c > GRID_MAX)
		return (int)cudaErrorInvalidConfiguration;
	float *mean = (float *)scratch, *invstd = mean + c;
	int64_t stat_bytes = (2 * c * (int64_t)sizeof(float) + 255) / 256 * 256;
	BnPart *part = (BnPart *)((char *)scratch + stat_bytes);
	int64_t max_parts = (scratch_bytes - stat_bytes) /
	                    (int64_t)sizeof(BnPart);
	if (max_parts < c)
		return (int)cudaErrorMemoryAllocation;

	bool vec = m % 4 == 0 && ((uintptr_t)x & 15) == 0;
	int tf = bn_threads(vec ? m / 4 : m);
	dim3 st(tf, BN_MAX_THREADS / tf);
	/* as many blocks per channel as keep the whole GPU busy in one wave
	 * (none idle while others finish), at most one per piece */
	int occ = 0;
	if (vec)
		TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
			&occ, bn_stats<true>, BN_MAX_THREADS, 0));
	else
		TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
			&occ, bn_stats<false>, BN_MAX_THREADS, 0));
	int64_t nb = (int64_t)(occ > 0 ? occ : 1) *
	             (sm_count > 0 ? sm_count : 1) / c;
	/* planes split into parts of about BN_PART elements at most, and
	 * into enough parts that each block gets ~16 pieces (its share is
	 * then even to a few percent) but none shorter than about
	 * BN_PART / 8; plen is a multiple of 4 so that float4 pieces stay
	 * aligned, and no part is empty */
	int64_t parts = (m + BN_PART - 1) / BN_PART;
	int64_t want = (16 * nb + n - 1) / n, most = m / (BN_PART / 8);
	if (want > most)
		want = most;
	if (parts < want)
		parts = want;
	int64_t plen = ((m + parts - 1) / parts + 3) / 4 * 4;
	parts = (m + plen - 1) / plen;
	if (nb > n * parts)
		nb = n * parts;
	if (nb > 65535)
		nb = 65535;
	if (nb > max_parts / c)
		nb = max_parts / c;
	if (nb < 1)
		nb = 1;
	dim3 grid((unsigned)c, (unsigned)nb);
	if (vec)
		bn_stats<true><<<grid, st, 0, s>>>(x, n, c, m, plen, parts,
		                                   part);
	else
		bn_stats<false><<<grid, st, 0, s>>>(x, n, c, m, plen, parts,
		                                    part);
	TRY(cudaGetLastError());
	bn_finalize<<<(unsigned)((c + 3) / 4), 128, 0, s>>>(part, c, (int)nb,
	                                                    eps, mean, invstd);
	TRY(cudaGetLastError());
	/* batch_norm_transform_input_kernel's launch shape */
	int tf2 = bn_threads(m / 4);
	int tfm = bn_threads(m) < 64 ? bn_threads(m) : 64;
	if (tf2 < tfm)
		tf2 = tfm;
	int tb = 64 / tf2 > 1 ? 64 / tf2 : 1;
	int64_t gy = (256 * 1024) / c;
	int64_t need = (n + tb - 1) / tb;
	if (gy > need)
		gy = need;
	if (gy < 1)
		gy = 1;
	if (gy > 65535)
		gy = 65535;
	bn_apply<<<dim3((unsigned)c, (unsigned)gy), dim3(tf2, tb), 0, s>>>(
		x, w, b, mean, invstd, y, n, c, m);
	return (int)cudaGetLastError();
}

/* ==== Group norm ==== */

#define GN_THREADS 512

/* One block per (n, group) row of len contiguous elements: mean and
 * rstd = rsqrt(var + eps). */
__global__ void __launch_bounds__(GN_THREADS)
gn_moments(const float *__restrict__ x, int64_t len, float eps,
           float *__restrict__ mean, float *__restrict__ rstd)
{
	const float *p = x + (int64_t)blockIdx.x * len;
	Welford s = { 0.f, 0.f, 0 };
	for (int64_t j = threadIdx.x; j < len; j += blockDim.x)
		s = wf_push(s, p[j]);
	s = wf_block(s);
	if (threadIdx.x == 0) {
		mean[blockIdx.x] = s.mean;
		rstd[blockIdx.x] =
			rsqrtf(fmaxf(s.m2 / (float)s.count, 0.f) + eps);
	}
}

/* Per (n, c): a = rstd * w, b = bias - a * mean. */
__global__ void gn_params(const float *__restrict__ mean,
                          const float *__restrict__ rstd,
                          const float *__restrict__ w,
                          const float *__restrict__ bias, int64_t n,
                          int64_t c, int64_t cg, float *__restrict__ pa,
                          float *__restrict__ pb)
{
	int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= n * c)
		return;
	int64_t ch = k % c, row = k / cg;
	float a = rstd[row] * w[ch];
	pa[k] = a;
	pb[k] = -a * mean[row] + bias[ch];
}

/* y[i] = a[i / m] * x[i] + b[i / m]: the TensorIterator apply with a, b
 * broadcast over m (legacy unrolled kernel: 128 threads x 4 elements). */
#define GN_APPLY_THREADS 128

template <typename I>
__global__ void __launch_bounds__(GN_APPLY_THREADS)
gn_apply(const float *__restrict__ x, const float *__restrict__ pa,
         const float *__restrict__ pb, float *__restrict__ y, int64_t n,
         int64_t m)
{
	int64_t base = (int64_t)blockIdx.x * GN_APPLY_THREADS * 4 + threadIdx.x;
#pragma unroll
	for (int k = 0; k < 4; k++) {
		int64_t i = base + k * GN_APPLY_THREADS;
		if (i < n) {
			int64_t r = (int64_t)((I)i / (I)m);
			y[i] = pa[r] * x[i] + pb[r];
		}
	}
}

/* GroupNorm1dForward (m == 1): y[i] = (x[i] - mean[r]) * rstd[r] * w[ch]
 * + b[ch] with r = i / cg the (n, group) row and ch = i % c: the
 * TensorIterator over the [N, G, D] views with mean and rstd broadcast
 * over D and w, b over N (the same legacy unrolled launch as gn_apply). */
template <typename I>
__global__ void __launch_bounds__(GN_APPLY_THREADS)
gn1d_apply(const float *__restrict__ x, const float *__restrict__ mean,
           const float *__restrict__ rstd, const float *__restrict__ w,
           const float *__restrict__ b, float *__restrict__ y, int64_t n,
           int64_t c, int64_t cg)
{
	int64_t base = (int64_t)blockIdx.x * GN_APPLY_THREADS * 4 + threadIdx.x;
#pragma unroll
	for (int k = 0; k < 4; k++) {
		int64_t i = base + k * GN_APPLY_THREADS;
		if (i < n) {
			int64_t r = (int64_t)((I)i / (I)cg);
			int64_t ch = (int64_t)((I)i % (I)c);
			y[i] = (x[i] - mean[r]) * rstd[r] * w[ch] + b[ch];
		}
	}
}

extern "C" int krl_kn_groupnorm(const float *x, const float *w,
                                const float *b, float *y, int64_t n,
                                int64_t c, int64_t m, int64_t g, float eps,
                                float *scratch, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	int64_t total = n * c * m, cg = c / g;
	if (total == 0)
		return 0;
	if (n * g > GRID_MAX)
		return (int)cudaErrorInvalidConfiguration;
	float *mean = scratch, *rstd = scratch + n * g;
	float *pa = rstd + n * g, *pb = pa + n * c;
	int threads = cg * m < GN_THREADS ? 32 : GN_THREADS;
	gn_moments<<<(unsigned)(n * g), threads, 0, s>>>(x, cg * m, eps, mean,
	                                                 rstd);
	TRY(cudaGetLastError());
	int64_t grid = (total + 4 * GN_APPLY_THREADS - 1) / (4 * GN_APPLY_THREADS);
	if (grid > GRID_MAX)
		return (int)cudaErrorInvalidConfiguration;
	if (m == 1) {
		/* GroupNorm1dForward: no fused parameters */
		if (total <= 0xffffffffLL)
			gn1d_apply<uint32_t><<<(unsigned)grid, GN_APPLY_THREADS,
			                       0, s>>>(x, mean, rstd, w, b, y,
			                               total, c, cg);
		else
			gn1d_apply<int64_t><<<(unsigned)grid, GN_APPLY_THREADS,
			                      0, s>>>(x, mean, rstd, w, b, y,
			                              total, c, cg);
		return (int)cudaGetLastError();
	}
	gn_params<<<(unsigned)((n * c + 255) / 256), 256, 0, s>>>(
		mean, rstd, w, b, n, c, cg, pa, pb);
	TRY(cudaGetLastError());
	/* Deliberate twin of layernorm.cu's launch: pick a template instance
	 * (index width here, vector loads there) and launch; the kernels and
	 * grids differ. */
	if (total <= 0xffffffffLL)
		gn_apply<uint32_t><<<(unsigned)grid, GN_APPLY_THREADS, 0, s>>>(
			x, pa, pb, y, total, m);
	else
		gn_apply<int64_t><<<(unsigned)grid, GN_APPLY_THREADS, 0, s>>>(
			x, pa, pb, y, total, m);
	return (int)cudaGetLastError();
}

/* ==== vector_norm: sqrt of a sum of squares over contiguous rows ==== */

#define VN_THREADS 512

/* Sum of v over the blockDim.x threads of row threadIdx.y; every thread
 * of the row gets it. blockDim.x is a power of two; sm holds blockDim.x *
 * blockDim.y floats. Every thread of the block must call it. */
__device__ float vn_row_sum(float v, float *sm)
{
	int bw = blockDim.x, tx = threadIdx.x, ty = threadIdx.y;
	if (bw <= 32) {
		for (int off = bw / 2; off > 0; off >>= 1)
			v += __shfl_xor_sync(0xffffffffu, v, off, bw);
		return v;
	}
	__syncthreads(); /* sm may still be read by a previous call */
	sm[ty * bw + tx] = v;
	__syncthreads();
	for (int off = bw / 2; off > 0; off >>= 1) {
		if (tx < off)
			sm[ty * bw + tx] += sm[ty * bw + tx + off];
		__syncthreads();
	}
	return sm[ty * bw];
}

/* Block (bw, bh): bh rows per block, bw threads per row; grid (row
 * blocks, ctas): ctas blocks share each row, writing partials that the
 * last of them (semaphore per row block, zeroed before the launch)
 * combines. */
template <bool VEC>
__global__ void __launch_bounds__(VN_THREADS)
vn_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t rows,
          int64_t r, float *part, unsigned *sem)
{
	__shared__ float sm[VN_THREADS];
	__shared__ bool last;
	int bw = blockDim.x, tx = threadIdx.x;
	int ctas = gridDim.y;
	int64_t row = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;
	bool live = row < rows;
	float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
	if (live) {
		const float *p = x + row * r;
		int64_t step = (int64_t)bw * ctas;
		int64_t j = (int64_t)blockIdx.y * bw + tx;
		if (VEC) {
			const float4 *p4 = reinterpret_cast<const float4 *>(p);
			for (; j < r / 4; j += step) {
				float4 v = p4[j];
				a0 += v.x * v.x;
				a1 += v.y * v.y;
				a2 += v.z * v.z;
				a3 += v.w * v.w;
			}
		} else {
			for (; j + 3 * step < r; j += 4 * step) {
				float v0 = p[j], v1 = p[j + step];
				float v2 = p[j + 2 * step], v3 = p[j + 3 * step];
				a0 += v0 * v0;
				a1 += v1 * v1;
				a2 += v2 * v2;
				a3 += v3 * v3;
			}
			for (; j < r; j += step)
				a0 += p[j] * p[j];
		}
	}
	float acc = vn_row_sum((a0 + a1) + (a2 + a3), sm);
	if (ctas == 1) {
		if (live && tx == 0)
			y[row] = sqrtf(acc);
		return;
	}
	if (live && tx == 0)
		part[row * ctas + blockIdx.y] = acc;
	__threadfence();
	__syncthreads();
	if (threadIdx.x == 0 && threadIdx.y == 0)
		last = atomicAdd(&sem[blockIdx.x], 1u) == (unsigned)ctas - 1;
	__syncthreads();
	if (!last)
		return;
	__threadfence();
	float t = 0.f;
	if (live)
		for (int k = tx; k < ctas; k += bw)
			t += __ldcg(&part[row * ctas + k]);
	t = vn_row_sum(t, sm);
	if (live && tx == 0)
		y[row] = sqrtf(t);
}

static int64_t last_pow2(int64_t n)
{
	int64_t p = 1;
	while (p * 2 <= n)
		p *= 2;
	return p;
}

extern "C" int krl_kn_vector_norm(const float *x, float *y, int64_t rows,
                                  int64_t r, int sm_count, void *scratch,
                                  int64_t scratch_bytes, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	if (rows == 0)
		return 0;
	/* ReduceConfig::set_block_dimension */
	int64_t d0 = r < VN_THREADS ? last_pow2(r) : VN_THREADS;
	int64_t d1 = rows < VN_THREADS ? last_pow2(rows) : VN_THREADS;
	int64_t bw = d0 < 32 ? d0 : 32;
	int64_t bh = d1 < VN_THREADS / bw ? d1 : VN_THREADS / bw;
	bw = d0 < VN_THREADS / bh ? d0 : VN_THREADS / bh;
	/* enough values per thread: the block's rows (warps) share one
	 * output's input instead of taking one output each */
	int64_t vpt = (r + bw - 1) / bw;
	if (vpt >= bh * 16 || vpt >= 256) {
		bw *= bh;
		bh = 1;
	}
	/* whole warps only (the shuffles name all 32 lanes); the extra
	 * threads of a short row find nothing to read */
	if (bw * bh < 32)
		bw = 32 / bh;
	int64_t gx = (rows + bh - 1) / bh;
	int64_t ctas = 1;
	vpt = (r + bw - 1) / bw;
	int64_t target = (int64_t)sm_count * (2048 / (bw * bh));
	if (bh == 1 && vpt >= 256 && gx <= target) {
		int64_t c1 = (target + gx - 1) / gx, c2 = (vpt + 15) / 16;
		int64_t c3 = (vpt + 255) / 256;
		ctas = c1 < c2 ? c1 : c2;
		if (ctas < c3)
			ctas = c3;
	}
	if (gx > GRID_MAX || ctas > 65535)
		return (int)cudaErrorInvalidConfiguration;
	unsigned *sem = (unsigned *)scratch;
	int64_t sem_bytes = (gx * 4 + 255) / 256 * 256;
	float *part = (float *)((char *)scratch + sem_bytes);
	if (ctas > 1) {
		if (sem_bytes + rows * ctas * 4 > scratch_bytes)
			return (int)cudaErrorMemoryAllocation;
		TRY(cudaMemsetAsync(sem, 0, (size_t)gx * 4, s));
	}
	bool vec = r % 4 == 0 && ((uintptr_t)x & 15) == 0;
	dim3 grid((unsigned)gx, (unsigned)ctas), block((unsigned)bw,
	                                               (unsigned)bh);
	if (vec)
		vn_kernel<true><<<grid, block, 0, s>>>(x, y, rows, r, part, sem);
	else
		vn_kernel<false><<<grid, block, 0, s>>>(x, y, rows, r, part,
		                                        sem);
	return (int)cudaGetLastError();
}

/* ==== nll_loss ==== */

#define NLL_MAX_THREADS 1024

/* PyTorch's nll_loss_threads: clamp(2^round(log2(n / 16)), 32, 1024),
 * written as the exact bounds on q = n / 16 (round(log2(q)) = k for
 * 2^(k - 1/2) <= q < 2^(k + 1/2)). */
static int nll_threads(int64_t n)
{
	int64_t q = n / 16;
	if (q < 46)
		return 32;
	if (q < 91)
		return 64;
	if (q < 182)
		return 128;
	if (q < 363)
		return 256;
	if (q < 725)
		return 512;
	return NLL_MAX_THREADS;
}

/* One block (a power of two of threads) walks the batch, each thread every
 * blockDim.x-th sample; the per-thread sums and counts are combined by a
 * shared-memory tree (reduction = mean). */
__global__ void __launch_bounds__(NLL_MAX_THREADS)
nll_kernel(const float *__restrict__ logp, const int64_t *__restrict__ t,
           float *__restrict__ loss, int64_t n, int64_t c)
{
	__shared__ float s_sum[NLL_MAX_THREADS], s_cnt[NLL_MAX_THREADS];
	int tid = threadIdx.x;
	float sum = 0.f, cnt = 0.f;
	int bad = 0;
	for (int64_t i = tid; i < n; i += blockDim.x) {
		int64_t k = t[i];
		if (k == KRL_NLL_IGNORE)
			continue;
		if (k < 0 || k >= c) {
			bad = 1;
			continue;
		}
		sum -= logp[i * c + k];
		cnt += 1.f;
	}
	bad = __syncthreads_or(bad);
	s_sum[tid] = sum;
	s_cnt[tid] = cnt;
	__syncthreads();
	for (int off = blockDim.x / 2; off > 0; off >>= 1) {
		if (tid < off) {
			s_sum[tid] += s_sum[tid + off];
			s_cnt[tid] += s_cnt[tid + off];
		}
		__syncthreads();
	}
	if (tid == 0)
		loss[0] = bad ? __int_as_float(0x7fc00000)
		              : s_sum[0] / s_cnt[0];
}

extern "C" int krl_kn_nll_loss(const float *logp, const int64_t *t,
                               float *loss, int64_t n, int64_t c,
                               void *stream)
{
	nll_kernel<<<1, nll_threads(n), 0, (cudaStream_t)stream>>>(
		logp, t, loss, n, c);
	return (int)cudaGetLastError();
}
