/* Tests for krl_prompt_build (src/policy/prompt.c) with the shipped
 * templates and a real task. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "krl/llm.h"
#include "krl/ops.h"
#include "testutil.h"

#define TASK "tasks/level1/19_relu.task"

/* Position of needle in z, failing when absent. */
static long at(const char *z, const char *needle)
{
	const char *p = strstr(z, needle);
	if (!p)
		fail_msg("the prompt lacks \"%s\"", needle);
	return p - z;
}

static void build(const char *dir, const krl_prompt_exemplar *ex, int nex,
                  char **sys, char **user)
{
	krl_task *t = NULL;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_task_load(TASK, &t, &d), &d);
	size_t n;
	char *text = krl_test_read(TASK, &n);
	assert_non_null(text);
	KRL_ASSERT_OK(krl_prompt_build(dir, t, text, NULL, ex, nex, sys, user,
	                               &d), &d);
	free(text);
	krl_task_free(t);
}

static void test_contrastive_prompt(void **state)
{
	char *fast = krl_test_read("examples/level1/19_relu.fast.cu", NULL);
	assert_non_null(fast);
	/* Given worst first: the prompt must list them best first. */
	const krl_prompt_exemplar ex[] = {
		{ "extern \"C\" __global__ void slow_relu() {}\n", 0.97 },
		{ fast, 1.83 },
	};
	char *sys = NULL, *user = NULL;
	build(NULL, ex, 2, &sys, &user);

	/* The task and its reference. */
	at(user, "# Task: relu");
	at(user, "task      relu");
	at(user, "call relu(x) -> y");
	at(user, "- kb0: batch_size=16, dim=16384");
	at(user, "- tiny: batch_size=3, dim=1001");
	/* Previous implementations with their speedups, best first. */
	long best = at(user, "speedup 1.83x over the eager reference");
	long worse = at(user, "speedup 0.97x over the eager reference");
	assert_true(best < worse);
	assert_true(at(user, "relu_stream") < worse);
	assert_true(at(user, "slow_relu") > worse);
	/* The protocol, in order. */
	long a = at(user, "1. Analyse");
	long b = at(user, "2. Design");
	long c = at(user, "3. Write the code");
	assert_true(a < b && b < c);
	at(user, "explain why the\n   faster ones are faster");
	/* The requirements. */
	at(user, "Exact semantics");
	at(user, "shape sets you have not seen");
	at(user, "No caching and no state between calls");
	at(user, "Inputs change on every call");
	at(user, "Do not modify inputs or params");
	at(user, "strict fp32");
	at(user, "no TF32");
	at(user, "no fp16 or bf16");
	at(user, "atol=1e-07 and rtol=1e-06");
	at(user, "Device code plus the `/*@plan ... @*/` block only");
	/* The language reference, with its example and every op. */
	at(sys, "/*@plan");
	at(sys, "launch relu4 grid=");
	at(sys, "extern \"C\" __global__");
	at(sys, "sm_count");
	int nops = 0;
	const krl_op *const *ops = krl_op_all(&nops);
	assert_true(nops > 10);
	for (int i = 0; i < nops; i++) {
		char want[64];
		snprintf(want, sizeof want, "`%s", ops[i]->name);
		char want2[64];
		snprintf(want2, sizeof want2, " `%s`", ops[i]->name);
		if (!strstr(sys, want) && !strstr(sys, want2))
			fail_msg("the language reference lacks op %s",
			         ops[i]->name);
	}
	/* Every placeholder replaced. */
	assert_null(strstr(sys, "{{"));
	assert_null(strstr(user, "{{"));
	assert_null(strstr(user, "}}"));
	free(sys);
	free(user);
	free(fast);
}

static void test_no_exemplars_and_task_from_path(void **state)
{
	krl_task *t = NULL;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_task_load(TASK, &t, &d), &d);
	char *sys = NULL, *user = NULL;
	KRL_ASSERT_OK(krl_prompt_build(NULL, t, NULL, "- only: n=3", NULL, 0,
	                               &sys, &user, &d), &d);
	at(user, "none yet: this is the first attempt");
	at(user, "- only: n=3");
	at(user, "call relu(x) -> y"); /* read from t->path */
	assert_null(strstr(user, "speedup 1"));
	free(sys);
	free(user);
	krl_task_free(t);
}

