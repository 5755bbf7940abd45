/*
 * Tests of NVRTC compilation and its on-disk cache (src/runtime/nvrtc.c).
 * NVRTC needs no GPU, so these run everywhere; each test uses a fresh
 * temporary cache directory that is removed afterwards.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "krl/nvrtc.h"

static const char k_add[] =
	"extern \"C\" __global__ void add(float *y, const float *x, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] += x[i];\n"
	"}\n";

static const char k_bad[] =
	"extern \"C\" __global__ void bad(float *y)\n"
	"{\n"
	"\ty[0] = 1.0f +;\n"
	"}\n";

static const char k_half[] =
	"#include <cuda_fp16.h>\n"
	"extern \"C\" __global__ void scale(__half *y, float s, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] = __float2half(__half2float(y[i]) * s);\n"
	"}\n";

/* ==== Fixtures ==== */

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	char *dir = strdup("/tmp/krl-test-nvrtc-XXXXXX");
	if (!dir || !mkdtemp(dir))
		return -1;
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	char *dir = *state;
	int r = nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
	return r;
}

/* The path of the cache entry for c under dir. */
static void entry_path(const char *dir, const krl_cubin *c, char *buf,
                       size_t cap)
{
	snprintf(buf, cap, "%s/nvrtc/%.2s/%s.cubin", dir, c->key, c->key + 2);
}

static krl_cubin *compile(const char *src, const char *name, const char *arch,
                          const char *dir)
{
	krl_cubin *c = NULL;
	krl_diag d = { 0 };
	krl_err r = krl_nvrtc_compile(src, strlen(src), name, arch, dir, &c, &d);
	KRL_ASSERT_OK(r, &d);
	assert_non_null(c);
	assert_non_null(c->data);
	assert_non_null(c->log);
	assert_true(c->size > 64);
	assert_memory_equal(c->data, "\177ELF", 4);
	assert_int_equal(strlen(c->key), 64);
	return c;
}

/* ==== Tests ==== */

static void test_compile_and_cache(void **state)
{
	const char *dir = *state;
	krl_cubin *a = compile(k_add, "add.cu", "sm_90a", dir);
	assert_int_equal(a->from_cache, 0);
	krl_cubin *b = compile(k_add, "add.cu", "sm_90a", dir);
	assert_int_equal(b->from_cache, 1);
	assert_string_equal(a->key, b->key);
	assert_int_equal(a->size, b->size);
	assert_memory_equal(a->data, b->data, a->size);
	assert_string_equal(b->log, "");
	print_message("NVRTC %s: cold %.1f ms, cached %.3f ms (%zu bytes)\n",
	              krl_nvrtc_version(), a->ms, b->ms, a->size);
	assert_true(a->ms > 0 && b->ms > 0);

	char path[4096];
	entry_path(dir, a, path, sizeof path);
	assert_int_equal(access(path, R_OK), 0);
	krl_cubin_free(a);
	krl_cubin_free(b);
}

static void test_key_depends_on_inputs(void **state)
{
	const char *dir = *state;
	krl_cubin *a = compile(k_add, "add.cu", "sm_90a", dir);
	krl_cubin *b = compile(k_add, "add.cu", "sm_80", dir);
	assert_string_not_equal(a->key, b->key);
	assert_int_equal(b->from_cache, 0);

	/* one byte more of code (an empty declaration; whitespace and
	 * comments alone do not count: test_key_ignores_comments) */
	char src[sizeof k_add + 1];
	snprintf(src, sizeof src, "%s;", k_add);
	krl_cubin *c = compile(src, "add.cu", "sm_90a", dir);
	assert_string_not_equal(a->key, c->key);
	assert_int_equal(c->from_cache, 0);

	/* the name only labels messages: same source, same entry */
	krl_cubin *e = compile(k_add, "other.cu", "sm_90a", dir);
	assert_string_equal(a->key, e->key);
	assert_int_equal(e->from_cache, 1);

	krl_cubin_free(a);
	krl_cubin_free(b);
	krl_cubin_free(c);
	krl_cubin_free(e);
}

/* Comments are not code: sources differing only in comments share an
 * entry; comment markers inside string and character literals are code. */
