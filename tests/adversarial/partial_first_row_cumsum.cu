// ATTACK: scans only the first row and leaves the others untouched, hoping a checker looks at row 0; the other rows keep the NaN poison and every element is compared -> wrong_output (mismatch).
/*
 * Task level1/89_cumsum.
 */
extern "C" __global__ void cumsum_row0(const float *__restrict__ x,
                                       float *__restrict__ y, long n)
{
	if (threadIdx.x != 0 || blockIdx.x != 0)
		return;
	float s = 0.f;
	for (long i = 0; i < n; i++) {
		s += x[i];
		y[i] = s;
	}
}

/*@plan
launch cumsum_row0 grid=(1) block=(32) args(x, y, dim(x, 1))
@*/
