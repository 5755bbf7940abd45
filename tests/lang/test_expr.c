/* Tests of expressions (src/lang/expr.c): the parse tree, precedence,
 * exact integer arithmetic, floats, names, buffer functions and errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "krl/lang.h"
#include "../../src/lang/plan.h"

/* Parses z as one whole expression; returns the parse result. */
static krl_err parse(const char *z, krl_expr **e, krl_diag *d)
{
	krl_tok *t = NULL;
	int n = 0;
	*e = NULL;
	krl_err r = krl_lex("e.task", z, strlen(z), 1, 1, &t, &n, d);
	if (r)
		return r;
	krl_parser p = { t, n, 0, d };
	r = krl_parse_expr(&p, e);
	if (!r && krl_p_peek(&p)->kind != KRL_T_NL)
		r = krl_p_expected(&p, "the end");
	krl_toks_free(t, n);
	if (r) {
		krl_expr_free(*e);
		*e = NULL;
	}
	return r;
}

static const char *const names[] = { "batch", "dim", "eps", "sm_count" };
static const krl_value values[] = {
	{ 0, 16, 16 }, { 0, 1000, 1000 }, { 1, 0, 1e-5 }, { 0, 132, 132 },
};
static const krl_bufshape bufs[] = {
	{ "x", KRL_F32, 2, { 16, 1000 } },
	{ "s", KRL_F32, 0, { 0 } },
};
static const krl_scope scope = { names, values, 4, bufs, 2 };

/* Evaluates z in the test scope. */
static krl_err ev(const char *z, krl_value *v, krl_diag *d)
{
	krl_expr *e;
	krl_err r = parse(z, &e, d);
	if (r)
		return r;
	r = krl_expr_eval(e, &scope, v, d);
	krl_expr_free(e);
	return r;
}

static int64_t ev_int(const char *z)
{
	krl_value v;
	krl_diag d;
	KRL_ASSERT_OK(ev(z, &v, &d), &d);
	assert_false(v.is_float);
	return v.i;
}

static double ev_float(const char *z)
{
	krl_value v;
	krl_diag d;
	KRL_ASSERT_OK(ev(z, &v, &d), &d);
	assert_true(v.is_float);
	return v.f;
}

static void test_tree(void **state)
{
	(void)state;
	krl_expr *e;
	krl_diag d;
	KRL_ASSERT_OK(parse("1 + dim * -2", &e, &d), &d);
	assert_int_equal(e->kind, KRL_EX_BINARY);
	assert_int_equal(e->op, '+');
	assert_int_equal(e->pos.col, 3);
	assert_int_equal(e->lhs->kind, KRL_EX_INT);
	assert_int_equal(e->lhs->ival, 1);
	assert_int_equal(e->rhs->kind, KRL_EX_BINARY);
	assert_int_equal(e->rhs->op, '*');
	assert_int_equal(e->rhs->lhs->kind, KRL_EX_NAME);
	assert_string_equal(e->rhs->lhs->name, "dim");
	assert_int_equal(e->rhs->rhs->kind, KRL_EX_NEG);
	assert_int_equal(e->rhs->rhs->lhs->ival, 2);
	krl_expr_free(e);

	KRL_ASSERT_OK(parse("cdiv(numel(x), 256)", &e, &d), &d);
	assert_int_equal(e->kind, KRL_EX_CALL);
	assert_string_equal(e->name, "cdiv");
	assert_int_equal(e->nargs, 2);
	assert_int_equal(e->args[0]->kind, KRL_EX_CALL);
	assert_string_equal(e->args[0]->args[0]->name, "x");
	assert_int_equal(e->args[1]->ival, 256);
	krl_expr_free(e);

	/* `dim` is a name unless called. */
	KRL_ASSERT_OK(parse("dim(x, -1) + dim", &e, &d), &d);
	assert_int_equal(e->lhs->kind, KRL_EX_CALL);
	assert_int_equal(e->rhs->kind, KRL_EX_NAME);
	krl_expr_free(e);
	krl_expr_free(NULL);
}

static void test_arithmetic(void **state)
{
	(void)state;
	assert_int_equal(ev_int("2 + 3 * 4"), 14);
	assert_int_equal(ev_int("(2 + 3) * 4"), 20);
	assert_int_equal(ev_int("10 - 4 - 3"), 3);
	assert_int_equal(ev_int("-2 * 3"), -6);
	assert_int_equal(ev_int("--5"), 5);
	assert_int_equal(ev_int("7 / 2"), 3);
	assert_int_equal(ev_int("7 % 3"), 1);
	assert_int_equal(ev_int("-7 / 2"), -3); /* truncates */
	assert_int_equal(ev_int("100 / 10 / 5"), 2);
	assert_int_equal(ev_int("1_048_576 * 8192"), 8589934592LL);
	assert_int_equal(ev_int("4611686018427387904 + 4611686018427387903"),
	                 INT64_MAX);
	assert_true(ev_float("1 + 2.5") == 3.5);
	assert_true(ev_float("10 / 4.0") == 2.5);
	assert_true(ev_float("7.5 % 2") == 1.5);
	assert_true(ev_float("-1e-5") == -1e-5);
	assert_true(ev_float("2 * eps") == 2e-5);
}

