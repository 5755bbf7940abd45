/*
 * UTF-8 hygiene (src/util/utf8.c, json.c) and diagnostics cut short
 * (src/util/error.c): text from candidates and compilers, cut or invalid,
 * never makes the JSON encoder drop a message.
 */
#include <string.h>

#include "testutil.h"
#include "util/json.h"
#include "util/utf8.h"

static void cut_at_boundaries(void **state)
{
	(void)state;
	const char *s = "a\xc3\xa9" "b\xe2\x82\xac" "c\xf0\x9f\x98\x80"; /* aébе€c😀 */
	size_t n = strlen(s);
	assert_int_equal(krl_utf8_cut(s, n, n), n);
	assert_int_equal(krl_utf8_cut(s, n, 2), 1);  /* not inside é */
	assert_int_equal(krl_utf8_cut(s, n, 3), 3);
	assert_int_equal(krl_utf8_cut(s, n, 6), 4);  /* not inside € */
	assert_int_equal(krl_utf8_cut(s, n, 7), 7);
	assert_int_equal(krl_utf8_cut(s, n, 10), 8); /* not inside the emoji */
	/* an invalid byte is a character of its own */
	assert_int_equal(krl_utf8_cut("\xff\xff\xff", 3, 2), 2);
}

static void scrub(void **state)
{
	(void)state;
	char a[] = "ok \xc3\xa9 \xff \xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \x1b\x07 tab\tnl\n";
	size_t bad = krl_utf8_scrub(a);
	/* 0xff; overlong C0 AF (2); a surrogate (3); past U+10FFFF (4); ESC,
	 * BEL */
	assert_int_equal(bad, 1 + 2 + 3 + 4 + 2);
	assert_string_equal(a, "ok \xc3\xa9 ? ?? ??? ???? ?? tab\tnl\n");
	json_t *j = krl_json_text("bad \xff byte");
	assert_non_null(j);
	assert_string_equal(json_string_value(j), "bad ? byte");
	json_decref(j);
	j = krl_json_text(NULL);
	assert_string_equal(json_string_value(j), "");
	json_decref(j);
}

/* A message longer than krl_diag's buffer, full of two-byte characters
 * at an odd offset: cut on a character boundary, so JSON keeps it. */
static void diag_cut(void **state)
{
	(void)state;
	char text[3000];
	size_t n = 0;
	text[n++] = 'x';
	while (n + 2 < sizeof text) {
		text[n++] = (char)0xc3;
		text[n++] = (char)0xa9;
	}
	text[n] = 0;
	krl_diag d;
	krl_diag_set(&d, KRL_EINVAL, (krl_pos){0}, "%s", text);
	size_t len = strlen(d.msg);
	assert_true(len < sizeof d.msg);
	assert_int_equal(krl_utf8_cut(d.msg, len, len), len);
	json_t *j = json_string(d.msg);
	assert_non_null(j);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cut_at_boundaries),
		cmocka_unit_test(scrub),
		cmocka_unit_test(diag_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
