/*
 * The service's bounded work queue, its workers and the store
 * (src/service/service_int.h).
 *
 * A request's jobs are admitted together or not at all (429). A worker
 * takes the oldest job, writes its candidate file, evaluates it, commits
 * its row (one transaction, as krl optimize does) and only then wakes the
 * request, so an answer is never sent for an evaluation the store lacks.
 * When a request's deadline passes, its queued jobs are withdrawn and
 * recorded as timeouts by the request itself; a running one is abandoned
 * to its worker, which records it as a timeout (with the late record
 * attached) when the evaluator returns. Either way each admitted job
 * makes exactly one row.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rl/loop_int.h"
#include "service/service_int.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/strbuf.h"

void krl_svc_job_free(svc_job *j)
{
	if (!j)
		return;
	krl_task_free(j->task);
	free(j->cand_text);
	free(j->no_cand_msg);
	free(j->prompt);
	free(j->completion);
	json_decref(j->record);
	free(j);
}

/* ==== Candidate files ==== */

/*
 * Stores the job's candidate (content-addressed) and makes sure
 * <work_dir>/<hash>.cu holds it. The file is written under a temporary
 * name and renamed, so that a worker reading the same candidate (the same
 * text sent twice at once) never sees it half-written.
 */
static krl_err put_candidate(krl_service *s, svc_job *j, int worker,
                             char hash[65], char *path, size_t cap,
                             krl_diag *d)
{
	pthread_mutex_lock(&s->store_mu);
	krl_err e = krl_store_put_candidate(s->store, j->cand_text,
	                                    strlen(j->cand_text), hash, d);
	pthread_mutex_unlock(&s->store_mu);
	if (e != KRL_OK)
		return e;
	if ((e = krl_fmt_fixed(path, cap, "the candidate path", d, "%s/%s.cu",
	                       s->work_dir, hash)) != KRL_OK)
		return e;
	if (access(path, R_OK) == 0)
		return KRL_OK;
	char *tmp = krl_fmt("%s/.%s.%d.%d.tmp", s->work_dir, hash, (int)getpid(),
	                    worker);
	if (!tmp)
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
	FILE *f = fopen(tmp, "wb");
	int bad = !f || fputs(j->cand_text, f) < 0;
	if (f && fclose(f) != 0)
		bad = 1;
	if (!bad && rename(tmp, path) != 0)
		bad = 1;
	if (bad) {
		e = krl_diag_set(d, KRL_EIO, (krl_pos){0}, "cannot write %s: %s",
		                 path, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return e;
}

/* ==== Rows ==== */

/* A timeout record for a job whose request's deadline passed; late is
 * the evaluator's own record when it finished after all (consumed, may
 * be NULL). */
static json_t *deadline_record(const svc_job *j, double timeout_s,
                               int running, json_t *late)
{
	char msg[256];
	snprintf(msg, sizeof msg,
	         "the request's deadline (%g s) passed while the candidate %s",
	         timeout_s, running ? "was being evaluated"
	                            : "waited for a worker");
	json_t *r = json_pack("{s:s, s:s, s:s, s:{s:s, s:f}}", "task",
	                      j->task->id ? j->task->id : j->task->name,
	                      "verdict", "timeout", "message", msg, "failure",
	                      "reason", "request_deadline", "timeout_s",
	                      timeout_s);
	if (r && late)
		json_object_set_new(r, "late_record", late);
	else
		json_decref(late);
	return r;
}

/*
 * Commits job j's row with record rec (consumed: kept in j->record) and
 * fills j's result fields. The reward is pushed through the run's rolling
 * normaliser in commit order, as krl optimize does.
 */
static krl_err store_row(krl_service *s, svc_job *j, json_t *rec,
                         krl_diag *d)
{
	krl_eval_row row;
	krl_err e = KRL_OK;
	memset(&row, 0, sizeof row);
	json_decref(j->record);
	j->record = rec;
	row.run_id = s->run_id;
	snprintf(row.slot, sizeof row.slot, "b%d/k%d", j->group, j->member);
	row.round = 0;
	row.group = j->group;
	row.member = j->member;
	if ((e = krl_fmt_fixed(row.task, sizeof row.task, "the task id", d, "%s",
	                       j->task->id ? j->task->id : j->task->name)) !=
	    KRL_OK)
		return e;
	krl_loop_read_record(rec, &row);
	row.prompt = j->prompt;
	row.completion = j->completion;
	row.policy = "serve";
	row.record = json_dumps(rec, JSON_COMPACT);
	if (!row.record)
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
	int ok = !strcmp(row.verdict, "ok");
	pthread_mutex_lock(&s->store_mu);
	if (j->cand_text)
		e = krl_store_put_candidate(s->store, j->cand_text,
		                            strlen(j->cand_text), row.cand_hash, d);
	double raw = krl_reward_raw(ok, row.speedup, &s->o.reward);
	if (e == KRL_OK) {
		row.reward = krl_reward_norm_push(&s->norm, raw);
		e = krl_store_add_eval(s->store, &row, d);
	}
	pthread_mutex_unlock(&s->store_mu);
	free(row.record);
	snprintf(j->verdict, sizeof j->verdict, "%s", row.verdict);
	j->speedup = ok ? row.speedup : 0;
	j->raw_reward = raw;
	j->reward = row.reward;
	j->row_id = row.id;
	return e;
}

/* Marks j failed (the evaluator or the store): the request answers 500. */
static void set_failed(svc_job *j, krl_err e, const krl_diag *d)
{
	char buf[1200];
	j->err = e;
	snprintf(j->errmsg, sizeof j->errmsg, "%s",
	         krl_diag_format(d, buf, sizeof buf));
}

void krl_svc_record_now(krl_service *s, svc_job *j, json_t *record)
{
	krl_diag d = {0};
	krl_err e = record ? store_row(s, j, record, &d)
	                   : krl_diag_set(&d, KRL_ENOMEM, (krl_pos){0},
	                                  "out of memory");
	pthread_mutex_lock(&s->mu);
	if (e != KRL_OK)
		set_failed(j, e, &d);
	else
		krl_svc_metrics_eval(s, j->verdict,
		                     j->t_enqueue > 0 ? krl_now_s() - j->t_enqueue
		                                      : 0);
	j->state = JOB_DONE;
	pthread_mutex_unlock(&s->mu);
}

/* ==== Workers ==== */

typedef struct worker_arg {
	krl_service *s;
	int index;
} worker_arg;

/* Evaluates one job taken off the queue (state JOB_RUNNING). */
static void run_job(krl_service *s, void *wctx, int worker, svc_job *j)
{
	char hash[65], path[4200];
	json_t *rec = NULL;
	krl_diag d = {0};
	double t0 = krl_now_s();
	krl_err e = put_candidate(s, j, worker, hash, path, sizeof path, &d);
	if (e == KRL_OK) {
		krl_service_request rq = {
			.task = j->task, .cand_path = path, .cand_text = j->cand_text,
			.sets = j->sets, .nsets = j->nsets, .seed = j->seed,
			.deadline_s = j->deadline};
		e = s->ev.eval(wctx, &rq, &rec, &d);
		if (e == KRL_OK && !rec)
			e = krl_diag_set(&d, KRL_EINVAL, (krl_pos){0},
			                 "the evaluator gave no record");
	}
	double secs = krl_now_s() - t0;
	pthread_mutex_lock(&s->mu);
	s->eval_ms_ewma = s->eval_ms_ewma > 0
	                          ? 0.9 * s->eval_ms_ewma + 0.1 * secs * 1e3
	                          : secs * 1e3;
	int abandoned = j->abandoned;
	double timeout_s = j->timeout_s;
	if (!abandoned)
		j->committing = 1;
	else
		j->batch = NULL; /* its request is gone */
	pthread_mutex_unlock(&s->mu);
	if (abandoned) {
		/* The request saw a 504: the row says timeout, whatever the
		 * evaluator found afterwards. */
		json_t *late = rec;
		if (e != KRL_OK) {
			json_decref(late);
			late = NULL;
		}
		rec = deadline_record(j, timeout_s, 1, late);
		e = rec ? KRL_OK
		        : krl_diag_set(&d, KRL_ENOMEM, (krl_pos){0},
		                       "out of memory");
	}
	if (e == KRL_OK && rec)
		e = store_row(s, j, rec, &d);
	else
		json_decref(rec);
	pthread_mutex_lock(&s->mu);
	s->in_flight--; /* only now: its row is committed */
	if (e != KRL_OK) {
		set_failed(j, e, &d);
		s->judge_errors++;
	} else {
		krl_svc_metrics_eval(s, j->verdict, krl_now_s() - j->t_enqueue);
	}
	if (abandoned) {
		pthread_mutex_unlock(&s->mu);
		krl_svc_job_free(j);
		return;
	}
	j->state = JOB_DONE;
	j->committing = 0;
	j->batch->remaining--;
	pthread_cond_broadcast(&j->batch->done);
	pthread_mutex_unlock(&s->mu);
}

static void *worker_main(void *arg)
{
	worker_arg *a = arg;
	krl_service *s = a->s;
	int w = a->index;
	void *wctx = NULL;
	krl_diag d = {0};
	free(a);
	krl_err e = s->ev.open ? s->ev.open(s->ev.ctx, w, &wctx, &d) : KRL_OK;
	pthread_mutex_lock(&s->mu);
	s->opened++;
	if (e != KRL_OK && s->open_err == KRL_OK) {
		s->open_err = e;
		s->open_diag = d;
	}
	pthread_cond_broadcast(&s->opened_cv);
	pthread_mutex_unlock(&s->mu);
	if (e != KRL_OK)
		return NULL;
	for (;;) {
		pthread_mutex_lock(&s->mu);
		while (!s->head && !s->workers_quit)
			pthread_cond_wait(&s->work, &s->mu);
		svc_job *j = s->head;
		if (!j) {
			pthread_mutex_unlock(&s->mu);
			break;
		}
		s->head = j->next;
		if (!s->head)
			s->tail = NULL;
		j->next = NULL;
		s->queued--;
		s->in_flight++;
		j->state = JOB_RUNNING;
		pthread_mutex_unlock(&s->mu);
		run_job(s, wctx, w, j);
	}
	if (s->ev.close)
		s->ev.close(wctx);
	return NULL;
}

krl_err krl_svc_workers_start(krl_service *s, krl_diag *d)
{
	int n = s->ev.nworkers > 0 ? s->ev.nworkers : 1;
	s->threads = calloc((size_t)n, sizeof *s->threads);
	if (!s->threads)
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
	for (int i = 0; i < n; i++) {
		worker_arg *a = malloc(sizeof *a);
		if (a) {
			a->s = s;
			a->index = i;
		}
		if (!a || pthread_create(&s->threads[i], NULL, worker_main, a)) {
			free(a);
			pthread_mutex_lock(&s->mu);
			if (s->open_err == KRL_OK) {
				s->open_err = krl_diag_set(&s->open_diag, KRL_ENOMEM,
				                           (krl_pos){0},
				                           "cannot start worker %d", i);
			}
			pthread_mutex_unlock(&s->mu);
			break;
		}
		s->nthreads++;
	}
	pthread_mutex_lock(&s->mu);
	while (s->opened < s->nthreads)
		pthread_cond_wait(&s->opened_cv, &s->mu);
	krl_err e = s->open_err;
	if (e != KRL_OK)
		*d = s->open_diag;
	pthread_mutex_unlock(&s->mu);
	return e;
}

void krl_svc_workers_stop(krl_service *s)
{
	pthread_mutex_lock(&s->mu);
	s->workers_quit = 1;
	pthread_cond_broadcast(&s->work);
	pthread_mutex_unlock(&s->mu);
	for (int i = 0; i < s->nthreads; i++)
		pthread_join(s->threads[i], NULL);
	free(s->threads);
	s->threads = NULL;
	s->nthreads = 0;
}

/* ==== Admission and waiting ==== */

int krl_svc_admit(krl_service *s, svc_job **jobs, int n, svc_batch *b,
                  int *retry)
{
	pthread_mutex_lock(&s->mu);
	if (s->stopping) {
		pthread_mutex_unlock(&s->mu);
		return 503;
	}
	if (s->queued + n > s->o.queue) {
		/* When would the queue have room: the work ahead of us spread
		 * over the workers, at the recent mean evaluation time. */
		int nw = s->nthreads > 0 ? s->nthreads : 1;
		double ms = s->eval_ms_ewma > 0 ? s->eval_ms_ewma : 1000;
		double secs = (s->queued + s->in_flight) * ms / 1e3 / nw;
		*retry = secs < 1 ? 1 : secs > 600 ? 600 : (int)ceil(secs);
		pthread_mutex_unlock(&s->mu);
		return 429;
	}
	double now = krl_now_s();
	for (int i = 0; i < n; i++) {
		svc_job *j = jobs[i];
		j->state = JOB_QUEUED;
		j->batch = b;
		j->deadline = b->deadline;
		j->timeout_s = b->timeout_s;
		j->t_enqueue = now;
		j->next = NULL;
		if (s->tail)
			s->tail->next = j;
		else
			s->head = j;
		s->tail = j;
	}
	s->queued += n;
	b->remaining += n;
	pthread_cond_broadcast(&s->work);
	pthread_mutex_unlock(&s->mu);
	return 0;
}

/* Takes j off the queue (with mu held); 0 when it was not there. */
static int unqueue(krl_service *s, svc_job *j)
{
	svc_job *prev = NULL;
	for (svc_job *x = s->head; x; prev = x, x = x->next) {
		if (x != j)
			continue;
		if (prev)
			prev->next = x->next;
		else
			s->head = x->next;
		if (s->tail == x)
			s->tail = prev;
		x->next = NULL;
		s->queued--;
		return 1;
	}
	return 0;
}

int krl_svc_wait(krl_service *s, svc_job **jobs, int n, svc_batch *b)
{
	struct timespec ts;
	double dl = b->deadline;
	ts.tv_sec = (time_t)dl;
	ts.tv_nsec = (long)((dl - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	pthread_mutex_lock(&s->mu);
	while (b->remaining > 0)
		if (pthread_cond_timedwait(&b->done, &s->mu, &ts) == ETIMEDOUT)
			break;
	if (b->remaining == 0) {
		pthread_mutex_unlock(&s->mu);
		return 1;
	}
	int late = 0;
	for (int i = 0; i < n; i++) {
		svc_job *j = jobs[i];
		if (!j)
			continue;
		if (j->state == JOB_QUEUED && unqueue(s, j)) {
			j->state = JOB_EXPIRED;
			b->remaining--;
			late = 1;
		} else if (j->state == JOB_RUNNING && !j->committing) {
			j->abandoned = 1;
			b->remaining--;
			jobs[i] = NULL;
			late = 1;
		}
	}
	/* What is left is being committed right now: wait for it. */
	while (b->remaining > 0)
		pthread_cond_wait(&b->done, &s->mu);
	pthread_mutex_unlock(&s->mu);
	for (int i = 0; i < n; i++)
		if (jobs[i] && jobs[i]->state == JOB_EXPIRED)
			krl_svc_record_now(s, jobs[i],
			                   deadline_record(jobs[i], b->timeout_s, 0,
			                                   NULL));
	return !late;
}
