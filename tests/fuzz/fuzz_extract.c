/*
 * kernelrl fuzzing: the LLM-answer extractor (krl_extract_candidate,
 * src/policy/extract.c).
 *
 * The input is a model's answer. Whatever it is, the extractor returns
 * KRL_OK with a non-empty candidate that is a copy of bytes of the answer,
 * or KRL_ENOTFOUND with a reason and no candidate; it never reads past the
 * answer (ASan) and never leaks (LSan).
 */
#include <stdint.h>

#include "fuzz.h"
#include "krl/llm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The API takes a C string: cut at the first NUL, as a caller would. */
	char *answer = malloc(size + 1);
	if (!answer)
		return 0;
	memcpy(answer, data, size);
	answer[size] = 0;
	char *src = (char *)(uintptr_t)1;
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_err r = krl_extract_candidate(answer, &src, &d);
	KRL_FUZZ_CHECK(r == KRL_OK || r == KRL_ENOTFOUND);
	if (r == KRL_OK) {
		KRL_FUZZ_CHECK(src != NULL && src[0] != 0);
		KRL_FUZZ_CHECK(strlen(src) <= strlen(answer));
	} else {
		KRL_FUZZ_CHECK(src == NULL);
		KRL_FUZZ_CHECK(d.msg[0] != 0 && memchr(d.msg, 0, sizeof d.msg));
	}
	free(src);
	free(answer);
	return 0;
}
