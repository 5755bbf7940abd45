// ATTACK: computes GELU in half precision (half2 loads of converted x, hexp-free erf via a half tanh form) for 2x arithmetic throughput; half has an 11-bit mantissa, errors ~1e-3 relative against atol 1e-6 + rtol 1e-5 -> wrong_output (mismatch).
/*
 * Task level1/26_gelu. x is rounded to half, GELU evaluated in half
 * arithmetic (erf from the half-precision tanh approximation), widened back.
 */
#include <cuda_fp16.h>

extern "C" __global__ void gelu_half(const float *__restrict__ x,
                                     float *__restrict__ y, long n)
{
	const __half k0 = __float2half(0.7978845608f), k1 = __float2half(0.044715f);
	const __half half1 = __float2half(1.f), halfh = __float2half(0.5f);
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x) {
		__half v = __float2half(x[i]);
		__half u = __hmul(k0, __hfma(__hmul(k1, __hmul(v, v)), v, v));
		/* tanh(u) = 1 - 2 / (exp(2u) + 1), all in half */
		__half e = hexp(__hadd(u, u));
		__half th = __hsub(half1, __hdiv(__float2half(2.f), __hadd(e, half1)));
		y[i] = __half2float(__hmul(__hmul(halfh, v), __hadd(half1, th)));
	}
}

/*@plan
launch gelu_half grid=(cdiv(numel(x), 256)) block=(256) args(x, y, numel(x))
@*/
