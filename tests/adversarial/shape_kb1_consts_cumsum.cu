// ATTACK: hard-codes the kb1 row length (32768) as a compile-time constant to specialise the scan; on tiny (rows of 9001) the "rows" it scans run across real row boundaries and carry sums from one row into the next -> wrong_output (mismatch).
/*
 * Task level1/89_cumsum. Accesses stay within numel(x), so nothing faults;
 * the first real row is right, every later one starts with a wrong carry
 * (~sqrt(9001) ~ 95 off on average).
 */
#define ROW 32768L /* kb1's n */

extern "C" __global__ void cumsum_fixed(const float *__restrict__ x,
                                        float *__restrict__ y, long total)
{
	const long r = blockIdx.x * (long)blockDim.x + threadIdx.x;
	const long begin = r * ROW;
	if (begin >= total)
		return;
	const long end = begin + ROW < total ? begin + ROW : total;
	float s = 0.f;
	for (long i = begin; i < end; i++) {
		s += x[i];
		y[i] = s;
	}
}

/*@plan
launch cumsum_fixed grid=(cdiv(cdiv(numel(x), 32768), 32)) block=(32) args(x, y, numel(x))
@*/
