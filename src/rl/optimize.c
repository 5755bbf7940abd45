/*
 * The contrastive RL loop for the LLM policy (include/krl/optimize.h).
 *
 * Round r of a run is one prompt and G proposals: slots "r<r>/k<k>". The
 * prompt shows exemplars drawn from the task's correct candidates in the
 * store (bucketed by speedup, sampled with a temperature), each with its
 * measured speedup. Each proposal is extracted, stored (content-addressed),
 * judged, rewarded and committed before the next; when a round's group is
 * complete its group-relative advantages are stored. On resume, committed
 * slots are skipped, the reward normaliser is replayed from the committed
 * rows in order, and a round already begun reuses its stored prompt, so
 * nothing is lost, repeated or changed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "krl/judge.h"
#include "krl/optimize.h"
#include "rl/loop_int.h"
#include "util/rng.h"
#include "util/strbuf.h"

#define MAX_GROUP 64

/* ==== The judge as an evaluator ==== */

static krl_err judge_eval(void *ctx, const krl_task *t, const char *path,
                          json_t **rec, krl_diag *d)
{
	return krl_judge_eval((krl_judge *)ctx, t, path, rec, d);
}

static void judge_prefetch(void *ctx, const char *const *texts, int n)
{
	krl_judge_precompile((krl_judge *)ctx, texts, n, 0);
}

krl_evaluator krl_judge_evaluator(krl_judge *j)
{
	krl_evaluator e = {.ctx = j, .eval = judge_eval, .name = "judge",
	                   .prefetch = judge_prefetch};
	return e;
}

/* The raw reward of one evaluation in the run's stage. */
static double raw_reward(krl_stage stage, int ok, double speedup,
                         const krl_reward_opts *ro)
{
	if (stage == KRL_STAGE_SELFSUP)
		return ok ? 1.0 : krl_reward_raw(0, 0, ro);
	return krl_reward_raw(ok, speedup, ro);
}

/* ==== Reading back a run ==== */

typedef struct member {
	int present;
	int64_t id;
	int ok;
	double speedup;
	double reward;
	int has_advantage;
	char *prompt;
} member;

typedef struct runview {
	int64_t run_id;
	krl_stage stage;
	int rounds, group;
	member *m;               /* [rounds * group] */
	krl_reward_norm *norm;   /* replayed in id order */
	const krl_reward_opts *ro;
	int64_t n;
	int nok;
	double best;
	char best_hash[65];
	char best_slot[64];
} runview;

static int collect(const krl_eval_row *row, void *ctx)
{
	runview *v = ctx;
	int ok = !strcmp(row->verdict, "ok");
	/* The normaliser sees every committed reward, in commit order. */
	krl_reward_norm_push(v->norm, raw_reward(v->stage, ok, row->speedup, v->ro));
	v->n++;
	if (ok) {
		v->nok++;
		if (row->speedup > v->best) {
			v->best = row->speedup;
			snprintf(v->best_hash, sizeof v->best_hash, "%s", row->cand_hash);
			snprintf(v->best_slot, sizeof v->best_slot, "%s", row->slot);
		}
	}
	if (row->round < 0 || row->round >= v->rounds || row->member < 0 ||
	    row->member >= v->group)
		return 0;
	member *m = &v->m[row->round * v->group + row->member];
	m->present = 1;
	m->id = row->id;
	m->ok = ok;
	m->speedup = row->speedup;
	m->reward = row->reward;
	m->has_advantage = row->has_advantage;
	free(m->prompt);
	m->prompt = row->prompt ? strdup(row->prompt) : NULL;
	return 0;
}

static void view_free(runview *v)
{
	if (v->m)
		for (int i = 0; i < v->rounds * v->group; i++)
			free(v->m[i].prompt);
	free(v->m);
}

/* ==== Helpers ==== */

/* The prompt of round r: exemplars drawn from the store's correct
 * candidates of the task (deterministic for (seed, r)). */
