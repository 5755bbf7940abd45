/*
 * The judge's processes on a GPU (issue 14): the runner runs on the
 * judge's device, holds none of the judge's descriptors and none of its
 * secrets (an API key in the environment), and dies with a killed judge
 * even while a candidate's kernel spins; a timed record verifies every
 * pair, states its interval's coverage and lists the stress draws; a
 * candidate whose buffers cannot be allocated is the candidate's verdict.
 * Skips itself (exit 77) without a GPU.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "judge/judge_int.h"
#include "krl/judge.h"
#include "krl/suite.h"
#include "testutil.h"

static const char k_marker[] = "KRL_TEST_API_KEY_5f1c";

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *runner_path(void)
{
	const char *p = getenv("KRL_BIN");
	return p ? p : "build/krl";
}

/* Reads /proc/PID/NAME whole (NUL bytes kept) into buf; returns its
 * length or -1. */
static long read_proc(pid_t pid, const char *name, char *buf, size_t cap)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	long n = read(fd, buf, cap - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

/* 1 while pid is a live process (not gone, not a zombie). */
static int alive(pid_t pid)
{
	char st[4096];
	if (read_proc(pid, "status", st, sizeof st) < 0)
		return 0;
	const char *s = strstr(st, "State:");
	return s && !strstr(s, "Z (zombie)") && !strstr(s, "X (dead)");
}

/* The pid of a runner whose parent is ppid, or -1. */
static pid_t find_runner(pid_t ppid)
{
	DIR *dir = opendir("/proc");
	struct dirent *e;
	pid_t found = -1;
	while (dir && (e = readdir(dir)) && found < 0) {
		pid_t pid = (pid_t)atoi(e->d_name);
		char st[4096], cmd[4096];
		if (pid <= 0 || read_proc(pid, "status", st, sizeof st) < 0)
			continue;
		const char *pp = strstr(st, "PPid:");
		long n = read_proc(pid, "cmdline", cmd, sizeof cmd);
		if (!pp || atoi(pp + 5) != (int)ppid || n <= 0)
			continue;
		for (long i = 0; i < n; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		if (strstr(cmd, "__runner"))
			found = pid;
	}
	if (dir)
		closedir(dir);
	return found;
}

/* A judge with opts o, the suite and one of its tasks, opened together and
 * closed together. */
typedef struct hctx {
	krl_suite *s;
	krl_task *t;
	krl_judge *j;
} hctx;

static void hopen(hctx *h, const char *task, const krl_judge_opts *o)
{
	krl_diag d = {0};
	memset(h, 0, sizeof *h);
	KRL_ASSERT_OK(krl_suite_load("tasks", &h->s, &d), &d);
	KRL_ASSERT_OK(krl_suite_load_task(h->s, task, &h->t, &d), &d);
	KRL_ASSERT_OK(krl_judge_create(o, &h->j, &d), &d);
}

static void hclose(hctx *h)
{
	krl_judge_free(h->j);
	krl_task_free(h->t);
	krl_suite_free(h->s);
}

/* Evaluates cand on h's task; returns the record (caller decrefs). */
static json_t *heval(hctx *h, const char *cand)
{
	json_t *rec = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_judge_eval(h->j, h->t, cand, &rec, &d), &d);
	return rec;
}

static const char *verdict_of(const json_t *rec)
{
	return json_string_value(json_object_get(rec, "verdict"));
}

/* Runs first, before this process touches CUDA: a child judge evaluates a
 * candidate that never finishes, and is killed; its runner must be gone
 * within 3 s. */
static void runner_dies_with_judge(void **state)
{
	(void)state;
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		krl_suite *s = NULL;
		krl_task *t = NULL;
		krl_judge *j = NULL;
		json_t *rec = NULL;
		krl_diag d = {0};
		krl_judge_opts o = {.sets = {"tiny"}, .nsets = 1, .no_timing = 1,
		                    .call_timeout_s = 120, .hidden = -1,
		                    .runner_path = runner_path()};
		if (krl_suite_load("tasks", &s, &d) || krl_suite_load_task(s,
		    "level1/89_cumsum", &t, &d) || krl_judge_create(&o, &j, &d))
			_exit(2);
		krl_judge_eval(j, t, "tests/adversarial/hang_flag_cumsum.cu", &rec,
		               &d);
		_exit(3);
	}
	pid_t runner = -1;
	for (double t0 = now_s(); runner < 0 && now_s() - t0 < 60;) {
		runner = find_runner(child);
		if (runner < 0)
			usleep(100 * 1000);
	}
	assert_true(runner > 0);
	sleep(3); /* compile, load, and the kernel spins */
	assert_true(alive(runner));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	double t0 = now_s();
	while (alive(runner) && now_s() - t0 < 3)
		usleep(20 * 1000);
	print_message("runner %d after its judge was killed: %s after %.2f s\n",
	              (int)runner, alive(runner) ? "STILL ALIVE" : "gone",
	              now_s() - t0);
	assert_false(alive(runner));
}

