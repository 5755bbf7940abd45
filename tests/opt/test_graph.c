/*
 * The op graph's pieces (src/opt/graph.c, src/opt/pwop.c): the pointwise
 * table, expression texts (printed back from every task's expressions and
 * evaluated again), the node builders' shapes and errors, dead-node
 * removal and copies.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphtest.h"
#include "krl/suite.h"
#include "opt/cgtool.h"

/* ==== The pointwise table ==== */

static void pw_table_is_complete(void **state)
{
	(void)state;
	for (int op = 0; op < KRL_PW_COUNT; op++) {
		const krl_pwinfo *p = krl_pw_info((krl_pwop)op);
		assert_non_null(p);
		assert_non_null(p->name);
		assert_non_null(p->f);
		assert_true(p->nin >= 1 && p->nin <= 3);
		/* Each operand appears in the CUDA text, and no other. */
		for (int q = 0; q < 4; q++) {
			char ph[4] = { '%', (char)('0' + q), 0 };
			if (q < p->nin)
				assert_non_null(strstr(p->cuda, ph));
			else
				assert_null(strstr(p->cuda, ph));
		}
	}
	assert_null(krl_pw_info(KRL_PW_COUNT));
	assert_null(krl_pw_info((krl_pwop)-1));
}

static double f(krl_pwop op, double a, double b, double c)
{
	double x[3] = { a, b, c };
	return krl_pw_info(op)->f(x);
}

static void pw_meanings(void **state)
{
	(void)state;
	assert_true(f(KRL_PW_XLOGY, 0, 0, 0) == 0);
	assert_true(f(KRL_PW_XLOGY, 0, INFINITY, 0) == 0);
	assert_true(isnan(f(KRL_PW_XLOGY, 0, NAN, 0)));
	assert_true(fabs(f(KRL_PW_XLOGY, 2, M_E, 0) - 2) < 1e-15);
	assert_true(f(KRL_PW_SIGN, -3, 0, 0) == -1);
	assert_true(f(KRL_PW_SIGN, 0, 0, 0) == 0);
	assert_true(f(KRL_PW_SIGN, 0.5, 0, 0) == 1);
	assert_true(f(KRL_PW_WHERE, 0, 1, 2) == 2);
	assert_true(f(KRL_PW_WHERE, -1, 1, 2) == 1);
	assert_true(f(KRL_PW_RELU, -1, 0, 0) == 0);
	assert_true(f(KRL_PW_GE, 1, 1, 0) == 1);
	assert_true(f(KRL_PW_GT, 1, 1, 0) == 0);
	assert_true(fabs(f(KRL_PW_SIGMOID, 0, 0, 0) - 0.5) < 1e-15);
	assert_true(f(KRL_PW_RSQRT, 4, 0, 0) == 0.5);
	assert_string_equal(krl_pw_info(KRL_PW_RELU)->cuda, "krl_maxf(%0, 0.f)");
}

/* ==== Texts ==== */

static void number_and_binary_texts(void **state)
{
	(void)state;
	static const struct { double v; const char *z; } nums[] = {
		{ 2, "2.0" }, { 1e-5, "1e-05" }, { -0.5, "(-0.5)" },
		{ 0.1, "0.1" }, { 0.044715, "0.044715" }, { 1e20, "1e+20" },
	};
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
		char *z = krl_opt_num_text(nums[i].v);
		assert_string_equal(z, nums[i].z);
		krl_scope empty = { 0 };
		krl_value v;
		krl_diag d = { 0 };
		KRL_ASSERT_OK(krl_opt_eval_text(z, &empty, &v, &d), &d);
		assert_true(v.is_float && v.f == nums[i].v);
		free(z);
	}
	assert_null(krl_opt_num_text(NAN));
	double third = 1.0 / 3;
	char *z = krl_opt_num_text(third);
	assert_true(strtod(z, NULL) == third);
	free(z);

	static const struct { const char *a, op, *b, *want; } bins[] = {
		{ "a", '*', "1", "a" }, { "1", '*', "b", "b" },
		{ "n - 1", '*', "m", "(n - 1) * m" }, { "x", '/', "1", "x" },
		{ "1.0", '/', "n * m", "1.0 / (n * m)" }, { "a", '-', "b", "a - b" },
	};
	for (size_t i = 0; i < sizeof bins / sizeof bins[0]; i++) {
		char *s = krl_opt_text_binary(bins[i].a, bins[i].op, bins[i].b);
		assert_string_equal(s, bins[i].want);
		free(s);
	}
	assert_true(krl_opt_text_atomic("batch_size"));
	assert_true(krl_opt_text_atomic("1.5"));
	assert_false(krl_opt_text_atomic("n - 1"));
	assert_false(krl_opt_text_atomic(""));
}

