/* Tests of plan resolution (src/lang/program.c): buffers, launch geometry,
 * typed argument bytes, resolved ops, and every validation rule, each error
 * at its file:line:col. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "testutil.h"
#include "krl/check.h"
#include "krl/lang.h"
#include "krl/ops.h"
#include "krl/runtime.h"

static const char task_text[] =
	"task relu\n"
	"shapes kb0  batch=16   dim=16384\n"
	"shapes kb1  batch=4096 dim=393216\n"
	"shapes tiny batch=4    dim=1000\n"
	"const half = dim / 2\n"
	"const mb = half * 2 * batch\n"
	"input  x f32 [batch, dim] normal(0, 1)\n"
	"param  w f32 [dim] normal(1, 0.5)\n"
	"output y f32 [batch, dim]\n"
	"tolerance atol=1e-6 rtol=1e-5\n"
	"bytes 8 * numel(x)\n"
	"flops mb\n"
	"plan\n"
	"  buffer t f32 [batch, half * 2]\n"
	"  call relu(x) -> t\n"
	"  call relu(t) -> y\n"
	"end\n";

/* Kernels on lines 1-3; the plan starts on line 5. */
static const char prelude[] =
	"extern \"C\" __global__ void relu4(const float4 *__restrict__ x, "
	"float4 *__restrict__ y, long n4) {}\n"
	"extern \"C\" __global__ void types(const float *x, float *y, int a, "
	"unsigned b, long c, unsigned long d, float e, double f) {}\n"
	"extern \"C\" __global__ void prep(const float *w, float *w2, int n) "
	"{}\n"
	"/*@plan\n";

static krl_task *task;

static int setup(void **state)
{
	(void)state;
	krl_diag d;
	krl_err r = krl_task_parse("t.task", task_text, strlen(task_text),
	                           &task, &d);
	if (r) {
		char buf[1200];
		print_error("%s\n", krl_diag_format(&d, buf, sizeof buf));
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	krl_task_free(task);
	return 0;
}

/* Parses prelude + plan as a candidate (asserting it parses) and builds it
 * for the set; *c must be freed after *p. */
static krl_err build(const char *plan, const char *set, krl_candidate **c,
                     krl_program **p, krl_diag *d)
{
	char src[4096];
	snprintf(src, sizeof src, "%s%s\n@*/\n", prelude, plan);
	memset(d, 0, sizeof *d);
	KRL_ASSERT_OK(krl_candidate_parse("c.cu", src, strlen(src), c, d), d);
	krl_limits lim = krl_limits_sm90();
	return krl_program_build(task, *c, set, &lim, p, d);
}

static void test_limits(void **state)
{
	(void)state;
	krl_limits l = krl_limits_sm90();
	assert_int_equal(l.sm_count, 132);
	assert_int_equal(l.max_threads, 1024);
	assert_int_equal(l.max_smem, 232448);
	assert_int_equal(l.max_cluster, 8);
}

static void test_reference(void **state)
{
	(void)state;
	krl_program *p = NULL;
	krl_diag d;
	krl_limits lim = krl_limits_sm90();
	KRL_ASSERT_OK(krl_program_build(task, NULL, "tiny", &lim, &p, &d), &d);
	assert_int_equal(p->ntask, 3);
	assert_int_equal(p->nbufs, 4);
	const char *names[] = { "x", "w", "y", "t" };
	krl_role roles[] = { KRL_ROLE_INPUT, KRL_ROLE_PARAM, KRL_ROLE_OUTPUT,
	                     KRL_ROLE_SCRATCH };
	for (int i = 0; i < 4; i++) {
		assert_string_equal(p->bufs[i].name, names[i]);
		assert_int_equal(p->bufs[i].role, roles[i]);
		assert_int_equal(p->bufs[i].dtype, KRL_F32);
	}
	assert_int_equal(p->bufs[0].ndim, 2);
	assert_int_equal(p->bufs[0].dim[0], 4);
	assert_int_equal(p->bufs[0].dim[1], 1000);
	assert_int_equal(p->bufs[0].numel, 4000);
	assert_int_equal(p->bufs[0].bytes, 16000);
	assert_int_equal(p->bufs[0].dist.kind, KRL_DIST_NORMAL);
	assert_int_equal(p->bufs[1].numel, 1000);
	assert_true(p->bufs[1].dist.a == 1 && p->bufs[1].dist.b == 0.5);
	assert_int_equal(p->bufs[3].dim[1], 1000);
	assert_true(p->bytes == 32000);
	assert_true(p->flops == 4000);
	assert_int_equal(p->ninit, 0);
	assert_int_equal(p->nbody, 2);
	assert_int_equal(p->body[0].kind, KRL_ST_CALL);
	assert_ptr_equal(p->body[0].op, krl_op_find("relu"));
	assert_ptr_equal(p->body[0].src, &task->ref.body[0]);
	assert_int_equal(p->body[0].nin, 1);
	assert_int_equal(p->body[0].in[0], 0);
	assert_int_equal(p->body[0].nout, 1);
	assert_int_equal(p->body[0].out[0], 3);
	assert_int_equal(p->body[1].in[0], 3);
	assert_int_equal(p->body[1].out[0], 2);
	krl_program_free(p);

	KRL_ASSERT_OK(krl_program_build(task, NULL, "kb1", &lim, &p, &d), &d);
	assert_int_equal(p->bufs[2].numel, 4096LL * 393216);
	assert_int_equal(p->bufs[2].bytes, 4096ULL * 393216 * 4);
	assert_true(p->flops == 4096.0 * 393216);
	krl_program_free(p);
	krl_program_free(NULL);

	assert_int_equal(krl_program_build(task, NULL, "kb9", &lim, &p, &d),
	                 KRL_ENOTFOUND);
	assert_null(p);
	assert_string_equal(d.pos.file, "t.task");
	assert_non_null(strstr(d.msg, "no shape set 'kb9' in the task (it "
	                              "has: kb0, kb1, tiny)"));
}

/* A program carries its task's precision tier (krl_exec tells the ops:
 * convolutions of a precision fp32 task take no TF32 engine). */
static void test_precision_tier(void **state)
{
	(void)state;
	static const struct {
		const char *path;
		int tf32;
	} cases[] = {
		{ "tasks/level3/9_resnet18.task", 1 },
		{ "tasks/level3/10_resnet101.task", 0 },
		{ "tasks/level3/45_unet_softmax.task", 0 },
	};
	krl_limits lim = krl_limits_sm90();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		krl_task *t = NULL;
		krl_program *p = NULL;
		krl_diag d = { 0 };
		KRL_ASSERT_OK(krl_task_load(cases[i].path, &t, &d), &d);
		KRL_ASSERT_OK(krl_program_build(t, NULL, "tiny", &lim, &p, &d), &d);
		assert_int_equal(p->tf32, cases[i].tf32);
		krl_program_free(p);
		krl_task_free(t);
	}
}

