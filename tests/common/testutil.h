/* Helpers shared by the tests: GPU detection and file reading. */
#ifndef KRL_TESTUTIL_H
#define KRL_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "krl/error.h"

/* 1 when a CUDA driver and at least one device are present. When 0 and
 * why is not NULL, *why says what is missing. */
int krl_test_have_gpu(const char **why);

/* For gpu_* tests: prints "SKIP: no GPU (...)" and exits with 77 (CTest's
 * skip code) when no device is present. With KRL_TEST_FILTER set, runs
 * only the tests whose names match it (cmocka's filter: * and ?). */
void krl_test_require_gpu(const char *test_name);

/* Reads a whole file relative to the source tree; returns a malloc'd
 * NUL-terminated buffer (caller frees) or NULL. */
char *krl_test_read(const char *path, size_t *len);

/* Copies text[0..n) so that it ends exactly where an unmapped page begins:
 * any read past the end faults (guard-page tests of parsers). Returns the
 * copy's start; release with munmap(*base, *size). */
char *krl_test_at_page_end(const char *text, size_t n, void **base,
                           size_t *size);

/* Asserts r == KRL_OK, printing the diagnostic otherwise. */
#define KRL_ASSERT_OK(r, d) krl_test_assert_ok((r), (d), __FILE__, __LINE__)
/* One line of an EXPECTED manifest, "<file> <task> <verdict> [<reason>]"
 * with '#' comments (the line is cut at its '#'): 1 with the fields set
 * (reason "" when absent), 0 for a line without an entry. */
int krl_test_manifest_line(char *line, char file[256], char task[256],
                           char verdict[64], char reason[64]);

/* Plants a secret no log may show: a fresh marker ("KRLSECRET<time>X<pid>")
 * into marker[64], and a new temporary file holding it, its path into
 * path[64] (the caller unlinks it). 0, or -1 when the file cannot be
 * written. */
int krl_test_plant_secret(char marker[64], char path[64]);

/* |a - b| <= tol, printing both on failure (this cmocka has no
 * assert_double_equal). */
#define assert_near(a, b, tol) krl_test_near((a), (b), (tol), __FILE__, __LINE__)
void krl_test_near(double a, double b, double tol, const char *file, int line);
void krl_test_assert_ok(krl_err r, const krl_diag *d, const char *file, int line);

/* The builtin optimizer's candidate text for task t, generated for shape
 * set `set` with the choices of line ("krl-choice: gemm.impl=3xtf32":
 * every name=option of it must be a decision and option the task's space
 * offers; the others take option 0); its what-line into *what. Fails the
 * test on any error. */
struct krl_task;
char *krl_test_generate(const struct krl_task *t, const char *set,
                        const char *line, char **what);

#endif