static void test_names_and_functions(void **state)
{
	(void)state;
	assert_int_equal(ev_int("batch * dim"), 16000);
	assert_int_equal(ev_int("sm_count * 8"), 1056);
	assert_int_equal(ev_int("numel(x)"), 16000);
	assert_int_equal(ev_int("numel(s)"), 1);
	assert_int_equal(ev_int("rank(x) + rank(s)"), 2);
	assert_int_equal(ev_int("dim(x, 0)"), 16);
	assert_int_equal(ev_int("dim(x, 1)"), 1000);
	assert_int_equal(ev_int("dim(x, -1)"), 1000);
	assert_int_equal(ev_int("dim(x, -2)"), 16);
	assert_int_equal(ev_int("cdiv(10, 3)"), 4);
	assert_int_equal(ev_int("cdiv(9, 3)"), 3);
	assert_int_equal(ev_int("cdiv(0, 3)"), 0);
	assert_int_equal(ev_int("cdiv(numel(x), 256)"), 63);
	assert_int_equal(ev_int("min(3, 7)"), 3);
	assert_int_equal(ev_int("max(3, 7)"), 7);
	assert_int_equal(ev_int("min(sm_count * 4, cdiv(numel(x) / 4, 256))"),
	                 16);
	assert_true(ev_float("max(1, 0.5)") == 1.0);
	assert_true(ev_float("min(1, 0.5)") == 0.5);
	assert_true(ev_float("1 / sqrt(1024)") == 0.03125);
	assert_true(ev_float("sqrt(2)") == sqrt(2.0));
}

/* Expects evaluation of z to fail with code r at col, message containing
 * part. */
static void eval_fails(const char *z, krl_err r, int col, const char *part)
{
	krl_value v;
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_err got = ev(z, &v, &d);
	if (got != r || d.pos.col != col || !strstr(d.msg, part))
		fail_msg("'%s': got %d at col %d: %s", z, got, d.pos.col, d.msg);
}

static void test_eval_errors(void **state)
{
	(void)state;
	eval_fails("dim / (batch - 16)", KRL_EINVAL, 5, "division by zero");
	eval_fails("dim % 0", KRL_EINVAL, 5, "division by zero");
	eval_fails("1.5 / 0", KRL_EINVAL, 5, "division by zero");
	eval_fails("dim / -2", KRL_EINVAL, 5, "negative divisor");
	eval_fails("9223372036854775807 + 1", KRL_EINVAL, 21,
	           "integer overflow");
	eval_fails("4294967296 * 4294967296", KRL_EINVAL, 12,
	           "integer overflow");
	eval_fails("0 - 9223372036854775807 - 2", KRL_EINVAL, 25,
	           "integer overflow");
	eval_fails("cdiv(1, 0)", KRL_EINVAL, 1, "division by zero");
	eval_fails("cdiv(1.5, 2)", KRL_EINVAL, 1, "integers");
	eval_fails("sqrt(0 - 4)", KRL_EINVAL, 1, "negative");
	eval_fails("1 + nope", KRL_ENOTFOUND, 5, "unknown name 'nope'");
	eval_fails("x * 2", KRL_EINVAL, 1, "'x' is a buffer");
	eval_fails("numel(y)", KRL_ENOTFOUND, 7, "no buffer named 'y'");
	eval_fails("dim(x, 2)", KRL_EINVAL, 8, "out of range");
	eval_fails("dim(x, -3)", KRL_EINVAL, 8, "out of range");
	eval_fails("dim(x, 0.5)", KRL_EINVAL, 8, "integer index");
}

/* Expects parsing of z to fail at col with a message containing part. */
static void parse_fails(const char *z, int col, const char *part)
{
	krl_expr *e;
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_err got = parse(z, &e, &d);
	if (got != KRL_ESYNTAX || d.pos.col != col || !strstr(d.msg, part))
		fail_msg("'%s': got %d at col %d: %s", z, got, d.pos.col, d.msg);
}

static void test_parse_errors(void **state)
{
	(void)state;
	parse_fails("1 +", 4, "expected an expression, found end of line");
	parse_fails("(1 + 2", 1, "never closed");
	parse_fails("2 * )", 5, "expected an expression, found ')'");
	parse_fails("exp(4)", 1, "unknown function 'exp'");
	parse_fails("dim(x)", 1, "dim() takes 2 arguments, found 1");
	parse_fails("cdiv(1, 2, 3)", 1, "cdiv() takes 2 arguments, found 3");
	parse_fails("numel(2)", 7, "expected a buffer name");
	parse_fails("numel(x + 1)", 7, "buffer name");
	parse_fails("min(1 2)", 7, "expected ',' or ')'");
	parse_fails("1 2", 3, "expected the end");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_arithmetic),
		cmocka_unit_test(test_names_and_functions),
		cmocka_unit_test(test_eval_errors),
		cmocka_unit_test(test_parse_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
