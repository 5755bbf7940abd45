/*
 * The builtin policy's search end to end on the CPU (src/rl/search.c).
 *
 * Two stand-ins, both deterministic: a STAND-IN SPACE (the decisions a
 * task's program optimizer would offer: fuse, map.vec, map.block, ...)
 * whose generator writes a small candidate text holding its krl-choice
 * line, and a JUDGE STAND-IN that reads the choice back from the file and
 * scores it by a known function of its options: speedup
 * (1 + 0.5 [map.vec = 4]) (1 + 0.2 [map.block = 128]) (1.05 [map.grid =
 * persistent]) (0.8 [fuse = none]), and a wrong output for map.block =
 * 512 (rule.fold changes nothing: two choices differing only there write
 * the same candidate body, which is judged once). The loop, the policy, the store, rewards, advantages, learning,
 * duplicate skipping and resume after kill -9 are all the real code, and
 * real_optimizer runs the loop over the real program optimizer too. With
 * the real judge the same loop runs as `krl optimize`.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "krl/optimize.h"
#include "krl/suite.h"
#include "testutil.h"

/* ==== The stand-in space ==== */

enum { D_FUSE, D_VEC, D_BLOCK, D_GRID, D_FOLD, D_ONLY, ND };

static krl_space make_space(int small)
{
	static const char *const names[ND] = {"fuse", "map.vec", "map.block",
	                                      "map.grid", "rule.fold", "only"};
	static const char *const opts[ND][4] = {{"all", "ref"},
	                                        {"1", "2", "4"},
	                                        {"256", "128", "512", "1024"},
	                                        {"cdiv", "persistent"},
	                                        {"off", "on"},
	                                        {"x"}};
	static const int nopt[ND] = {2, 3, 4, 2, 2, 1};
	krl_space s;
	memset(&s, 0, sizeof s);
	for (int k = 0; k < ND; k++) {
		if (small && k != D_VEC && k != D_BLOCK)
			continue;
		krl_decision *dk = &s.dec[s.ndec++];
		snprintf(dk->name, sizeof dk->name, "%s", names[k]);
		/* The small space: map.vec x map.block in {256, 1024}. */
		for (int j = 0; j < nopt[k]; j++)
			if (!small || k != D_BLOCK || j == 0 || j == 3)
				snprintf(dk->opt[dk->nopt++], sizeof dk->opt[0], "%s",
				         opts[k][j]);
	}
	return s;
}

/* The option name of decision `name` in c, or "" when s lacks it. */
static const char *opt_of(const krl_space *s, const krl_choice *c,
                          const char *name)
{
	for (int k = 0; k < s->ndec; k++)
		if (!strcmp(s->dec[k].name, name))
			return s->dec[k].opt[c->opt[k]];
	return "";
}

typedef struct standin {
	krl_space space;
	int calls;
	double conv_share;       /* the feature, where not 0 */
} standin;

static char *dupf(const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
	char *z = malloc(n);
	snprintf(z, n, fmt, a, b);
	return z;
}

/* Writes the candidate of c; refuses map.vec = 4 with map.block = 1024
 * (as the optimizer refuses a schedule it cannot write). */
static krl_err standin_generate(void *ctx, const krl_choice *c, char **text,
                                char **what, krl_diag *d)
{
	standin *g = ctx;
	const krl_space *s = &g->space;
	char line[1024];
	g->calls++;
	if (!strcmp(opt_of(s, c, "map.vec"), "4") &&
	    !strcmp(opt_of(s, c, "map.block"), "1024"))
		return krl_diag_set(d, KRL_EUNSUPPORTED, (krl_pos){0},
		                    "vector width 4 with 1024 threads is not written");
	krl_choice_format(s, c, line, sizeof line);
	/* rule.fold changes nothing the candidate does: choices that differ
	 * only there write the same body. */
	char body[256];
	snprintf(body, sizeof body, "fuse %s, vec %s, block %s, grid %s%s%s%s%s"
	         "%s%s%s%s%s%s",
	         opt_of(s, c, "fuse"), opt_of(s, c, "map.vec"),
	         opt_of(s, c, "map.block"), opt_of(s, c, "map.grid"),
	         *opt_of(s, c, "gemm.impl") ? ", gemm " : "",
	         opt_of(s, c, "gemm.impl"),
	         *opt_of(s, c, "conv.impl") ? ", conv " : "",
	         opt_of(s, c, "conv.impl"),
	         *opt_of(s, c, "lib.layout") ? ", layout " : "",
	         opt_of(s, c, "lib.layout"),
	         *opt_of(s, c, "lib.tconv") ? ", tconv " : "",
	         opt_of(s, c, "lib.tconv"),
	         *opt_of(s, c, "lib.rnn") ? ", recurrence " : "",
	         opt_of(s, c, "lib.rnn"));
	*text = dupf("// %s\n// stand-in candidate: %s\n", line, body);
	*what = dupf("map kernel: vec %s, block %s", opt_of(s, c, "map.vec"),
	             opt_of(s, c, "map.block"));
	return KRL_OK;
}

static krl_generator generator(standin *g, double log2_bytes)
{
	krl_generator gen = {.ctx = g, .space = &g->space,
	                     .generate = standin_generate,
	                     .name = "stand-in space"};
	gen.features.n = 2;
	gen.features.name[0] = "log2_bytes";
	gen.features.val[0] = log2_bytes;
	gen.features.name[1] = "has_gemm";
	gen.features.val[1] = 0;
	if (g->conv_share > 0) {
		gen.features.name[2] = "conv_share";
		gen.features.val[2] = g->conv_share;
		gen.features.n = 3;
	}
	return gen;
}

/* ==== The judge stand-in ==== */

typedef struct judge {
	const krl_space *space;
	int calls;
	int delay_ms;
	double slow;             /* where not 0, every candidate but the
	                          * reference plan's speedup times this */
	int unordered;           /* judged texts may differ from those
	                          * prefetched (a rescued slot) */
	char bodies[128][128];   /* what each call judged, but the choice line */
	uint64_t pre[256];       /* hashes of the texts prefetched, in order */
	int npre, pos;           /* how many; how many of them judged since */
} judge;

static uint64_t fnv(const char *z)
{
	uint64_t h = 1469598103934665603ull;
	for (; *z; z++)
		h = (h ^ (unsigned char)*z) * 1099511628211ull;
	return h;
}

/* The evaluator's prefetch: records what it is told. Each evaluation
 * then checks it judges exactly the next text prefetched, so the search's
 * look-ahead must draw what the round then evaluates. */
static void judge_prefetch(void *ctx, const char *const *texts, int n)
{
	judge *j = ctx;
	assert_int_equal(j->pos, j->npre); /* the last round's were all judged */
	for (int i = 0; i < n; i++) {
		if (!texts[i])
			continue; /* the generator refused: nothing to judge */
		if (j->npre < 256)
			j->pre[j->npre++] = fnv(texts[i]);
	}
}



