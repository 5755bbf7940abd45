/* The judge workers' pool (src/cli/workers.c) with worker functions of
 * the test's own: every problem reported once, in the problems' order
 * whatever order the workers finish in; a worker whose setup fails leaves
 * its share to the others, and with none left every problem fails with
 * the reason; a worker that dies mid-problem leaves that problem failed
 * with its signal named while the others go on; a killed pool takes its
 * workers along; the krl_cli_device_count probe. No GPU: the workers here
 * do not judge. */
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "cli/cli.h"

#define NT 12

typedef struct tally {
	int order[NT], err[NT], n;
	char sum[NT][64], why[NT][300];
} tally;

static void report(void *rctx, int k, int err, const char *sum,
                   const char *why)
{
	tally *t = rctx;
	assert_true(t->n < NT);
	t->order[t->n++] = k;
	t->err[k] = err;
	snprintf(t->sum[k], sizeof t->sum[k], "%s", sum ? sum : "");
	snprintf(t->why[k], sizeof t->why[k], "%s", why ? why : "");
}

/* Problem k's answer "{\"k\": k, \"w\": w}"; the early problems take
 * longest, so later ones finish first. mode 1: worker 1's setup fails;
 * mode 2: the worker that takes problem 5 dies of SIGKILL; mode 3: every
 * worker's setup fails. */
static int work(void *ctx, int w, int k, void **wctx, char **sum, char *why,
                size_t nwhy)
{
	int mode = *(int *)ctx;
	(void)wctx;
	if (k == -1) {
		if ((mode == 1 && w == 1) || mode == 3) {
			snprintf(why, nwhy, "worker %d: no device", w);
			return 7;
		}
		return 0;
	}
	if (k == -2)
		return 0;
	if (mode == 2 && k == 5)
		raise(SIGKILL);
	usleep((useconds_t)(NT - k) * 3000);
	char buf[64];
	snprintf(buf, sizeof buf, "{\"k\": %d, \"w\": %d}", k, w);
	*sum = strdup(buf);
	return 0;
}

/* Runs NT problems of `work` in mode on n workers into *t: every problem
 * reported once, in order. */
static void run_pool(int n, int mode, tally *t)
{
	memset(t, 0, sizeof *t);
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_cli_workers_run(n, NT, work, &mode, report, t, &d),
	              &d);
	assert_int_equal(t->n, NT);
	for (int k = 0; k < NT; k++)
		assert_int_equal(t->order[k], k);
}

static void in_order_whatever_finishes_first(void **state)
{
	(void)state;
	tally t;
	run_pool(3, 0, &t);
	for (int k = 0; k < NT; k++) {
		assert_int_equal(t.err[k], 0);
		int kk = -1, w = -1;
		assert_int_equal(sscanf(t.sum[k], "{\"k\": %d, \"w\": %d}", &kk, &w),
		                 2);
		assert_int_equal(kk, k);
		assert_true(w >= 0 && w < 3);
	}
}

static void a_failed_setup_leaves_its_share(void **state)
{
	(void)state;
	tally t;
	/* worker 1 leaves: worker 0 takes every problem */
	run_pool(2, 1, &t);
	for (int k = 0; k < NT; k++) {
		assert_int_equal(t.err[k], 0);
		assert_non_null(strstr(t.sum[k], "\"w\": 0"));
	}
	/* no worker opens: every problem fails with the reason */
	run_pool(3, 3, &t);
	for (int k = 0; k < NT; k++) {
		assert_int_equal(t.err[k], 7);
		assert_non_null(strstr(t.why[k], ": no device"));
		assert_string_equal(t.sum[k], "");
	}
}

static void a_dead_worker_fails_one_problem(void **state)
{
	(void)state;
	tally t;
	run_pool(3, 2, &t);
	for (int k = 0; k < NT; k++) {
		if (k == 5) {
			assert_int_not_equal(t.err[k], 0);
			assert_non_null(strstr(t.why[k], "died of signal 9"));
			assert_non_null(strstr(t.why[k], "run the same command again"));
		} else {
			assert_int_equal(t.err[k], 0);
		}
	}
}

static void one_worker_and_bad_arguments(void **state)
{
	(void)state;
	tally t;
	memset(&t, 0, sizeof t);
	int mode = 0;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_cli_workers_run(1, 4, work, &mode, report, &t, &d),
	              &d);
	assert_int_equal(t.n, 4);
	for (int k = 0; k < 4; k++)
		assert_non_null(strstr(t.sum[k], "\"w\": 0"));
	assert_int_not_equal(krl_cli_workers_run(0, 4, work, &mode, report, &t,
	                                         &d), KRL_OK);
	assert_non_null(strstr(d.msg, "0 workers"));
}

/* Mode 4's workers: each sends its pid on the test's pipe, then sleeps
 * far longer than the test waits. */
static int pid_fd = -1;

static int sleeper(void *ctx, int w, int k, void **wctx, char **sum,
                   char *why, size_t nwhy)
{
	(void)ctx;
	(void)w;
	(void)wctx;
	(void)sum;
	(void)why;
	(void)nwhy;
	if (k == -1) {
		pid_t me = getpid();
		assert_int_equal(write(pid_fd, &me, sizeof me), (ssize_t)sizeof me);
	} else if (k >= 0) {
		sleep(30);
	}
	return 0;
}

static void noop_report(void *rctx, int k, int err, const char *sum,
                        const char *why)
{
	(void)rctx;
	(void)k;
	(void)err;
	(void)sum;
	(void)why;
}

/* A pool whose parent is killed (SIGKILL: no handler runs) takes its
 * workers along: each dies of SIGTERM (PR_SET_PDEATHSIG). This process
 * is the workers' subreaper, so it can wait for them. */
static void workers_die_with_their_parent(void **state)
{
	(void)state;
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	pid_t pool = fork();
	assert_true(pool >= 0);
	if (pool == 0) {
		close(fd[0]);
		pid_fd = fd[1];
		krl_diag d = {0};
		krl_cli_workers_run(2, 4, sleeper, NULL, noop_report, NULL, &d);
		_exit(0);
	}
	close(fd[1]);
	pid_t w[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(read(fd[0], &w[i], sizeof w[i]),
		                 (ssize_t)sizeof w[i]);
	close(fd[0]);
	assert_int_equal(kill(pool, SIGKILL), 0);
	int st;
	assert_int_equal(waitpid(pool, &st, 0), pool);
	for (int i = 0; i < 2; i++) {
		/* reparented to this process, which reaps them */
		assert_int_equal(waitpid(w[i], &st, 0), w[i]);
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), SIGTERM);
	}
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

static void device_count_probe(void **state)
{
	(void)state;
	int n = krl_cli_device_count();
	/* 0 on a machine without a GPU, the count on one with; the probe
	 * runs in a child, so this process may still fork CUDA workers */
	assert_true(n >= 0);
	assert_int_equal(n > 0, krl_test_have_gpu(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_order_whatever_finishes_first),
		cmocka_unit_test(a_failed_setup_leaves_its_share),
		cmocka_unit_test(a_dead_worker_fails_one_problem),
		cmocka_unit_test(one_worker_and_bad_arguments),
		cmocka_unit_test(workers_die_with_their_parent),
		cmocka_unit_test(device_count_probe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
