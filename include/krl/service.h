/*
 * kernelrl: the judge as an HTTP service (docs/serve.md), `krl serve`.
 *
 * Endpoints: POST /v1/evaluate (one candidate -> the verdict record),
 * POST /reward (OpenRLHF's remote reward model contract: completions ->
 * rewards), GET /healthz, GET /metrics (Prometheus text). Requests become
 * jobs on a bounded queue served by one worker per evaluator slot (one per
 * GPU for the judge); beyond the queue a request gets 429 with Retry-After.
 * Every evaluation is committed to the store as `krl optimize` commits
 * them (one run per server start), including those whose request ran past
 * its deadline (504, recorded as a timeout).
 *
 * The evaluator is an interface, so that the whole HTTP, queue and store
 * path runs in CPU tests against a judge stand-in (tests/service/).
 */
#ifndef KRL_SERVICE_H
#define KRL_SERVICE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "krl/error.h"
#include "krl/judge.h"
#include "krl/lang.h"
#include "krl/rl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One evaluation as the service hands it to an evaluator. */
typedef struct krl_service_request {
	const krl_task *task;
	const char *cand_path;   /* the candidate file (its text: cand_text) */
	const char *cand_text;
	const char *const *sets; /* shape sets asked for; nsets 0: the evaluator's */
	int nsets;
	uint64_t seed;           /* the judge's seed; 0: the evaluator's own */
	double deadline_s;       /* CLOCK_MONOTONIC seconds when the request's
	                          * answer is due; an evaluator may stop early
	                          * past it (the judge has its own timeouts) */
} krl_service_request;

/*
 * Anything that turns a candidate into a verdict record, with one state
 * per worker: the judge (one per GPU), or in tests a stand-in. open runs
 * in worker w's own thread before its first job (so a CUDA device chosen
 * there stays with the thread); eval returns KRL_OK with a record whatever
 * the verdict, and an error only when the evaluator itself fails.
 */
typedef struct krl_service_evaluator {
	void *ctx;
	int nworkers;            /* workers to start (at least 1) */
	krl_err (*open)(void *ctx, int worker, void **wctx, krl_diag *d);
	krl_err (*eval)(void *wctx, const krl_service_request *rq,
	                json_t **record, krl_diag *d);
	void (*close)(void *wctx);
	const char *name;        /* "judge", "stand-in" (in /healthz and the run) */
} krl_service_evaluator;

/*
 * The judge as a service evaluator: worker w gets a judge on CUDA device
 * w with options o (copied; the strings it points at must outlive the
 * evaluator). ndevices 0: the visible device count (at least 1, so that a
 * machine without a GPU fails at start with the judge's message). Free
 * with krl_service_judge_evaluator_free.
 */
krl_err krl_service_judge_evaluator(const krl_judge_opts *o, int ndevices,
                                    krl_service_evaluator *out, krl_diag *d);
void krl_service_judge_evaluator_free(krl_service_evaluator *ev);

typedef struct krl_service_opts {
	const char *host;        /* NULL: "127.0.0.1" */
	int port;                /* 0: any free port (krl_service_port says) */
	const char *token;       /* bearer token (NULL or "": none, refused
	                          * unless host is a loopback address) */
	int queue;               /* jobs waiting beyond the workers; 0: 64 */
	size_t max_body;         /* request body limit, bytes; 0: 4 MiB */
	double request_timeout_s;/* per request; 0: 600 */
	const char *db;          /* the store; NULL: "krl.db" */
	const char *work_dir;    /* candidate files; NULL: "krl-candidates" */
	const char *tasks_root;  /* NULL: krl_tasks_root() */
	const char *config;      /* JSON text kept with the run; NULL: "{}" */
	krl_reward_opts reward;  /* as krl optimize's (zeros: its defaults) */
	int raw_reward;          /* /reward answers krl_reward_raw instead of
	                          * the normalised reward the store keeps */
	int verbose;             /* one line per request on stderr */
} krl_service_opts;

typedef struct krl_service krl_service;

/*
 * Opens the store and the run, starts the workers (each opens its
 * evaluator; the first failure fails the start) and listens. Refuses
 * (KRL_EINVAL) a non-loopback host without a token. ev is copied; its ctx
 * must outlive the service. Stop with krl_service_stop.
 */
krl_err krl_service_start(const krl_service_opts *o,
                          const krl_service_evaluator *ev, krl_service **out,
                          krl_diag *d);

/* The port listened on. */
int krl_service_port(const krl_service *s);
/* The run's name in the store ("serve/<UTC start>/<pid>"). */
const char *krl_service_run(const krl_service *s);

/*
 * Graceful stop: closes the listening socket, answers requests that arrive
 * on open connections with 503, lets every accepted request finish (each
 * within its own deadline, past which it is answered 504 and recorded as a
 * timeout), stops the workers and closes the store. NULL is a no-op.
 */
void krl_service_stop(krl_service *s);

#ifdef __cplusplus
}
#endif
#endif
