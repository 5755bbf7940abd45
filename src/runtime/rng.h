/*
 * Counter-based drawing of test data, shared by the device kernels
 * (src/runtime/check.cu) and the host (krl_draw_value in check.c), which
 * must agree bit for bit.
 *
 * The value of element i under seed s depends on (s, i) alone: a splitmix64
 * output at counter position 2i (and 2i + 1 for the second Box-Muller
 * uniform) of a stream keyed by a hash of s.
 *
 * Bit-exactness rules, because nvcc contracts a*b + c into an FMA by default
 * and gcc may do so on FMA-capable targets:
 *   - every multiply-add is an explicit fma();
 *   - no plain product feeds a plain addition unless the product is exact
 *     (a power-of-two scaling);
 *   - only correctly rounded operations: + - * / sqrt fma floor and
 *     conversions; log and cos are evaluated here by polynomials instead of
 *     calling the (differently rounded) host and device libraries;
 *   - conversion to f16/bf16 is integer code (round to nearest even).
 */
#ifndef KRL_RNG_H
#define KRL_RNG_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "krl/lang.h"

#ifdef __CUDACC__
#define KRL_HD static __host__ __device__ __forceinline__
#else
#define KRL_HD static inline
#endif

/* ==== Bits ==== */

KRL_HD uint64_t krl_dbits(double x)
{
#ifdef __CUDA_ARCH__
	return (uint64_t)__double_as_longlong(x);
#else
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return u;
#endif
}

KRL_HD double krl_bitsd(uint64_t u)
{
#ifdef __CUDA_ARCH__
	return __longlong_as_double((long long)u);
#else
	double x;
	memcpy(&x, &u, sizeof x);
	return x;
#endif
}

/* ==== Hash ==== */

KRL_HD uint64_t krl_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The 64-bit word at counter position c of the stream of seed: splitmix64
 * started at a hash of the seed, read at position c. */
KRL_HD uint64_t krl_hash(uint64_t seed, uint64_t c)
{
	uint64_t key = krl_mix64(seed ^ 0x6a09e667f3bcc909ULL);
	return krl_mix64(key + (c + 1) * 0x9e3779b97f4a7c15ULL);
}

/* Top 53 bits as a double in [0, 1) (exact). */
KRL_HD double krl_u01(uint64_t h)
{
	return (double)(h >> 11) * 1.1102230246251565404e-16; /* 2^-53 */
}

/* ==== Elementary functions (bit-reproducible) ==== */

/* Natural log of u in (0, 1] (normal numbers only): u = m * 2^e with m in
 * [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <
 * 0.172, by its series to s^23 (error < 1e-17 relative). */