static double score(const krl_space *s, const krl_choice *c)
{
	double x = 1;
	if (!strcmp(opt_of(s, c, "map.vec"), "4"))
		x *= 1.5;
	if (!strcmp(opt_of(s, c, "map.block"), "128"))
		x *= 1.2;
	if (!strcmp(opt_of(s, c, "map.grid"), "persistent"))
		x *= 1.05;
	if (!strcmp(opt_of(s, c, "fuse"), "ref"))
		x *= 0.8;
	return x;
}

static krl_err judge_eval(void *ctx, const krl_task *t, const char *path,
                          json_t **rec, krl_diag *d)
{
	judge *j = ctx;
	char *src = krl_test_read(path, NULL);
	krl_choice c;
	assert_non_null(src);
	KRL_ASSERT_OK(krl_choice_parse(j->space, src, &c, d), d);
	if (j->pos < j->npre) {
		uint64_t h = j->pre[j->pos++];
		assert_true(j->unordered || fnv(src) == h);
	}
	/* The same candidate body is never judged twice in a run. */
	const char *body = strchr(src, '\n');
	assert_non_null(body);
	for (int i = 0; i < j->calls && i < 128; i++)
		assert_string_not_equal(j->bodies[i], body + 1);
	if (j->calls < 128)
		snprintf(j->bodies[j->calls], sizeof j->bodies[0], "%s", body + 1);
	free(src);
	j->calls++;
	if (j->delay_ms) {
		struct timespec ts = {0, j->delay_ms * 1000000L};
		nanosleep(&ts, NULL);
	}
	if (!strcmp(opt_of(j->space, &c, "map.block"), "512")) {
		*rec = json_pack("{s:s, s:s}", "verdict", "wrong_output", "message",
		                 "stand-in: block 512 is wrong");
		return KRL_OK;
	}
	double x = score(j->space, &c);
	if (j->slow > 0 && strcmp(opt_of(j->space, &c, "fuse"), "ref"))
		x *= j->slow;
	*rec = json_pack("{s:s, s:{s:s, s:{s:f, s:f, s:f}, s:{s:f}, s:{s:f}}, "
	                 "s:{s:f, s:s}}",
	                 "verdict", "ok", "timing", "set", "kb1", "speedup",
	                 "median", x, "ci_low", 0.98 * x, "ci_high", 1.02 * x,
	                 "ref_ms", "median", 1.0, "cand_ms", "median", 1.0 / x,
	                 "roofline", "fraction", 0.4 * x, "bound", "memory");
	return KRL_OK;
}

/* ==== Helpers ==== */

typedef struct world {
	char dir[64], db[128], db2[128], work[128];
	krl_suite *suite;
	krl_task *task;
} world;

static void world_open(world *w)
{
	krl_diag d = {0};
	snprintf(w->dir, sizeof w->dir, "/tmp/krl-search-XXXXXX");
	assert_non_null(mkdtemp(w->dir));
	snprintf(w->db, sizeof w->db, "%s/krl.db", w->dir);
	snprintf(w->db2, sizeof w->db2, "%s/other.db", w->dir);
	snprintf(w->work, sizeof w->work, "%s/cands", w->dir);
	KRL_ASSERT_OK(krl_suite_load("tasks", &w->suite, &d), &d);
	KRL_ASSERT_OK(krl_suite_load_task(w->suite, "level1/19_relu", &w->task, &d),
	              &d);
}

static void world_close(world *w)
{
	char cmd[128];
	krl_task_free(w->task);
	krl_suite_free(w->suite);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", w->dir);
	assert_int_equal(system(cmd), 0);
}

typedef struct rows {
	int n;
	krl_eval_row r[128];
} rows;

static int grab(const krl_eval_row *row, void *ctx)
{
	rows *x = ctx;
	if (x->n < 128) {
		krl_eval_row *c = &x->r[x->n++];
		*c = *row;
		c->record = row->record ? strdup(row->record) : NULL;
		c->prompt = row->prompt ? strdup(row->prompt) : NULL;
		c->completion = row->completion ? strdup(row->completion) : NULL;
		c->policy = row->policy ? strdup(row->policy) : NULL;
	}
	return 0;
}

static void rows_free(rows *x)
{
	for (int i = 0; i < x->n; i++)
		krl_eval_row_clear(&x->r[i]);
	x->n = 0;
}

static krl_builtin_opts opts(const world *w, int budget, uint64_t seed)
{
	krl_builtin_opts o = {0};
	o.budget = budget;
	o.group = 4;
	o.work_dir = w->work;
	o.seed = seed;
	o.learn = 1;
	o.run_name = "search";
	return o;
}

/* Runs the search on a fresh zero policy; returns the summary. */
static json_t *run_search(const world *w, const char *db, standin *g,
                          judge *j, krl_policy *pol, const krl_builtin_opts *o)
{
	krl_store *st = NULL;
	krl_diag d = {0};
	json_t *sum = NULL;
	krl_generator gen = generator(g, 0.625);
	krl_evaluator ev = {.ctx = j, .eval = judge_eval,
	                    .name = "judge stand-in (scores the choice)",
	                    .prefetch = judge_prefetch};
	KRL_ASSERT_OK(krl_store_open(db, &st, &d), &d);
	KRL_ASSERT_OK(krl_optimize_builtin(w->task, &gen, pol, &ev, st, o, &sum,
	                                   &d), &d);
	krl_store_close(st);
	return sum;
}

static void read_rows(const char *db, rows *x)
{
	krl_store *st = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_store_open(db, &st, &d), &d);
	KRL_ASSERT_OK(krl_store_foreach_eval(st, 0, grab, x, &d), &d);
	krl_store_close(st);
}

/* ==== Tests ==== */

