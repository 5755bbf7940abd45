// ATTACK: uses the bytes right after the input x as free scratch for per-row totals (const_cast, "nobody reads past the end"); that is x's tail guard, checked after every checked call -> wrong_output (out_of_bounds_write).
/*
 * Task level1/89_cumsum. One thread per row scans sequentially and parks
 * the row total at x[rows * n + row]: at most a few KiB past the end of x,
 * inside its 64 KiB guard, so it never faults. y is right.
 */
extern "C" __global__ void cumsum_park(const float *x, float *__restrict__ y,
                                       long rows, long n)
{
	const long r = blockIdx.x * (long)blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *xr = x + r * n;
	float *yr = y + r * n;
	float s = 0.f;
	for (long i = 0; i < n; i++) {
		s += xr[i];
		yr[i] = s;
	}
	const_cast<float *>(x)[rows * n + r] = s;
}

/*@plan
launch cumsum_park grid=(cdiv(dim(x, 0), 32)) block=(32) args(x, y, dim(x, 0), dim(x, 1))
@*/
