/* Tests of the task file parser (src/lang/task.c): a full task parses to
 * the right AST; each kind of mistake is reported at its line:col. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testutil.h"
#include "krl/lang.h"

static const char relu_task[] =
	"# Level 1 problem 19: ReLU.  (comments are free)\n"
	"task      relu\n"
	"source    \"KernelBench level1/19_ReLU.py\"\n"
	"shapes    kb0   batch_size=16   dim=16384\n"
	"shapes    kb1   batch_size=4096 dim=393_216\n"
	"shapes    tiny  batch_size=4    dim=1000\n"
	"const     eps = 1e-5\n"
	"const     half = dim / 2\n"
	"input     x  f32 [batch_size, dim]  normal(0, 1)\n"
	"param     w  f32 [dim]              uniform(-0.5, 1.5)\n"
	"param     k  i64 []                 randint(0, 10)\n"
	"output    y  f32 [batch_size,\n"
	"                  dim]\n"
	"tolerance atol=1e-6 rtol=1e-5\n"
	"bytes     8 * batch_size * \\\n"
	"          dim\n"
	"flops     batch_size * dim\n"
	"degenerate \"why the output is degenerate\"     # optional, rare\n"
	"plan\n"
	"  buffer t f32 [batch_size, dim]\n"
	"  call relu(x) -> t\n"
	"  call gemm(x, w) -> y ta=0 tb=1 alpha=-0.5\n"
	"end\n";

static void test_full_task(void **state)
{
	(void)state;
	krl_task *t = NULL;
	krl_diag d;
	KRL_ASSERT_OK(krl_task_parse("tasks/level1/19_relu.task", relu_task,
	                             strlen(relu_task), &t, &d), &d);
	assert_string_equal(t->path, "tasks/level1/19_relu.task");
	assert_null(t->id);
	assert_string_equal(t->name, "relu");
	assert_string_equal(t->source, "KernelBench level1/19_ReLU.py");
	assert_string_equal(t->degenerate, "why the output is degenerate");

	assert_int_equal(t->nsets, 3);
	const krl_shapeset *kb1 = krl_task_shapeset(t, "kb1");
	assert_non_null(kb1);
	assert_int_equal(kb1->n, 2);
	assert_string_equal(kb1->keys[1], "dim");
	assert_int_equal(kb1->vals[0], 4096);
	assert_int_equal(kb1->vals[1], 393216);
	assert_int_equal(kb1->pos.line, 5);
	assert_null(krl_task_shapeset(t, "kb2"));

	assert_int_equal(t->nconsts, 2);
	assert_string_equal(t->const_names[0], "eps");
	assert_int_equal(t->const_vals[0]->kind, KRL_EX_FLOAT);
	assert_int_equal(t->const_vals[1]->kind, KRL_EX_BINARY);

	assert_int_equal(t->ndecls, 4);
	const krl_decl *x = &t->decls[0], *w = &t->decls[1];
	const krl_decl *k = &t->decls[2], *y = &t->decls[3];
	assert_string_equal(x->name, "x");
	assert_int_equal(x->role, KRL_ROLE_INPUT);
	assert_int_equal(x->dtype, KRL_F32);
	assert_int_equal(x->ndim, 2);
	assert_string_equal(x->dim[0]->name, "batch_size");
	assert_int_equal(x->dist.kind, KRL_DIST_NORMAL);
	assert_true(x->dist.a == 0 && x->dist.b == 1);
	assert_int_equal(x->pos.line, 9);
	assert_int_equal(x->pos.col, 11);
	assert_int_equal(w->role, KRL_ROLE_PARAM);
	assert_int_equal(w->dist.kind, KRL_DIST_UNIFORM);
	assert_true(w->dist.a == -0.5 && w->dist.b == 1.5);
	assert_int_equal(k->dtype, KRL_I64);
	assert_int_equal(k->ndim, 0);
	assert_int_equal(k->dist.kind, KRL_DIST_RANDINT);
	assert_int_equal(y->role, KRL_ROLE_OUTPUT);
	assert_int_equal(y->ndim, 2);
	assert_int_equal(y->dist.kind, KRL_DIST_NONE);

	assert_true(t->atol == 1e-6 && t->rtol == 1e-5);
	assert_non_null(t->bytes);
	assert_non_null(t->flops);

	assert_int_equal(t->ref.nbufs, 1);
	assert_string_equal(t->ref.bufs[0].name, "t");
	assert_int_equal(t->ref.bufs[0].role, KRL_ROLE_SCRATCH);
	assert_int_equal(t->ref.nbody, 2);
	assert_int_equal(t->ref.ninit, 0);
	const krl_stmt *s = &t->ref.body[1];
	assert_int_equal(s->kind, KRL_ST_CALL);
	assert_string_equal(s->name, "gemm");
	assert_int_equal(s->pos.line, 22);
	assert_int_equal(s->pos.col, 3);
	assert_int_equal(s->nin, 2);
	assert_string_equal(s->ins[1], "w");
	assert_int_equal(s->nout, 1);
	assert_string_equal(s->outs[0], "y");
	assert_int_equal(s->nattrs, 3);
	assert_string_equal(s->attrs[2].key, "alpha");
	assert_int_equal(s->attrs[2].value->kind, KRL_EX_NEG);
	krl_task_free(t);
	krl_task_free(NULL);
}

/* Replaces the first occurrence of `from` in the relu task with `to` and
 * expects the parse to fail with r at line:col, message containing part. */
