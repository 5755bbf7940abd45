/*
 * Text without silent truncation (src/util/strbuf.c) and mkdir -p
 * (src/util/fs.c): a builder keeps every byte, a fixed field that is too
 * small fails and says so, a path too long is refused, never cut.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "util/fs.h"
#include "util/strbuf.h"

/* printf text far longer than any internal scratch buffer stays whole
 * (the prompt builder once cut each piece at 511 bytes). */
static void builder_keeps_everything(void **state)
{
	(void)state;
	char big[5000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	krl_strbuf b = { 0 };
	krl_strbuf_str(&b, "<");
	krl_strbuf_printf(&b, "%s|%d", big, 42);
	krl_strbuf_add(&b, ">\0z", 3); /* bytes, a NUL included */
	assert_int_equal(b.len, 1 + 4999 + 3 + 3);
	assert_false(b.oom);
	char *z = krl_strbuf_take(&b);
	assert_non_null(z);
	assert_int_equal(z[0], '<');
	assert_int_equal(strspn(z + 1, "x"), 4999);
	assert_memory_equal(z + 5000, "|42>\0z", 7);
	assert_null(b.z);
	free(z);

	/* krl_fmt: the same, in one call */
	z = krl_fmt("%s:%d", big, 7);
	assert_non_null(z);
	assert_int_equal(strlen(z), 4999 + 2);
	assert_string_equal(z + 4999, ":7");
	free(z);

	/* nothing appended: "", not NULL */
	z = krl_strbuf_take(&b);
	assert_non_null(z);
	assert_string_equal(z, "");
	free(z);

	/* an allocation failure is sticky and take says so */
	krl_strbuf_str(&b, "kept");
	b.oom = 1;
	krl_strbuf_str(&b, "lost");
	assert_null(krl_strbuf_take(&b));
	assert_null(b.z);
	krl_strbuf_free(&b); /* on an empty builder: a no-op */
}

static void fixed_field_fails_when_too_small(void **state)
{
	(void)state;
	char buf[16];
	krl_diag d = { 0 };
	assert_int_equal(krl_fmt_fixed(buf, sizeof buf, "the name", &d, "%s/%d",
	                               "abc", 12345), KRL_OK);
	assert_string_equal(buf, "abc/12345");
	/* exactly cap - 1 bytes fit */
	assert_int_equal(krl_fmt_fixed(buf, sizeof buf, "the name", &d, "%s",
	                               "0123456789abcde"), KRL_OK);
	assert_string_equal(buf, "0123456789abcde");
	/* one more does not: nothing is kept, the message says why */
	assert_int_equal(krl_fmt_fixed(buf, sizeof buf, "the run name", &d,
	                               "%s", "0123456789abcdef"), KRL_EINVAL);
	assert_string_equal(buf, "");
	assert_non_null(strstr(d.msg, "the run name is too long"));
	assert_non_null(strstr(d.msg, "16 bytes, at most 15"));
	assert_non_null(strstr(d.msg, "0123456789abcde..."));
	/* d may be NULL */
	assert_int_equal(krl_fmt_fixed(buf, 4, "x", NULL, "%s", "long"),
	                 KRL_EINVAL);
}

/* A diagnostic too long for its buffer ends in "..." (marked, not
 * silently cut). */
static void diag_cut_is_marked(void **state)
{
	(void)state;
	char text[3000];
	memset(text, 'y', sizeof text - 1);
	text[sizeof text - 1] = 0;
	krl_diag d;
	krl_diag_set(&d, KRL_EINVAL, (krl_pos){0}, "%s", text);
	size_t n = strlen(d.msg);
	assert_true(n < sizeof d.msg);
	assert_string_equal(d.msg + n - 3, "...");
	/* one that fits is untouched */
	krl_diag_set(&d, KRL_EINVAL, (krl_pos){0}, "%s", "short");
	assert_string_equal(d.msg, "short");
}

static void mkdirs(void **state)
{
	(void)state;
	char root[] = "/tmp/krl-test-mkdirs-XXXXXX";
	assert_non_null(mkdtemp(root));
	char path[256];
	snprintf(path, sizeof path, "%s/a/b/c", root);
	assert_int_equal(krl_mkdirs(path), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(krl_mkdirs(path), 0); /* existing: fine */
	snprintf(path, sizeof path, "%s/a/b/c/", root);
	assert_int_equal(krl_mkdirs(path), 0); /* trailing slash */

	/* too long: refused, nothing created from a cut path */
	char *lng = malloc(PATH_MAX + 16);
	assert_non_null(lng);
	int k = snprintf(lng, PATH_MAX + 16, "%s/long/", root);
	memset(lng + k, 'z', (size_t)(PATH_MAX + 8 - k));
	lng[PATH_MAX + 8] = 0;
	errno = 0;
	assert_int_equal(krl_mkdirs(lng), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	snprintf(path, sizeof path, "%s/long", root);
	assert_int_equal(stat(path, &st), -1);
	free(lng);

	/* a file in the way */
	snprintf(path, sizeof path, "%s/a/file", root);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(path, sizeof path, "%s/a/file/sub", root);
	assert_int_equal(krl_mkdirs(path), -1);
	assert_int_equal(errno, ENOTDIR);

	snprintf(path, sizeof path, "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builder_keeps_everything),
		cmocka_unit_test(fixed_field_fails_when_too_small),
		cmocka_unit_test(diag_cut_is_marked),
		cmocka_unit_test(mkdirs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
