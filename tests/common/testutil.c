/* Helpers shared by the tests. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "testutil.h"

int krl_test_have_gpu(const char **why)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess) {
		if (why)
			*why = cudaGetErrorString(e);
		return 0;
	}
	if (n < 1) {
		if (why)
			*why = "no CUDA device";
		return 0;
	}
	return 1;
}

void krl_test_require_gpu(const char *test_name)
{
	const char *why = "";
	if (!krl_test_have_gpu(&why)) {
		printf("SKIP: %s needs a GPU: no GPU (%s)\n", test_name, why);
		exit(77);
	}
}

char *krl_test_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = 0;
		if (len)
			*len = (size_t)n;
	}
	return buf;
}

void krl_test_assert_ok(krl_err r, const krl_diag *d, const char *file, int line)
{
	if (r == KRL_OK)
		return;
	char buf[1200];
	fprintf(stderr, "%s:%d: expected KRL_OK, got %s: %s\n", file, line,
	        krl_strerror(r), d ? krl_diag_format(d, buf, sizeof buf) : "");
	fail();
}
