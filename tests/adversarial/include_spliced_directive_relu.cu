// ATTACK: hides the directive from a line-based check with a line splice inside the word "include" (translation phase 2 joins the lines before the preprocessor sees them); the rule splices lines as the compiler does -> compile_error (include).
/*
 * Task level1/19_relu. The directive reads "#include" only after the
 * backslash-newline is removed.
 */
#inc\
lude "/etc/passwd"

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
