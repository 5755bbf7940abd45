/*
 * One evaluation: candidate file in, verdict record out.
 *
 *   read and parse once -> resolve on every shape set -> include rule and
 *   sandboxed NVRTC compile (precheck.c) -> for each set: the reference
 *   primed before the candidate holds any memory, then correctness on
 *   fresh nominal seeds and on stress draws (params and inputs drawn on the
 *   device, outputs poisoned, guards and inputs checked, every element
 *   compared, degenerate outputs rejected) -> on the timing set:
 *   interleaved timing with the L2 flushed and fresh inputs before every
 *   call, every timed pair verified, until the relative standard error is
 *   small or the budget (charged to timed pairs only) ends. In graph
 *   timing mode each side's plan is captured once in a CUDA graph before
 *   the warm-up pairs (ref_graph here, the runner's "capture") and every
 *   timed call replays it; nothing else about the loop changes.
 *
 * The candidate's buffers (inputs, params, outputs) live in the runner,
 * which draws them from the seeds sent here, so a timed candidate call runs
 * on memory of its own context, as the reference does here; the judge maps
 * them (CUDA IPC) to check them. The reference runs here on private copies
 * drawn from the same seeds. Reference outputs never leave this process.
 * Every seed and choice comes from getrandom (krl_judge_rand), and values
 * derive from seeds under a per-evaluation secret key (draw.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge_int.h"
#include "krl/check.h"
#include "krl/nvrtc.h"
#include "util/clock.h"
#include "util/json.h"

/* A verdict other than ok has been reached: stop the evaluation. */
#define STOP 1
/* The fewest timed pairs of any result: the median's order-statistic
 * interval reaches 95% coverage from 6 pairs (at 5 it covers 93.75%). */
#define MIN_PAIRS_FLOOR 6
/* Stress draws compare with atol times this, times how much the draw grew
 * the inputs' or the outputs' largest magnitude (docs/judge.md). */
#define STRESS_TOL_MARGIN 4.0
/* Where the reference itself moves out of tolerance under the
 * conditioning probe's jitter (krl_stress_jitter, docs/judge.md
 * "Ill-conditioned draws"), a candidate passes the draw with an error
 * (root of the sum of squares, and largest) at most this many times the
 * reference's own. */
#define CONDITION_MARGIN 8.0

typedef struct evalctx {
	krl_judge *j;
	const krl_task *t;
	krl_candidate *cand;
	const char *cand_path;
	json_t *rec;
	krl_cubin *cubin;
	char *cubin_hex;
	char *task_hex, *cand_hex; /* the texts the runner parses */
	char key_hex[2 * KRL_JUDGE_KEY_BYTES + 1];
	int nsets;           /* named sets, then hidden ones */
	double prep_ms;      /* the runner's last preparation time (run) */
	krl_timing_mode mode;/* this evaluation's timing mode (resolved) */
	double phase[4];     /* seconds in prepare, load, correctness, timing */
} evalctx;

typedef struct setbufs {
	const char *name;
	krl_shapeset hidden; /* a hidden set's keys (borrowed) and values */
	int is_hidden;
	char hname[24];
	krl_program *cp;     /* candidate program */
	krl_program *rp;     /* reference program */
	krl_gbuf *sh;        /* [ntask] the runner's task buffers, mapped here */
	krl_gbuf *pv;        /* [rp->nbufs] private: task copies + ref scratch */
	void **rptr;
	double *nom_max;     /* [ntask] largest |value| of each input and
	                      * output over the nominal seeds */
	int loaded;          /* the runner holds this set */
	krl_cugraph *graph;    /* graph mode: the reference's captured body,
	                      * replayed by its timed calls */
} setbufs;

#define verdict(E, ...) krl_judge_verdict((E)->rec, __VA_ARGS__)

/* A failure of the judge's own device work (the reference, a check).
 * While the candidate's buffers are held, running out of device memory is
 * the candidate's doing: the verdict launch_error (out_of_memory) instead
 * of an error of kernelrl. Returns STOP or -1. */

static int judge_fail(evalctx *E, const setbufs *S, krl_err r, krl_err *err,
                      krl_diag *d)
{
	if (S && S->loaded && (r == KRL_EDEVMEM || r == KRL_ENOMEM))
		return verdict(E, KRL_V_LAUNCH_ERROR,
		               json_pack("{s:s, s:s}", "reason", "out_of_memory",
		                         "set", S->name),
		               "out_of_memory: the judge could not get the device "
		               "memory its reference or checks need while the "
		               "candidate's buffers were held (set %s): %s",
		               S->name, d->msg);
	*err = r;
	return -1;
}

/* Milliseconds of a timeout in seconds, for poll(2): clamped, so that a
 * huge --timeout cannot overflow. */
static int timeout_ms(double s)
{
	double ms = s * 1e3;
	return !(ms > 0) ? 0 : ms > 2e9 ? 2000000000 : (int)ms;
}

/* ==== Buffers ==== */

/* Closes the mappings of the runner's buffers (before the runner frees
 * them). */
static void set_unmap(setbufs *S)
{
	if (S->sh && S->rp)
		for (int i = 0; i < S->rp->ntask; i++)
			krl_gbuf_free(&S->sh[i]);
}

static void set_free(setbufs *S)
{
	set_unmap(S);
	krl_cugraph_free(S->graph);
	S->graph = NULL;
	if (S->pv && S->rp)
		for (int i = 0; i < S->rp->nbufs; i++)
			krl_gbuf_free(&S->pv[i]);
	free(S->sh);
	free(S->pv);
	free(S->rptr);
	free(S->nom_max);
	S->sh = S->pv = NULL;
	S->rptr = NULL;
	S->nom_max = NULL;
}

/* The judge's private buffers of a set. On failure what was allocated
 * stays in S for set_free. */
static krl_err set_alloc(krl_judge *j, setbufs *S, krl_diag *d)
{
	krl_err r = KRL_OK;
	const krl_program *p = S->rp;
	S->sh = calloc((size_t)p->ntask, sizeof *S->sh);
	S->pv = calloc((size_t)p->nbufs, sizeof *S->pv);
	S->rptr = calloc((size_t)p->nbufs, sizeof *S->rptr);
	S->nom_max = calloc((size_t)p->ntask, sizeof *S->nom_max);
	if (!S->sh || !S->pv || !S->rptr || !S->nom_max)
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
	for (int i = 0; i < p->nbufs && r == KRL_OK; i++) {
		if (p->bufs[i].role == KRL_ROLE_VIEW)
			continue; /* bound below, into its root */
		r = krl_gbuf_alloc(&S->pv[i], p->bufs[i].bytes, j->stream, d);
		S->rptr[i] = S->pv[i].ptr;
	}
	if (r == KRL_OK)
		krl_program_bind_views(p, S->rptr, 0);
	return r;
}

/* ==== Runner requests ==== */

/* The most a "load" request may take (KRL_LOAD_TIMEOUT_S, or the call
 * deadline when that is longer): parsing, building the program, the
 * buffers of a large set and loading the module run no candidate code.
 * (Loads of 10-100 s on level 3's large candidates were the runner's
 * hex decoding, quadratic in the cubin's size until 2026-12-05.) */
#define KRL_LOAD_TIMEOUT_S 60.0

/* Sends a request with a deadline of `seconds`; turns runner failures into
 * verdicts. Returns 0 with *rep set (caller decrefs), STOP after recording
 * a verdict, or -1 with *err set for a judge failure. */
static int runner_req_within(evalctx *E, json_t *req, double seconds,
                             json_t **rep, krl_err *err, krl_diag *d)
{
	krl_judge *j = E->j;
	krl_diag rd = {0};
	*rep = NULL;
	krl_err r = krl_judge_runner_call(j, req, timeout_ms(seconds), rep, &rd);
	if (r == KRL_ETIMEOUT)
		return verdict(E, KRL_V_TIMEOUT, NULL,
		               "the candidate did not finish within %.1f s: %s",
		               seconds, rd.msg);
	if (r == KRL_ERUNNER)
		return verdict(E, KRL_V_LAUNCH_ERROR, NULL,
		               "the runner process died: %s", rd.msg);
	if (r != KRL_OK) {
		*err = r;
		*d = rd;
		return -1;
	}
	if (!json_is_true(json_object_get(*rep, "ok"))) {
		const char *kind = json_string_value(json_object_get(*rep, "kind"));
		const char *msg = json_string_value(json_object_get(*rep, "msg"));
		int rc;
		if (kind && !strcmp(kind, "launch_error"))
			rc = verdict(E, KRL_V_LAUNCH_ERROR, NULL, "%s", msg ? msg : "");
		else if (kind && !strcmp(kind, "out_of_memory"))
			rc = verdict(E, KRL_V_LAUNCH_ERROR,
			             json_pack("{s:s}", "reason", "out_of_memory"), "%s",
			             msg ? msg : "");
		else if (kind && !strcmp(kind, "not_capturable"))
			rc = verdict(E, KRL_V_LAUNCH_ERROR,
			             json_pack("{s:s, s:s}", "reason", "not_capturable",
			                       "timing_mode", "graph"),
			             "%s", msg ? msg : "");
		else if (kind && !strcmp(kind, "invalid_plan"))
			rc = verdict(E, KRL_V_INVALID_PLAN, NULL, "%s", msg ? msg : "");
		else {
			*err = krl_diag_set(d, KRL_ERUNNER, (krl_pos){0},
			                    "runner: %s", msg ? msg : "internal error");
			rc = -1;
		}
		json_decref(*rep);
		*rep = NULL;
		return rc;
	}
	return 0;
}

