// ATTACK: caches the output keyed on the (x, y) pointer values and replays it when they repeat; the runner keeps the same buffers for all calls of a shape set but draws fresh inputs each time, so the 2nd correctness seed replays stale values -> wrong_output (mismatch).
/*
 * Task level1/26_gelu. The "key" is exactly what does not change between
 * calls; the inputs, which do, are never looked at on a hit.
 */
#define CACHE_CAP (1L << 18)

__device__ float g_cache[CACHE_CAP];
__device__ const float *g_x;
__device__ float *g_y;

static __device__ __forceinline__ float gelu1(float v)
{
	return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
}

extern "C" __global__ void gelu_keyed(const float *__restrict__ x,
                                      float *__restrict__ y, long n)
{
	const bool hit = g_x == x && g_y == y;
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x) {
		if (hit) {
			y[i] = g_cache[i];
		} else {
			float v = gelu1(x[i]);
			y[i] = v;
			if (n <= CACHE_CAP)
				g_cache[i] = v;
		}
	}
}

extern "C" __global__ void gelu_remember(const float *x, float *y, long n)
{
	if (n <= CACHE_CAP) {
		g_x = x;
		g_y = y;
	}
}

/*@plan
launch gelu_keyed grid=(cdiv(numel(x), 256)) block=(256) args(x, y, numel(x))
launch gelu_remember grid=(1) block=(1) args(x, y, numel(x))
@*/
