// ATTACK: exhausts the compiler: 40 lines of macros expand to 10^6 statements (minutes of NVRTC on one core), which would hold the judge, krl optimize and every precompile thread; the compiler runs in its own process under a deadline (--compile-timeout) and is killed past it -> compile_error (compile_timeout).
/*
 * Task level1/19_relu. A ReLU whose dead accumulator is a million
 * multiply-adds long.
 */
#define A0(x) x = x * 1.0001f + 0.5f;
#define A1(x) A0(x) A0(x) A0(x) A0(x) A0(x) A0(x) A0(x) A0(x) A0(x) A0(x)
#define A2(x) A1(x) A1(x) A1(x) A1(x) A1(x) A1(x) A1(x) A1(x) A1(x) A1(x)
#define A3(x) A2(x) A2(x) A2(x) A2(x) A2(x) A2(x) A2(x) A2(x) A2(x) A2(x)
#define A4(x) A3(x) A3(x) A3(x) A3(x) A3(x) A3(x) A3(x) A3(x) A3(x) A3(x)
#define A5(x) A4(x) A4(x) A4(x) A4(x) A4(x) A4(x) A4(x) A4(x) A4(x) A4(x)
#define A6(x) A5(x) A5(x) A5(x) A5(x) A5(x) A5(x) A5(x) A5(x) A5(x) A5(x)
extern "C" __global__ void relu_macro_bomb(const float *__restrict__ x, float *__restrict__ y, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
		float v = x[i];
		float t = v;
		A6(t)
		y[i] = fmaxf(v, 0.f) + 0.f * t;
	}
}
/*@plan
launch relu_macro_bomb grid=(cdiv(numel(x), 256)) block=(256) args(x, y, numel(x))
@*/
