/* The judge stand-in of the service tests (standin.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "standin.h"
#include "util/clock.h"

struct standin {
	pthread_mutex_t mu;
	int evals, active, max_active;
	char last_sets[256];
	unsigned long long last_seed;
};

static void sleep_ms(double ms)
{
	if (ms <= 0)
		return;
	struct timespec ts = {(time_t)(ms / 1000),
	                      (long)((ms - 1000 * (long)(ms / 1000)) * 1e6)};
	nanosleep(&ts, NULL);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *z = calloc(1, 1 << 20);
	if (z)
		z[fread(z, 1, (1 << 20) - 1, f)] = 0;
	fclose(f);
	return z;
}

static krl_err si_open(void *ctx, int worker, void **wctx, krl_diag *d)
{
	*wctx = ctx;
	return KRL_OK;
}

static krl_err si_eval(void *wctx, const krl_service_request *rq,
                       json_t **record, krl_diag *d)
{
	standin *s = wctx;
	char *text = slurp(rq->cand_path);
	if (!text)
		return krl_diag_set(d, KRL_EIO, (krl_pos){0}, "stand-in: cannot "
		                    "read %s", rq->cand_path);
	if (strcmp(text, rq->cand_text)) {
		free(text);
		return krl_diag_set(d, KRL_EIO, (krl_pos){0}, "stand-in: %s does "
		                    "not hold the candidate", rq->cand_path);
	}
	pthread_mutex_lock(&s->mu);
	s->evals++;
	if (++s->active > s->max_active)
		s->max_active = s->active;
	s->last_sets[0] = 0;
	for (int i = 0; i < rq->nsets; i++)
		snprintf(s->last_sets + strlen(s->last_sets),
		         sizeof s->last_sets - strlen(s->last_sets), "%s%s",
		         i ? "," : "", rq->sets[i]);
	s->last_seed = rq->seed;
	pthread_mutex_unlock(&s->mu);

	const char *task = rq->task->id ? rq->task->id : rq->task->name;
	const char *m = strstr(text, "//@standin ");
	char kind[32] = "";
	double a = 0, b = 0;
	int n = m ? sscanf(m + 11, "%31s %lf %lf", kind, &a, &b) : 0;
	json_t *r;
	if (n >= 1 && !strcmp(kind, "ok")) {
		sleep_ms(n >= 3 ? b : 0);
		r = json_pack("{s:s, s:s, s:s, s:{s:{s:f, s:f, s:f}}}", "task",
		              task, "candidate", rq->cand_path, "verdict", "ok",
		              "timing", "speedup", "median", a, "ci_low",
		              a * 0.98, "ci_high", a * 1.02);
	} else if (n >= 1 && !strcmp(kind, "wrong")) {
		sleep_ms(n >= 2 ? a : 0);
		r = json_pack("{s:s, s:s, s:s, s:s, s:{s:s}}", "task", task,
		              "candidate", rq->cand_path, "verdict", "wrong_output",
		              "message", "output y differs at [3]", "failure",
		              "reason", "mismatch");
	} else if (n >= 1 && !strcmp(kind, "hang")) {
		sleep_ms(n >= 2 ? a : 50);
		r = json_pack("{s:s, s:s, s:s, s:s, s:{s:s}}", "task", task,
		              "candidate", rq->cand_path, "verdict", "timeout",
		              "message", "a candidate call took longer than the "
		              "call timeout", "failure", "reason", "call_timeout");
	} else if (n >= 1 && !strcmp(kind, "stall")) {
		while (krl_now_s() < rq->deadline_s + 0.05)
			sleep_ms(5);
		r = json_pack("{s:s, s:s, s:s, s:{s:{s:f, s:f, s:f}}}", "task",
		              task, "candidate", rq->cand_path, "verdict", "ok",
		              "timing", "speedup", "median", 1.0, "ci_low", 1.0,
		              "ci_high", 1.0);
	} else if (n >= 1 && !strcmp(kind, "crash")) {
		r = json_pack("{s:s, s:s, s:s, s:s}", "task", task, "candidate",
		              rq->cand_path, "verdict", "launch_error", "message",
		              "an illegal memory access was encountered");
	} else {
		r = json_pack("{s:s, s:s, s:s, s:s}", "task", task, "candidate",
		              rq->cand_path, "verdict", "compile_error", "message",
		              "stand-in: no //@standin marker");
	}
	free(text);
	pthread_mutex_lock(&s->mu);
	s->active--;
	pthread_mutex_unlock(&s->mu);
	*record = r;
	return r ? KRL_OK : KRL_ENOMEM;
}

static void si_close(void *wctx)
{
}

standin *standin_new(int nworkers, krl_service_evaluator *ev)
{
	standin *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	pthread_mutex_init(&s->mu, NULL);
	memset(ev, 0, sizeof *ev);
	ev->ctx = s;
	ev->nworkers = nworkers;
	ev->open = si_open;
	ev->eval = si_eval;
	ev->close = si_close;
	ev->name = "stand-in";
	return s;
}

void standin_free(standin *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->mu);
	free(s);
}

int standin_evals(standin *s)
{
	pthread_mutex_lock(&s->mu);
	int n = s->evals;
	pthread_mutex_unlock(&s->mu);
	return n;
}

int standin_max_concurrent(standin *s)
{
	pthread_mutex_lock(&s->mu);
	int n = s->max_active;
	pthread_mutex_unlock(&s->mu);
	return n;
}

void standin_last(standin *s, char *sets, size_t cap, unsigned long long *seed)
{
	pthread_mutex_lock(&s->mu);
	snprintf(sets, cap, "%s", s->last_sets);
	*seed = s->last_seed;
	pthread_mutex_unlock(&s->mu);
}
