// ATTACK: reads a host file into the compile log through a quoted include of an absolute path (NVRTC quotes the first lines of what it cannot parse); the include rule refuses quoted includes before NVRTC runs -> compile_error (include).
/*
 * Task level1/19_relu. The kernel is an ordinary ReLU; the include is the attack.
 */
#include "/etc/passwd"

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