KRL_HD double krl_log01(double u)
{
	uint64_t b = krl_dbits(u);
	int e = (int)((b >> 52) & 0x7ff) - 1023;
	double m = krl_bitsd((b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
	if (m > 1.4142135623730951) {
		m = m * 0.5; /* exact */
		e++;
	}
	double s = (m - 1.0) / (m + 1.0);
	double s2 = s * s;
	double p = 1.0 / 23;
	p = fma(p, s2, 1.0 / 21);
	p = fma(p, s2, 1.0 / 19);
	p = fma(p, s2, 1.0 / 17);
	p = fma(p, s2, 1.0 / 15);
	p = fma(p, s2, 1.0 / 13);
	p = fma(p, s2, 1.0 / 11);
	p = fma(p, s2, 1.0 / 9);
	p = fma(p, s2, 1.0 / 7);
	p = fma(p, s2, 1.0 / 5);
	p = fma(p, s2, 1.0 / 3);
	double t = s + s; /* exact */
	double logm = fma(t, s2 * p, t);
	return fma((double)e, 0.69314718055994530942, logm);
}

/* cos(2 pi u) for u in [0, 1): u = (q + t) / 4 with integer q and t in
 * [-1/2, 1/2] (both exact), x = t pi/2, then cos or sin of x by Taylor
 * series to degree 16/17 (|x| <= pi/4). */
KRL_HD double krl_cos2pi(double u)
{
	double v = u * 4.0; /* exact */
	double q = floor(v + 0.5);
	double t = v - q; /* exact: |t| <= 1/2 */
	int quad = (int)q & 3;
	double x = t * 1.5707963267948966;
	double x2 = x * x;
	double c = 1.0 / 20922789888000.0; /* 1/16! */
	c = fma(c, x2, -1.0 / 87178291200.0);
	c = fma(c, x2, 1.0 / 479001600.0);
	c = fma(c, x2, -1.0 / 3628800.0);
	c = fma(c, x2, 1.0 / 40320.0);
	c = fma(c, x2, -1.0 / 720.0);
	c = fma(c, x2, 1.0 / 24.0);
	c = fma(c, x2, -0.5);
	c = fma(c, x2, 1.0);
	double s = 1.0 / 355687428096000.0; /* 1/17! */
	s = fma(s, x2, -1.0 / 1307674368000.0);
	s = fma(s, x2, 1.0 / 6227020800.0);
	s = fma(s, x2, -1.0 / 39916800.0);
	s = fma(s, x2, 1.0 / 362880.0);
	s = fma(s, x2, -1.0 / 5040.0);
	s = fma(s, x2, 1.0 / 120.0);
	s = fma(s, x2, -1.0 / 6.0);
	s = fma(x * x2, s, x);
	/* cos(pi/2 (q + t)) */
	switch (quad) {
	case 0: return c;
	case 1: return -s;
	case 2: return -c;
	default: return s;
	}
}

/* ==== Distributions ==== */

/* The value (before rounding to a dtype) of element `index` under seed. */
KRL_HD double krl_draw_raw(krl_dist_kind kind, double a, double b,
                           uint64_t seed, int64_t index)
{
	uint64_t c = (uint64_t)index * 2;
	switch (kind) {
	case KRL_DIST_NORMAL: {
		/* Box-Muller, cosine branch: u1 in (0, 1], u2 in [0, 1) */
		double u1 = 1.0 - krl_u01(krl_hash(seed, c)); /* exact */
		double u2 = krl_u01(krl_hash(seed, c + 1));
		double r = sqrt(-2.0 * krl_log01(u1));
		return fma(b, r * krl_cos2pi(u2), a);
	}
	case KRL_DIST_UNIFORM:
		return fma(b - a, krl_u01(krl_hash(seed, c)), a);
	case KRL_DIST_RANDINT: {
		double lo = ceil(a), hi = ceil(b);
		double span = hi - lo;
		if (!(span > 0))
			return lo;
		double k = floor(krl_u01(krl_hash(seed, c)) * span);
		double v = lo + k;
		return v < hi ? v : hi - 1;
	}
	case KRL_DIST_BERNOULLI:
		return krl_u01(krl_hash(seed, c)) < a ? 1.0 : 0.0;
	case KRL_DIST_CONST:
		return a;
	default:
		return 0.0;
	}
}

/* ==== Storage conversions ==== */

/* Rounds x to the nearest even value of a binary format with ebits
 * exponent and mbits mantissa bits (f16: 5, 10; bf16: 8, 7) and returns
 * its bit pattern. Overflow gives Inf, NaN a quiet NaN. */
KRL_HD uint32_t krl_d2small(double x, int ebits, int mbits)
{
	uint64_t b = krl_dbits(x);
	uint32_t sign = (uint32_t)(b >> 63) << (ebits + mbits);
	int dexp = (int)((b >> 52) & 0x7ff);
	uint64_t man = b & 0x000fffffffffffffULL;
	uint32_t inf = ((1u << ebits) - 1) << mbits;
	if (dexp == 0x7ff)
		return sign | inf | (man ? 1u << (mbits - 1) : 0);
	if (dexp == 0) /* double subnormals are far below any small format */
		return sign;
	int bias = (1 << (ebits - 1)) - 1;
	int e = dexp - 1023;
	if (e > bias)
		return sign | inf;
	uint64_t full = man | (1ULL << 52);
	int shift;
	uint32_t base;
	if (e >= 1 - bias) { /* normal */
		shift = 52 - mbits;
		full = man;
		base = (uint32_t)(e + bias) << mbits;
	} else { /* subnormal in the small format */
		shift = 52 - mbits + (1 - bias) - e;
		base = 0;
		if (shift > 53)
			return sign;
	}
	uint64_t m = full >> shift;
	uint64_t rem = full & ((1ULL << shift) - 1);
	uint64_t half = 1ULL << (shift - 1);
	if (rem > half || (rem == half && (m & 1)))
		m++;
	/* a carry out of the mantissa moves into the exponent, up to Inf */
	return sign | (base + (uint32_t)m);
}

/* The double value of a small-format bit pattern (exact). */
KRL_HD double krl_small2d(uint32_t v, int ebits, int mbits)
{
	int bias = (1 << (ebits - 1)) - 1;
	uint32_t emask = (1u << ebits) - 1;
	uint32_t e = (v >> mbits) & emask;
	uint64_t m = v & ((1u << mbits) - 1);
	uint64_t sign = (uint64_t)((v >> (ebits + mbits)) & 1) << 63;
	if (e == emask)
		return krl_bitsd(sign | 0x7ff0000000000000ULL |
		                 (m ? 0x0008000000000000ULL : 0));
	if (e == 0) {
		if (m == 0)
			return krl_bitsd(sign);
		/* subnormal: m * 2^(1 - bias - mbits), exact in double */
		int sh = 0;
		while (!(m & (1ULL << mbits))) {
			m <<= 1;
			sh++;
		}
		e = 1;
		m &= (1ULL << mbits) - 1;
		uint64_t de = (uint64_t)((int)e - bias - sh + 1023);
		return krl_bitsd(sign | de << 52 | m << (52 - mbits));
	}
	uint64_t de = (uint64_t)((int)e - bias + 1023);
	return krl_bitsd(sign | de << 52 | m << (52 - mbits));
}

KRL_HD uint16_t krl_d2h(double x) { return (uint16_t)krl_d2small(x, 5, 10); }
KRL_HD uint16_t krl_d2bf(double x) { return (uint16_t)krl_d2small(x, 8, 7); }
KRL_HD double krl_h2d(uint16_t v) { return krl_small2d(v, 5, 10); }
KRL_HD double krl_bf2d(uint16_t v) { return krl_small2d(v, 8, 7); }

/* Truncation toward zero with saturation; NaN gives 0. */
KRL_HD int64_t krl_d2i64(double x)
{
	if (x != x)
		return 0;
	if (x >= 9223372036854775807.0)
		return INT64_MAX;
	if (x <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

KRL_HD int32_t krl_d2i32(double x)
{
	if (x != x)
		return 0;
	if (x >= 2147483647.0)
		return INT32_MAX;
	if (x <= -2147483648.0)
		return INT32_MIN;
	return (int32_t)x;
}

/* The value v takes once stored as dtype t, read back as a double. */
KRL_HD double krl_as_dtype(krl_dtype t, double v)
{
	switch (t) {
	case KRL_F32: return (double)(float)v;
	case KRL_F64: return v;
	case KRL_F16: return krl_h2d(krl_d2h(v));
	case KRL_BF16: return krl_bf2d(krl_d2bf(v));
	case KRL_I32: return (double)krl_d2i32(v);
	case KRL_I64: return (double)krl_d2i64(v);
	case KRL_BOOL: return v != 0 ? 1.0 : 0.0;
	default: return 0.0;
	}
}

#endif
