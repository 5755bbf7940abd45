// ATTACK: answers index 0 ("the first index of the maximum") for every column without reading x; the integer output is all zero -> degenerate_output (degenerate).
/*
 * Task level1/51_argmax_dim.
 */
extern "C" __global__ void argmax_zero(long *__restrict__ y, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		y[i] = 0;
}

/*@plan
launch argmax_zero grid=(cdiv(numel(y), 256)) block=(256) args(y, numel(y))
@*/
