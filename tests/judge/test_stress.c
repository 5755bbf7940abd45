/*
 * Stress draws and keyed draws on the CPU (src/judge/stress.c, draw.c,
 * the task language's `stress` statement, krl_stress_host): which inputs
 * a stress draw changes and by how much, how tasks and ops narrow it, what
 * the transforms do to the values, and that the judge's draws depend on
 * its secret key. The device side of the transforms is checked bit for bit
 * against krl_stress_host in tests/runtime/gpu_check.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge_int.h"
#include "krl/check.h"
#include "krl/suite.h"
#include "testutil.h"

static krl_task *parse(const char *text)
{
	krl_task *t = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_task_parse("s.task", text, strlen(text), &t, &d), &d);
	return t;
}

static krl_program *build_set(const krl_task *t, const char *set)
{
	krl_program *p = NULL;
	krl_diag d = {0};
	krl_limits lim = krl_limits_sm90();
	KRL_ASSERT_OK(krl_program_build(t, NULL, set, &lim, &p, &d), &d);
	return p;
}

static krl_program *build(const krl_task *t)
{
	return build_set(t, "tiny");
}

#define HEAD                                                                 \
	"task s\nshapes tiny n=3000\nshapes kb0 n=3000\nshapes kb1 n=3000\n"   \
	"tolerance atol=1e-6 rtol=1e-6\n"

static void resolve_defaults(void **state)
{
	(void)state;
	krl_task *t = parse(HEAD
	                    "input a f32 [n] normal(2, 0.5)\n"
	                    "input b f32 [n] uniform(1, 4)\n"
	                    "input i i64 [n] randint(0, 9)\n"
	                    "input m bool [n] bernoulli(0.5)\n"
	                    "input c f32 [n] randint(-1, 2)\n"
	                    "output y f32 [n]\n"
	                    "plan\n  call add(a, b) -> y\nend\n");
	krl_program *p = build(t);
	krl_stress s;
	const char *why = "x";
	/* only the float inputs drawn from normal or uniform */
	assert_int_equal(krl_stress_resolve(t, p, KRL_STRESS_SCALE, &s, &why), 2);
	assert_null(why);
	assert_int_equal(s.ops[0].buf, 0);
	assert_int_equal(s.ops[1].buf, 1);
	assert_near(s.ops[0].v, 64, 0);
	/* offset: 1000 spreads (std 0.5; uniform's (4 - 1) / sqrt(12)) */
	assert_int_equal(krl_stress_resolve(t, p, KRL_STRESS_OFFSET, &s, &why), 2);
	assert_near(s.ops[0].v, 500, 1e-9);
	assert_near(s.ops[1].v, 1e3 * 3 / sqrt(12.0), 1e-6);
	assert_int_equal(krl_stress_resolve(t, p, KRL_STRESS_SPIKES, &s, &why), 2);
	assert_near(s.ops[1].v, 1024, 0);
	krl_program_free(p);
	krl_task_free(t);
}

static void resolve_narrowed(void **state)
{
	(void)state;
	krl_task *t = parse(HEAD
	                    "input p f32 [n] uniform(0.5, 1.5)\n"
	                    "input q f32 [n] normal(0, 1)\n"
	                    "output y f32 [n]\n"
	                    "stress p off \"p holds probabilities\"\n"
	                    "stress * scale spikes \"no offsets: q is centred "
	                    "by nature\"\n"
	                    "plan\n  call add(p, q) -> y\nend\n");
	krl_program *p = build(t);
	krl_stress s;
	const char *why = NULL;
	assert_int_equal(krl_stress_resolve(t, p, KRL_STRESS_SCALE, &s, &why), 1);
	assert_int_equal(s.ops[0].buf, 1);
	assert_int_equal(krl_stress_resolve(t, p, KRL_STRESS_OFFSET, &s, &why), 0);
	assert_string_equal(why, "no offsets: q is centred by nature");
	krl_program_free(p);
	krl_task_free(t);

	/* an op that declares no_stress switches the task off, saying why */
	t = parse(HEAD "input x f32 [n] uniform(0.9, 1.1)\noutput y f32 [n]\n"
	               "plan\n  call cumprod(x) -> y dim=0\nend\n");
	p = build(t);
	why = NULL;
	for (int k = 0; k < KRL_STRESS_KINDS; k++) {
		assert_int_equal(krl_stress_resolve(t, p, (krl_stress_kind)k, &s,
		                                    &why),
		                 0);
		assert_non_null(why);
		assert_non_null(strstr(why, "product"));
	}
	krl_program_free(p);
	krl_task_free(t);
}