/* runner_req_within at the call deadline (--call-timeout). */
static int runner_req(evalctx *E, json_t *req, json_t **rep, krl_err *err,
                      krl_diag *d)
{
	return runner_req_within(E, req, E->j->o.call_timeout_s, rep, err, d);
}

static int runner_simple(evalctx *E, json_t *req, double *ms, json_t **oob,
                         krl_err *err, krl_diag *d)
{
	json_t *rep = NULL;
	int rc = runner_req(E, req, &rep, err, d);
	if (rc)
		return rc;
	if (ms)
		*ms = json_number_value(json_object_get(rep, "ms"));
	E->prep_ms = json_number_value(json_object_get(rep, "prep_ms"));
	if (oob) {
		*oob = json_object_get(rep, "oob");
		if (*oob)
			json_incref(*oob);
	}
	json_decref(rep);
	return 0;
}

/* A shape set's values as a JSON object. */
static json_t *shapes_json(const krl_shapeset *ss)
{
	json_t *o = json_object();
	for (int k = 0; k < ss->n; k++)
		json_object_set_new(o, ss->keys[k], json_integer(ss->vals[k]));
	return o;
}

/* The stress draw as the runner applies it: [[buffer, kind, value], ...]
 * (NULL for a nominal draw). */
static json_t *stress_json(const krl_stress *s)
{
	if (!s || s->n == 0)
		return NULL;
	json_t *a = json_array();
	for (int k = 0; k < s->n; k++)
		json_array_append_new(a, json_pack("[i, i, f]", s->ops[k].buf,
		                                   (int)s->ops[k].kind, s->ops[k].v));
	return a;
}

static int runner_load(evalctx *E, setbufs *S, krl_err *err, krl_diag *d)
{
	krl_judge *j = E->j;
	krl_err r = krl_judge_runner_ensure(j, d);
	json_t *rep = NULL;
	if (r != KRL_OK) {
		*err = r;
		return -1;
	}
	/* The texts themselves (hex: a candidate may hold any byte), never
	 * paths: a file changed mid-run cannot desynchronise the runner. */
	json_t *req = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "cmd",
	                        "load", "task_path", E->t->path, "task_hex",
	                        E->task_hex, "cand_path", E->cand->path,
	                        "cand_hex", E->cand_hex, "set", S->name, "cubin",
	                        E->cubin_hex, "key", E->key_hex);
	if (!req) {
		*err = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
		return -1;
	}
	if (S->is_hidden)
		json_object_set_new(req, "shapes", shapes_json(&S->hidden));
	int rc = runner_req_within(E, req,
	                           j->o.call_timeout_s > KRL_LOAD_TIMEOUT_S
	                                   ? j->o.call_timeout_s
	                                   : KRL_LOAD_TIMEOUT_S,
	                           &rep, err, d);
	if (rc)
		return rc;
	S->loaded = 1;
	json_t *handles = json_object_get(rep, "handles");
	if ((int)json_array_size(handles) != S->rp->ntask) {
		json_decref(rep);
		*err = krl_diag_set(d, KRL_ERUNNER, (krl_pos){0},
		                    "runner sent %d buffer handles, expected %d",
		                    (int)json_array_size(handles), S->rp->ntask);
		return -1;
	}
	for (int i = 0; i < S->rp->ntask && r == KRL_OK; i++)
		r = krl_gbuf_import(&S->sh[i],
		                    json_string_value(json_array_get(handles, (size_t)i)),
		                    S->rp->bufs[i].bytes, d);
	json_decref(rep);
	if (r != KRL_OK) {
		*err = r;
		return -1;
	}
	return 0;
}

/* Asks the runner to draw params (param_seed >= 0) and inputs
 * (input_seed >= 0, under stress s) and to poison the outputs. */
static json_t *prep_fields(json_t *req, int64_t param_seed, int64_t input_seed,
                           const krl_stress *s, int poison)
{
	if (param_seed >= 0)
		json_object_set_new(req, "param_seed", json_integer(param_seed));
	if (input_seed >= 0)
		json_object_set_new(req, "input_seed", json_integer(input_seed));
	json_t *st = stress_json(s);
	if (st)
		json_object_set_new(req, "stress", st);
	if (poison)
		json_object_set_new(req, "poison", json_true());
	return req;
}

/* run: draws inputs from input_seed (under stress s) and poisons outputs
 * first (untimed), then runs the body, timed when asked; with guards, the
 * runner checks its own buffers' guards afterwards (untimed). A timed call
 * in graph mode replays the runner's captured graph. */
static int runner_run(evalctx *E, int64_t input_seed, const krl_stress *s,
                      int timed, int guards, double *ms, json_t **oob,
                      krl_err *err, krl_diag *d)
{
	json_t *req = json_pack("{s:s, s:b, s:b, s:b}", "cmd", "run", "time",
	                        timed, "guards", guards, "graph",
	                        timed && E->mode == KRL_TIMING_GRAPH);
	return runner_simple(E, prep_fields(req, -1, input_seed, s, 1), ms, oob,
	                     err, d);
}

/* init: draws params from param_seed, then runs the init steps. */
static int runner_init(evalctx *E, int64_t param_seed, krl_err *err,
                       krl_diag *d)
{
	json_t *req = json_pack("{s:s}", "cmd", "init");
	return runner_simple(E, prep_fields(req, param_seed, -1, NULL, 0), NULL,
	                     NULL, err, d);
}

/* Draws the judge's private copies of params or inputs. */
static krl_err draw_private(krl_judge *j, setbufs *S, krl_role role,
                            uint64_t seed, const krl_stress *s, krl_diag *d)
{
	return krl_judge_draw(S->rp, S->rptr, role, seed, j->key, s, j->stream,
	                      d);
}

/* A fresh seed: 62 bits (the protocol carries JSON integers, and the
 * inputs use seed + 1). */
static int64_t fresh_seed(krl_judge *j)
{
	return (int64_t)(krl_judge_rand(j) >> 2);
}

/* ==== Checks ==== */

/* Guards of the shared buffers, then inputs and params unchanged. Returns
 * 0, STOP or -1 (judge error). */
static int check_integrity(evalctx *E, setbufs *S, json_t *oob,
                           const char *phase, krl_err *err, krl_diag *d)
{
	krl_judge *j = E->j;
	const krl_program *p = S->rp;
	if (oob) {
		return verdict(E, KRL_V_WRONG_OUTPUT,
		               json_pack("{s:s, s:s, s:s, s:O}", "reason",
		                         "out_of_bounds_write", "set", S->name,
		                         "phase", phase, "where", oob),
		               "out_of_bounds_write: the candidate wrote outside "
		               "its scratch buffer %s",
		               json_string_value(json_object_get(oob, "buffer")));
	}
	for (int i = 0; i < p->ntask; i++) {
		int64_t bad = 0, where = 0;
		krl_err r = krl_gbuf_check_guards(&S->sh[i], &bad, &where, j->stream, d);
		if (r != KRL_OK)
			return judge_fail(E, S, r, err, d);
		if (bad)
			return verdict(E, KRL_V_WRONG_OUTPUT,
			               json_pack("{s:s, s:s, s:s, s:s, s:I, s:I}", "reason",
			                         "out_of_bounds_write", "set", S->name,
			                         "phase", phase, "buffer",
			                         p->bufs[i].name, "offset",
			                         (json_int_t)where, "bytes",
			                         (json_int_t)bad),
			               "out_of_bounds_write: %lld guard bytes around "
			               "%s were overwritten (first at byte offset %lld)",
			               (long long)bad, p->bufs[i].name, (long long)where);
	}
	for (int i = 0; i < p->ntask; i++) {
		const krl_buf *b = &p->bufs[i];
		if (b->role != KRL_ROLE_INPUT && b->role != KRL_ROLE_PARAM)
			continue;
		int64_t n = 0, first = -1;
		krl_err r = krl_count_diff(S->sh[i].ptr, S->pv[i].ptr, b->bytes, &n,
		                           &first, j->stream, d);
		if (r != KRL_OK)
			return judge_fail(E, S, r, err, d);
		if (n)
			return verdict(E, KRL_V_WRONG_OUTPUT,
			               json_pack("{s:s, s:s, s:s, s:s, s:I}", "reason",
			                         "input_modified", "set", S->name,
			                         "phase", phase, "buffer", b->name,
			                         "bytes", (json_int_t)n),
			               "input_modified: the candidate changed %s %s "
			               "(%lld bytes differ)",
			               b->role == KRL_ROLE_INPUT ? "input" : "param",
			               b->name, (long long)n);
	}
	return 0;
}

