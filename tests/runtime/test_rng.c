/*
 * Tests of the counter-based drawing of test data on the host
 * (krl_draw_value; src/runtime/rng.h, shared with the device kernels):
 * distributions, determinism, dtype rounding, and the accuracy of the
 * reproducible log and cos it is built on.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "testutil.h"
#include "krl/check.h"
#include "krl/runtime.h"
/* White-box: the shared host/device helpers themselves. */
#include "../../src/runtime/rng.h"

enum { DRAWS = 100000 };

static krl_dist dist(krl_dist_kind kind, double a, double b)
{
	krl_dist d = { .kind = kind, .a = a, .b = b };
	return d;
}

/* Mean and (population) standard deviation of DRAWS draws. */
static void moments(krl_dist dd, krl_dtype t, uint64_t seed, double *mean,
                    double *sd)
{
	double s = 0, ss = 0;
	for (int64_t i = 0; i < DRAWS; i++) {
		double v = krl_draw_value(dd, t, seed, i);
		s += v;
		ss += v * v;
	}
	*mean = s / DRAWS;
	*sd = sqrt(ss / DRAWS - *mean * *mean);
}

static void test_normal(void **state)
{
	(void)state;
	double m, sd;
	moments(dist(KRL_DIST_NORMAL, 0, 1), KRL_F32, 1, &m, &sd);
	print_message("normal(0,1): mean %.5f sd %.5f\n", m, sd);
	/* standard errors: 0.0032 for the mean, 0.0022 for the sd */
	assert_true(fabs(m) < 0.02);
	assert_true(fabs(sd - 1) < 0.015);

	moments(dist(KRL_DIST_NORMAL, 3, 2), KRL_F32, 2, &m, &sd);
	assert_true(fabs(m - 3) < 0.04);
	assert_true(fabs(sd - 2) < 0.03);

	/* the shape, not only two moments: P(z < 0), P(z < 1), P(|z| > 1.96),
	 * and a tail beyond 4 sigma exists but is rare */
	int below0 = 0, below1 = 0, out196 = 0, out4 = 0;
	for (int64_t i = 0; i < DRAWS; i++) {
		double z = krl_draw_value(dist(KRL_DIST_NORMAL, 0, 1), KRL_F32,
		                          7, i);
		below0 += z < 0;
		below1 += z < 1;
		out196 += fabs(z) > 1.959964;
		out4 += fabs(z) > 4;
	}
	assert_true(fabs(below0 / (double)DRAWS - 0.5) < 0.006);
	assert_true(fabs(below1 / (double)DRAWS - 0.841345) < 0.005);
	assert_true(fabs(out196 / (double)DRAWS - 0.05) < 0.004);
	assert_true(out4 < 30); /* expected 6.3 */
}

static void test_uniform(void **state)
{
	(void)state;
	double lo = -2, hi = 3;
	int bins[10] = { 0 };
	for (int64_t i = 0; i < DRAWS; i++) {
		double v = krl_draw_value(dist(KRL_DIST_UNIFORM, lo, hi),
		                          KRL_F32, 3, i);
		/* rounding to f32 may reach hi itself */
		assert_true(v >= lo && v <= hi);
		int b = (int)((v - lo) / (hi - lo) * 10);
		bins[b < 10 ? b : 9]++;
	}
	double chi2 = 0, e = DRAWS / 10.0;
	for (int b = 0; b < 10; b++)
		chi2 += (bins[b] - e) * (bins[b] - e) / e;
	print_message("uniform chi-square (9 dof): %.2f\n", chi2);
	assert_true(chi2 < 27.9); /* p = 0.001 */
	/* in double precision the draw is strictly below hi */
	for (int64_t i = 0; i < 1000; i++)
		assert_true(krl_draw_raw(dist(KRL_DIST_UNIFORM, lo, hi), 3, i) < hi);
}

