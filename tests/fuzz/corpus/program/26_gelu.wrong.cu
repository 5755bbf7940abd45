// WRONG: uses the tanh approximation of GELU (off by up to 4.7e-4), below the strict fp32 tier -> verdict wrong_output.
/*
 * Level 1 problem 26 (GELU), wrong on purpose.
 *
 * The task is the exact (erf) GELU, torch.nn.functional.gelu with
 * approximate='none'. This kernel computes
 * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), which differs by up to
 * 4.7e-4 (near x = -2.7), far outside atol = 1e-6, rtol = 1e-5: the judge
 * must report wrong_output.
 */

extern "C" __global__ void gelu_tanh(const float *__restrict__ x,
                                     float *__restrict__ y, long n)
{
	for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x) {
		float v = x[i];
		float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);
		y[i] = 0.5f * v * (1.f + tanhf(u));
	}
}

/*@plan
launch gelu_tanh grid=(sm_count * 8) block=(256) args(x, y, numel(x))
@*/
