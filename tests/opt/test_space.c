/*
 * The decision space of the program optimizer (src/opt/space.c): names
 * and options are stable and known, option 0 is the default, features are
 * named and bounded, a choice written into a candidate reads back, and the
 * same choice always writes the same file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/opt.h"
#include "krl/suite.h"
#include "testutil.h"

static krl_task *load(const char *ref)
{
	krl_suite *s = NULL;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_suite_load(NULL, &s, &d), &d);
	krl_task *t = NULL;
	KRL_ASSERT_OK(krl_suite_load_task(s, ref, &t, &d), &d);
	krl_suite_free(s);
	return t;
}

static const krl_decision *find(const krl_space *s, const char *name)
{
	for (int k = 0; k < s->ndec; k++)
		if (!strcmp(s->dec[k].name, name))
			return &s->dec[k];
	return NULL;
}

/* Every decision name and option text a space may hold. */
static const char *const KNOWN[] = {
	"rule.fold", "rule.diag_bcast", "rule.flip", "rule.reduce_linear",
	"rule.cancel", "map.block", "map.vec", "map.ept", "map.grid",
	"row.strategy", "row.block", "row.cache", "total.blocks",
	"total.block", "scan.block", "pool.block", "pool.ept", "pool.taps",
	"fuse", "gemm.impl", "lib.algo", "lib.layout", "lib.tconv", "math",
	NULL,
};

static int known(const char *name)
{
	for (int i = 0; KNOWN[i]; i++)
		if (!strcmp(KNOWN[i], name))
			return 1;
	return 0;
}

/* Softmax: a row kernel; its knobs are offered, with fixed option lists
 * whose first entry is the default. */
static void softmax_space(void **state)
{
	(void)state;
	krl_task *t = load("level1/23_softmax");
	krl_opt *o = NULL;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
	const krl_space *s = krl_opt_space(o);
	assert_true(s->ndec > 0 && s->ndec <= KRL_MAX_DECISIONS);
	const krl_decision *st = find(s, "row.strategy");
	assert_non_null(st);
	assert_int_equal(st->nopt, 4);
	assert_string_equal(st->opt[0], "auto");
	assert_string_equal(st->opt[1], "warp");
	assert_string_equal(st->opt[2], "block");
	assert_string_equal(st->opt[3], "multi");
	const krl_decision *rb = find(s, "row.block");
	assert_non_null(rb);
	assert_string_equal(rb->opt[0], "256");
	const krl_decision *rc = find(s, "row.cache");
	assert_non_null(rc);
	assert_string_equal(rc->opt[0], "regs");
	assert_string_equal(rc->opt[1], "reread");
	const krl_decision *fu = find(s, "fuse");
	assert_non_null(fu);
	assert_string_equal(fu->opt[0], "full");
	assert_string_equal(fu->opt[1], "none");
	/* its exp: the accurate expf first */
	const krl_decision *ma = find(s, "math");
	assert_non_null(ma);
	assert_string_equal(ma->opt[0], "precise");
	assert_string_equal(ma->opt[1], "fast");
	/* no scan or total kernel in softmax */
	assert_null(find(s, "scan.block"));
	assert_null(find(s, "total.blocks"));
	for (int k = 0; k < s->ndec; k++) {
		assert_true(known(s->dec[k].name));
		assert_true(s->dec[k].nopt >= 2 &&
		            s->dec[k].nopt <= KRL_MAX_OPTIONS);
		for (int j = 0; j < s->dec[k].nopt; j++)
			assert_true(s->dec[k].opt[j][0] != 0);
	}
	krl_opt_free(o);
	krl_task_free(t);
}

/* A rule that matches is offered, "on" first; one that does not is not. */
static void rules_offered_when_they_match(void **state)
{
	(void)state;
	krl_task *t = load("level1/12kb0_diag_matmul");
	krl_opt *o = NULL;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_opt_create(t, "kb0", &o, &d), &d);
	const krl_space *s = krl_opt_space(o);
	const krl_decision *r = find(s, "rule.diag_bcast");
	assert_non_null(r);
	assert_string_equal(r->opt[0], "on");
	assert_string_equal(r->opt[1], "off");
	assert_null(find(s, "rule.flip"));
	/* with the rule the GEMM is a broadcast multiply: a map kernel */
	krl_choice c = { { 0 } };
	char *text = NULL, *what = NULL;
	KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
	assert_non_null(strstr(what, "diag_bcast"));
	assert_non_null(strstr(text, "_map"));
	assert_null(strstr(text, "call gemm"));
	free(text);
	free(what);
	/* without it the library calls stay */
	for (int k = 0; k < s->ndec; k++)
		if (!strcmp(s->dec[k].name, "rule.diag_bcast"))
			c.opt[k] = 1;
	KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
	assert_non_null(strstr(text, "call diag"));
	free(text);
	free(what);
	krl_opt_free(o);

	krl_task *u = load("level1/91_cumsum_reverse");
	KRL_ASSERT_OK(krl_opt_create(u, "kb1", &o, &d), &d);
	s = krl_opt_space(o);
	assert_non_null(find(s, "rule.flip"));
	assert_non_null(find(s, "scan.block"));
	krl_opt_free(o);
	krl_task_free(u);
	krl_task_free(t);
}

/* Features: named, finite, the same on every call, "bias" first. */
static void features_are_stable(void **state)
{
	(void)state;
	static const char *const tasks[] = { "level1/19_relu", "level1/23_softmax",
		"level1/94_mse_loss", "level1/1_square_matmul", "level1/89_cumsum" };
	const char *first[KRL_MAX_FEATURES];
	int nfirst = -1;
	for (size_t i = 0; i < sizeof tasks / sizeof tasks[0]; i++) {
		krl_task *t = load(tasks[i]);
		krl_opt *o = NULL;
		krl_diag d = { 0 };
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		const char *names[KRL_MAX_FEATURES], *names2[KRL_MAX_FEATURES];
		double v[KRL_MAX_FEATURES], v2[KRL_MAX_FEATURES];
		int n = krl_opt_features(o, names, v, KRL_MAX_FEATURES);
		int n2 = krl_opt_features(o, names2, v2, KRL_MAX_FEATURES);
		assert_true(n > 4 && n <= KRL_MAX_FEATURES);
		assert_int_equal(n, n2);
		assert_string_equal(names[0], "bias");
		assert_true(v[0] == 1.0);
		for (int k = 0; k < n; k++) {
			assert_string_equal(names[k], names2[k]);
			assert_true(v[k] == v2[k]);
			assert_true(isfinite(v[k]) && v[k] >= 0 && v[k] <= 4);
		}
		/* the same names, in the same order, on every task */
		if (nfirst < 0) {
			nfirst = n;
			for (int k = 0; k < n; k++)
				first[k] = names[k];
		} else {
			assert_int_equal(n, nfirst);
			for (int k = 0; k < n; k++)
				assert_string_equal(names[k], first[k]);
		}
		int gemm = -1, scan = -1;
		for (int k = 0; k < n; k++) {
			if (!strcmp(names[k], "has_gemm"))
				gemm = k;
			if (!strcmp(names[k], "has_scan"))
				scan = k;
		}
		assert_true(gemm > 0 && scan > 0);
		assert_true((v[gemm] == 1) == (strstr(tasks[i], "matmul") != NULL));
		assert_true((v[scan] == 1) == (strstr(tasks[i], "cumsum") != NULL));
		krl_opt_free(o);
		krl_task_free(t);
	}
}