static void test_language_is_compact(void **state)
{
	char *z = krl_test_read("templates/language.md", NULL);
	assert_non_null(z);
	int lines = 0;
	for (char *p = z; *p; p++)
		lines += *p == '\n';
	assert_true(lines > 40 && lines <= 150);
	free(z);
}

static void test_fence_longer_than_backticks_inside(void **state)
{
	const krl_prompt_exemplar ex[] = {
		{ "// ```` four backticks in a comment\nint x;", 2.0 },
	};
	char *sys = NULL, *user = NULL;
	build(NULL, ex, 1, &sys, &user);
	at(user, "`````cuda\n// ````");
	at(user, "int x;\n`````");
	free(sys);
	free(user);
}

/* Writes a template folder with the given user.md. */
static void write_templates(const char *dir, const char *user)
{
	char path[512];
	mkdir(dir, 0700);
	const char *names[] = { "system.md", "user.md", "language.md" };
	const char *texts[] = { "S {{ language }} {{precision}}\n", user,
	                        "LANG `relu` `tanhx`\n" };
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(texts[i], f);
		fclose(f);
	}
}

static void remove_templates(const char *dir)
{
	char path[512];
	const char *names[] = { "system.md", "user.md", "language.md" };
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void test_custom_templates(void **state)
{
	char dir[] = "/tmp/krl_prompt_XXXXXX";
	assert_non_null(mkdtemp(dir));
	write_templates(dir, "T={{task_name}} {{ not a placeholder }} {{}}\n"
	                     "C: x{{shapes}}y {{exemplars}}\n");
	krl_task *t = NULL;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_task_load(TASK, &t, &d), &d);
	char *sys = NULL, *user = NULL;
	/* Values are not expanded again: a task text with a placeholder. */
	KRL_ASSERT_OK(krl_prompt_build(dir, t, "{{shapes}}", "SH", NULL, 0,
	                               &sys, &user, &d), &d);
	/* The ops the language template does not name follow it, each from
	 * its declaration; a named one (`relu`) does not, and a longer name
	 * (`tanhx`) does not count as naming tanh. */
	at(sys, "S LANG `relu` `tanhx`\n\nMore library ops, as the op library "
	        "describes them:\n");
	assert_null(strstr(sys, "- `relu` ("));
	at(sys, "\n- `tanh` (1 input, 1 output): ");
	at(sys, "\n- `mish` (1 input, 1 output): y = x * tanh(softplus(x))");
	at(sys, "\n- `gemm` (2 inputs, 1 output; attributes `");
	at(sys, "\n- `fill` (0 inputs, 1 output; attributes `value`): ");
	at(sys, " strict fp32");
	assert_string_equal(user, "T=relu {{ not a placeholder }} {{}}\n"
	        "C: xSHy (none yet: this is the first attempt, so start from "
	        "the reference plan and make it faster)\n");
	free(sys);
	free(user);

	/* $KRL_TEMPLATES is used when no folder is given. */
	setenv("KRL_TEMPLATES", dir, 1);
	KRL_ASSERT_OK(krl_prompt_build(NULL, t, "x", "SH", NULL, 0, &sys,
	                               &user, &d), &d);
	at(user, "T=relu");
	free(sys);
	free(user);
	unsetenv("KRL_TEMPLATES");

	/* An unknown placeholder says where. */
	write_templates(dir, "ok\nsee {{task_nmae}}\n");
	sys = user = (char *)0x1;
	assert_int_equal(krl_prompt_build(dir, t, "x", "SH", NULL, 0, &sys,
	                                  &user, &d), KRL_ESYNTAX);
	assert_null(sys);
	assert_null(user);
	at(d.msg, "/user.md:2:5: unknown placeholder {{task_nmae}}");

	/* A missing template says which file and how to fix it. */
	remove_templates(dir);
	assert_int_equal(krl_prompt_build(dir, t, "x", "SH", NULL, 0, &sys,
	                                  &user, &d), KRL_EIO);
	at(d.msg, "system.md");
	at(d.msg, "$KRL_TEMPLATES");
	krl_task_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contrastive_prompt),
		cmocka_unit_test(test_no_exemplars_and_task_from_path),
		cmocka_unit_test(test_language_is_compact),
		cmocka_unit_test(test_fence_longer_than_backticks_inside),
		cmocka_unit_test(test_custom_templates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