/* The multi-index of flat element i of b, as a JSON array. */
static json_t *index_json(const krl_buf *b, int64_t i)
{
	json_t *a = json_array();
	int64_t idx[KRL_MAX_DIM];
	for (int k = b->ndim - 1; k >= 0; k--) {
		idx[k] = b->dim[k] ? i % b->dim[k] : 0;
		i = b->dim[k] ? i / b->dim[k] : 0;
	}
	for (int k = 0; k < b->ndim; k++)
		json_array_append_new(a, json_integer(idx[k]));
	return a;
}

static json_t *number(double x)
{
	/* JSON has no NaN/Inf: write them as strings. */
	if (isnan(x))
		return json_string("nan");
	if (isinf(x))
		return json_string(x > 0 ? "inf" : "-inf");
	return json_real(x);
}

/*
 * Would a trivial output -- all zero, the constant bufs[i][0], or a copy of
 * an input of the same dtype and size in bufs -- pass the task's comparison
 * against bufs[i], the values of output i? Sets *what to which, or NULL.
 * Used both ways: bufs = the candidate's buffers (is its failing output
 * itself trivial?) and bufs = the judge's private ones (could the check
 * tell a trivial output from the reference's?).
 */
static krl_err trivial_match(krl_judge *j, setbufs *S, int i,
                             const krl_gbuf *bufs, double atol, double rtol,
                             const char **what, krl_diag *d)
{
	const krl_program *p = S->rp;
	const krl_buf *b = &p->bufs[i];
	const void *subject = bufs[i].ptr;
	krl_cmp c;
	krl_err r;
	*what = NULL;
	if ((r = krl_compare(NULL, NULL, subject, b->dtype, b->numel, atol, rtol,
	                     &c, j->stream, d)) != KRL_OK)
		return r;
	if (c.bad == 0) {
		*what = "all zero";
		return KRL_OK;
	}
	if (b->numel > 1) {
		double v0;
		if ((r = krl_read_element(subject, b->dtype, 0, &v0, j->stream, d)) !=
		    KRL_OK)
			return r;
		if (isfinite(v0)) {
			if ((r = krl_compare(NULL, &v0, subject, b->dtype, b->numel,
			                     atol, rtol, &c, j->stream, d)) != KRL_OK)
				return r;
			if (c.bad == 0) {
				*what = "constant";
				return KRL_OK;
			}
		}
	}
	for (int k = 0; k < p->ntask; k++) {
		const krl_buf *in = &p->bufs[k];
		if (in->role != KRL_ROLE_INPUT || in->dtype != b->dtype ||
		    in->numel != b->numel)
			continue;
		if ((r = krl_compare(bufs[k].ptr, NULL, subject, b->dtype, b->numel,
		                     atol, rtol, &c, j->stream, d)) != KRL_OK)
			return r;
		if (c.bad == 0) {
			*what = "a copy of an input";
			return KRL_OK;
		}
	}
	return KRL_OK;
}

/* The conditioning probe's findings: per output, the reference on the
 * jittered draw against the reference (NULL until probed). */
typedef struct condprobe {
	krl_cmp *out;            /* [ntask] */
	double jitter;           /* the relative jitter it used */
	int64_t seq;             /* the reference's longest sum in order */
} condprobe;

/* How one call's outputs are compared. */
typedef struct cmpctx {
	const char *phase;       /* "correctness" or "timing" */
	int64_t seed;
	const krl_stress *stress;/* NULL or n == 0: a nominal draw */
	double factor;           /* atol is multiplied by this (1: nominal) */
	json_t *stats;           /* worst errors per output, or NULL */
	json_t *draw;            /* a stress draw's record, or NULL */
	condprobe *cond;         /* a stress draw's probe (NULL: nominal) */
} cmpctx;

static krl_err run_reference(krl_judge *j, setbufs *S, int timed, double *ms,
                             krl_diag *d);

/* The conditioning probe (docs/judge.md "Ill-conditioned draws"): runs
 * the reference once more on the same draw with its stressed inputs
 * jittered (krl_stress_jitter), and compares what it gives with what it gave. The
 * private outputs hold the reference's first outputs again afterwards;
 * the private inputs stay jittered (the next call draws afresh). */
static krl_err probe_conditioning(evalctx *E, setbufs *S, const cmpctx *cx,
                                  double atol, krl_diag *d)
{
	krl_judge *j = E->j;
	const krl_program *p = S->rp;
	const krl_stress *s = cx->stress;
	condprobe *cp = cx->cond;
	void **saved = calloc((size_t)p->ntask, sizeof *saved);
	krl_err r = KRL_OK;
	cudaError_t e = cudaSuccess;
	cp->out = calloc((size_t)p->ntask, sizeof *cp->out);
	if (!saved || !cp->out) {
		free(saved);
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){0},
		                    "conditioning probe: out of memory");
	}
	for (int i = 0; i < p->ntask && e == cudaSuccess; i++) {
		if (p->bufs[i].role != KRL_ROLE_OUTPUT)
			continue;
		e = cudaMalloc(&saved[i], p->bufs[i].bytes);
		if (e == cudaSuccess)
			e = cudaMemcpyAsync(saved[i], S->rptr[i], p->bufs[i].bytes,
			                    cudaMemcpyDeviceToDevice,
			                    (cudaStream_t)j->stream);
	}
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		r = krl_diag_set(d, e == cudaErrorMemoryAllocation ? KRL_EDEVMEM
		                                                  : KRL_ECUDA,
		                 (krl_pos){0}, "conditioning probe: %s",
		                 cudaGetErrorString(e));
	}
	cp->jitter = krl_stress_jitter(p, &cp->seq);
	for (int q = 0; q < s->n && r == KRL_OK; q++) {
		const krl_buf *b = &p->bufs[s->ops[q].buf];
		r = krl_stress_apply(S->rptr[s->ops[q].buf], b->dtype, b->numel,
		                     KRL_JITTER_KIND, cp->jitter,
		                     (uint64_t)cx->seed ^ (uint64_t)q, j->stream, d);
	}
	if (r == KRL_OK)
		r = run_reference(j, S, 0, NULL, d);
	for (int i = 0; i < p->ntask && r == KRL_OK; i++) {
		const krl_buf *b = &p->bufs[i];
		if (b->role != KRL_ROLE_OUTPUT)
			continue;
		r = krl_compare(S->rptr[i], NULL, saved[i], b->dtype, b->numel,
		                atol, E->t->rtol, &cp->out[i], j->stream, d);
		if (r == KRL_OK &&
		    (e = cudaMemcpyAsync(S->rptr[i], saved[i], b->bytes,
		                         cudaMemcpyDeviceToDevice,
		                         (cudaStream_t)j->stream)) != cudaSuccess)
			r = krl_diag_set(d, KRL_ECUDA, (krl_pos){0},
			                 "conditioning probe: %s",
			                 cudaGetErrorString(e));
	}
	if (cudaStreamSynchronize((cudaStream_t)j->stream) != cudaSuccess &&
	    r == KRL_OK)
		r = krl_diag_set(d, KRL_ECUDA, (krl_pos){0},
		                 "conditioning probe: %s",
		                 cudaGetErrorString(cudaGetLastError()));
	for (int i = 0; i < p->ntask; i++)
		cudaFree(saved[i]);
	free(saved);
	return r;
}

/* Whether candidate findings c pass an ill-conditioned output whose
 * reference moved by `ref` under the jitter (docs/judge.md). */
static int conditioned_pass(const krl_cmp *c, const krl_cmp *ref)
{
	return c->nonfinite == 0 &&
	       sqrt(c->sum_sq) <= CONDITION_MARGIN * sqrt(ref->sum_sq) &&
	       c->max_abs <= CONDITION_MARGIN * ref->max_abs;
}

/* The root mean square of a comparison's differences. */
static double cmp_rms(const krl_cmp *c)
{
	return c->n ? sqrt(c->sum_sq / (double)c->n) : 0.0;
}