static void search_improves(void **state)
{
	world w;
	world_open(&w);
	standin g = {.space = make_space(0)};
	judge j = {.space = &g.space};
	krl_policy *pol = NULL;
	KRL_ASSERT_OK(krl_policy_create(&pol), NULL);
	krl_builtin_opts o = opts(&w, 24, 5);
	o.progress = 1;
	json_t *sum = run_search(&w, w.db, &g, &j, pol, &o);

	/* Every evaluation is a distinct candidate: duplicates were drawn
	 * again without spending budget. */
	assert_int_equal(json_integer_value(json_object_get(sum, "evaluations")),
	                 24);
	assert_true(g.calls >= 24);
	assert_false(json_is_true(json_object_get(sum, "exhausted")));
	rows x = {0};
	read_rows(w.db, &x);
	assert_int_equal(x.n, 24);
	int refused = 0;
	for (int a = 0; a < x.n; a++) {
		refused += !strcmp(x.r[a].verdict, "no_candidate");
		for (int b = a + 1; b < x.n; b++) {
			/* The choice line is the completion's first line. */
			size_t la = strcspn(x.r[a].completion, "\n");
			assert_false(la == strcspn(x.r[b].completion, "\n") &&
			             !memcmp(x.r[a].completion, x.r[b].completion, la));
			if (x.r[a].cand_hash[0])
				assert_string_not_equal(x.r[a].cand_hash, x.r[b].cand_hash);
			assert_string_not_equal(x.r[a].slot, x.r[b].slot);
		}
	}
	/* The judge saw each candidate once; refused choices never reach it. */
	assert_int_equal(j.calls, 24 - refused);
	/* Every one was prefetched before its round was judged, and judged
	 * in the order prefetched (judge_eval checks each text). */
	assert_int_equal(j.npre, 24 - refused);
	assert_int_equal(j.pos, j.npre);

	/* Round 0: the default choice, then the reference's structure. */
	assert_string_equal(x.r[0].slot, "r0/k0");
	assert_non_null(strstr(x.r[0].completion, "krl-choice: fuse=all "
	                                          "map.vec=1 map.block=256"));
	assert_non_null(strstr(x.r[0].completion, "base: default"));
	assert_string_equal(x.r[1].slot, "r0/k1");
	assert_non_null(strstr(x.r[1].completion, "fuse=ref"));
	assert_string_equal(x.r[2].slot, "r1/k0");
	assert_string_equal(x.r[23].slot, "r6/k1"); /* 2 + 4 * 5 + 2 */

	/* Later rounds mutate exemplars: correct candidates of earlier rounds
	 * named, with their speedups, in the round's prompt. */
	krl_reward_opts ro = {0};
	krl_reward_norm z;
	assert_int_equal(krl_reward_norm_init(&z, &ro), 0);
	double best_r0 = 0, best = 0, prev_best = 0;
	for (int i = 0; i < x.n; i++) {
		const krl_eval_row *r = &x.r[i];
		int ok = !strcmp(r->verdict, "ok");
		double want = krl_reward_norm_push(&z, krl_reward_raw(ok, r->speedup,
		                                                      &ro));
		assert_true(fabs(r->reward - want) < 1e-12);
		assert_true(r->has_advantage);
		assert_string_equal(r->policy, "builtin");
		if (ok && r->speedup > best)
			best = r->speedup;
		if (r->round == 0)
			best_r0 = best;
		/* The running best never falls (it is the best so far). */
		assert_true(best >= prev_best);
		prev_best = best;
		if (r->round == 0)
			continue;
		assert_non_null(strstr(r->completion, "sampled:"));
		const char *bp = strstr(r->completion, "base: exemplar ");
		if (bp) {
			char h[65];
			assert_int_equal(sscanf(bp + 15, "%64s", h), 1);
			assert_non_null(strstr(r->prompt, h));
			int found = 0;
			for (int k = 0; k < i; k++)
				found |= x.r[k].round < r->round &&
				         !strcmp(x.r[k].cand_hash, h) &&
				         !strcmp(x.r[k].verdict, "ok");
			assert_true(found);
		}
	}
	krl_reward_norm_free(&z);
	print_message("best after round 0: %.3f, at the end: %.3f\n", best_r0,
	              best);
	assert_true(best_r0 == 1.0);
	assert_true(best >= 1.5);
	/* Advantages are group-relative: zero mean in every round. */
	for (int r = 0; r <= 6; r++) {
		double s = 0;
		for (int i = 0; i < x.n; i++)
			if (x.r[i].round == r)
				s += x.r[i].advantage;
		assert_true(fabs(s) < 1e-9);
	}

	/* The summary: the best candidate's record, file and what line. */
	double sp = json_number_value(json_object_get(sum, "speedup"));
	assert_true(sp == best);
	assert_true(fabs(json_number_value(json_object_get(sum, "ref_ms")) - 1.0) <
	            1e-12);
	assert_true(fabs(json_number_value(json_object_get(sum, "best_ms")) -
	                 1.0 / sp) < 1e-12);
	assert_true(fabs(json_number_value(json_object_get(sum, "ci_low")) -
	                 0.98 * sp) < 1e-12);
	assert_true(fabs(json_number_value(json_object_get(sum, "roofline")) -
	                 0.4 * sp) < 1e-12);
	assert_string_equal(json_string_value(json_object_get(sum, "verdict")),
	                    "ok");
	assert_string_equal(json_string_value(json_object_get(sum, "shapes")),
	                    "kb1");
	assert_non_null(strstr(json_string_value(json_object_get(sum, "what")),
	                       "vec 4"));
	char *best_src = krl_test_read(
		json_string_value(json_object_get(sum, "best_candidate")), NULL);
	assert_non_null(best_src);
	assert_non_null(strstr(best_src, "map.vec=4"));
	free(best_src);
	json_decref(sum);
	rows_free(&x);
	krl_policy_free(pol);
	world_close(&w);
}

/* kill -9 in the middle of a learning run, then the same run again: what
 * was committed stays, nothing committed is evaluated again, and the run
 * ends exactly as an uninterrupted run with the same options does (same
 * candidate in every slot, same rewards and advantages, same learned
 * weights). */
static void resume_after_kill(void **state)
{
	world w;
	world_open(&w);
	krl_builtin_opts o = opts(&w, 24, 11);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		standin g = {.space = make_space(0)};
		judge j = {.space = &g.space, .delay_ms = 40};
		krl_policy *pol = NULL;
		krl_store *st = NULL;
		krl_diag d = {0};
		json_t *sum = NULL;
		krl_generator gen = generator(&g, 0.625);
		krl_evaluator ev = {.ctx = &j, .eval = judge_eval, .name = "stand-in"};
		if (krl_policy_create(&pol) == KRL_OK &&
		    krl_store_open(w.db, &st, &d) == KRL_OK)
			krl_optimize_builtin(w.task, &gen, pol, &ev, st, &o, &sum, &d);
		_exit(0);
	}
	krl_store *st = NULL;
	krl_diag d = {0};
	int64_t run_id = 0, n = 0;
	for (int i = 0; i < 1000 && n < 9; i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
		if (!st && krl_store_open(w.db, &st, &d) != KRL_OK)
			continue;
		if (!run_id && krl_store_run_find(st, "search", &run_id, &d) != KRL_OK)
			continue;
		krl_store_count_evals(st, run_id, &n, &d);
	}
	assert_true(n >= 9);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	krl_store_close(st);
	rows before = {0};
	read_rows(w.db, &before);
	print_message("killed after %d committed evaluations\n", before.n);
	assert_true(before.n >= 9 && before.n < 24);

	/* Resume in a fresh process state: a fresh zero policy, which the
	 * replay brings to where the killed run had it. */
	standin g = {.space = make_space(0)};
	judge j = {.space = &g.space};
	krl_policy *pol = NULL;
	KRL_ASSERT_OK(krl_policy_create(&pol), NULL);
	json_t *sum = run_search(&w, w.db, &g, &j, pol, &o);
	assert_true(json_is_true(json_object_get(sum, "resumed")));
	assert_int_equal(json_integer_value(json_object_get(sum, "evaluations")),
	                 24);
	json_decref(sum);
	/* Only the missing slots were judged. */
	assert_int_equal(j.calls, 24 - before.n);
	rows after = {0};
	read_rows(w.db, &after);
	assert_int_equal(after.n, 24);
	for (int i = 0; i < before.n; i++) {
		assert_int_equal(after.r[i].id, before.r[i].id);
		assert_string_equal(after.r[i].slot, before.r[i].slot);
		assert_string_equal(after.r[i].cand_hash, before.r[i].cand_hash);
		assert_true(after.r[i].reward == before.r[i].reward);
	}

	/* The uninterrupted run, in another store. */
	standin g2 = {.space = make_space(0)};
	judge j2 = {.space = &g2.space};
	krl_policy *pol2 = NULL;
	KRL_ASSERT_OK(krl_policy_create(&pol2), NULL);
	sum = run_search(&w, w.db2, &g2, &j2, pol2, &o);
	json_decref(sum);
	rows ref = {0};
	read_rows(w.db2, &ref);
	assert_int_equal(ref.n, 24);
	for (int i = 0; i < 24; i++) {
		assert_string_equal(after.r[i].slot, ref.r[i].slot);
		assert_string_equal(after.r[i].cand_hash, ref.r[i].cand_hash);
		assert_string_equal(after.r[i].completion, ref.r[i].completion);
		assert_true(after.r[i].reward == ref.r[i].reward);
		assert_true(after.r[i].advantage == ref.r[i].advantage);
	}
	char f1[17], f2[17];
	krl_policy_fingerprint(pol, f1);
	krl_policy_fingerprint(pol2, f2);
	assert_string_equal(f1, f2);
	assert_true(krl_policy_size(pol) > 0);

	/* Running it once more changes nothing and judges nothing. */
	judge j3 = {.space = &g.space};
	krl_policy *pol3 = NULL;
	KRL_ASSERT_OK(krl_policy_create(&pol3), NULL);
	sum = run_search(&w, w.db, &g, &j3, pol3, &o);
	json_decref(sum);
	assert_int_equal(j3.calls, 0);
	krl_policy_fingerprint(pol3, f2);
	assert_string_equal(f1, f2);

	/* Other options under the same run name are refused, saying why. */
	krl_builtin_opts o2 = o;
	o2.budget = 30;
	krl_generator gen = generator(&g, 0.625);
	krl_evaluator ev = {.ctx = &j3, .eval = judge_eval, .name = "stand-in"};
	KRL_ASSERT_OK(krl_store_open(w.db, &st, &d), &d);
	assert_int_equal(krl_optimize_builtin(w.task, &gen, pol3, &ev, st, &o2,
	                                      &sum, &d), KRL_EINVAL);
	assert_non_null(strstr(d.msg, "other options"));
	krl_store_close(st);

	rows_free(&before);
	rows_free(&after);
	rows_free(&ref);
	krl_policy_free(pol);
	krl_policy_free(pol2);
	krl_policy_free(pol3);
	world_close(&w);
}

