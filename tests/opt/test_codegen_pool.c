/*
 * The pool family of the program optimizer: max_pool1d/2d/3d and
 * avg_pool1d/2d/3d lowered to POOL nodes (src/opt/lower.c), evaluated by
 * the float64 interpreter (src/opt/interp.c, the golden pooling) as the
 * golden reference computes them, written as pool kernels
 * (src/opt/codegen_pool.c) that compile with NVRTC, and offered with
 * their knobs (src/opt/space.c).
 *
 * Besides level 1's six pooling tasks, tests/data/pool/ holds tasks for
 * the geometries those do not reach: ceil mode, dilation with padding in
 * 3-d, an unbatched input, the index as a task output,
 * count_include_pad=0 and divisor_override (literal and as shape keys),
 * and a pool between two pointwise ops. Whether the kernels compute the
 * golden values on the CPU stand-in is test_codegen_sim.c's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphtest.h"
#include "krl/nvrtc.h"
#include "krl/suite.h"
#include "opt/codegen.h"

static const char *const LEVEL1[] = {
	"level1/41_max_pool1d", "level1/42_max_pool2d", "level1/43_max_pool3d",
	"level1/44_avg_pool1d", "level1/45_avg_pool2d", "level1/46_avg_pool3d",
};

static const char *const GEOMETRIES[] = {
	"tests/data/pool/max1d.task", "tests/data/pool/max2d.task",
	"tests/data/pool/max3d.task", "tests/data/pool/max2d_chw.task",
	"tests/data/pool/avg1d.task", "tests/data/pool/avg2d.task",
	"tests/data/pool/avg3d.task", "tests/data/pool/fused.task",
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static krl_task *load_id(const char *id)
{
	krl_suite *s = NULL;
	krl_diag d = { 0 };
	krl_task *t = NULL;
	KRL_ASSERT_OK(krl_suite_load(NULL, &s, &d), &d);
	KRL_ASSERT_OK(krl_suite_load_task(s, id, &t, &d), &d);
	krl_suite_free(s);
	return t;
}

static krl_task *load_path(const char *path)
{
	krl_diag d = { 0 };
	krl_task *t = NULL;
	KRL_ASSERT_OK(krl_task_load(path, &t, &d), &d);
	return t;
}

static int count_kind(const krl_graph *g, krl_gkind k)
{
	int c = 0;
	for (int i = 0; i < g->nn; i++)
		c += g->n[i].kind == k;
	return c;
}

static int count_str(const char *text, const char *what)
{
	int n = 0;
	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* ==== Lowering ==== */

/* Each level-1 pooling task is one POOL node over the last 1, 2 or 3
 * dims: the op and attributes of the call, the output's dim texts; max
 * pooling's index, written to a scratch buffer nothing reads, is gone. */
static void level1_pools_lower_to_pool_nodes(void **state)
{
	(void)state;
	krl_diag d = { 0 };
	for (size_t i = 0; i < N_OF(LEVEL1); i++) {
		krl_task *t = load_id(LEVEL1[i]);
		krl_graph *g = NULL;
		KRL_ASSERT_OK(krl_graph_lower(t, "kb1", &g, &d), &d);
		assert_int_equal(count_kind(g, KRL_GN_LIB), 0);
		assert_int_equal(count_kind(g, KRL_GN_PROJ), 0);
		assert_int_equal(count_kind(g, KRL_GN_POOL), 1);
		const krl_gnode *y = &g->n[g->out[0]];
		int rank = (int)(i % 3) + 1, avg = i >= 3;
		assert_int_equal(y->kind, KRL_GN_POOL);
		assert_int_equal(y->pool, avg ? KRL_POOL_AVG : KRL_POOL_MAX);
		assert_int_equal(y->dtype, KRL_F32);
		assert_int_equal(y->naxes, rank);
		assert_int_equal(y->axis, y->ndim - rank);
		assert_string_equal(y->op, LEVEL1[i] + 10);
		assert_int_equal(g->n[y->in[0]].kind, KRL_GN_BUF);
		/* the output's dims are the task's texts */
		const krl_decl *out = &t->decls[g->outdecl[0]];
		for (int k = 0; k < y->ndim; k++) {
			char *z = krl_opt_expr_text(out->dim[k]);
			assert_string_equal(y->dim[k].text, z);
			free(z);
		}
		int ks = 0;
		for (int a = 0; a < y->nattrs; a++)
			ks += !strcmp(y->attrs[a].key, "kernel_size");
		assert_int_equal(ks, 1);
		char *z = krl_graph_format(g);
		assert_non_null(strstr(z, avg ? " avg kernel_size=" :
		                          " max kernel_size="));
		free(z);
		krl_graph_free(g);
		krl_task_free(t);
	}
}