static void parse_errors(void **state)
{
	(void)state;
	static const struct {
		const char *stmt, *msg;
	} cases[] = {
		{"stress z off \"why\"\n", "'z', which is not an input"},
		{"stress y off \"why\"\n", "'y', which is not an input"},
		{"stress x scale\n", "the reason, in double quotes"},
		{"stress x \"why\"\n", "off or stress kinds"},
		{"stress x squash \"why\"\n", "found 'squash'"},
		{"stress x off \"\"\n", "non-empty reason"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[1024];
		snprintf(text, sizeof text,
		         HEAD "input x f32 [n] normal(0, 1)\noutput y f32 [n]\n%s"
		              "plan\n  call relu(x) -> y\nend\n",
		         cases[i].stmt);
		krl_task *t = NULL;
		krl_diag d = {0};
		assert_int_not_equal(krl_task_parse("s.task", text, strlen(text),
		                                    &t, &d),
		                     KRL_OK);
		if (!strstr(d.msg, cases[i].msg)) {
			fprintf(stderr, "%s -> %s\n", cases[i].stmt, d.msg);
			fail();
		}
		assert_int_equal(d.pos.line, 8);
		assert_null(t);
	}
}

/* Every task of the suite resolves, and what is stressed is what the
 * tasks declare: prod and cumprod off, integer inputs never. */
static void suite_resolves(void **state)
{
	(void)state;
	krl_suite *s = NULL;
	krl_diag d = {0};
	int stressed = 0, off = 0;
	KRL_ASSERT_OK(krl_suite_load("tasks", &s, &d), &d);
	for (int i = 0; i < s->n; i++) {
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_suite_load_task(s, s->ids[i], &t, &d), &d);
		krl_program *p = build(t);
		krl_stress st;
		const char *why = NULL;
		int n = krl_stress_resolve(t, p, KRL_STRESS_OFFSET, &st, &why);
		for (int k = 0; k < n; k++) {
			const krl_buf *b = &p->bufs[st.ops[k].buf];
			assert_int_equal(b->role, KRL_ROLE_INPUT);
			assert_true(b->dtype == KRL_F32 || b->dtype == KRL_F64 ||
			            b->dtype == KRL_F16 || b->dtype == KRL_BF16);
		}
		if (strstr(s->ids[i], "prod"))
			assert_int_equal(n, 0);
		n > 0 ? stressed++ : off++;
		krl_program_free(p);
		krl_task_free(t);
	}
	print_message("%d tasks get the offset draw, %d do not\n", stressed, off);
	assert_true(stressed >= 90);
	krl_suite_free(s);
}

/* The conditioning probe's jitter: 2^-20, or 2^-24 sqrt(K) where a library
 * call of the reference sums K > 256 terms in order (krl_op.seq_len). */
