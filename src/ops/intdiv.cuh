/*
 * kernelrl: division by a runtime-invariant integer as a multiply-high, an
 * add and a shift, for the index arithmetic of the op library's unrolled
 * elementwise and copy kernels (CUDA only; include it from .cu files).
 *
 * PyTorch's OffsetCalculator divides by each dim with its IntDivider in
 * the same way; a plain 32-bit `/` by a value unknown at compile time is a
 * ~20-instruction sequence per dim and element, which makes those kernels
 * compute-bound (on the H200 it made the level-2 bias broadcasts 5-15%
 * slower than PyTorch eager).
 */
#ifndef KRL_OPS_INTDIV_CUH
#define KRL_OPS_INTDIV_CUH

#include <stdint.h>

/* n / d for 1 <= d < 2^32 and every 32-bit n, by the round-up method of
 * Granlund and Montgomery ("Division by invariant integers using
 * multiplication", 1994): with l the smallest shift such that 2^l >= d and
 * m = floor(2^32 (2^l - d) / d) + 1, n / d = (umulhi(n, m) + n) >> l, the
 * sum taken in 64 bits so that n may use all 32 bits. */
struct Div32 {
	uint32_t d, m, l;
	__device__ __forceinline__ uint32_t div(uint32_t n) const
	{
		return (uint32_t)(((uint64_t)__umulhi(n, m) + n) >> l);
	}
};

static inline Div32 div32(int64_t d)
{
	Div32 v;
	v.d = (uint32_t)d;
	v.l = 0;
	while (v.l < 32 && ((uint64_t)1 << v.l) < (uint64_t)d)
		v.l++;
	v.m = (uint32_t)((((uint64_t)1 << 32) *
	                  (((uint64_t)1 << v.l) - (uint64_t)v.d)) /
	                 (uint64_t)v.d + 1);
	return v;
}

/* The same interface in 64 bits, for tensors of 2^32 elements or more. */
struct Div64 {
	int64_t d;
	__device__ __forceinline__ int64_t div(int64_t n) const
	{
		return n / d;
	}
};

#endif