/* A max pool whose index is a task output is two nodes over the same
 * input: the values (f32) and the indices (i64). */
static void max_pool_index_is_its_own_node(void **state)
{
	(void)state;
	krl_diag d = { 0 };
	krl_task *t = load_path("tests/data/pool/max2d.task");
	krl_graph *g = NULL;
	KRL_ASSERT_OK(krl_graph_lower(t, "tiny", &g, &d), &d);
	assert_int_equal(g->nout, 2);
	const krl_gnode *y = &g->n[g->out[0]], *ix = &g->n[g->out[1]];
	assert_int_equal(y->kind, KRL_GN_POOL);
	assert_int_equal(ix->kind, KRL_GN_POOL);
	assert_int_equal(y->pool, KRL_POOL_MAX);
	assert_int_equal(ix->pool, KRL_POOL_ARGMAX);
	assert_int_equal(ix->dtype, KRL_I64);
	assert_int_equal(y->in[0], ix->in[0]);
	krl_graph_free(g);
	krl_task_free(t);
}

/* ==== The interpreter ==== */

/* Sets every `every`-th element of each f32 input to NaN (0: none) and
 * runs the golden reference again on them. */
static void with_nans(gt_run *r, int every, krl_diag *d)
{
	if (!every)
		return;
	for (int i = 0; i < r->p->ntask; i++) {
		const krl_buf *b = &r->p->bufs[i];
		if (b->role != KRL_ROLE_INPUT || b->dtype != KRL_F32)
			continue;
		for (int64_t k = 3; k < b->numel; k += every)
			r->bufs[i][k] = NAN;
	}
	KRL_ASSERT_OK(krl_exec_golden(r->p, r->bufs, d), d);
}

/* The graph lowered at kb1 and interpreted at every set gives the golden
 * outputs, values and indices, also with NaNs in the input (max pooling:
 * the window's last NaN wins, as the golden op and PyTorch have it). */
static void geometries_interpret_as_golden(void **state)
{
	(void)state;
	krl_diag d = { 0 };
	static const char *const sets[] = { "tiny", "kb0", "kb1" };
	int checked = 0;
	for (size_t i = 0; i < N_OF(GEOMETRIES) + N_OF(LEVEL1); i++) {
		int lvl1 = i >= N_OF(GEOMETRIES);
		krl_task *t = lvl1 ? load_id(LEVEL1[i - N_OF(GEOMETRIES)])
		                   : load_path(GEOMETRIES[i]);
		const char *id = lvl1 ? LEVEL1[i - N_OF(GEOMETRIES)] : GEOMETRIES[i];
		krl_graph *g = NULL;
		KRL_ASSERT_OK(krl_graph_lower(t, "kb1", &g, &d), &d);
		assert_true(count_kind(g, KRL_GN_POOL) >= 1);
		for (size_t k = 0; k < N_OF(sets); k++) {
			/* level 1's kb0 and kb1 are large: tiny only */
			if (lvl1 && k)
				continue;
			for (int nan = 0; nan <= 13; nan += 13) {
				gt_run r;
				KRL_ASSERT_OK(gt_golden(t, sets[k], 5 + k, &r, &d), &d);
				with_nans(&r, nan, &d);
				int64_t bad = gt_check(g, sets[k], &r, id, &d);
				if (bad)
					printf("%s at %s%s: %lld differ\n", id, sets[k],
					       nan ? " with NaNs" : "", (long long)bad);
				assert_int_equal(bad, 0);
				gt_free(&r);
				checked++;
			}
		}
		krl_graph_free(g);
		krl_task_free(t);
	}
	assert_int_equal(checked, 2 * (3 * N_OF(GEOMETRIES) + N_OF(LEVEL1)));
}