static void test_key_ignores_comments(void **state)
{
	const char *dir = *state;
	static const char base[] =
		"__device__ const char *msg = \"a//b /* c */\";\n"
		"__device__ char q = '\"';\n"
		"extern \"C\" __global__ void f(float *y) { y[0] = 2.0f; }\n";
	static const char commented[] =
		"// krl-choice: fuse=full map.vec=4\n"
		"__device__ const char *msg = \"a//b /* c */\"; /* a note\n"
		"   over two lines */\n"
		"__device__ char q = '\"'; // a \"quote\" \\\n"
		"   continued line comment\n"
		"extern \"C\" __global__ void f(float *y) { y[0] = 2.0f; }\n"
		"/*@plan\nlaunch f grid=(1) block=(1) args(y)\n@*/\n";
	static const char in_string[] =
		"__device__ const char *msg = \"a//b /* d */\";\n"
		"__device__ char q = '\"';\n"
		"extern \"C\" __global__ void f(float *y) { y[0] = 2.0f; }\n";
	static const char code_changed[] =
		"// krl-choice: fuse=full map.vec=4\n"
		"__device__ const char *msg = \"a//b /* c */\"; /* a note\n"
		"   over two lines */\n"
		"__device__ char q = '\"'; // a \"quote\" \\\n"
		"   continued line comment\n"
		"extern \"C\" __global__ void f(float *y) { y[0] = 3.0f; }\n";
	krl_cubin *a = compile(base, "a.cu", "sm_90a", dir);
	krl_cubin *b = compile(commented, "b.cu", "sm_90a", dir);
	assert_string_equal(a->key, b->key);
	assert_int_equal(b->from_cache, 1);
	krl_cubin *c = compile(in_string, "c.cu", "sm_90a", dir);
	assert_string_not_equal(a->key, c->key);
	assert_int_equal(c->from_cache, 0);
	krl_cubin *e = compile(code_changed, "e.cu", "sm_90a", dir);
	assert_string_not_equal(a->key, e->key);
	assert_int_equal(e->from_cache, 0);
	krl_cubin_free(a);
	krl_cubin_free(b);
	krl_cubin_free(c);
	krl_cubin_free(e);
}

static void test_compile_error(void **state)
{
	const char *dir = *state;
	krl_cubin *c = NULL;
	krl_diag d = { 0 };
	krl_err r = krl_nvrtc_compile(k_bad, strlen(k_bad), "bad.cu", "sm_90a",
	                              dir, &c, &d);
	assert_int_equal(r, KRL_ECOMPILE);
	assert_non_null(c);
	assert_null(c->data);
	assert_int_equal(c->size, 0);
	assert_non_null(c->log);
	print_message("log: %s", c->log);
	/* NVRTC names the file and line: bad.cu(3): error: ... */
	assert_non_null(strstr(c->log, "bad.cu(3)"));
	assert_non_null(strstr(c->log, "error"));
	assert_non_null(strstr(d.msg, "bad.cu(3)"));
	krl_cubin_free(c);

	/* nothing was cached: the same source fails again */
	r = krl_nvrtc_compile(k_bad, strlen(k_bad), "bad.cu", "sm_90a", dir,
	                      &c, &d);
	assert_int_equal(r, KRL_ECOMPILE);
	assert_int_equal(c->from_cache, 0);
	krl_cubin_free(c);
}

/* Overwrites the cache entry of c with n bytes of data. */
static void corrupt(const char *dir, const krl_cubin *c, const void *data,
                    size_t n)
{
	char path[4096];
	entry_path(dir, c, path, sizeof path);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	if (n)
		assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
}

static void test_corrupt_entry_recompiled(void **state)
{
	const char *dir = *state;
	krl_cubin *a = compile(k_add, "add.cu", "sm_90a", dir);

	/* empty, truncated (ELF header intact, tables cut off), not ELF */
	unsigned char junk[256];
	memset(junk, 'x', sizeof junk);
	struct {
		const void *data;
		size_t n;
	} cases[] = { { "", 0 }, { a->data, a->size / 2 }, { junk, sizeof junk },
	              { a->data, 3 } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		corrupt(dir, a, cases[i].data, cases[i].n);
		krl_cubin *b = compile(k_add, "add.cu", "sm_90a", dir);
		assert_int_equal(b->from_cache, 0);
		assert_int_equal(b->size, a->size);
		assert_memory_equal(b->data, a->data, a->size);
		krl_cubin_free(b);
		/* and the entry was rewritten whole */
		b = compile(k_add, "add.cu", "sm_90a", dir);
		assert_int_equal(b->from_cache, 1);
		krl_cubin_free(b);
	}
	krl_cubin_free(a);
}

static void test_fp16_include(void **state)
{
	krl_cubin *c = compile(k_half, "half.cu", "sm_90a", *state);
	krl_cubin_free(c);
}

static void test_no_cache(void **state)
{
	(void)state;
	krl_cubin *a = compile(k_add, "add.cu", "sm_90a", NULL);
	krl_cubin *b = compile(k_add, "add.cu", "sm_90a", NULL);
	assert_int_equal(a->from_cache, 0);
	assert_int_equal(b->from_cache, 0);
	assert_string_equal(a->key, b->key);
	krl_cubin_free(a);
	krl_cubin_free(b);
}