static krl_err round_prompt(const krl_task *t, const char *task_text,
                            krl_store *st, const krl_optimize_opts *o, int r,
                            char **system, char **user, krl_diag *d)
{
	krl_exemplar *ex = NULL;
	int nex = 0;
	krl_err e = KRL_OK;
	/* Self-supervised rounds show no earlier versions. */
	if (o->stage == KRL_STAGE_RL &&
	    (e = krl_store_exemplars(st, t->id ? t->id : t->name, &ex, &nex,
	                             d)) != KRL_OK)
		return e;
	int want = o->exemplars.n > 0 ? o->exemplars.n : 2;
	int picked[MAX_GROUP];
	krl_prompt_exemplar pe[MAX_GROUP];
	int np = 0;
	if (nex > 0) {
		double *scores = malloc((size_t)nex * sizeof *scores);
		if (!scores) {
			krl_exemplars_free(ex, nex);
			return KRL_ENOMEM;
		}
		for (int i = 0; i < nex; i++)
			scores[i] = ex[i].score;
		krl_exemplar_opts eo = o->exemplars;
		eo.n = want < MAX_GROUP ? want : MAX_GROUP;
		krl_rng rng = {krl_splitmix64(o->seed ^
		                              krl_splitmix64((uint64_t)r + 1))};
		np = krl_exemplar_select(scores, nex, &eo, &rng, picked);
		free(scores);
		/* Show them best first: the model compares versions by speed. */
		for (int a = 0; a < np; a++)
			for (int b = a + 1; b < np; b++)
				if (ex[picked[b]].score > ex[picked[a]].score) {
					int tmp = picked[a];
					picked[a] = picked[b];
					picked[b] = tmp;
				}
		for (int i = 0; i < np; i++) {
			pe[i].source = ex[picked[i]].source;
			pe[i].speedup = ex[picked[i]].score;
		}
	}
	e = krl_prompt_build(o->template_dir, t, task_text,
	                     o->shapes ? o->shapes : "kb1", pe, np, system, user, d);
	krl_exemplars_free(ex, nex);
	return e;
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = 0;
	fclose(f);
	return s;
}

static void progress(const krl_optimize_opts *o, const char *run, int r,
                     int rounds, const runview *v, int64_t total,
                     const char *last)
{
	if (o->progress)
		krl_loop_progress(run, r, rounds, v->n, total, v->nok, v->best, last);
}

/* ==== One proposal ==== */

/* Extracts, stores, judges and commits member k of round r. */
static krl_err propose(const krl_task *t, const krl_evaluator *ev,
                       krl_store *st, const krl_optimize_opts *o,
                       const char *policy, runview *v, int r, int k,
                       const char *prompt, const krl_completion *c,
                       char *verdict_out, krl_diag *d)
{
	krl_eval_row row;
	krl_err e = KRL_OK;
	char *source = NULL;
	json_t *rec = NULL;
	memset(&row, 0, sizeof row);
	row.run_id = v->run_id;
	snprintf(row.slot, sizeof row.slot, "r%d/k%d", r, k);
	row.round = r;
	row.group = r;
	row.member = k;
	if ((e = krl_fmt_fixed(row.task, sizeof row.task, "the task id", d, "%s",
	                       t->id ? t->id : t->name)) != KRL_OK)
		goto out;
	row.prompt = (char *)prompt;
	row.completion = c->text ? c->text : "";
	row.policy = (char *)policy;
	row.prompt_tokens = c->prompt_tokens;
	row.completion_tokens = c->completion_tokens;

	krl_diag xd = {0};
	if (krl_extract_candidate(row.completion, &source, &xd) != KRL_OK) {
		snprintf(row.verdict, sizeof row.verdict, "no_candidate");
		rec = json_pack("{s:s, s:s}", "verdict", "no_candidate", "message",
		                xd.msg);
	} else {
		char path[4200];
		if ((e = krl_loop_put_candidate(st, o->work_dir, source,
		                                row.cand_hash, path, sizeof path,
		                                d)) != KRL_OK)
			goto out;
		if ((e = ev->eval(ev->ctx, t, path, &rec, d)) != KRL_OK)
			goto out;
		krl_loop_read_record(rec, &row);
	}
	int ok = !strcmp(row.verdict, "ok");
	row.reward = krl_reward_norm_push(
		v->norm, raw_reward(v->stage, ok, row.speedup, v->ro));
	row.record = json_dumps(rec, JSON_COMPACT);
	e = krl_store_add_eval(st, &row, d);
	free(row.record);
	if (e != KRL_OK)
		goto out;
	member *m = &v->m[r * v->group + k];
	m->present = 1;
	m->id = row.id;
	m->ok = ok;
	m->speedup = row.speedup;
	m->reward = row.reward;
	v->n++;
	if (ok) {
		v->nok++;
		if (row.speedup > v->best) {
			v->best = row.speedup;
			snprintf(v->best_hash, sizeof v->best_hash, "%s", row.cand_hash);
			snprintf(v->best_slot, sizeof v->best_slot, "%s", row.slot);
		}
	}
	snprintf(verdict_out, 64, "%s", row.verdict);
out:
	json_decref(rec);
	free(source);
	return e;
}