/* Training: six runs with learning on, over two "tasks" (different
 * features), carrying the weights from run to run as krl train does, move
 * the policy towards the option that pays (map.vec = 4) and away from the
 * one that fails (map.block = 512); the weights survive a save and load; a
 * uniform policy learns nothing. */
static void training_learns(void **state)
{
	world w;
	world_open(&w);
	standin g = {.space = make_space(0)};
	judge j = {.space = &g.space};
	krl_policy *pol = NULL;
	KRL_ASSERT_OK(krl_policy_create(&pol), NULL);
	krl_features x0 = generator(&g, 0.625).features;
	double before[4], after[4];
	int kvec = D_VEC, kblock = D_BLOCK;
	krl_policy_probs(pol, &g.space, &x0, kvec, before);
	assert_true(fabs(before[2] - 1.0 / 3) < 1e-15);
	for (int task = 0; task < 6; task++) {
		krl_store *st = NULL;
		krl_diag d = {0};
		json_t *sum = NULL;
		krl_generator gen = generator(&g, task % 2 ? 0.75 : 0.5);
		judge jt = {.space = &g.space}; /* one per run: runs do repeat */
		krl_evaluator ev = {.ctx = &jt, .eval = judge_eval,
		                    .name = "stand-in"};
		krl_builtin_opts o = opts(&w, 32, 100 + (uint64_t)task);
		char run[32];
		snprintf(run, sizeof run, "train/%d", task);
		o.run_name = run;
		o.run_exemplars = 1;
		o.lr = 0.2;
		KRL_ASSERT_OK(krl_store_open(w.db, &st, &d), &d);
		KRL_ASSERT_OK(krl_optimize_builtin(w.task, &gen, pol, &ev, st, &o,
		                                   &sum, &d), &d);
		json_decref(sum);
		krl_store_close(st);
	}
	krl_policy_probs(pol, &g.space, &x0, kvec, after);
	print_message("P(map.vec=4): %.3f -> %.3f\n", before[2], after[2]);
	assert_true(after[2] > before[2] + 0.1);
	krl_policy_probs(pol, &g.space, &x0, kblock, after);
	print_message("P(map.block=512): %.3f -> %.3f\n", 0.25, after[2]);
	assert_true(after[2] < 0.25 - 0.05);

	char path[128], f1[17], f2[17];
	krl_diag d = {0};
	krl_policy *back = NULL;
	snprintf(path, sizeof path, "%s/trained.weights", w.dir);
	KRL_ASSERT_OK(krl_policy_save(pol, path, &d), &d);
	KRL_ASSERT_OK(krl_policy_load(path, &back, &d), &d);
	krl_policy_fingerprint(pol, f1);
	krl_policy_fingerprint(back, f2);
	assert_string_equal(f1, f2);

	/* Uniform mode: same search, no learning, recorded as such. */
	krl_policy_set_uniform(back, 1);
	krl_policy_fingerprint(back, f1);
	krl_builtin_opts o = opts(&w, 12, 3);
	o.run_name = "uniform";
	json_t *sum = run_search(&w, w.db, &g, &j, back, &o);
	assert_string_equal(json_string_value(json_object_get(sum, "policy")),
	                    "builtin:uniform");
	json_decref(sum);
	krl_policy_fingerprint(back, f2);
	assert_string_equal(f1, f2);
	krl_policy_free(back);
	krl_policy_free(pol);
	world_close(&w);
}

/* A space smaller than the budget: every distinct candidate is judged
 * once, the choice the generator refuses is recorded as no_candidate (and
 * penalised), and the search stops early instead of repeating. */
static void exhausted_and_refused(void **state)
{
	world w;
	world_open(&w);
	standin g = {.space = make_space(1)};
	judge j = {.space = &g.space};
	krl_policy *pol = NULL;
	KRL_ASSERT_OK(krl_policy_create(&pol), NULL);
	krl_builtin_opts o = opts(&w, 12, 9);
	json_t *sum = run_search(&w, w.db, &g, &j, pol, &o);
	assert_true(json_is_true(json_object_get(sum, "exhausted")));
	/* 3 x 2 choices, one refused. */
	assert_int_equal(json_integer_value(json_object_get(sum, "evaluations")),
	                 6);
	assert_int_equal(j.calls, 5);
	assert_int_equal(json_integer_value(json_object_get(
		json_object_get(sum, "verdicts"), "no_candidate")), 1);
	json_decref(sum);
	rows x = {0};
	read_rows(w.db, &x);
	assert_int_equal(x.n, 6);
	int refused = 0;
	for (int i = 0; i < x.n; i++)
		if (!strcmp(x.r[i].verdict, "no_candidate")) {
			refused++;
			assert_string_equal(x.r[i].cand_hash, "");
			assert_non_null(strstr(x.r[i].record, "not written"));
			assert_non_null(strstr(x.r[i].completion,
			                       "map.vec=4 map.block=1024"));
		}
	assert_int_equal(refused, 1);
	rows_free(&x);

	/* Resuming the exhausted run judges nothing more. */
	judge j2 = {.space = &g.space};
	krl_policy *pol2 = NULL;
	KRL_ASSERT_OK(krl_policy_create(&pol2), NULL);
	sum = run_search(&w, w.db, &g, &j2, pol2, &o);
	assert_int_equal(j2.calls, 0);
	assert_int_equal(json_integer_value(json_object_get(sum, "evaluations")),
	                 6);
	json_decref(sum);
	krl_policy_free(pol);
	krl_policy_free(pol2);
	world_close(&w);
}

