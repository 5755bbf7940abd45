// ATTACK: hides a quoted include from a scanner that does not know raw string literals: R"x(/*)x" holds a "/*" that such a scanner takes for the start of a comment, swallowing the next line; the rule lexes raw strings as the compiler does -> compile_error (include).
/*
 * Task level1/19_relu. To the compiler the include is code; to a naive
 * scanner it is inside a comment that the raw string seems to open.
 */
static __device__ const char *k_note = R"x( /* )x";
#include "/etc/passwd"
// */

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
