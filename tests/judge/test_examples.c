/*
 * Every bundled example candidate (examples/level1/EXPECTED) and every case
 * of the adversarial corpus (tests/adversarial/EXPECTED) through all the
 * stages that need no GPU: parsing, plan validation on kb0, kb1 and tiny,
 * and NVRTC compilation for sm_90a. Candidates expected to be rejected by
 * those stages (invalid_plan, compile_error) must be; every other one must
 * pass them (its verdict is decided on the GPU).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/judge.h"
#include "krl/nvrtc.h"
#include "krl/suite.h"
#include "testutil.h"


static const char *const sets[] = {"tiny", "kb0", "kb1"};

/* Returns the verdict the CPU stages give: OK when they all pass. */
static krl_verdict cpu_stages(const krl_suite *s, const char *cand_path,
                              const char *task_ref, char *why, size_t cap)
{
	krl_task *t = NULL;
	krl_candidate *c = NULL;
	krl_diag d = {0};
	krl_verdict v = KRL_V_OK;
	krl_limits lim = krl_limits_sm90();
	char buf[1200];
	if (krl_suite_load_task(s, task_ref, &t, &d) != KRL_OK) {
		fprintf(stderr, "task %s: %s\n", task_ref,
		        krl_diag_format(&d, buf, sizeof buf));
		fail();
	}
	/* The reference itself must resolve on every set. */
	for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
		krl_program *p = NULL;
		krl_err r = krl_program_build(t, NULL, sets[k], &lim, &p, &d);
		if (r != KRL_OK) {
			fprintf(stderr, "reference of %s at %s: %s\n", task_ref,
			        sets[k], krl_diag_format(&d, buf, sizeof buf));
			fail();
		}
		krl_program_free(p);
	}
	if (krl_candidate_load(cand_path, &c, &d) != KRL_OK) {
		v = KRL_V_INVALID_PLAN;
		krl_diag_format(&d, why, cap);
		goto out;
	}
	for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
		krl_program *p = NULL;
		if (krl_program_build(t, c, sets[k], &lim, &p, &d) != KRL_OK) {
			v = KRL_V_INVALID_PLAN;
			krl_diag_format(&d, why, cap);
			goto out;
		}
		krl_program_free(p);
	}
	krl_cubin *cb = NULL;
	krl_err r = krl_nvrtc_compile(c->source, c->len, cand_path, "sm_90a",
	                              krl_cache_dir(), &cb, &d);
	if (r == KRL_ECOMPILE) {
		v = KRL_V_COMPILE_ERROR;
		snprintf(why, cap, "%s", cb ? cb->log : d.msg);
	} else if (r != KRL_OK) {
		fprintf(stderr, "%s: NVRTC failed: %s\n", cand_path, d.msg);
		fail();
	} else {
		assert_true(cb->size > 4 && !memcmp(cb->data, "\x7f" "ELF", 4));
	}
	krl_cubin_free(cb);
out:
	krl_candidate_free(c);
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
		char file[256], task[256], expect[64];
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		if (sscanf(line, "%255s %255s %63s", file, task, expect) != 3)
			continue;
		char path[900], why[1200] = "";
		snprintf(path, sizeof path, "%s/%s", dir, file);
		krl_verdict want;
		if (krl_verdict_parse(expect, &want) != 0) {
			fprintf(stderr, "%s: unknown verdict '%s'\n", path, expect);
			fail();
		}
		krl_verdict got = cpu_stages(s, path, task, why, sizeof why);
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