/* The same loop over the real program optimizer (krl_opt_generator) on
 * level1/19_relu at kb1, with the judge stand-in scoring the real space's
 * options: (1 + 0.5 [map.ept = 4]) (1 + 0.2 [map.block = 512]) (0.8
 * [fuse = none]). The default (ept 1, block 256) scores 1; the search has
 * to find ept 4 by mutation. The candidates are the generator's real files. */
static double relu_score(const krl_space *s, const krl_choice *c)
{
	double x = 1;
	if (!strcmp(opt_of(s, c, "map.ept"), "4"))
		x *= 1.5;
	if (!strcmp(opt_of(s, c, "map.block"), "512"))
		x *= 1.2;
	if (!strcmp(opt_of(s, c, "fuse"), "none"))
		x *= 0.8;
	return x;
}

static krl_err relu_eval(void *ctx, const krl_task *t, const char *path,
                         json_t **rec, krl_diag *d)
{
	judge *j = ctx;
	char *src = krl_test_read(path, NULL);
	krl_choice c;
	assert_non_null(src);
	KRL_ASSERT_OK(krl_choice_parse(j->space, src, &c, d), d);
	/* Generated code, or (fuse=ref) the reference's library calls. */
	assert_true(strstr(src, "__global__") != NULL ||
	            strstr(src, "call relu(") != NULL);
	free(src);
	j->calls++;
	double x = relu_score(j->space, &c);
	*rec = json_pack("{s:s, s:{s:{s:f, s:f, s:f}, s:{s:f}, s:{s:f}}, s:{s:f}}",
	                 "verdict", "ok", "timing", "speedup", "median", x,
	                 "ci_low", x, "ci_high", x, "ref_ms", "median", 2.0,
	                 "cand_ms", "median", 2.0 / x, "roofline", "fraction",
	                 0.3 * x);
	return KRL_OK;
}

static void real_optimizer(void **state)
{
	world w;
	world_open(&w);
	krl_opt *opt = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_opt_create(w.task, "kb1", &opt, &d), &d);
	krl_generator gen = krl_opt_generator(opt);
	assert_true(gen.space->ndec >= 2);
	assert_true(gen.features.n >= 1);
	judge j = {.space = gen.space};
	krl_evaluator ev = {.ctx = &j, .eval = relu_eval, .name = "stand-in"};
	krl_policy *pol = NULL;
	KRL_ASSERT_OK(krl_policy_create(&pol), NULL);
	krl_builtin_opts o = opts(&w, 16, 2);
	krl_store *st = NULL;
	json_t *sum = NULL;
	KRL_ASSERT_OK(krl_store_open(w.db, &st, &d), &d);
	KRL_ASSERT_OK(krl_optimize_builtin(w.task, &gen, pol, &ev, st, &o, &sum,
	                                   &d), &d);
	krl_store_close(st);
	assert_int_equal(json_integer_value(json_object_get(sum, "evaluations")),
	                 16);
	assert_int_equal(j.calls, 16);
	double best = json_number_value(json_object_get(sum, "speedup"));
	print_message("relu: best %.3f, what: %s\n", best,
	              json_string_value(json_object_get(sum, "what")));
	/* Found: ept 4 (1.5, or 1.2 with fuse=none). */
	assert_true(best >= 1.5 * 0.8);
	assert_non_null(strstr(json_string_value(json_object_get(sum, "choice")),
	                       "map.ept=4"));
	assert_non_null(strstr(json_string_value(json_object_get(sum, "what")),
	                       "ept 4"));
	assert_true(fabs(json_number_value(json_object_get(sum, "best_ms")) -
	                 2.0 / best) < 1e-12);
	rows x = {0};
	read_rows(w.db, &x);
	assert_non_null(strstr(x.r[1].completion, "fuse=ref"));
	rows_free(&x);
	json_decref(sum);
	krl_policy_free(pol);
	krl_opt_free(opt);
	world_close(&w);
}

/* A search of budget `budget` (seed 3) over the stand-in space with
 * decisions extra added, feature conv_share (0: none) and the judge's
 * slow factor (0: none), its rows in *x (the caller frees them). */
static void round0_run(const krl_decision *extra, int nextra, int budget,
                       double conv_share, double slow, rows *x)
{
	world w;
	world_open(&w);
	standin g = {.space = make_space(0), .conv_share = conv_share};
	for (int k = 0; k < nextra; k++)
		g.space.dec[g.space.ndec++] = extra[k];
	judge j = {.space = &g.space, .slow = slow, .unordered = slow > 0};
	krl_policy *pol = NULL;
	KRL_ASSERT_OK(krl_policy_create(&pol), NULL);
	krl_builtin_opts o = opts(&w, budget, 3);
	json_t *sum = run_search(&w, w.db, &g, &j, pol, &o);
	assert_int_equal(json_integer_value(json_object_get(sum, "evaluations")),
	                 budget);
	read_rows(w.db, x);
	assert_int_equal(x->n, budget);
	json_decref(sum);
	krl_policy_free(pol);
	world_close(&w);
}

/* round0_run at budget 8, no conv_share, the judge as it is. */
static void round0_rows(const krl_decision *extra, int nextra, rows *x)
{
	round0_run(extra, nextra, 8, 0, 0, x);
}

static krl_decision decision(const char *name, const char *const *opt, int n)
{
	krl_decision dc;
	memset(&dc, 0, sizeof dc);
	snprintf(dc.name, sizeof dc.name, "%s", name);
	for (int k = 0; k < n; k++)
		snprintf(dc.opt[k], sizeof dc.opt[k], "%s", opt[k]);
	dc.nopt = n;
	return dc;
}

/* conv.impl (lib first) and lib.layout (nhwc_y first), into dk. */
static void conv_and_layout(krl_decision *dk)
{
	static const char *const impl[] = { "lib", "igemm" };
	static const char *const lay[] = { "nhwc_y", "nchw", "nhwc" };
	dk[0] = decision("conv.impl", impl, 2);
	dk[1] = decision("lib.layout", lay, 3);
}

/* Round 0 with a convolution: the default, then the default with the
 * other conv.impl (the pay rule's guess is measured against the other
 * option in every search), then the reference's structure. */
