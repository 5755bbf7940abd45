/*
 * kernelrl fuzzing: the candidate parser (krl_candidate_parse,
 * src/lang/candidate.c): the scan of the CUDA source for extern "C"
 * __global__ kernels and their parameter types, the plan comment block
 * (slash-star-@plan ... @-star-slash) and the plan language inside it.
 *
 * A candidate that parses must keep an exact copy of the source and sane
 * kernel and plan tables; one that does not must leave a diagnostic that is
 * safe to format after the parser freed its half-built candidate.
 */
#include <stdint.h>

#include "fuzz.h"

static const char krl_fuzz_path[] = "fuzz.cu";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *paths[] = { krl_fuzz_path };
	krl_candidate *c = (krl_candidate *)(uintptr_t)1;
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_err r = krl_candidate_parse(krl_fuzz_path, (const char *)data, size,
	                                &c, &d);
	krl_fuzz_check_result(r, &d, paths, 1);
	KRL_FUZZ_CHECK((r == KRL_OK) == (c != NULL));
	if (c) {
		KRL_FUZZ_CHECK(c->len == size);
		KRL_FUZZ_CHECK(memcmp(c->source, data, size) == 0);
		KRL_FUZZ_CHECK(c->source[size] == 0);
		for (int i = 0; i < c->nkernels; i++) {
			const krl_kernel *k = &c->kernels[i];
			KRL_FUZZ_CHECK(k->name && k->name[0]);
			KRL_FUZZ_CHECK(k->nparams >= 0);
			for (int j = 0; j < k->nparams; j++)
				KRL_FUZZ_CHECK(k->params[j].type >= KRL_P_PTR &&
				               k->params[j].type <= KRL_P_F64);
		}
		const krl_plan *pl = &c->plan;
		KRL_FUZZ_CHECK(pl->nbufs >= 0 && pl->nbody >= 0 &&
		               pl->ninit >= 0);
		for (int i = 0; i < pl->nbody; i++)
			KRL_FUZZ_CHECK(pl->body[i].name != NULL);
	}
	krl_candidate_free(c);
	return 0;
}