static void probe_jitter(void **state)
{
	(void)state;
	int64_t k = -1;
	/* elementwise only: no sum in order */
	krl_task *t = parse(HEAD "input a f32 [n] normal(0, 1)\n"
	                    "output y f32 [n]\nplan\n  call relu(a) -> y\nend\n");
	krl_program *p = build(t);
	assert_true(krl_stress_jitter(p, &k) == 0x1p-20);
	assert_int_equal(k, 0);
	krl_program_free(p);
	krl_task_free(t);
	/* a Linear: K; 2^-20 up to 256 terms, then 2^-24 sqrt(K) */
	t = parse("task s\nshapes tiny m=3 k=100 n=5\nshapes kb0 m=3 k=256 n=5\n"
	          "shapes kb1 m=3 k=8192 n=5\ntolerance atol=1e-5 rtol=1e-5\n"
	          "input x f32 [m, k] normal(0, 1)\n"
	          "param w f32 [n, k] uniform(-0.01, 0.01)\n"
	          "param b f32 [n] uniform(-0.01, 0.01)\n"
	          "output y f32 [m, n]\n"
	          "plan\n  buffer t f32 [m, n]\n  call linear(x, w, b) -> t\n"
	          "  call relu(t) -> y\nend\n");
	p = build_set(t, "tiny");
	assert_true(krl_stress_jitter(p, &k) == 0x1p-20);
	assert_int_equal(k, 100);
	krl_program_free(p);
	p = build_set(t, "kb0");
	assert_true(krl_stress_jitter(p, &k) == 0x1p-20);
	assert_int_equal(k, 256);
	krl_program_free(p);
	p = build_set(t, "kb1");
	assert_near(krl_stress_jitter(p, &k), 0x1p-24 * sqrt(8192.0), 1e-15);
	assert_int_equal(k, 8192);
	krl_program_free(p);
	krl_task_free(t);
	/* gemm with ta: K is a's second-to-last dim */
	t = parse("task s\nshapes tiny m=3 k=1024 n=5\nshapes kb0 m=3 k=1024 n=5\n"
	          "shapes kb1 m=3 k=1024 n=5\ntolerance atol=1e-5 rtol=1e-5\n"
	          "input a f32 [k, m] normal(0, 1)\ninput b f32 [k, n] normal(0, 1)\n"
	          "output c f32 [m, n]\nplan\n  call gemm(a, b) -> c ta=1\nend\n");
	p = build(t);
	assert_near(krl_stress_jitter(p, &k), 0x1p-24 * 32.0, 1e-15);
	assert_int_equal(k, 1024);
	krl_program_free(p);
	krl_task_free(t);
	/* convolutions: Cin / groups times the taps; transposed, w is
	 * [Cin, Cout / groups, k...] */
	t = parse("task s\nshapes tiny c=64 o=8 g=2\nshapes kb0 c=64 o=8 g=2\n"
	          "shapes kb1 c=64 o=8 g=2\ntolerance atol=1e-5 rtol=1e-5\n"
	          "input x f32 [2, c, 9, 9] normal(0, 1)\n"
	          "param w f32 [o, c / g, 3, 3] normal(0, 1)\n"
	          "param v f32 [o, 4, 3, 3] normal(0, 1)\n"
	          "output y f32 [2, o, 7, 7]\noutput z f32 [2, 8, 9, 9]\n"
	          "plan\n  call conv(x, w) -> y groups=g\n"
	          "  call conv_transpose(y, v) -> z groups=2\nend\n");
	p = build(t);
	assert_near(krl_stress_jitter(p, &k), 0x1p-24 * sqrt(288.0), 1e-15);
	assert_int_equal(k, 288);      /* 32 channels x 9 taps; the transposed 36 */
	krl_program_free(p);
	krl_task_free(t);
}

/* The probe's jitter of task id's reference at shape set `set` (*k its K,
 * may be NULL), at the task's own tier, or with TF32 forbidden where tier
 * is 0. */
static double jitter_at(krl_suite *s, const char *id, const char *set,
                        int tier, int64_t *k)
{
	krl_task *t = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_suite_load_task(s, id, &t, &d), &d);
	krl_program *p = build_set(t, set);
	if (!tier)
		p->tf32 = 0;
	double j = krl_stress_jitter(p, k);
	krl_program_free(p);
	krl_task_free(t);
	return j;
}

/* The suite's tasks whose unstable shortcuts tests/adversarial holds keep
 * the 2^-20 jitter at every set (no library sum in order), and level 2's
 * 97 gets 2^-24 sqrt(8192) at kb1 (its Linear over 8192 features). */
