// ATTACK: exhausts the compiler with templates: each level instantiates and inlines the previous one twice, 2^26 inlined calls from one line; the deadline stops it -> compile_error (compile_timeout).
/*
 * Task level1/19_relu. Twice<26>::go is a ReLU's dead extra term.
 */
template <int N> struct Twice {
	static __device__ __forceinline__ float go(float x)
	{
		return Twice<N - 1>::go(x * 1.0001f) + Twice<N - 1>::go(x + 0.5f);
	}
};
template <> struct Twice<0> {
	static __device__ __forceinline__ float go(float x) { return x; }
};
extern "C" __global__ void relu_tpl(const float *__restrict__ x, float *__restrict__ y, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
		y[i] = fmaxf(x[i], 0.f) + 0.f * Twice<26>::go(x[i]);
}
/*@plan
launch relu_tpl grid=(cdiv(numel(x), 256)) block=(256) args(x, y, numel(x))
@*/
