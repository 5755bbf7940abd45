/*
 * The service's private state (include/krl/service.h), shared by
 * server.c (HTTP), queue.c (jobs, workers, the store) and metrics.c.
 *
 * Locking: s->mu guards the queue, every job's state and the metrics;
 * s->store_mu guards the store handle and the reward normaliser (the store
 * is one SQLite handle, which is not thread-safe). Never take mu while
 * holding store_mu.
 */
#ifndef KRL_SERVICE_INT_H
#define KRL_SERVICE_INT_H

#include <pthread.h>
#include <stdint.h>

#include "krl/service.h"
#include "krl/store.h"
#include "krl/suite.h"

#define SVC_MAX_SETS (KRL_JUDGE_MAX_SETS / 2)
/* Latency histogram bucket bounds, seconds (+Inf implied). */
#define SVC_NBUCKETS 13
extern const double krl_svc_buckets[SVC_NBUCKETS];
/* Verdict names counted in the metrics: the judge's, then no_candidate. */
#define SVC_NVERDICTS (KRL_V_COUNT + 1)

typedef enum svc_state {
	JOB_NEW,                 /* not queued (no candidate, or refused) */
	JOB_QUEUED,
	JOB_RUNNING,
	JOB_DONE,                /* recorded (or failed); result fields set */
	JOB_EXPIRED              /* its deadline passed while queued */
} svc_state;

typedef struct svc_batch svc_batch;

/* One candidate to evaluate. Owned by its request's handler until it is
 * abandoned while running: then the worker records and frees it. */
typedef struct svc_job {
	struct svc_job *next;    /* queue link */
	svc_batch *batch;
	krl_task *task;
	char *cand_text;         /* NULL: nothing could be extracted */
	char *no_cand_msg;       /* why, when cand_text is NULL */
	char *prompt, *completion; /* kept with the row (may be NULL) */
	const char *sets[SVC_MAX_SETS];
	int nsets;
	char sets_buf[512];
	uint64_t seed;
	int group, member;       /* the slot "b<group>/k<member>" */
	double t_enqueue;
	double deadline, timeout_s; /* its request's (the batch may be gone) */
	/* guarded by mu */
	svc_state state;
	int committing;          /* the worker is writing its row */
	int abandoned;           /* answered 504 while running */
	/* results (valid in JOB_DONE) */
	json_t *record;
	char verdict[32];
	double speedup, reward, raw_reward;
	int64_t row_id;
	krl_err err;             /* the evaluator or the store failed */
	char errmsg[1024];
} svc_job;

/* The jobs of one request, answered together. */
struct svc_batch {
	pthread_cond_t done;
	int remaining;           /* jobs not DONE yet (guarded by mu) */
	double deadline;
	double timeout_s;
};

struct krl_service {
	krl_service_opts o;
	krl_service_evaluator ev;
	struct MHD_Daemon *daemon;
	int port;
	char host[256];
	char run[128];
	int64_t run_id;
	krl_suite *suite;
	krl_store *store;
	char *work_dir;

	pthread_mutex_t mu;
	pthread_cond_t work;     /* a job was queued, or stopping */
	svc_job *head, *tail;
	int queued, in_flight;
	int stopping;            /* no new requests */
	int workers_quit;        /* workers leave once the queue is empty */
	int active;              /* requests begun before stopping and not yet
	                          * completed (their answer sent or dropped) */
	pthread_cond_t idle;     /* active reached 0 */
	int next_group;

	pthread_t *threads;
	int nthreads;
	int opened;              /* workers that finished open (ok or not) */
	krl_err open_err;
	krl_diag open_diag;
	pthread_cond_t opened_cv;

	pthread_mutex_t store_mu;
	krl_reward_norm norm;

	/* metrics (guarded by mu) */
	uint64_t verdicts[SVC_NVERDICTS];
	uint64_t other_verdicts;
	uint64_t by_status[600];
	uint64_t judge_errors;
	uint64_t buckets[SVC_NBUCKETS];
	uint64_t lat_count;
	double lat_sum;
	double eval_ms_ewma;     /* mean evaluation time, for Retry-After */
};

/* ==== queue.c ==== */

/* Starts the workers and waits until each has opened its evaluator. */
krl_err krl_svc_workers_start(krl_service *s, krl_diag *d);
/* Lets the workers drain the queue, then joins them. */
void krl_svc_workers_stop(krl_service *s);
/* Admits the n jobs of batch b at once: 0, or 429 (queue full; *retry
 * the seconds to advise) or 503 (stopping). Called without mu held. */
int krl_svc_admit(krl_service *s, svc_job **jobs, int n, svc_batch *b,
                  int *retry);
/* Waits for the batch until its deadline; past it, withdraws queued jobs
 * (JOB_EXPIRED) and abandons running ones. Returns 1 when every job is
 * JOB_DONE, 0 when some expired or were abandoned (the answer is 504).
 * Abandoned jobs belong to their worker afterwards: the caller must not
 * touch them (jobs[i] is set to NULL). Expired ones are recorded here. */
int krl_svc_wait(krl_service *s, svc_job **jobs, int n, svc_batch *b);
/* Records a job that never reached a worker (no candidate, or expired)
 * with record (consumed; NULL: out of memory, the job fails) and marks
 * it JOB_DONE. */
void krl_svc_record_now(krl_service *s, svc_job *j, json_t *record);
void krl_svc_job_free(svc_job *j);

/* ==== metrics.c ==== */

/* Counts a recorded verdict and its latency (with mu held). */
void krl_svc_metrics_eval(krl_service *s, const char *verdict, double secs);
/* Counts an HTTP answer (takes mu). */
void krl_svc_metrics_http(krl_service *s, int status);
/* The Prometheus text (malloc'd; NULL when out of memory; takes mu). */
char *krl_svc_metrics_text(krl_service *s);

#endif
