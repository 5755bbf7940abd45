// ATTACK: probes the host file system with __has_include (one bit per compile, e.g. which API key files exist) and compiles a different kernel on the answer; the rule refuses __has_include outright -> compile_error (include).
/*
 * Task level1/19_relu. A probe needs no log: the verdict itself would leak the bit.
 */
#if __has_include("/root/.config/krl/api_key")
#define KRL_HAS_KEY 1
#endif

extern "C" __global__ void relu_plain(const float *__restrict__ x,
                                      float *__restrict__ y, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		y[i] = fmaxf(x[i], 0.f);
}

/*@plan
launch relu_plain grid=(cdiv(numel(x), 256)) block=(256) args(x, y, numel(x))
@*/