/* conv_share: the convolutions' part of the multiply-adds of the
 * convolutions and GEMMs (the search's round 0 order). VGG16 at kb1: 15.4
 * G multiply-adds an image in its 13 convolutions against 0.124 G in its
 * three linear layers, 0.992; a dense block holds convolutions only; an
 * MLP and ViT (the patches through a linear layer) none or little. */
static void conv_share_feature(void **state)
{
	(void)state;
	static const struct {
		const char *task;
		double lo, hi;
	} want[] = {
		{ "level3/11_vgg16", 0.990, 0.994 },
		{ "level3/14_densenet121_dense_block", 1, 1 },
		{ "level3/1_mlp", 0, 0 },
		{ "level3/28_vision_transformer", 0, 0.5 },
		{ "level1/19_relu", 0, 0 },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		krl_task *t = load(want[i].task);
		krl_opt *o = NULL;
		krl_diag d = { 0 };
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		const char *names[KRL_MAX_FEATURES];
		double v[KRL_MAX_FEATURES];
		int n = krl_opt_features(o, names, v, KRL_MAX_FEATURES), k = 0;
		while (k < n && strcmp(names[k], "conv_share"))
			k++;
		assert_true(k < n);
		print_message("%s: conv_share %.4f\n", want[i].task, v[k]);
		assert_true(v[k] >= want[i].lo && v[k] <= want[i].hi);
		krl_opt_free(o);
		krl_task_free(t);
	}
}

/* A choice formats into the file and parses back to itself; the same
 * choice writes the same file. */
static void choice_round_trip(void **state)
{
	(void)state;
	krl_task *t = load("level1/95_cross_entropy");
	krl_opt *o = NULL;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
	const krl_space *s = krl_opt_space(o);
	krl_choice c = { { 0 } };
	for (int k = 0; k < s->ndec; k++)
		c.opt[k] = (k * 7 + 3) % s->dec[k].nopt;
	char line[2048];
	int len = krl_choice_format(s, &c, line, sizeof line);
	assert_true(len > 0 && (size_t)len < sizeof line);
	assert_int_equal(strncmp(line, "krl-choice:", 11), 0);
	char *a = NULL, *b = NULL, *wa = NULL, *wb = NULL;
	KRL_ASSERT_OK(krl_opt_generate(o, &c, &a, &wa, &d), &d);
	KRL_ASSERT_OK(krl_opt_generate(o, &c, &b, &wb, &d), &d);
	assert_string_equal(a, b);
	assert_string_equal(wa, wb);
	assert_null(strchr(wa, '\n'));
	/* the line is in the file's first comment */
	const char *end = strstr(a, "*/");
	const char *at = strstr(a, line);
	assert_non_null(at);
	assert_true(at < end);
	krl_choice back;
	KRL_ASSERT_OK(krl_choice_parse(s, a, &back, &d), &d);
	for (int k = 0; k < s->ndec; k++)
		assert_int_equal(back.opt[k], c.opt[k]);
	/* the default choice is option 0 everywhere, and a file without the
	 * line is not found */
	krl_choice z = { { 0 } };
	char *def = NULL, *wd = NULL;
	KRL_ASSERT_OK(krl_opt_generate(o, &z, &def, &wd, &d), &d);
	KRL_ASSERT_OK(krl_choice_parse(s, def, &back, &d), &d);
	for (int k = 0; k < s->ndec; k++)
		assert_int_equal(back.opt[k], 0);
	assert_int_equal(krl_choice_parse(s, "no line here", &back, &d),
	                 KRL_ENOTFOUND);
	free(a);
	free(b);
	free(wa);
	free(wb);
	free(def);
	free(wd);
	krl_opt_free(o);
	krl_task_free(t);
}

/* conv.impl's pay rule (space.c): cuDNN first for a 2-d convolution over
 * 64 channels (level 2's 1), the implicit GEMM first over 8 (71), whose
 * epilogue then holds the whole chain after it (the bias split off, the
 * divide and leaky_relu as lowered: one kernel in all); a depthwise
 * convolution stays the library's. */
/* lib.layout's pay rule (cl_pays): nhwc_y first where only an elementwise
 * chain of y's shape reads the convolution (then the default writes
 * layout=nhwc_y and a map kernel from channels-last y), or reductions and
 * pools whose kernels read y in memory order; nchw first where those would
 * not pay, group norm's view splits C, or y is the task's output. */
