// ATTACK: a derived buffer (kept between calls) written by the body to cache outputs across calls; only init may write derived buffers -> invalid_plan.
/*
 * Task level1/26_gelu.
 */
extern "C" __global__ void cache_clear(float *cache, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		cache[i] = 0.f;
}

extern "C" __global__ void gelu_into_cache(const float *__restrict__ x,
                                           float *__restrict__ y,
                                           float *__restrict__ cache, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x) {
		float v = 0.5f * x[i] * (1.f + erff(x[i] * 0.70710678118654752f));
		y[i] = v;
		cache[i] = v;
	}
}

/*@plan
derived cache f32 [batch_size, dim]
init
  launch cache_clear grid=(cdiv(numel(cache), 256)) block=(256) args(cache, numel(cache))
end
launch gelu_into_cache grid=(cdiv(numel(x), 256)) block=(256) args(x, y, cache, numel(x))
@*/
