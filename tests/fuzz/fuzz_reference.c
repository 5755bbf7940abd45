/*
 * kernelrl fuzzing: the task parser followed by the validator on the task's
 * own reference plan (krl_program_build with no candidate).
 *
 * Each input that parses as a task has its reference program built for every
 * shape set it defines, with the sm_90 limits; a program that builds is
 * walked and checked index by index. This reaches what the task parser
 * accepts but the validator must judge: expressions that overflow or divide
 * by zero for one set only, unknown ops, wrong arities and shapes.
 */
#include <stdint.h>

#include "fuzz.h"

static const char krl_fuzz_path[] = "fuzz.task";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	krl_task *t = NULL;
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_err r = krl_task_parse(krl_fuzz_path, (const char *)data, size, &t,
	                           &d);
	const char *paths[] = { krl_fuzz_path };
	krl_fuzz_check_result(r, &d, paths, 1);
	if (r)
		return 0;
	const krl_limits lim = krl_limits_sm90();
	paths[0] = t->path;
	for (int s = 0; s < t->nsets; s++) {
		krl_program *p = (krl_program *)(uintptr_t)1;
		memset(&d, 0, sizeof d);
		r = krl_program_build(t, NULL, t->sets[s].name, &lim, &p, &d);
		krl_fuzz_check_result(r, &d, paths, 1);
		KRL_FUZZ_CHECK((r == KRL_OK) == (p != NULL));
		if (p)
			krl_fuzz_check_program(p, t, NULL, &lim);
		krl_program_free(p);
	}
	krl_task_free(t);
	return 0;
}
