/* Tests of the candidate file parser (src/lang/candidate.c): kernel
 * signatures and parameter typing, what the scanner skips, the plan block
 * and its positions, and errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testutil.h"
#include "krl/lang.h"

static const char relu4_cu[] =
	"extern \"C\" __global__ void relu4(const float4 *__restrict__ x,\n"
	"                                 float4 *__restrict__ y, long n4)\n"
	"{\n"
	"\tfor (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4;\n"
	"\t     i += (long)gridDim.x * blockDim.x) {\n"
	"\t\tfloat4 v = x[i];\n"
	"\t\tv.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f);\n"
	"\t\tv.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);\n"
	"\t\ty[i] = v;\n"
	"\t}\n"
	"}\n"
	"/*@plan\n"
	"launch relu4 grid=(sm_count*8) block=(256) args(x, y, numel(x)/4)\n"
	"@*/\n";

/* A candidate that uses every scanner feature, for the guard-page test. */
static const char guard_cu[] =
	"// line comment extern \"C\"\n"
	"#define X(a) \\\n  (a)\n"
	"static const char *s = \"str \\\" /*@plan\"; char q = '\\'';\n"
	"extern \"C\" {\n"
	"__global__ void __launch_bounds__(128) b(const float *x, int n) {}\n"
	"}\n"
	"extern \"C\" __global__ void relu4(const float4 *__restrict__ x,\n"
	"    float4 *__restrict__ y, long n4) { int v = 1'000; }\n"
	"/*@plan\n"
	"buffer t f32 [numel(x)]\n"
	"derived w2 f32 [4]\n"
	"init\n  call copy(w) -> w2\nend\n"
	"launch relu4 grid=(sm_count*8, 1) block=(256) smem=0 \\\n"
	"  cluster=(1) cooperative args(x, y, numel(x)/4)\n"
	"call gemm(a, b) -> c ta=1 alpha=-1.5e-3\n"
	"@*/\n";

static krl_candidate *parse_ok(const char *z)
{
	krl_candidate *c = NULL;
	krl_diag d;
	KRL_ASSERT_OK(krl_candidate_parse("c.cu", z, strlen(z), &c, &d), &d);
	return c;
}

static void test_relu4(void **state)
{
	(void)state;
	krl_candidate *c = parse_ok(relu4_cu);
	assert_string_equal(c->path, "c.cu");
	assert_int_equal(c->len, strlen(relu4_cu));
	assert_string_equal(c->source, relu4_cu);
	assert_int_equal(c->nkernels, 1);
	const krl_kernel *k = &c->kernels[0];
	assert_string_equal(k->name, "relu4");
	assert_int_equal(k->pos.line, 1);
	assert_int_equal(k->pos.col, 28);
	assert_int_equal(k->nparams, 3);
	assert_string_equal(k->params[0].name, "x");
	assert_int_equal(k->params[0].type, KRL_P_PTR);
	assert_true(k->params[0].is_const);
	assert_string_equal(k->params[1].name, "y");
	assert_int_equal(k->params[1].type, KRL_P_PTR);
	assert_false(k->params[1].is_const);
	assert_string_equal(k->params[2].name, "n4");
	assert_int_equal(k->params[2].type, KRL_P_I64);

	assert_int_equal(c->plan.nbody, 1);
	assert_int_equal(c->plan.nbufs, 0);
	const krl_stmt *s = &c->plan.body[0];
	assert_int_equal(s->kind, KRL_ST_LAUNCH);
	assert_string_equal(s->name, "relu4");
	assert_int_equal(s->pos.line, 13);
	assert_int_equal(s->pos.col, 1);
	assert_string_equal(s->pos.file, "c.cu");
	assert_int_equal(s->grid[0]->kind, KRL_EX_BINARY);
	assert_null(s->grid[1]);
	assert_int_equal(s->block[0]->ival, 256);
	assert_null(s->smem);
	assert_null(s->cluster[0]);
	assert_false(s->cooperative);
	assert_int_equal(s->nargs, 3);
	assert_string_equal(s->args[1]->name, "y");
	assert_int_equal(s->args[2]->pos.col, 63); /* the operator */
	assert_int_equal(s->args[2]->lhs->pos.col, 55);
	krl_candidate_free(c);
	krl_candidate_free(NULL);
}