static json_t *conditioning_json(const krl_cmp *c, const krl_cmp *ref,
                                 const condprobe *cp)
{
	return json_pack("{s:f, s:I, s:I, s:f, s:f, s:I, s:f, s:f, s:f}",
	                 "jitter", cp->jitter, "seq", (json_int_t)cp->seq,
	                 "reference_bad", (json_int_t)ref->bad,
	                 "reference_rms", cmp_rms(ref),
	                 "reference_max_abs", ref->max_abs,
	                 "candidate_bad", (json_int_t)c->bad,
	                 "candidate_rms", cmp_rms(c),
	                 "candidate_max_abs", c->max_abs,
	                 "margin", CONDITION_MARGIN);
}

/* The largest finite |value| of buffer ptr (dtype, n elements). */
static krl_err max_abs(krl_judge *j, const void *ptr, krl_dtype t, int64_t n,
                       double *out, krl_diag *d)
{
	krl_cmp c;
	krl_err r = krl_compare(NULL, NULL, ptr, t, n, 0, 0, &c, j->stream, d);
	*out = r == KRL_OK ? c.max_abs : 0;
	return r;
}

/* Compares every output of the candidate (shared) with the reference
 * (private). Returns 0, STOP or -1. */
static int check_outputs(evalctx *E, setbufs *S, const cmpctx *cx,
                         krl_err *err, krl_diag *d)
{
	krl_judge *j = E->j;
	const krl_task *t = E->t;
	const krl_program *p = S->rp;
	int stressed = cx->stress && cx->stress->n > 0;
	double atol = t->atol * cx->factor;
	for (int i = 0; i < p->ntask; i++) {
		const krl_buf *b = &p->bufs[i];
		krl_cmp c;
		krl_err r;
		if (b->role != KRL_ROLE_OUTPUT)
			continue;
		r = krl_compare(S->sh[i].ptr, NULL, S->pv[i].ptr, b->dtype, b->numel,
		                atol, t->rtol, &c, j->stream, d);
		if (r != KRL_OK)
			return judge_fail(E, S, r, err, d);
		if (cx->stats) {
			json_t *o = json_object_get(cx->stats, b->name);
			if (!o) {
				o = json_pack("{s:f, s:f}", "max_abs", 0.0, "max_rel", 0.0);
				json_object_set_new(cx->stats, b->name, o);
			}
			if (c.max_abs > json_real_value(json_object_get(o, "max_abs")))
				json_object_set_new(o, "max_abs", json_real(c.max_abs));
			if (c.max_rel > json_real_value(json_object_get(o, "max_rel")))
				json_object_set_new(o, "max_rel", json_real(c.max_rel));
		}
		/* A stress draw that the reference itself cannot pass under
		 * a jitter of its inputs is judged by the size of the error,
		 * not element by element (docs/judge.md). */
		json_t *cond_rec = NULL;
		const krl_cmp *ref = NULL;
		if (c.bad && stressed && cx->cond) {
			if (!cx->cond->out &&
			    (r = probe_conditioning(E, S, cx, atol, d)) != KRL_OK)
				return judge_fail(E, S, r, err, d);
			ref = &cx->cond->out[i];
			if (ref->bad > 0) {
				cond_rec = conditioning_json(&c, ref, cx->cond);
				if (conditioned_pass(&c, ref)) {
					if (cx->draw) {
						json_t *o = json_object_get(cx->draw,
						                            "ill_conditioned");
						if (!o) {
							o = json_object();
							json_object_set_new(cx->draw,
							                    "ill_conditioned", o);
						}
						json_object_set_new(o, b->name, cond_rec);
					} else {
						json_decref(cond_rec);
					}
					continue;
				}
			}
		}
		if (c.bad) {
			const char *what = NULL;
			json_t *det = json_pack(
				"{s:s, s:s, s:s, s:I, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:f, s:f}",
				"reason", stressed ? "unstable" : "mismatch", "set",
				S->name, "phase", cx->phase, "seed", (json_int_t)cx->seed,
				"output", b->name, "bad", (json_int_t)c.bad, "n",
				(json_int_t)c.n, "nonfinite", (json_int_t)c.nonfinite,
				"index", c.worst >= 0 ? index_json(b, c.worst) : json_null(),
				"candidate", number(c.cand_at_worst),
				"reference", number(c.ref_at_worst),
				"max_abs", number(c.max_abs), "max_rel", number(c.max_rel),
				"atol", atol, "rtol", t->rtol);
			char where[256] = "";
			json_t *ix = json_object_get(det, "index");
			size_t k;
			json_t *v;
			json_array_foreach(ix, k, v) {
				size_t len = strlen(where);
				snprintf(where + len, sizeof where - len, "%s%lld",
				         k ? ", " : "", (long long)json_integer_value(v));
			}
			if (stressed) {
				/* Right on the nominal draws, wrong on a harder one:
				 * the record names the draw. */
				const krl_stress *s = cx->stress;
				json_t *ops = json_array();
				for (int q = 0; q < s->n; q++)
					json_array_append_new(
						ops, json_pack("{s:s, s:f}", "input",
						               p->bufs[s->ops[q].buf].name,
						               "value", s->ops[q].v));
				json_t *dr = json_pack("{s:s, s:o, s:f}", "kind",
				                       krl_stress_name(s->kind), "inputs",
				                       ops, "tolerance_factor", cx->factor);
				char ill[200] = "";
				if (cond_rec) {
					if (c.nonfinite)
						snprintf(ill, sizeof ill,
						         "; the draw is ill-conditioned (the "
						         "reference moves by rms %.3g when its "
						         "inputs are jittered), which does not "
						         "excuse NaN/Inf", cmp_rms(ref));
					else
						snprintf(ill, sizeof ill,
						         "; the draw is ill-conditioned, but "
						         "the error (rms %.3g, largest %.3g) "
						         "is more than %g times the "
						         "reference's own under jitter (rms "
						         "%.3g, largest %.3g)",
						         cmp_rms(&c), c.max_abs,
						         CONDITION_MARGIN, cmp_rms(ref),
						         ref->max_abs);
					json_object_set_new(dr, "ill_conditioned", cond_rec);
				} else if (ref) {
					/* probed: the reference stayed within
					 * tolerance of itself under the jitter */
					json_object_set_new(
						dr, "well_conditioned",
						conditioning_json(&c, ref, cx->cond));
				}
				json_object_set_new(det, "draw", dr);
				return verdict(E, KRL_V_WRONG_OUTPUT, det,
				               "unstable: output %s is right on the "
				               "nominal draws but %lld of %lld elements "
				               "are outside atol=%g rtol=%g on the '%s' "
				               "stress draw (set %s, seed %lld); worst at "
				               "[%s]: candidate %.9g, reference %.9g%s%s",
				               b->name, (long long)c.bad, (long long)c.n,
				               atol, t->rtol, krl_stress_name(s->kind),
				               S->name, (long long)cx->seed, where,
				               c.cand_at_worst, c.ref_at_worst,
				               c.nonfinite ? " (NaN/Inf where the reference "
				                             "is finite)"
				                           : "",
				               ill);
			}
			r = trivial_match(j, S, i, S->sh, atol, t->rtol, &what, d);
			if (r != KRL_OK) {
				json_decref(det);
				return judge_fail(E, S, r, err, d);
			}
			if (what) {
				json_object_set_new(det, "reason", json_string("degenerate"));
				return verdict(E, KRL_V_DEGENERATE_OUTPUT, det,
				               "output %s is %s (set %s, %s)", b->name,
				               what, S->name, cx->phase);
			}
			return verdict(E, KRL_V_WRONG_OUTPUT, det,
			               "output %s: %lld of %lld elements outside "
			               "atol=%g rtol=%g (set %s, %s, seed %lld); worst "
			               "at [%s]: candidate %.9g, reference %.9g%s",
			               b->name, (long long)c.bad, (long long)c.n,
			               atol, t->rtol, S->name, cx->phase,
			               (long long)cx->seed, where, c.cand_at_worst,
			               c.ref_at_worst,
			               c.nonfinite ? " (NaN/Inf where the reference is finite)"
			                           : "");
		}
		/* Whether the check could tell a trivial output from the
		 * reference's is a question about the task on each nominal
		 * correctness seed of a named set; timed calls and stress draws
		 * only compare, and so do hidden sets: drawn at random from
		 * tiny's ranges, one can make the reference near-constant by
		 * chance (58kb0's clamp after a logsumexp: the judge rejected
		 * the reference's own plan so), and a trivial output that
		 * passes there is right there, while the named sets keep
		 * asking. */
		if (!t->degenerate && !stressed && !S->is_hidden &&
		    strcmp(cx->phase, "timing") != 0) {
			const char *what = NULL;
			r = trivial_match(j, S, i, S->pv, t->atol, t->rtol, &what, d);
			if (r != KRL_OK)
				return judge_fail(E, S, r, err, d);
			if (what)
				return verdict(E, KRL_V_DEGENERATE_OUTPUT,
				               json_pack("{s:s, s:s, s:s}", "reason",
				                         "undistinguishable", "set",
				                         S->name, "output", b->name),
				               "output %s passes, but so would an output "
				               "%s: the check cannot tell this candidate "
				               "from a degenerate one (set %s)",
				               b->name, what, S->name);
		}
	}
	return 0;
}

