/*
 * Tests of the compiler sandbox (src/runtime/compiler.c, sandbox.c) and
 * the compile log filter (complog.c): no host file reaches a log, whatever
 * sandbox this machine gives; a compilation past its deadline or its
 * memory is stopped and named; the compiler process has a minimal
 * environment. NVRTC needs no GPU, so these run everywhere. The include
 * rule in front of NVRTC has its own tests (test_srccheck.c); here the
 * compiler process is driven directly (krl_compiler_run), as if a name had
 * slipped past the rule.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "krl/nvrtc.h"
#include "runtime/compiler.h"

static char g_secret_path[64];
static char g_marker[64];

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A host file with a marker no compiler log may ever show. */
static int setup(void **state)
{
	(void)state;
	if (krl_test_plant_secret(g_marker, g_secret_path) != 0)
		return -1;
	setenv("KRL_TEST_SECRET_ENV", g_marker, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(g_secret_path);
	krl_compiler_shutdown();
	unsetenv("KRL_SANDBOX");
	return 0;
}

/* Compiles src in a compiler process under lim, bypassing the include
 * rule; returns the cubin record (caller frees) and sets *r. */
static krl_cubin *run_raw(const char *src, const krl_compile_limits *lim,
                          krl_err *r)
{
	int ndirs = 0;
	const char *const *dirs = krl_nvrtc_include_dirs(&ndirs);
	const char *const *opts = krl_nvrtc_options("sm_90a");
	int nopt = 0;
	while (opts[nopt])
		nopt++;
	krl_cubin *c = calloc(1, sizeof *c);
	krl_diag d = {0};
	assert_non_null(c);
	*r = krl_compiler_run(src, strlen(src), "cand.cu", opts, nopt, dirs,
	                      ndirs, lim, c, &d);
	return c;
}

/* Includes the secret by absolute path, and the process environment: the
 * log that leaves the compiler (filtered) never holds the marker; where
 * the sandbox is landlock or namespace, not even NVRTC's raw log does.
 * The environment never does: the compiler process has its own. */
static void check_mode(const char *mode)
{
	char src[512];
	krl_err r;
	krl_compiler_shutdown();
	if (mode)
		setenv("KRL_SANDBOX", mode, 1);
	else
		unsetenv("KRL_SANDBOX");
	snprintf(src, sizeof src,
	         "#include \"%s\"\n#include \"/proc/self/environ\"\n"
	         "__global__ void k(float *x) { x[0] = 1; }\n",
	         g_secret_path);
	krl_cubin *c = run_raw(src, NULL, &r);
	assert_int_equal(r, KRL_ECOMPILE);
	assert_non_null(c->sandbox);
	int ndirs = 0;
	const char *const *dirs = krl_nvrtc_include_dirs(&ndirs);
	char *clean = krl_compile_log_clean(c->log, "cand.cu", dirs, ndirs,
	                                    KRL_COMPILE_LOG_CAP);
	assert_non_null(clean);
	print_message("mode %s: sandbox %s; raw log %zu bytes, filtered %zu\n",
	              mode ? mode : "(default)", c->sandbox, strlen(c->log),
	              strlen(clean));
	assert_null(strstr(clean, g_marker));
	assert_null(strstr(c->log, "KRL_TEST_SECRET_ENV"));
	if (strcmp(c->sandbox, "none") != 0)
		assert_null(strstr(c->log, g_marker));
	if (mode && strcmp(mode, c->sandbox) != 0) {
		char how[600];
		krl_compiler_sandbox_how(how, sizeof how);
		print_message("  (mode %s is not available here: %s)\n", mode,
		              how);
	}
	free(clean);
	krl_cubin_free(c);
}

static void test_no_host_file_any_mode(void **state)
{
	(void)state;
	check_mode(NULL);
	check_mode("landlock");
	check_mode("namespace");
	check_mode("none");
}

/* The default sandbox on this machine is named, and a compile still works
 * inside it (the toolkit's headers are readable). */
static void test_sandbox_compiles(void **state)
{
	(void)state;
	char how[600];
	krl_err r;
	krl_compiler_shutdown();
	unsetenv("KRL_SANDBOX");
	krl_cubin *c = run_raw("#include <cuda_fp16.h>\n"
	                       "__global__ void k(__half *x) { x[0] = "
	                       "__float2half(1.f); }\n",
	                       NULL, &r);
	assert_int_equal(r, KRL_OK);
	assert_non_null(c->data);
	krl_nvrtc_sandbox(how, sizeof how);
	print_message("compiler sandbox here: %s\n", how);
	assert_true(!strncmp(how, "landlock", 8) || !strncmp(how, "namespace", 9) ||
	            !strncmp(how, "none", 4));
	krl_cubin_free(c);
}

/* ~10^6 statements from 40 lines of macros: far past a 2 s deadline. */
static const char k_bomb[] =
	"#define A0(x) x = x * 1.0001f + 0.5f;\n"
	"#define A1(x) A0(x) A0(x) A0(x) A0(x) A0(x) A0(x) A0(x) A0(x) A0(x) A0(x)\n"
	"#define A2(x) A1(x) A1(x) A1(x) A1(x) A1(x) A1(x) A1(x) A1(x) A1(x) A1(x)\n"
	"#define A3(x) A2(x) A2(x) A2(x) A2(x) A2(x) A2(x) A2(x) A2(x) A2(x) A2(x)\n"
	"#define A4(x) A3(x) A3(x) A3(x) A3(x) A3(x) A3(x) A3(x) A3(x) A3(x) A3(x)\n"
	"#define A5(x) A4(x) A4(x) A4(x) A4(x) A4(x) A4(x) A4(x) A4(x) A4(x) A4(x)\n"
	"#define A6(x) A5(x) A5(x) A5(x) A5(x) A5(x) A5(x) A5(x) A5(x) A5(x) A5(x)\n"
	"__global__ void k(float *y) { float t = y[0]; A6(t) y[0] = t; }\n";

static void test_deadline(void **state)
{
	(void)state;
	krl_compile_limits lim = {.timeout_s = 2.0};
	krl_err r;
	double t0 = now_s();
	krl_cubin *c = run_raw(k_bomb, &lim, &r);
	double took = now_s() - t0;
	print_message("bomb stopped after %.2f s: %s\n", took, c->log);
	assert_int_equal(r, KRL_ECOMPILE);
	assert_string_equal(c->reason, "compile_timeout");
	assert_non_null(strstr(c->log, "did not finish within 2.0 s"));
	assert_true(took < 2.0 + 5.0);
	krl_cubin_free(c);
	/* the pool is still usable afterwards */
	c = run_raw("__global__ void k(float *x) { x[0] = 2; }\n", NULL, &r);
	assert_int_equal(r, KRL_OK);
	krl_cubin_free(c);
}

/* A memory limit below what NVRTC's warm process already holds: the
 * compiler process fails, and the candidate gets compile_resources, not a
 * hang and not an error of kernelrl. (Sanitizer builds set no such limit.) */
static void test_memory_limit(void **state)
{
	(void)state;
#if defined(__SANITIZE_ADDRESS__)
	skip();
#endif
	/* the compile bomb of a 1 GiB initialised array, under 256 MiB */
	krl_compile_limits lim = {.timeout_s = 120, .mem_bytes = (size_t)256 << 20};
	krl_err r;
	double t0 = now_s();
	krl_cubin *c = run_raw("__device__ float table[1 << 28] = {1.0f, 2.0f};\n"
	                       "__global__ void k(float *x) { x[0] = table[1]; }\n",
	                       &lim, &r);
	print_message("256 MiB, 1 GiB array: %s after %.1f s (%s)\n",
	              c->reason ? c->reason : "-", now_s() - t0, c->log);
	assert_int_equal(r, KRL_ECOMPILE);
	assert_non_null(c->reason);
	assert_string_equal(c->reason, "compile_resources");
	assert_non_null(strstr(c->log, "256 MiB"));
	krl_cubin_free(c);
	/* the pool is still usable afterwards */
	c = run_raw("__global__ void k(float *x) { x[0] = 4; }\n", NULL, &r);
	assert_int_equal(r, KRL_OK);
	krl_cubin_free(c);
}

/* ==== The log filter ==== */

static void test_log_filter(void **state)
{
	(void)state;
	const char *dirs[] = {"/usr/local/cuda/include"};
	const char *log =
		"cand.cu(3): error: identifier \"x\" is undefined\n"
		"    y = x;\n"
		"        ^\n"
		"\n"
		"/etc/passwd(1): error: expected a declaration\n"
		"  root:x:0:0:root:/root:/bin/bash\n"
		"  ^\n"
		"\n"
		"/usr/local/cuda/include/cuda_fp16.hpp(12): warning: odd\n"
		"  __half h;\n"
		"/usr/local/cuda/include/../../../etc/shadow(1): error: no\n"
		"  secret:line\n"
		"__nv_nvrtc_builtin_header.h(4): error: builtin\n"
		"2 errors detected in the compilation of \"cand.cu\".\n";
	char *clean = krl_compile_log_clean(log, "cand.cu", dirs, 1, 16384);
	assert_non_null(clean);
	assert_non_null(strstr(clean, "cand.cu(3): error"));
	assert_non_null(strstr(clean, "    y = x;"));
	assert_non_null(strstr(clean, "cuda_fp16.hpp(12)"));
	assert_non_null(strstr(clean, "__nv_nvrtc_builtin_header.h(4)"));
	assert_non_null(strstr(clean, "2 errors detected"));
	assert_null(strstr(clean, "root:x:0:0"));
	assert_null(strstr(clean, "/etc/passwd"));
	assert_null(strstr(clean, "secret:line"));
	assert_non_null(strstr(clean, "lines removed here"));
	free(clean);

	/* invalid UTF-8 and control characters become '?' */
	clean = krl_compile_log_clean("cand.cu(1): error: \xff\xfe bad \x1b[31m\n",
	                              "cand.cu", dirs, 1, 16384);
	assert_string_equal(clean, "cand.cu(1): error: ?? bad ?[31m\n");
	free(clean);

	/* a long log is cut at a character boundary, with a note */
	size_t n = 50000;
	char *big = malloc(n + 1);
	assert_non_null(big);
	for (size_t i = 0; i < n; i += 2) {
		big[i] = (char)0xc3; /* U+00E9, two bytes */
		big[i + 1] = (char)0xa9;
	}
	big[n] = 0;
	clean = krl_compile_log_clean(big, "cand.cu", dirs, 1, 1000);
	assert_true(strlen(clean) <= 1000);
	assert_non_null(strstr(clean, "[log cut: the first"));
	assert_non_null(strstr(clean, "of 50000 bytes shown]"));
	/* every é survives whole: the text before the note is valid */
	const char *note = strstr(clean, "[log cut");
	assert_int_equal((note - clean) % 2, 0);
	free(clean);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_filter),
		cmocka_unit_test_setup_teardown(test_sandbox_compiles, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_no_host_file_any_mode, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_deadline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_limit, setup,
		                                teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