/* Stores the group-relative advantages of round r once all members are
 * committed (again after a resume, if a kill came first). */
static krl_err advantages(krl_store *st, runview *v, int r, krl_diag *d)
{
	double rew[MAX_GROUP], adv[MAX_GROUP];
	member *m = &v->m[r * v->group];
	int need = 0;
	for (int k = 0; k < v->group; k++) {
		if (!m[k].present)
			return KRL_OK;
		need |= !m[k].has_advantage;
		rew[k] = m[k].reward;
	}
	if (!need)
		return KRL_OK;
	krl_grpo_advantages(rew, v->group, adv);
	for (int k = 0; k < v->group; k++) {
		krl_err e = krl_store_set_advantage(st, m[k].id, adv[k], d);
		if (e != KRL_OK)
			return e;
		m[k].has_advantage = 1;
	}
	return KRL_OK;
}

/* ==== Summaries ==== */

typedef struct tallyctx {
	json_t *tally;
	json_t *top;             /* best ok evaluations, best first, at most 5 */
	const char *work_dir;
} tallyctx;

static int tally_row(const krl_eval_row *row, void *ctx)
{
	tallyctx *x = ctx;
	json_t *c = json_object_get(x->tally, row->verdict);
	json_object_set_new(x->tally, row->verdict,
	                    json_integer(c ? json_integer_value(c) + 1 : 1));
	if (strcmp(row->verdict, "ok") != 0)
		return 0;
	char *path = krl_loop_candidate_path(x->work_dir, row->cand_hash);
	if (!path)
		return 0; /* out of memory: the entry is left out */
	json_t *e = json_pack("{s:s, s:f, s:f, s:f, s:s}", "slot", row->slot,
	                      "speedup", row->speedup, "ci_low", row->ci_low,
	                      "ci_high", row->ci_high, "file", path);
	free(path);
	size_t i = 0;
	while (i < json_array_size(x->top) &&
	       json_number_value(json_object_get(json_array_get(x->top, i),
	                                         "speedup")) >= row->speedup)
		i++;
	json_array_insert_new(x->top, i, e);
	if (json_array_size(x->top) > 5)
		json_array_remove(x->top, 5);
	return 0;
}

/* Counts the run's verdicts into tally and its five best evaluations into
 * top. */
static krl_err summarize_run(krl_store *st, int64_t run_id, json_t *tally,
                             json_t *top, const char *work_dir, krl_diag *d)
{
	tallyctx x = {.tally = tally, .top = top, .work_dir = work_dir};
	return krl_store_foreach_eval(st, run_id, tally_row, &x, d);
}

