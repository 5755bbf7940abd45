/*
 * `krl check` on the attacks that need no GPU (issue 14's acceptance, run in
 * CI): every case of the adversarial corpus that reads host files through
 * the preprocessor (include_*, host_*) or exhausts the compiler (bomb_*)
 * gets its expected verdict and reason within the compile deadline plus 5 s
 * (30 s in a sanitizer build), and nothing of a host file -- no line of
 * /etc/passwd, no byte of the caller's environment (an API key), no byte
 * of a secret file this test plants -- appears in anything krl prints.
 * Also a valid candidate passes, and `krl check --help` is true to the
 * options.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define DEADLINE_S 3
/* What the issue allows past the deadline; a sanitizer build (krl and this
 * test both) starts every process several seconds slower. */
#if defined(__SANITIZE_ADDRESS__)
#define SLACK_S 30.0
#else
#define SLACK_S 5.0
#endif

static char g_marker[64];
static char g_secret[64];

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs `$KRL_BIN args` with an API key in its environment and stderr
 * merged; returns the exit status, the output (caller frees) and the wall
 * time. */
static int run(const char *args, char **out, double *secs)
{
	const char *bin = getenv("KRL_BIN");
	char cmd[2048];
	assert_non_null(bin);
	snprintf(cmd, sizeof cmd, "KRL_LLM_API_KEY=%s %s %s 2>&1", g_marker, bin,
	         args);
	double t0 = now_s();
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t cap = 1 << 16, n = 0, got;
	char *buf = malloc(cap);
	assert_non_null(buf);
	while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
		n += got;
		if (n + 1 >= cap) {
			buf = realloc(buf, cap *= 2);
			assert_non_null(buf);
		}
	}
	buf[n] = 0;
	int st = pclose(p);
	if (secs)
		*secs = now_s() - t0;
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Fails when out holds the marker, the secret file's text, or any line of
 * /etc/passwd (each long enough to be unmistakable). */
static void assert_no_host_bytes(const char *what, const char *out)
{
	if (strstr(out, g_marker)) {
		fprintf(stderr, "%s: the output holds the secret marker:\n%s\n",
		        what, out);
		fail();
	}
	FILE *f = fopen("/etc/passwd", "r");
	char line[512];
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (strlen(line) >= 12 && strstr(out, line)) {
			fprintf(stderr, "%s: the output quotes /etc/passwd (%s)\n",
			        what, line);
			fail();
		}
	}
	if (f)
		fclose(f);
}

static int setup(void **state)
{
	(void)state;
	return krl_test_plant_secret(g_marker, g_secret);
}

static int teardown(void **state)
{
	(void)state;
	unlink(g_secret);
	return 0;
}

/* Every include_*, host_* and bomb_* line of the corpus. */
static void corpus_attacks(void **state)
{
	(void)state;
	FILE *f = fopen("tests/adversarial/EXPECTED", "r");
	char line[1024];
	int n = 0;
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		char file[256], task[256], verdict[64], reason[64];
		if (!krl_test_manifest_line(line, file, task, verdict, reason))
			continue;
		if (strncmp(file, "include_", 8) && strncmp(file, "host_", 5) &&
		    strncmp(file, "bomb_", 5))
			continue;
		char args[1024], *out = NULL;
		double secs = 0;
		snprintf(args, sizeof args,
		         "check %s tests/adversarial/%s --json --no-cache "
		         "--compile-timeout %d",
		         task, file, DEADLINE_S);
		int rc = run(args, &out, &secs);
		print_message("%-40s %5.2f s  %s\n", file, secs,
		              strstr(out, "\"reason\"") ? strstr(out, "\"reason\"")
		                                        : out);
		assert_int_equal(rc, 1);
		assert_true(secs < DEADLINE_S + SLACK_S);
		assert_non_null(strstr(out, "\"verdict\":\"compile_error\""));
		if (reason[0]) {
			char want[100];
			snprintf(want, sizeof want, "\"reason\":\"%s\"", reason);
			assert_non_null(strstr(out, want));
		} else {
			assert_true(strstr(out, "\"reason\":\"compile_timeout\"") ||
			            strstr(out, "\"reason\":\"compile_resources\""));
		}
		assert_no_host_bytes(file, out);
		free(out);
		n++;
	}
	fclose(f);
	/* issue 14: at least 3 cases per class */
	assert_true(n >= 6);
}

/* A secret file included by absolute path, quoted and angled: refused,
 * and not one byte of it printed. */
