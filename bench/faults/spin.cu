// FAULT: ReLU whose first thread spins forever on a flag nobody sets: the
// judge must kill the runner, say timeout, and carry on.
extern "C" __global__ void relu_spin(const float *x, float *y, long n,
                                     volatile int *flag)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(x[i], 0.f);
	if (i == 0)
		while (flag[0] != 12345)
			;
}
/*@plan
buffer flag i32 [1]
launch relu_spin grid=(cdiv(numel(x), 256)) block=(256) args(x, y, numel(x), flag)
@*/