/* Runs the reference on the private buffers, optionally timed (L2 flushed
 * first); a timed call replays S->graph when there is one (graph mode). */
static krl_err run_reference(krl_judge *j, setbufs *S, int timed, double *ms,
                             krl_diag *d)
{
	krl_err r;
	float t = 0;
	int gated = timed && j->gate;
	if (gated && (r = krl_gate_close(j->gate, j->stream, d)) != KRL_OK)
		return r;
	if (timed && (r = krl_flush_l2(j->flush, j->flush_bytes, j->stream, d)) !=
	                     KRL_OK) {
		if (gated)
			krl_gate_open(j->gate);
		return r;
	}
	cudaEventRecord(j->ev0, j->stream);
	if (timed && S->graph)
		r = krl_cugraph_launch(S->graph, j->stream, d);
	else
		r = krl_exec(S->rp, S->rp->body, S->rp->nbody, S->rptr, NULL,
		             j->ops, j->stream, d);
	if (r == KRL_OK)
		cudaEventRecord(j->ev1, j->stream);
	/* the end event is enqueued before the gate opens: recorded after,
	 * it could land after a short call ended and time the host */
	if (gated)
		krl_gate_open(j->gate);
	if (r != KRL_OK)
		return r;
	cudaError_t e = cudaEventSynchronize(j->ev1);
	if (e != cudaSuccess)
		return krl_diag_set(d, e == cudaErrorMemoryAllocation ? KRL_EDEVMEM
		                                                      : KRL_ECUDA,
		                    (krl_pos){0}, "reference execution failed: %s",
		                    cudaGetErrorString(e));
	if (gated && krl_gate_gave_way(j->gate))
		fprintf(stderr, "krl: the timing gate gave way before the "
		        "reference's call was enqueued: that call's time may "
		        "include the host's\n");
	cudaEventElapsedTime(&t, j->ev0, j->ev1);
	if (ms)
		*ms = t;
	return KRL_OK;
}

/* ==== Graph mode ==== */

/* Prefixes d's message with "the reference of <task> (set <set>): ": a
 * reference that cannot be captured is the task's problem, not the
 * candidate's, and says so. Returns r. */
static krl_err about_reference(krl_err r, const krl_task *t, const char *set,
                               krl_diag *d)
{
	char inner[sizeof d->msg];
	snprintf(inner, sizeof inner, "%s", d->msg);
	return krl_diag_set(d, r, d->pos, "the reference of %s (set %s): %s",
	                    t->id ? t->id : t->name, set, inner);
}

/*
 * Graph mode, the reference's side: one uncaptured call on fresh inputs
 * (seed), so that every lazy allocation, library plan and workspace
 * growth happens outside the capture; the capture of the body into
 * S->graph; and a check that one replay on the same inputs reproduces
 * that call's outputs within the task's tolerance. The check is the
 * candidate's protection: an op that ran outside the captured stream
 * would leave the graph without its work, and every candidate would be
 * blamed for the reference's missing output. KRL_EUNSUPPORTED (d naming
 * the statement and why) when the plan cannot be captured or the replay
 * differs; device errors as they come.
 */
static krl_err ref_graph(krl_judge *j, const krl_task *t, setbufs *S,
                         uint64_t seed, double *capture_ms, krl_diag *d)
{
	const krl_program *p = S->rp;
	krl_err r;
	void **copy = NULL;
	if ((r = draw_private(j, S, KRL_ROLE_INPUT, seed, NULL, d)) != KRL_OK ||
	    (r = krl_judge_poison(p, S->rptr, KRL_ROLE_SCRATCH, j->stream, d)) !=
	            KRL_OK ||
	    (r = run_reference(j, S, 0, NULL, d)) != KRL_OK)
		return r;
	double t0 = krl_now_s();
	r = krl_cugraph_capture(p, p->body, p->nbody, S->rptr, NULL, j->ops,
	                      j->stream, &S->graph, d);
	*capture_ms = 1e3 * (krl_now_s() - t0);
	if (r != KRL_OK)
		return r == KRL_EUNSUPPORTED ? about_reference(r, t, S->name, d)
		                             : r;
	if (!(copy = calloc((size_t)p->ntask, sizeof *copy)))
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
	for (int i = 0; i < p->ntask && r == KRL_OK; i++) {
		if (p->bufs[i].role != KRL_ROLE_OUTPUT)
			continue;
		cudaError_t e = cudaMalloc(&copy[i], p->bufs[i].bytes);
		if (e != cudaSuccess)
			copy[i] = NULL;
		else
			e = cudaMemcpyAsync(copy[i], S->rptr[i], p->bufs[i].bytes,
			                    cudaMemcpyDeviceToDevice, j->stream);
		if (e != cudaSuccess) {
			(void)cudaGetLastError();
			r = krl_diag_set(d, e == cudaErrorMemoryAllocation
			                            ? KRL_EDEVMEM : KRL_ECUDA,
			                 (krl_pos){0}, "checking the reference's "
			                 "graph: %s", cudaGetErrorString(e));
		}
	}
	if (r == KRL_OK &&
	    (r = krl_judge_poison(p, S->rptr, KRL_ROLE_OUTPUT, j->stream, d)) ==
	            KRL_OK &&
	    (r = krl_judge_poison(p, S->rptr, KRL_ROLE_SCRATCH, j->stream, d)) ==
	            KRL_OK)
		r = krl_cugraph_launch(S->graph, j->stream, d);
	for (int i = 0; i < p->ntask && r == KRL_OK; i++) {
		const krl_buf *b = &p->bufs[i];
		krl_cmp c;
		if (b->role != KRL_ROLE_OUTPUT)
			continue;
		r = krl_compare(S->rptr[i], NULL, copy[i], b->dtype, b->numel,
		                t->atol, t->rtol, &c, j->stream, d);
		if (r == KRL_OK && c.bad) {
			r = krl_diag_set(d, KRL_EUNSUPPORTED, (krl_pos){0},
			                 "one replay of its CUDA graph does not "
			                 "reproduce its stream call on the same "
			                 "inputs: output %s has %lld of %lld "
			                 "elements outside atol=%g rtol=%g (an op "
			                 "of the plan works outside the captured "
			                 "stream)", b->name, (long long)c.bad,
			                 (long long)c.n, t->atol, t->rtol);
			about_reference(r, t, S->name, d);
		}
	}
	for (int i = 0; i < p->ntask; i++)
		cudaFree(copy[i]);
	free(copy);
	return r;
}

/* Graph mode: captures both sides' bodies before the warm-up pairs (the
 * reference here, the candidate in the runner, each after an uncaptured
 * call on fresh inputs) and describes the graphs in *info. Returns 0,
 * STOP (the candidate's plan cannot be captured: launch_error,
 * not_capturable) or -1 (the reference cannot be: KRL_EUNSUPPORTED). */
static int capture_both(evalctx *E, setbufs *S, json_t **info, krl_err *err,
                        krl_diag *d)
{
	krl_judge *j = E->j;
	double ref_ms = 0;
	json_t *rep = NULL;
	krl_err r = ref_graph(j, E->t, S, (uint64_t)fresh_seed(j), &ref_ms, d);
	if (r == KRL_EUNSUPPORTED) {
		*err = r;
		return -1;
	}
	if (r != KRL_OK)
		return judge_fail(E, S, r, err, d);
	json_t *req = json_pack("{s:s}", "cmd", "capture");
	int rc = runner_req(E, prep_fields(req, -1, fresh_seed(j), NULL, 1),
	                    &rep, err, d);
	if (rc)
		return rc;
	*info = json_pack("{s:i, s:i, s:f, s:f}", "ref_nodes",
	                  krl_cugraph_nodes(S->graph), "cand_nodes",
	                  (int)json_integer_value(json_object_get(rep, "nodes")),
	                  "ref_capture_ms", ref_ms, "cand_capture_ms",
	                  json_number_value(json_object_get(rep, "capture_ms")));
	json_decref(rep);
	return 0;
}

/* ==== Phases ==== */

/* Runs the reference once on fresh draws before the runner holds this
 * set's buffers, so that whatever the op library chooses per shape and
 * caches (cuDNN's engine by the workspace that fits) is chosen without
 * the candidate's memory in use: a candidate cannot steer the reference. */
