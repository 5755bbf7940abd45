/*
 * Counter-based drawing of test data, shared by the device kernels
 * (src/runtime/check.cu) and the host (krl_draw_value in check.c), which
 * must agree bit for bit.
 *
 * The value of element i under seed s depends on (s, i) alone: a splitmix64
 * output at counter position 2i of a stream keyed by a hash of s (normal
 * values: at position i / 2, the two outputs of one Box-Muller transform
 * going to elements 2p and 2p + 1).
 *
 * Bit-exactness rules, because nvcc contracts a*b + c into an FMA by default
 * and gcc may do so on FMA-capable targets:
 *   - every multiply-add is an explicit fma();
 *   - no plain product feeds a plain addition unless the product is exact
 *     (a power-of-two scaling);
 *   - only correctly rounded operations: + - * / sqrt fma floor and
 *     conversions, in double or in float (normal values are computed in
 *     float: nvcc's default -prec-div and -prec-sqrt make float / and sqrtf
 *     correctly rounded, as on the host); log, cos and sin are evaluated
 *     here by polynomials instead of calling the (differently rounded) host
 *     and device libraries;
 *   - conversion to f16/bf16 is integer code (round to nearest even).
 */
#ifndef KRL_RNG_H
#define KRL_RNG_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "krl/lang.h"
#include "util/rng.h" /* splitmix64, krl_u01 and KRL_HD */

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

/* The 64-bit word at counter position c of the stream of seed: splitmix64
 * started at a hash of the seed (the finaliser of seed xor a constant),
 * read at position c. */
KRL_HD uint64_t krl_hash(uint64_t seed, uint64_t c)
{
	uint64_t key = krl_splitmix64_mix(seed ^ 0x6a09e667f3bcc909ULL);
	return krl_splitmix64_at(key, c);
}

/* ==== Elementary functions (bit-reproducible) ==== */

/* Natural log of u in (0, 1] (a normal float), in float arithmetic: u = m
 * * 2^e with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) /
 * (m + 1), |s| < 0.172, by its series to s^11 (relative error ~1e-7,
 * float's own). */
KRL_HD float krl_log01f(float u)
{
	uint32_t b;
#ifdef __CUDA_ARCH__
	b = (uint32_t)__float_as_uint(u);
#else
	memcpy(&b, &u, sizeof b);
#endif
	int e = (int)((b >> 23) & 0xff) - 127;
	uint32_t mb = (b & 0x007fffffu) | 0x3f800000u;
	float m;
#ifdef __CUDA_ARCH__
	m = __uint_as_float(mb);
#else
	memcpy(&m, &mb, sizeof m);
#endif
	if (m > 1.41421356f) {
		m = m * 0.5f; /* exact */
		e++;
	}
	float s = (m - 1.0f) / (m + 1.0f);
	float s2 = s * s;
	float p = 1.0f / 11;
	p = fmaf(p, s2, 1.0f / 9);
	p = fmaf(p, s2, 1.0f / 7);
	p = fmaf(p, s2, 1.0f / 5);
	p = fmaf(p, s2, 1.0f / 3);
	float t = s + s; /* exact */
	float logm = fmaf(t, s2 * p, t);
	return fmaf((float)e, 0.693147182f, logm);
}

/* cos(2 pi u) and sin(2 pi u) for u in [0, 1), in float arithmetic: u =
 * (q + t) / 4 with integer q and t in [-1/2, 1/2] (both exact for u a
 * multiple of 2^-24), x = t pi/2, then cos and sin of x by Taylor series
 * to degree 10/11 (|x| <= pi/4), and the quadrant q. */
KRL_HD void krl_sincos2pif(float u, float *cs, float *sn)
{
	float v = u * 4.0f; /* exact */
	float q = floorf(v + 0.5f);
	float t = v - q; /* exact: |t| <= 1/2 */
	int quad = (int)q & 3;
	float x = t * 1.57079637f;
	float x2 = x * x;
	float c = -1.0f / 3628800;
	c = fmaf(c, x2, 1.0f / 40320);
	c = fmaf(c, x2, -1.0f / 720);
	c = fmaf(c, x2, 1.0f / 24);
	c = fmaf(c, x2, -0.5f);
	c = fmaf(c, x2, 1.0f);
	float s = -1.0f / 39916800;
	s = fmaf(s, x2, 1.0f / 362880);
	s = fmaf(s, x2, -1.0f / 5040);
	s = fmaf(s, x2, 1.0f / 120);
	s = fmaf(s, x2, -1.0f / 6);
	s = fmaf(x * x2, s, x);
	/* cos and sin of pi/2 (q + t) */
	switch (quad) {
	case 0: *cs = c; *sn = s; break;
	case 1: *cs = -s; *sn = c; break;
	case 2: *cs = -c; *sn = -s; break;
	default: *cs = s; *sn = -c; break;
	}
}