static void round0_other_convolution(void **state)
{
	(void)state;
	static const char *const impl[] = { "igemm", "lib" };
	krl_decision dk = decision("conv.impl", impl, 2);
	rows x = {0};
	round0_rows(&dk, 1, &x);
	assert_string_equal(x.r[0].slot, "r0/k0");
	assert_non_null(strstr(x.r[0].completion, "conv.impl=igemm"));
	assert_non_null(strstr(x.r[0].completion, "base: default"));
	assert_string_equal(x.r[1].slot, "r0/k1");
	assert_non_null(strstr(x.r[1].completion, "krl-choice: fuse=all "));
	assert_non_null(strstr(x.r[1].completion, "conv.impl=lib"));
	assert_non_null(strstr(x.r[1].completion,
	                       "base: conv.impl=lib (the other convolution)"));
	assert_string_equal(x.r[2].slot, "r0/k2");
	assert_non_null(strstr(x.r[2].completion, "fuse=ref"));
	assert_string_equal(x.r[3].slot, "r1/k0");
	rows_free(&x);
}

/* Round 0 also judges the default with the other of cuDNN's layouts
 * nchw and nhwc_y (lib.layout, ordered by its pay rule), after the other
 * convolution (convolutions hold no share of the work here: the stand-in
 * has no conv_share feature). */
static void round0_other_layout(void **state)
{
	(void)state;
	krl_decision dk[2];
	conv_and_layout(dk);
	rows x = {0};
	round0_rows(dk, 2, &x);
	assert_non_null(strstr(x.r[0].completion, "lib.layout=nhwc_y"));
	assert_non_null(strstr(x.r[1].completion, "conv.impl=igemm"));
	assert_non_null(strstr(x.r[1].completion, "lib.layout=nhwc_y"));
	assert_string_equal(x.r[2].slot, "r0/k2");
	assert_non_null(strstr(x.r[2].completion, "conv.impl=lib"));
	assert_non_null(strstr(x.r[2].completion, "lib.layout=nchw"));
	assert_non_null(strstr(x.r[2].completion,
	                       "base: lib.layout=nchw (the other layout)"));
	assert_string_equal(x.r[3].slot, "r0/k3");
	assert_non_null(strstr(x.r[3].completion, "fuse=ref"));
	assert_string_equal(x.r[4].slot, "r1/k0");
	rows_free(&x);
}

/* Where lib.layout offers nhwc_xy (a convolution feeds another), the
 * other layout round 0 judges is that one, whatever the default. */
static void round0_layout_across_layers(void **state)
{
	(void)state;
	static const char *const lay[] = { "nchw", "nhwc", "nhwc_y",
	                                   "nhwc_xy" };
	static const char *const lay_cl[] = { "nhwc_y", "nchw", "nhwc",
	                                      "nhwc_xy" };
	const char *const *orders[2] = { lay, lay_cl };
	for (int i = 0; i < 2; i++) {
		krl_decision dk = decision("lib.layout", orders[i], 4);
		rows x = {0};
		round0_rows(&dk, 1, &x);
		assert_non_null(strstr(x.r[0].completion, i ? "lib.layout=nhwc_y"
		                                             : "lib.layout=nchw"));
		assert_string_equal(x.r[1].slot, "r0/k1");
		assert_non_null(strstr(x.r[1].completion, "base: lib.layout="
		                       "nhwc_xy (the other layout)"));
		assert_non_null(strstr(x.r[2].completion, "fuse=ref"));
		assert_string_equal(x.r[3].slot, "r1/k0");
		rows_free(&x);
	}
}

/* Round 0 also judges the default with the other form of a transposed
 * convolution (lib.tconv), after the other layout: with all four fixed
 * choices and the reference's structure, round 0 holds five. */
static void round0_other_tconv(void **state)
{
	(void)state;
	static const char *const impl[] = { "lib", "igemm" };
	static const char *const lay[] = { "nhwc_y", "nchw", "nhwc" };
	static const char *const tc[] = { "dgrad", "fwd" };
	krl_decision dk[3] = { decision("conv.impl", impl, 2),
	                       decision("lib.layout", lay, 3),
	                       decision("lib.tconv", tc, 2) };
	rows x = {0};
	round0_rows(dk, 3, &x);
	assert_non_null(strstr(x.r[0].completion, "lib.tconv=dgrad"));
	/* the other convolution takes the transposed one's forward form */
	assert_non_null(strstr(x.r[1].completion, "conv.impl=igemm"));
	assert_non_null(strstr(x.r[1].completion, "lib.tconv=fwd"));
	assert_non_null(strstr(x.r[2].completion, "lib.layout=nchw"));
	assert_non_null(strstr(x.r[2].completion, "lib.tconv=dgrad"));
	assert_string_equal(x.r[3].slot, "r0/k3");
	assert_non_null(strstr(x.r[3].completion, "conv.impl=lib"));
	assert_non_null(strstr(x.r[3].completion, "lib.layout=nhwc_y"));
	assert_non_null(strstr(x.r[3].completion, "lib.tconv=fwd"));
	assert_non_null(strstr(x.r[3].completion, "base: lib.tconv=fwd (the "
	                       "other transposed convolution)"));
	assert_non_null(strstr(x.r[4].completion, "fuse=ref"));
	assert_string_equal(x.r[5].slot, "r1/k0");
	rows_free(&x);
}

/* Round 0 also judges the default with cuDNN's persistent recurrence
 * (lib.rnn=persist) where a recurrent layer offers it. */
static void round0_persistent_recurrence(void **state)
{
	(void)state;
	static const char *const rec[] = { "infer", "persist", "small_h",
	                                   "standard" };
	krl_decision dk = decision("lib.rnn", rec, 4);
	rows x = {0};
	round0_rows(&dk, 1, &x);
	assert_non_null(strstr(x.r[0].completion, "lib.rnn=infer"));
	assert_string_equal(x.r[1].slot, "r0/k1");
	assert_non_null(strstr(x.r[1].completion, "lib.rnn=persist"));
	assert_non_null(strstr(x.r[1].completion, "base: lib.rnn=persist (the "
	                       "persistent recurrence)"));
	assert_non_null(strstr(x.r[2].completion, "fuse=ref"));
	assert_string_equal(x.r[3].slot, "r1/k0");
	rows_free(&x);
}

/* Where convolutions hold at least half of the multiply-adds (feature
 * conv_share), round 0 judges the other layout first, then the other
 * convolution, then the other GEMM; below half, the GEMM first. */
static void round0_convolutions_first(void **state)
{
	(void)state;
	static const char *const gi[] = { "lib", "3xtf32" };
	static const char *const impl[] = { "lib", "igemm" };
	static const char *const lay[] = { "nchw", "nhwc", "nhwc_y", "nhwc_xy" };
	krl_decision dk[3] = { decision("gemm.impl", gi, 2),
	                       decision("conv.impl", impl, 2),
	                       decision("lib.layout", lay, 4) };
	static const char *const conv_first[] = {
		"base: lib.layout=nhwc_xy", "base: conv.impl=igemm",
		"base: gemm.impl=3xtf32", "base: fuse=ref",
	};
	static const char *const gemm_first[] = {
		"base: gemm.impl=3xtf32", "base: conv.impl=igemm",
		"base: lib.layout=nhwc_xy", "base: fuse=ref",
	};
	for (int i = 0; i < 2; i++) {
		rows x = {0};
		round0_run(dk, 3, 8, i ? 0.3 : 0.9, 0, &x);
		assert_non_null(strstr(x.r[0].completion, "base: default"));
		for (int k = 0; k < 4; k++) {
			assert_non_null(strstr(x.r[k + 1].completion,
			                       (i ? gemm_first : conv_first)[k]));
		}
		assert_string_equal(x.r[5].slot, "r1/k0");
		rows_free(&x);
	}
}