static int prime_reference(evalctx *E, setbufs *S, krl_err *err, krl_diag *d)
{
	krl_judge *j = E->j;
	int64_t seed = fresh_seed(j);
	krl_err r;
	if ((r = draw_private(j, S, KRL_ROLE_PARAM, (uint64_t)seed, NULL, d)) !=
	            KRL_OK ||
	    (r = draw_private(j, S, KRL_ROLE_INPUT, (uint64_t)seed + 1, NULL, d)) !=
	            KRL_OK ||
	    (r = run_reference(j, S, 0, NULL, d)) != KRL_OK) {
		*err = r;
		return -1;
	}
	return 0;
}

/* One correctness call on (seed, stress s): both sides draw, the runner
 * runs init and the body, the judge checks integrity, runs the reference
 * and compares with tolerance factor `factor` (computed here for a stress
 * draw). Nominal draws update S->nom_max (unless stress draws are off).
 * Returns 0, STOP or -1. */
static int correctness_call(evalctx *E, setbufs *S, int64_t seed,
                            const krl_stress *s, json_t *stats,
                            json_t *draw_rec, krl_err *err, krl_diag *d)
{
	krl_judge *j = E->j;
	const krl_program *p = S->rp;
	int stressed = s && s->n > 0;
	json_t *oob = NULL;
	krl_err r;
	int rc;
	if ((r = draw_private(j, S, KRL_ROLE_PARAM, (uint64_t)seed, NULL, d)) !=
	            KRL_OK ||
	    (r = draw_private(j, S, KRL_ROLE_INPUT, (uint64_t)seed + 1, s, d)) !=
	            KRL_OK)
		return judge_fail(E, S, r, err, d);
	if ((rc = runner_init(E, seed, err, d)) != 0)
		return rc;
	if ((rc = runner_run(E, seed + 1, s, 0, 1, NULL, &oob, err, d)) != 0)
		return rc;
	rc = check_integrity(E, S, oob, "correctness", err, d);
	json_decref(oob);
	if (rc)
		return rc;
	if ((r = run_reference(j, S, 0, NULL, d)) != KRL_OK)
		return judge_fail(E, S, r, err, d);
	/* How much larger than on the nominal draws the inputs and the
	 * reference's outputs are: errors of correct float code grow with
	 * the magnitudes involved (an output linear in its inputs grows
	 * with them; a normalised one does not, but its intermediates do). */
	double grow_in = 1, grow_out = 1;
	for (int i = 0; i < p->ntask && !j->o.no_stress; i++) {
		const krl_buf *b = &p->bufs[i];
		double m = 0;
		if (b->role != KRL_ROLE_INPUT && b->role != KRL_ROLE_OUTPUT)
			continue;
		if (b->dtype != KRL_F32 && b->dtype != KRL_F64 &&
		    b->dtype != KRL_F16 && b->dtype != KRL_BF16)
			continue;
		if ((r = max_abs(j, S->pv[i].ptr, b->dtype, b->numel, &m, d)) !=
		    KRL_OK)
			return judge_fail(E, S, r, err, d);
		if (!stressed) {
			S->nom_max[i] = fmax(S->nom_max[i], m);
		} else if (S->nom_max[i] > 0 && isfinite(m)) {
			double g = m / S->nom_max[i];
			if (b->role == KRL_ROLE_INPUT)
				grow_in = fmax(grow_in, g);
			else
				grow_out = fmax(grow_out, g);
		}
	}
	condprobe cond = {0};
	cmpctx cx = {.phase = "correctness", .seed = seed, .stress = s,
	             .factor = 1, .stats = stats, .draw = draw_rec};
	if (stressed) {
		cx.factor = STRESS_TOL_MARGIN * fmax(grow_in, grow_out);
		cx.cond = &cond;
		if (draw_rec)
			json_object_set_new(draw_rec, "tolerance_factor",
			                    json_real(cx.factor));
	}
	rc = check_outputs(E, S, &cx, err, d);
	free(cond.out);
	return rc;
}

static int correctness(evalctx *E, setbufs *S, json_t *checks, krl_err *err,
                       krl_diag *d)
{
	krl_judge *j = E->j;
	json_t *stats = json_object();
	json_t *entry = json_pack("{s:s, s:i, s:o}", "set", S->name, "seeds",
	                          j->o.seeds, "outputs", stats);
	if (S->is_hidden)
		json_object_set_new(entry, "shapes", shapes_json(&S->hidden));
	json_array_append_new(checks, entry);
	for (int k = 0; k < j->o.seeds; k++) {
		int rc = correctness_call(E, S, fresh_seed(j), NULL, stats, NULL,
		                          err, d);
		if (rc)
			return rc;
	}
	if (j->o.no_stress) {
		json_object_set_new(entry, "stress", json_string("off (--no-stress)"));
		return 0;
	}
	/* The stress draws: one per kind, on fresh seeds. */
	json_t *draws = json_array();
	json_object_set_new(entry, "stress", draws);
	for (int k = 0; k < KRL_STRESS_KINDS; k++) {
		krl_stress s;
		const char *why = NULL;
		json_t *dr = json_pack("{s:s}", "kind",
		                       krl_stress_name((krl_stress_kind)k));
		json_array_append_new(draws, dr);
		if (krl_stress_resolve(E->t, S->rp, (krl_stress_kind)k, &s, &why) ==
		    0) {
			json_object_set_new(dr, "skipped",
			                    krl_json_text(why ? why
			                                      : "no float input drawn "
			                                        "from a continuous "
			                                        "distribution"));
			continue;
		}
		int64_t seed = fresh_seed(j);
		json_object_set_new(dr, "seed", json_integer(seed));
		int rc = correctness_call(E, S, seed, &s, NULL, dr, err, d);
		if (rc < 0)
			return rc;
		if (rc == STOP) {
			/* Unstable means right on every nominal draw: one more
			 * nominal draw decides (a cache that replays old
			 * outputs fails it, and is a mismatch). */
			static const char *const keys[] = {"verdict", "message",
			                                   "failure"};
			json_t *kept[3];
			for (int q = 0; q < 3; q++) {
				kept[q] = json_incref(json_object_get(E->rec, keys[q]));
				json_object_del(E->rec, keys[q]);
			}
			rc = correctness_call(E, S, fresh_seed(j), NULL, stats, NULL,
			                      err, d);
			for (int q = 0; q < 3; q++) {
				if (rc == 0 && kept[q])
					json_object_set(E->rec, keys[q], kept[q]);
				json_decref(kept[q]);
			}
			return rc == 0 ? STOP : rc;
		}
	}
	return 0;
}

/* One timed pair on fresh inputs, in a random order, both calls verified
 * afterwards. Returns 0 with *ms_r, *ms_c set, STOP or -1. w accumulates
 * where the time went. */
typedef struct pairtime {
	double cand, prep, draw, ref, verify;
} pairtime;

static int timed_pair(evalctx *E, setbufs *S, double *ms_r, double *ms_c,
                      pairtime *w, krl_err *err, krl_diag *d)
{
	krl_judge *j = E->j;
	int64_t seed = fresh_seed(j);
	int cand_first = (int)(krl_judge_rand(j) & 1);
	json_t *oob = NULL;
	krl_err r;
	int rc;
	for (int side = 0; side < 2; side++) {
		int is_cand = (side == 0) == cand_first;
		double ts = krl_now_s();
		if (is_cand) {
			/* guards checked by the runner after the timed call */
			if ((rc = runner_run(E, seed, NULL, 1, 1, ms_c, &oob, err,
			                     d)) != 0)
				return rc;
			w->cand += 1e3 * (krl_now_s() - ts);
			w->prep += E->prep_ms;
		} else {
			/* The same preparation as the runner's before a
			 * candidate call (draw, poison outputs and scratch),
			 * so that neither side's timed call follows more work
			 * than the other's: a candidate identical to the
			 * reference measured 0.4% slower on sigmoid and gelu at
			 * kb1 when only its outputs were poisoned. */
			if ((r = draw_private(j, S, KRL_ROLE_INPUT, (uint64_t)seed,
			                      NULL, d)) != KRL_OK ||
			    (r = krl_judge_poison(S->rp, S->rptr, KRL_ROLE_OUTPUT,
			                          j->stream, d)) != KRL_OK ||
			    (r = krl_judge_poison(S->rp, S->rptr, KRL_ROLE_SCRATCH,
			                          j->stream, d)) != KRL_OK) {
				json_decref(oob);
				return judge_fail(E, S, r, err, d);
			}
			cudaStreamSynchronize(j->stream); /* errors: at the call */
			double td = krl_now_s();
			w->draw += 1e3 * (td - ts);
			if ((r = run_reference(j, S, 1, ms_r, d)) != KRL_OK) {
				json_decref(oob);
				return judge_fail(E, S, r, err, d);
			}
			w->ref += 1e3 * (krl_now_s() - td);
		}
	}
	/* Every timed call is verified: no unverified call can carry the
	 * speedup, so knowing (or guessing) which calls are checked is
	 * worth nothing. */
	double tv = krl_now_s();
	rc = check_integrity(E, S, oob, "timing", err, d);
	json_decref(oob);
	if (!rc) {
		cmpctx cx = {.phase = "timing", .seed = seed, .factor = 1};
		rc = check_outputs(E, S, &cx, err, d);
	}
	w->verify += 1e3 * (krl_now_s() - tv);
	return rc;
}

