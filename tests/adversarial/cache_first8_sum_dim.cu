// ATTACK: does the work only on the first 8 calls of a shape set (5 correctness seeds + 3 warmup pairs), then returns at once, aiming its laziness exactly at the timed calls; the first timed call is always verified and finds the poison -> wrong_output (mismatch, phase timing).
/*
 * Task level1/47_sum_dim. Call 9 on kb0 is the first timed pair (w = 0)
 * with the default 3 warmup pairs; its outputs are the untouched poison.
 * Needs timing on, and warmup >= 3 (the default) for the first lazy call
 * to be the always-verified one.
 */
#define HONEST_CALLS 8u

__device__ unsigned g_calls;

extern "C" __global__ void sum_dim1_warm(const float *__restrict__ x,
                                         float *__restrict__ y, long b,
                                         long dim1, long dim2)
{
	if (g_calls >= HONEST_CALLS)
		return;
	for (long j = blockIdx.x * (long)blockDim.x + threadIdx.x; j < b * dim2;
	     j += (long)gridDim.x * blockDim.x) {
		const long bi = j / dim2, col = j % dim2;
		const float *p = x + bi * dim1 * dim2 + col;
		float s = 0.f;
		for (long i = 0; i < dim1; i++)
			s += p[i * dim2];
		y[j] = s;
	}
}

extern "C" __global__ void sum_count()
{
	g_calls++;
}

/*@plan
launch sum_dim1_warm grid=(cdiv(numel(y), 128)) block=(128) \
    args(x, y, dim(x, 0), dim(x, 1), dim(x, 2))
launch sum_count grid=(1) block=(1) args()
@*/