static void test_randint(void **state)
{
	(void)state;
	int count[10] = { 0 };
	for (int64_t i = 0; i < DRAWS; i++) {
		double v = krl_draw_value(dist(KRL_DIST_RANDINT, 0, 10), KRL_I32,
		                          4, i);
		assert_true(v == floor(v) && v >= 0 && v < 10);
		count[(int)v]++;
		/* float dtypes get integral values too */
		double f = krl_draw_value(dist(KRL_DIST_RANDINT, -5, 5), KRL_F16,
		                          4, i);
		assert_true(f == floor(f) && f >= -5 && f < 5);
	}
	double chi2 = 0, e = DRAWS / 10.0;
	for (int b = 0; b < 10; b++)
		chi2 += (count[b] - e) * (count[b] - e) / e;
	assert_true(chi2 < 27.9);
	/* a large int64 range stays in range and integral */
	for (int64_t i = 0; i < 1000; i++) {
		double v = krl_draw_value(dist(KRL_DIST_RANDINT, -1e12, 1e12),
		                          KRL_I64, 5, i);
		assert_true(v >= -1e12 && v < 1e12 && v == floor(v));
	}
	/* an empty range gives its low end */
	assert_true(krl_draw_value(dist(KRL_DIST_RANDINT, 3, 3), KRL_I32, 1,
	                           0) == 3);
}

static void test_bernoulli_const(void **state)
{
	(void)state;
	int ones = 0;
	for (int64_t i = 0; i < DRAWS; i++) {
		double v = krl_draw_value(dist(KRL_DIST_BERNOULLI, 0.3, 0),
		                          KRL_BOOL, 6, i);
		assert_true(v == 0 || v == 1);
		ones += v == 1;
	}
	/* standard error 0.00145 */
	assert_true(fabs(ones / (double)DRAWS - 0.3) < 0.008);

	assert_true(krl_draw_value(dist(KRL_DIST_CONST, 2.5, 0), KRL_F32, 9,
	                           123) == 2.5);
	/* integers truncate toward zero */
	assert_true(krl_draw_value(dist(KRL_DIST_CONST, 2.5, 0), KRL_I32, 9,
	                           0) == 2);
	assert_true(krl_draw_value(dist(KRL_DIST_CONST, -2.5, 0), KRL_I64, 9,
	                           0) == -2);
	assert_true(krl_draw_value(dist(KRL_DIST_CONST, 0.25, 0), KRL_BOOL, 9,
	                           0) == 1);
	assert_true(krl_draw_value(dist(KRL_DIST_NONE, 1, 2), KRL_F32, 9, 0) ==
	            0);
}

/* The constant buffers' patterns: exact, the seed ignored; tril/triu per
 * matrix of the last two dims (rows x cols), arange over the flat index. */
static void test_patterns(void **state)
{
	(void)state;
	/* two 3 x 4 matrices */
	krl_dist tl = { KRL_DIST_TRIL, 1, 0, 3, 4 };
	static const double want_tril[12] = { 1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0 };
	krl_dist tu = { KRL_DIST_TRIU, 2.5, 1, 3, 4 };
	static const double want_triu[12] = { 0, 2.5, 2.5, 2.5, 0, 0, 2.5, 2.5,
	                                      0, 0, 0, 2.5 };
	krl_dist tm = { KRL_DIST_TRIL, 1, -1, 3, 4 };
	static const double want_trilm[12] = { 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0 };
	for (int64_t i = 0; i < 24; i++) {
		assert_true(krl_draw_value(tl, KRL_F32, 1, i) == want_tril[i % 12]);
		assert_true(krl_draw_value(tl, KRL_F32, 99, i) ==
		            want_tril[i % 12]);
		assert_true(krl_draw_value(tl, KRL_BOOL, 5, i) == want_tril[i % 12]);
		assert_true(krl_draw_value(tu, KRL_F32, 1, i) == want_triu[i % 12]);
		assert_true(krl_draw_value(tm, KRL_F32, 1, i) == want_trilm[i % 12]);
	}
	krl_dist ar = { KRL_DIST_ARANGE, -3, 0.5, 0, 0 };
	for (int64_t i = 0; i < 100; i++)
		assert_true(krl_draw_value(ar, KRL_F32, 7, i) == -3 + 0.5 * i);
	krl_dist ai = { KRL_DIST_ARANGE, 0, 1, 0, 0 };
	assert_true(krl_draw_value(ai, KRL_I64, 7, 123456789) == 123456789);
}

