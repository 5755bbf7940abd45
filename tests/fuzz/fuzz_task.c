/*
 * kernelrl fuzzing: the task parser (krl_task_parse, src/lang/task.c).
 *
 * The input is a task file's text. A task that parses is walked (shape sets
 * looked up by name, every expression freed with the task); one that does
 * not must leave a diagnostic that is safe to format after the parser freed
 * its half-built task.
 */
#include <stdint.h>

#include "fuzz.h"

static const char krl_fuzz_path[] = "fuzz.task";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *paths[] = { krl_fuzz_path };
	krl_task *t = (krl_task *)(uintptr_t)1;
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_err r = krl_task_parse(krl_fuzz_path, (const char *)data, size, &t,
	                           &d);
	krl_fuzz_check_result(r, &d, paths, 1);
	KRL_FUZZ_CHECK((r == KRL_OK) == (t != NULL));
	if (t) {
		paths[0] = t->path;
		KRL_FUZZ_CHECK(strcmp(t->path, krl_fuzz_path) == 0);
		KRL_FUZZ_CHECK(t->name != NULL);
		KRL_FUZZ_CHECK(t->nsets >= 3 && t->ndecls >= 1);
		for (int i = 0; i < t->nsets; i++)
			KRL_FUZZ_CHECK(krl_task_shapeset(t, t->sets[i].name) ==
			               &t->sets[i]);
		KRL_FUZZ_CHECK(krl_task_shapeset(t, "no such set!") == NULL);
		for (int i = 0; i < t->ndecls; i++)
			KRL_FUZZ_CHECK(t->decls[i].ndim >= 0 &&
			               t->decls[i].ndim <= KRL_MAX_DIM);
	}
	krl_task_free(t);
	return 0;
}
