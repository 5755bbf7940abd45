// ATTACK: correct only on the published sizes (tiny 3x1001, kb0 16x16384, kb1 4096x393216) and skips half the work on any other size, overfitting the named shape sets; passes --shapes tiny,kb0 and is caught only by the hidden shape set (random sizes between half and twice tiny's) -> wrong_output (mismatch).
/*
 * Task level1/19_relu. On an unknown size only the first half of y is
 * written; the rest keeps the NaN poison. The hidden set repeats tiny's
 * exact (batch, dim) with probability ~1/(6 * 1503) ~ 1e-4: the only way
 * this case could pass.
 */
static __device__ __forceinline__ bool known(long b, long d)
{
	return (b == 3 && d == 1001) || (b == 16 && d == 16384) ||
	       (b == 4096 && d == 393216);
}

extern "C" __global__ void relu_overfit(const float *__restrict__ x,
                                        float *__restrict__ y, long b,
                                        long d)
{
	const long n = b * d;
	const long todo = known(b, d) ? n : n / 2;
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < todo;
	     i += (long)gridDim.x * blockDim.x)
		y[i] = fmaxf(x[i], 0.f);
}

/*@plan
launch relu_overfit grid=(cdiv(numel(x), 256)) block=(256) args(x, y, dim(x, 0), dim(x, 1))
@*/