/* Swin-V2's buffers (swin_coords, swin_index, swin_mask) against the
 * Model's __init__: values of numpy's float32 emulation of it
 * (tasks/tools/gen_l3_swin.py), and the mask against a literal replay of
 * its slices and window partition. */
static void test_swin_patterns(void **state)
{
	(void)state;
	/* relative_coords_table, 7 x 7 window: coordinate k = 0..6 */
	static const float want_c7[7] = {
		0x0.0p+0f, 0x1.a13e4ap-2f, 0x1.3fe8cep-1f, 0x1.8c4696p-1f,
		0x1.c67ab8p-1f, 0x1.f5855ep-1f, 0x1.0e8012p+0f };
	krl_dist c7 = { KRL_DIST_SWIN_COORDS, 7, 7, 0, 0 };
	for (int64_t h = 0; h < 13; h++)
		for (int64_t j = 0; j < 13; j++) {
			int64_t at = (h * 13 + j) * 2;
			double v0 = krl_draw_value(c7, KRL_F32, 3, at);
			double v1 = krl_draw_value(c7, KRL_F32, 3, at + 1);
			double w0 = h >= 6 ? want_c7[h - 6] : -want_c7[6 - h];
			double w1 = j >= 6 ? want_c7[j - 6] : -want_c7[6 - j];
			assert_true(v0 == w0);
			assert_true(v1 == w1);
		}
	/* a 3 x 3 window pretrained at 8 x 8: divided by 7 */
	krl_dist c3 = { KRL_DIST_SWIN_COORDS, 3, 3, 8, 8 };
	assert_true(krl_draw_value(c3, KRL_F32, 0, 0) == -0x1.24e63ap-1f);
	assert_true(krl_draw_value(c3, KRL_F32, 0, 2 * 1 + 1) == -0x1.774ee2p-2f);
	assert_true(krl_draw_value(c3, KRL_F32, 0, 2 * 12) == 0);
	/* relative_position_index, 2 x 3 window */
	static const int want_i23[36] = {
		7, 6, 5, 2, 1, 0, 8, 7, 6, 3, 2, 1, 9, 8, 7, 4, 3, 2,
		12, 11, 10, 7, 6, 5, 13, 12, 11, 8, 7, 6, 14, 13, 12, 9, 8, 7 };
	krl_dist i23 = { KRL_DIST_SWIN_INDEX, 2, 3, 0, 0 };
	for (int64_t i = 0; i < 36; i++)
		assert_true(krl_draw_value(i23, KRL_I64, 1, i) == want_i23[i]);
	krl_dist i77 = { KRL_DIST_SWIN_INDEX, 7, 7, 0, 0 };
	assert_true(krl_draw_value(i77, KRL_I64, 1, 0) == 84);
	assert_true(krl_draw_value(i77, KRL_I64, 1, 48) == 0);
	assert_true(krl_draw_value(i77, KRL_I64, 1, 48 * 49) == 168);
	/* attn_mask of an 8 x 12 map, 4 x 4 windows shifted by 2: the image
	 * labelled by the Model's slices, partitioned into windows */
	enum { H = 8, W = 12, WS = 4, SH = 2, NW = (H / WS) * (W / WS), N = WS * WS };
	int img[H][W];
	int lo[3] = { 0, H - WS, H - SH }, hi[3] = { H - WS, H - SH, H };
	int wlo[3] = { 0, W - WS, W - SH }, whi[3] = { W - WS, W - SH, W };
	int cnt = 0;
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++, cnt++)
			for (int y = lo[a]; y < hi[a]; y++)
				for (int x = wlo[b]; x < whi[b]; x++)
					img[y][x] = cnt;
	krl_dist m = { KRL_DIST_SWIN_MASK, H, W, WS, SH };
	int nonzero = 0;
	for (int w = 0; w < NW; w++) {
		int wy = w / (W / WS) * WS, wx = w % (W / WS) * WS;
		for (int r = 0; r < N; r++)
			for (int c = 0; c < N; c++) {
				int d = img[wy + c / WS][wx + c % WS] -
				        img[wy + r / WS][wx + r % WS];
				double v = krl_draw_value(m, KRL_F32, 5,
				                          ((int64_t)w * N + r) * N + c);
				assert_true(v == (d != 0 ? -100.0 : 0.0));
				nonzero += d != 0;
			}
	}
	assert_int_equal(nonzero, 576); /* numpy's count */
	/* the 56 x 56 stage of SwinV2-T (7 x 7 windows, shift 3) */
	krl_dist m56 = { KRL_DIST_SWIN_MASK, 56, 56, 7, 3 };
	int64_t nz = 0;
	for (int64_t i = 0; i < 64 * 49 * 49; i++)
		nz += krl_draw_value(m56, KRL_F32, 0, i) != 0;
	assert_int_equal(nz, 18240);
}

