// ATTACK: climbs out of the toolkit's include directory with .. segments in an angle include; the rule refuses . and .. segments and checks the real path stays inside the directory -> compile_error (include).
/*
 * Task level1/19_relu. From /usr/local/cuda/include, five .. reach the root.
 */
#include <../../../../../etc/shadow>

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
