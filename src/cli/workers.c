/*
 * Judge workers for the krl tool's commands over several problems
 * (krl optimize TASK...; docs/workers.md): one child process per worker,
 * each with its own judge on its own CUDA device and its own store
 * connection (SQLite WAL: one writer at a time, each evaluation its own
 * transaction), taking the next problem from a shared queue until none is
 * left. The parent never touches CUDA (a process that has initialised it
 * cannot fork a child that uses it); it hands out the problems, collects
 * each one's outcome and reports them in the problems' order, so that the
 * table and the results file read as a one-worker run's.
 *
 * The queue is a pipe holding every problem's index (4 bytes each, written
 * before the workers start; a read of 4 bytes from a pipe is whole on
 * Linux). Each worker answers on its own pipe: a START record when it
 * takes a problem, a DONE record with the outcome when it has finished.
 * A worker that dies between the two leaves its problem failed, with the
 * signal or exit status named; the others go on. A worker whose judge does
 * not open sends a SETUP record with the reason and leaves, so that the
 * others take its share; problems no worker is left to take are reported
 * failed with that reason.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "krl/runtime.h"
#include "krl/store.h"

enum { REC_START = 1, REC_DONE = 2, REC_SETUP = 3 };

/* A record's head: kind, problem, then (DONE) the lengths of the outcome's
 * two texts, which follow it. */
typedef struct rec_head {
	int32_t kind, k, err, lsum, lwhy;
} rec_head;

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads n bytes: 1, 0 at end of file before the first byte, -1 on error
 * or a short record. */
static int read_all(int fd, void *p, size_t n)
{
	char *c = p;
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, c + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return got ? -1 : 0;
		got += (size_t)r;
	}
	return 1;
}

int krl_cli_device_count(void)
{
	int fd[2];
	if (pipe(fd))
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		/* the child initialises CUDA, the parent stays clean */
		int32_t v = krl_device_count();
		int bad = write_all(fd[1], &v, sizeof v);
		_exit(bad ? 1 : 0);
	}
	close(fd[1]);
	int32_t v = -1;
	if (read_all(fd[0], &v, sizeof v) != 1)
		v = -1;
	close(fd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return v;
}

/* A worker's life: its setup, then problems from the queue until it is
 * empty. Never returns. */
static void worker_main(int w, int qfd, int out, krl_cli_worker_fn run,
                        void *ctx, pid_t parent)
{
	/* a parent killed (by `timeout`, a kill, a crash) takes its workers
	 * along; each has committed its evaluations so far, and the same
	 * command resumes them */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(4);
	void *wctx = NULL;
	char why[1200];
	why[0] = 0;
	int setup = run(ctx, w, -1, &wctx, NULL, why, sizeof why);
	if (setup) {
		/* no judge here: leave the problems to the others, and say why
		 * for the ones no worker is left to take */
		rec_head h = { REC_SETUP, -1, setup, 0, (int32_t)strlen(why) };
		run(ctx, w, -2, &wctx, NULL, why, sizeof why);
		_exit(write_all(out, &h, sizeof h) || write_all(out, why, h.lwhy) ?
		      3 : 0);
	}
	int32_t k;
	while (read_all(qfd, &k, sizeof k) == 1) {
		rec_head h = { REC_START, k, 0, 0, 0 };
		if (write_all(out, &h, sizeof h))
			_exit(3);
		char *sum = NULL;
		why[0] = 0;
		h.kind = REC_DONE;
		h.err = run(ctx, w, k, &wctx, &sum, why, sizeof why);
		h.lsum = sum ? (int32_t)strlen(sum) : 0;
		h.lwhy = (int32_t)strlen(why);
		if (write_all(out, &h, sizeof h) || write_all(out, sum, h.lsum) ||
		    write_all(out, why, h.lwhy))
			_exit(3);
		free(sum);
	}
	run(ctx, w, -2, &wctx, NULL, why, sizeof why);
	_exit(0);
}

/* Reports problems from *next on, in order, while their outcomes are in
 * (have), freeing each one's texts. */