typedef struct withinctx {
	int n, seen;
	double best;
} withinctx;

static int within_row(const krl_eval_row *row, void *ctx)
{
	withinctx *x = ctx;
	if (++x->seen > x->n)
		return 1;
	if (!strcmp(row->verdict, "ok") && row->speedup > 0 &&
	    (isnan(x->best) || row->speedup > x->best))
		x->best = row->speedup;
	return 0;
}

krl_err krl_run_best_within(krl_store *st, const char *run_name, int n,
                            double *best, krl_diag *d)
{
	int64_t rid = 0;
	withinctx x = {.n = n, .best = NAN};
	*best = NAN;
	krl_err e = krl_store_run_find(st, run_name, &rid, d);
	if (e == KRL_OK)
		e = krl_store_foreach_eval(st, rid, within_row, &x, d);
	if (e == KRL_OK)
		*best = x.best;
	return e;
}

typedef struct sftctx {
	krl_store *st;
	double min_speedup;
	json_t *best;            /* candidate hash -> its best line */
} sftctx;

static int sft_row(const krl_eval_row *row, void *ctx)
{
	sftctx *x = ctx;
	if (strcmp(row->verdict, "ok") != 0 || row->speedup < x->min_speedup ||
	    !row->cand_hash[0])
		return 0;
	json_t *old = json_object_get(x->best, row->cand_hash);
	if (old && json_number_value(json_object_get(old, "speedup")) >=
	               row->speedup)
		return 0;
	json_object_set_new(
		x->best, row->cand_hash,
		json_pack("{s:s, s:s, s:s, s:f, s:s, s:s}", "task", row->task,
		          "prompt", row->prompt ? row->prompt : "", "completion",
		          row->completion ? row->completion : "", "speedup",
		          row->speedup, "policy", row->policy ? row->policy : "",
		          "candidate_hash", row->cand_hash));
	return 0;
}

krl_err krl_export_sft(krl_store *st, const char *run_name, double min_speedup,
                       FILE *f, int64_t *n, krl_diag *d)
{
	int64_t run_id = 0;
	sftctx x = {.st = st, .min_speedup = min_speedup, .best = json_object()};
	krl_err e = KRL_OK;
	*n = 0;
	if (run_name)
		e = krl_store_run_find(st, run_name, &run_id, d);
	if (e == KRL_OK)
		e = krl_store_foreach_eval(st, run_id, sft_row, &x, d);
	const char *hash;
	json_t *line;
	json_object_foreach(x.best, hash, line) {
		char *src = NULL;
		if (e != KRL_OK)
			break;
		if ((e = krl_store_get_candidate(st, hash, &src, d)) != KRL_OK)
			break;
		json_object_set_new(line, "candidate", json_string(src));
		free(src);
		char *z = json_dumps(line, JSON_COMPACT | JSON_SORT_KEYS);
		if (!z) {
			e = KRL_ENOMEM;
			break;
		}
		fprintf(f, "%s\n", z);
		free(z);
		(*n)++;
	}
	json_decref(x.best);
	if (e == KRL_OK && fflush(f) != 0)
		e = krl_diag_set(d, KRL_EIO, (krl_pos){0}, "cannot write the SFT set");
	return e;
}

/* ==== The loop ==== */