static void test_deterministic(void **state)
{
	(void)state;
	krl_dist n01 = dist(KRL_DIST_NORMAL, 0, 1);
	/* the same (seed, index) always gives the same value, whatever was
	 * drawn before */
	double first[100];
	for (int64_t i = 0; i < 100; i++)
		first[i] = krl_draw_value(n01, KRL_F32, 42, i);
	for (int64_t i = 99; i >= 0; i--)
		assert_memory_equal(&first[i], &(double){ krl_draw_value(
			n01, KRL_F32, 42, i) }, sizeof(double));
	/* other seeds and indices give other values */
	int same = 0;
	for (int64_t i = 0; i < 1000; i++)
		same += krl_draw_value(n01, KRL_F32, 42, i) ==
		        krl_draw_value(n01, KRL_F32, 43, i);
	assert_true(same < 3);
	/* huge indices work (tensors beyond 2^31 elements) */
	double big = krl_draw_value(n01, KRL_F32, 42, (int64_t)3 << 31);
	assert_true(isfinite(big));
	assert_true(big != krl_draw_value(n01, KRL_F32, 42, 0));

	/* seeds are not shifted copies of each other: correlation ~ 0 */
	double sxy = 0;
	for (int64_t i = 0; i < DRAWS; i++)
		sxy += krl_draw_value(n01, KRL_F32, 1, i) *
		       krl_draw_value(n01, KRL_F32, 2, i + 1);
	assert_true(fabs(sxy / DRAWS) < 0.02);
}

/* The reproducible log, cos and sin agree with the C library to float's
 * precision. */
static void test_elementary_accuracy(void **state)
{
	(void)state;
	double worst_log = 0, worst_cos = 0, worst_sin = 0;
	for (int64_t i = 0; i < DRAWS; i++) {
		uint64_t h = krl_hash(11, (uint64_t)i);
		float u = 1.0f - (float)(uint32_t)(h >> 40) * 0x1p-24f;
		double l = krl_log01f(u), ref = log((double)u);
		double el = ref != 0 ? fabs(l - ref) / fabs(ref) : fabs(l);
		worst_log = el > worst_log ? el : worst_log;
		float w = (float)(uint32_t)((h >> 16) & 0xffffff) * 0x1p-24f;
		float c, s;
		krl_sincos2pif(w, &c, &s);
		double ec = fabs(c - cos(2 * M_PI * (double)w));
		double es = fabs(s - sin(2 * M_PI * (double)w));
		worst_cos = ec > worst_cos ? ec : worst_cos;
		worst_sin = es > worst_sin ? es : worst_sin;
	}
	print_message("worst log rel error %.3g, cos abs error %.3g, sin %.3g\n",
	              worst_log, worst_cos, worst_sin);
	assert_true(worst_log < 1e-6);
	assert_true(worst_cos < 3e-7);
	assert_true(worst_sin < 3e-7);
	assert_true(krl_log01f(1.0f) == 0);
	assert_true(fabs(krl_log01f(0x1p-24f) - log(0x1p-24)) < 1e-5);
	float c, s;
	krl_sincos2pif(0.25f, &c, &s);
	assert_true(fabs(c) < 1e-7 && s == 1);
	krl_sincos2pif(0, &c, &s);
	assert_true(c == 1 && s == 0);
	krl_sincos2pif(0.5f, &c, &s);
	assert_true(c == -1 && fabs(s) < 1e-7);
}

