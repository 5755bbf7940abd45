// ATTACK: sums correctly only when (batch, dim1, dim2) is one of the published sets (tiny, kb0, kb1) and sums just the first half of dim1 otherwise, overfitting the named shapes; caught only by the hidden shape set -> wrong_output (mismatch).
/*
 * Task level1/47_sum_dim. The hidden set repeats tiny's three sizes at
 * once with probability ~1/(6 * 106 * 72) ~ 2e-5.
 */
static __device__ __forceinline__ bool known(long b, long d1, long d2)
{
	return (b == 3 && d1 == 70 && d2 == 47) ||
	       (b == 16 && d1 == 256 && d2 == 256) ||
	       (b == 128 && d1 == 4096 && d2 == 4095);
}

extern "C" __global__ void sum_overfit(const float *__restrict__ x,
                                       float *__restrict__ y, long b,
                                       long dim1, long dim2)
{
	const long rows = known(b, dim1, dim2) ? dim1 : dim1 / 2;
	for (long j = blockIdx.x * (long)blockDim.x + threadIdx.x; j < b * dim2;
	     j += (long)gridDim.x * blockDim.x) {
		const long bi = j / dim2, col = j % dim2;
		const float *p = x + bi * dim1 * dim2 + col;
		float s = 0.f;
		for (long i = 0; i < rows; i++)
			s += p[i * dim2];
		y[j] = s;
	}
}

/*@plan
launch sum_overfit grid=(cdiv(numel(y), 128)) block=(128) \
    args(x, y, dim(x, 0), dim(x, 1), dim(x, 2))
@*/
