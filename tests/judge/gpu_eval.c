/*
 * The judge on a GPU: every bundled example gets its expected verdict on
 * the tiny and kb0 shape sets (correctness only), a fault (hang, illegal
 * address, out-of-bounds write) never takes the judge down and the next
 * evaluation succeeds, a timed evaluation yields a full record, and a
 * stress draw that the reference itself cannot pass under a jitter of its
 * inputs is judged by the size of the error (tests/data/ill).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "krl/judge.h"
#include "krl/suite.h"
#include "testutil.h"

static krl_judge *judge;
static krl_suite *suite;

static int setup(void **state)
{
	krl_diag d = {0};
	krl_judge_opts o = {0};
	o.sets[0] = "tiny";
	o.sets[1] = "kb0";
	o.nsets = 2;
	o.no_timing = 1;
	o.call_timeout_s = 5;
	o.seed = 12345;
	/* The runner is the krl binary: ctest sets KRL_BIN. Without it the
	 * judge would start this test program as its runner (its default is
	 * /proc/self/exe), which runs the tests again, and again. */
	o.runner_path = getenv("KRL_BIN");
	if (!o.runner_path)
		o.runner_path = "build/krl";
	if (access(o.runner_path, X_OK) != 0) {
		print_error("no krl binary at %s: set KRL_BIN\n", o.runner_path);
		return -1;
	}
	KRL_ASSERT_OK(krl_suite_load("tasks", &suite, &d), &d);
	KRL_ASSERT_OK(krl_judge_create(&o, &judge, &d), &d);
	return 0;
}

static int teardown(void **state)
{
	krl_judge_free(judge);
	krl_suite_free(suite);
	return 0;
}

/* Judges examples/<dir>/<file> against task; the verdict is *rec's. */
static const char *eval_in(const char *dir, const char *file,
                           const char *task, json_t **rec)
{
	krl_task *t = NULL;
	krl_diag d = {0};
	char path[600];
	snprintf(path, sizeof path, "examples/%s/%s", dir, file);
	KRL_ASSERT_OK(krl_suite_load_task(suite, task, &t, &d), &d);
	KRL_ASSERT_OK(krl_judge_eval(judge, t, path, rec, &d), &d);
	krl_task_free(t);
	return json_string_value(json_object_get(*rec, "verdict"));
}

static const char *eval_one(const char *file, const char *task, json_t **rec)
{
	return eval_in("level1", file, task, rec);
}

/* Judges every line of examples/<dir>/EXPECTED; returns the number of
 * examples and adds the verdicts that differ from the manifest's to *bad,
 * and the timed ok records whose roofline fraction is not in (0, 1] (a
 * ceiling that some candidate beats is wrong: src/judge/roofline.c). */
static int run_examples(const char *dir, int *bad)
{
	char line[1024], manifest[300];
	int n = 0, mismatches = 0;
	snprintf(manifest, sizeof manifest, "examples/%s/EXPECTED", dir);
	FILE *f = fopen(manifest, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		char file[256], task[256], expect[64], reason[64];
		if (!krl_test_manifest_line(line, file, task, expect, reason))
			continue;
		json_t *rec = NULL;
		const char *v = eval_in(dir, file, task, &rec);
		printf("%-48s expected %-18s got %-18s %s\n", file, expect, v,
		       strcmp(v, expect)
		               ? json_string_value(json_object_get(rec, "message"))
		               : "");
		mismatches += strcmp(v, expect) != 0;
		json_t *rl = json_object_get(rec, "roofline");
		if (!strcmp(v, "ok") && rl) { /* timed records only */
			double fr = json_number_value(json_object_get(rl,
			                                              "fraction"));
			if (!(fr > 0 && fr <= 1)) {
				printf("  roofline fraction %.3f of the %s-bound "
				       "floor (ceilings %.0f GB/s, %.1f TFLOP/s): "
				       "not in (0, 1]\n", fr,
				       json_string_value(json_object_get(rl, "bound")),
				       json_number_value(json_object_get(rl,
				                                         "ceiling_gbs")),
				       json_number_value(json_object_get(
				               rl, "ceiling_tflops")));
				mismatches++;
			}
		}
		json_decref(rec);
		n++;
	}
	fclose(f);
	*bad += mismatches;
	return n;
}