/* The runner's device, descriptors and environment. */
static void runner_is_clean(void **state)
{
	(void)state;
	hctx h;
	char path[] = "/tmp/krl-hygiene-XXXXXX";
	int leak = mkstemp(path); /* not close-on-exec: a runner must not get it */
	assert_true(leak >= 0);
	setenv("KRL_LLM_API_KEY", k_marker, 1);
	krl_judge_opts o = {.sets = {"tiny"}, .nsets = 1, .no_timing = 1,
	                    .runner_path = runner_path(), .device = 0};
	hopen(&h, "level1/19_relu", &o);
	json_t *rec = heval(&h, "examples/level1/19_relu.fast.cu");
	assert_string_equal(verdict_of(rec), "ok");
	pid_t pid = h.j->pid;
	assert_true(pid > 0);
	char buf[65536];
	long n = read_proc(pid, "environ", buf, sizeof buf);
	assert_true(n > 0);
	for (long i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = '\n';
	assert_null(strstr(buf, k_marker));
	assert_null(strstr(buf, "KRL_LLM_API_KEY"));
	n = read_proc(pid, "cmdline", buf, sizeof buf);
	for (long i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	assert_non_null(strstr(buf, "__runner 3 0"));
	/* no descriptor of the runner reaches our file */
	char fddir[64], link[512], target[4096];
	snprintf(fddir, sizeof fddir, "/proc/%d/fd", (int)pid);
	DIR *dir = opendir(fddir);
	struct dirent *e;
	int nfd = 0;
	assert_non_null(dir);
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(link, sizeof link, "%s/%s", fddir, e->d_name);
		ssize_t k = readlink(link, target, sizeof target - 1);
		target[k > 0 ? k : 0] = 0;
		assert_null(strstr(target, "krl-hygiene-"));
		nfd++;
	}
	closedir(dir);
	print_message("runner %d: %d descriptors, none of the judge's\n",
	              (int)pid, nfd);
	json_decref(rec);
	hclose(&h);
	close(leak);
	unlink(path);
	unsetenv("KRL_LLM_API_KEY");
}

/* A timed record: every pair verified, at least 6, its coverage stated,
 * the warm-up apart, the three stress draws listed. */
static void timed_record_verifies_every_pair(void **state)
{
	(void)state;
	hctx h;
	krl_judge_opts o = {.sets = {"tiny", "kb0"}, .nsets = 2,
	                    .time_budget_s = 2, .runner_path = runner_path()};
	hopen(&h, "level1/23_softmax", &o);
	json_t *rec = heval(&h, "examples/level1/23_softmax.fast.cu");
	krl_record_print(stdout, rec);
	assert_string_equal(verdict_of(rec), "ok");
	json_t *tm = json_object_get(rec, "timing");
	json_int_t pairs = json_integer_value(json_object_get(tm, "pairs"));
	assert_true(pairs >= 6);
	assert_int_equal(json_integer_value(json_object_get(tm, "verified")),
	                 pairs);
	assert_true(json_integer_value(json_object_get(tm, "warmup_pairs")) >= 1);
	assert_true(json_number_value(json_object_get(
		            json_object_get(tm, "speedup"), "ci_coverage")) >= 0.95);
	json_t *checks = json_object_get(rec, "checks");
	assert_true(json_array_size(checks) >= 3); /* tiny, kb0, hidden */
	for (size_t i = 0; i < json_array_size(checks); i++) {
		json_t *st = json_object_get(json_array_get(checks, i), "stress");
		assert_int_equal(json_array_size(st), 3);
		for (size_t k = 0; k < 3; k++) {
			json_t *dr = json_array_get(st, k);
			assert_null(json_object_get(dr, "skipped"));
			assert_true(json_number_value(json_object_get(
				            dr, "tolerance_factor")) >= 4);
		}
	}
	json_decref(rec);
	hclose(&h);
}

/* A plan asking for more device memory than exists: the candidate's
 * verdict (launch_error, out_of_memory), and the judge carries on. */
static void out_of_memory_is_a_verdict(void **state)
{
	(void)state;
	hctx h;
	krl_judge_opts o = {.sets = {"tiny"}, .nsets = 1, .no_timing = 1,
	                    .runner_path = runner_path()};
	hopen(&h, "level1/19_relu", &o);
	json_t *rec = heval(&h, "bench/faults/oom.cu");
	assert_string_equal(verdict_of(rec), "launch_error");
	assert_string_equal(json_string_value(json_object_get(
		                    json_object_get(rec, "failure"), "reason")),
	                    "out_of_memory");
	json_decref(rec);
	rec = heval(&h, "examples/level1/19_relu.fast.cu");
	assert_string_equal(verdict_of(rec), "ok");
	json_decref(rec);
	hclose(&h);
}

/* A candidate that holds nearly all free device memory must not steer the
 * reference: the reference runs once before the runner allocates the
 * candidate's buffers, so what cuDNN's engine choice (the first engine
 * whose workspace fits) caches for the shape is chosen without the
 * candidate's memory in use. Measured: the reference's time in a judge
 * that evaluated the hog equals a fresh judge's. */
static void reference_not_steered(void **state)
{
	(void)state;
	krl_suite *s = NULL;
	krl_task *t = NULL;
	krl_judge *j1 = NULL, *j2 = NULL;
	json_t *rec = NULL, *r1 = NULL, *r2 = NULL;
	krl_diag d = {0};
	krl_judge_opts o = {.sets = {"kb1"}, .nsets = 1, .no_timing = 1,
	                    .hidden = -1, .runner_path = runner_path()};
	KRL_ASSERT_OK(krl_suite_load("tasks", &s, &d), &d);
	KRL_ASSERT_OK(krl_suite_load_task(s, "level1/63_conv2d_square", &t, &d),
	              &d);
	/* two judges alive at once: each its own op context and plan cache */
	KRL_ASSERT_OK(krl_judge_create(&o, &j1, &d), &d);
	KRL_ASSERT_OK(krl_judge_create(&o, &j2, &d), &d);
	KRL_ASSERT_OK(krl_judge_time_reference(j1, t, "kb1", 20, &r1, &d), &d);
	size_t free_b = 0, total_b = 0;
	assert_int_equal(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
	/* x, w, y of kb1: ~9.7 GB, held twice (judge and runner) */
	const double io = 4.0 * (16.0 * 16 * 1024 * 1024 + 16.0 * 128 * 1022 * 1022);
	double hog = (double)free_b - 2 * io - 3.0 * (1 << 30);
	assert_true(hog > 1e9);
	char path[] = "/tmp/krl-hog-XXXXXX.cu";
	int fd = mkstemps(path, 3);
	assert_true(fd >= 0);
	dprintf(fd, "/* the reference plan, holding %.0f bytes of scratch */\n"
	            "/*@plan\nbuffer hog f32 [%lld]\ncall conv(x, w) -> y\n@*/\n",
	        hog, (long long)(hog / 4));
	close(fd);
	KRL_ASSERT_OK(krl_judge_eval(j2, t, path, &rec, &d), &d);
	print_message("hog of %.1f GB (free %.1f GB): %s %s\n", hog / 1e9,
	              free_b / 1e9,
	              json_string_value(json_object_get(rec, "verdict")),
	              json_string_value(json_object_get(rec, "message")));
	assert_string_equal(json_string_value(json_object_get(rec, "verdict")),
	                    "ok");
	KRL_ASSERT_OK(krl_judge_time_reference(j2, t, "kb1", 20, &r2, &d), &d);
	double t1 = json_number_value(json_object_get(json_object_get(r1, "ref_ms"),
	                                              "median"));
	double t2 = json_number_value(json_object_get(json_object_get(r2, "ref_ms"),
	                                              "median"));
	print_message("reference: fresh judge %.4f ms, after the hog %.4f ms\n",
	              t1, t2);
	assert_true(t2 / t1 > 0.9 && t2 / t1 < 1.1);
	unlink(path);
	json_decref(rec);
	json_decref(r1);
	json_decref(r2);
	krl_judge_free(j1);
	krl_judge_free(j2);
	krl_task_free(t);
	krl_suite_free(s);
}

int main(void)
{
	/* the first test forks before anything initialises CUDA here */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(runner_dies_with_judge),
		cmocka_unit_test(runner_is_clean),
		cmocka_unit_test(timed_record_verifies_every_pair),
		cmocka_unit_test(out_of_memory_is_a_verdict),
		cmocka_unit_test(reference_not_steered),
	};
	/* krl_test_require_gpu initialises CUDA, which a process must not
	 * have done before it forks: ask in a child */
	pid_t p = fork();
	if (p == 0) {
		krl_test_require_gpu("gpu_hygiene");
		_exit(0);
	}
	int st = 0;
	waitpid(p, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		return 77;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
