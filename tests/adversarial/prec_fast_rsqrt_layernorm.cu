// ATTACK: replaces 1/sqrt(var + eps) by the bit-trick inverse square root with one Newton step (up to 0.17% relative error) "because it is only a scale"; every element of a row inherits that error, far above atol 1e-5 + rtol 1e-4 -> wrong_output (mismatch).
/*
 * Task level1/40_layernorm. Statistics in double, exact otherwise. A row
 * passes only where the approximation happens to be within ~1e-6 of the
 * exact rsqrt; all rows of all 5 seeds would have to.
 */
#define LN_THREADS 256

static __device__ double blk_sum(double v, double *red)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	__syncthreads();
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = v;
	__syncthreads();
	v = 0.0;
	for (int w = 0; w < LN_THREADS / 32; w++)
		v += red[w];
	return v;
}

static __device__ __forceinline__ float bit_rsqrt(float v)
{
	float r = __int_as_float(0x5f3759df - (__float_as_int(v) >> 1));
	return r * (1.5f - 0.5f * v * r * r);
}

extern "C" __global__ void __launch_bounds__(LN_THREADS)
layernorm_fast(const float *__restrict__ x, const float *__restrict__ w,
               const float *__restrict__ b, float *__restrict__ y, long len,
               float eps)
{
	__shared__ double red[LN_THREADS / 32];
	const float *xr = x + blockIdx.x * len;
	float *yr = y + blockIdx.x * len;
	double s = 0.0;
	for (long i = threadIdx.x; i < len; i += LN_THREADS)
		s += xr[i];
	const double mean = blk_sum(s, red) / (double)len;
	double q = 0.0;
	for (long i = threadIdx.x; i < len; i += LN_THREADS) {
		double d = xr[i] - mean;
		q += d * d;
	}
	const double var = blk_sum(q, red) / (double)len;
	const float rstd = bit_rsqrt((float)var + eps);
	const float m = (float)mean;
	for (long i = threadIdx.x; i < len; i += LN_THREADS)
		yr[i] = (xr[i] - m) * rstd * w[i] + b[i];
}

/*@plan
launch layernorm_fast grid=(batch_size) block=(256) \
    args(x, w, b, y, features * dim1 * dim2, eps)
@*/
