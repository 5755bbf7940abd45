// WRONG: every thread adds its partial sum to one accumulator with a plain (non-atomic) read-modify-write, a data race that loses most updates -> verdict wrong_output.
/*
 * Level 1 problem 94 (MSE loss), wrong on purpose.
 *
 * The accumulator is correctly zeroed by a first kernel (scratch is
 * poisoned), and each thread's partial is correct, but `acc[0] += s` from
 * hundreds of thousands of threads at once is a race: concurrent
 * read-modify-writes overwrite each other, so the loss comes out too small
 * and varies from run to run. The judge must report wrong_output.
 */

extern "C" __global__ void mse_zero(double *acc)
{
	acc[0] = 0.0;
}

extern "C" __global__ void mse_racy(const float *__restrict__ p,
                                    const float *__restrict__ t, double *acc,
                                    long n)
{
	float s = 0.f;
	for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x) {
		float d = p[i] - t[i];
		s += d * d;
	}
	/*
	 * Idle threads and small partials stay out of the race: the loss keeps
	 * at least one partial of 0.1 or more, so it is a mismatch and never
	 * degenerate (a race that kept only one element's tiny partial once
	 * read as "all zero" at the tiny set).
	 */
	if (s < 0.1f)
		return;
	volatile double *a = acc;
	*a = *a + (double)s; /* the race: not atomic */
}

extern "C" __global__ void mse_divide(const double *acc, float *loss, long n)
{
	loss[0] = (float)(acc[0] / (double)n);
}

/*@plan
# acc is one double accumulator.
buffer acc f64 [1]
launch mse_zero grid=(1) block=(1) args(acc)
launch mse_racy grid=(sm_count * 8) block=(256) \
    args(predictions, targets, acc, numel(predictions))
launch mse_divide grid=(1) block=(1) args(acc, loss, numel(predictions))
@*/
