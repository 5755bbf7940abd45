// ATTACK: writes the expected value of ReLU of a standard normal (1/sqrt(2 pi) ~ 0.399) everywhere without reading x; the failing output is constant -> degenerate_output (degenerate).
/*
 * Task level1/19_relu.
 */
extern "C" __global__ void relu_mean(float *__restrict__ y, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		y[i] = 0.3989422804f;
}

/*@plan
launch relu_mean grid=(cdiv(numel(y), 256)) block=(256) args(y, numel(y))
@*/
