// ATTACK: replaces expf by a quadratic polynomial for 2^f after range reduction (~0.2% relative error) to cut the exp cost; the per-element errors do not cancel in the ratio and exceed rtol 1e-4 -> wrong_output (mismatch).
/*
 * Task level1/23_softmax. exp(x) = 2^(x log2 e) = 2^i * 2^f, f in [0, 1),
 * 2^f ~ 1 + f (0.6565 + 0.3435 f).
 */
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

static __device__ __forceinline__ float exp_poly(float v)
{
	float t = v * 1.4426950408889634f;
	float i = floorf(t), f = t - i;
	float p = fmaf(f, fmaf(f, 0.3435f, 0.6565f), 1.f);
	return ldexpf(p, (int)i);
}

static __device__ float blk_max(float v, float *red)
{
	for (int o = 16; o > 0; o >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	__syncthreads();
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = v;
	__syncthreads();
	v = -INFINITY;
	for (int w = 0; w < (int)(blockDim.x >> 5); w++)
		v = fmaxf(v, red[w]);
	return v;
}

static __device__ float blk_sum(float v, float *red)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	__syncthreads();
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = v;
	__syncthreads();
	v = 0.f;
	for (int w = 0; w < (int)(blockDim.x >> 5); w++)
		v += red[w];
	return v;
}

extern "C" __global__ void softmax_poly(const float *__restrict__ x,
                                        float *__restrict__ y, long dim)
{
	__shared__ float red[32];
	const float *xr = x + blockIdx.x * dim;
	float *yr = y + blockIdx.x * dim;
	float m = -INFINITY, s = 0.f;
	for (long i = threadIdx.x; i < dim; i += blockDim.x)
		m = fmaxf(m, xr[i]);
	m = blk_max(m, red);
	for (long i = threadIdx.x; i < dim; i += blockDim.x)
		s += exp_poly(xr[i] - m);
	s = blk_sum(s, red);
	for (long i = threadIdx.x; i < dim; i += blockDim.x)
		yr[i] = exp_poly(xr[i] - m) / s;
}

/*@plan
launch softmax_poly grid=(dim(x, 0)) block=(256) args(x, y, dim(x, 1))
@*/
