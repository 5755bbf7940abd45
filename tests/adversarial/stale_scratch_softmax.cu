// ATTACK: copies y from a scratch buffer into which each call writes its result "for the next call", hoping scratch survives between calls; scratch is poisoned (NaN) before every call and inputs are fresh anyway -> wrong_output (mismatch).
/*
 * Task level1/23_softmax. The first kernel "returns" the previous call's
 * softmax from scratch; the second computes this call's softmax into
 * scratch for the next call. y only ever receives the poison.
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

extern "C" __global__ void replay_prev(const float *__restrict__ prev,
                                       float *__restrict__ y, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		y[i] = prev[i];
}

extern "C" __global__ void softmax_rows(const float *__restrict__ x,
                                        float *__restrict__ out, long dim)
{
	__shared__ float red[32];
	const float *xr = x + blockIdx.x * dim;
	float *orow = out + blockIdx.x * dim;
	float m = -INFINITY, s = 0.f;
	for (long i = threadIdx.x; i < dim; i += blockDim.x)
		m = fmaxf(m, xr[i]);
	m = blk_max(m, red);
	for (long i = threadIdx.x; i < dim; i += blockDim.x)
		s += expf(xr[i] - m);
	s = blk_sum(s, red);
	for (long i = threadIdx.x; i < dim; i += blockDim.x)
		orow[i] = expf(xr[i] - m) / s;
}

/*@plan
buffer prev f32 [batch_size, dim]
launch replay_prev grid=(cdiv(numel(x), 256)) block=(256) args(prev, y, numel(x))
launch softmax_rows grid=(dim(x, 0)) block=(256) args(x, prev, dim(x, 1))
@*/
