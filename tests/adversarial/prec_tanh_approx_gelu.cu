// ATTACK: GELU through the hardware tanh.approx.f32 instruction (tanh form, ~2^-11 relative error on top of the form's own 4.7e-4) to save the ~25-instruction erff; outside atol 1e-6 + rtol 1e-5 -> wrong_output (mismatch).
/*
 * Task level1/26_gelu.
 */
static __device__ __forceinline__ float tanh_approx(float u)
{
	float r;
	asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(u));
	return r;
}

extern "C" __global__ void gelu_fast_tanh(const float *__restrict__ x,
                                          float *__restrict__ y, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x) {
		float v = x[i];
		float u = 0.7978845608028654f * fmaf(0.044715f * v * v, v, v);
		y[i] = 0.5f * v * (1.f + tanh_approx(u));
	}
}

/*@plan
launch gelu_fast_tanh grid=(cdiv(numel(x), 256)) block=(256) args(x, y, numel(x))
@*/