static void test_bad_arguments(void **state)
{
	const char *dir = *state;
	krl_cubin *c = (krl_cubin *)1;
	krl_diag d = { 0 };
	assert_int_equal(krl_nvrtc_compile(k_add, strlen(k_add), "add.cu",
	                                   "compute_90", dir, &c, &d),
	                 KRL_EINVAL);
	assert_null(c);
	assert_non_null(strstr(d.msg, "compute_90"));
	assert_int_equal(krl_nvrtc_compile(k_add, strlen(k_add), "add.cu",
	                                   NULL, dir, &c, &d),
	                 KRL_EINVAL);
	/* a NUL inside the counted source: the candidate's compile error
	 * (the include rule refuses it before NVRTC, which would stop there
	 * and compile less than the key covers), saying where */
	assert_int_equal(krl_nvrtc_compile(k_add, sizeof k_add, "add.cu",
	                                   "sm_90a", dir, &c, &d),
	                 KRL_ECOMPILE);
	assert_non_null(c);
	assert_null(c->data);
	assert_string_equal(c->reason, "include");
	assert_non_null(strstr(c->log, "add.cu:7:1"));
	assert_int_equal(d.pos.line, 7);
	krl_cubin_free(c);
	krl_cubin_free(NULL);
}

static void test_options(void **state)
{
	(void)state;
	const char *const *o = krl_nvrtc_options("sm_90a");
	assert_non_null(o);
	assert_string_equal(o[0], "--gpu-architecture=sm_90a");
	assert_string_equal(o[1], "-std=c++17");
	int ninc = 0;
	for (int i = 0; o[i]; i++) {
		assert_null(strstr(o[i], "fast"));
		assert_null(strstr(o[i], "ftz"));
		ninc += strncmp(o[i], "--include-path=", 15) == 0;
	}
	assert_true(ninc >= 1);
	/* interned: the same pointer each time */
	assert_ptr_equal(o, krl_nvrtc_options("sm_90a"));
	assert_string_equal(krl_nvrtc_options("sm_80")[0],
	                    "--gpu-architecture=sm_80");
	assert_null(krl_nvrtc_options("compute_90"));
	assert_null(krl_nvrtc_options("sm_"));

	int major = -1, minor = -1;
	assert_int_equal(sscanf(krl_nvrtc_version(), "%d.%d", &major, &minor),
	                 2);
	assert_true(major >= 11);
}

/* Several threads compiling the same source into one cache all get the
 * same cubin (the entry is renamed into place whole). */
typedef struct {
	const char *dir;
	krl_cubin *c;
	krl_err r;
} job;

static void *compile_thread(void *p)
{
	job *j = p;
	krl_diag d = { 0 };
	j->r = krl_nvrtc_compile(k_half, strlen(k_half), "half.cu", "sm_90a",
	                         j->dir, &j->c, &d);
	return NULL;
}

static void test_concurrent(void **state)
{
	enum { THREADS = 4 };
	pthread_t t[THREADS];
	job j[THREADS];
	for (int i = 0; i < THREADS; i++) {
		j[i] = (job){ .dir = *state };
		assert_int_equal(pthread_create(&t[i], NULL, compile_thread,
		                                &j[i]), 0);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(j[i].r, KRL_OK);
		assert_int_equal(j[i].c->size, j[0].c->size);
		assert_memory_equal(j[i].c->data, j[0].c->data, j[0].c->size);
	}
	for (int i = 0; i < THREADS; i++)
		krl_cubin_free(j[i].c);
	krl_cubin *c = compile(k_half, "half.cu", "sm_90a", *state);
	assert_int_equal(c->from_cache, 1);
	krl_cubin_free(c);
}

static void test_cache_dir(void **state)
{
	(void)state;
	/* krl_cache_dir() reads the environment once, at its first call,
	 * which is this one. */
	setenv("KRL_CACHE_DIR", "/tmp/krl-test-cache-dir", 1);
	assert_string_equal(krl_cache_dir(), "/tmp/krl-test-cache-dir");
	setenv("KRL_CACHE_DIR", "/elsewhere", 1);
	assert_string_equal(krl_cache_dir(), "/tmp/krl-test-cache-dir");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cache_dir),
		cmocka_unit_test_setup_teardown(test_compile_and_cache, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_key_ignores_comments, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_key_depends_on_inputs,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_compile_error, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_entry_recompiled,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_fp16_include, setup,
		                                teardown),
		cmocka_unit_test(test_no_cache),
		cmocka_unit_test_setup_teardown(test_bad_arguments, setup,
		                                teardown),
		cmocka_unit_test(test_options),
		cmocka_unit_test_setup_teardown(test_concurrent, setup,
		                                teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