static void task_fails(const char *from, const char *to, krl_err r, int line,
                       int col, const char *part)
{
	char text[4096];
	const char *at = strstr(relu_task, from);
	assert_non_null(at);
	size_t k = (size_t)(at - relu_task);
	snprintf(text, sizeof text, "%.*s%s%s", (int)k, relu_task, to,
	         at + strlen(from));
	krl_task *t = (krl_task *)1;
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_err got = krl_task_parse("bad.task", text, strlen(text), &t, &d);
	char buf[1200];
	if (got != r || d.pos.line != line || d.pos.col != col ||
	    !strstr(d.msg, part))
		fail_msg("'%s' -> '%s': got %d %s", from, to, got,
		         krl_diag_format(&d, buf, sizeof buf));
	assert_null(t);
	assert_string_equal(d.pos.file, "bad.task");
}

static void test_errors(void **state)
{
	(void)state;
	task_fails("x  f32", "x  float", KRL_ESYNTAX, 9, 14,
	           "expected a dtype (f32, f16, bf16, i32, i64, bool), found "
	           "'float'");
	task_fails("tiny  batch_size=4    dim=1000", "tiny  batch_size=4",
	           KRL_ESYNTAX, 6, 11,
	           "shape set 'tiny' does not define 'dim'");
	task_fails("tiny  batch_size=4 ", "tiny  batch_size=4 extra=3",
	           KRL_ESYNTAX, 6, 11, "defines 'extra'");
	task_fails("shapes    tiny", "shapes    kb0", KRL_ESYNTAX, 6, 11,
	           "shape set 'kb0' is already defined at line 4");
	task_fails("shapes    tiny", "shapes    small", KRL_ESYNTAX, 24, 1,
	           "missing shape set 'tiny'");
	task_fails("dim=16384", "dim=16384 dim=2", KRL_ESYNTAX, 4, 43,
	           "key 'dim' is given twice");
	task_fails("dim=16384", "dim=-4", KRL_ESYNTAX, 4, 37,
	           "expected a non-negative integer");
	task_fails("task      relu\n", "", KRL_ESYNTAX, 1, 1,
	           "missing the 'task NAME' statement");
	task_fails("source ", "task relu2\nsource ", KRL_ESYNTAX, 3, 1,
	           "'task' is given twice (first at line 2)");
	task_fails("output    y", "input     y", KRL_ESYNTAX, 13, 23,
	           "expected a distribution");
	task_fails("output    y  f32 [batch_size,\n                  dim]\n",
	           "", KRL_ESYNTAX, 22, 1, "at least one output");
	task_fails("tolerance atol=1e-6 rtol=1e-5\n", "", KRL_ESYNTAX, 23, 1,
	           "missing the 'tolerance");
	task_fails("rtol=1e-5", "", KRL_ESYNTAX, 14, 1,
	           "tolerance needs both atol= and rtol=");
	task_fails("atol=1e-6", "atol=-1", KRL_ESYNTAX, 14, 16,
	           "a tolerance must be >= 0");
	task_fails("param     w ", "input     x ", KRL_ESYNTAX, 10, 11,
	           "'x' is already defined at line 9");
	task_fails("const     half", "const     dim", KRL_ESYNTAX, 8, 11,
	           "'dim' is already defined at line 4");
	task_fails("buffer t ", "buffer w ", KRL_ESYNTAX, 20, 10,
	           "'w' is already defined at line 10");
	task_fails("const     eps", "const     sm_count", KRL_ESYNTAX, 7, 11,
	           "'sm_count' is reserved");
	task_fails("normal(0, 1)", "normal(0, -1)", KRL_ESYNTAX, 9, 37,
	           "std must be >= 0");
	task_fails("randint(0, 10)", "randint(0, 1.5)", KRL_ESYNTAX, 11, 37,
	           "randint(lo, hi) takes integers");
	task_fails("uniform(-0.5, 1.5)", "uniform(2, 1)", KRL_ESYNTAX, 10, 37,
	           "expected lo < hi");
	task_fails("uniform(-0.5, 1.5)", "bernoulli(2)", KRL_ESYNTAX, 10, 37,
	           "0 <= p <= 1");
	task_fails("uniform(-0.5, 1.5)", "normal(0)", KRL_ESYNTAX, 10, 45,
	           "expected ',', found ')'");
	task_fails("flops ", "frobs ", KRL_ESYNTAX, 17, 1,
	           "expected a statement (task, source");
	task_fails("bytes     8", "bytes 1\nbytes     8", KRL_ESYNTAX, 16, 1,
	           "'bytes' is given twice");
	task_fails("source    \"KernelBench level1/19_ReLU.py\"",
	           "source    KernelBench", KRL_ESYNTAX, 3, 11,
	           "expected a string in double quotes");
	task_fails("task      relu", "task      relu extra", KRL_ESYNTAX, 2, 16,
	           "expected the end of the statement, found 'extra'");
	task_fails("plan\n", "plan x\n", KRL_ESYNTAX, 19, 6,
	           "expected the end of the statement");
	task_fails("  call relu(x) -> t\n", "  launch k grid=(1) block=(1) "
	           "args()\n", KRL_ESYNTAX, 21, 3,
	           "reference plan may only use buffer, view and call, found "
	           "'launch'");
	task_fails("  buffer t", "  derived t", KRL_ESYNTAX, 20, 3,
	           "found 'derived'");
	task_fails("end\n", "", KRL_ESYNTAX, 19, 1,
	           "'plan' is never closed");
	task_fails("call relu(x) -> t", "call relu(x) t", KRL_ESYNTAX, 21, 16,
	           "expected '->' and the outputs, found 't'");
	task_fails("-> t", "->", KRL_ESYNTAX, 21, 18,
	           "expected a buffer name, found end of line");
	task_fails("ta=0 tb=1", "ta=0 ta=1", KRL_ESYNTAX, 22, 29,
	           "attribute 'ta' is given twice");
	task_fails("tb=1", "tb", KRL_ESYNTAX, 22, 32,
	           "expected '=' after the attribute name");
	task_fails("f32 [dim]", "f32 dim", KRL_ESYNTAX, 10, 18,
	           "expected '[', found 'dim'");
	task_fails("f32 [dim]", "f32 [1,2,3,4,5,6,7,8,9]", KRL_ESYNTAX, 10, 35,
	           "at most 8 dimensions");
	task_fails("half = dim / 2", "half = dim / ", KRL_ESYNTAX, 8, 24,
	           "expected an expression, found end of line");
	/* constant buffers: patterns on params only, tril/triu of rank 2 */
	task_fails("normal(0, 1)", "tril(1)", KRL_ESYNTAX, 9, 37,
	           "'x': a pattern (tril, triu, arange, swin_*) gives a constant "
	           "buffer, which is a param");
	task_fails("uniform(-0.5, 1.5)", "triu(1)", KRL_ESYNTAX, 10, 37,
	           "'w': tril and triu fill the last two dims, so the buffer "
	           "needs at least 2 (it has 1)");
	task_fails("uniform(-0.5, 1.5)", "arange(1)", KRL_ESYNTAX, 10, 45,
	           "expected ',', found ')'");
	task_fails("randint(0, 10)", "tril(1, 0.5)", KRL_ESYNTAX, 11, 37,
	           "tril(v, k): the diagonal k is an integer");
	/* Swin-V2's buffers: integer arguments, the Model's own limits */
	task_fails("normal(0, 1)", "swin_index(7, 7)", KRL_ESYNTAX, 9, 37,
	           "'x': a pattern (tril, triu, arange, swin_*) gives a "
	           "constant buffer, which is a param");
	task_fails("randint(0, 10)", "swin_index(7, 7.5)", KRL_ESYNTAX, 11, 37,
	           "swin_index: argument 2 is an integer in [0, 65536], "
	           "found 7.5");
	task_fails("randint(0, 10)", "swin_index(0, 7)", KRL_ESYNTAX, 11, 37,
	           "swin_index(wh, ww): the window is at least 1 x 1");
	task_fails("randint(0, 10)", "swin_index(7)", KRL_ESYNTAX, 11, 49,
	           "expected ',', found ')'");
	task_fails("randint(0, 10)", "swin_index(7, 7, 1)", KRL_ESYNTAX, 11, 52,
	           "expected ')' after at most two arguments");
	task_fails("randint(0, 10)", "swin_coords(1, 7)", KRL_ESYNTAX, 11, 37,
	           "swin_coords(wh, ww[, pwh, pww]): the window is at least "
	           "1 x 1 and the divisor");
	task_fails("randint(0, 10)", "swin_coords(7, 7, -1, 0)", KRL_ESYNTAX,
	           11, 37, "swin_coords: argument 3 is an integer in [0, "
	           "65536], found -1");
	task_fails("randint(0, 10)", "swin_mask(56, 56, 7, 7)", KRL_ESYNTAX,
	           11, 37, "swin_mask(h, w, ws, shift): expected h and w "
	           "multiples of ws >= 1 and 0 < shift < ws, found 56, 56, 7, 7");
	task_fails("randint(0, 10)", "swin_mask(56, 50, 7, 3)", KRL_ESYNTAX,
	           11, 37, "expected h and w multiples of ws");
	task_fails("randint(0, 10)", "swin_mask(56, 56, 7)", KRL_ESYNTAX,
	           11, 56, "expected ',', found ')'");
}