static void probe_jitter_suite(void **state)
{
	(void)state;
	static const char *const plain[] = {
		"level1/23_softmax", "level1/24_log_softmax", "level1/40_layernorm",
		"level1/95_cross_entropy", "level1/29_softplus",
		"level1/34_instancenorm", "level1/94_mse_loss",
	};
	static const char *const sets[] = { "tiny", "kb0", "kb1" };
	krl_suite *s = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_suite_load("tasks", &s, &d), &d);
	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
		for (int k = 0; k < 3; k++)
			assert_true(jitter_at(s, plain[i], sets[k], 1, NULL) ==
			            0x1p-20);
	int64_t k = 0;
	assert_near(jitter_at(s, "level2/97", "kb1", 1, &k),
	            0x1p-24 * sqrt(8192.0), 1e-15);
	assert_int_equal(k, 8192);
	/* 91's stride-2 transposed convolution (64 channels, 4 x 4 taps): an
	 * output sums 64 x 2 x 2 products, 2^-20 in fp32; the task is tf32
	 * and cuDNN multiplies in TF32: 2^-11 */
	assert_true(jitter_at(s, "level2/91", "kb1", 1, &k) == 0x1p-11);
	assert_int_equal(k, 256);
	assert_true(jitter_at(s, "level2/91", "kb1", 0, &k) == 0x1p-20);
	/* TF32 by the call, not the tier alone: level 1's depthwise
	 * convolution (tf32 task, 3 x 3 taps a channel) runs kernelrl's fp32
	 * kernel; 86's separable one has a pointwise convolution after it
	 * (Cin = 3 at kb1, 1 x 1) that cuDNN runs in TF32 */
	krl_task *t = NULL;
	KRL_ASSERT_OK(krl_suite_load_task(s, "level1/82", &t, &d), &d);
	assert_true(krl_task_is_tf32(t));
	krl_task_free(t);
	assert_true(jitter_at(s, "level1/82", "kb1", 1, &k) == 0x1p-20);
	assert_int_equal(k, 9);
	assert_true(jitter_at(s, "level1/86", "kb1", 1, &k) == 0x1p-11);
	krl_suite_free(s);
}

/* The transforms on the host: exact scaling, one rounding for the offset,
 * about one spike in 1024 and always one. */
static void host_transforms(void **state)
{
	(void)state;
	assert_true(krl_stress_host(KRL_F32, KRL_STRESS_SCALE, 64, 1, 0, 10,
	                            0.3f) == (double)(0.3f * 64.f));
	assert_true(krl_stress_host(KRL_F32, KRL_STRESS_OFFSET, 1e4, 1, 0, 10,
	                            0.3f) == (double)(float)(1e4 + (double)0.3f));
	assert_true(krl_stress_host(KRL_F64, KRL_STRESS_OFFSET, 1e4, 1, 0, 10,
	                            0.3) == 1e4 + 0.3);
	/* f16: the value as stored in half */
	double h = krl_stress_host(KRL_F16, KRL_STRESS_SCALE, 64, 1, 0, 10, 0.5);
	assert_true(h == 32.0);
	const int64_t n = 1 << 20;
	for (uint64_t seed = 1; seed < 4; seed++) {
		int64_t spikes = 0;
		for (int64_t i = 0; i < n; i++)
			spikes += krl_stress_host(KRL_F32, KRL_STRESS_SPIKES, 1024, seed,
			                          i, n, 1.0) == 1024.0;
		assert_true(spikes > 900 && spikes < 1150);
	}
	for (uint64_t seed = 1; seed < 200; seed++) {
		int64_t spikes = 0;
		for (int64_t i = 0; i < 5; i++)
			spikes += krl_stress_host(KRL_F32, KRL_STRESS_SPIKES, 1024, seed,
			                          i, 5, 1.0) == 1024.0;
		assert_true(spikes >= 1);
	}
}

/* The judge's jitter (KRL_JITTER_KIND, docs/judge.md "Ill-conditioned
 * draws"): every f32 value moves by at most 2^-20 of itself plus the
 * rounding to f32, most move, the moves take both signs, and the same
 * seed gives the same values. */