/* The two values of a Box-Muller pair are uncorrelated, also in their
 * squares (as independent normals are), and within 5.8 sigma. */
static void test_normal_pairs(void **state)
{
	(void)state;
	double sxy = 0, sx2y2 = 0, biggest = 0;
	for (uint64_t p = 0; p < DRAWS; p++) {
		float z0, z1;
		krl_normal_pair(9, p, &z0, &z1);
		sxy += (double)z0 * z1;
		sx2y2 += ((double)z0 * z0 - 1) * ((double)z1 * z1 - 1);
		biggest = fmax(biggest, fmax(fabs(z0), fabs(z1)));
		/* krl_draw_raw reads the same pair */
		assert_true(krl_draw_raw(dist(KRL_DIST_NORMAL, 0, 1), 9,
		                         (int64_t)(2 * p)) == z0);
		assert_true(krl_draw_raw(dist(KRL_DIST_NORMAL, 0, 1), 9,
		                         (int64_t)(2 * p + 1)) == z1);
	}
	print_message("pairs: E[z0 z1] %.4f, cov of squares %.4f, max |z| %.3f\n",
	              sxy / DRAWS, sx2y2 / DRAWS, biggest);
	assert_true(fabs(sxy / DRAWS) < 0.02);
	assert_true(fabs(sx2y2 / DRAWS) < 0.05);
	assert_true(biggest > 4 && biggest < 5.8);
}

