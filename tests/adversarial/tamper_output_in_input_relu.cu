// ATTACK: applies ReLU to x in place through a const_cast and lets the library copy x to y; y is right, but x no longer matches the judge's private copy -> wrong_output (input_modified).
/*
 * Task level1/19_relu.
 */
extern "C" __global__ void relu_in_place(const float *x, long n)
{
	float *w = const_cast<float *>(x);
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		w[i] = fmaxf(w[i], 0.f);
}

/*@plan
launch relu_in_place grid=(cdiv(numel(x), 256)) block=(256) args(x, numel(x))
call copy(x) -> y
@*/
