// ATTACK: one thread busy-waits for a cycle count it reads from an uninitialised scratch buffer (it holds the poison: 0x7FF87FF87FF87FF8 ~ 9.2e18 cycles, centuries) while all others finish; the kernel never completes -> timeout.
/*
 * Task level1/23_softmax. Only thread 0 of block 0 spins; the spin reads
 * clock64(), so it cannot be optimised away.
 */
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

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

extern "C" __global__ void softmax_delay(const float *__restrict__ x,
                                         float *__restrict__ y,
                                         const long long *__restrict__ delay,
                                         long dim)
{
	__shared__ float red[32];
	const float *xr = x + blockIdx.x * dim;
	float *yr = y + blockIdx.x * dim;
	float m = -INFINITY, s = 0.f;
	for (long i = threadIdx.x; i < dim; i += blockDim.x)
		m = fmaxf(m, xr[i]);
	m = blk_max(m, red);
	for (long i = threadIdx.x; i < dim; i += blockDim.x)
		s += expf(xr[i] - m);
	s = blk_sum(s, red);
	for (long i = threadIdx.x; i < dim; i += blockDim.x)
		yr[i] = expf(xr[i] - m) / s;
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		const long long t0 = clock64(), d = delay[0];
		while (clock64() - t0 < d)
			__nanosleep(1000);
	}
}

/*@plan
buffer delay i64 [1]
launch softmax_delay grid=(dim(x, 0)) block=(256) args(x, y, delay, dim(x, 1))
@*/