/* log2 of u in [1, 2^20] (a float), in double arithmetic: u = m * 2^e
 * with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m +
 * 1), |s| < 0.172, by its series to s^25 (relative error below 1e-16):
 * rounded to float it is log2 correctly rounded but in ties closer than
 * that. Exact for powers of two. */
KRL_HD double krl_log2d(float u)
{
	uint64_t bits = krl_dbits((double)u);
	int e = (int)((bits >> 52) & 0x7ff) - 1023;
	double m = krl_bitsd((bits & 0x000fffffffffffffULL) |
	                     0x3ff0000000000000ULL);
	if (m > 1.4142135623730951) {
		m = m * 0.5; /* exact */
		e++;
	}
	double s = (m - 1.0) / (m + 1.0);
	double s2 = s * s;
	double p = 1.0 / 25;
	for (int k = 23; k >= 3; k -= 2)
		p = fma(p, s2, 1.0 / k);
	double t = s + s; /* exact */
	double logm = fma(t, s2 * p, t);
	return fma(logm, 1.4426950408889634, (double)e);
}

/* ==== Swin Transformer V2's buffers ==== */

/* relative_coords_table of a (wh, ww) window, pretrained window (pwh,
 * pww) or 0: at [0, h, j, comp] the coordinate k = h - (wh - 1) (comp 0)
 * or j - (ww - 1) (comp 1), then in float as the Model's __init__ does:
 * t = k / den (den = pwh - 1 or wh - 1 for comp 0, likewise for comp 1),
 * t *= 8, sign(t) * log2(|t| + 1) / 3, log2 rounded to float. */
KRL_HD double krl_swin_coords(int64_t wh, int64_t ww, int64_t pwh,
                              int64_t pww, int64_t index)
{
	int64_t comp = index % 2, cols = 2 * ww - 1;
	int64_t j = (index / 2) % cols, h = (index / 2 / cols) % (2 * wh - 1);
	int64_t k = comp == 0 ? h - (wh - 1) : j - (ww - 1);
	int64_t den = comp == 0 ? (pwh > 0 ? pwh - 1 : wh - 1)
	                        : (pww > 0 ? pww - 1 : ww - 1);
	if (den <= 0)
		return 0.0;
	float t = (float)k / (float)den;
	t = t * 8.0f; /* exact */
	float l = (float)krl_log2d(fabsf(t) + 1.0f);
	float r = l / 3.0f;
	return t < 0 ? -(double)r : (double)r;
}

/* relative_position_index of a (wh, ww) window: at [r, c] (tokens in
 * row-major window order) (rh - ch + wh - 1) * (2 ww - 1) + rw - cw + ww
 * - 1. */
KRL_HD double krl_swin_index(int64_t wh, int64_t ww, int64_t index)
{
	int64_t n = wh * ww;
	if (n <= 0)
		return 0.0;
	int64_t r = (index / n) % n, c = index % n;
	int64_t dh = r / ww - c / ww + wh - 1, dw = r % ww - c % ww + ww - 1;
	return (double)(dh * (2 * ww - 1) + dw);
}

/* Region label (0, 1, 2) of row or column y of an h-long axis cut at h -
 * ws and h - shift (the Model's slices (0, -ws), (-ws, -shift),
 * (-shift, None)). */
KRL_HD int64_t krl_swin_region(int64_t y, int64_t h, int64_t ws,
                               int64_t shift)
{
	return y < h - ws ? 0 : y < h - shift ? 1 : 2;
}

/* attn_mask of an h x w map in ws x ws windows shifted by shift: at [win,
 * r, c] 0 where tokens r and c of window win (row-major windows, tokens
 * row-major within) carry the same label region(y) * 3 + region(x), else
 * -100. */
KRL_HD double krl_swin_mask(int64_t h, int64_t w, int64_t ws, int64_t shift,
                            int64_t index)
{
	int64_t n = ws * ws, nww = ws > 0 ? w / ws : 0;
	if (n <= 0 || nww <= 0 || h < ws)
		return 0.0;
	int64_t win = index / (n * n) % ((h / ws) * nww);
	int64_t r = (index / n) % n, c = index % n;
	int64_t y0 = win / nww * ws, x0 = win % nww * ws;
	int64_t lr = krl_swin_region(y0 + r / ws, h, ws, shift) * 3 +
	             krl_swin_region(x0 + r % ws, w, ws, shift);
	int64_t lc = krl_swin_region(y0 + c / ws, h, ws, shift) * 3 +
	             krl_swin_region(x0 + c % ws, w, ws, shift);
	return lr == lc ? 0.0 : -100.0;
}

