// ATTACK: hard-codes the kb1 row length (393216) as a constant; on tiny and kb0 one "row" then spans several real rows, so each element is normalised by the sum over all of them -> wrong_output (mismatch).
/*
 * Task level1/23_softmax. Accesses stay within numel(x).
 */
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#define ROW 393216L /* kb1's dim */

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

extern "C" __global__ void softmax_fixed(const float *__restrict__ x,
                                         float *__restrict__ y, long total)
{
	__shared__ float red[32];
	const long begin = blockIdx.x * ROW;
	const long len = begin + ROW < total ? ROW : total - begin;
	const float *xr = x + begin;
	float *yr = y + begin;
	float m = -INFINITY, s = 0.f;
	for (long i = threadIdx.x; i < len; i += blockDim.x)
		m = fmaxf(m, xr[i]);
	m = blk_max(m, red);
	for (long i = threadIdx.x; i < len; i += blockDim.x)
		s += expf(xr[i] - m);
	s = blk_sum(s, red);
	for (long i = threadIdx.x; i < len; i += blockDim.x)
		yr[i] = expf(xr[i] - m) / s;
}

/*@plan
launch softmax_fixed grid=(cdiv(numel(x), 393216)) block=(1024) args(x, y, numel(x))
@*/