static void layout_pay_rule(void **state)
{
	(void)state;
	static const struct {
		const char *id, *first;
		int rowcl;               /* a row kernel in y's memory order */
		int poolcl;              /* a pool kernel reading y so */
	} cases[] = {
		{ "level2/1_conv2d_relu_biasadd", "nhwc_y", 0, 0 },
		{ "level2/5_convtranspose2d_subtract_tanh", "nhwc_y", 0, 0 },
		/* reductions over spatial axes (instance norm's statistics),
		 * over C (softmax), over W (layer norm) */
		{ "level2/17_conv2d_instancenorm_divide", "nhwc_y", 1, 0 },
		{ "level2/91_convtranspose2d_softmax_biasadd_scaling_sigmoid",
		  "nhwc_y", 1, 0 },
		{ "level2/34_convtranspose3d_layernorm_gelu_scaling", "nhwc_y", 1,
		  0 },
		/* pools over every spatial dim of the chain (emit_pool_cl): 2-d
		 * max, 3-d average after a layer norm over W */
		{ "level2/35_conv2d_subtract_hardswish_maxpool_mish", "nhwc_y", 0,
		  1 },
		{ "level2/3_convtranspose3d_sum_layernorm_avgpool_gelu", "nhwc_y", 1,
		  1 },
		/* too few column blocks at kb1 (cg_cl_rows_pay: 256 for batch
		 * norm's statistics and a mean through a view of the spatial
		 * dims; 16 for a 3-d batch norm), 16 channels for a logsumexp
		 * over C */
		{ "level2/52_conv2d_activation_batchnorm", "nchw", 0, 0 },
		{ "level2/67_conv2d_gelu_globalavgpool", "nchw", 0, 0 },
		{ "level2/15_convtranspose3d_batchnorm_subtract", "nchw", 0, 0 },
		{ "level2/58_convtranspose3d_logsumexp_hardswish_subtract_clamp",
		  "nchw", 0, 0 },
		/* group norm's view splits C; y is an output */
		{ "level2/19_convtranspose2d_gelu_groupnorm", "nchw", 0, 0 },
		{ "level1/63_conv2d_square", "nchw", 0, 0 },
	};
	krl_diag d = { 0 };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		krl_task *t = load(cases[i].id);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		const krl_space *s = krl_opt_space(o);
		const krl_decision *ly = find(s, "lib.layout");
		assert_non_null(ly);
		assert_int_equal(ly->nopt, 3);
		assert_string_equal(ly->opt[0], cases[i].first);
		krl_choice c = { { 0 } };
		const krl_decision *ci = find(s, "conv.impl");
		if (ci)
			for (int j = 0; j < ci->nopt; j++)
				if (!strcmp(ci->opt[j], "lib"))
					c.opt[ci - s->dec] = j;
		char *text = NULL, *what = NULL;
		KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
		if (!strcmp(cases[i].first, "nhwc_y"))
			assert_non_null(strstr(text, " layout=nhwc_y\n"));
		else
			assert_null(strstr(text, " layout=nhwc"));
		assert_int_equal(cases[i].rowcl,
		                 strstr(text, "contiguous in a channels-last input") ||
		                 strstr(text, "columns of a channels-last input's "
		                        "memory"));
		assert_int_equal(cases[i].poolcl,
		                 strstr(text, "a channels-last input read") != NULL);
		free(text);
		free(what);
		krl_opt_free(o);
		krl_task_free(t);
	}
}

/* The implicit GEMM multiplies in TF32: a task of the strict fp32 tier
 * (no `precision tf32` line: level 3's 10, 20 and 45) is not offered it,
 * its TF32-tier neighbours are; the same task with the line added is. */
static void conv_impl_needs_tf32(void **state)
{
	(void)state;
	static const struct {
		const char *id;
		int offered;
	} cases[] = {
		{ "level3/10_resnet101", 0 }, { "level3/20_mobilenet_v2", 0 },
		{ "level3/45_unet_softmax", 0 }, { "level3/9_resnet18", 1 },
		{ "level3/19_mobilenet_v1", 1 },
	};
	krl_diag d = { 0 };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		krl_task *t = load(cases[i].id);
		assert_int_equal(krl_task_is_tf32(t), cases[i].offered);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		assert_int_equal(find(krl_opt_space(o), "conv.impl") != NULL,
		                 cases[i].offered);
		krl_opt_free(o);
		/* the tier alone decides: 45 with `precision tf32` */
		if (!cases[i].offered && strstr(cases[i].id, "45_")) {
			free(t->precision);
			t->precision = strdup("tf32");
			KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
			assert_non_null(find(krl_opt_space(o), "conv.impl"));
			krl_opt_free(o);
		}
		krl_task_free(t);
	}
}

/* lib.layout=nhwc_xy on SqueezeNet (level 3's 18): the cats of fire
 * modules 4 and 8 feed a max pool whose output the next squeeze
 * convolution takes as x, so they are written channels-last and every
 * pool walks channels-last (cgkern.c pool_feeds_conv): 25 of the 26
 * convolutions read x channels-last (the stem reads the task's NCHW
 * input); every map writes channels-last, with its threads in memory
 * order (codegen_map.c emit_map_cl). */
static void pool_feeds_channels_last(void **state)
{
	(void)state;
	krl_task *t = load("level3/18_squeezenet");
	krl_opt *o = NULL;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
	const krl_space *s = krl_opt_space(o);
	krl_choice c = { { 0 } };
	KRL_ASSERT_OK(krl_choice_parse(s, "krl-choice: lib.layout=nhwc_xy", &c,
	                               &d), &d);
	char *text = NULL, *what = NULL;
	KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
	assert_non_null(strstr(what, "24 writing channels-last"));
	assert_non_null(strstr(what, "3 over a channels-last y in its memory "
	                       "order; 3 writing channels-last"));
	assert_non_null(strstr(what, "25 reading x channels-last"));
	/* no transposing (tiled) map is left; the channel-blocked ones
	 * take a position's runs on neighbouring threads */
	assert_null(strstr(text, "tiles of 128 positions"));
	assert_non_null(strstr(text, "const long tc0 = krl_mod(e, "));
	assert_null(strstr(text, "const long ts = krl_mod(e, "));
	free(text);
	free(what);
	krl_opt_free(o);
	krl_task_free(t);
}

static void conv_impl_pay_rule(void **state)
{
	(void)state;
	static const struct {
		const char *id, *first; /* the task; conv.impl's option 0 */
		int other;              /* generate with this option */
		const char *what, *text, *text2; /* expected; NULL: not checked */
	} cases[] = {
		/* the library's call first; igemm the halo form (mma.sync);
		 * wgmma, offered last, its Hopper form, the weight packed in
		 * init (not yet run on a GPU: the pay rule waits for its
		 * timing) */
		{ "level2/1_conv2d_relu_biasadd", "lib", 0, NULL, "call conv(",
		  NULL },
		{ "level2/1_conv2d_relu_biasadd", "lib", 1,
		  "4 ops into 1 kernel: 1 conv (implicit GEMM, TF32, epilogue: 3 "
		  "ops)", "igemm::halo_entry<128, 3, 3, false, false>", NULL },
		{ "level2/1_conv2d_relu_biasadd", "lib", 2,
		  "4 ops into 1 kernel: 1 conv (implicit GEMM, TF32, epilogue: 3 "
		  "ops)", "igemm::wgh_entry<128, 3, 3, false, false, 1>",
		  "launch k0_wpack grid=" },
		{ "level2/54_conv2d_multiply_leakyrelu_gelu", "lib", 2, NULL,
		  "igemm::wgh_entry<64, 3, 3, false, false, 1>",
		  "smem=173568 " },
		/* 8 input channels: the gather form first (igemm); wgmma's
		 * blocks walk 8 row tiles (one chunk each) */
		{ "level2/87_conv2d_subtract_subtract_mish", "igemm", 0, NULL,
		  "igemm::conv_entry<64, 128, 32, 32, 1, 3, 3, false, false, 1>",
		  NULL },
		{ "level2/87_conv2d_subtract_subtract_mish", "igemm", 2, NULL,
		  "igemm::wgh_entry<64, 3, 3, false, false, 8>",
		  "* cdiv((oh), 32), " },
		{ "level2/71_conv2d_divide_leakyrelu", "igemm", 0,
		  "6 ops into 1 kernel: 1 conv (implicit GEMM, TF32, epilogue: 5 "
		  "ops)", "conv_entry<64, 128, 32, 32, 1, 3, 3, false, false, 1>",
		  NULL },
		/* its pointwise (1 x 1) convolution is offered; the depthwise
		 * one is conv.dw's (the generated kernel by default) */
		{ "level1/86_conv_depthwise_separable2d", "lib", 1, NULL,
		  "dwconv::entry<3, 3, 1, 1, 1, 1, 8, false>", "launch k1_conv " },
	};
	krl_diag d = { 0 };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		krl_task *t = load(cases[i].id);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		const krl_space *s = krl_opt_space(o);
		const krl_decision *ci = find(s, "conv.impl");
		assert_non_null(ci);
		assert_string_equal(ci->opt[0], cases[i].first);
		krl_choice c = { { 0 } };
		c.opt[ci - s->dec] = cases[i].other;
		char *text = NULL, *what = NULL;
		KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
		if (cases[i].what)
			assert_non_null(strstr(what, cases[i].what));
		assert_non_null(strstr(text, cases[i].text));
		if (cases[i].text2)
			assert_non_null(strstr(text, cases[i].text2));
		free(text);
		free(what);
		krl_opt_free(o);
		krl_task_free(t);
	}
}

