/*
 * The contrastive loop end to end on the CPU: a scripted OpenAI-compatible
 * server (tests/common/mockllm.c) answers with recorded completions (good,
 * wrong, malformed, slow, server errors), and a JUDGE STAND-IN replays the
 * verdicts the real judge gave the same candidates on an H200
 * (bench/results/2026-11-29-h200-foundation, kb1): this machine has no GPU,
 * so nothing is run; the loop, the store, the rewards, the advantages, the
 * resume after kill -9 and the export are all real. On the GPU machine the
 * same loop runs with the real judge (bench/optimize_llm.sh).
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "krl/optimize.h"
#include "krl/suite.h"
#include "mockllm.h"
#include "testutil.h"

/* ==== Recorded candidates and their recorded verdicts ==== */

typedef struct recorded {
	const char *file;        /* the candidate's source */
	const char *verdict;     /* what the judge said on the H200, kb1 */
	double speedup, lo, hi;
} recorded;

static const recorded recs[] = {
	{"examples/level1/19_relu.fast.cu", "ok", 0.997, 0.996, 0.998},
	{"examples/level1/19_relu.wrong.cu", "wrong_output", 0, 0, 0},
	/* the op library's relu as a candidate, measured 0.999x [0.998, 1.000] */
	{"tests/data/llm/relu_call.cu", "ok", 0.999, 0.998, 1.000},
};

static char *answers[3]; /* "analysis + fenced candidate" per recs[i] */
static char *sources[3]; /* the candidate as extracted */

/* The stand-in: finds the candidate among the recorded ones by content and
 * replays its verdict. An unknown candidate is a test failure. */
static krl_err replay_eval(void *ctx, const krl_task *t, const char *path,
                           json_t **rec, krl_diag *d)
{
	int *delay_ms = ctx;
	char *src = krl_test_read(path, NULL);
	assert_non_null(src);
	for (int i = 0; i < 3; i++)
		if (!strcmp(src, sources[i])) {
			free(src);
			if (*delay_ms) {
				struct timespec ts = {0, *delay_ms * 1000000L};
				nanosleep(&ts, NULL);
			}
			if (!strcmp(recs[i].verdict, "ok"))
				*rec = json_pack("{s:s, s:{s:{s:f, s:f, s:f}}}", "verdict",
				                 "ok", "timing", "speedup", "median",
				                 recs[i].speedup, "ci_low", recs[i].lo,
				                 "ci_high", recs[i].hi);
			else
				*rec = json_pack("{s:s, s:s}", "verdict", recs[i].verdict,
				                 "message", "replayed");
			return KRL_OK;
		}
	fprintf(stderr, "stand-in: unknown candidate %s\n", path);
	free(src);
	return krl_diag_set(d, KRL_EINVAL, (krl_pos){0}, "unknown candidate");
}

static int setup(void **state)
{
	for (int i = 0; i < 3; i++) {
		char *src = krl_test_read(recs[i].file, NULL);
		assert_non_null(src);
		size_t n = strlen(src) + 256;
		answers[i] = malloc(n);
		snprintf(answers[i], n,
		         "The eager version reads x once and writes y once; this one "
		         "does the same with wider accesses.\n\n```cuda\n%s```\n", src);
		krl_diag d = {0};
		KRL_ASSERT_OK(krl_extract_candidate(answers[i], &sources[i], &d), &d);
		free(src);
	}
	return 0;
}

static int teardown(void **state)
{
	for (int i = 0; i < 3; i++) {
		free(answers[i]);
		free(sources[i]);
	}
	return 0;
}

/* ==== Helpers ==== */

typedef struct world {
	char dir[64], db[128], work[128];
	krl_suite *suite;
	krl_task *task;
} world;

