/*
 * kernelrl: layer normalisation over the trailing n elements of each row.
 *
 * PyTorch's vectorized_layer_norm_kernel (ATen layer_norm_kernel.cu): one
 * block of 32 x 4 = 128 threads per row; pass 1 reads the row with 16-byte
 * loads into per-thread Welford states (mean, M2, count in float), combined
 * by warp shuffles and then across the 4 warps in shared memory into mean
 * and rstd = rsqrt(var + eps) with the biased variance; pass 2 reads the row
 * again and writes (x - mean) * rstd * w + b, vectorised. Rows whose length
 * or pointers do not allow 16-byte vectors use the same kernel with scalar
 * loads (PyTorch then runs RowwiseMoments + LayerNormForward, the same two
 * passes in two kernels).
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "ops/norm/norm.h"

#define LN_THREADS 128

struct Welford {
	float mean, m2, count;
};

__device__ __forceinline__ Welford wf_push(Welford a, float v)
{
	a.count += 1.f;
	float d1 = v - a.mean;
	/* a reciprocal, not a division: PyTorch's cuWelfordOnlineSum trades
	 * the same last bit for speed */
	a.mean += d1 * (1.f / a.count);
	a.m2 += d1 * (v - a.mean);
	return a;
}

__device__ __forceinline__ Welford wf_combine(Welford a, Welford b)
{
	float count = a.count + b.count;
	float coef = count != 0.f ? b.count / count : 0.f;
	float delta = b.mean - a.mean;
	Welford r;
	r.mean = a.mean + delta * coef;
	r.m2 = a.m2 + b.m2 + delta * delta * a.count * coef;
	r.count = count;
	return r;
}

__device__ __forceinline__ Welford wf_shfl(Welford a, int off)
{
	Welford r;
	r.mean = __shfl_down_sync(0xffffffffu, a.mean, off);
	r.m2 = __shfl_down_sync(0xffffffffu, a.m2, off);
	r.count = __shfl_down_sync(0xffffffffu, a.count, off);
	return r;
}

template <bool VEC>
__global__ void __launch_bounds__(LN_THREADS)
layernorm_kernel(const float *__restrict__ x, const float *__restrict__ w,
                 const float *__restrict__ b, float *__restrict__ y,
                 int64_t n, float eps)
{
	__shared__ Welford part[LN_THREADS / 32];
	__shared__ float stats[2];
	const float *px = x + (int64_t)blockIdx.x * n;
	float *py = y + (int64_t)blockIdx.x * n;
	int t = threadIdx.x, nt = blockDim.x;
	Welford s = { 0.f, 0.f, 0.f };
	if (VEC) {
		const float4 *px4 = reinterpret_cast<const float4 *>(px);
		for (int64_t j = t; j < n / 4; j += nt) {
			float4 v = px4[j];
			s = wf_push(s, v.x);
			s = wf_push(s, v.y);
			s = wf_push(s, v.z);
			s = wf_push(s, v.w);
		}
	} else {
		for (int64_t j = t; j < n; j += nt)
			s = wf_push(s, px[j]);
	}
	for (int off = 16; off > 0; off >>= 1)
		s = wf_combine(s, wf_shfl(s, off));
	if (t % 32 == 0)
		part[t / 32] = s;
	__syncthreads();
	if (t == 0) {
		Welford a = part[0];
		for (int k = 1; k < nt / 32; k++)
			a = wf_combine(a, part[k]);
		float var = a.m2 / (float)n;
		stats[0] = a.mean;
		stats[1] = rsqrtf(fmaxf(var, 0.f) + eps);
	}
	__syncthreads();
	float mean = stats[0], rstd = stats[1];
	if (VEC) {
		const float4 *px4 = reinterpret_cast<const float4 *>(px);
		const float4 *pw4 = reinterpret_cast<const float4 *>(w);
		const float4 *pb4 = reinterpret_cast<const float4 *>(b);
		float4 *py4 = reinterpret_cast<float4 *>(py);
		for (int64_t j = t; j < n / 4; j += nt) {
			float4 v = px4[j], g = pw4[j], c = pb4[j], o;
			o.x = (v.x - mean) * rstd * g.x + c.x;
			o.y = (v.y - mean) * rstd * g.y + c.y;
			o.z = (v.z - mean) * rstd * g.z + c.z;
			o.w = (v.w - mean) * rstd * g.w + c.w;
			py4[j] = o;
		}
	} else {
		for (int64_t j = t; j < n; j += nt)
			py[j] = (px[j] - mean) * rstd * w[j] + b[j];
	}
}

extern "C" int krl_k_layernorm(const float *x, const float *w,
                               const float *b, float *y, int64_t rows,
                               int64_t n, float eps, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	if (rows == 0 || n == 0)
		return 0;
	if (rows > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	bool vec = n % 4 == 0 && ((uintptr_t)x & 15) == 0 &&
	           ((uintptr_t)w & 15) == 0 && ((uintptr_t)b & 15) == 0 &&
	           ((uintptr_t)y & 15) == 0;
	if (vec)
		layernorm_kernel<true><<<(unsigned)rows, LN_THREADS, 0, s>>>(
			x, w, b, y, n, eps);
	else
		layernorm_kernel<false><<<(unsigned)rows, LN_THREADS, 0, s>>>(
			x, w, b, y, n, eps);
	return (int)cudaGetLastError();
}