/* ==== Distributions ==== */

/* Standard normal values of elements 2p and 2p + 1 under seed: the two
 * outputs of one Box-Muller transform, from one 64-bit word at counter
 * position p (bits 63..40 give u1 in (0, 1], bits 39..16 give u2 in
 * [0, 1), both multiples of 2^-24), in float arithmetic. A pair shares the
 * log, the square root and the hash: drawing a large tensor costs little
 * more than writing it. |z| < 5.8 (u1 >= 2^-24). */
KRL_HD void krl_normal_pair(uint64_t seed, uint64_t p, float *z0, float *z1)
{
	uint64_t h = krl_hash(seed, p);
	float u1 = 1.0f - (float)(uint32_t)(h >> 40) * 5.96046448e-08f; /* 2^-24, exact */
	float u2 = (float)(uint32_t)((h >> 16) & 0xffffffu) * 5.96046448e-08f;
	float r = sqrtf(-2.0f * krl_log01f(u1));
	float c, s;
	krl_sincos2pif(u2, &c, &s);
	*z0 = r * c;
	*z1 = r * s;
}

/* The value (before rounding to a dtype) of element `index` under seed
 * (the patterns ignore it). */
KRL_HD double krl_draw_raw(krl_dist dist, uint64_t seed, int64_t index)
{
	uint64_t c = (uint64_t)index * 2;
	double a = dist.a, b = dist.b;
	switch (dist.kind) {
	case KRL_DIST_NORMAL: {
		float z0, z1;
		krl_normal_pair(seed, (uint64_t)index >> 1, &z0, &z1);
		return fma(b, (double)(index & 1 ? z1 : z0), a);
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
	case KRL_DIST_TRIL:
	case KRL_DIST_TRIU: {
		if (dist.cols <= 0 || dist.rows <= 0)
			return 0.0;
		int64_t col = index % dist.cols;
		int64_t row = (index / dist.cols) % dist.rows;
		double k = (double)(col - row);
		int keep = dist.kind == KRL_DIST_TRIL ? k <= b : k >= b;
		return keep ? a : 0.0;
	}
	case KRL_DIST_ARANGE:
		return fma(b, (double)index, a);
	case KRL_DIST_SWIN_COORDS:
		return krl_swin_coords((int64_t)a, (int64_t)b, dist.rows,
		                       dist.cols, index);
	case KRL_DIST_SWIN_INDEX:
		return krl_swin_index((int64_t)a, (int64_t)b, index);
	case KRL_DIST_SWIN_MASK:
		return krl_swin_mask((int64_t)a, (int64_t)b, dist.rows, dist.cols,
		                     index);
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

/* ==== Stress transforms (docs/judge.md "Stress draws") ==== */

/* Whether element i of n is a spike of the draw with seed: about one in
 * 1024, and always one element. */
KRL_HD int krl_stress_spike(uint64_t seed, int64_t i, int64_t n)
{
	const uint64_t s = seed ^ 0x5370696b65730000ULL;
	return (krl_hash(s, (uint64_t)i) & 1023) == 0 ||
	       (uint64_t)i == krl_hash(s, ~0ULL) % (uint64_t)n;
}

/* The value x (element i of n, as stored in dtype t) takes under stress
 * kind `kind` (krl_stress_kind) with value v: x * v (scale), x + v
 * (offset), x * v at the spikes (spikes), computed in double (one
 * correctly rounded operation) and stored as t; kind 3, the judge's
 * jitter, x * (1 + v u) with u uniform in [-1, 1) from (seed, i). */
KRL_HD double krl_stress_value(krl_dtype t, int kind, double v, uint64_t seed,
                               int64_t i, int64_t n, double x)
{
	double y = x;
	if (kind == 0)
		y = x * v;
	else if (kind == 1)
		y = x + v;
	else if (kind == 2 && krl_stress_spike(seed, i, n))
		y = x * v;
	else if (kind == 3) /* KRL_JITTER_KIND (krl/check.h) */
		y = x * (1.0 + v * (2.0 * krl_u01(krl_hash(
		                 seed ^ 0x4a69747465720000ULL, (uint64_t)i)) - 1.0));
	return krl_as_dtype(t, y);
}

#endif