static void report_due(krl_cli_report_fn report, void *rctx, int ntasks,
                       int *next, const char *have, const int *errs,
                       char **sums, char **whys)
{
	for (; *next < ntasks && have[*next]; (*next)++) {
		int k = *next;
		report(rctx, k, errs[k], sums[k], whys[k] ? whys[k] : "");
		free(sums[k]);
		free(whys[k]);
		sums[k] = whys[k] = NULL;
	}
}

/* What a worker's exit status says, for a problem it left unfinished. */
static void died(char *buf, size_t n, int w, int status)
{
	if (WIFSIGNALED(status))
		snprintf(buf, n, "worker %d died of signal %d (%s) during this "
		         "problem; run the same command again to resume it", w,
		         WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, n, "worker %d exited (status %d) during this "
		         "problem; run the same command again to resume it", w,
		         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

krl_err krl_cli_workers_run(int nworkers, int ntasks, krl_cli_worker_fn run,
                            void *ctx, krl_cli_report_fn report, void *rctx,
                            krl_diag *d)
{
	if (nworkers < 1 || ntasks < 1)
		return krl_diag_set(d, KRL_EINVAL, (krl_pos){0},
		                    "workers: %d workers for %d problems", nworkers,
		                    ntasks);
	int q[2];
	if (pipe(q))
		return krl_diag_set(d, KRL_EIO, (krl_pos){0}, "workers: pipe: %s",
		                    strerror(errno));
	for (int32_t k = 0; k < ntasks; k++)
		if (write_all(q[1], &k, sizeof k)) {
			close(q[0]);
			close(q[1]);
			return krl_diag_set(d, KRL_EIO, (krl_pos){0},
			                    "workers: the queue: %s", strerror(errno));
		}
	close(q[1]);
	pid_t *pid = calloc((size_t)nworkers, sizeof *pid);
	int *in = calloc((size_t)nworkers, sizeof *in);
	int *cur = calloc((size_t)nworkers, sizeof *cur);
	/* outcomes waiting for their turn: sum text, why text, err */
	char **sums = calloc((size_t)ntasks, sizeof *sums);
	char **whys = calloc((size_t)ntasks, sizeof *whys);
	int *errs = calloc((size_t)ntasks, sizeof *errs);
	char *have = calloc((size_t)ntasks, 1);
	krl_err e = KRL_OK;
	for (int w = 0; in && cur && w < nworkers; w++)
		in[w] = cur[w] = -1;
	if (!pid || !in || !cur || !sums || !whys || !errs || !have) {
		e = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
		goto out;
	}
	fflush(stdout);
	fflush(stderr);
	int started = 0;
	const pid_t self = getpid();
	for (int w = 0; w < nworkers; w++) {
		int r[2];
		if (pipe(r)) {
			e = krl_diag_set(d, KRL_EIO, (krl_pos){0}, "workers: pipe: %s",
			                 strerror(errno));
			break;
		}
		pid[w] = fork();
		if (pid[w] < 0) {
			close(r[0]);
			close(r[1]);
			e = krl_diag_set(d, KRL_EIO, (krl_pos){0}, "workers: fork: %s",
			                 strerror(errno));
			break;
		}
		if (pid[w] == 0) {
			close(r[0]);
			for (int o = 0; o < w; o++)
				if (in[o] >= 0)
					close(in[o]);
			worker_main(w, q[0], r[1], run, ctx, self);
		}
		close(r[1]);
		in[w] = r[0];
		started++;
	}
	close(q[0]);
	q[0] = -1;
	int next = 0, open = started, serr = 0;
	char swhy[1200];
	swhy[0] = 0;
	while (open > 0) {
		struct pollfd pf[64];
		int map[64], np = 0;
		for (int w = 0; w < started && np < 64; w++)
			if (in[w] >= 0) {
				pf[np].fd = in[w];
				pf[np].events = POLLIN;
				map[np++] = w;
			}
		if (poll(pf, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			e = krl_diag_set(d, KRL_EIO, (krl_pos){0}, "workers: poll: %s",
			                 strerror(errno));
			break;
		}
		for (int i = 0; i < np; i++) {
			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			int w = map[i];
			rec_head h;
			int rr = read_all(in[w], &h, sizeof h);
			if (rr == 1 && h.kind == REC_START && h.k >= 0 && h.k < ntasks) {
				cur[w] = h.k;
				continue;
			}
			if (rr == 1 && h.kind == REC_SETUP && h.lwhy >= 0 &&
			    (size_t)h.lwhy < sizeof swhy &&
			    read_all(in[w], swhy, (size_t)h.lwhy) >= 0) {
				swhy[h.lwhy] = 0;
				serr = h.err;
				fprintf(stderr, "krl: %s; its problems go to the other "
				        "workers, if any\n", swhy);
				continue; /* its end of file follows */
			}
			if (rr == 1 && h.kind == REC_DONE && h.k >= 0 && h.k < ntasks &&
			    h.lsum >= 0 && h.lwhy >= 0) {
				char *s = malloc((size_t)h.lsum + 1);
				char *y = malloc((size_t)h.lwhy + 1);
				if (s && y && read_all(in[w], s, (size_t)h.lsum) >= 0 &&
				    read_all(in[w], y, (size_t)h.lwhy) >= 0) {
					s[h.lsum] = 0;
					y[h.lwhy] = 0;
					sums[h.k] = h.lsum ? s : (free(s), NULL);
					whys[h.k] = y;
					errs[h.k] = h.err;
					have[h.k] = 1;
					cur[w] = -1;
					continue;
				}
				free(s);
				free(y);
			}
			/* end of file or a broken record: the worker is gone */
			close(in[w]);
			in[w] = -1;
			open--;
			int status = 0;
			while (waitpid(pid[w], &status, 0) < 0 && errno == EINTR)
				;
			pid[w] = 0;
			if (cur[w] >= 0 && !have[cur[w]]) {
				char buf[300];
				died(buf, sizeof buf, w, status);
				whys[cur[w]] = strdup(buf);
				errs[cur[w]] = KRL_EIO;
				have[cur[w]] = 1;
			}
		}
		report_due(report, rctx, ntasks, &next, have, errs, sums, whys);
	}
	/* problems no worker took (every worker gone early: a judge that
	 * did not open says why) */
	for (int k = next; k < ntasks; k++)
		if (!have[k]) {
			errs[k] = serr ? serr : KRL_EIO;
			whys[k] = strdup(swhy[0] ? swhy :
			                 "no worker left to take this problem; run "
			                 "the same command again to resume");
			have[k] = 1;
		}
	report_due(report, rctx, ntasks, &next, have, errs, sums, whys);
out:
	for (int w = 0; pid && in && w < nworkers; w++) {
		if (in[w] >= 0)
			close(in[w]);
		if (pid[w] > 0) {
			int status;
			kill(pid[w], SIGTERM);
			while (waitpid(pid[w], &status, 0) < 0 && errno == EINTR)
				;
		}
	}
	if (q[0] >= 0)
		close(q[0]);
	for (int k = 0; sums && whys && k < ntasks; k++) {
		free(sums[k]);
		free(whys[k]);
	}
	free(pid);
	free(in);
	free(cur);
	free(sums);
	free(whys);
	free(errs);
	free(have);
	return e;
}

int krl_cli_judge_worker_step(const krl_judge_opts *jo, int ndev,
                              const char *db, int w, int k, void **wctx,
                              char *why, size_t nwhy, int *rc)
{
	krl_cli_judge_worker *jw = *wctx;
	krl_diag d = {0};
	if (k == -1) {
		krl_judge_opts o = *jo;
		o.device = jo->device + w % (ndev > 0 ? ndev : 1);
		*wctx = jw = calloc(1, sizeof *jw);
		krl_err e = !jw ? krl_diag_set(&d, KRL_ENOMEM, (krl_pos){0},
		                                "out of memory") :
		            krl_store_open(db, &jw->st, &d);
		if (e == KRL_OK)
			e = krl_judge_create(&o, &jw->j, &d);
		if (e != KRL_OK)
			snprintf(why, nwhy, "worker %d (device %d): %s", w, o.device,
			         d.msg);
		*rc = e;
		return 1;
	}
	if (k == -2) {
		if (jw) {
			krl_judge_free(jw->j);
			krl_store_close(jw->st);
		}
		free(jw);
		*wctx = NULL;
		*rc = 0;
		return 1;
	}
	return 0;
}
