/* The krl tool as a user runs it (CPU): listings, resolved tasks, usage
 * errors, and a clear failure where no GPU exists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
	assert_int_equal(run("train --round0 pol", &out), 2);
	assert_non_null(strstr(out, "krl train: --round0 is fixed or policy, "
	                       "not 'pol'"));
	free(out);
	assert_int_equal(run("optimize level1/19_relu --round0 first", &out), 2);
	assert_non_null(strstr(out, "krl optimize: --round0 is fixed or policy"));
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

/* krl optimize over several problems with two workers: on a device no
 * machine has, each worker's judge fails to open, and every problem is
 * reported once, in order, with that reason, in the table and in the
 * results file (the pool's plumbing; judging runs on the GPU machine). */
static void optimize_workers_report_in_order(void **state)
{
	(void)state;
	char dir[] = "/tmp/krl-cliw-XXXXXX", args[1024], path[256];
	assert_non_null(mkdtemp(dir));
	snprintf(args, sizeof args, "optimize --workers 2 --device 99 "
	         "level1/19_relu level1/20 level1/21 --results %s/r.jsonl "
	         "--db %s/w.db --work-dir %s/c", dir, dir, dir);
	char *out;
	assert_int_equal(run(args, &out), 3);
	assert_non_null(strstr(out, "2 workers on device 99"));
	const char *a = strstr(out, "\nlevel1/19_relu "),
	           *b = strstr(out, "\nlevel1/20_leaky_relu "),
	           *c = strstr(out, "\nlevel1/21_sigmoid ");
	assert_true(a && b && c && a < b && b < c);
	assert_null(strstr(a + 1, "\nlevel1/19_relu "));
	assert_non_null(strstr(a, "not optimized: worker "));
	assert_non_null(strstr(a, "(device 99)"));
	free(out);
	snprintf(path, sizeof path, "%s/r.jsonl", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[2048];
	static const char *const ids[] = {
		"\"level1/19_relu\"", "\"level1/20_leaky_relu\"",
		"\"level1/21_sigmoid\"",
	};
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		assert_true(n < 3);
		assert_non_null(strstr(line, ids[n]));
		assert_non_null(strstr(line, "\"verdict\":\"error\""));
		n++;
	}
	fclose(f);
	assert_int_equal(n, 3);
	assert_int_equal(run("optimize --workers 0 level1/19 level1/20", &out),
	                 2);
	assert_non_null(strstr(out, "--workers needs a number from 1 to 64"));
	free(out);
	snprintf(args, sizeof args, "rm -rf %s", dir);
	assert_int_equal(system(args), 0);
}

/* krl train --workers 2 on a device no machine has: training's first
 * batch fails with the workers' reason, applies nothing (no weights
 * written, the batch's files removed) and says how to resume; --eval
 * reports every task once, in order, failed with the reason. */
static void train_workers_fail_cleanly(void **state)
{
	(void)state;
	char dir[] = "/tmp/krl-clit-XXXXXX", args[1024], path[256];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/split.txt", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("level1/19_relu train\nlevel1/20_leaky_relu train\n"
	      "level1/21_sigmoid train\n", f);
	fclose(f);
	snprintf(args, sizeof args, "train --workers 2 --device 99 --split %s "
	         "--budget 2 --weights-out %s/w.weights --db %s/t.db "
	         "--work-dir %s/c", path, dir, dir, dir);
	char *out;
	assert_int_equal(run(args, &out), 3);
	assert_non_null(strstr(out, "2 workers on device 99"));
	assert_non_null(strstr(out, "(device 99)"));
	assert_non_null(strstr(out, "run the same command again to resume"));
	assert_null(strstr(out, "wrote "));
	free(out);
	static const char *const left[] = { "w.weights", "w.weights.start",
	                                    "w.weights.part0",
	                                    "w.weights.part1" };
	for (size_t i = 0; i < sizeof left / sizeof left[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, left[i]);
		assert_int_not_equal(access(path, F_OK), 0);
	}
	snprintf(args, sizeof args, "train --eval --workers 2 --device 99 "
	         "--split %s/split.txt --tasks train --budget 2 --weights "
	         "policy/builtin.weights --db %s/e.db --work-dir %s/c", dir, dir,
	         dir);
	assert_int_equal(run(args, &out), 3);
	const char *a = strstr(out, "--eval: level1/19_relu: "),
	           *b = strstr(out, "--eval: level1/20_leaky_relu: "),
	           *c = strstr(out, "--eval: level1/21_sigmoid: ");
	assert_true(a && b && c && a < b && b < c);
	assert_null(strstr(a + 1, "--eval: level1/19_relu: "));
	assert_non_null(strstr(a, "(device 99)"));
	free(out);
	assert_int_equal(run("train --workers 65", &out), 2);
	assert_non_null(strstr(out, "--workers takes a number from 1 to 64"));
	free(out);
	snprintf(args, sizeof args, "rm -rf %s", dir);
	assert_int_equal(system(args), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tasks_lists_suite),
		cmocka_unit_test(show_resolves),
		cmocka_unit_test(usage_errors),
		cmocka_unit_test(eval_without_gpu_says_so),
		cmocka_unit_test(optimize_workers_report_in_order),
		cmocka_unit_test(train_workers_fail_cleanly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