/* A pool node with a geometry the library op refuses (padding above half
 * the window) is refused by the interpreter with the op's sentence. */
static void interp_checks_the_geometry(void **state)
{
	(void)state;
	krl_diag d = { 0 };
	krl_task *t = load_path("tests/data/pool/max2d.task");
	krl_graph *g = NULL;
	KRL_ASSERT_OK(krl_graph_lower(t, "tiny", &g, &d), &d);
	krl_gnode *y = &g->n[g->out[0]];
	int found = 0;
	for (int a = 0; a < y->nattrs; a++) {
		if (strcmp(y->attrs[a].key, "padding"))
			continue;
		krl_expr_free(y->attrs[a].value);
		y->attrs[a].value = calloc(1, sizeof(krl_expr));
		assert_non_null(y->attrs[a].value);
		y->attrs[a].value->kind = KRL_EX_INT;
		y->attrs[a].value->ival = 2;   /* kernel_size is 3 */
		found = 1;
	}
	assert_true(found);
	gt_run r;
	KRL_ASSERT_OK(gt_golden(t, "tiny", 3, &r, &d), &d);
	double **bufs = calloc((size_t)r.p->ntask, sizeof *bufs);
	assert_non_null(bufs);
	for (int i = 0; i < r.p->ntask; i++)
		bufs[i] = r.bufs[i];
	assert_int_equal(krl_graph_interp(g, "tiny", bufs, &d), KRL_EINVAL);
	assert_non_null(strstr(d.msg, "padding=2"));
	free(bufs);
	gt_free(&r);
	krl_graph_free(g);
	krl_task_free(t);
}

/* ==== Code generation ==== */

typedef struct gen {
	krl_opt *o;
	char *text, *what;
} gen;

/* The candidate of t at kb1 with decision name=option for each pair of
 * kv (NULL-terminated); options not named take 0. It must be a valid
 * plan at every set and compile with NVRTC for sm_90a. */
static void generate(const krl_task *t, const char *const *kv, gen *out)
{
	krl_diag d = { 0 };
	memset(out, 0, sizeof *out);
	KRL_ASSERT_OK(krl_opt_create(t, "kb1", &out->o, &d), &d);
	const krl_space *s = krl_opt_space(out->o);
	krl_choice c;
	memset(&c, 0, sizeof c);
	for (int i = 0; kv && kv[i]; i += 2) {
		int hit = 0;
		for (int k = 0; k < s->ndec; k++)
			for (int j = 0; j < s->dec[k].nopt; j++)
				if (!strcmp(s->dec[k].name, kv[i]) &&
				    !strcmp(s->dec[k].opt[j], kv[i + 1])) {
					c.opt[k] = j;
					hit = 1;
				}
		if (!hit)
			fail_msg("no decision %s=%s", kv[i], kv[i + 1]);
	}
	KRL_ASSERT_OK(krl_opt_generate(out->o, &c, &out->text, &out->what, &d),
	              &d);
	/* a valid candidate at every set */
	krl_candidate *cand = NULL;
	KRL_ASSERT_OK(krl_candidate_parse("pool.cu", out->text,
	                                  strlen(out->text), &cand, &d), &d);
	krl_limits lim = krl_limits_sm90();
	static const char *const sets[] = { "tiny", "kb0", "kb1" };
	for (int k = 0; k < 3; k++) {
		krl_program *p = NULL;
		KRL_ASSERT_OK(krl_program_build(t, cand, sets[k], &lim, &p, &d), &d);
		krl_program_free(p);
	}
	krl_candidate_free(cand);
	krl_cubin *cu = NULL;
	krl_err r = krl_nvrtc_compile(out->text, strlen(out->text), "pool.cu",
	                              "sm_90a", krl_cache_dir(), &cu, &d);
	if (r)
		printf("NVRTC: %s\n%s\n", krl_strerror(r),
		       cu && cu->log ? cu->log : d.msg);
	assert_int_equal(r, KRL_OK);
	krl_cubin_free(cu);
}