/* Round-to-nearest-even conversion to f16 and bf16. */
static void test_small_formats(void **state)
{
	(void)state;
	assert_int_equal(krl_d2h(1.0), 0x3c00);
	assert_int_equal(krl_d2h(-2.0), 0xc000);
	assert_int_equal(krl_d2h(1.0 / 3), 0x3555);
	assert_int_equal(krl_d2h(65504), 0x7bff);
	assert_int_equal(krl_d2h(65519.99), 0x7bff);
	assert_int_equal(krl_d2h(65520), 0x7c00); /* tie to even: Inf */
	assert_int_equal(krl_d2h(1e10), 0x7c00);
	assert_int_equal(krl_d2h(-INFINITY), 0xfc00);
	assert_int_equal(krl_d2h(NAN) & 0x7e00, 0x7e00);
	assert_int_equal(krl_d2h(-0.0), 0x8000);
	assert_int_equal(krl_d2h(0x1p-24), 0x0001);  /* smallest subnormal */
	assert_int_equal(krl_d2h(0x1p-25), 0x0000);  /* tie to even: 0 */
	assert_int_equal(krl_d2h(0x1.8p-25), 0x0001);
	assert_int_equal(krl_d2h(0x3p-24), 0x0003);
	assert_int_equal(krl_d2h(0x1p-14), 0x0400);  /* smallest normal */
	assert_int_equal(krl_d2h(0x1.ff8p-15), 0x03ff); /* largest subnormal */
	assert_int_equal(krl_d2h(0x1.ffcp-15), 0x0400); /* tie: up to normal */
	assert_int_equal(krl_d2bf(1.0), 0x3f80);
	assert_int_equal(krl_d2bf(1.0 / 3), 0x3eab);
	assert_int_equal(krl_d2bf(-3.0e38), 0xff62);
	assert_int_equal(krl_d2bf(1e39), 0x7f80);
	assert_int_equal(krl_d2bf(0x1p-133), 0x0001);

	/* decode(encode(x)) is exact for every f16 and bf16 pattern */
	for (uint32_t v = 0; v < 0x10000; v++) {
		if ((v & 0x7c00) == 0x7c00 && (v & 0x3ff))
			continue; /* NaN payloads are not preserved */
		assert_int_equal(krl_d2h(krl_h2d((uint16_t)v)), v);
		if ((v & 0x7f80) == 0x7f80 && (v & 0x7f))
			continue;
		assert_int_equal(krl_d2bf(krl_bf2d((uint16_t)v)), v);
	}
	/* bf16 values are f32 values with 16 low zero bits */
	for (uint32_t v = 0; v < 0x10000; v += 7) {
		if ((v & 0x7f80) == 0x7f80)
			continue;
		uint32_t bits = v << 16;
		float f;
		memcpy(&f, &bits, sizeof f);
		assert_true(krl_bf2d((uint16_t)v) == (double)f);
	}

#ifdef __FLT16_MAX__
	/* against the compiler's own double -> _Float16 conversion */
	for (int64_t i = 0; i < DRAWS; i++) {
		double x = krl_draw_raw(dist(KRL_DIST_NORMAL, 0, 1000), 77, i);
		if (i % 3 == 0)
			x *= 1e-6; /* subnormal territory */
		_Float16 h = (_Float16)x;
		uint16_t hb;
		memcpy(&hb, &h, sizeof hb);
		assert_int_equal(krl_d2h(x), hb);
	}
#endif
}

/* The stored value is the double draw rounded once to the dtype. */
static void test_dtype_rounding(void **state)
{
	(void)state;
	krl_dist n01 = dist(KRL_DIST_NORMAL, 0, 1);
	for (int64_t i = 0; i < 1000; i++) {
		double raw = krl_draw_raw(dist(n01.kind, 0, 1), 5, i);
		assert_true(krl_draw_value(n01, KRL_F32, 5, i) ==
		            (double)(float)raw);
		double h = krl_draw_value(n01, KRL_F16, 5, i);
		double b = krl_draw_value(n01, KRL_BF16, 5, i);
		assert_true(fabs(h - raw) <= fabs(raw) * 0x1p-11 + 0x1p-25);
		assert_true(fabs(b - raw) <= fabs(raw) * 0x1p-8);
		assert_true(krl_draw_value(n01, KRL_I32, 5, i) == trunc(raw));
	}
}

/* The poison laid over outputs and scratch before every call is a NaN in
 * every float dtype (read at any aligned offset) and no valid bool. */
static void test_poison_is_nan(void **state)
{
	(void)state;
	unsigned char b[16];
	for (int i = 0; i < 16; i++)
		b[i] = (unsigned char)(KRL_POISON_PATTERN >> (8 * (i % 4)));
	float f;
	double x;
	memcpy(&f, b, 4);
	assert_true(isnan(f));
	memcpy(&x, b, 8);
	assert_true(isnan(x));
	for (int i = 0; i < 16; i += 2) {
		uint16_t h = (uint16_t)(b[i] | b[i + 1] << 8);
		assert_true(isnan(krl_h2d(h)));
		assert_true(isnan(krl_bf2d(h)));
	}
	for (int i = 0; i < 16; i++)
		assert_true(b[i] > 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normal),
		cmocka_unit_test(test_poison_is_nan),
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_randint),
		cmocka_unit_test(test_bernoulli_const),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_swin_patterns),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_elementary_accuracy),
		cmocka_unit_test(test_normal_pairs),
		cmocka_unit_test(test_small_formats),
		cmocka_unit_test(test_dtype_rounding),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
