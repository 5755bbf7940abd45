/* The krl tool as a user runs it (CPU): listings, resolved tasks, usage
 * errors, and a clear failure where no GPU exists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "testutil.h"

/* Runs `$KRL_BIN args` with stderr merged; returns the exit status and the
 * output (caller frees). */
static int run(const char *args, char **out)
{
	const char *bin = getenv("KRL_BIN");
	char cmd[1024];
	assert_non_null(bin);
	snprintf(cmd, sizeof cmd, "%s %s 2>&1", bin, args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
		n += got;
		if (n + 1 >= cap)
			buf = realloc(buf, cap *= 2);
	}
	buf[n] = 0;
	int st = pclose(p);
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void tasks_lists_suite(void **state)
{
	char *out;
	assert_int_equal(run("tasks", &out), 0);
	static const char *const ids[] = {
		"level1/1_square_matmul", "level1/2_matmul", "level1/4_matvec",
		"level1/18_matmul_tt", "level1/19_relu", "level1/23_softmax",
		"level1/26_gelu", "level1/40_layernorm", "level1/47_sum_dim",
		"level1/51_argmax_dim", "level1/89_cumsum", "level1/94_mse_loss"};
	for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
		assert_non_null(strstr(out, ids[i]));
	assert_non_null(strstr(out, "kb0"));
	assert_null(strstr(out, "does not parse"));
	free(out);
}

static void show_resolves(void **state)
{
	char *out;
	assert_int_equal(run("show level1/19 --shapes kb0", &out), 0);
	assert_non_null(strstr(out, "f32 [16, 16384]"));
	assert_non_null(strstr(out, "call relu(x) -> y"));
	/* the judge's stress draws, and why a task has none */
	assert_non_null(strstr(out, "stress offset x + 1000"));
	free(out);
	assert_int_equal(run("show level1/90 --shapes tiny", &out), 0);
	assert_non_null(strstr(out, "stress scale  skipped: a product"));
	free(out);
	assert_int_equal(run("show level1/19_relu --shapes kb1", &out), 0);
	assert_non_null(strstr(out, "f32 [4096, 393216]"));
	free(out);
	assert_int_equal(run("show level1/19 --shapes nosuch", &out), 3);
	assert_non_null(strstr(out, "nosuch"));
	free(out);
	assert_int_equal(run("show level1/999", &out), 3);
	assert_non_null(strstr(out, "no task 'level1/999'"));
	free(out);
}

static void usage_errors(void **state)
{
	char *out;
	assert_int_equal(run("frobnicate", &out), 2);
	assert_non_null(strstr(out, "unknown command"));
	free(out);
	assert_int_equal(run("eval level1/19", &out), 2);
	assert_non_null(strstr(out, "usage: krl eval"));
	free(out);
	assert_int_equal(run("eval level1/19 x.cu --bogus", &out), 2);
	assert_non_null(strstr(out, "unknown option"));
	free(out);
	assert_int_equal(run("help", &out), 0);
	assert_non_null(strstr(out, "commands:"));
	assert_non_null(strstr(out, "train"));
	free(out);
	/* The builtin policy's commands: true help, usage errors. */
	assert_int_equal(run("optimize --help", &out), 0);
	assert_non_null(strstr(out, "the builtin policy (default)"));
	assert_non_null(strstr(out, "--budget N"));
	free(out);
	assert_int_equal(run("train --help", &out), 0);
	assert_non_null(strstr(out, "usage: krl train"));
	assert_non_null(strstr(out, "--eval"));
	free(out);
	assert_int_equal(run("train --bogus", &out), 2);
	assert_non_null(strstr(out, "'--bogus'"));
	free(out);
	assert_int_equal(run("train --help", &out), 0);
	assert_non_null(strstr(out, "--at N[,N...]"));
	free(out);
	assert_int_equal(run("train --eval --budget 32 --at 4,x", &out), 2);
	assert_non_null(strstr(out, "--at takes up to 8 positive numbers"));
	free(out);
	assert_int_equal(run("train --eval --budget 32 --at 4,32", &out), 2);
	assert_non_null(strstr(out, "--at 32 is not below --budget 32"));
	free(out);
	assert_int_equal(run("train --budget 32 --at 4", &out), 2);
	assert_non_null(strstr(out, "--at is an option of --eval"));
	free(out);
	assert_int_equal(run("train --eval --budget 32 --at 1,2,3,4,5,6,7,8,9",
	                     &out), 2);
	assert_non_null(strstr(out, "up to 8"));
	free(out);
	assert_int_equal(run("optimize", &out), 2);
	assert_non_null(strstr(out, "usage: krl optimize"));
	free(out);
}

static void eval_without_gpu_says_so(void **state)
{
	char *out;
	if (krl_test_have_gpu(NULL))
		skip();
	int rc = run("eval level1/19 examples/level1/19_relu.fast.cu", &out);
	assert_int_equal(rc, 3);
	assert_non_null(strstr(out, "krl eval:"));
	assert_true(strstr(out, "device") || strstr(out, "driver"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tasks_lists_suite),
		cmocka_unit_test(show_resolves),
		cmocka_unit_test(usage_errors),
		cmocka_unit_test(eval_without_gpu_says_so),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
