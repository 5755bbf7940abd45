// ATTACK: launches a kernel that takes y writable but stores nothing (only where x is NaN, never), hoping y still holds a previous result; outputs are poisoned with NaN before every call -> wrong_output (mismatch).
/*
 * Task level1/19_relu. Passes plan validation (y is a non-const pointer
 * argument, so the output counts as written) but never writes it.
 */
extern "C" __global__ void relu_lazy(const float *__restrict__ x,
                                     float *__restrict__ y, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x) {
		float v = x[i];
		if (v != v) /* never true for drawn inputs */
			y[i] = 0.f;
	}
}

/*@plan
launch relu_lazy grid=(cdiv(numel(x), 256)) block=(256) args(x, y, numel(x))
@*/
