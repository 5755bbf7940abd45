/* Tests for krl_extract_candidate (src/policy/extract.c): which fenced
 * block is the candidate, and that no input makes it misbehave. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "krl/llm.h"
#include "testutil.h"

/* Extracts from answer and checks the result against want (NULL: expect
 * KRL_ENOTFOUND whose message holds why). */
static void expect(const char *answer, const char *want, const char *why)
{
	char *src = (char *)0x1;
	krl_diag d = { 0 };
	krl_err e = krl_extract_candidate(answer, &src, &d);
	if (want) {
		KRL_ASSERT_OK(e, &d);
		assert_non_null(src);
		assert_string_equal(src, want);
		free(src);
	} else {
		assert_int_equal(e, KRL_ENOTFOUND);
		assert_null(src);
		assert_non_null(strstr(d.msg, why));
	}
}

static void test_plain_block(void **state)
{
	expect("Here it is.\n\n```cuda\n__global__ void k() {}\n```\nDone.\n",
	       "__global__ void k() {}\n", NULL);
}

static void test_prefers_last_block_with_plan(void **state)
{
	const char *a =
		"Analysis... the old one:\n"
		"```cuda\nold();\n/*@plan\nlaunch old grid=(1) block=(1) args()\n@*/\n```\n"
		"The new one:\n"
		"```cuda\nnew();\n/*@plan\nlaunch new grid=(1) block=(1) args()\n@*/\n```\n"
		"And a shell command to run it:\n"
		"```bash\nkrl judge x.cu\n```\n";
	expect(a, "new();\n/*@plan\nlaunch new grid=(1) block=(1) args()\n@*/\n",
	       NULL);
}

static void test_last_block_without_plan(void **state)
{
	expect("```\nfirst\n```\ntext\n~~~ c++\nsecond\n~~~\n", "second\n",
	       NULL);
}

static void test_no_fence(void **state)
{
	expect("I cannot do that.", NULL, "no fenced code block in the answer");
	expect("", NULL, "no fenced code block in the answer");
	expect(NULL, NULL, "no fenced code block");
	/* Code without a fence is not taken. */
	expect("extern \"C\" __global__ void k() {}\n/*@plan\n@*/\n", NULL,
	       "no fenced code block in the answer");
	/* Inline ``` in prose is not a fence (backticks in the info). */
	expect("Use ```x``` and ``y`` here.\n", NULL,
	       "no fenced code block in the answer");
	/* Two backticks are not a fence; four spaces make it code. */
	expect("``\nx\n``\n    ```\n    y\n    ```\n", NULL,
	       "no fenced code block in the answer");
}

static void test_empty_block(void **state)
{
	expect("```cuda\n```\n", NULL, "empty");
	expect("```cuda\n   \n\t\n```\n", NULL, "empty");
	expect("```", NULL, "empty");
}

static void test_unterminated(void **state)
{
	/* A truncated answer: the block runs to the end. */
	expect("text\n```cuda\nvoid k() {\n  x;", "void k() {\n  x;\n", NULL);
	/* A shorter closing fence does not close a longer one. */
	expect("````cuda\na\n```\nb\n````\n", "a\n```\nb\n", NULL);
	/* Nor does a fence of the other character. */
	expect("```\na\n~~~\nb\n```\n", "a\n~~~\nb\n", NULL);
}

static void test_backticks_in_strings(void **state)
{
	const char *a =
		"```cuda\n"
		"const char *s = \"```\";  // not a fence: not at line start\n"
		"/*@plan\n@*/\n"
		"```\n";
	expect(a, "const char *s = \"```\";  // not a fence: not at line start\n"
	          "/*@plan\n@*/\n", NULL);
	/* A closing fence with text after it is not a closing fence. */
	expect("```\na\n``` not closed\nb\n```\n", "a\n``` not closed\nb\n",
	       NULL);
}

static void test_crlf(void **state)
{
	expect("Answer:\r\n```cuda\r\nint a;\r\nint b;\r\n```\r\n",
	       "int a;\nint b;\n", NULL);
	/* A lone CR inside a line stays. */
	expect("```\na\rb\n```\n", "a\rb\n", NULL);
}

static void test_indented_fence(void **state)
{
	/* The fence's indentation is removed from its content lines. */
	expect("1. Code:\n   ```cuda\n   int a;\n     int b;\n int c;\n   ```\n",
	       "int a;\n  int b;\nint c;\n", NULL);
}

static void test_think(void **state)
{
	/* A draft inside the reasoning with a plan loses to the answer. */
	const char *a =
		"<think>\n```cuda\ndraft();\n/*@plan\n@*/\n```\n</think>\n"
		"Final:\n```cuda\nfinal();\n/*@plan\n@*/\n```\n";
	expect(a, "final();\n/*@plan\n@*/\n", NULL);
	/* Without code after the reasoning, the reasoning's block counts. */
	expect("<think>\n```cuda\nonly();\n```\n</think>\nSee above.",
	       "only();\n", NULL);
}

/* Guard pages: every prefix of a tricky answer, each placed right before
 * an unmapped page, so that a read past its NUL faults. */
static void test_guard_page(void **state)
{
	const char *a = "x\r\n ```cu\r\n/*@plan\r\n@*/\r\n  ~~~~\r\n```\r\n";
	long pg = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
	                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + pg, (size_t)pg, PROT_NONE), 0);
	size_t n = strlen(a);
	for (size_t k = 0; k <= n; k++) {
		char *p = map + pg - (k + 1);
		memcpy(p, a, k);
		p[k] = 0;
		char *src = NULL;
		krl_diag d;
		krl_err e = krl_extract_candidate(p, &src, &d);
		assert_true(e == KRL_OK || e == KRL_ENOTFOUND);
		assert_true((e == KRL_OK) == (src != NULL));
		free(src);
	}
	munmap(map, (size_t)pg * 2);
}

/* Random bytes over the fence alphabet never crash and always answer
 * one of the two codes. */
static void test_random(void **state)
{
	static const char alpha[] = "`~ \n\r\tab/*@plan";
	unsigned x = 12345;
	char buf[256];
	for (int round = 0; round < 20000; round++) {
		int n = (int)(x % 200);
		for (int i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = alpha[(x >> 16) % (sizeof alpha - 1)];
		}
		buf[n] = 0;
		x = x * 1103515245u + 12345u;
		char *src = NULL;
		krl_err e = krl_extract_candidate(buf, &src, NULL);
		assert_true(e == KRL_OK || e == KRL_ENOTFOUND);
		if (src)
			assert_true(strlen(src) <= (size_t)n + 1);
		free(src);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_block),
		cmocka_unit_test(test_prefers_last_block_with_plan),
		cmocka_unit_test(test_last_block_without_plan),
		cmocka_unit_test(test_no_fence),
		cmocka_unit_test(test_empty_block),
		cmocka_unit_test(test_unterminated),
		cmocka_unit_test(test_backticks_in_strings),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_indented_fence),
		cmocka_unit_test(test_think),
		cmocka_unit_test(test_guard_page),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
