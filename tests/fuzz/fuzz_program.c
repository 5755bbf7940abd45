/*
 * kernelrl fuzzing: the candidate parser followed by the plan validator
 * (krl_program_build, src/lang/program.c) against real tasks.
 *
 * Five tasks of the suite are loaded once, at start-up, from the source
 * tree: elementwise (relu), GEMM, a three-input op (layernorm), an i64
 * output (argmax) and a scalar output through scratch buffers (mse_loss).
 * Each input that parses as a candidate is built for each of them and each
 * of the shape sets tiny, kb0 and kb1 with the sm_90 limits; a program that
 * builds is walked and checked index by index.
 */
#include <stdint.h>

#include "fuzz.h"

#ifndef KRL_SOURCE_DIR
#error "KRL_SOURCE_DIR must name the source tree (tests/fuzz/CMakeLists.txt)"
#endif

static const char krl_fuzz_path[] = "fuzz.cu";
static const char *const krl_fuzz_tasks[] = {
	"tasks/level1/19_relu.task", "tasks/level1/2_matmul.task",
	"tasks/level1/40_layernorm.task", "tasks/level1/51_argmax_dim.task",
	"tasks/level1/94_mse_loss.task",
};
#define KRL_FUZZ_NTASKS \
	((int)(sizeof krl_fuzz_tasks / sizeof krl_fuzz_tasks[0]))
static const char *const krl_fuzz_sets[] = { "tiny", "kb0", "kb1" };

static krl_task *tasks[KRL_FUZZ_NTASKS];

/* The tasks live as long as the process (libFuzzer never returns from its
 * loop normally); LeakSanitizer treats memory reachable from these globals
 * as live, so they do not count as leaks. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	for (int i = 0; i < KRL_FUZZ_NTASKS; i++) {
		char path[4096];
		krl_diag d;
		snprintf(path, sizeof path, "%s/%s", KRL_SOURCE_DIR,
		         krl_fuzz_tasks[i]);
		if (krl_task_load(path, &tasks[i], &d)) {
			char buf[1200];
			fprintf(stderr, "fuzz_program: cannot load a task: %s\n",
			        krl_diag_format(&d, buf, sizeof buf));
			exit(1);
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	krl_candidate *c = NULL;
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_err r = krl_candidate_parse(krl_fuzz_path, (const char *)data, size,
	                                &c, &d);
	const char *paths[] = { krl_fuzz_path, NULL };
	krl_fuzz_check_result(r, &d, paths, 1);
	if (r)
		return 0;
	const krl_limits lim = krl_limits_sm90();
	for (int i = 0; i < KRL_FUZZ_NTASKS; i++) {
		for (int s = 0; s < 3; s++) {
			krl_program *p = (krl_program *)(uintptr_t)1;
			memset(&d, 0, sizeof d);
			r = krl_program_build(tasks[i], c, krl_fuzz_sets[s],
			                      &lim, &p, &d);
			paths[0] = c->path;
			paths[1] = tasks[i]->path;
			krl_fuzz_check_result(r, &d, paths, 2);
			KRL_FUZZ_CHECK((r == KRL_OK) == (p != NULL));
			if (p)
				krl_fuzz_check_program(p, tasks[i], c, &lim);
			krl_program_free(p);
		}
	}
	krl_candidate_free(c);
	return 0;
}
