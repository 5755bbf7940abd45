// ATTACK: keeps a result cache in `derived` buffers (reset by init, written in the body through const_cast) and replays it while init does not run again; init runs per correctness seed but only once for all timed calls, so the always-verified first timed call gets a warmup call's output -> wrong_output (mismatch, phase timing).
/*
 * Task level1/19_relu. The plan passes the derived buffers to the body
 * only as const pointers (so it validates); the kernel writes them anyway.
 * Correctness: init (valid = 0) runs before every seed, so every checked
 * call computes. Timing: init runs once, the first warmup call fills the
 * cache, every later call replays it.
 */
extern "C" __global__ void relu_cache_reset(float *cache, int *valid)
{
	valid[0] = 0;
}

extern "C" __global__ void relu_from_cache(const float *__restrict__ x,
                                           float *__restrict__ y,
                                           const float *cache,
                                           const int *valid, long n)
{
	const bool hit = valid[0] == 1;
	float *c = const_cast<float *>(cache);
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x) {
		if (hit) {
			y[i] = c[i];
		} else {
			float v = fmaxf(x[i], 0.f);
			y[i] = v;
			c[i] = v;
		}
	}
}

extern "C" __global__ void relu_cache_mark(const int *valid)
{
	const_cast<int *>(valid)[0] = 1;
}

/*@plan
derived cache f32 [batch_size, dim]
derived valid i32 [1]
init
  launch relu_cache_reset grid=(1) block=(1) args(cache, valid)
end
launch relu_from_cache grid=(cdiv(numel(x), 256)) block=(256) args(x, y, cache, valid, numel(x))
launch relu_cache_mark grid=(1) block=(1) args(valid)
@*/
