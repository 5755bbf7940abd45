/*
 * Every task of the suite (tasks/): parses, declares its minimal bytes and
 * flops, and has a reference plan that resolves on kb0, kb1 and tiny with
 * positive bytes and flops (issue 3: "each resolvable at kb0, kb1 and
 * tiny"; "every task has its minimal bytes and flops").
 */
#include <stdio.h>
#include <string.h>

#include "krl/suite.h"
#include "testutil.h"

static void every_task_resolves(void **state)
{
	krl_suite *s = NULL;
	krl_diag d = {0};
	char buf[1200];
	int bad = 0;
	krl_limits lim = krl_limits_sm90();
	static const char *const sets[] = {"tiny", "kb0", "kb1"};
	KRL_ASSERT_OK(krl_suite_load("tasks", &s, &d), &d);
	for (int i = 0; i < s->n; i++) {
		krl_task *t = NULL;
		if (krl_suite_load_task(s, s->ids[i], &t, &d) != KRL_OK) {
			fprintf(stderr, "%s\n", krl_diag_format(&d, buf, sizeof buf));
			bad++;
			continue;
		}
		if (!t->bytes || !t->flops) {
			fprintf(stderr, "%s: no %s declared\n", s->ids[i],
			        !t->bytes ? "bytes" : "flops");
			bad++;
		}
		for (int k = 0; k < 3; k++) {
			krl_program *p = NULL;
			if (krl_program_build(t, NULL, sets[k], &lim, &p, &d) != KRL_OK) {
				fprintf(stderr, "%s at %s: %s\n", s->ids[i], sets[k],
				        krl_diag_format(&d, buf, sizeof buf));
				bad++;
				continue;
			}
			if (!(p->bytes > 0) || !(p->flops >= 0)) {
				fprintf(stderr, "%s at %s: bytes %g, flops %g\n", s->ids[i],
				        sets[k], p->bytes, p->flops);
				bad++;
			}
			krl_program_free(p);
		}
		krl_task_free(t);
	}
	printf("%d tasks\n", s->n);
	assert_true(s->n >= 12);
	assert_int_equal(bad, 0);
	krl_suite_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_task_resolves),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
