/*
 * Every bundled example candidate (examples/level{1,2,3}/EXPECTED) and every case
 * of the adversarial corpus (tests/adversarial/EXPECTED) through all the
 * stages that need no GPU, by the judge's own code for them
 * (krl_judge_check): parsing, plan validation on kb0, kb1 and tiny, the
 * include rule and the sandboxed NVRTC compilation for sm_90a (the compile
 * bombs, bomb_*, under a 3-second deadline; the rest under the default,
 * which the test suite raises with $KRL_COMPILE_TIMEOUT: a cold GEMM
 * compile takes ~10 s on a 2-core machine, more under load). Candidates
 * expected to be rejected by those stages (invalid_plan, compile_error)
 * must be, with the expected failure.reason where EXPECTED gives one;
 * every other one must pass them (its verdict is decided on the GPU).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/judge.h"
#include "krl/nvrtc.h"
#include "krl/suite.h"
#include "testutil.h"

/* Returns the verdict the CPU stages give (OK when they all pass), with
 * the failure's reason in reason[] ("" when none). */
static krl_verdict cpu_stages(const krl_suite *s, const char *cand_path,
                              const char *task_ref, char *why, size_t cap,
                              char *reason, size_t rcap)
{
	krl_task *t = NULL;
	krl_diag d = {0};
	json_t *rec = NULL;
	krl_verdict v = KRL_V_OK;
	krl_check_opts o = {.arch = "sm_90a", .sets = {"tiny", "kb0", "kb1"},
	                    .nsets = 3};
	char buf[1200];
	if (krl_suite_load_task(s, task_ref, &t, &d) != KRL_OK) {
		fprintf(stderr, "task %s: %s\n", task_ref,
		        krl_diag_format(&d, buf, sizeof buf));
		fail();
	}
	if (krl_judge_check(t, cand_path, &o, &rec, &d) != KRL_OK) {
		fprintf(stderr, "%s: krl_judge_check failed: %s\n", cand_path,
		        krl_diag_format(&d, buf, sizeof buf));
		fail();
	}
	assert_int_equal(krl_verdict_parse(json_string_value(json_object_get(
		                                       rec, "verdict")),
	                                   &v),
	                 0);
	const char *msg = json_string_value(json_object_get(rec, "message"));
	const char *rs = json_string_value(
		json_object_get(json_object_get(rec, "failure"), "reason"));
	snprintf(why, cap, "%s", msg ? msg : "");
	snprintf(reason, rcap, "%s", rs ? rs : "");
	json_decref(rec);
	krl_task_free(t);
	return v;
}

/* Runs every line of a manifest; returns counts of ok and other expected
 * verdicts. */
static void run_manifest(const char *dir, int *n_ok, int *n_other)
{
	krl_suite *s = NULL;
	krl_diag d = {0};
	char line[1024], manifest[600];
	*n_ok = *n_other = 0;
	KRL_ASSERT_OK(krl_suite_load("tasks", &s, &d), &d);
	snprintf(manifest, sizeof manifest, "%s/EXPECTED", dir);
	FILE *f = fopen(manifest, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		char file[256], task[256], expect[64], want_reason[64];
		if (!krl_test_manifest_line(line, file, task, expect, want_reason))
			continue;
		char path[900], why[1200] = "", reason[64] = "";
		snprintf(path, sizeof path, "%s/%s", dir, file);
		krl_verdict want;
		if (krl_verdict_parse(expect, &want) != 0) {
			fprintf(stderr, "%s: unknown verdict '%s'\n", path, expect);
			fail();
		}
		krl_compile_limits lim = {
			.timeout_s = strncmp(file, "bomb_", 5) ? 0 : 3.0};
		krl_nvrtc_set_limits(&lim);
		krl_verdict got = cpu_stages(s, path, task, why, sizeof why,
		                             reason, sizeof reason);
		int cpu_decides = want == KRL_V_INVALID_PLAN ||
		                  want == KRL_V_COMPILE_ERROR;
		krl_verdict need = cpu_decides ? want : KRL_V_OK;
		printf("%-40s %-18s cpu stages: %s\n", file, expect,
		       krl_verdict_name(got));
		if (got != need) {
			fprintf(stderr, "%s: expected %s from the CPU stages, got %s: %s\n",
			        path, krl_verdict_name(need), krl_verdict_name(got), why);
			fail();
		}
		if (cpu_decides && want_reason[0] && strcmp(reason, want_reason)) {
			fprintf(stderr, "%s: expected reason %s, got '%s': %s\n", path,
			        want_reason, reason, why);
			fail();
		}
		if (want == KRL_V_OK)
			(*n_ok)++;
		else
			(*n_other)++;
	}
	fclose(f);
	krl_suite_free(s);
}

static void every_example(void **state)
{
	int fast, wrong;
	run_manifest("examples/level1", &fast, &wrong);
	/* Issue 2: 12 problems, one fast and one wrong candidate each. */
	assert_int_equal(fast, 12);
	assert_int_equal(wrong, 12);
	/* Issue 16: 6 level-2 problems of different shapes, the same pair. */
	run_manifest("examples/level2", &fast, &wrong);
	assert_int_equal(fast, 6);
	assert_int_equal(wrong, 6);
	/* Issue 21: 4 networks (an MLP, a CNN, an RNN cell, an attention
	 * block), the same pair. */
	run_manifest("examples/level3", &fast, &wrong);
	assert_int_equal(fast, 4);
	assert_int_equal(wrong, 4);
}

static void adversarial_corpus(void **state)
{
	int ok, attacks;
	run_manifest("tests/adversarial", &ok, &attacks);
	/* No attack may be expected to earn ok. */
	assert_int_equal(ok, 0);
	assert_true(attacks >= 25);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_example),
		cmocka_unit_test(adversarial_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