/* conv.dw (the generated depthwise kernel first where every depthwise
 * convolution's rows are at least 24 wide, with 4 rows a thread where
 * some convolution's thread would walk more than 12 input rows at 8) and
 * lib.groups (a grouped
 * transposed convolution dense first at up to 8 groups): which is offered
 * first, and what each option writes. */
static void dw_and_groups_pay_rules(void **state)
{
	(void)state;
	static const struct {
		const char *id, *dec, *first, *other;
		const char *text0, *text1; /* option 0's text; the other's */
	} cases[] = {
		{ "level1/82_conv_depthwise2d", "conv.dw", "rows8", "lib",
		  "launch k0_conv grid=(cdiv((ow), 32) * cdiv((oh), 64)",
		  "call conv(x, w) -> y" },
		{ "level1/85_conv_depthwise2d_asym", "conv.dw", "rows8", "rows16",
		  "dwconv::entry<3, 7, 1, 1, 1, 1, 8, false>",
		  "dwconv::entry<3, 7, 1, 1, 1, 1, 16, false>" },
		/* a 5 x 5 window of stride 2 (19 input rows a thread at 8
		 * rows): 4 rows first */
		{ "level3/21_efficientnet_mbconv", "conv.dw", "rows4", "rows8",
		  "dwconv::entry<5, 5, 2, 2, 1, 1, 4, false>",
		  "dwconv::entry<5, 5, 2, 2, 1, 1, 8, false>" },
		/* maps down to 7 x 7: the library's first */
		{ "level3/20_mobilenet_v2", "conv.dw", "lib", "rows8", "call conv(",
		  "(depthwise conv, fp32)" },
		{ "level1/73_conv_transpose3d_strided_padded_grouped", "lib.groups",
		  "dense", "grouped", "call conv_transpose(x, k0_wd) -> y",
		  "call conv_transpose(x, w) -> y stride=stride padding=padding "
		  "groups=groups" },
	};
	krl_diag d = { 0 };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		krl_task *t = load(cases[i].id);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		const krl_space *s = krl_opt_space(o);
		const krl_decision *k = find(s, cases[i].dec);
		assert_non_null(k);
		assert_string_equal(k->opt[0], cases[i].first);
		for (int v = 0; v < 2; v++) {
			krl_choice c = { { 0 } };
			for (int j = 0; v && j < k->nopt; j++)
				if (!strcmp(k->opt[j], cases[i].other))
					c.opt[k - s->dec] = j;
			char *text = NULL, *what = NULL;
			KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
			assert_non_null(strstr(text, v ? cases[i].text1 :
			                       cases[i].text0));
			free(text);
			free(what);
		}
		krl_opt_free(o);
		krl_task_free(t);
	}
}

/* lib.rnn: the recurrent layers' recurrence= (cuDNN's algorithm and
 * forward mode), offered where a task has an lstm or gru call, inference
 * mode first; each option writes its word on every recurrent call (the
 * reference's `standard` writes none) and says so in the what-line. A
 * network without one does not offer it. */
/* lib.layout=nhwc_xy: offered where a convolution's output reaches
 * another's x (ResNet-18: conv, batch norm, ReLU, conv), not where each
 * convolution ends its chain (level 2's 1); its candidate has every
 * convolution but the first read x channels-last (the first reads the
 * task's input, the stem's pool writes channels-last), and the same
 * choice with nhwc_y has none. */
static int layout_words(const char *text, const char *word)
{
	int n = 0;
	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
		n++;
	return n;
}

static void layout_across_layers(void **state)
{
	(void)state;
	krl_diag d = { 0 };
	krl_task *t = load("level3/9_resnet18");
	krl_opt *o = NULL;
	KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
	const krl_space *s = krl_opt_space(o);
	const krl_decision *k = find(s, "lib.layout");
	assert_non_null(k);
	assert_int_equal(k->nopt, 4);
	assert_string_equal(k->opt[3], "nhwc_xy");
	static const char *const words[2] = { "nhwc_y", "nhwc_xy" };
	for (int w = 0; w < 2; w++) {
		krl_choice c = { { 0 } };
		c.opt[k - s->dec] = w ? 3 : 2;
		assert_string_equal(k->opt[c.opt[k - s->dec]], words[w]);
		char *text = NULL, *what = NULL;
		KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
		assert_int_equal(layout_words(text, " layout=nhwc_xy\n"),
		                 w ? 19 : 0);
		assert_int_equal(layout_words(text, " layout=nhwc_y\n"),
		                 w ? 1 : 20);
		if (w) {
			assert_non_null(strstr(what, "19 reading x channels-last"));
			assert_non_null(strstr(what, "15 writing channels-last"));
		}
		free(text);
		free(what);
	}
	krl_opt_free(o);
	krl_task_free(t);
	t = load("level2/1_conv2d_relu_biasadd");
	KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
	k = find(krl_opt_space(o), "lib.layout");
	assert_non_null(k);
	assert_int_equal(k->nopt, 3);
	for (int j = 0; j < k->nopt; j++)
		assert_string_not_equal(k->opt[j], "nhwc_xy");
	krl_opt_free(o);
	krl_task_free(t);
}

