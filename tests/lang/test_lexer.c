/* Tests of the plan-language tokenizer (src/lang/lexer.c): tokens,
 * positions, statement ends and continuation, numbers, strings, errors. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "../../src/lang/lexer.h"

typedef struct lexed {
	krl_tok *t;
	int n;
	krl_diag d;
	krl_err r;
} lexed;

static lexed lex(const char *z)
{
	lexed L;
	memset(&L, 0, sizeof L);
	L.r = krl_lex("f.task", z, strlen(z), 1, 1, &L.t, &L.n, &L.d);
	return L;
}

/* The token kinds as a string: I ident, N int, F float, S string,
 * A arrow, ; newline, $ eof, punctuation as itself. */
static void kinds(const lexed *L, char *buf)
{
	int k = 0;
	for (int i = 0; i < L->n; i++) {
		switch (L->t[i].kind) {
		case KRL_T_IDENT: buf[k++] = 'I'; break;
		case KRL_T_INT: buf[k++] = 'N'; break;
		case KRL_T_FLOAT: buf[k++] = 'F'; break;
		case KRL_T_STRING: buf[k++] = 'S'; break;
		case KRL_T_ARROW: buf[k++] = 'A'; break;
		case KRL_T_NL: buf[k++] = ';'; break;
		case KRL_T_EOF: buf[k++] = '$'; break;
		case KRL_T_PUNCT: buf[k++] = L->t[i].c; break;
		}
	}
	buf[k] = 0;
}

static void test_tokens_and_positions(void **state)
{
	(void)state;
	lexed L = lex("# header comment\n\ncall relu(x) -> y  # trailing\n"
	              "buffer t f32 [n, 4]\n");
	KRL_ASSERT_OK(L.r, &L.d);
	char k[64];
	kinds(&L, k);
	assert_string_equal(k, "II(I)AI;III[I,N];$");
	/* `call` is line 3 col 1; `->` at col 14; `[` of line 4 at col 15 */
	assert_int_equal(L.t[0].pos.line, 3);
	assert_int_equal(L.t[0].pos.col, 1);
	assert_int_equal(L.t[5].pos.line, 3);
	assert_int_equal(L.t[5].pos.col, 14);
	assert_int_equal(L.t[11].pos.line, 4);
	assert_int_equal(L.t[11].pos.col, 14);
	assert_string_equal(L.t[0].pos.file, "f.task");
	assert_int_equal(L.t[14].ival, 4);
	krl_toks_free(L.t, L.n);
}

static void test_continuation(void **state)
{
	(void)state;
	/* A backslash continues; so does a newline inside ( ) and [ ]. */
	lexed L = lex("launch k grid=(1,\n   2) \\\n  block=(3)\n"
	              "input x f32 [a,\n b]\n");
	KRL_ASSERT_OK(L.r, &L.d);
	char k[64];
	kinds(&L, k);
	assert_string_equal(k, "III=(N,N)I=(N);III[I,I];$");
	assert_int_equal(L.t[9].pos.line, 3); /* block */
	assert_int_equal(L.t[9].pos.col, 3);
	krl_toks_free(L.t, L.n);

	/* Only blanks may follow the backslash. */
	L = lex("a \\ b\n");
	assert_int_equal(L.r, KRL_ESYNTAX);
	assert_int_equal(L.d.pos.line, 1);
	assert_int_equal(L.d.pos.col, 3);
	assert_non_null(strstr(L.d.msg, "continuation"));
	assert_null(L.t);
}

static void test_numbers(void **state)
{
	(void)state;
	lexed L = lex("4096 1_048_576 1.5 1e-5 2.5e+3 0 7E2");
	KRL_ASSERT_OK(L.r, &L.d);
	char k[64];
	kinds(&L, k);
	assert_string_equal(k, "NNFFFNF;$");
	assert_int_equal(L.t[0].ival, 4096);
	assert_int_equal(L.t[1].ival, 1048576);
	assert_true(L.t[2].fval == 1.5);
	assert_true(L.t[3].fval == 1e-5);
	assert_true(L.t[4].fval == 2500.0);
	assert_true(L.t[6].fval == 700.0);
	krl_toks_free(L.t, L.n);

	L = lex("x = 9223372036854775807");
	KRL_ASSERT_OK(L.r, &L.d);
	assert_int_equal(L.t[2].ival, INT64_MAX);
	krl_toks_free(L.t, L.n);

	L = lex("x = 9223372036854775808");
	assert_int_equal(L.r, KRL_ESYNTAX);
	assert_int_equal(L.d.pos.col, 5);
	assert_non_null(strstr(L.d.msg, "64 bits"));

	L = lex("n = 1__000");
	assert_int_equal(L.r, KRL_ESYNTAX);
	assert_int_equal(L.d.pos.col, 6);
	assert_non_null(strstr(L.d.msg, "'_'"));

	L = lex("n = 1000_");
	assert_int_equal(L.r, KRL_ESYNTAX);

	L = lex("n = 12abc");
	assert_int_equal(L.r, KRL_ESYNTAX);
	assert_int_equal(L.d.pos.col, 5);
	assert_non_null(strstr(L.d.msg, "found '12abc'"));
}