/* A budget that cuts round 0 short (3 of default, two alternatives and
 * the reference plan): where the default and the first alternative are
 * both slower than the reference, the last evaluation is the reference
 * plan (rescued); where the default is as fast, it is the second
 * alternative, and the reference plan is never judged. */
static void budget_rescues_reference(void **state)
{
	(void)state;
	krl_decision dk[2];
	conv_and_layout(dk);
	rows x = {0};
	round0_run(dk, 2, 3, 0, 0.9, &x);
	assert_non_null(strstr(x.r[0].completion, "base: default"));
	assert_non_null(strstr(x.r[1].completion, "base: conv.impl=igemm"));
	assert_true(x.r[1].speedup < 1);
	assert_string_equal(x.r[2].slot, "r0/k2");
	assert_non_null(strstr(x.r[2].completion, "krl-choice: fuse=ref"));
	assert_non_null(strstr(x.r[2].completion, "base: fuse=ref (the "
	                       "reference plan: nothing as fast as it so far)"));
	rows_free(&x);
	round0_run(dk, 2, 3, 0, 0, &x);
	assert_true(x.r[0].speedup >= 1);
	assert_non_null(strstr(x.r[2].completion, "base: lib.layout=nchw"));
	for (int k = 0; k < 3; k++)
		assert_null(strstr(x.r[k].completion, "fuse=ref"));
	rows_free(&x);
	/* budget 1: the default alone, never rescued */
	round0_run(dk, 2, 1, 0, 0.9, &x);
	assert_non_null(strstr(x.r[0].completion, "base: default"));
	rows_free(&x);
}

/* --round0 policy: round 0 is a round of G drawn from the policy, the
 * first member its mode (where the policy is not uniform), every decision
 * sampled (so learning sees round 0 too), no fixed choice and no rescue;
 * the run is named and configured apart from the fixed-round-0 run. */
static void round0_from_policy(void **state)
{
	(void)state;
	world w;
	world_open(&w);
	standin g = {.space = make_space(0)};
	judge j = {.space = &g.space, .slow = 0.5, .unordered = 1};
	krl_policy *pol = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_policy_create(&pol), NULL);
	KRL_ASSERT_OK(krl_policy_set_weight(pol, "map.vec", "4", "bias", 2), &d);
	KRL_ASSERT_OK(krl_policy_set_weight(pol, "map.block", "128", "bias", 1),
	              &d);
	KRL_ASSERT_OK(krl_policy_set_weight(pol, "fuse", "ref", "bias", 0.5), &d);
	krl_builtin_opts o = opts(&w, 8, 3);
	o.run_name = NULL;
	o.round0_policy = 1;
	json_t *sum = run_search(&w, w.db, &g, &j, pol, &o);
	assert_int_equal(json_integer_value(json_object_get(sum, "evaluations")),
	                 8);
	assert_non_null(strstr(json_string_value(json_object_get(sum, "run")),
	                       "/r0policy"));
	json_decref(sum);
	rows x = {0};
	read_rows(w.db, &x);
	assert_int_equal(x.n, 8);
	/* the mode: every decision's likeliest option, ties to option 0 */
	assert_string_equal(x.r[0].slot, "r0/k0");
	assert_non_null(strstr(x.r[0].completion, "base: policy mode"));
	assert_non_null(strstr(x.r[0].completion, "krl-choice: fuse=ref "
	                       "map.vec=4 map.block=128 map.grid=cdiv "
	                       "rule.fold=off"));
	assert_non_null(strstr(x.r[0].completion, "sampled: fuse map.vec "
	                       "map.block map.grid rule.fold\n"));
	for (int i = 0; i < x.n; i++) {
		assert_int_equal(x.r[i].round, i < 4 ? 0 : 1);
		assert_null(strstr(x.r[i].completion, "base: default"));
		assert_null(strstr(x.r[i].completion, "reference plan"));
		if (i > 0 && i < 4)
			assert_non_null(strstr(x.r[i].completion, "base: policy\n"));
	}
	assert_non_null(strstr(x.r[0].prompt, "drawn from the policy"));
	rows_free(&x);

	/* The same run name with the fixed round 0 is another configuration. */
	krl_store *st = NULL;
	krl_generator gen = generator(&g, 0.625);
	judge j2 = {.space = &g.space};  /* a judge stand-in per run */
	krl_evaluator ev = {.ctx = &j2, .eval = judge_eval, .name = "stand-in"};
	krl_builtin_opts o2 = opts(&w, 8, 3);
	o2.round0_policy = 1;
	o2.run_name = "named";
	KRL_ASSERT_OK(krl_store_open(w.db2, &st, &d), &d);
	KRL_ASSERT_OK(krl_optimize_builtin(w.task, &gen, pol, &ev, st, &o2, &sum,
	                                   &d), &d);
	json_decref(sum);
	o2.round0_policy = 0;
	assert_int_equal(krl_optimize_builtin(w.task, &gen, pol, &ev, st, &o2,
	                                      &sum, &d), KRL_EINVAL);
	assert_non_null(strstr(d.msg, "other options"));
	krl_store_close(st);

	/* Uniform mode has no mode: round 0 is four uniform draws. */
	krl_policy_set_uniform(pol, 1);
	o.run_name = "uniform";
	judge ju = {.space = &g.space};
	sum = run_search(&w, w.db, &g, &ju, pol, &o);
	json_decref(sum);
	read_rows(w.db, &x);
	int seen = 0;
	for (int i = 0; i < x.n; i++) {
		if (strcmp(x.r[i].policy, "builtin:uniform"))
			continue;
		if (x.r[i].round == 0) {
			assert_null(strstr(x.r[i].completion, "policy mode"));
			assert_non_null(strstr(x.r[i].completion, "base: policy\n"));
			seen++;
		}
	}
	assert_int_equal(seen, 4);
	rows_free(&x);
	krl_policy_free(pol);
	world_close(&w);
}

/* The training split (tasks/splits/level1.txt, read by krl train): every
 * level-1 task of the suite exactly once, as train or heldout, about 30%
 * held out. */
static void split_covers_level1(void **state)
{
	krl_suite *s = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_suite_load("tasks", &s, &d), &d);
	FILE *f = fopen("tasks/splits/level1.txt", "r");
	assert_non_null(f);
	int *seen = calloc((size_t)s->n, sizeof *seen), held = 0, n = 0;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		char task[256], part[32];
		if (line[0] == '#' || line[0] == '\n')
			continue;
		assert_int_equal(sscanf(line, "%255s %31s", task, part), 2);
		assert_true(!strcmp(part, "train") || !strcmp(part, "heldout"));
		int i = krl_suite_find(s, task, &d);
		assert_true(i >= 0);
		assert_string_equal(s->ids[i], task);
		seen[i]++;
		held += !strcmp(part, "heldout");
		n++;
	}
	fclose(f);
	int level1 = 0;
	for (int i = 0; i < s->n; i++)
		if (!strncmp(s->ids[i], "level1/", 7)) {
			level1++;
			assert_int_equal(seen[i], 1);
		}
	assert_int_equal(n, level1);
	assert_true(held >= n / 4 && held <= n * 7 / 20);
	free(seen);
	krl_suite_free(s);
}

