// ATTACK: renames the candidate to a host file with #line so that diagnostics (and any front end that re-reads the named file to quote it) point at /etc/passwd; the rule allows #line with a number only -> compile_error (include).
/*
 * Task level1/19_relu. The undeclared identifier makes the front end report a diagnostic under the borrowed name.
 */
#line 1 "/etc/passwd"
static __device__ float broken = undeclared_identifier;

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