/* Plan lines starting "launch " in text. */
static int launches(const char *text)
{
	int n = 0;
	for (const char *p = strstr(text, "\nlaunch "); p;
	     p = strstr(p + 1, "\nlaunch "))
		n++;
	return n;
}

/* The gate, found in the three lines of text before p. */
static const char *gate_before(const char *text, const char *p,
                               const char *gate)
{
	const char *b = p;
	int lines = 0;
	while (b > text && lines < 3)
		if (*--b == '\n')
			lines++;
	const char *g = strstr(b, gate);
	assert_non_null(g);
	assert_true(g < p);
	return g;
}

/* What the simulator cannot see (its blocks run one after another, so
 * a tail run by every block ends as if run by the last): every folded
 * call and every group tail sits behind its ticket's gate, the tickets
 * are declared and the plan's first launch zeroes them. */
static void tails_gated(const char *text)
{
	static const char gate[] = "if (!krl_tail_last(p_krl_tk + ";
	int calls = 0;
	for (const char *p = strstr(text, "_col_tail(threadIdx.x + 32 * "
	                            "threadIdx.y"); p;
	     p = strstr(p + 1, "_col_tail(threadIdx.x + 32 * threadIdx.y")) {
		/* the two lines before: the gate and its return */
		const char *g = gate_before(text, p, gate);
		assert_non_null(strstr(g, "return;"));
		assert_true(strstr(g, "return;") < p);
		calls++;
	}
	assert_true(calls > 0);
	/* each group tail's gate comes before its partials are read */
	for (const char *p = strstr(text, "const volatile double *krl_pp"); p;
	     p = strstr(p + 1, "const volatile double *krl_pp")) {
		gate_before(text, p, gate);
	}
	assert_non_null(strstr(text, "\nbuffer krl_tk i32 ["));
	const char *first = strstr(strstr(text, "@plan"), "\nlaunch ");
	assert_non_null(first);
	assert_int_equal(strncmp(first, "\nlaunch krl_tail_zero ", 22), 0);
	const char *init = strstr(text, "\ninit\n");
	assert_true(!init || strstr(init, "\nend\n") < first);
}

/* row.tail on ResNet-18 at kb1: each batch norm's statistics are one
 * kernel (the out kernel's work in the group tails, the column kernel
 * over the batch folded into the last of them) under nhwc_xy, and the
 * row kernel with the column kernel folded in under nchw; one zeroing
 * launch for the tickets. */
static void row_tails(void **state)
{
	(void)state;
	krl_diag d = { 0 };
	krl_task *t = load("level3/9_resnet18");
	krl_opt *o = NULL;
	KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
	const krl_space *s = krl_opt_space(o);
	const krl_decision *k = find(s, "row.tail"), *l = find(s, "lib.layout");
	assert_non_null(k);
	assert_non_null(l);
	assert_string_equal(k->opt[0], "on");
	int n[2][2];
	for (int xy = 0; xy < 2; xy++)
		for (int on = 0; on < 2; on++) {
			krl_choice c = { { 0 } };
			c.opt[l - s->dec] = xy ? 3 : 0;
			c.opt[k - s->dec] = on ? 0 : 1;
			char *text = NULL, *what = NULL;
			KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
			n[xy][on] = launches(text);
			assert_true(!strstr(text, "krl_tail_zero") == !on);
			assert_true(!strstr(text, "_tail(int krl_vt") == !on);
			if (on)
				tails_gated(text);
			if (on && xy)
				assert_non_null(strstr(what, "21 writing outputs in a "
				                       "tail"));
			free(text);
			free(what);
		}
	/* 20 batch norms: nchw loses the column kernel of each, nhwc_xy the
	 * out kernel too (and the final average pool's kernel: 21 in
	 * all); one launch zeroes the tickets */
	assert_int_equal(n[0][1], n[0][0] - 20 + 1);
	assert_int_equal(n[1][1], n[1][0] - 41 + 1);
	krl_opt_free(o);
	krl_task_free(t);
}

static void rnn_recurrence(void **state)
{
	(void)state;
	static const char *const want[] = { "infer", "persist", "small_h",
	                                    "standard" };
	static const struct { const char *id; int calls; } cases[] = {
		{ "level3/35_lstm", 1 }, { "level3/41_gru_bidirectional", 1 },
		{ "level3/39_gru", 1 },
	};
	krl_diag d = { 0 };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		krl_task *t = load(cases[i].id);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		const krl_space *s = krl_opt_space(o);
		const krl_decision *k = find(s, "lib.rnn");
		assert_non_null(k);
		assert_int_equal(k->nopt, 4);
		for (int j = 0; j < 4; j++) {
			assert_string_equal(k->opt[j], want[j]);
			krl_choice c = { { 0 } };
			c.opt[k - s->dec] = j;
			char *text = NULL, *what = NULL, word[64];
			KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d),
			              &d);
			snprintf(word, sizeof word, " recurrence=%s\n", want[j]);
			if (j < 3) {
				assert_non_null(strstr(text, word));
				snprintf(word, sizeof word, "(recurrence %s)",
				         want[j]);
				assert_non_null(strstr(what, word));
			} else {
				assert_null(strstr(text, "recurrence="));
			}
			free(text);
			free(what);
		}
		krl_opt_free(o);
		krl_task_free(t);
	}
	krl_task *t = load("level3/1_mlp");
	krl_opt *o = NULL;
	KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
	assert_null(find(krl_opt_space(o), "lib.rnn"));
	krl_opt_free(o);
	krl_task_free(t);
}

/* math: offered where a pointwise op has a fast text (pwop.c), the
 * accurate texts first (fast is not timed yet); the choice reaches the
 * device code (87's mish: exp and tanh; 23's softmax: the online sum's
 * exp; 91's divisions as __fdividef), and the helper krl_tanh_fast comes
 * with it. */
