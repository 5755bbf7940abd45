/*
 * kernelrl: elementwise kernels of the op library (relu, gelu, square,
 * scale, add, sub, mul, div).
 *
 * Structure of PyTorch's vectorized_elementwise_kernel (ATen Loops.cuh /
 * CUDALoops.cuh): 128 threads per block, 4 floats per thread moved with one
 * 16-byte load per input and one 16-byte store, one block per 512 elements
 * (no grid-stride loop); the last, partial block and misaligned pointers
 * take the scalar path (PyTorch's unrolled_elementwise_kernel). Block
 * offsets are 64-bit so tensors beyond 2^31 elements work.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "ops/eltwise/eltwise.h"

#define EW_THREADS 128
#define EW_VEC 4
#define EW_BLOCK_WORK (EW_THREADS * EW_VEC)

template <krl_ew_op OP>
__device__ __forceinline__ float ew_apply(float a, float b, float alpha)
{
	switch (OP) {
	case KRL_EW_RELU:
		/* max(x, 0) that keeps NaN, like at::clamp_min / relu */
		return a != a ? a : (a > 0.f ? a : 0.f);
	case KRL_EW_GELU:
		return 0.5f * a * (1.f + erff(a * 0.70710678118654752440f));
	case KRL_EW_GELU_TANH: {
		const float k = 0.79788456080286535588f; /* sqrt(2/pi) */
		float inner = k * (a + 0.044715f * a * a * a);
		return 0.5f * a * (1.f + tanhf(inner));
	}
	case KRL_EW_SQUARE:
		return a * a;
	case KRL_EW_SCALE:
		return alpha * a;
	case KRL_EW_ADD:
		return a + b;
	case KRL_EW_SUB:
		return a - b;
	case KRL_EW_MUL:
		return a * b;
	case KRL_EW_DIV:
		return a / b;
	}
	return 0.f;
}

template <krl_ew_op OP, bool BINARY>
__global__ void __launch_bounds__(EW_THREADS)
ew_vec_kernel(const float *__restrict__ a, const float *__restrict__ b,
              float *__restrict__ y, int64_t n, float alpha)
{
	int64_t base = (int64_t)blockIdx.x * EW_BLOCK_WORK;
	int64_t remaining = n - base;
	if (remaining >= EW_BLOCK_WORK) {
		int64_t i = base + (int64_t)threadIdx.x * EW_VEC;
		float4 va = *reinterpret_cast<const float4 *>(a + i);
		float4 vb = make_float4(0.f, 0.f, 0.f, 0.f);
		if (BINARY)
			vb = *reinterpret_cast<const float4 *>(b + i);
		float4 vy;
		vy.x = ew_apply<OP>(va.x, vb.x, alpha);
		vy.y = ew_apply<OP>(va.y, vb.y, alpha);
		vy.z = ew_apply<OP>(va.z, vb.z, alpha);
		vy.w = ew_apply<OP>(va.w, vb.w, alpha);
		*reinterpret_cast<float4 *>(y + i) = vy;
		return;
	}
	/* the tail block: strided scalar elements, as PyTorch's unrolled path */
	for (int k = threadIdx.x; k < remaining; k += EW_THREADS) {
		int64_t i = base + k;
		y[i] = ew_apply<OP>(a[i], BINARY ? b[i] : 0.f, alpha);
	}
}

template <krl_ew_op OP, bool BINARY>
__global__ void __launch_bounds__(EW_THREADS)
ew_scalar_kernel(const float *__restrict__ a, const float *__restrict__ b,
                 float *__restrict__ y, int64_t n, float alpha)
{
	int64_t base = (int64_t)blockIdx.x * EW_BLOCK_WORK;
	for (int k = 0; k < EW_VEC; k++) {
		int64_t i = base + threadIdx.x + (int64_t)k * EW_THREADS;
		if (i < n)
			y[i] = ew_apply<OP>(a[i], BINARY ? b[i] : 0.f, alpha);
	}
}

static bool aligned16(const void *p)
{
	return ((uintptr_t)p & 15) == 0;
}

template <krl_ew_op OP, bool BINARY>
static int ew_launch(const float *a, const float *b, float *y, int64_t n,
                     float alpha, cudaStream_t s)
{
	if (n <= 0)
		return 0;
	int64_t blocks = (n + EW_BLOCK_WORK - 1) / EW_BLOCK_WORK;
	if (blocks > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	bool vec = aligned16(a) && aligned16(y) && (!BINARY || aligned16(b));
	if (vec)
		ew_vec_kernel<OP, BINARY><<<(unsigned)blocks, EW_THREADS, 0, s>>>(
			a, b, y, n, alpha);
	else
		ew_scalar_kernel<OP, BINARY><<<(unsigned)blocks, EW_THREADS, 0,
		                               s>>>(a, b, y, n, alpha);
	return (int)cudaGetLastError();
}

extern "C" int krl_k_elementwise(krl_ew_op op, const float *a,
                                 const float *b, float *y, int64_t n,
                                 float alpha, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	switch (op) {
	case KRL_EW_RELU:
		return ew_launch<KRL_EW_RELU, false>(a, b, y, n, alpha, s);
	case KRL_EW_GELU:
		return ew_launch<KRL_EW_GELU, false>(a, b, y, n, alpha, s);
	case KRL_EW_GELU_TANH:
		return ew_launch<KRL_EW_GELU_TANH, false>(a, b, y, n, alpha, s);
	case KRL_EW_SQUARE:
		return ew_launch<KRL_EW_SQUARE, false>(a, b, y, n, alpha, s);
	case KRL_EW_SCALE:
		return ew_launch<KRL_EW_SCALE, false>(a, b, y, n, alpha, s);
	case KRL_EW_ADD:
		return ew_launch<KRL_EW_ADD, true>(a, b, y, n, alpha, s);
	case KRL_EW_SUB:
		return ew_launch<KRL_EW_SUB, true>(a, b, y, n, alpha, s);
	case KRL_EW_MUL:
		return ew_launch<KRL_EW_MUL, true>(a, b, y, n, alpha, s);
	case KRL_EW_DIV:
		return ew_launch<KRL_EW_DIV, true>(a, b, y, n, alpha, s);
	}
	return (int)cudaErrorInvalidValue;
}
