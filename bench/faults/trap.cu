// FAULT: ReLU that executes a trap instruction: the kernel aborts, the
// runner's context is lost; the judge must say launch_error and carry on.
extern "C" __global__ void relu_trap(const float *x, float *y, long n)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(x[i], 0.f);
	if (i == 0)
		__trap();
}
/*@plan
launch relu_trap grid=(cdiv(numel(x), 256)) block=(256) args(x, y, numel(x))
@*/