/* Prints e back and checks the text means what e means at tiny. */
static int same_meaning(const krl_expr *e, const krl_scope *sc,
                        const char *where)
{
	krl_value a, b;
	krl_diag d = { 0 };
	char *z = krl_opt_expr_text(e);
	assert_non_null(z);
	krl_err ra = krl_expr_eval(e, sc, &a, &d);
	krl_err rb = krl_opt_eval_text(z, sc, &b, &d);
	int ok = ra == rb && (ra || (a.is_float == b.is_float &&
	                             (a.is_float ? a.f == b.f : a.i == b.i)));
	if (!ok)
		fprintf(stderr, "%s: '%s' differs from its tree\n", where, z);
	/* A copy prints the same. */
	krl_expr *c = krl_opt_expr_copy(e);
	char *zc = c ? krl_opt_expr_text(c) : NULL;
	assert_non_null(zc);
	assert_string_equal(z, zc);
	free(zc);
	krl_expr_free(c);
	free(z);
	return ok;
}

static void every_task_expression_prints_back(void **state)
{
	(void)state;
	krl_suite *s = NULL;
	krl_diag d = { 0 };
	int n = 0, bad = 0;
	KRL_ASSERT_OK(krl_suite_load("tasks", &s, &d), &d);
	for (int i = 0; i < s->n; i++) {
		krl_task *t = NULL;
		krl_opt_scope sc;
		KRL_ASSERT_OK(krl_suite_load_task(s, s->ids[i], &t, &d), &d);
		KRL_ASSERT_OK(krl_opt_scope_init(&sc, t, "tiny", &d), &d);
		for (int k = 0; k < t->nconsts; k++, n++)
			bad += !same_meaning(t->const_vals[k], &sc.scope, s->ids[i]);
		for (int k = 0; k < t->ndecls; k++)
			for (int j = 0; j < t->decls[k].ndim; j++, n++)
				bad += !same_meaning(t->decls[k].dim[j], &sc.scope,
				                     s->ids[i]);
		for (int k = 0; k < t->ref.nbufs; k++)
			for (int j = 0; j < t->ref.bufs[k].ndim; j++, n++)
				bad += !same_meaning(t->ref.bufs[k].dim[j], &sc.scope,
				                     s->ids[i]);
		for (int k = 0; k < t->ref.nbody; k++)
			for (int j = 0; j < t->ref.body[k].nattrs; j++, n++)
				bad += !same_meaning(t->ref.body[k].attrs[j].value,
				                     &sc.scope, s->ids[i]);
		if (t->bytes)
			bad += !same_meaning(t->bytes, &sc.scope, s->ids[i]), n++;
		if (t->flops)
			bad += !same_meaning(t->flops, &sc.scope, s->ids[i]), n++;
		krl_opt_scope_free(&sc);
		krl_task_free(t);
	}
	printf("%d expressions printed back\n", n);
	assert_true(n > 500);
	assert_int_equal(bad, 0);
	krl_suite_free(s);
}

static void eval_text_errors(void **state)
{
	(void)state;
	krl_scope empty = { 0 };
	krl_value v;
	krl_diag d = { 0 };
	assert_int_equal(krl_opt_eval_text("n", &empty, &v, &d), KRL_ENOTFOUND);
	assert_non_null(strstr(d.msg, "'n'"));
	assert_int_equal(krl_opt_eval_text("1 2", &empty, &v, &d), KRL_ESYNTAX);
	assert_int_not_equal(krl_opt_eval_text("(1", &empty, &v, &d), KRL_OK);
	assert_int_equal(krl_opt_eval_text("1 / 0", &empty, &v, &d), KRL_EINVAL);
	KRL_ASSERT_OK(krl_opt_eval_text("7 / 2", &empty, &v, &d), &d);
	assert_true(!v.is_float && v.i == 3);
}

/* ==== Builders ==== */

static const char TASK[] =
	"task t\nsource \"test\"\n"
	"shapes kb0 n=4 m=3\nshapes kb1 n=4 m=3\nshapes tiny n=5 m=7\n"
	"input x f32 [n, m] normal(0, 1)\ninput v f32 [n, 1] normal(0, 1)\n"
	"input i i64 [n] randint(0, 3)\n"
	"output y f32 [n, m]\n"
	"tolerance atol=1e-6 rtol=1e-5\nbytes 8\nflops 1\nplan\n"
	"  call mul_bcast(x, v) -> y\nend\n";

