// ATTACK: computes only on the first 5 calls of a shape set (the 5 correctness seeds) and replays the 5th output afterwards, hoping checking is over when timing starts; the first timed call is always verified -> wrong_output (mismatch, phase timing).
/*
 * Task level1/26_gelu. Each shape set loads the module afresh, so every set
 * passes its 5 correctness seeds; on the timing set (kb0) calls 6, 7, 8 are
 * the warmup pairs (each verified with probability 1/4) and call 9 is the
 * first timed pair, which the judge always verifies. Needs timing on: with
 * --no-timing nothing can catch it.
 */
#define CACHE_CAP (1L << 18)
#define HONEST_CALLS 5u

__device__ float g_cache[CACHE_CAP];
__device__ unsigned g_calls;

static __device__ __forceinline__ float gelu1(float v)
{
	return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
}

extern "C" __global__ void gelu_warm(const float *__restrict__ x,
                                     float *__restrict__ y, long n)
{
	const bool lazy = g_calls >= HONEST_CALLS && n <= CACHE_CAP;
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x) {
		if (lazy) {
			y[i] = g_cache[i];
		} else {
			float v = gelu1(x[i]);
			y[i] = v;
			if (n <= CACHE_CAP)
				g_cache[i] = v;
		}
	}
}

extern "C" __global__ void gelu_count()
{
	g_calls++;
}

/*@plan
launch gelu_warm grid=(cdiv(numel(x), 256)) block=(256) args(x, y, numel(x))
launch gelu_count grid=(1) block=(1) args()
@*/