static void gen_free(gen *x)
{
	free(x->text);
	free(x->what);
	krl_opt_free(x->o);
}

/* 42 at kb1: one pool kernel, values only (the index is never written,
 * nor is its scratch buffer declared), geometry as run-time arguments
 * from the task's names, NaN propagation as the golden's. */
static void max_pool2d_text(void **state)
{
	(void)state;
	krl_task *t = load_id("level1/42_max_pool2d");
	gen x;
	generate(t, NULL, &x);
	assert_non_null(strstr(x.what, "1 op into 1 kernel: 1 pool (block 256, "
	                       "ept 1, inc taps)"));
	assert_non_null(strstr(x.text, "__launch_bounds__(256)\nk0_pool("));
	assert_non_null(strstr(x.text, "launch k0_pool grid="));
	assert_non_null(strstr(x.text, "(kernel_size),\n    (stride),\n    "
	                       "(padding),\n    (dilation),\n    x,\n    y)"));
	assert_non_null(strstr(x.text, "NaN wins"));
	/* in-plane offsets of type I (int unless the plane is huge), the
	 * first tap without a loop, the taps stepped */
	assert_non_null(strstr(x.text, "template <typename I>\nstatic __device__ "
	                       "__forceinline__ void\nk0_pool_walk(long a0,"));
	assert_non_null(strstr(x.text, "if ((IH + reach) * (IW + reach) >= "
	                       "0x80000000l) {"));
	assert_non_null(strstr(x.text, "k0_pool_walk<long>(a0, a1, a2, a3, a4, a5, "
	                       "a6, a7, a8, p_x, p_y);"));
	assert_non_null(strstr(x.text, "{\n\tk0_pool_walk<int>(a0, a1, a2, a3, "
	                       "a4, a5, a6, a7, a8, p_x, p_y);\n}\n"));
	assert_non_null(strstr(x.text, "const I hlo = hs >= 0 ? hs : hs + (dl - 1 "
	                       "- hs) / dl * dl;"));
	assert_null(strstr(x.text, "while"));
	assert_non_null(strstr(x.text, "for (I xh = hlo * nW; xh < hhi * nW; xh "
	                       "+= hstep) {"));
	assert_non_null(strstr(x.text, "for (I xw = xh + wlo; xw < xh + whi; xw "
	                       "+= dl) {"));
	assert_null(strstr(x.text, "call max_pool2d"));
	assert_null(strstr(x.text, "idx"));
	assert_null(strstr(x.text, "buffer "));
	assert_null(strstr(x.text, "long long mi"));
	gen_free(&x);

	/* the knobs: 4 outputs per thread, 128-thread blocks */
	static const char *const knobs[] = { "pool.ept", "4", "pool.block", "128",
		NULL };
	generate(t, knobs, &x);
	assert_non_null(strstr(x.what, "1 pool (block 128, ept 4, inc taps)"));
	assert_non_null(strstr(x.text, "__launch_bounds__(128)"));
	assert_non_null(strstr(x.text, "for (int e = 0; e < 4; e++) {"));
	assert_non_null(strstr(x.text, "const long ow = ow0 + e * 32;"));
	assert_non_null(strstr(x.text, "cdiv((ow), 128) * 32, 128)"));
	gen_free(&x);

	/* pool.taps=mul: the first pool kernel, 64-bit indices multiplied at
	 * every tap */
	static const char *const mul[] = { "pool.taps", "mul", NULL };
	generate(t, mul, &x);
	assert_non_null(strstr(x.what, "1 pool (block 256, ept 1, mul taps)"));
	assert_non_null(strstr(x.text, "hlo += dil;"));
	assert_non_null(strstr(x.text, "const long oh = krl_mod(row, OH);"));
	assert_non_null(strstr(x.text, "for (long iw = wlo; iw < whi; iw += "
	                       "dil) {"));
	assert_null(strstr(x.text, "_walk"));
	gen_free(&x);

	/* fuse=ref: the reference plan, the library call */
	static const char *const ref[] = { "fuse", "ref", NULL };
	generate(t, ref, &x);
	assert_non_null(strstr(x.text, "call max_pool2d(x) -> y, idx"));
	assert_null(strstr(x.text, "launch "));
	gen_free(&x);
	krl_task_free(t);
}