static void test_param_types(void **state)
{
	(void)state;
	static const char src[] =
		"#include <cuda_fp16.h>\n"
		"extern \"C\" __global__ void __launch_bounds__(256, 2) types(\n"
		"  const float *__restrict__ a, float const *b, float *const c,\n"
		"  const __half2 *d, int e, int32_t f, unsigned g,\n"
		"  unsigned int h, uint32_t i, long j, long long k, int64_t l,\n"
		"  ptrdiff_t m, unsigned long n, unsigned long long o,\n"
		"  uint64_t p, size_t q, float r, double s, const int t,\n"
		"  __grid_constant__ const long u, const float *const *v,\n"
		"  float *, std::size_t w, volatile unsigned *__restrict x)\n"
		"{}\n"
		"/*@plan @*/\n";
	static const struct {
		const char *name;
		krl_ptype type;
		int is_const;
	} want[] = {
		{ "a", KRL_P_PTR, 1 }, { "b", KRL_P_PTR, 1 },
		{ "c", KRL_P_PTR, 0 }, { "d", KRL_P_PTR, 1 },
		{ "e", KRL_P_I32, 0 }, { "f", KRL_P_I32, 0 },
		{ "g", KRL_P_U32, 0 }, { "h", KRL_P_U32, 0 },
		{ "i", KRL_P_U32, 0 }, { "j", KRL_P_I64, 0 },
		{ "k", KRL_P_I64, 0 }, { "l", KRL_P_I64, 0 },
		{ "m", KRL_P_I64, 0 }, { "n", KRL_P_U64, 0 },
		{ "o", KRL_P_U64, 0 }, { "p", KRL_P_U64, 0 },
		{ "q", KRL_P_U64, 0 }, { "r", KRL_P_F32, 0 },
		{ "s", KRL_P_F64, 0 }, { "t", KRL_P_I32, 0 },
		{ "u", KRL_P_I64, 0 }, { "v", KRL_P_PTR, 1 },
		{ "", KRL_P_PTR, 0 }, { "w", KRL_P_U64, 0 },
		{ "x", KRL_P_PTR, 0 },
	};
	krl_candidate *c = parse_ok(src);
	assert_int_equal(c->nkernels, 1);
	const krl_kernel *k = &c->kernels[0];
	assert_string_equal(k->name, "types");
	assert_int_equal(k->nparams, (int)(sizeof want / sizeof want[0]));
	for (int i = 0; i < k->nparams; i++) {
		if (strcmp(k->params[i].name, want[i].name) ||
		    k->params[i].type != want[i].type ||
		    k->params[i].is_const != want[i].is_const)
			fail_msg("param %d: got %s type %d const %d", i,
			         k->params[i].name, k->params[i].type,
			         k->params[i].is_const);
	}
	assert_int_equal(c->plan.nbody, 0);
	krl_candidate_free(c);
}