krl_err krl_optimize_llm(const krl_task *t, krl_llm *llm,
                         const krl_evaluator *ev, krl_store *st,
                         const krl_optimize_opts *o, json_t **summary,
                         krl_diag *d)
{
	krl_optimize_opts opt = *o;
	runview v;
	krl_reward_norm norm;
	krl_err e;
	char *task_text = NULL, *config = NULL, *system = NULL;
	char run[256];
	const char *policy = o->policy ? o->policy : "llm";
	const char *stage = o->stage == KRL_STAGE_SELFSUP ? "selfsup" : "rl";
	memset(&v, 0, sizeof v);
	*summary = NULL;
	if (opt.rounds <= 0)
		opt.rounds = 4;
	if (opt.group <= 0)
		opt.group = 4;
	if (opt.group > MAX_GROUP)
		return krl_diag_set(d, KRL_EINVAL, (krl_pos){0},
		                    "group size %d is above %d", opt.group, MAX_GROUP);
	if (!opt.seed)
		opt.seed = 1;
	/* the run's name is its identity in the store: never cut */
	if ((opt.run_name && *opt.run_name
	             ? krl_fmt_fixed(run, sizeof run, "the run name", d, "%s",
	                             opt.run_name)
	             : krl_fmt_fixed(run, sizeof run, "the run name", d, "%s/%s",
	                             t->id ? t->id : t->name, stage)) != KRL_OK)
		return KRL_EINVAL;
	if (!(task_text = read_text(t->path)))
		return krl_diag_set(d, KRL_EIO, (krl_pos){0}, "cannot read %s",
		                    t->path);
	if (krl_reward_norm_init(&norm, &opt.reward) != 0) {
		free(task_text);
		return KRL_ENOMEM;
	}
	/* The run's identity: resuming needs the same options. */
	json_t *cfg = json_pack(
		"{s:s, s:s, s:s, s:i, s:i, s:{s:i, s:f, s:i}, s:{s:f, s:f, s:i}, s:s, s:I}",
		"task", t->id ? t->id : t->name, "policy", policy, "stage", stage,
		"rounds",
		opt.rounds, "group", opt.group, "exemplars", "buckets",
		opt.exemplars.nbuckets, "tau", opt.exemplars.tau, "n",
		opt.exemplars.n, "reward", "fail_penalty", opt.reward.fail_penalty,
		"clip", opt.reward.clip, "window", opt.reward.window, "shapes",
		opt.shapes ? opt.shapes : "kb1", "seed", (json_int_t)opt.seed);
	/* a timing mode other than stream is part of the run's identity */
	if (cfg && opt.timing && strcmp(opt.timing, "stream") != 0)
		json_object_set_new(cfg, "timing", json_string(opt.timing));
	config = json_dumps(cfg, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(cfg);
	int resumed = 0;
	if ((e = krl_store_run_begin(st, run, config, &v.run_id, &resumed, d)) !=
	    KRL_OK)
		goto out;
	v.rounds = opt.rounds;
	v.group = opt.group;
	v.stage = opt.stage;
	v.norm = &norm;
	v.ro = &opt.reward;
	v.m = calloc((size_t)(v.rounds * v.group), sizeof *v.m);
	if (!v.m) {
		e = KRL_ENOMEM;
		goto out;
	}
	if ((e = krl_store_foreach_eval(st, v.run_id, collect, &v, d)) != KRL_OK)
		goto out;
	if (resumed && o->progress)
		fprintf(stderr, "[%s] resuming: %lld evaluations already committed\n",
		        run, (long long)v.n);
	krl_store_run_status(st, v.run_id, "running", NULL);
	int64_t total = (int64_t)v.rounds * v.group;
	for (int r = 0; r < v.rounds; r++) {
		member *m = &v.m[r * v.group];
		const char *users[MAX_GROUP];
		int idx[MAX_GROUP], nmiss = 0;
		char *user = NULL;
		for (int k = 0; k < v.group; k++)
			if (!m[k].present)
				idx[nmiss++] = k;
		if (nmiss) {
			/* A round already begun keeps its prompt. */
			for (int k = 0; k < v.group && !user; k++)
				if (m[k].present && m[k].prompt)
					user = strdup(m[k].prompt);
			free(system);
			system = NULL;
			char *fresh_user = NULL;
			if ((e = round_prompt(t, task_text, st, &opt, r, &system,
			                      &fresh_user, d)) != KRL_OK) {
				free(user);
				goto out;
			}
			if (user)
				free(fresh_user);
			else
				user = fresh_user;
			for (int i = 0; i < nmiss; i++)
				users[i] = user;
			krl_completion comp[MAX_GROUP];
			krl_err errs[MAX_GROUP];
			krl_diag cd[MAX_GROUP];
			memset(comp, 0, sizeof comp);
			memset(cd, 0, sizeof cd);
			krl_llm_complete_many(llm, system, users, nmiss, comp, errs, cd);
			for (int i = 0; i < nmiss && e == KRL_OK; i++) {
				char last[64] = "";
				if (errs[i] != KRL_OK) {
					/* The server failed even after retries: stop; a
					 * resume asks again for what is missing. */
					e = errs[i];
					*d = cd[i];
					break;
				}
				e = propose(t, ev, st, &opt, policy, &v, r, idx[i], user,
				            &comp[i], last, d);
				progress(&opt, run, r, v.rounds, &v, total, last);
			}
			for (int i = 0; i < nmiss; i++)
				krl_completion_clear(&comp[i]);
			free(user);
			if (e != KRL_OK)
				goto out;
		}
		if ((e = advantages(st, &v, r, d)) != KRL_OK)
			goto out;
	}
	if (o->progress && isatty(STDERR_FILENO))
		fputc('\n', stderr);
	krl_store_run_status(st, v.run_id, "done", NULL);
	*summary = json_pack("{s:s, s:s, s:s, s:I, s:i, s:f, s:s, s:s, s:b}",
	                     "run", run, "task", t->id ? t->id : t->name, "stage",
	                     stage, "evaluations", (json_int_t)v.n, "correct",
	                     v.nok, "best_speedup", v.best, "best_candidate",
	                     v.best_hash, "best_slot", v.best_slot, "resumed",
	                     resumed);
	json_t *tally = json_object(), *top = json_array();
	summarize_run(st, v.run_id, tally, top, opt.work_dir, NULL);
	json_object_set_new(*summary, "verdicts", tally);
	json_object_set_new(*summary, "top", top);
out:
	if (e != KRL_OK && v.run_id)
		krl_store_run_status(st, v.run_id, "failed", NULL);
	krl_reward_norm_free(&norm);
	view_free(&v);
	free(system);
	free(config);
	free(task_text);
	return e;
}

/* ==== Export ==== */

typedef struct exportctx {
	FILE *f;
	int64_t n;
	krl_store *st;
	const char *run;
} exportctx;

static int export_row(const krl_eval_row *row, void *ctx)
{
	exportctx *x = ctx;
	json_t *o = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:o, s:s, s:s, s:s, s:i, s:i, s:i}",
		"run", x->run ? x->run : "", "task", row->task, "slot", row->slot,
		"prompt", row->prompt ? row->prompt : "", "completion",
		row->completion ? row->completion : "", "reward", row->reward,
		"speedup", row->speedup, "advantage",
		row->has_advantage ? json_real(row->advantage) : json_null(),
		"verdict", row->verdict, "candidate", row->cand_hash, "policy",
		row->policy ? row->policy : "", "round", row->round,
		"prompt_tokens", row->prompt_tokens, "completion_tokens",
		row->completion_tokens);
	char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(o);
	if (!s)
		return 1;
	fprintf(x->f, "%s\n", s);
	free(s);
	x->n++;
	return 0;
}

krl_err krl_export_rollouts(krl_store *st, const char *run_name, FILE *f,
                            int64_t *n, krl_diag *d)
{
	int64_t run_id = 0;
	exportctx x = {.f = f, .st = st, .run = run_name};
	*n = 0;
	if (run_name) {
		krl_err e = krl_store_run_find(st, run_name, &run_id, d);
		if (e != KRL_OK)
			return e;
	}
	krl_err e = krl_store_foreach_eval(st, run_id, export_row, &x, d);
	*n = x.n;
	if (e == KRL_OK && fflush(f) != 0)
		e = krl_diag_set(d, KRL_EIO, (krl_pos){0}, "cannot write rollouts");
	return e;
}
