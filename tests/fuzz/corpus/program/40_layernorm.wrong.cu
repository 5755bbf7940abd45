// WRONG: writes zeros to the whole output (a stub that never normalises) -> verdict degenerate_output (all-zero output).
/*
 * Level 1 problem 40 (LayerNorm), wrong on purpose.
 *
 * A stub that only clears y, as a policy might emit to see whether an
 * all-zero output slips through. The judge's degenerate-output check must
 * name it: degenerate_output.
 */

extern "C" __global__ void layernorm_zero(float *__restrict__ y, long n)
{
	for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		y[i] = 0.f;
}

/*@plan
launch layernorm_zero grid=(sm_count * 8) block=(256) args(y, numel(y))
@*/