static void every_example(void **state)
{
	int bad = 0;
	assert_int_equal(run_examples("level1", &bad), 24);
	assert_int_equal(run_examples("level2", &bad), 12);
	assert_int_equal(bad, 0);
}

static void recovers_after_faults(void **state)
{
	/* Each faulty example is followed by a good one, which must be ok. */
	char line[1024];
	FILE *f = fopen("examples/level1/EXPECTED", "r");
	assert_non_null(f);
	int faults = 0;
	while (fgets(line, sizeof line, f)) {
		char file[256], task[256], expect[64], reason[64];
		if (!krl_test_manifest_line(line, file, task, expect, reason) ||
		    (strcmp(expect, "timeout") && strcmp(expect, "launch_error")))
			continue;
		json_t *rec = NULL;
		assert_string_equal(eval_one(file, task, &rec), expect);
		json_decref(rec);
		assert_string_equal(eval_one("19_relu.fast.cu", "level1/19_relu", &rec),
		                    "ok");
		json_decref(rec);
		faults++;
	}
	fclose(f);
	assert_true(faults >= 3);
}

/* A judge of one shape set: timed with budget seconds, or untimed
 * (budget 0). */
static krl_judge *judge_of(const char *set, double budget, uint64_t seed)
{
	krl_diag d = {0};
	krl_judge_opts o = {0};
	krl_judge *j = NULL;
	o.sets[0] = set;
	o.nsets = 1;
	o.time_budget_s = budget;
	o.no_timing = budget == 0;
	o.seed = seed;
	o.runner_path = getenv("KRL_BIN");
	KRL_ASSERT_OK(krl_judge_create(&o, &j, &d), &d);
	return j;
}

static void timed_record(void **state)
{
	krl_diag d = {0};
	krl_judge *j = judge_of("kb0", 3, 7);
	krl_task *t = NULL;
	json_t *rec = NULL;
	KRL_ASSERT_OK(krl_suite_load_task(suite, "level1/94", &t, &d), &d);
	KRL_ASSERT_OK(krl_judge_eval(j, t, "examples/level1/94_mse_loss.fast.cu",
	                             &rec, &d), &d);
	krl_record_print(stdout, rec);
	assert_string_equal(json_string_value(json_object_get(rec, "verdict")), "ok");
	json_t *tm = json_object_get(rec, "timing");
	assert_non_null(tm);
	assert_true(json_integer_value(json_object_get(tm, "pairs")) >= 5);
	assert_true(json_integer_value(json_object_get(tm, "verified")) >= 1);
	json_t *sp = json_object_get(tm, "speedup");
	double med = json_number_value(json_object_get(sp, "median"));
	assert_true(json_number_value(json_object_get(sp, "ci_low")) <= med);
	assert_true(json_number_value(json_object_get(sp, "ci_high")) >= med);
	double fr = json_number_value(json_object_get(
		json_object_get(rec, "roofline"), "fraction"));
	assert_true(fr > 0 && fr <= 1); /* a fraction above 1: a wrong ceiling */
	json_decref(rec);
	krl_task_free(t);
	/* the two ceilings' hardest customers: a memory-bound stream and a
	 * 3xTF32 GEMM (fp32 tier: held to a third of the TF32 rate) */
	static const char *const more[][2] = {
		{"level1/19", "examples/level1/19_relu.fast.cu"},
		{"level1/1_square_matmul", "examples/level1/1_square_matmul.fast.cu"}};
	for (int k = 0; k < 2; k++) {
		KRL_ASSERT_OK(krl_suite_load_task(suite, more[k][0], &t, &d), &d);
		KRL_ASSERT_OK(krl_judge_eval(j, t, more[k][1], &rec, &d), &d);
		krl_record_print(stdout, rec);
		assert_string_equal(json_string_value(json_object_get(rec,
		                                                      "verdict")),
		                    "ok");
		fr = json_number_value(json_object_get(
			json_object_get(rec, "roofline"), "fraction"));
		assert_true(fr > 0 && fr <= 1);
		json_decref(rec);
		krl_task_free(t);
	}
	krl_judge_free(j);
}

