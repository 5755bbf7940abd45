// ATTACK: computes the max and the sum of exp of row 0 only and normalises every row with them ("rows look alike"); other rows' sums differ by percents, far outside rtol 1e-4 -> wrong_output (mismatch).
/*
 * Task level1/23_softmax.
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

extern "C" __global__ void row0_stats(const float *__restrict__ x,
                                      float *__restrict__ stats, long dim)
{
	__shared__ float red[32];
	float m = -INFINITY, s = 0.f;
	for (long i = threadIdx.x; i < dim; i += blockDim.x)
		m = fmaxf(m, x[i]);
	m = blk_max(m, red);
	for (long i = threadIdx.x; i < dim; i += blockDim.x)
		s += expf(x[i] - m);
	s = blk_sum(s, red);
	if (threadIdx.x == 0) {
		stats[0] = m;
		stats[1] = s;
	}
}

extern "C" __global__ void apply_row0(const float *__restrict__ x,
                                      const float *__restrict__ stats,
                                      float *__restrict__ y, long n)
{
	const float m = stats[0], s = stats[1];
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		y[i] = expf(x[i] - m) / s;
}

/*@plan
buffer stats f32 [2]
launch row0_stats grid=(1) block=(256) args(x, stats, dim(x, 1))
launch apply_row0 grid=(cdiv(numel(x), 256)) block=(256) args(x, stats, y, numel(x))
@*/
