/* Helpers shared by the tests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "krl/opt.h"
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
	/* a GPU session runs one test of a group by name */
	const char *only = getenv("KRL_TEST_FILTER");
	if (only && *only)
		cmocka_set_test_filter(only);
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

char *krl_test_at_page_end(const char *text, size_t n, void **base,
                           size_t *size)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t data = (n + pg - 1) / pg * pg;
	if (data == 0)
		data = pg;
	*size = data + pg;
	char *m = mmap(NULL, *size, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + data, pg, PROT_NONE), 0);
	*base = m;
	memcpy(m + data - n, text, n);
	return m + data - n;
}

void krl_test_near(double a, double b, double tol, const char *file, int line)
{
	if (!(fabs(a - b) <= tol)) {
		print_error("%s:%d: %.17g != %.17g (tolerance %g)\n", file, line,
		            a, b, tol);
		fail();
	}
}

int krl_test_manifest_line(char *line, char file[256], char task[256],
                           char verdict[64], char reason[64])
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	reason[0] = 0;
	return sscanf(line, "%255s %255s %63s %63s", file, task, verdict,
	              reason) >= 3;
}

int krl_test_plant_secret(char marker[64], char path[64])
{
	snprintf(marker, 64, "KRLSECRET%ldX%d", (long)time(NULL), (int)getpid());
	snprintf(path, 64, "/tmp/krl-secret-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	char text[200];
	int n = snprintf(text, sizeof text, "int %s = 1; %s\n", marker, marker);
	int ok = write(fd, text, (size_t)n) == n;
	close(fd);
	return ok ? 0 : -1;
}

char *krl_test_generate(const krl_task *t, const char *set, const char *line,
                        char **what)
{
	krl_opt *o = NULL;
	krl_diag d = {0};
	char back[2048], want[256];
	krl_test_assert_ok(krl_opt_create(t, set, &o, &d), &d, __FILE__,
	                   __LINE__);
	const krl_space *sp = krl_opt_space(o);
	krl_choice c;
	memset(&c, 0, sizeof c);
	krl_test_assert_ok(krl_choice_parse(sp, line, &c, &d), &d, __FILE__,
	                   __LINE__);
	/* every name=option asked for is what the parsed choice says */
	krl_choice_format(sp, &c, back, sizeof back);
	const char *p = strchr(line, ':');
	for (p = p ? p + 1 : line; *p;) {
		size_t n = strcspn(p, " \t\n");
		if (n && n < sizeof want - 2) {
			snprintf(want, sizeof want, " %.*s", (int)n, p);
			if (!strstr(back, want))
				fail_msg("%s: the space has no%s (it has: %s)", set,
				         want, back);
		}
		p += n;
		p += strspn(p, " \t\n");
	}
	char *text = NULL;
	krl_test_assert_ok(krl_opt_generate(o, &c, &text, what, &d), &d,
	                   __FILE__, __LINE__);
	krl_opt_free(o);
	return text;
}