static void world_open(world *w)
{
	krl_diag d = {0};
	snprintf(w->dir, sizeof w->dir, "/tmp/krl-opt-XXXXXX");
	assert_non_null(mkdtemp(w->dir));
	snprintf(w->db, sizeof w->db, "%s/krl.db", w->dir);
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

static krl_llm *client(mockllm *m, double timeout_s)
{
	krl_llm_opts o = {0};
	krl_llm *c = NULL;
	krl_diag d = {0};
	o.base_url = mockllm_url(m);
	o.model = "recorded";
	o.timeout_s = timeout_s;
	o.backoff_s = 0.01;
	o.max_in_flight = 1; /* replies are consumed in a known order */
	KRL_ASSERT_OK(krl_llm_create(&o, &c, &d), &d);
	return c;
}

typedef struct rows {
	int n;
	krl_eval_row r[64];
} rows;

static int grab(const krl_eval_row *row, void *ctx)
{
	rows *x = ctx;
	if (x->n < 64) {
		krl_eval_row *c = &x->r[x->n++];
		*c = *row;
		c->record = c->prompt = c->completion = c->policy = NULL;
		if (row->prompt)
			c->prompt = strdup(row->prompt);
	}
	return 0;
}

static void rows_free(rows *x)
{
	for (int i = 0; i < x->n; i++)
		krl_eval_row_clear(&x->r[i]);
	x->n = 0;
}

/* ==== Tests ==== */

static void full_run(void **state)
{
	world w;
	world_open(&w);
	/* 3 rounds x 4 proposals, with server trouble in between: a 503 and a
	 * 429 (retried), a reply slower than the client's timeout (retried), an
	 * answer with no code and one with an empty code block. One request is
	 * in flight at a time, so replies are consumed in this order (which
	 * member gets which is up to the client's threads; the counts are
	 * not). */
	mockllm_reply rep[] = {
		{.completion = answers[0], .prompt_tokens = 900, .completion_tokens = 300},
		{.status = 503, .body = "{\"error\":\"overloaded\"}"},
		{.completion = answers[1]},
		{.completion = "I would use float4 loads, but I will not write code."},
		{.status = 429, .retry_after = "0", .body = "{}"},
		{.completion = answers[2]},
		/* round 1 */
		{.completion = answers[2]},
		{.delay_ms = 1500, .completion = answers[0]},
		{.completion = answers[0]},
		{.completion = "```cuda\n```\n"},
		{.completion = answers[1]},
		/* round 2 */
		{.completion = answers[0]},
		{.completion = answers[1]},
		{.completion = answers[2]},
		{.completion = answers[0]},
	};
	mockllm *m = mockllm_start(rep, (int)(sizeof rep / sizeof *rep));
	assert_non_null(m);
	krl_llm *llm = client(m, 1.0);
	krl_store *st = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_store_open(w.db, &st, &d), &d);
	int delay = 0;
	krl_evaluator ev = {.ctx = &delay, .eval = replay_eval,
	                    .name = "judge stand-in (replays recorded verdicts)"};
	krl_optimize_opts o = {0};
	o.rounds = 3;
	o.group = 4;
	o.work_dir = w.work;
	o.seed = 7;
	json_t *sum = NULL;
	KRL_ASSERT_OK(krl_optimize_llm(w.task, llm, &ev, st, &o, &sum, &d), &d);
	assert_int_equal(json_integer_value(json_object_get(sum, "evaluations")), 12);
	assert_true(json_number_value(json_object_get(sum, "best_speedup")) == 0.999);
	json_decref(sum);

	rows x = {0};
	KRL_ASSERT_OK(krl_store_foreach_eval(st, 0, grab, &x, &d), &d);
	assert_int_equal(x.n, 12);
	int ok = 0, wrong = 0, none = 0;
	krl_reward_opts ro = {0};
	krl_reward_norm z;
	assert_int_equal(krl_reward_norm_init(&z, &ro), 0);
	for (int i = 0; i < x.n; i++) {
		const krl_eval_row *r = &x.r[i];
		char slot[32];
		snprintf(slot, sizeof slot, "r%d/k%d", i / 4, i % 4);
		assert_string_equal(r->slot, slot);
		ok += !strcmp(r->verdict, "ok");
		wrong += !strcmp(r->verdict, "wrong_output");
		none += !strcmp(r->verdict, "no_candidate");
		/* The stored reward is the normaliser replayed in order. */
		double want = krl_reward_norm_push(
			&z, krl_reward_raw(!strcmp(r->verdict, "ok"), r->speedup, &ro));
		assert_true(fabs(r->reward - want) < 1e-12);
		assert_true(r->has_advantage);
	}
	krl_reward_norm_free(&z);
	assert_int_equal(ok, 7);
	assert_int_equal(wrong, 3);
	assert_int_equal(none, 2);
	assert_int_equal(x.r[0].prompt_tokens, 900);
	/* Advantages are group-relative: zero mean in every round. */
	for (int g = 0; g < 3; g++) {
		double s = 0;
		for (int k = 0; k < 4; k++)
			s += x.r[4 * g + k].advantage;
		assert_true(fabs(s) < 1e-9);
	}
	/* Round 0 had no exemplars; later rounds show the stored correct ones
	 * (contrastive prompt): the fast candidate's kernel appears. */
	assert_null(strstr(x.r[0].prompt, "relu_stream"));
	assert_non_null(strstr(x.r[4].prompt, "relu_stream"));
	assert_non_null(strstr(x.r[4].prompt, "speedup"));
	rows_free(&x);

	/* Export: one line per evaluation, rewards equal to the store's. */
	char out[200];
	snprintf(out, sizeof out, "%s/rollouts.jsonl", w.dir);
	FILE *f = fopen(out, "w");
	int64_t n = 0;
	KRL_ASSERT_OK(krl_export_rollouts(st, NULL, f, &n, &d), &d);
	fclose(f);
	assert_int_equal(n, 12);
	f = fopen(out, "r");
	char line[1 << 16];
	KRL_ASSERT_OK(krl_store_foreach_eval(st, 0, grab, &x, &d), &d);
	for (int i = 0; fgets(line, sizeof line, f); i++) {
		json_error_t je;
		json_t *j = json_loads(line, 0, &je);
		assert_non_null(j);
		assert_true(json_real_value(json_object_get(j, "reward")) ==
		            x.r[i].reward);
		assert_true(json_real_value(json_object_get(j, "advantage")) ==
		            x.r[i].advantage);
		assert_string_equal(json_string_value(json_object_get(j, "slot")),
		                    x.r[i].slot);
		assert_non_null(json_string_value(json_object_get(j, "prompt")));
		json_decref(j);
	}
	fclose(f);
	rows_free(&x);

	krl_store_close(st);
	krl_llm_free(llm);
	mockllm_stop(m);
	world_close(&w);
}