/* The patience rule: the search stops after the first round r >= R whose
 * best (rounds 0..r) is not above (1 + min_gain) times the best of rounds
 * 0..r - R, computed here from the stored rows; a rerun replays it and
 * judges nothing. */
static void patience_stops(void **state)
{
	(void)state;
	for (int R = 1; R <= 2; R++) {
		world w;
		world_open(&w);
		standin g = {.space = make_space(0)};
		judge j = {.space = &g.space};
		krl_policy *pol = NULL;
		KRL_ASSERT_OK(krl_policy_create(&pol), NULL);
		krl_builtin_opts o = opts(&w, 30, 3);
		o.patience = R;
		o.min_gain = 0.05;
		json_t *sum = run_search(&w, w.db, &g, &j, pol, &o);
		int n = (int)json_integer_value(json_object_get(sum, "evaluations"));
		rows x = {0};
		read_rows(w.db, &x);
		assert_int_equal(x.n, n);
		/* best[r]: the best speedup of rounds 0..r */
		double best[16] = {0};
		int last = 0;
		for (int i = 0; i < x.n; i++) {
			int r = x.r[i].round;
			assert_true(r < 16);
			last = r > last ? r : last;
			if (!strcmp(x.r[i].verdict, "ok") && x.r[i].speedup > best[r])
				best[r] = x.r[i].speedup;
		}
		for (int r = 1; r <= last; r++)
			best[r] = fmax(best[r], best[r - 1]);
		int expect = -1; /* the first round the rule holds after */
		for (int r = R; r <= last && expect < 0; r++)
			if (best[r] <= best[r - R] * 1.05)
				expect = r;
		print_message("patience %d: %d evaluations, %d rounds, converged %d\n",
		              R, n, last + 1,
		              json_is_true(json_object_get(sum, "converged")));
		assert_true(expect >= 0);
		assert_int_equal(last, expect);
		assert_true(n < 30);
		assert_true(json_is_true(json_object_get(sum, "converged")));
		json_decref(sum);

		judge j2 = {.space = &g.space};
		krl_policy *pol2 = NULL;
		KRL_ASSERT_OK(krl_policy_create(&pol2), NULL);
		sum = run_search(&w, w.db, &g, &j2, pol2, &o);
		assert_int_equal(j2.calls, 0);
		assert_int_equal(json_integer_value(json_object_get(sum, "evaluations")),
		                 n);
		assert_true(json_is_true(json_object_get(sum, "converged")));
		json_decref(sum);
		rows_free(&x);
		krl_policy_free(pol);
		krl_policy_free(pol2);
		world_close(&w);
	}
}

/* A search's first N evaluations are those of a search of budget N with
 * the same seed (its round-0 slots, then rounds of G, every draw seeded
 * by round and member, learning after each round): what `krl train
 * --eval --at` relies on to report smaller budgets from one run. With
 * learning on (the weights' arm) and in uniform mode, 3 seeds, N = 4, 8,
 * 13 of 32. */
static void budget_prefix(void **state)
{
	(void)state;
	static const int Ns[] = { 4, 8, 13 };
	for (int uni = 0; uni <= 1; uni++) {
		for (uint64_t seed = 1; seed <= 3; seed++) {
			world w;
			world_open(&w);
			standin g = {.space = make_space(0)};
			judge j = {.space = &g.space};
			krl_policy *pol = NULL;
			KRL_ASSERT_OK(krl_policy_create(&pol), NULL);
			krl_policy_set_uniform(pol, uni);
			krl_builtin_opts o = opts(&w, 32, seed);
			o.learn = !uni;
			json_decref(run_search(&w, w.db, &g, &j, pol, &o));
			rows big = {0};
			read_rows(w.db, &big);
			assert_int_equal(big.n, 32);
			for (size_t q = 0; q < sizeof Ns / sizeof Ns[0]; q++) {
				char db[160];
				snprintf(db, sizeof db, "%s/b%d.db", w.dir, Ns[q]);
				judge j2 = {.space = &g.space};
				krl_policy *p2 = NULL;
				KRL_ASSERT_OK(krl_policy_create(&p2), NULL);
				krl_policy_set_uniform(p2, uni);
				krl_builtin_opts o2 = opts(&w, Ns[q], seed);
				o2.learn = !uni;
				json_t *sum2 = run_search(&w, db, &g, &j2, p2, &o2);
				/* what `krl train --eval --at` reads from the big run */
				krl_store *st = NULL;
				krl_diag d = {0};
				double within = 0;
				KRL_ASSERT_OK(krl_store_open(w.db, &st, &d), &d);
				KRL_ASSERT_OK(krl_run_best_within(st, "search", Ns[q],
				                                  &within, &d), &d);
				assert_int_equal(krl_run_best_within(st, "no such run", 4,
				                                     &within, &d),
				                 KRL_ENOTFOUND);
				KRL_ASSERT_OK(krl_run_best_within(st, "search", Ns[q],
				                                  &within, &d), &d);
				krl_store_close(st);
				json_t *sp = json_object_get(sum2, "speedup");
				if (json_is_null(sp))
					assert_true(isnan(within));
				else
					assert_true(within == json_number_value(sp));
				json_decref(sum2);
				rows small = {0};
				read_rows(db, &small);
				assert_int_equal(small.n, Ns[q]);
				for (int i = 0; i < small.n; i++) {
					assert_string_equal(small.r[i].slot, big.r[i].slot);
					assert_string_equal(small.r[i].completion,
					                    big.r[i].completion);
					assert_string_equal(small.r[i].verdict,
					                    big.r[i].verdict);
					assert_true(small.r[i].speedup == big.r[i].speedup);
				}
				rows_free(&small);
				krl_policy_free(p2);
			}
			rows_free(&big);
			krl_policy_free(pol);
			world_close(&w);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(search_improves),
		cmocka_unit_test(resume_after_kill),
		cmocka_unit_test(training_learns),
		cmocka_unit_test(exhausted_and_refused),
		cmocka_unit_test(real_optimizer),
		cmocka_unit_test(round0_other_convolution),
		cmocka_unit_test(round0_other_layout),
		cmocka_unit_test(round0_other_tconv),
		cmocka_unit_test(round0_persistent_recurrence),
		cmocka_unit_test(round0_convolutions_first),
		cmocka_unit_test(budget_rescues_reference),
		cmocka_unit_test(round0_layout_across_layers),
		cmocka_unit_test(patience_stops),
		cmocka_unit_test(budget_prefix),
		cmocka_unit_test(round0_from_policy),
		cmocka_unit_test(split_covers_level1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