static void test_skips_and_forms(void **state)
{
	(void)state;
	static const char src[] =
		"// extern \"C\" __global__ void in_line_comment(int a)\n"
		"/* extern \"C\" __global__ void in_block_comment(int a) */\n"
		"#define K extern \"C\" __global__ void in_macro(int a) {}\n"
		"static const char *s = \"extern \\\"C\\\" __global__ void "
		"in_string(int a) /*@plan\";\n"
		"char q = '\"';\n"
		"__global__ void not_c(float *x) {}\n"
		"template <int N> __global__ void templ(float *x) {}\n"
		"extern \"C\" __global__ void proto(float *x, int n);\n"
		"extern \"C\" {\n"
		"__global__ void in_block(const double *x) { if (1) {} }\n"
		"__device__ int helper(int a) { return a; }\n"
		"}\n"
		"__global__ void after_block(float *x) {}\n"
		"extern \"C\" __global__ void proto(float *x, int n) { }\n"
		"extern \"C\" __global__ void noargs(void) {}\n"
		"extern \"C\" __global__ void empty() {}\n"
		"extern \"C\" int host_fn(int a);\n"
		"/*@plan\n"
		"  # a comment inside the plan\n"
		"  buffer tmp f32 [numel(x)]\n"
		"  derived w2 f16 [dim(w, 0), 4]\n"
		"  init\n"
		"    launch in_block grid=(1) block=(32) args(w2)\n"
		"  end\n"
		"  launch proto grid=(cdiv(n, 256), 2) block=(16, 16)"
		" smem=4096 \\\n"
		"      cluster=(2) cooperative args(tmp, n)\n"
		"  call relu(tmp) -> y\n"
		"@*/\n";
	krl_candidate *c = parse_ok(src);
	assert_int_equal(c->nkernels, 4);
	assert_string_equal(c->kernels[0].name, "proto");
	assert_int_equal(c->kernels[0].pos.line, 8);
	assert_int_equal(c->kernels[0].nparams, 2);
	assert_string_equal(c->kernels[1].name, "in_block");
	assert_int_equal(c->kernels[1].params[0].type, KRL_P_PTR);
	assert_true(c->kernels[1].params[0].is_const);
	assert_string_equal(c->kernels[2].name, "noargs");
	assert_int_equal(c->kernels[2].nparams, 0);
	assert_string_equal(c->kernels[3].name, "empty");
	assert_int_equal(c->kernels[3].nparams, 0);

	const krl_plan *p = &c->plan;
	assert_int_equal(p->nbufs, 2);
	assert_int_equal(p->bufs[0].role, KRL_ROLE_SCRATCH);
	assert_int_equal(p->bufs[0].pos.line, 20);
	assert_int_equal(p->bufs[0].pos.col, 10);
	assert_int_equal(p->bufs[1].role, KRL_ROLE_DERIVED);
	assert_int_equal(p->bufs[1].dtype, KRL_F16);
	assert_int_equal(p->bufs[1].ndim, 2);
	assert_int_equal(p->ninit, 1);
	assert_string_equal(p->init[0].name, "in_block");
	assert_int_equal(p->nbody, 2);
	const krl_stmt *s = &p->body[0];
	assert_int_equal(s->pos.line, 25);
	assert_int_equal(s->pos.col, 3);
	assert_non_null(s->grid[1]);
	assert_null(s->grid[2]);
	assert_int_equal(s->block[1]->ival, 16);
	assert_int_equal(s->smem->ival, 4096);
	assert_int_equal(s->cluster[0]->ival, 2);
	assert_null(s->cluster[1]);
	assert_true(s->cooperative);
	assert_int_equal(s->nargs, 2);
	assert_int_equal(p->body[1].kind, KRL_ST_CALL);
	krl_candidate_free(c);

	/* A plan block that starts mid-line keeps the real columns. */
	static const char mid[] =
		"extern \"C\" __global__ void k(int n) {} /*@plan launch k "
		"grid=(1) block=(1) args(n) @*/";
	c = parse_ok(mid);
	assert_int_equal(c->plan.body[0].pos.line, 1);
	assert_int_equal(c->plan.body[0].pos.col, 48);
	krl_candidate_free(c);
}

/* Expects src to fail with r at line:col with a message containing part. */
static void cand_fails(const char *src, krl_err r, int line, int col,
                       const char *part)
{
	krl_candidate *c = (krl_candidate *)1;
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_err got = krl_candidate_parse("bad.cu", src, strlen(src), &c, &d);
	char buf[1200];
	if (got != r || d.pos.line != line || d.pos.col != col ||
	    !strstr(d.msg, part))
		fail_msg("got %d %s", got, krl_diag_format(&d, buf, sizeof buf));
	assert_null(c);
	assert_string_equal(d.pos.file, "bad.cu");
}