static void test_launch(void **state)
{
	(void)state;
	krl_candidate *c;
	krl_program *p = NULL;
	krl_diag d;
	KRL_ASSERT_OK(build("launch relu4 grid=(sm_count*8) block=(256) "
	                    "args(x, y, numel(x)/4)", "tiny", &c, &p, &d), &d);
	assert_int_equal(p->nbufs, 3);
	assert_int_equal(p->nbody, 1);
	const krl_step *s = &p->body[0];
	assert_int_equal(s->kind, KRL_ST_LAUNCH);
	assert_int_equal(s->kernel, 0);
	assert_ptr_equal(s->src, &c->plan.body[0]);
	assert_int_equal(s->grid[0], 1056);
	assert_int_equal(s->grid[1], 1);
	assert_int_equal(s->grid[2], 1);
	assert_int_equal(s->block[0], 256);
	assert_int_equal(s->block[1], 1);
	assert_int_equal(s->smem, 0);
	assert_int_equal(s->cluster[0], 0);
	assert_false(s->cooperative);
	assert_int_equal(s->nargs, 3);
	assert_int_equal(s->args[0].type, KRL_P_PTR);
	assert_int_equal(s->args[0].buf, 0);
	assert_int_equal(s->args[0].size, 8);
	assert_int_equal(s->args[1].buf, 2);
	assert_int_equal(s->args[2].type, KRL_P_I64);
	assert_int_equal(s->args[2].buf, -1);
	assert_int_equal(s->args[2].size, 8);
	static const unsigned char n4[8] = { 0xe8, 0x03, 0, 0, 0, 0, 0, 0 };
	assert_memory_equal(s->args[2].bytes, n4, 8);
	krl_program_free(p);
	krl_candidate_free(c);

	KRL_ASSERT_OK(build("buffer tmp f32 [batch, dim]\n"
	                    "launch types grid=(cdiv(numel(tmp), 256), 3, 2) "
	                    "block=(32, 8, 4) smem=48*1024 cluster=(2, 3) "
	                    "args(x, tmp, -2, 4294967295, -5, 7, 1.5, 0.25)\n"
	                    "call relu(tmp) -> y", "tiny", &c, &p, &d), &d);
	assert_int_equal(p->nbufs, 4);
	assert_int_equal(p->bufs[3].role, KRL_ROLE_SCRATCH);
	assert_int_equal(p->bufs[3].numel, 4000);
	s = &p->body[0];
	assert_int_equal(s->kernel, 1);
	assert_int_equal(s->grid[0], 16);
	assert_int_equal(s->grid[1], 3);
	assert_int_equal(s->grid[2], 2);
	assert_int_equal(s->block[2], 4);
	assert_int_equal(s->smem, 49152);
	assert_int_equal(s->cluster[0], 2);
	assert_int_equal(s->cluster[1], 3);
	assert_int_equal(s->cluster[2], 1);
	static const struct {
		krl_ptype type;
		size_t size;
		unsigned char bytes[8];
	} want[8] = {
		{ KRL_P_PTR, 8, { 0 } },
		{ KRL_P_PTR, 8, { 0 } },
		{ KRL_P_I32, 4, { 0xfe, 0xff, 0xff, 0xff } },
		{ KRL_P_U32, 4, { 0xff, 0xff, 0xff, 0xff } },
		{ KRL_P_I64, 8, { 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
		{ KRL_P_U64, 8, { 7 } },
		{ KRL_P_F32, 4, { 0, 0, 0xc0, 0x3f } },
		{ KRL_P_F64, 8, { 0, 0, 0, 0, 0, 0, 0xd0, 0x3f } },
	};
	assert_int_equal(s->nargs, 8);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(s->args[i].type, want[i].type);
		assert_int_equal(s->args[i].size, want[i].size);
		assert_memory_equal(s->args[i].bytes, want[i].bytes,
		                    want[i].size);
	}
	assert_int_equal(s->args[1].buf, 3);
	assert_int_equal(p->body[1].kind, KRL_ST_CALL);
	assert_int_equal(p->body[1].in[0], 3);
	krl_program_free(p);
	krl_candidate_free(c);
}

static void test_calls_and_init(void **state)
{
	(void)state;
	krl_candidate *c;
	krl_program *p = NULL;
	krl_diag d;
	KRL_ASSERT_OK(build("derived w2 f32 [dim]\n"
	                    "buffer s f32 [batch, dim]\n"
	                    "init\n"
	                    "  call scale(w) -> w2 alpha=0.5\n"
	                    "end\n"
	                    "call softmax(x) -> s dim=-1\n"
	                    "call relu(s) -> y", "kb0", &c, &p, &d), &d);
	assert_int_equal(p->nbufs, 5);
	assert_int_equal(p->bufs[3].role, KRL_ROLE_DERIVED);
	assert_int_equal(p->bufs[3].dim[0], 16384);
	assert_int_equal(p->ninit, 1);
	assert_ptr_equal(p->init[0].op, krl_op_find("scale"));
	assert_int_equal(p->init[0].in[0], 1);
	assert_int_equal(p->init[0].out[0], 3);
	assert_int_equal(p->init[0].attrs.n, 1);
	assert_string_equal(p->init[0].attrs.key[0], "alpha");
	assert_true(p->init[0].attrs.val[0] == 0.5);
	assert_int_equal(p->nbody, 2);
	assert_ptr_equal(p->body[0].op, krl_op_find("softmax"));
	assert_true(krl_attrs_get(&p->body[0].attrs, "dim", 0) == -1);
	krl_program_free(p);
	krl_candidate_free(c);

	/* A derived buffer feeds a launch through a const pointer. */
	KRL_ASSERT_OK(build("derived w2 f32 [dim]\n"
	                    "init\n"
	                    "  launch prep grid=(cdiv(dim, 128)) block=(128) "
	                    "args(w, w2, dim)\n"
	                    "end\n"
	                    "launch prep grid=(1) block=(1) args(w2, y, 0)",
	                    "tiny", &c, &p, &d), &d);
	assert_int_equal(p->init[0].grid[0], 8);
	assert_int_equal(p->init[0].args[1].buf, 3);
	assert_int_equal(p->body[0].args[0].buf, 3);
	krl_program_free(p);
	krl_candidate_free(c);

	/* A word-valued attribute (krl_attr_words): the op sees the word's
	 * index; a const or shape key of the same name would not count. */
	static const char conv[] =
		"buffer xc f32 [batch, 10, 100]\n"
		"buffer wc f32 [10, 10, 10]\n"
		"buffer yc f32 [batch, 10, 91]\n"
		"call copy(x) -> xc\n"
		"call copy(w) -> wc\n"
		"call conv(xc, wc) -> yc layout=%s algo=1\n"
		"call relu(x) -> y";
	const char *words[2] = { "nchw", "nhwc" };
	for (int k = 0; k < 2; k++) {
		char plan[512];
		snprintf(plan, sizeof plan, conv, words[k]);
		KRL_ASSERT_OK(build(plan, "tiny", &c, &p, &d), &d);
		assert_ptr_equal(p->body[2].op, krl_op_find("conv"));
		assert_true(krl_attrs_get(&p->body[2].attrs, "layout", -1) == k);
		assert_true(krl_attrs_get(&p->body[2].attrs, "algo", -1) == 1);
		krl_program_free(p);
		krl_candidate_free(c);
	}
}

/* Builds prelude + plan for tiny and expects r at line:col (the plan's
 * first line is 5) with a message containing part. */
static void build_fails(const char *plan, krl_err r, int line, int col,
                        const char *part)
{
	krl_candidate *c;
	krl_program *p = (krl_program *)1;
	krl_diag d;
	krl_err got = build(plan, "tiny", &c, &p, &d);
	char buf[1200];
	if (got != r || d.pos.line != line || d.pos.col != col ||
	    !strstr(d.msg, part))
		fail_msg("'%s': got %d %s", plan, got,
		         krl_diag_format(&d, buf, sizeof buf));
	assert_null(p);
	krl_candidate_free(c);
}

static void test_launch_errors(void **state)
{
	(void)state;
	build_fails("launch relu5 grid=(1) block=(1) args(x, y, 1)",
	            KRL_ENOTFOUND, 5, 1,
	            "no kernel 'relu5' in the candidate (found: relu4, types, "
	            "prep)");
	build_fails("launch relu4 grid=(1) block=(1) args(x, y)", KRL_EINVAL,
	            5, 1, "kernel 'relu4' takes 3 arguments (x, y, n4), the "
	            "launch passes 2");
	build_fails("launch types grid=(1) block=(1) "
	            "args(x, y, 2147483648, 0, 0, 0, 0, 0)", KRL_EINVAL, 5, 44,
	            "argument 3 of 'types' (int a): 2147483648 does not fit");
	build_fails("launch types grid=(1) block=(1) "
	            "args(x, y, 0, -1, 0, 0, 0, 0)", KRL_EINVAL, 5, 47,
	            "argument 4 of 'types' (unsigned int b): -1 does not fit");
	build_fails("launch types grid=(1) block=(1) "
	            "args(x, y, 0, 0, 0, -numel(x), 0, 0)", KRL_EINVAL, 5, 53,
	            "argument 6 of 'types' (unsigned long d): -4000 does not "
	            "fit");
	build_fails("launch types grid=(1) block=(1) "
	            "args(x, y, 1.5, 0, 0, 0, 0, 0)", KRL_EINVAL, 5, 44,
	            "(int a): expected an integer, found 1.5");
	build_fails("launch types grid=(1) block=(1) "
	            "args(numel(x), y, 0, 0, 0, 0, 0, 0)", KRL_EINVAL, 5, 38,
	            "argument 1 of 'types' (const pointer x): expected a buffer "
	            "name, found an expression");
	build_fails("launch types grid=(1) block=(1) "
	            "args(x, n, 0, 0, 0, 0, 0, 0)", KRL_ENOTFOUND, 5, 41,
	            "expected a buffer name, found a name that is not a buffer");
	build_fails("launch types grid=(1) block=(1) "
	            "args(x, y, x, 0, 0, 0, 0, 0)", KRL_EINVAL, 5, 44,
	            "expected a value, found the buffer 'x'");
	build_fails("launch types grid=(1) block=(1) "
	            "args(x, y, 0, 0, nope, 0, 0, 0)", KRL_ENOTFOUND, 5, 50,
	            "unknown name 'nope'");
	build_fails("launch relu4 grid=(1) block=(1) args(y, x, 1)", KRL_EINVAL,
	            5, 41, "argument 2 of 'relu4' (pointer y) writes the input "
	            "'x', which the plan may not write");
	build_fails("launch relu4 grid=(1) block=(1) args(x, w, 1)", KRL_EINVAL,
	            5, 41, "writes the param 'w'");
	build_fails("buffer t f32 [4]\n"
	            "launch relu4 grid=(1) block=(1) args(x, t, 1)",
	            KRL_EINVAL, 6, 1, "output y is never written by the plan");
	build_fails("launch relu4 grid=(1) block=(1024, 2) args(x, y, 1)",
	            KRL_EINVAL, 5, 30,
	            "block of 1024 x 2 x 1 = 2048 threads is above the "
	            "device's 1024 threads per block");
	build_fails("launch relu4 grid=(1) block=(2048) args(x, y, 1)",
	            KRL_EINVAL, 5, 30, "block x must be in 1..1024, found 2048");
	build_fails("launch relu4 grid=(1) block=(0) args(x, y, 1)",
	            KRL_EINVAL, 5, 30, "block x must be in 1..1024, found 0");
	build_fails("launch relu4 grid=(1, 65536) block=(1) args(x, y, 1)",
	            KRL_EINVAL, 5, 23, "grid y must be in 1..65535, found "
	            "65536");
	build_fails("launch relu4 grid=(batch - 4) block=(1) args(x, y, 1)",
	            KRL_EINVAL, 5, 26, "grid x must be in 1..2147483647, found "
	            "0");
	build_fails("launch relu4 grid=(dim / (batch - 4)) block=(1) "
	            "args(x, y, 1)", KRL_EINVAL, 5, 24, "division by zero");
	build_fails("launch relu4 grid=(2.5) block=(1) args(x, y, 1)",
	            KRL_EINVAL, 5, 20, "grid x: expected an integer, found 2.5");
	build_fails("launch relu4 grid=(1) block=(1) smem=300000 "
	            "args(x, y, 1)", KRL_EINVAL, 5, 38,
	            "smem (dynamic shared memory bytes) must be in 0..232448");
	build_fails("launch relu4 grid=(10) block=(1) cluster=(4) "
	            "args(x, y, 1)", KRL_EINVAL, 5, 43,
	            "grid x (10) is not a multiple of cluster x (4)");
	build_fails("launch relu4 grid=(8, 8) block=(1) cluster=(4, 4) "
	            "args(x, y, 1)", KRL_EINVAL, 5, 45,
	            "a cluster of 16 blocks is above the device's 8");
	build_fails("launch relu4 grid=(16) block=(1) cluster=(16) "
	            "args(x, y, 1)", KRL_EINVAL, 5, 43,
	            "cluster x must be in 1..8");
	build_fails("launch relu4 grid=(sm_count * 33) block=(1) cooperative "
	            "args(x, y, 1)", KRL_EINVAL, 5, 29,
	            "a cooperative grid must fit on the device at once");
}

static void test_call_and_buffer_errors(void **state)
{
	(void)state;
	build_fails("call relux(x) -> y", KRL_ENOTFOUND, 5, 1,
	            "unknown op 'relux' (the ops are: ");
	build_fails("call relu(x, w) -> y", KRL_EINVAL, 5, 1,
	            "op 'relu' takes 1 input and 1 output, found 2 and 1");
	/* a variadic op: cat takes 2 to KRL_MAX_CALL_IN inputs, and its check
	 * sees the call's count */
	build_fails("call cat(x) -> y dim=0", KRL_EINVAL, 5, 1,
	            "op 'cat' takes 2 to 64 inputs and 1 output, found 1 and 1");
	build_fails("call cat(x, x, x) -> y dim=0", KRL_EINVAL, 5, 1,
	            "cat: y must be [12, 1000], not [4, 1000]");
	build_fails("call relu(x) -> y foo=1", KRL_EINVAL, 5, 19,
	            "op 'relu' has no attribute 'foo' (it takes none)");
	build_fails("call softmax(x) -> y dim=1 axis=0", KRL_EINVAL, 5, 28,
	            "op 'softmax' has no attribute 'axis' (it takes: dim)");
	build_fails("call relu(x) -> z", KRL_ENOTFOUND, 5, 1,
	            "output 1 of 'relu': no buffer named 'z'");
	build_fails("call relu(x) -> w", KRL_EINVAL, 5, 1,
	            "output 1 of op 'relu' writes the param 'w'");
	build_fails("call relu(w) -> y", KRL_EINVAL, 5, 1,
	            "relu: x is [1000] but y is [4, 1000]");
	build_fails("call gemm(x, x) -> y", KRL_EINVAL, 5, 1,
	            "gemm: a is [4, 1000] but b is [4, 1000]: inner dimensions "
	            "differ");
	build_fails("call softmax(x) -> y dim=2", KRL_EINVAL, 5, 1,
	            "softmax: dim=2 is out of range");
	build_fails("call scale(x) -> y alpha=1/0", KRL_EINVAL, 5, 27,
	            "division by zero");
	/* a buffer past 2^46 bytes: no allocator rounding may wrap */
	build_fails("buffer huge f32 [1073741824, 32768]\ncall relu(x) -> y",
	            KRL_EINVAL, 5, 8, "'huge' is too large to allocate");
	build_fails("buffer huge f32 [9223372036854775807]\ncall relu(x) -> y",
	            KRL_EINVAL, 5, 8, "a buffer holds at most 2^46 bytes");
	/* word-valued attributes: the value is a word of the list */
	build_fails("call conv(x, w) -> y layout=nhcw", KRL_EINVAL, 5, 29,
	            "op 'conv': layout=nhcw is not one of its values (allowed: "
	            "nchw, nhwc, nhwc_y, nhwc_xy)");
	build_fails("call conv_transpose(x, w) -> y layout=batch", KRL_EINVAL, 5,
	            39, "op 'conv_transpose': layout=batch is not one of its "
	            "values (allowed: nchw, nhwc, nhwc_y, nhwc_xy)");
	build_fails("call conv(x, w) -> y layout=1", KRL_EINVAL, 5, 29,
	            "op 'conv': layout takes a word, not a number or an "
	            "expression (allowed: nchw, nhwc, nhwc_y, nhwc_xy)");
	build_fails("call gru(x, w, w) -> y, y recurrence=fast", KRL_EINVAL, 5, 38,
	            "op 'gru': recurrence=fast is not one of its values "
	            "(allowed: standard, infer, persist, small_h)");
	build_fails("call relu(x) -> y layout=nhwc", KRL_EINVAL, 5, 19,
	            "op 'relu' has no attribute 'layout' (it takes none)");
	build_fails("derived w2 f32 [dim]\n"
	            "init\n"
	            "  call relu(x) -> w2\n"
	            "end\n"
	            "call relu(x) -> y", KRL_EINVAL, 7, 3,
	            "input 1 of op 'relu' uses the input 'x', but init may read "
	            "only params and derived buffers");
	build_fails("derived w2 f32 [dim]\n"
	            "init\n"
	            "  call relu(w2) -> w\n"
	            "end\n"
	            "call relu(x) -> y", KRL_EINVAL, 7, 3,
	            "output 1 of op 'relu' writes the param 'w', but init may "
	            "write only derived buffers");
	build_fails("derived w2 f32 [dim]\n"
	            "init\n"
	            "  launch prep grid=(1) block=(1) args(w, y, 0)\n"
	            "end\n"
	            "call relu(x) -> y", KRL_EINVAL, 7, 42,
	            "writes the output 'y', but init may write only derived");
	build_fails("derived w2 f32 [dim]\n"
	            "call relu(x) -> y", KRL_EINVAL, 5, 9,
	            "derived buffer 'w2' is never written by init");
	build_fails("derived w2 f32 [dim]\n"
	            "init\n"
	            "  call relu(w) -> w2\n"
	            "end\n"
	            "call relu(w) -> w2\n"
	            "call relu(x) -> y", KRL_EINVAL, 9, 1,
	            "writes the derived buffer 'w2', which the plan may not "
	            "write");
	build_fails("buffer x f32 [4]\ncall relu(x) -> y", KRL_EINVAL, 5, 8,
	            "'x' is already declared (as the input at t.task:7)");
	build_fails("buffer t f32 [4]\nbuffer t f32 [4]\ncall relu(x) -> y",
	            KRL_EINVAL, 6, 8, "'t' is already declared (as the buffer "
	            "at c.cu:5)");
	build_fails("buffer dim f32 [4]\ncall relu(x) -> y", KRL_EINVAL, 5, 8,
	            "'dim' is already a shape key");
	build_fails("buffer t f32 [batch, 0]\ncall relu(x) -> y", KRL_EINVAL, 5,
	            22, "dimension 1 of 't' must be in 1..");
	build_fails("buffer t f32 [numel(q)]\ncall relu(x) -> y",
	            KRL_ENOTFOUND, 5, 21, "numel(): no buffer named 'q'");
	build_fails("buffer t f32 [4000000000, 4000000000, 4000000000]\n"
	            "call relu(x) -> y", KRL_EINVAL, 5, 8,
	            "more than 2^63 elements");
}

/* Views: zero-copy reshapes that alias their root's memory, with the
 * root's write rights; offsets add up along chains of views. */
static void test_views(void **state)
{
	(void)state;
	krl_candidate *c;
	krl_program *p;
	krl_diag d;
	KRL_ASSERT_OK(build("view xv = x [batch * dim]\n"
	                    "view yv = y [batch * dim]\n"
	                    "view hx = x [batch, dim / 2] offset=dim / 2\n"
	                    "view part = hx [dim / 2] offset=3\n"
	                    "call relu(xv) -> yv", "tiny", &c, &p, &d), &d);
	int xv = p->ntask, yv = p->ntask + 1, hx = p->ntask + 2,
	    part = p->ntask + 3;
	assert_int_equal(p->bufs[xv].role, KRL_ROLE_VIEW);
	assert_int_equal(p->bufs[xv].alias, 0);
	assert_int_equal(p->bufs[xv].offset, 0);
	assert_int_equal(p->bufs[xv].ndim, 1);
	assert_int_equal(p->bufs[xv].numel, 4000);
	assert_int_equal(p->bufs[yv].alias, 2);
	assert_int_equal(krl_buf_root(p, yv), 2);
	assert_int_equal(krl_buf_root(p, 2), 2);
	assert_int_equal(p->bufs[hx].dtype, KRL_F32);
	assert_int_equal(p->bufs[hx].offset, 500);
	assert_int_equal(p->bufs[part].alias, 0);
	assert_int_equal(p->bufs[part].offset, 503);
	float mem[3][4000];
	void *ptrs[8] = { mem[0], mem[1], mem[2] };
	krl_program_bind_views(p, ptrs, 0);
	assert_ptr_equal(ptrs[xv], mem[0]);
	assert_ptr_equal(ptrs[yv], mem[2]);
	assert_ptr_equal(ptrs[part], &mem[0][503]);
	double host[4000];
	ptrs[0] = host;
	krl_program_bind_views(p, ptrs, sizeof(double));
	assert_ptr_equal(ptrs[part], &host[503]);
	krl_program_free(p);
	krl_candidate_free(c);

	/* the last element may be viewed, one past it may not */
	KRL_ASSERT_OK(build("view v = x [1] offset=batch * dim - 1\n"
	                    "call relu(x) -> y", "tiny", &c, &p, &d), &d);
	krl_program_free(p);
	krl_candidate_free(c);
	build_fails("view v = x [2] offset=batch * dim - 1\ncall relu(x) -> y",
	            KRL_EINVAL, 5, 6, "view 'v' has 2 elements from offset "
	            "3999, but 'x' has only 4000");
	build_fails("view v = q [4]\ncall relu(x) -> y", KRL_ENOTFOUND, 5, 6,
	            "view 'v': no buffer 'q' is declared before it");
	build_fails("view v = x [batch * dim]\ncall relu(x) -> v", KRL_EINVAL,
	            6, 1, "writes the input 'x' (through the view 'v'), which "
	            "the plan may not write");
	build_fails("view v = y [batch * dim]\ncall relu(v) -> x", KRL_EINVAL,
	            6, 1, "writes the input 'x', which");
	build_fails("view v = x [batch * dim] offset=-1\ncall relu(x) -> y",
	            KRL_EINVAL, 5, 33, "offset of view 'v' must be in 0..");
	char src[512];
	snprintf(src, sizeof src, "%sview v x [4]\ncall relu(x) -> y\n@*/\n",
	         prelude);
	assert_int_equal(krl_candidate_parse("c.cu", src, strlen(src), &c, &d),
	                 KRL_ESYNTAX);
	assert_int_equal(d.pos.line, 5);
	assert_int_equal(d.pos.col, 8);
	assert_non_null(strstr(d.msg, "expected '='"));
}

/* A task's reference plan may use views; the golden executor reads and
 * writes through them (a mean over two trailing dims into a keepdim
 * output, as PyTorch's mean(dim=(2, 3), keepdim=True)). */
static void test_reference_view(void **state)
{
	(void)state;
	static const char text[] =
		"task mean23\n"
		"shapes kb0 n=2 c=3 h=2 w=2\nshapes kb1 n=2 c=3 h=2 w=2\n"
		"shapes tiny n=2 c=3 h=2 w=2\n"
		"input x f32 [n, c, h, w] normal(0, 1)\n"
		"output y f32 [n, c, 1, 1]\n"
		"tolerance atol=1e-6 rtol=1e-5\n"
		"plan\n"
		"  view x3 = x [n, c, h * w]\n"
		"  view y3 = y [n, c, 1]\n"
		"  call mean(x3) -> y3 dim=2\n"
		"end\n";
	krl_task *t;
	krl_program *p;
	krl_diag d;
	KRL_ASSERT_OK(krl_task_parse("m.task", text, strlen(text), &t, &d), &d);
	krl_limits lim = krl_limits_sm90();
	KRL_ASSERT_OK(krl_program_build(t, NULL, "tiny", &lim, &p, &d), &d);
	assert_int_equal(p->nbufs, 4);
	double x[24], y[6] = {0};
	for (int i = 0; i < 24; i++)
		x[i] = i;
	double *bufs[4] = { x, y, NULL, NULL }; /* views: their roots' */
	KRL_ASSERT_OK(krl_exec_golden(p, bufs, &d), &d);
	for (int i = 0; i < 6; i++)
		assert_true(y[i] == 4 * i + 1.5);
	krl_program_free(p);
	krl_task_free(t);
	static const char bad[] =
		"task t\nshapes kb0 n=2\nshapes kb1 n=2\nshapes tiny n=2\n"
		"input x f32 [n] normal(0, 1)\noutput y f32 [n]\n"
		"tolerance atol=1 rtol=1\nplan\n  view v = x [n]\n"
		"  derived q f32 [n]\nend\n";
	assert_int_equal(krl_task_parse("b.task", bad, strlen(bad), &t, &d),
	                 KRL_ESYNTAX);
	assert_non_null(strstr(d.msg, "buffer, view and call"));
}

/* A constant buffer (minGPT's causal tril(ones(m, m)) registered
 * buffer, read through a slice): the pattern's rows and cols come from
 * the buffer's last two dims, the golden executor runs eq_scalar on the
 * leading [t, t] slice and masked_fill with value=-inf (the `inf` name)
 * on a copy, as the Model's att.masked_fill(bias[:, :, :T, :T] == 0,
 * -inf). */
static void test_const_buffer(void **state)
{
	(void)state;
	static const char text[] =
		"task causal\n"
		"shapes kb0 b=2 t=3 m=4\nshapes kb1 b=2 t=3 m=4\n"
		"shapes tiny b=2 t=3 m=4\n"
		"input x f32 [b, t, t] normal(0, 1)\n"
		"param bias f32 [1, 1, m, m] tril(1)\n"
		"output y f32 [b, t, t]\n"
		"tolerance atol=0 rtol=0\n"
		"plan\n"
		"  buffer mk bool [1, t, t]\n"
		"  view b3 = bias [1, m, m]\n"
		"  call eq_scalar(b3) -> mk value=0\n"
		"  call copy(x) -> y\n"
		"  call masked_fill(y, mk) -> y value=-inf\n"
		"end\n";
	krl_task *t;
	krl_program *p;
	krl_diag d;
	KRL_ASSERT_OK(krl_task_parse("c.task", text, strlen(text), &t, &d), &d);
	krl_limits lim = krl_limits_sm90();
	KRL_ASSERT_OK(krl_program_build(t, NULL, "tiny", &lim, &p, &d), &d);
	const krl_buf *bb = &p->bufs[1];
	assert_int_equal(bb->dist.kind, KRL_DIST_TRIL);
	assert_int_equal(bb->dist.rows, 4);
	assert_int_equal(bb->dist.cols, 4);
	assert_true(p->body[2].attrs.val[0] == -INFINITY);
	double x[18], bias[16], y[18], mk[9];
	for (int i = 0; i < 18; i++)
		x[i] = i + 1;
	for (int i = 0; i < 16; i++) {
		bias[i] = krl_draw_value(bb->dist, KRL_F32, 12345, i);
		assert_true(bias[i] == (i % 4 <= i / 4 ? 1.0 : 0.0));
	}
	double *bufs[5] = { x, bias, y, mk, NULL };
	KRL_ASSERT_OK(krl_exec_golden(p, bufs, &d), &d);
	for (int i = 0; i < 18; i++) {
		int row = i / 3 % 3, col = i % 3;
		if (col <= row)
			assert_true(y[i] == x[i]);
		else
			assert_true(isinf(y[i]) && y[i] < 0);
	}
	krl_program_free(p);
	krl_task_free(t);
}

/* Swin-V2's constant buffers: the builder keeps the arguments (the third
 * and fourth in rows and cols), refuses a buffer whose size is not the
 * pattern's layout, and the golden executor reads the drawn contents
 * (index_select of the coords table rows by the relative position index,
 * as the Model's table[index.view(-1)]). */
static void test_swin_buffers(void **state)
{
	(void)state;
	static const char text[] =
		"task swin\n"
		"shapes kb0 n=1\nshapes kb1 n=1\nshapes tiny n=1\n"
		"param tab f32 [1, 3, 3, 2] swin_coords(2, 2)\n"
		"param idx i64 [4, 4] swin_index(2, 2)\n"
		"param mask f32 [4, 4, 4] swin_mask(4, 4, 2, 1)\n"
		"output y f32 [16, 2]\n"
		"output z f32 [4, 4, 4]\n"
		"tolerance atol=0 rtol=0\n"
		"plan\n"
		"  view t2 = tab [9, 2]\n"
		"  view i1 = idx [16]\n"
		"  call index_select(t2, i1) -> y dim=0\n"
		"  call copy(mask) -> z\n"
		"end\n";
	krl_task *t;
	krl_program *p;
	krl_diag d;
	KRL_ASSERT_OK(krl_task_parse("s.task", text, strlen(text), &t, &d), &d);
	KRL_ASSERT_OK(krl_program_build(t, NULL, "tiny", NULL, &p, &d), &d);
	assert_int_equal(p->bufs[0].dist.kind, KRL_DIST_SWIN_COORDS);
	assert_int_equal(p->bufs[2].dist.kind, KRL_DIST_SWIN_MASK);
	assert_int_equal(p->bufs[2].dist.rows, 2);
	assert_int_equal(p->bufs[2].dist.cols, 1);
	double tab[18], idx[16], mask[64], y[32], z[64];
	for (int i = 0; i < 18; i++)
		tab[i] = krl_draw_value(p->bufs[0].dist, KRL_F32, 7, i);
	for (int i = 0; i < 16; i++)
		idx[i] = krl_draw_value(p->bufs[1].dist, KRL_I64, 7, i);
	for (int i = 0; i < 64; i++)
		mask[i] = krl_draw_value(p->bufs[2].dist, KRL_F32, 7, i);
	/* a 2 x 2 window: coordinates -1, 0, 1 to -1, 0, 1 (log2(9) / 3) */
	float one = (float)(log2(9.0) / 3);
	assert_true(tab[0] == -one && tab[1] == -one && tab[8] == 0 &&
	            tab[17] == one);
	/* tokens 0 and 3 of the window: index (0 - 1 + 1) * 3 + (0 - 1 + 1) */
	assert_true(idx[3] == 0 && idx[12] == 8 && idx[0] == 4);
	/* window 0 of the 4 x 4 map lies in region 0: no mask */
	for (int i = 0; i < 16; i++)
		assert_true(mask[i] == 0);
	assert_true(mask[48 + 1] == -100); /* window 3, tokens 0 and 1 */
	double *bufs[8] = { tab, idx, mask, y, z, NULL, NULL, NULL };
	KRL_ASSERT_OK(krl_exec_golden(p, bufs, &d), &d);
	for (int i = 0; i < 16; i++)
		for (int c = 0; c < 2; c++)
			assert_true(y[i * 2 + c] == tab[(int)idx[i] * 2 + c]);
	assert_memory_equal(z, mask, sizeof z);
	krl_program_free(p);
	/* the size is the layout's */
	char bad[sizeof text + 8];
	const char *at = strstr(text, "[4, 4] swin_index");
	snprintf(bad, sizeof bad, "%.*s[4, 5]%s", (int)(at - text), text,
	         at + 6);
	krl_task_free(t);
	KRL_ASSERT_OK(krl_task_parse("s.task", bad, strlen(bad), &t, &d), &d);
	assert_int_equal(krl_program_build(t, NULL, "tiny", NULL, &p, &d),
	                 KRL_EINVAL);
	assert_non_null(strstr(d.msg, "'idx' has 20 elements; its pattern "
	                              "fills [wh ww, wh ww] = 16"));
	krl_task_free(t);
}

static void test_task_errors(void **state)
{
	(void)state;
	/* Errors in the task's own expressions point into the task. */
	static const char bad[] =
		"task t\n"
		"shapes kb0 n=4\nshapes kb1 n=0\nshapes tiny n=2\n"
		"const per = 64 / n\n"
		"input  x f32 [n] normal(0, 1)\n"
		"output y f32 [n]\n"
		"tolerance atol=0 rtol=0\n"
		"plan\n  call relu(x) -> y\nend\n";
	krl_task *t;
	krl_program *p = NULL;
	krl_diag d;
	KRL_ASSERT_OK(krl_task_parse("bad.task", bad, strlen(bad), &t, &d), &d);
	KRL_ASSERT_OK(krl_program_build(t, NULL, "kb0", NULL, &p, &d), &d);
	krl_program_free(p);
	assert_int_equal(krl_program_build(t, NULL, "kb1", NULL, &p, &d),
	                 KRL_EINVAL);
	assert_string_equal(d.pos.file, "bad.task");
	assert_int_equal(d.pos.line, 5);
	assert_int_equal(d.pos.col, 16);
	assert_string_equal(d.msg, "division by zero");
	krl_task_free(t);

	static const char unwritten[] =
		"task t\n"
		"shapes kb0 n=4\nshapes kb1 n=0\nshapes tiny n=2\n"
		"input  x f32 [n] normal(0, 1)\n"
		"output y f32 [n]\n"
		"output z f32 [n]\n"
		"tolerance atol=0 rtol=0\n"
		"plan\n  call relu(x) -> y\nend\n";
	KRL_ASSERT_OK(krl_task_parse("u.task", unwritten, strlen(unwritten),
	                             &t, &d), &d);
	assert_int_equal(krl_program_build(t, NULL, "kb0", NULL, &p, &d),
	                 KRL_EINVAL);
	assert_int_equal(d.pos.line, 7);
	assert_int_equal(d.pos.col, 8);
	assert_string_equal(d.msg, "output z is never written by the plan "
	                           "(every output must be written by a body "
	                           "statement)");
	krl_task_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_reference),
		cmocka_unit_test(test_precision_tier),
		cmocka_unit_test(test_launch),
		cmocka_unit_test(test_calls_and_init),
		cmocka_unit_test(test_launch_errors),
		cmocka_unit_test(test_call_and_buffer_errors),
		cmocka_unit_test(test_views),
		cmocka_unit_test(test_reference_view),
		cmocka_unit_test(test_const_buffer),
		cmocka_unit_test(test_swin_buffers),
		cmocka_unit_test(test_task_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
