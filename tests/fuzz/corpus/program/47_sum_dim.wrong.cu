// WRONG: accumulates in place into the input x (passed to a non-const pointer) before copying to y -> verdict invalid_plan (an input passed as writable).
/*
 * Level 1 problem 47 (sum over dim 1), wrong on purpose.
 *
 * The kernel saves a scratch buffer by summing each column into row 0 of x
 * itself, then copies row 0 to y. Inputs are read-only: passing x to the
 * non-const `float *x` parameter must be rejected by the plan check
 * (invalid_plan), before the kernel can corrupt the input.
 */

extern "C" __global__ void sum_in_place(float *x, float *__restrict__ y,
                                        long dim1, long dim2)
{
	long col = (long)blockIdx.x * blockDim.x + threadIdx.x;
	long b = blockIdx.y;
	if (col >= dim2)
		return;
	float *p = x + b * dim1 * dim2 + col;
	for (long i = 1; i < dim1; i++)
		p[0] += p[i * dim2];
	y[b * dim2 + col] = p[0];
}

/*@plan
launch sum_in_place grid=(cdiv(dim(x, 2), 256), dim(x, 0)) block=(256) \
    args(x, y, dim(x, 1), dim(x, 2))
@*/