static void test_errors(void **state)
{
	(void)state;
	cand_fails("extern \"C\" __global__ void k(float *x) {}\n",
	           KRL_ESYNTAX, 1, 1, "no plan: expected one /*@plan");
	cand_fails("const char *z = \"/*@plan launch @*/\";\n"
	           "// /*@plan @*/\n", KRL_ESYNTAX, 1, 1, "no plan");
	cand_fails("/*@plan\n@*/\nint x;\n  /*@plan\n@*/\n", KRL_ESYNTAX, 4, 3,
	           "a second /*@plan block (the first is at line 1)");
	cand_fails("int x;\n/*@plan\nlaunch k grid=(1) block=(1) args()\n",
	           KRL_ESYNTAX, 2, 1, "unterminated plan block");
	cand_fails("/*@plan\nlaunch k grid=(1) block=(1) args()\n*/\n",
	           KRL_ESYNTAX, 3, 1, "expected '@*/' to end the plan block");
	cand_fails("struct P { int n; };\n"
	           "extern \"C\" __global__ void k(float *x,\n"
	           "                            P p) {}\n/*@plan @*/\n",
	           KRL_ESYNTAX, 3, 29,
	           "kernel 'k': unsupported parameter type in 'P p'");
	cand_fails("extern \"C\" __global__ void k(float4 v) {}\n/*@plan @*/\n",
	           KRL_ESYNTAX, 1, 30, "unsupported parameter type in "
	           "'float4 v'");
	cand_fails("extern \"C\" __global__ void k(float &v) {}\n/*@plan @*/\n",
	           KRL_ESYNTAX, 1, 30, "unsupported");
	cand_fails("extern \"C\" __global__ void k(float *x) {}\n"
	           "/*@plan\n"
	           "launch k grid=(1) blok=(256) args(x)\n"
	           "@*/\n", KRL_ESYNTAX, 3, 19,
	           "expected grid=, block=, smem=, cluster=, cooperative or "
	           "args(...), found 'blok'");
	cand_fails("/*@plan\n  launch k block=(1) args()\n@*/\n", KRL_ESYNTAX,
	           2, 3, "launch of 'k': expected grid=(...)");
	cand_fails("/*@plan\n  launch k grid=(1) args()\n@*/\n", KRL_ESYNTAX,
	           2, 3, "expected block=(...)");
	cand_fails("/*@plan\n  launch k grid=(1) block=(1)\n@*/\n", KRL_ESYNTAX,
	           2, 3, "expected args(...)");
	cand_fails("/*@plan\nlaunch k grid=(1,1,1,1) block=(1) args()\n@*/\n",
	           KRL_ESYNTAX, 2, 22, "grid has at most 3 dimensions");
	cand_fails("/*@plan\nlaunch k grid=(1) grid=(2) block=(1) args()\n@*/\n",
	           KRL_ESYNTAX, 2, 19, "grid= is given twice");
	cand_fails("/*@plan\ninit\ncall relu(w) -> w2\n", KRL_ESYNTAX, 1, 1,
	           "unterminated plan block");
	cand_fails("/*@plan\ninit\ncall relu(w) -> w2\n@*/", KRL_ESYNTAX, 2, 1,
	           "'init' is never closed");
	cand_fails("/*@plan\ninit\nend\ninit\nend\n@*/", KRL_ESYNTAX, 4, 1,
	           "at most one 'init' block (the first is at line 2)");
	cand_fails("/*@plan\ninit\n  buffer t f32 [1]\nend\n@*/", KRL_ESYNTAX,
	           3, 3, "declarations go outside 'init'");
	cand_fails("/*@plan\nend\n@*/", KRL_ESYNTAX, 2, 1,
	           "expected a plan statement (buffer, view, derived, launch, call "
	           "or init), found 'end'");
	cand_fails("/*@plan\n call relu(x) -> y\n @ \n@*/", KRL_ESYNTAX, 3, 2,
	           "unexpected character '@'");
}

static void test_load(void **state)
{
	(void)state;
	krl_candidate *c = NULL;
	krl_diag d;
	assert_int_equal(krl_candidate_load("/nonexistent/k.cu", &c, &d),
	                 KRL_EIO);
	assert_null(c);
	assert_non_null(strstr(d.msg, "cannot open"));

	char path[] = "/tmp/krl_test_cand_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(relu4_cu, f);
	fclose(f);
	KRL_ASSERT_OK(krl_candidate_load(path, &c, &d), &d);
	assert_string_equal(c->path, path);
	assert_int_equal(c->nkernels, 1);
	assert_string_equal(c->plan.body[0].pos.file, c->path);
	krl_candidate_free(c);
	remove(path);
}

/* ==== Guard-page robustness ==== */

/* Parses text[0..n) placed at a page end; the parse must succeed or fail
 * with a positioned message, never read out of bounds. */
static void parse_guarded(const char *text, size_t n)
{
	void *base;
	size_t size;
	const char *z = krl_test_at_page_end(text, n, &base, &size);
	krl_candidate *t = NULL;
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_err r = krl_candidate_parse("g.cu", z, n, &t, &d);
	if (r) {
		assert_null(t);
		assert_true(d.msg[0] != 0);
		assert_true(r == KRL_ESYNTAX);
	}
	krl_candidate_free(t);
	munmap(base, size);
}

/* Every prefix of a valid file, and the file with each byte replaced by
 * characters that matter to the scanners. */
static void test_guard_pages(void **state)
{
	(void)state;
	static const char subst[] = { 0, '(', ')', '"', '\\', '#', '\n', '9',
	                              '/', '*', '@', '\'' };
	const char *text = guard_cu;
	krl_candidate *ok = parse_ok(guard_cu);
	assert_int_equal(ok->nkernels, 2);
	assert_string_equal(ok->kernels[0].name, "b");
	assert_int_equal(ok->plan.ninit, 1);
	assert_int_equal(ok->plan.nbody, 2);
	krl_candidate_free(ok);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relu4),
		cmocka_unit_test(test_param_types),
		cmocka_unit_test(test_skips_and_forms),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_guard_pages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
