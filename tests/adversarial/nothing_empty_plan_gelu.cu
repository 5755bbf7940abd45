// ATTACK: an empty plan (no launch, no call) so that a call costs nothing; plan validation requires every output to be written by a body statement -> invalid_plan.
/*
 * Task level1/26_gelu. The kernel exists but is never launched.
 */
extern "C" __global__ void gelu_unused(const float *__restrict__ x,
                                       float *__restrict__ y, long n)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 0.5f * x[i] * (1.f + erff(x[i] * 0.70710678118654752f));
}

/*@plan
# nothing to do
@*/
