/*
 * The roofline's floor (src/judge/roofline.c, krl_roofline_floor): which
 * memory rate and which compute rate a problem is held to, per precision
 * tier, and its bound. The ceilings themselves are measured on the GPU
 * (gpu_eval checks that no example's candidate beats its floor).
 */
#include <math.h>
#include <string.h>

#include "judge/judge_int.h"
#include "testutil.h"

/* H200-like ceilings: copy 4300 GB/s, read 4700, fp32 GEMM 51 TFLOP/s,
 * TF32 GEMM 420. */
static const krl_ceilings h200 = { 4300, 4700, 51, 420 };

static void memory_bound_uses_fastest_rate(void **state)
{
	(void)state;
	/* 4.7 GB at 4700 GB/s: 1 ms; its 1 GFLOP is far under */
	krl_floor f = krl_roofline_floor(&h200, 4.7e9, 1e9, 0);
	assert_string_equal(f.bound, "memory");
	assert_true(fabs(f.gbs - 4700) < 1e-9);
	assert_true(fabs(f.ms - 1.0) < 1e-9);
	/* a device whose memcpy beats the read kernel: the faster one */
	krl_ceilings c = h200;
	c.copy_gbs = 5000;
	f = krl_roofline_floor(&c, 5e9, 0, 0);
	assert_true(fabs(f.ms - 1.0) < 1e-9);
}

static void fp32_tier_gets_3xtf32_rate(void **state)
{
	(void)state;
	/* 2 * 8192^3 flops, fp32 tier: max(51, 420 / 3 = 140) TFLOP/s */
	double fl = 2.0 * 8192 * 8192 * 8192.0;
	krl_floor f = krl_roofline_floor(&h200, 3 * 8192 * 8192 * 4.0, fl, 0);
	assert_string_equal(f.bound, "compute");
	assert_true(fabs(f.tflops - 140) < 1e-9);
	assert_true(fabs(f.ms - fl / 140e12 * 1e3) < 1e-9);
	/* where TF32 is slow, fp32's own rate is the ceiling */
	krl_ceilings slow = h200;
	slow.tf32_tflops = 120;
	f = krl_roofline_floor(&slow, 0, fl, 0);
	assert_true(fabs(f.tflops - 51) < 1e-9);
}

static void tf32_tier_gets_tf32_rate(void **state)
{
	(void)state;
	double fl = 1e12;
	krl_floor f = krl_roofline_floor(&h200, 0, fl, 1);
	assert_string_equal(f.bound, "compute");
	assert_true(fabs(f.tflops - 420) < 1e-9);
	assert_true(fabs(f.ms - 1e12 / 420e12 * 1e3) < 1e-12);
	/* the same flops under the fp32 tier take 3x longer at least */
	krl_floor g = krl_roofline_floor(&h200, 0, fl, 0);
	assert_true(g.ms >= 3 * f.ms - 1e-12);
}

static void unmeasured_ceilings_give_zero_floor(void **state)
{
	(void)state;
	krl_ceilings none;
	memset(&none, 0, sizeof none);
	krl_floor f = krl_roofline_floor(&none, 1e9, 1e9, 0);
	assert_true(f.ms == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(memory_bound_uses_fastest_rate),
		cmocka_unit_test(fp32_tier_gets_3xtf32_rate),
		cmocka_unit_test(tf32_tier_gets_tf32_rate),
		cmocka_unit_test(unmeasured_ceilings_give_zero_floor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