static void math_offered(void **state)
{
	(void)state;
	static const struct {
		const char *id, *first;     /* NULL: not offered */
		const char *fast, *precise; /* text under each */
	} cases[] = {
		{ "level2/5_convtranspose2d_subtract_tanh", "precise",
		  "krl_tanh_fast(", "tanhf(" },
		/* its mish is one exp and a division (tanh_softplus) */
		{ "level2/87_conv2d_subtract_subtract_mish", "precise",
		  "__expf(", "expf(" },
		{ "level1/23_softmax", "precise", "__expf(", "expf(" },
		/* the softmax's quotient and the sigmoid's: div.full */
		{ "level2/91_convtranspose2d_softmax_biasadd_scaling_sigmoid",
		  "precise", "__fdividef(1.f, 1.f + __expf(", "expf(" },
		{ "level1/19_relu", NULL, NULL, NULL },
	};
	krl_diag d = { 0 };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		krl_task *t = load(cases[i].id);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		const krl_space *s = krl_opt_space(o);
		const krl_decision *ma = find(s, "math");
		if (!cases[i].first) {
			assert_null(ma);
			krl_opt_free(o);
			krl_task_free(t);
			continue;
		}
		assert_non_null(ma);
		assert_string_equal(ma->opt[0], cases[i].first);
		for (int j = 0; j < 2; j++) {
			krl_choice c = { { 0 } };
			c.opt[ma - s->dec] = j;
			int fast = !strcmp(ma->opt[j], "fast");
			char *text = NULL, *what = NULL;
			KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
			if (fast) {
				assert_non_null(strstr(text, cases[i].fast));
			} else {
				assert_non_null(strstr(text, cases[i].precise));
				assert_null(strstr(text, "__expf("));
				assert_null(strstr(text, "krl_tanh_fast"));
				assert_null(strstr(text, "__fdividef("));
			}
			free(text);
			free(what);
		}
		krl_opt_free(o);
		krl_task_free(t);
	}
}

/* No task of the suite fills the decision space (add_decision drops what
 * comes past KRL_MAX_DECISIONS, silently: a dropped conv.dw or perm.impl
 * would change what a default runs). The largest, level 3's 15, 16 and
 * 26, had 22 in the thirteenth session, when the cap went from 24 to
 * 32. */
static void no_task_fills_the_space(void **state)
{
	(void)state;
	krl_suite *su = NULL;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_suite_load(NULL, &su, &d), &d);
	int most = 0, counted = 0;
	for (int i = 0; i < su->n; i++) {
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_suite_load_task(su, su->ids[i], &t, &d), &d);
		krl_opt *o = NULL;
		const char *set = krl_task_shapeset(t, "kb1") ? "kb1" : "tiny";
		if (krl_opt_create(t, set, &o, &d) == KRL_OK) {
			const krl_space *s = krl_opt_space(o);
			if (s->ndec >= KRL_MAX_DECISIONS)
				fail_msg("%s: %d decisions, the space holds %d",
				         su->ids[i], s->ndec, KRL_MAX_DECISIONS);
			if (s->ndec > most)
				most = s->ndec;
			counted++;
			krl_opt_free(o);
		}
		krl_task_free(t);
	}
	krl_suite_free(su);
	assert_true(counted > 200);
	assert_true(most > 10);
}

/* conv.tiles: offered where a convolution takes the implicit GEMM's
 * gather form, 4 position tiles a block first where every such one has
 * at most 32 output channels (its channel tile at most 32), 1 where it
 * has more; not offered where the halo form takes the convolution. The
 * chosen count reaches the kernel's template and the grid. */
static void conv_tiles_pay_rule(void **state)
{
	(void)state;
	static const struct {
		const char *id, *first; /* the task; conv.tiles' option 0, or
		                         * NULL: not offered */
		const char *text, *grid;
	} cases[] = {
		{ "level2/21_conv2d_add_scale_sigmoid_groupnorm", "4",
		  "conv_entry<32, 128, 16, 32, 1, 3, 3, false, false, 4>",
		  "cdiv(1 * (oh) * (ow), 512)" },
		{ "level2/87_conv2d_subtract_subtract_mish", "1",
		  "conv_entry<64, 128, 32, 32, 1, 3, 3, false, false, 1>",
		  "cdiv(1 * (oh) * (ow), 128)" },
		{ "level2/24_conv3d_min_softmax", "4", ", 4>(x, w, cb", NULL },
		{ "level2/1_conv2d_relu_biasadd", NULL, NULL, NULL },
	};
	krl_diag d = { 0 };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		krl_task *t = load(cases[i].id);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		const krl_space *s = krl_opt_space(o);
		const krl_decision *ct = find(s, "conv.tiles");
		if (!cases[i].first) {
			assert_null(ct);
		} else {
			assert_non_null(ct);
			assert_int_equal(ct->nopt, 3);
			assert_string_equal(ct->opt[0], cases[i].first);
			krl_choice c = { { 0 } };
			const krl_decision *ci = find(s, "conv.impl");
			assert_non_null(ci);
			assert_string_equal(ci->opt[0], "igemm");
			char *text = NULL, *what = NULL;
			KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
			assert_non_null(strstr(text, cases[i].text));
			if (cases[i].grid)
				assert_non_null(strstr(text, cases[i].grid));
			free(text);
			free(what);
		}
		krl_opt_free(o);
		krl_task_free(t);
	}
}

/* Library-only tasks offer no schedule knobs for kernels they lack, and
 * the library's algorithm where it has a choice. */