/* The failed stress draw of record rec, or NULL. */
static json_t *failed_draw(json_t *rec)
{
	return json_object_get(json_object_get(rec, "failure"), "draw");
}

/* tests/data/ill: the 'scale' draw decides the output by rounding alone.
 * A candidate summing in another order misses the per-element tolerance
 * there and passes on the conditioning probe; NaN, and an error far past
 * the reference's own movement, still fail as unstable. */
static void ill_conditioned(void **state)
{
	krl_diag d = {0};
	krl_judge *j = judge_of("tiny", 0, 99);
	krl_task *t = NULL;
	json_t *rec = NULL;
	KRL_ASSERT_OK(krl_task_load("tests/data/ill/ill.task", &t, &d), &d);

	KRL_ASSERT_OK(krl_judge_eval(j, t, "tests/data/ill/reorder.cu", &rec, &d),
	              &d);
	krl_record_print(stdout, rec);
	assert_string_equal(json_string_value(json_object_get(rec, "verdict")),
	                    "ok");
	/* the probe engaged on the tiny set's 'scale' draw and said why */
	json_t *draws = json_object_get(
		json_array_get(json_object_get(rec, "checks"), 0), "stress");
	json_t *ill = NULL;
	size_t k;
	json_t *dr;
	json_array_foreach(draws, k, dr) {
		if (!strcmp(json_string_value(json_object_get(dr, "kind")),
		            "scale"))
			ill = json_object_get(json_object_get(dr, "ill_conditioned"),
			                      "out");
	}
	assert_non_null(ill);
	assert_true(json_integer_value(json_object_get(ill, "reference_bad")) > 0);
	assert_true(json_integer_value(json_object_get(ill, "candidate_bad")) > 0);
	assert_true(json_real_value(json_object_get(ill, "candidate_rms")) <=
	            8 * json_real_value(json_object_get(ill, "reference_rms")));
	/* elementwise ops only: the probe's jitter is 2^-20, no sum in order */
	assert_true(json_real_value(json_object_get(ill, "jitter")) == 0x1p-20);
	assert_int_equal(json_integer_value(json_object_get(ill, "seq")), 0);
	json_decref(rec);

	static const char *const wrong[] = {"tests/data/ill/naive_exp.cu",
	                                    "tests/data/ill/biased.cu"};
	for (int q = 0; q < 2; q++) {
		KRL_ASSERT_OK(krl_judge_eval(j, t, wrong[q], &rec, &d), &d);
		krl_record_print(stdout, rec);
		assert_string_equal(json_string_value(json_object_get(rec,
		                                                      "verdict")),
		                    "wrong_output");
		json_t *f = json_object_get(rec, "failure");
		assert_string_equal(json_string_value(json_object_get(f, "reason")),
		                    "unstable");
		/* judged as ill-conditioned, and failed all the same */
		assert_non_null(json_object_get(failed_draw(rec),
		                                "ill_conditioned"));
		json_decref(rec);
	}
	krl_task_free(t);
	krl_judge_free(j);
}

int main(void)
{
	krl_test_require_gpu("gpu_eval");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_example),
		cmocka_unit_test(recovers_after_faults),
		cmocka_unit_test(timed_record),
		cmocka_unit_test(ill_conditioned),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