static void test_load(void **state)
{
	(void)state;
	krl_task *t = NULL;
	krl_diag d;
	assert_int_equal(krl_task_load("/nonexistent/x.task", &t, &d), KRL_EIO);
	assert_null(t);
	assert_string_equal(d.pos.file, "/nonexistent/x.task");
	assert_non_null(strstr(d.msg, "cannot open"));

	char path[] = "/tmp/krl_test_task_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, relu_task, strlen(relu_task)),
	                 (ssize_t)strlen(relu_task));
	close(fd);
	KRL_ASSERT_OK(krl_task_load(path, &t, &d), &d);
	assert_string_equal(t->path, path);
	assert_string_equal(t->name, "relu");
	krl_task_free(t);
	unlink(path);
}

/* ==== Guard-page robustness ==== */

/* Parses text[0..n) placed at a page end; the parse must succeed or fail
 * with a positioned message, never read out of bounds. */
static void parse_guarded(const char *text, size_t n)
{
	void *base;
	size_t size;
	const char *z = krl_test_at_page_end(text, n, &base, &size);
	krl_task *t = NULL;
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_err r = krl_task_parse("g.task", z, n, &t, &d);
	if (r) {
		assert_null(t);
		assert_true(d.msg[0] != 0);
		assert_true(r == KRL_ESYNTAX);
	}
	krl_task_free(t);
	munmap(base, size);
}