static void library_tasks(void **state)
{
	(void)state;
	krl_task *t = load("level1/54_conv3d");
	krl_opt *o = NULL;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
	const krl_space *s = krl_opt_space(o);
	assert_null(find(s, "row.strategy"));
	assert_null(find(s, "map.vec"));
	assert_null(find(s, "fuse"));
	krl_choice c = { { 0 } };
	char *text = NULL, *what = NULL;
	/* conv.impl: the pay rule puts the implicit GEMM first for a 3-d
	 * convolution over 3 channels, so the default is that kernel; the
	 * rest of this test is about the library's call (lib) */
	const krl_decision *ci = find(s, "conv.impl");
	assert_non_null(ci);
	assert_int_equal(ci->nopt, 2);
	assert_string_equal(ci->opt[0], "igemm");
	assert_string_equal(ci->opt[1], "lib");
	KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
	assert_null(strstr(text, "call conv("));
	assert_non_null(strstr(text, "launch k0_conv "));
	assert_non_null(strstr(text, "conv_entry<64, 128, 32, 32, 3, 3, 3, false, false, 1>"));
	assert_non_null(strstr(what, "1 conv (implicit GEMM, TF32)"));
	free(text);
	free(what);
	c.opt[ci - s->dec] = 1;
	KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
	assert_non_null(strstr(text, "call conv("));
	assert_null(strstr(text, " algo=")); /* the choice line has lib.algo=0 */
	free(text);
	free(what);

	/* The library's algorithm: option 0 is its first choice (the
	 * reference's, no attribute written), K > 0 writes algo=K. */
	const krl_decision *al = find(s, "lib.algo");
	assert_non_null(al);
	assert_int_equal(al->nopt, 4);
	assert_string_equal(al->opt[0], "0");
	c.opt[al - s->dec] = 2;
	KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
	assert_non_null(strstr(text, "call conv("));
	assert_non_null(strstr(text, " algo=2\n"));
	assert_non_null(strstr(what, "(algo 2)"));
	free(text);
	free(what);

	/* The layout cuDNN runs on: option 0 (nchw) writes nothing, as the
	 * reference; nhwc writes layout=nhwc, with algo when both are
	 * chosen; nhwc_y writes layout=nhwc_y only where generated kernels
	 * read the output, so here (the task's output) layout=nhwc. The
	 * weight, a param, is kept channels-last by the plan's init
	 * (w_layout=krsc). */
	const krl_decision *lay = find(s, "lib.layout");
	assert_non_null(lay);
	assert_int_equal(lay->nopt, 3);
	assert_string_equal(lay->opt[0], "nchw");
	assert_string_equal(lay->opt[1], "nhwc");
	assert_string_equal(lay->opt[2], "nhwc_y");
	c.opt[lay - s->dec] = 2;
	KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
	assert_non_null(strstr(text, " algo=2 layout=nhwc\n"));
	free(text);
	free(what);
	c.opt[lay - s->dec] = 1;
	KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
	assert_non_null(strstr(text, " w_layout=krsc algo=2 layout=nhwc\n"));
	assert_non_null(strstr(text, "launch krl_wkrsc "));
	assert_non_null(strstr(what, "(algo 2, layout nhwc; 1 weight kept "
	                       "channels-last)"));
	free(text);
	free(what);
	c.opt[al - s->dec] = 0;
	KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
	assert_null(strstr(text, " algo="));
	assert_non_null(strstr(text, " layout=nhwc\n"));
	assert_non_null(strstr(what, "(layout nhwc; 1 weight kept "
	                       "channels-last)"));
	free(text);
	free(what);
	krl_opt_free(o);
	krl_task_free(t);

	/* Transposed convolutions go to cuDNN too. */
	t = load("level1/57_conv_transpose2d");
	KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
	assert_non_null(find(krl_opt_space(o), "lib.layout"));
	krl_opt_free(o);
	krl_task_free(t);

	/* A depthwise convolution runs kernelrl's one kernel: no choice. */
	t = load("level1/82_conv_depthwise2d");
	KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
	assert_null(find(krl_opt_space(o), "lib.algo"));
	assert_null(find(krl_opt_space(o), "lib.layout"));
	krl_opt_free(o);
	krl_task_free(t);

	/* A GEMM: the heuristic index applies to the cuBLASLt call. */
	t = load("level1/1_square_matmul");
	KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
	s = krl_opt_space(o);
	const krl_decision *impl = find(s, "gemm.impl");
	al = find(s, "lib.algo");
	assert_non_null(impl);
	assert_non_null(al);
	memset(&c, 0, sizeof c);
	for (int j = 0; j < impl->nopt; j++)
		if (!strcmp(impl->opt[j], "lib"))
			c.opt[impl - s->dec] = j;
	c.opt[al - s->dec] = 3;
	/* cuBLASLt has no layout choice */
	assert_null(find(s, "lib.layout"));
	KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
	assert_non_null(strstr(text, "call gemm("));
	assert_non_null(strstr(text, " algo=3\n"));
	free(text);
	free(what);
	krl_opt_free(o);
	krl_task_free(t);
}

/* gemm.impl is offered on every GEMM the 3xTF32 kernel may replace, by
 * the ops' caps: gemm and linear (level 2's nn.Linear). The pay rule
 * (gemm_tiles_pay) makes 3xtf32 the default where the GEMM fills the GPU
 * with 128 x 128 tiles (kb1's 1024 x 8192 x 8192; 119 of them, a wave
 * within 10%, in a task of the fp32 tier) and the library call elsewhere
 * (tiny, kb0's 128-row GEMMs). A linear counts as a GEMM in the
 * features. */
static void gemm_impl_on_linear(void **state)
{
	(void)state;
	static const struct {
		const char *task, *set, *dflt;
	} cases[] = {
		{ "level2/12_gemm_multiply_leakyrelu", "kb1", "3xtf32" },
		{ "level2/12_gemm_multiply_leakyrelu", "kb0", "lib" },
		{ "level2/12_gemm_multiply_leakyrelu", "tiny", "lib" },
		{ "level2/29_matmul_mish_mish", "kb1", "3xtf32" },
		/* 128 x 16384: 128 tiles, fewer than the H200's 132 SMs,
		 * but within 10% of a wave, and an fp32-tier task (cuBLASLt
		 * on the FMA units) */
		{ "level2/68_matmul_min_subtract", "kb1", "3xtf32" },
		/* level 3's MLP: 16384 x 16384 weights over 128 rows */
		{ "level3/1_mlp", "kb1", "3xtf32" },
		{ "level3/1_mlp", "kb0", "lib" },
		{ "level2/22_matmul_scale_residualadd_clamp_logsumexp_mish", "kb1",
		  "3xtf32" },
		/* a bias-free Linear is a gemm with tb=1 */
		{ "level2/76_gemm_add_relu", "kb1", "3xtf32" },
		{ "level2/76_gemm_add_relu", "tiny", "lib" },
		{ "level1/1_square_matmul", "kb1", "3xtf32" },
	};
	krl_diag d = { 0 };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		krl_task *t = load(cases[i].task);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, cases[i].set, &o, &d), &d);
		const krl_space *s = krl_opt_space(o);
		const krl_decision *impl = find(s, "gemm.impl");
		if (!impl)
			printf("%s at %s: no gemm.impl\n", cases[i].task,
			       cases[i].set);
		assert_non_null(impl);
		assert_int_equal(impl->nopt, 2);
		assert_string_equal(impl->opt[0], cases[i].dflt);
		assert_non_null(find(s, "lib.algo"));
		const char *names[KRL_MAX_FEATURES];
		double v[KRL_MAX_FEATURES];
		int n = krl_opt_features(o, names, v, KRL_MAX_FEATURES);
		for (int k = 0; k < n; k++) {
			if (!strcmp(names[k], "has_gemm"))
				assert_true(v[k] == 1);
			if (!strcmp(names[k], "has_lib_other") &&
			    strstr(cases[i].task, "level2/12"))
				assert_true(v[k] == 0);
		}
		krl_opt_free(o);
		krl_task_free(t);
	}
	/* no GEMM, no decision */
	krl_task *t = load("level1/23_softmax");
	krl_opt *o = NULL;
	KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
	assert_null(find(krl_opt_space(o), "gemm.impl"));
	krl_opt_free(o);
	krl_task_free(t);
}

/* A GEMM of 128 tiles (128 x 16384) pays in a task of the fp32 tier
 * (119 tiles, a wave within 10%, are enough) and not under `precision
 * tf32` (cuBLASLt runs TF32 on the tensor cores there); a task with GEMMs
 * that pay and GEMMs that do not (31) gets `mixed` first. */
