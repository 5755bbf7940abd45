// FAULT: ReLU whose plan asks for a 4 TiB scratch buffer: the runner cannot
// allocate it; the judge must say launch_error and carry on.
extern "C" __global__ void relu_big(const float *x, float *y, float *tmp, long n)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(x[i], 0.f);
}
/*@plan
buffer tmp f32 [1024, 1024, 1024, 1024]
launch relu_big grid=(cdiv(numel(x), 256)) block=(256) args(x, y, tmp, numel(x))
@*/