static void host_jitter(void **state)
{
	(void)state;
	const int64_t n = 1 << 16;
	int64_t up = 0, down = 0;
	for (int64_t i = 0; i < n; i++) {
		float x = (float)(1.0 + (double)i / n) * (i % 2 ? -3.f : 5.f);
		double y = krl_stress_host(KRL_F32, KRL_JITTER_KIND, 0x1p-20, 9, i,
		                           n, x);
		assert_true(y == (double)(float)y);
		assert_true(fabs(y - x) <= fabs((double)x) * (0x1p-20 + 0x1p-24));
		assert_true(y == krl_stress_host(KRL_F32, KRL_JITTER_KIND, 0x1p-20,
		                                 9, i, n, x));
		up += fabs(y) > fabs((double)x);
		down += fabs(y) < fabs((double)x);
	}
	assert_true(up > n / 4 && down > n / 4);
	/* another seed, another jitter */
	int64_t same = 0;
	for (int64_t i = 0; i < 1000; i++)
		same += krl_stress_host(KRL_F32, KRL_JITTER_KIND, 0x1p-20, 9, i, n,
		                        1.5) ==
		        krl_stress_host(KRL_F32, KRL_JITTER_KIND, 0x1p-20, 10, i, n,
		                        1.5);
	assert_true(same < 600);
}

/* Values derive from (key, seed, buffer): another key, other values;
 * the same key, the same values; no key is the all-zero key. */
static void keyed_draws(void **state)
{
	(void)state;
	krl_task *t = parse(HEAD "input x f32 [n] normal(0, 1)\n"
	                         "input z f32 [n] normal(0, 1)\noutput y f32 [n]\n"
	                         "plan\n  call add(x, z) -> y\nend\n");
	krl_program *p = build(t);
	double *a[3], *b[3], *c[3];
	for (int i = 0; i < 3; i++) {
		a[i] = calloc(3000, sizeof(double));
		b[i] = calloc(3000, sizeof(double));
		c[i] = calloc(3000, sizeof(double));
	}
	unsigned char k1[KRL_JUDGE_KEY_BYTES] = {1}, k2[KRL_JUDGE_KEY_BYTES] = {2};
	unsigned char k0[KRL_JUDGE_KEY_BYTES] = {0};
	krl_judge_draw_host(p, a, KRL_ROLE_INPUT, 42, k1, NULL);
	krl_judge_draw_host(p, b, KRL_ROLE_INPUT, 42, k1, NULL);
	krl_judge_draw_host(p, c, KRL_ROLE_INPUT, 42, k2, NULL);
	assert_memory_equal(a[0], b[0], 3000 * sizeof(double));
	int same = 0;
	for (int i = 0; i < 3000; i++)
		same += a[0][i] == c[0][i];
	assert_true(same < 10);
	/* the two inputs of one seed differ */
	same = 0;
	for (int i = 0; i < 3000; i++)
		same += a[0][i] == a[1][i];
	assert_true(same < 10);
	krl_judge_draw_host(p, b, KRL_ROLE_INPUT, 42, NULL, NULL);
	krl_judge_draw_host(p, c, KRL_ROLE_INPUT, 42, k0, NULL);
	assert_memory_equal(b[0], c[0], 3000 * sizeof(double));
	/* a stress draw changes the inputs it names, exactly */
	krl_stress st;
	assert_int_equal(krl_stress_resolve(t, p, KRL_STRESS_OFFSET, &st, NULL),
	                 2);
	krl_judge_draw_host(p, c, KRL_ROLE_INPUT, 42, k1, &st);
	for (int i = 0; i < 3000; i++)
		assert_true(c[0][i] == (double)(float)(a[0][i] + 1e3));
	for (int i = 0; i < 3; i++) {
		free(a[i]);
		free(b[i]);
		free(c[i]);
	}
	krl_program_free(p);
	krl_task_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(resolve_defaults),
		cmocka_unit_test(resolve_narrowed),
		cmocka_unit_test(parse_errors),
		cmocka_unit_test(suite_resolves),
		cmocka_unit_test(host_transforms),
		cmocka_unit_test(host_jitter),
		cmocka_unit_test(probe_jitter),
		cmocka_unit_test(probe_jitter_suite),
		cmocka_unit_test(keyed_draws),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
