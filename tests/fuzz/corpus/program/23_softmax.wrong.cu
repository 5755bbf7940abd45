// WRONG: writes the constant 1/dim everywhere (the softmax of a constant row), ignoring x -> verdict degenerate_output (constant output).
/*
 * Level 1 problem 23 (softmax), wrong on purpose.
 *
 * The "optimisation" notices that rows sum to 1 and writes the uniform
 * distribution 1/dim without reading the input. The output is a constant,
 * which the judge's degenerate-output check must name: degenerate_output.
 */

extern "C" __global__ void softmax_uniform(float *__restrict__ y, long n,
                                           long dim)
{
	const float u = 1.f / (float)dim;
	for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		y[i] = u;
}

/*@plan
launch softmax_uniform grid=(sm_count * 8) block=(256) args(y, numel(y), dim(y, 1))
@*/