static void gemm_impl_wave_by_tier(void **state)
{
	(void)state;
	static const char *const texts[2] = {
		"task t\nsource \"test\"\n"
		"shapes kb0 m=128 n=16384 k=1024\nshapes kb1 m=128 n=16384 k=1024\n"
		"shapes tiny m=3 n=5 k=4\n"
		"input a f32 [m, k] normal(0, 1)\ninput b f32 [k, n] normal(0, 1)\n"
		"output y f32 [m, n]\ntolerance atol=1e-4 rtol=1e-4\nbytes 8\n"
		"flops 1\nplan\n  call gemm(a, b) -> y\nend\n",
		"task t\nsource \"test\"\n"
		"shapes kb0 m=128 n=16384 k=1024\nshapes kb1 m=128 n=16384 k=1024\n"
		"shapes tiny m=3 n=5 k=4\n"
		"input a f32 [m, k] normal(0, 1)\ninput b f32 [k, n] normal(0, 1)\n"
		"output y f32 [m, n]\ntolerance atol=1e-4 rtol=1e-4\nbytes 8\n"
		"flops 1\nprecision tf32\nplan\n  call gemm(a, b) -> y\nend\n",
	};
	static const char *const want[2] = { "3xtf32", "lib" };
	for (int i = 0; i < 3; i++) {
		if (i == 2) {
			/* 31: the score product pays, the product with v's 32
			 * columns does not: each by its own rule, first */
			krl_diag d = { 0 };
			krl_task *t = load("level3/31_vision_attention");
			krl_opt *o = NULL;
			KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
			const krl_decision *impl = find(krl_opt_space(o),
			                                "gemm.impl");
			assert_non_null(impl);
			assert_int_equal(impl->nopt, 3);
			assert_string_equal(impl->opt[0], "mixed");
			krl_opt_free(o);
			krl_task_free(t);
			break;
		}
		krl_diag d = { 0 };
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_task_parse("wave.task", texts[i],
		                             strlen(texts[i]), &t, &d), &d);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		const krl_decision *impl = find(krl_opt_space(o), "gemm.impl");
		assert_non_null(impl);
		assert_string_equal(impl->opt[0], want[i]);
		krl_opt_free(o);
		krl_task_free(t);
	}
}

/* lib.tconv: offered exactly for the transposed convolutions whose every
 * spatial dim has stride 1 or a dilation that is a multiple of it, with no
 * groups in the way (the forward weight is per group); fwd writes the
 * flipped weight in init and a forward call, plus a scatter kernel when a
 * stride is above 1. (Their values: the CPU stand-in test.) */
static void transposed_conv_as_forward(void **state)
{
	(void)state;
	static const char *const yes[] = {
		"level1/57_conv_transpose2d", "level1/58_conv_transpose3d_asym",
		"level1/61_conv_transpose3d", "level1/64_conv_transpose1d",
		"level1/65_conv_transpose2d_asym_kernel",
		"level1/68_conv_transpose3d_asym_kernel",
		"level1/69_conv_transpose2d_asym",
		"level1/70_conv_transpose3d_asym_input",
		"level1/71_conv_transpose2d_asym_input",
		"level1/74_conv_transpose1d_dilated",
		"level1/77_conv_transpose3d_padded_dilated_strided",
		"level1/78_conv_transpose2d_padded",
		"level1/79_conv_transpose1d_padded_strided_dilated", NULL,
	};
	/* stride 2 with dilation 1 (72, 73), stride 3 along w with
	 * dilation 1 (75), stride 5 with dilation 2 (81): several
	 * sub-kernels; and a forward convolution */
	static const char *const no[] = {
		"level1/72_conv_transpose3d_strided_grouped",
		"level1/73_conv_transpose3d_strided_padded_grouped",
		"level1/75_conv_transpose2d_strided_grouped_dilated",
		"level1/81_conv_transpose2d_dilated_padded_strided",
		"level1/54_conv3d", NULL,
	};
	krl_diag d = { 0 };
	for (int i = 0; yes[i]; i++) {
		krl_task *t = load(yes[i]);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		const krl_space *s = krl_opt_space(o);
		const krl_decision *tc = find(s, "lib.tconv");
		assert_non_null(tc);
		assert_int_equal(tc->nopt, 2);
		assert_string_equal(tc->opt[0], "dgrad");
		assert_string_equal(tc->opt[1], "fwd");
		krl_choice c = { { 0 } };
		char *text = NULL, *what = NULL;
		KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
		assert_non_null(strstr(text, "call conv_transpose("));
		assert_null(strstr(text, "init\n"));
		free(text);
		free(what);
		c.opt[tc - s->dec] = 1;
		KRL_ASSERT_OK(krl_opt_generate(o, &c, &text, &what, &d), &d);
		assert_null(strstr(text, "call conv_transpose("));
		assert_non_null(strstr(text, "derived k0_wf f32 ["));
		assert_non_null(strstr(text, "init\n  # k0"));
		assert_non_null(strstr(text, "launch k0_wflip "));
		assert_non_null(strstr(text, "call conv(x, k0_wf) -> "));
		assert_non_null(strstr(what, "(1 transposed conv as forward)"));
		/* a scatter exactly where a stride is above 1 (77, 79) */
		int strided = strstr(yes[i], "strided") != NULL;
		assert_int_equal(strstr(text, "launch k0_scatter ") != NULL,
		                 strided);
		assert_int_equal(strstr(text, "-> k0_t ") != NULL, strided);
		free(text);
		free(what);
		krl_opt_free(o);
		krl_task_free(t);
	}
	for (int i = 0; no[i]; i++) {
		krl_task *t = load(no[i]);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		assert_null(find(krl_opt_space(o), "lib.tconv"));
		krl_opt_free(o);
		krl_task_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(softmax_space),
		cmocka_unit_test(rules_offered_when_they_match),
		cmocka_unit_test(features_are_stable),
		cmocka_unit_test(choice_round_trip),
		cmocka_unit_test(library_tasks),
		cmocka_unit_test(conv_impl_pay_rule),
		cmocka_unit_test(conv_tiles_pay_rule),
		cmocka_unit_test(math_offered),
		cmocka_unit_test(no_task_fills_the_space),
		cmocka_unit_test(conv_impl_needs_tf32),
		cmocka_unit_test(pool_feeds_channels_last),
		cmocka_unit_test(dw_and_groups_pay_rules),
		cmocka_unit_test(rnn_recurrence),
		cmocka_unit_test(layout_pay_rule),
		cmocka_unit_test(layout_across_layers),
		cmocka_unit_test(row_tails),
		cmocka_unit_test(conv_share_feature),
		cmocka_unit_test(transposed_conv_as_forward),
		cmocka_unit_test(gemm_impl_on_linear),
		cmocka_unit_test(gemm_impl_wave_by_tier),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
