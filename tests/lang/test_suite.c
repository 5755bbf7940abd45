/* The task suite: discovery, ordering and lookup (CPU, real tasks/). */
#include <string.h>

#include "krl/suite.h"
#include "testutil.h"

static void lists_and_orders(void **state)
{
	krl_suite *s = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_suite_load("tasks", &s, &d), &d);
	assert_true(s->n >= 12);
	int i1 = krl_suite_find(s, "level1/1_square_matmul", &d);
	int i2 = krl_suite_find(s, "level1/2_matmul", &d);
	int i19 = krl_suite_find(s, "level1/19_relu", &d);
	assert_true(i1 >= 0 && i2 >= 0 && i19 >= 0);
	/* Numeric order, not string order: 2 before 19. */
	assert_true(i1 < i2 && i2 < i19);
	assert_string_equal(s->paths[i19], "tasks/level1/19_relu.task");
	krl_suite_free(s);
}

static void lookup_forms(void **state)
{
	krl_suite *s = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_suite_load("tasks", &s, &d), &d);
	int i = krl_suite_find(s, "level1/19_relu", &d);
	assert_true(i >= 0);
	assert_int_equal(krl_suite_find(s, "level1/19", &d), i);
	assert_int_equal(krl_suite_find(s, "tasks/level1/19_relu.task", &d), i);
	/* "level1/1" must not match 19_relu or 18_...: it names problem 1. */
	int one = krl_suite_find(s, "level1/1", &d);
	assert_true(one >= 0);
	assert_string_equal(s->ids[one], "level1/1_square_matmul");
	assert_int_equal(krl_suite_find(s, "level1/999", &d), -1);
	assert_non_null(strstr(d.msg, "no task 'level1/999'"));
	krl_suite_free(s);
}

static void load_sets_id(void **state)
{
	krl_suite *s = NULL;
	krl_task *t = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_suite_load("tasks", &s, &d), &d);
	KRL_ASSERT_OK(krl_suite_load_task(s, "level1/23", &t, &d), &d);
	assert_string_equal(t->id, "level1/23_softmax");
	krl_task_free(t);
	assert_int_equal(krl_suite_load_task(s, "nope/0", &t, &d), KRL_ENOTFOUND);
	assert_null(t);
	krl_suite_free(s);
}

static void missing_root(void **state)
{
	krl_suite *s = NULL;
	krl_diag d = {0};
	assert_int_equal(krl_suite_load("/nonexistent/tasks", &s, &d), KRL_EIO);
	assert_null(s);
	assert_non_null(strstr(d.msg, "/nonexistent/tasks"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lists_and_orders),
		cmocka_unit_test(lookup_forms),
		cmocka_unit_test(load_sets_id),
		cmocka_unit_test(missing_root),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