static void test_strings(void **state)
{
	(void)state;
	lexed L = lex("source \"a \\\"b\\\" \\\\ # not a comment\"\n");
	KRL_ASSERT_OK(L.r, &L.d);
	assert_int_equal(L.t[1].kind, KRL_T_STRING);
	assert_string_equal(L.t[1].str, "a \"b\" \\ # not a comment");
	krl_toks_free(L.t, L.n);

	L = lex("source \"abc\ndef\"\n");
	assert_int_equal(L.r, KRL_ESYNTAX);
	assert_int_equal(L.d.pos.line, 1);
	assert_int_equal(L.d.pos.col, 8);
	assert_non_null(strstr(L.d.msg, "unterminated string"));

	L = lex("source \"a\\nb\"");
	assert_int_equal(L.r, KRL_ESYNTAX);
	assert_int_equal(L.d.pos.col, 10);
	assert_non_null(strstr(L.d.msg, "'\\n'"));
}

static void test_errors(void **state)
{
	(void)state;
	lexed L = lex("task relu\ninput x f32 [n] normal(0, 1) @\n");
	assert_int_equal(L.r, KRL_ESYNTAX);
	assert_int_equal(L.d.pos.line, 2);
	assert_int_equal(L.d.pos.col, 30);
	assert_string_equal(L.d.msg, "unexpected character '@'");

	/* The unclosed bracket is reported where it opens. */
	L = lex("launch k grid=(1\nblock=(2)\n");
	assert_int_equal(L.r, KRL_ESYNTAX);
	assert_int_equal(L.d.pos.line, 1);
	assert_int_equal(L.d.pos.col, 15);
	assert_non_null(strstr(L.d.msg, "'(' is never closed"));
}

static void test_offset_and_empty(void **state)
{
	(void)state;
	/* A plan inside a comment starts mid-line in the real file. */
	krl_tok *t = NULL;
	int n = 0;
	krl_diag d;
	const char *z = " launch k\n  call f() -> y";
	KRL_ASSERT_OK(krl_lex("c.cu", z, strlen(z), 12, 8, &t, &n, &d), &d);
	assert_int_equal(t[0].pos.line, 12);
	assert_int_equal(t[0].pos.col, 9);
	assert_int_equal(t[3].pos.line, 13);
	assert_int_equal(t[3].pos.col, 3);
	krl_toks_free(t, n);

	lexed L = lex("\n  # only a comment\n\n");
	KRL_ASSERT_OK(L.r, &L.d);
	assert_int_equal(L.n, 1);
	assert_int_equal(L.t[0].kind, KRL_T_EOF);
	char buf[32];
	assert_string_equal(krl_tok_describe(&L.t[0], buf, sizeof buf),
	                    "end of file");
	krl_toks_free(L.t, L.n);
	krl_toks_free(NULL, 0);
}

static void test_parser_helpers(void **state)
{
	(void)state;
	lexed L = lex("dtype float\n");
	KRL_ASSERT_OK(L.r, &L.d);
	krl_diag d;
	krl_parser p = { L.t, L.n, 0, &d };
	assert_true(krl_p_is_word(&p, "dtype"));
	krl_p_next(&p);
	assert_int_equal(krl_p_expected(&p, "a dtype"), KRL_ESYNTAX);
	assert_string_equal(d.msg, "expected a dtype, found 'float'");
	assert_int_equal(d.pos.col, 7);
	krl_p_next(&p);
	assert_int_equal(krl_p_expect(&p, ')'), KRL_ESYNTAX);
	assert_string_equal(d.msg, "expected ')', found end of line");
	KRL_ASSERT_OK(krl_p_eol(&p), &d);
	assert_int_equal(krl_p_peek(&p)->kind, KRL_T_EOF);
	krl_p_next(&p); /* stays on EOF */
	assert_int_equal(krl_p_peek(&p)->kind, KRL_T_EOF);
	krl_toks_free(L.t, L.n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tokens_and_positions),
		cmocka_unit_test(test_continuation),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_offset_and_empty),
		cmocka_unit_test(test_parser_helpers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