/* Every prefix of a valid file, and the file with each byte replaced by
 * characters that matter to the scanners. */
static void test_guard_pages(void **state)
{
	(void)state;
	static const char subst[] = { 0, '(', ')', '"', '\\', '#', '\n', '9',
	                              '/', '*', '@', '\'' };
	const char *text = relu_task;
	size_t len = strlen(text);
	char *copy = malloc(len);
	assert_non_null(copy);
	for (size_t n = 0; n <= len; n++)
		parse_guarded(text, n);
	for (size_t i = 0; i < len; i++) {
		for (size_t k = 0; k < sizeof subst; k++) {
			memcpy(copy, text, len);
			copy[i] = subst[k];
			parse_guarded(copy, len);
		}
	}
	free(copy);
}

static void test_dtypes(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		krl_dtype t;
		size_t size;
	} want[] = {
		{ "f32", KRL_F32, 4 }, { "f16", KRL_F16, 2 },
		{ "bf16", KRL_BF16, 2 }, { "i32", KRL_I32, 4 },
		{ "i64", KRL_I64, 8 }, { "bool", KRL_BOOL, 1 },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		krl_dtype t = KRL_DTYPE_COUNT;
		assert_int_equal(krl_dtype_parse(want[i].name, &t), 0);
		assert_int_equal(t, want[i].t);
		assert_string_equal(krl_dtype_name(t), want[i].name);
		assert_int_equal(krl_dtype_size(t), want[i].size);
	}
	krl_dtype t = KRL_F16;
	assert_int_equal(krl_dtype_parse("float", &t), -1);
	assert_int_equal(krl_dtype_parse("F32", &t), -1);
	assert_int_equal(krl_dtype_parse(NULL, &t), -1);
	assert_int_equal(t, KRL_F16);
	assert_int_equal(krl_dtype_size(KRL_DTYPE_COUNT), 0);
	assert_string_equal(krl_dtype_name(KRL_DTYPE_COUNT), "?");
}

