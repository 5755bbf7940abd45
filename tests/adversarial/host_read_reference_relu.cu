// ATTACK: smuggles host code into the device source (a __host__ function that fopen()s a reference dump via <stdio.h>); NVRTC compiles device code only and has no C library headers -> compile_error.
/*
 * Task level1/19_relu. The kernel is an ordinary ReLU; the host helper is
 * what the judge's design forbids (no candidate host code), and NVRTC
 * rejects the #include before it gets anywhere.
 */
#include <stdio.h>

__host__ int load_reference(float *dst, long n)
{
	FILE *f = fopen("/tmp/reference.bin", "rb");
	if (!f)
		return -1;
	long got = (long)fread(dst, sizeof(float), (size_t)n, f);
	fclose(f);
	return got == n ? 0 : -1;
}

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