static int timing(evalctx *E, setbufs *S, krl_err *err, krl_diag *d)
{
	krl_judge *j = E->j;
	int cap = j->o.max_pairs;
	double *tr = malloc((size_t)cap * sizeof *tr);
	double *tc = malloc((size_t)cap * sizeof *tc);
	int n = 0, warm = 0, rc = 0;
	krl_err r;
	pairtime w = {0};
	json_t *graph = NULL; /* graph mode: what was captured */
	double t_start = krl_now_s(), t_warm = 0, t0;
	if (!tr || !tc) {
		free(tr);
		free(tc);
		*err = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
		return -1;
	}
	int64_t pseed = fresh_seed(j);
	if ((r = draw_private(j, S, KRL_ROLE_PARAM, (uint64_t)pseed, NULL, d)) !=
	    KRL_OK) {
		rc = judge_fail(E, S, r, err, d);
		goto out;
	}
	if ((rc = runner_init(E, pseed, err, d)) != 0)
		goto out;
	if (E->mode == KRL_TIMING_GRAPH &&
	    (rc = capture_both(E, S, &graph, err, d)) != 0)
		goto out;
	/* Warm-up: at most o.warmup pairs, and no longer than a quarter of
	 * the budget (at least one pair), on a clock of its own: slow
	 * warm-ups cost the candidate nothing of the timing budget, and buy
	 * it nothing either. */
	double warm_cap = fmax(1.0, 0.25 * j->o.time_budget_s);
	for (warm = 0; warm < j->o.warmup &&
	               (warm == 0 || krl_now_s() - t_start <= warm_cap);
	     warm++) {
		double ms_r, ms_c;
		if ((rc = timed_pair(E, S, &ms_r, &ms_c, &w, err, d)) != 0)
			goto out;
	}
	t_warm = krl_now_s() - t_start;
	/* The budget is charged to timed pairs only. */
	t0 = krl_now_s();
	while (n < cap) {
		if ((rc = timed_pair(E, S, &tr[n], &tc[n], &w, err, d)) != 0)
			goto out;
		n++;
		if (n >= j->o.min_pairs) {
			krl_summary sr = krl_summarize(tr, n), sc = krl_summarize(tc, n);
			if (sr.rse <= j->o.rse_target && sc.rse <= j->o.rse_target)
				break;
		}
		if (krl_now_s() - t0 > j->o.time_budget_s && n >= MIN_PAIRS_FLOOR)
			break;
	}
	if (n < MIN_PAIRS_FLOOR) {
		/* cannot happen (max_pairs >= the floor), but no result with
		 * fewer verified pairs may be ok */
		*err = krl_diag_set(d, KRL_EINVAL, (krl_pos){0},
		                    "only %d timed pairs (at least %d needed)", n,
		                    MIN_PAIRS_FLOOR);
		rc = -1;
		goto out;
	}
	{
		krl_summary sr = krl_summarize(tr, n), sc = krl_summarize(tc, n);
		krl_speedup sp = krl_speedup_paired(tr, tc, n);
		json_t *tm = json_pack(
			"{s:s, s:i, s:i, s:i, s:f, s:f, s:{s:f, s:f, s:f, s:f, s:f}, "
			"s:{s:f, s:f, s:f, s:f, s:f}, s:{s:f, s:f, s:f, s:f, s:f}}",
			"set", S->name, "pairs", n, "verified", n, "warmup_pairs",
			warm, "warmup_seconds", t_warm, "seconds", krl_now_s() - t0,
			"ref_ms", "median", sr.median, "mean", sr.mean, "min", sr.min,
			"max", sr.max, "rse", isfinite(sr.rse) ? sr.rse : -1.0,
			"cand_ms", "median", sc.median, "mean", sc.mean, "min", sc.min,
			"max", sc.max, "rse", isfinite(sc.rse) ? sc.rse : -1.0,
			"speedup", "median", sp.median, "ci_low", sp.ci_low,
			"ci_high", sp.ci_high, "ratio_of_medians", sp.ratio_of_medians,
			"ci_coverage", sp.ci_coverage);
		json_object_set_new(
			tm, "phase_ms",
			json_pack("{s:i, s:f, s:f, s:f, s:f, s:f}", "calls", n + warm,
			          "cand_call", w.cand, "cand_prep", w.prep, "ref_draw",
			          w.draw, "ref_call", w.ref, "verify", w.verify));
		json_object_set_new(tm, "mode",
		                    json_string(krl_timing_name(E->mode)));
		if (graph) {
			json_object_set_new(tm, "graph", graph);
			graph = NULL;
		}
		json_object_set_new(E->rec, "timing", tm);
		krl_floor f = krl_roofline_floor(&j->ceil, S->rp->bytes,
		                                 S->rp->flops, krl_task_is_tf32(E->t));
		json_object_set_new(
			E->rec, "roofline",
			json_pack("{s:f, s:f, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
			          "s:f, s:f}", "bytes",
			          S->rp->bytes, "flops", S->rp->flops, "bound", f.bound,
			          "floor_ms", f.ms, "fraction",
			          sc.median > 0 ? f.ms / sc.median : 0.0,
			          "ref_fraction",
			          sr.median > 0 ? f.ms / sr.median : 0.0,
			          "ceiling_gbs", f.gbs, "ceiling_tflops", f.tflops,
			          "copy_gbs", j->ceil.copy_gbs, "read_gbs",
			          j->ceil.read_gbs, "fp32_tflops", j->ceil.fp32_tflops,
			          "tf32_tflops", j->ceil.tf32_tflops));
	}
out:
	json_decref(graph);
	free(tr);
	free(tc);
	return rc;
}

/* ==== The evaluation ==== */

/* Writes n bytes as 2n hex digits and a NUL at out. */
static void hex_into(char *out, const void *data, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = data;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = 0;
}

static char *to_hex(const void *data, size_t n)
{
	char *s = malloc(2 * n + 1);
	if (s)
		hex_into(s, data, n);
	return s;
}

static int prepare(evalctx *E, setbufs *sets, krl_err *err, krl_diag *d)
{
	krl_judge *j = E->j;
	krl_diag pd = {0};
	krl_err r;
	int rc = krl_judge_read_candidate(E->rec, E->cand_path, &E->cand, err, d);
	if (rc)
		return rc;
	for (int s = 0; s < E->nsets; s++) {
		if (s >= j->o.nsets) {
			/* A hidden set: drawn from tiny for this evaluation only
			 * (keys declared `fixed` kept), so no candidate can know
			 * it in advance. */
			setbufs *S = &sets[s];
			uint64_t state = krl_judge_rand(j);
			snprintf(S->hname, sizeof S->hname, "hidden%d",
			         s - j->o.nsets + 1);
			S->name = S->hname;
			if ((r = krl_task_draw_hidden(E->t, &state, &j->dev.limits,
			                              &S->hidden, &pd)) != KRL_OK) {
				/* The task's problem, not the candidate's: evaluate
				 * without it and say so in the record. */
				json_object_set_new(E->rec, "hidden_skipped",
				                    krl_json_text(pd.msg));
				E->nsets = s;
				break;
			}
			S->is_hidden = 1;
			S->hidden.name = S->hname;
		} else {
			sets[s].name = j->o.sets[s];
		}
		const krl_shapeset *ss = sets[s].is_hidden
		                                 ? &sets[s].hidden
		                                 : krl_task_shapeset(E->t, sets[s].name);
		if ((rc = krl_judge_build_set(E->rec, E->t, E->cand, ss,
		                              sets[s].name, &j->dev.limits,
		                              &sets[s].rp, &sets[s].cp, err, d)))
			return rc;
	}
	if ((rc = krl_judge_compile_candidate(E->rec, E->cand, j->dev.arch,
	                                      j->cache_dir, &E->cubin, err, d)))
		return rc;
	E->cubin_hex = to_hex(E->cubin->data, E->cubin->size);
	E->task_hex = to_hex(E->t->text ? E->t->text : "", E->t->text_len);
	E->cand_hex = to_hex(E->cand->source, E->cand->len);
	if (!E->cubin_hex || !E->task_hex || !E->cand_hex) {
		*err = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
		return -1;
	}
	return 0;
}

