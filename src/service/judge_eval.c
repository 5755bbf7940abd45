/*
 * The judge as the service's evaluator (include/krl/service.h): worker w
 * owns a judge on CUDA device w, created in the worker's own thread (the
 * runtime's current device is per thread). A request's shape sets and
 * seed apply to its one evaluation: the worker's judge is set to them and
 * back, which is safe because only that worker uses it.
 */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "judge/judge_int.h"
#include "krl/service.h"

typedef struct judge_ctx {
	krl_judge_opts o;
} judge_ctx;

static krl_err judge_open(void *ctx, int worker, void **wctx, krl_diag *d)
{
	judge_ctx *c = ctx;
	krl_judge_opts o = c->o;
	krl_judge *j = NULL;
	o.device = c->o.device + worker;
	krl_err e = krl_judge_create(&o, &j, d);
	*wctx = j;
	return e;
}

/*
 * Runs one evaluation with the request's shape sets (the timing set is
 * the last, as krl eval's --shapes) and seed in place of the judge's own,
 * restored afterwards.
 */
static krl_err judge_eval(void *wctx, const krl_service_request *rq,
                          json_t **record, krl_diag *d)
{
	krl_judge *j = wctx;
	krl_judge_opts saved = j->o;
	krl_rng saved_rng = j->rng;
	if (rq->nsets > 0) {
		int n = rq->nsets < KRL_JUDGE_MAX_SETS ? rq->nsets
		                                       : KRL_JUDGE_MAX_SETS;
		for (int i = 0; i < n; i++)
			j->o.sets[i] = rq->sets[i];
		j->o.nsets = n;
		j->o.time_set = rq->sets[n - 1];
	}
	if (rq->seed) {
		j->o.seed = rq->seed;
		j->rng.s = rq->seed;
	}
	krl_err e = krl_judge_eval(j, rq->task, rq->cand_path, record, d);
	j->o = saved;
	if (rq->seed)
		j->rng = saved_rng;
	return e;
}

static void judge_close(void *wctx)
{
	krl_judge_free(wctx);
}

krl_err krl_service_judge_evaluator(const krl_judge_opts *o, int ndevices,
                                    krl_service_evaluator *out, krl_diag *d)
{
	judge_ctx *c = calloc(1, sizeof *c);
	memset(out, 0, sizeof *out);
	if (!c)
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
	c->o = *o;
	if (ndevices <= 0) {
		int n = 0;
		if (cudaGetDeviceCount(&n) != cudaSuccess)
			n = 0;
		/* Devices below --device are not ours to use. */
		ndevices = n - o->device;
		if (ndevices < 1)
			ndevices = 1;
	}
	out->ctx = c;
	out->nworkers = ndevices;
	out->open = judge_open;
	out->eval = judge_eval;
	out->close = judge_close;
	out->name = "judge";
	return KRL_OK;
}

void krl_service_judge_evaluator_free(krl_service_evaluator *ev)
{
	if (!ev)
		return;
	free(ev->ctx);
	ev->ctx = NULL;
}
