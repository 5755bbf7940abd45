// ATTACK: exhausts the compiler's memory with a 1 GiB initialised device array (the front end and the ELF writer each build it), which would take the judge's machine down; the compiler process has a memory limit (--compile-memory) and a deadline -> compile_error (compile_resources, or compile_timeout where memory lasts longer than the deadline).
/*
 * Task level1/19_relu. table is read twice: its 2^28 floats are the attack.
 */
__device__ float table[1 << 28] = {1.0f, 2.0f, 3.0f};
extern "C" __global__ void relu_arr(const float *__restrict__ x, float *__restrict__ y, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
		y[i] = fmaxf(x[i], 0.f) + 0.f * table[i & 1];
}
/*@plan
launch relu_arr grid=(cdiv(numel(x), 256)) block=(256) args(x, y, numel(x))
@*/
