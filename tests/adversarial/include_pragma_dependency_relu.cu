// ATTACK: makes the front end open a host file through a pragma produced by _Pragma ("GCC dependency" stats and reads the named file); only a short list of pragmas (unroll, once, pack, diag...) passes the rule -> compile_error (include).
/*
 * Task level1/19_relu. _Pragma works inside macros, so a line-based check of #pragma is not enough.
 */
#define DEP(f) _Pragma("GCC dependency \"/etc/passwd\"")
DEP(x)

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