/* kill -9 in the middle of a run, then the same run again: every
 * evaluation committed before the kill is kept unchanged, nothing is
 * evaluated twice, and the run completes. */
static void resume_after_kill(void **state)
{
	world w;
	world_open(&w);
	mockllm_reply any[] = {
		{.completion = answers[0], .repeat = -1},
	};
	krl_optimize_opts o = {0};
	o.rounds = 3;
	o.group = 4;
	o.work_dir = w.work;
	o.seed = 11;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		mockllm_reply mix[] = {
			{.completion = answers[0]}, {.completion = answers[1]},
			{.completion = answers[2], .repeat = -1},
		};
		mockllm *m = mockllm_start(mix, 3);
		krl_llm *llm = client(m, 5.0);
		krl_store *st = NULL;
		krl_diag d = {0};
		int delay = 100; /* slow evaluations: the kill lands mid-run */
		krl_evaluator ev = {.ctx = &delay, .eval = replay_eval,
		                    .name = "judge stand-in (replays recorded verdicts)"};
		json_t *sum = NULL;
		if (krl_store_open(w.db, &st, &d) == KRL_OK)
			krl_optimize_llm(w.task, llm, &ev, st, &o, &sum, &d);
		_exit(0);
	}
	/* Wait for at least 5 committed evaluations, then kill -9. */
	krl_store *st = NULL;
	krl_diag d = {0};
	int64_t run_id = 0, n = 0;
	for (int i = 0; i < 600 && n < 5; i++) {
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
		if (!st && krl_store_open(w.db, &st, &d) != KRL_OK)
			continue;
		if (!run_id && krl_store_run_find(st, "level1/19_relu/rl", &run_id,
		                                  &d) != KRL_OK)
			continue;
		krl_store_count_evals(st, run_id, &n, &d);
	}
	assert_true(n >= 5);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	rows before = {0};
	KRL_ASSERT_OK(krl_store_foreach_eval(st, run_id, grab, &before, &d), &d);
	assert_true(before.n >= 5 && before.n < 12);

	mockllm *m = mockllm_start(any, 1);
	krl_llm *llm = client(m, 5.0);
	int delay = 0;
	krl_evaluator ev = {.ctx = &delay, .eval = replay_eval,
	                    .name = "judge stand-in (replays recorded verdicts)"};
	json_t *sum = NULL;
	KRL_ASSERT_OK(krl_optimize_llm(w.task, llm, &ev, st, &o, &sum, &d), &d);
	assert_true(json_is_true(json_object_get(sum, "resumed")));
	json_decref(sum);
	/* Only the missing proposals were asked for. */
	assert_int_equal(mockllm_requests(m), 12 - before.n);

	rows after = {0};
	KRL_ASSERT_OK(krl_store_foreach_eval(st, run_id, grab, &after, &d), &d);
	assert_int_equal(after.n, 12);
	for (int i = 0; i < before.n; i++) {
		assert_int_equal(after.r[i].id, before.r[i].id);
		assert_string_equal(after.r[i].slot, before.r[i].slot);
		assert_string_equal(after.r[i].verdict, before.r[i].verdict);
		assert_true(after.r[i].reward == before.r[i].reward);
	}
	for (int i = 0; i < after.n; i++)
		for (int k = i + 1; k < after.n; k++)
			assert_string_not_equal(after.r[i].slot, after.r[k].slot);
	rows_free(&before);
	rows_free(&after);
	krl_store_close(st);
	krl_llm_free(llm);
	mockllm_stop(m);
	world_close(&w);
}