/* The index as a task output: values and indices in one kernel (one
 * window loop); fuse=none splits them. */
static void max_pool_with_index_text(void **state)
{
	(void)state;
	krl_task *t = load_path("tests/data/pool/max3d.task");
	gen x;
	generate(t, NULL, &x);
	assert_non_null(strstr(x.what, "1 pool"));
	assert_non_null(strstr(x.text, "3-d max and its index over windows of "
	                       "x"));
	assert_non_null(strstr(x.text, "long long mi = (tlo * nH + hlo) * nW + "
	                       "wlo; /* the first tap */"));
	assert_non_null(strstr(x.text, "mi = xw;"));
	assert_non_null(strstr(x.text, "for (I xt = tlo * (nH * nW); xt < thi * "
	                       "(nH * nW); xt += tstep) {"));
	assert_non_null(strstr(x.text, "if ((IT + reach) * (IH + reach) * (IW + "
	                       "reach) >= 0x80000000l) {"));
	assert_non_null(strstr(x.text, "p_idx[o] = mi;"));
	assert_non_null(strstr(x.text, "p_y[o] = m;"));
	assert_null(strstr(x.text, "k1_pool"));
	gen_free(&x);

	static const char *const none[] = { "fuse", "none", NULL };
	generate(t, none, &x);
	assert_non_null(strstr(x.what, "split 2 ops into 2 kernels: 2 pool"));
	assert_int_equal(count_str(x.text, "launch k"), 2);
	gen_free(&x);

	/* pool.taps=mul: the index from 64-bit coordinates */
	static const char *const mul[] = { "pool.taps", "mul", NULL };
	generate(t, mul, &x);
	assert_non_null(strstr(x.text, "long long mi = (tlo * IH + hlo) * IW + "
	                       "wlo; /* the first tap */"));
	assert_non_null(strstr(x.text, "mi = xi - xb;"));
	gen_free(&x);
	krl_task_free(t);
}

/* Average pooling's divisor as the attributes say: a literal override,
 * the padded window (count_include_pad, the default), or at run time when
 * they are shape keys. */
static void avg_pool_divisor_text(void **state)
{
	(void)state;
	krl_task *t = load_path("tests/data/pool/avg3d.task");
	gen x;
	generate(t, NULL, &x);
	assert_non_null(strstr(x.text, "const float div = 5.f;"));
	assert_null(strstr(x.text, "dil"));
	gen_free(&x);
	krl_task_free(t);

	t = load_path("tests/data/pool/avg2d.task");
	generate(t, NULL, &x);
	assert_non_null(strstr(x.text, "const float div = (float)((hp - hs) * "
	                       "(wp - ws));"));
	assert_non_null(strstr(x.text, "const float mean = hlo < hhi && wlo < "
	                       "whi ? sum / div : 0.f;"));
	assert_non_null(strstr(x.text, "const I hp = hs + kx < nH + pd ? hs + kx "
	                       ": nH + pd; /* end in the padded input */"));
	assert_non_null(strstr(x.text, "for (I xw = xh + wlo; xw < xh + whi; "
	                       "xw++) {"));
	gen_free(&x);
	krl_task_free(t);

	t = load_path("tests/data/pool/avg1d.task");
	generate(t, NULL, &x);
	assert_non_null(strstr(x.text, "(cip),\n"));
	assert_non_null(strstr(x.text, "(dov),\n"));
	assert_non_null(strstr(x.text, "const float div = divisor_override > 0 ? "
	                       "(float)divisor_override :\n"));
	assert_non_null(strstr(x.text, "count_include_pad ? (float)(wp - ws) : "
	                       "(float)(whi - wlo);"));
	gen_free(&x);
	krl_task_free(t);
}

