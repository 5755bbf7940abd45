/*
 * The golden executor and the degenerate-output audit on the CPU: the
 * reference of a real task computed from host draws matches its definition;
 * a task built to be degenerate is flagged (and marked declared when it
 * says so); and no task of the suite is degenerate at `tiny` without saying
 * so (issue 3's audit).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge_int.h"
#include "krl/judge.h"
#include "krl/runtime.h"
#include "krl/suite.h"
#include "testutil.h"

static void golden_reference_of_relu(void **state)
{
	krl_suite *s = NULL;
	krl_task *t = NULL;
	krl_program *p = NULL;
	krl_diag d = {0};
	krl_limits lim = krl_limits_sm90();
	KRL_ASSERT_OK(krl_suite_load("tasks", &s, &d), &d);
	KRL_ASSERT_OK(krl_suite_load_task(s, "level1/19_relu", &t, &d), &d);
	KRL_ASSERT_OK(krl_program_build(t, NULL, "tiny", &lim, &p, &d), &d);
	double **bufs = calloc((size_t)p->nbufs, sizeof *bufs);
	for (int i = 0; i < p->nbufs; i++)
		bufs[i] = calloc((size_t)p->bufs[i].numel, sizeof **bufs);
	krl_judge_draw_host(p, bufs, KRL_ROLE_INPUT, 42, NULL, NULL);
	KRL_ASSERT_OK(krl_exec_golden(p, bufs, &d), &d);
	int neg = 0;
	for (int64_t k = 0; k < p->bufs[0].numel; k++) {
		double x = bufs[0][k];
		assert_true(bufs[1][k] == (x > 0 ? x : 0));
		neg += x < 0;
	}
	/* Signed inputs: about half negative (normal(0, 1)). */
	assert_true(neg > p->bufs[0].numel / 3 && neg < 2 * p->bufs[0].numel / 3);
	for (int i = 0; i < p->nbufs; i++)
		free(bufs[i]);
	free(bufs);
	krl_program_free(p);
	krl_task_free(t);
	krl_suite_free(s);
}

static const char degenerate_task[] =
	"task neg_relu\n"
	"shapes kb0 n=64\nshapes kb1 n=128\nshapes tiny n=33\n"
	"input x f32 [n] uniform(-2, -1)\n"
	"output y f32 [n]\n"
	"tolerance atol=1e-6 rtol=1e-5\n"
	"%s"
	"plan\n  call relu(x) -> y\nend\n";

static void flags_a_degenerate_task(void **state)
{
	char text[512];
	krl_diag d = {0};
	for (int declared = 0; declared < 2; declared++) {
		krl_task *t = NULL;
		snprintf(text, sizeof text, degenerate_task,
		         declared ? "degenerate \"relu of negatives is zero\"\n" : "");
		KRL_ASSERT_OK(krl_task_parse("neg.task", text, strlen(text), &t, &d),
		              &d);
		json_t *rows = json_array();
		KRL_ASSERT_OK(krl_audit_task(t, "tiny", 1 << 20, 1, rows, &d), &d);
		assert_int_equal(json_array_size(rows), 1);
		json_t *r = json_array_get(rows, 0);
		assert_string_equal(json_string_value(json_object_get(r, "flag")),
		                    "all zero");
		assert_int_equal(json_is_true(json_object_get(r, "declared")), declared);
		json_decref(rows);
		krl_task_free(t);
	}
}

static void suite_has_no_undeclared_degenerate_task(void **state)
{
	krl_suite *s = NULL;
	krl_diag d = {0};
	char buf[1200];
	int bad = 0, audited = 0;
	KRL_ASSERT_OK(krl_suite_load("tasks", &s, &d), &d);
	json_t *rows = json_array();
	for (int i = 0; i < s->n; i++) {
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_suite_load_task(s, s->ids[i], &t, &d), &d);
		krl_err r = krl_audit_task(t, "tiny", 1 << 22, 1, rows, &d);
		if (r != KRL_OK) {
			fprintf(stderr, "%s: %s\n", s->ids[i],
			        krl_diag_format(&d, buf, sizeof buf));
			bad++;
		}
		krl_task_free(t);
	}
	size_t k;
	json_t *row;
	json_array_foreach(rows, k, row) {
		const char *flag = json_string_value(json_object_get(row, "flag"));
		audited++;
		if (flag && !json_is_true(json_object_get(row, "declared"))) {
			fprintf(stderr, "%s: output %s would pass as %s\n",
			        json_string_value(json_object_get(row, "task")),
			        json_string_value(json_object_get(row, "output")), flag);
			bad++;
		}
	}
	printf("%d outputs of %d tasks audited at tiny\n", audited, s->n);
	assert_true(audited >= s->n);
	assert_int_equal(bad, 0);
	json_decref(rows);
	krl_suite_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(golden_reference_of_relu),
		cmocka_unit_test(flags_a_degenerate_task),
		cmocka_unit_test(suite_has_no_undeclared_degenerate_task),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