/* The paper's other data stages: self-supervised rounds (no exemplars,
 * reward 1 for a correct candidate) by two "models", then the SFT set of
 * distinct correct candidates over both runs (data augmentation). */
static void selfsup_and_sft(void **state)
{
	world w;
	world_open(&w);
	mockllm_reply rep[] = {
		{.completion = answers[0]}, {.completion = answers[1]},
		{.completion = answers[2]}, {.completion = answers[0]},
		{.completion = answers[2]}, {.completion = answers[1]},
		{.completion = answers[1]}, {.completion = answers[0]},
	};
	mockllm *m = mockllm_start(rep, 8);
	krl_llm *llm = client(m, 5.0);
	krl_store *st = NULL;
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_store_open(w.db, &st, &d), &d);
	int delay = 0;
	krl_evaluator ev = {.ctx = &delay, .eval = replay_eval,
	                    .name = "judge stand-in (replays recorded verdicts)"};
	const char *models[2] = {"llm:model-a", "llm:model-b"};
	for (int k = 0; k < 2; k++) {
		krl_optimize_opts o = {0};
		char run[64];
		snprintf(run, sizeof run, "selfsup-%d", k);
		o.run_name = run;
		o.policy = models[k];
		o.stage = KRL_STAGE_SELFSUP;
		o.rounds = 1;
		o.group = 4;
		o.work_dir = w.work;
		json_t *sum = NULL;
		KRL_ASSERT_OK(krl_optimize_llm(w.task, llm, &ev, st, &o, &sum, &d), &d);
		assert_string_equal(json_string_value(json_object_get(sum, "stage")),
		                    "selfsup");
		json_decref(sum);
	}
	rows x = {0};
	KRL_ASSERT_OK(krl_store_foreach_eval(st, 0, grab, &x, &d), &d);
	assert_int_equal(x.n, 8);
	for (int i = 0; i < x.n; i++)
		/* No exemplar is ever shown in a self-supervised round. */
		assert_null(strstr(x.r[i].prompt, "relu_stream"));
	rows_free(&x);

	char out[200];
	snprintf(out, sizeof out, "%s/sft.jsonl", w.dir);
	FILE *f = fopen(out, "w");
	int64_t n = 0;
	KRL_ASSERT_OK(krl_export_sft(st, NULL, 0, f, &n, &d), &d);
	fclose(f);
	/* Two distinct correct candidates (the fast relu and the library call)
	 * across both models' runs; the wrong one is left out. */
	assert_int_equal(n, 2);
	f = fopen(out, "r");
	char line[1 << 16];
	int seen_fast = 0, seen_call = 0;
	while (fgets(line, sizeof line, f)) {
		json_error_t je;
		json_t *j = json_loads(line, 0, &je);
		assert_non_null(j);
		const char *src = json_string_value(json_object_get(j, "candidate"));
		assert_non_null(src);
		seen_fast += !strcmp(src, sources[0]);
		seen_call += !strcmp(src, sources[2]);
		assert_non_null(strstr(json_string_value(json_object_get(j, "policy")),
		                       "llm:model-"));
		json_decref(j);
	}
	fclose(f);
	assert_int_equal(seen_fast, 1);
	assert_int_equal(seen_call, 1);
	/* A speedup floor keeps only the faster one (0.999 > 0.998). */
	f = fopen(out, "w");
	KRL_ASSERT_OK(krl_export_sft(st, NULL, 0.998, f, &n, &d), &d);
	fclose(f);
	assert_int_equal(n, 1);
	krl_store_close(st);
	krl_llm_free(llm);
	mockllm_stop(m);
	world_close(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_run),
		cmocka_unit_test(resume_after_kill),
		cmocka_unit_test(selfsup_and_sft),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