static void builders_shapes_and_errors(void **state)
{
	(void)state;
	krl_task *t = NULL;
	krl_graph *g = NULL;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_task_parse("b.task", TASK, sizeof TASK - 1, &t, &d), &d);
	KRL_ASSERT_OK(krl_graph_lower(t, "tiny", &g, &d), &d);
	const int x = 0, v = 1, ix = 2;
	const krl_gnode *y = &g->n[g->out[0]];
	assert_int_equal(y->kind, KRL_GN_PW);
	assert_string_equal(y->dim[0].text, "n");
	assert_string_equal(y->dim[1].text, "m");

	/* reductions keep "1" or drop the axis */
	int r1, r2, r3;
	KRL_ASSERT_OK(krl_graph_reduce(g, KRL_RED_MAX, x, 1, 1, 1, &r1, &d), &d);
	assert_int_equal(g->n[r1].ndim, 2);
	assert_string_equal(g->n[r1].dim[1].text, "1");
	KRL_ASSERT_OK(krl_graph_reduce(g, KRL_RED_ARGMAX, x, 0, 1, 0, &r2, &d),
	              &d);
	assert_int_equal(g->n[r2].dtype, KRL_I64);
	assert_int_equal(g->n[r2].ndim, 1);
	assert_string_equal(g->n[r2].dim[0].text, "m");
	KRL_ASSERT_OK(krl_graph_reduce(g, KRL_RED_SUM, x, 0, 2, 0, &r3, &d), &d);
	assert_int_equal(g->n[r3].ndim, 0);

	/* broadcasting: [n, 1] with [m] is [n, m]; [n, m] with [n] is an
	 * error that leaves the graph as it was. */
	int nn = g->nn, p;
	int in[2] = { v, r2 };
	KRL_ASSERT_OK(krl_graph_pw(g, KRL_PW_ADD, in, &p, &d), &d);
	assert_string_equal(g->n[p].dim[0].text, "n");
	assert_string_equal(g->n[p].dim[1].text, "m");
	nn = g->nn;
	in[0] = x;
	in[1] = ix;
	assert_int_equal(krl_graph_pw(g, KRL_PW_ADD, in, &p, &d), KRL_EINVAL);
	assert_non_null(strstr(d.msg, "do not broadcast"));
	assert_int_equal(g->nn, nn);

	/* views keep the count; gathers drop the axis */
	krl_gdim flat[1] = { { (char *)"n * m", 35 } };
	int fv, gi;
	KRL_ASSERT_OK(krl_graph_view(g, x, 1, flat, &fv, &d), &d);
	flat[0].val = 34;
	assert_int_equal(krl_graph_view(g, x, 1, flat, &p, &d), KRL_EINVAL);
	KRL_ASSERT_OK(krl_graph_gather(g, x, ix, 1, &gi, &d), &d);
	assert_int_equal(g->n[gi].ndim, 1);
	assert_int_equal(krl_graph_gather(g, x, ix, 0, &p, &d), KRL_EINVAL);
	assert_int_equal(krl_graph_scan(g, KRL_SCAN_SUM, x, 2, 0, 0, &p, &d),
	                 KRL_EINVAL);

	/* the dump names every node */
	char *z = krl_graph_format(g);
	assert_non_null(strstr(z, "reduce argmax axes 0..0 (%0) i64 [m=7]"));
	assert_non_null(strstr(z, "-> y"));
	free(z);

	/* compaction drops what no output reads, keeps buffers */
	krl_graph *c = krl_graph_clone(g);
	int removed = 0;
	KRL_ASSERT_OK(krl_graph_compact(c, &removed), &d);
	assert_int_equal(c->nn, g->nn - removed);
	assert_int_equal(c->nn, 5);   /* x, v, i, y, the product */
	assert_int_equal(c->n[c->out[0]].kind, KRL_GN_PW);
	assert_int_equal(krl_graph_users(c, 0), 1);
	assert_true(krl_graph_is_output(c, c->out[0]));
	krl_graph_free(c);
	krl_graph_free(g);
	krl_task_free(t);
}

/* The code generator's string builder never truncates silently: a size
 * it cannot hold marks it oom (and later appends are ignored), and
 * appending a failed builder to another makes that one fail too, so the
 * failure reaches the builders krl_codegen checks. */
static void string_builder_reports_failure(void **state)
{
	(void)state;
	cg_sb a = { 0 }, b = { 0 };
	cg_sb_printf(&a, "x%d", 1);
	cg_line(&a, 1, "y");
	assert_false(a.oom);
	assert_string_equal(a.z, "x1\ty\n");
	cg_sb_cat(&b, &a);
	assert_false(b.oom);
	assert_string_equal(b.z, "x1\ty\n");

	/* a size that would overflow: oom, nothing written */
	cg_sb big = { 0 };
	big.len = SIZE_MAX / 2 - 2;
	cg_sb_puts(&big, "abcd");
	assert_true(big.oom);
	assert_null(big.z);
	big.len = 0;

	/* a failed builder fails the one it goes into */
	cg_sb_cat(&b, &big);
	assert_true(b.oom);
	size_t n = b.len;
	cg_sb_puts(&b, "more");
	assert_int_equal(b.len, n);
	cg_sb_free(&a);
	cg_sb_free(&b);
	cg_sb_free(&big);
	assert_null(b.z);
	cg_sb_free(&b); /* a zeroed builder: no-op */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(string_builder_reports_failure),
		cmocka_unit_test(pw_table_is_complete),
		cmocka_unit_test(pw_meanings),
		cmocka_unit_test(number_and_binary_texts),
		cmocka_unit_test(every_task_expression_prints_back),
		cmocka_unit_test(eval_text_errors),
		cmocka_unit_test(builders_shapes_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