/* The precision tier: fp32 by default, tf32 when declared, nothing else. */
static void precision_tier(void **state)
{
	static const char base[] =
		"task t\nshapes kb0 n=4\nshapes kb1 n=8\nshapes tiny n=2\n"
		"input x f32 [n] normal(0, 1)\noutput y f32 [n]\n"
		"tolerance atol=1e-5 rtol=1e-5\n%s"
		"plan\n  call relu(x) -> y\nend\n";
	char text[512];
	krl_task *t = NULL;
	krl_diag d = {0};
	snprintf(text, sizeof text, base, "");
	KRL_ASSERT_OK(krl_task_parse("p.task", text, strlen(text), &t, &d), &d);
	assert_null(t->precision);
	krl_task_free(t);
	snprintf(text, sizeof text, base, "precision tf32\n");
	KRL_ASSERT_OK(krl_task_parse("p.task", text, strlen(text), &t, &d), &d);
	assert_string_equal(t->precision, "tf32");
	krl_task_free(t);
	snprintf(text, sizeof text, base, "precision bf16\n");
	assert_int_equal(krl_task_parse("p.task", text, strlen(text), &t, &d),
	                 KRL_ESYNTAX);
	assert_null(t);
	assert_int_equal(d.pos.line, 8);
	assert_int_equal(d.pos.col, 11);
	assert_non_null(strstr(d.msg, "fp32 or tf32"));
}

/* `fixed` names shape keys the judge's hidden sets keep; unknown keys are
 * an error at the statement. */
static void fixed_keys(void **state)
{
	static const char base[] =
		"task t\nshapes kb0 n=4 k=3\nshapes kb1 n=8 k=3\n"
		"shapes tiny n=2 k=3\n%s"
		"input x f32 [n] normal(0, 1)\noutput y f32 [n]\n"
		"tolerance atol=1e-5 rtol=1e-5\n"
		"plan\n  call relu(x) -> y\nend\n";
	char text[512];
	krl_task *t = NULL;
	krl_diag d = {0};
	snprintf(text, sizeof text, base, "fixed k\n");
	KRL_ASSERT_OK(krl_task_parse("f.task", text, strlen(text), &t, &d), &d);
	assert_int_equal(t->nfixed, 1);
	assert_string_equal(t->fixed[0], "k");
	krl_task_free(t);
	snprintf(text, sizeof text, base, "fixed k m\n");
	assert_int_equal(krl_task_parse("f.task", text, strlen(text), &t, &d),
	                 KRL_ESYNTAX);
	assert_null(t);
	assert_int_equal(d.pos.line, 5);
	assert_non_null(strstr(d.msg, "'m', which is not a shape key"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(precision_tier),
		cmocka_unit_test(fixed_keys),
		cmocka_unit_test(test_dtypes),
		cmocka_unit_test(test_full_task),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_guard_pages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
