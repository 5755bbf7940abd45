// ATTACK: declares x as a non-const pointer so the kernel may apply ReLU in place and copy it out; plan validation refuses passing an input to a writable pointer parameter -> invalid_plan.
/*
 * Task level1/19_relu.
 */
extern "C" __global__ void relu_in_place(float *x, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		x[i] = fmaxf(x[i], 0.f);
}

/*@plan
launch relu_in_place grid=(cdiv(numel(x), 256)) block=(256) args(x, numel(x))
call copy(x) -> y
@*/