/* relu, max pool, scale: one kernel, relu at every tap and the scale at
 * every output; no scratch buffer. */
static void fused_prologue_and_epilogue(void **state)
{
	(void)state;
	krl_task *t = load_path("tests/data/pool/fused.task");
	gen x;
	generate(t, NULL, &x);
	assert_non_null(strstr(x.what, "fused 3 ops into 1 kernel: 1 pool"));
	assert_non_null(strstr(x.text, "relu, "));
	assert_non_null(strstr(x.text, "max_pool, "));
	assert_non_null(strstr(x.text, "computed at every tap"));
	assert_non_null(strstr(x.text, "krl_maxf(")); /* relu */
	assert_null(strstr(x.text, "buffer "));
	assert_int_equal(count_str(x.text, "launch k"), 1);
	/* the relu is in the tap loop, the scale after it (in the walk,
	 * after the column strip that the kb1 window takes first) */
	assert_non_null(strstr(x.text, "outputs down a column a thread"));
	const char *loop = strstr(x.text, "for (I xw");
	const char *relu = loop ? strstr(loop, "krl_maxf(") : NULL;
	const char *store = loop ? strstr(loop, "p_y[o] = ") : NULL;
	assert_non_null(loop);
	assert_non_null(store);
	assert_non_null(relu);
	assert_true(loop < relu && relu < store);
	gen_free(&x);
	krl_task_free(t);
}

/* ==== Decisions ==== */

/* Tasks 41-46 offer the pool kernel's knobs and the library (fuse=ref);
 * the feature has_pool is set. */
static void level1_pools_offer_decisions(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_OF(LEVEL1); i++) {
		krl_task *t = load_id(LEVEL1[i]);
		krl_opt *o = NULL;
		krl_diag d = { 0 };
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		const krl_space *s = krl_opt_space(o);
		int seen = 0;
		for (int k = 0; k < s->ndec; k++) {
			const krl_decision *dc = &s->dec[k];
			if (!strcmp(dc->name, "pool.block")) {
				assert_int_equal(dc->nopt, 4);
				assert_string_equal(dc->opt[0], "256");
				seen |= 1;
			} else if (!strcmp(dc->name, "pool.ept")) {
				assert_int_equal(dc->nopt, 3);
				assert_string_equal(dc->opt[0], "1");
				assert_string_equal(dc->opt[2], "4");
				seen |= 2;
			} else if (!strcmp(dc->name, "pool.taps")) {
				/* today's kernel stays reachable: mul */
				assert_int_equal(dc->nopt, 2);
				assert_string_equal(dc->opt[0], "inc");
				assert_string_equal(dc->opt[1], "mul");
				seen |= 8;
			} else if (!strcmp(dc->name, "fuse")) {
				assert_string_equal(dc->opt[0], "full");
				assert_string_equal(dc->opt[2], "ref");
				seen |= 4;
			}
		}
		assert_int_equal(seen, 15);
		const char *names[KRL_MAX_FEATURES];
		double v[KRL_MAX_FEATURES];
		int n = krl_opt_features(o, names, v, KRL_MAX_FEATURES);
		int pool = -1;
		for (int k = 0; k < n; k++)
			if (!strcmp(names[k], "has_pool"))
				pool = k;
		assert_true(pool > 0);
		assert_true(v[pool] == 1);
		krl_opt_free(o);
		krl_task_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(level1_pools_lower_to_pool_nodes),
		cmocka_unit_test(max_pool_index_is_its_own_node),
		cmocka_unit_test(geometries_interpret_as_golden),
		cmocka_unit_test(interp_checks_the_geometry),
		cmocka_unit_test(max_pool2d_text),
		cmocka_unit_test(max_pool_with_index_text),
		cmocka_unit_test(avg_pool_divisor_text),
		cmocka_unit_test(fused_prologue_and_epilogue),
		cmocka_unit_test(level1_pools_offer_decisions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