/* A new secret key for this evaluation's draws (getrandom, or derived
 * from o.seed in reproducible mode), and its hex for the runner. */
static void new_key(evalctx *E)
{
	krl_judge *j = E->j;
	for (int i = 0; i < KRL_JUDGE_KEY_BYTES; i += 8) {
		uint64_t v = krl_judge_rand(j);
		memcpy(j->key + i, &v, 8);
	}
	hex_into(E->key_hex, j->key, KRL_JUDGE_KEY_BYTES);
}

krl_err krl_judge_eval(krl_judge *j, const krl_task *t, const char *cand_path,
                       json_t **record, krl_diag *d)
{
	evalctx E = {.j = j, .t = t, .cand_path = cand_path,
	             .mode = krl_judge_timing_for(j->o.timing, t)};
	/* Hidden sets need the task's tiny set to derive from. */
	int nhidden = krl_task_shapeset(t, "tiny") ? j->o.hidden : 0;
	if (nhidden > KRL_JUDGE_MAX_SETS - j->o.nsets)
		nhidden = KRL_JUDGE_MAX_SETS - j->o.nsets;
	E.nsets = j->o.nsets + nhidden;
	setbufs sets[KRL_JUDGE_MAX_SETS];
	krl_err err = KRL_OK;
	int rc;
	double t0 = krl_now_s();
	memset(sets, 0, sizeof sets);
	*record = NULL;
	new_key(&E);
	E.rec = json_object();
	json_t *names = json_array();
	for (int s = 0; s < j->o.nsets; s++)
		json_array_append_new(names, json_string(j->o.sets[s]));
	json_object_set_new(E.rec, "task", json_string(t->id ? t->id : t->name));
	json_object_set_new(E.rec, "candidate", krl_json_text(cand_path));
	json_object_set_new(E.rec, "device", json_string(j->dev.name));
	json_object_set_new(E.rec, "sets", names);
	json_object_set_new(E.rec, "time_set",
	                    j->o.no_timing ? json_null()
	                                   : json_string(j->o.time_set));
	json_object_set_new(E.rec, "precision",
	                    json_string(t->precision ? t->precision : "fp32"));
	json_object_set_new(E.rec, "timing_mode",
	                    json_string(krl_timing_name(E.mode)));
	/* the baseline is the reference timed in the candidate's mode */
	json_object_set_new(E.rec, "baseline",
	                    json_string(E.mode == KRL_TIMING_GRAPH
	                                        ? "krl eager reference, CUDA "
	                                          "graph replay"
	                                        : "krl eager reference"));

	rc = prepare(&E, sets, &err, d);
	E.phase[0] = krl_now_s() - t0;
	json_t *checks = json_array();
	json_object_set_new(E.rec, "checks", checks);
	int timed = 0;
	for (int s = 0; s < E.nsets && rc == 0; s++) {
		setbufs *S = &sets[s];
		krl_err r = set_alloc(j, S, d);
		double ts = krl_now_s();
		if (r != KRL_OK) {
			err = r;
			rc = -1;
		}
		if (rc == 0)
			rc = prime_reference(&E, S, &err, d);
		if (rc == 0)
			rc = runner_load(&E, S, &err, d);
		E.phase[1] += krl_now_s() - ts;
		ts = krl_now_s();
		if (rc == 0)
			rc = correctness(&E, S, checks, &err, d);
		E.phase[2] += krl_now_s() - ts;
		if (rc == 0 && !j->o.no_timing && !timed &&
		    !strcmp(S->name, j->o.time_set)) {
			ts = krl_now_s();
			rc = timing(&E, S, &err, d);
			E.phase[3] += krl_now_s() - ts;
			timed = 1;
		}
		set_unmap(S); /* before the runner frees what is mapped */
		if (S->loaded && j->pid > 0) {
			json_t *rep = NULL;
			krl_diag ud = {0};
			if (krl_judge_runner_call(j, json_pack("{s:s}", "cmd", "unload"),
			                          timeout_ms(j->o.call_timeout_s),
			                          &rep, &ud) == KRL_OK)
				json_decref(rep);
		}
		set_free(S);
	}
	for (int s = 0; s < KRL_JUDGE_MAX_SETS; s++) {
		krl_program_free(sets[s].cp);
		krl_program_free(sets[s].rp);
		free(sets[s].hidden.vals);
	}
	krl_candidate_free(E.cand);
	krl_cubin_free(E.cubin);
	free(E.cubin_hex);
	free(E.task_hex);
	free(E.cand_hex);
	memset(j->key, 0, sizeof j->key);
	if (rc < 0) {
		json_decref(E.rec);
		return err ? err : KRL_ERUNNER;
	}
	if (rc == 0)
		verdict(&E, KRL_V_OK, NULL,
		        "correct on %d seeds and %s x %d shape sets (%d hidden)",
		        j->o.seeds, j->o.no_stress ? "no stress draws"
		                                   : "the stress draws",
		        E.nsets, E.nsets - j->o.nsets);
	json_object_set_new(E.rec, "eval_seconds", json_real(krl_now_s() - t0));
	/* Where the evaluation's time went: compile and plan checks, buffer
	 * setup in the runner, the correctness seeds, the timing loop. */
	json_object_set_new(E.rec, "phase_seconds",
	                    json_pack("{s:f, s:f, s:f, s:f}", "prepare", E.phase[0],
	                              "load", E.phase[1], "correctness",
	                              E.phase[2], "timing", E.phase[3]));
	json_object_set_new(E.rec, "runner_starts", json_integer(j->runner_starts));
	*record = E.rec;
	return KRL_OK;
}

/* ==== Timing the reference alone ==== */

krl_err krl_judge_time_reference(krl_judge *j, const krl_task *t,
                                 const char *set, int reps, json_t **rec,
                                 krl_diag *d)
{
	setbufs S;
	krl_err r;
	double *ms = NULL, capture_ms = 0;
	krl_timing_mode mode = krl_judge_timing_for(j->o.timing, t);
	memset(&S, 0, sizeof S);
	*rec = NULL;
	if (reps < 5)
		reps = 5;
	S.name = set;
	if ((r = krl_program_build(t, NULL, set, &j->dev.limits, &S.rp, d)) !=
	    KRL_OK)
		return r;
	if (!(ms = malloc((size_t)reps * sizeof *ms))) {
		r = KRL_ENOMEM;
		goto out;
	}
	if ((r = set_alloc(j, &S, d)) != KRL_OK ||
	    (r = draw_private(j, &S, KRL_ROLE_PARAM, 1, NULL, d)) != KRL_OK)
		goto out;
	/* Graph mode: captured after an uncaptured call, as in an
	 * evaluation; the timed calls below then replay it. */
	if (mode == KRL_TIMING_GRAPH &&
	    (r = ref_graph(j, t, &S, 99, &capture_ms, d)) != KRL_OK)
		goto out;
	/* As in an evaluation: fresh inputs and a flushed L2 before every
	 * timed call; the first three calls are warm-up. */
	for (int i = -3; i < reps; i++) {
		double t_ms = 0;
		if ((r = draw_private(j, &S, KRL_ROLE_INPUT, 100 + (uint64_t)(i + 3),
		                      NULL, d)) != KRL_OK ||
		    (r = run_reference(j, &S, 1, &t_ms, d)) != KRL_OK)
			goto out;
		if (i >= 0)
			ms[i] = t_ms;
	}
	krl_summary sm = krl_summarize(ms, reps);
	krl_floor f = krl_roofline_floor(&j->ceil, S.rp->bytes, S.rp->flops,
	                                 krl_task_is_tf32(t));
	*rec = json_pack("{s:s, s:s, s:s, s:{s:f, s:f, s:f, s:f, s:i}, s:f, s:f, "
	                 "s:f, s:s}",
	                 "task", t->id ? t->id : t->name, "set", set, "device",
	                 j->dev.name, "ref_ms", "median", sm.median, "mean",
	                 sm.mean, "min", sm.min, "rse",
	                 isfinite(sm.rse) ? sm.rse : -1.0, "n", sm.n, "bytes",
	                 S.rp->bytes, "flops", S.rp->flops, "roofline",
	                 sm.median > 0 ? f.ms / sm.median : 0.0,
	                 "timing_mode", krl_timing_name(mode));
	if (*rec && S.graph)
		json_object_set_new(*rec, "graph",
		                    json_pack("{s:i, s:f}", "nodes",
		                              krl_cugraph_nodes(S.graph),
		                              "capture_ms", capture_ms));
out:
	free(ms);
	set_free(&S);
	krl_program_free(S.rp);
	return r;
}
