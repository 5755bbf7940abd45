/*
 * kernelrl fuzzing: the include rule (krl_srccheck, src/runtime/srccheck.c).
 *
 * The input is a candidate's device source, not NUL-terminated: it is
 * copied into a buffer of exactly its size, so ASan catches a read past
 * len. Whatever the input, the checker returns KRL_OK or KRL_ECOMPILE, and
 * a refusal names the file it was given, a position inside the input
 * (1-based; the column at most one past the end of its line) and a
 * non-empty message of printable ASCII (so valid UTF-8).
 */
#include <stdint.h>

#include "fuzz.h"
#include "krl/srccheck.h"

static const char krl_fuzz_path[] = "fuzz.cu";
static const char *const krl_fuzz_dirs[] = { "/usr/local/cuda/include" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *paths[] = { krl_fuzz_path };
	char *src = malloc(size ? size : 1);
	if (!src)
		return 0;
	memcpy(src, data, size);
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_err r = krl_srccheck(src, size, krl_fuzz_path, krl_fuzz_dirs, 1,
	                         &d);
	KRL_FUZZ_CHECK(r == KRL_OK || r == KRL_ECOMPILE);
	krl_fuzz_check_result(r, &d, paths, 1);
	if (r == KRL_ECOMPILE) {
		KRL_FUZZ_CHECK(d.pos.file == krl_fuzz_path);
		for (const char *m = d.msg; *m; m++)
			KRL_FUZZ_CHECK(*m >= 0x20 && *m < 0x7f);
		/* The line and its length, counted the way the position is. */
		long line = 1, col_max = 1;
		size_t start = 0;
		for (size_t i = 0; i <= size; i++) {
			if (i < size && src[i] != '\n')
				continue;
			if (line == d.pos.line)
				col_max = (long)(i - start) + 1;
			line++;
			start = i + 1;
		}
		KRL_FUZZ_CHECK(d.pos.line >= 1 && d.pos.line < line);
		KRL_FUZZ_CHECK(d.pos.col >= 1 && d.pos.col <= col_max);
	}
	free(src);
	return 0;
}
