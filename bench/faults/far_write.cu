// FAULT: ReLU that also writes 1 TiB past its output, far outside any
// allocation: an illegal address; the judge must say launch_error.
extern "C" __global__ void relu_far(const float *x, float *y, long n)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(x[i], 0.f);
	if (i == 0)
		y[(1L << 38)] = 1.f;
}
/*@plan
launch relu_far grid=(cdiv(numel(x), 256)) block=(256) args(x, y, numel(x))
@*/
