// ATTACK: writes +INFINITY as an end-of-row sentinel into the last element of every row (the rest is right); the reference is finite there and Inf passes only against the same Inf -> wrong_output (mismatch).
/*
 * Task level1/89_cumsum. NVRTC has no <math.h>: infinity is spelled out.
 */
#define KRL_INF __int_as_float(0x7f800000)

extern "C" __global__ void cumsum_sentinel(const float *__restrict__ x,
                                           float *__restrict__ y, long rows,
                                           long n)
{
	const long r = blockIdx.x * (long)blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *xr = x + r * n;
	float *yr = y + r * n;
	float s = 0.f;
	for (long i = 0; i < n - 1; i++) {
		s += xr[i];
		yr[i] = s;
	}
	yr[n - 1] = KRL_INF; /* the sentinel */
}

/*@plan
launch cumsum_sentinel grid=(cdiv(dim(x, 0), 32)) block=(32) args(x, y, dim(x, 0), dim(x, 1))
@*/