static void planted_secret(void **state)
{
	(void)state;
	const char *forms[] = {"#include \"%s\"\n", "#include <%s>\n",
	                       "#define F \"%s\"\n#include F\n"};
	for (size_t k = 0; k < sizeof forms / sizeof *forms; k++) {
		char path[] = "/tmp/krl-check-cand-XXXXXX.cu";
		int fd = mkstemps(path, 3);
		assert_true(fd >= 0);
		FILE *f = fdopen(fd, "w");
		fprintf(f, forms[k], g_secret);
		fprintf(f, "extern \"C\" __global__ void k(const float *x, float "
		           "*y, long n)\n{ long i = blockIdx.x * 256L + "
		           "threadIdx.x; if (i < n) y[i] = fmaxf(x[i], 0.f); }\n"
		           "/*@plan\nlaunch k grid=(cdiv(numel(x), 256)) "
		           "block=(256) args(x, y, numel(x))\n@*/\n");
		fclose(f);
		char args[512], *out = NULL;
		snprintf(args, sizeof args, "check level1/19_relu %s --no-cache",
		         path);
		assert_int_equal(run(args, &out, NULL), 1);
		assert_non_null(strstr(out, "compile_error include"));
		assert_no_host_bytes(path, out);
		free(out);
		unlink(path);
	}
}

static void valid_candidate(void **state)
{
	(void)state;
	char *out = NULL;
	assert_int_equal(run("check level1/19_relu examples/level1/19_relu.fast.cu",
	                     &out, NULL),
	                 0);
	assert_non_null(strstr(out, "ok  level1/19_relu"));
	assert_non_null(strstr(out, "valid on 3 shape sets"));
	assert_non_null(strstr(out, "compiles for sm_90a"));
	free(out);
	/* an invalid plan is named with where it is wrong */
	assert_int_equal(run("check level1/19_relu "
	                     "tests/adversarial/plan_write_input_relu.cu",
	                     &out, NULL),
	                 1);
	assert_non_null(strstr(out, "invalid_plan plan"));
	assert_non_null(strstr(out, "plan_write_input_relu.cu:"));
	free(out);
}

/* The compile cache key covers the toolkit's headers: a header edited in
 * place (same NVRTC version) changes it; nothing changed, the same key. The
 * include directories come from $KRL_CUDA_INCLUDE, read once per process,
 * hence one krl process per key. */
static void key_of(const char *incdir, char *key, size_t cap)
{
	char args[512], *out = NULL;
	setenv("KRL_CUDA_INCLUDE", incdir, 1);
	snprintf(args, sizeof args, "check level1/19_relu "
	         "examples/level1/19_relu.fast.cu --json --no-cache");
	assert_int_equal(run(args, &out, NULL), 0);
	unsetenv("KRL_CUDA_INCLUDE");
	const char *k = strstr(out, "\"key\":\"");
	assert_non_null(k);
	snprintf(key, cap, "%.64s", k + 7);
	free(out);
}

static void cache_key_covers_headers(void **state)
{
	(void)state;
	char dir[] = "/tmp/krl-inc-XXXXXX", hdr[64], k1[80], k2[80], k3[80];
	assert_non_null(mkdtemp(dir));
	snprintf(hdr, sizeof hdr, "%s/fake_header.h", dir);
	FILE *f = fopen(hdr, "w");
	assert_non_null(f);
	fputs("#define KRL_FAKE 1\n", f);
	fclose(f);
	key_of(dir, k1, sizeof k1);
	f = fopen(hdr, "w");
	assert_non_null(f);
	fputs("#define KRL_FAKE 22\n", f); /* another size, a later time */
	fclose(f);
	key_of(dir, k2, sizeof k2);
	key_of(dir, k3, sizeof k3);
	print_message("keys: %.12s.. then %.12s.. and %.12s..\n", k1, k2, k3);
	assert_int_equal(strlen(k1), 64);
	assert_string_not_equal(k1, k2);
	assert_string_equal(k2, k3);
	unlink(hdr);
	rmdir(dir);
}

static void usage(void **state)
{
	(void)state;
	char *out = NULL;
	assert_int_equal(run("check --help", &out, NULL), 0);
	static const char *const opts[] = {"--arch", "--shapes",
	                                   "--compile-timeout",
	                                   "--compile-memory", "--no-cache",
	                                   "--json"};
	for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
		assert_non_null(strstr(out, opts[i]));
	free(out);
	assert_int_equal(run("check level1/19_relu", &out, NULL), 2);
	free(out);
	assert_int_equal(run("check level1/19_relu x.cu --compile-memory 10",
	                     &out, NULL),
	                 2);
	assert_non_null(strstr(out, "at least 256"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(usage),
		cmocka_unit_test(valid_candidate),
		cmocka_unit_test(cache_key_covers_headers),
		cmocka_unit_test(planted_secret),
		cmocka_unit_test(corpus_attacks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
