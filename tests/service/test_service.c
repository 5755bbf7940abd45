/*
 * krl serve's endpoints (CPU): the real HTTP server, queue, workers and
 * store of src/service/, with the judge stand-in (standin.h) as the
 * evaluator. Each status code of docs/serve.md, the bearer token, the
 * OpenRLHF reward contract, the metrics text format, the refusal to
 * listen beyond loopback without a token, and at the end that the store
 * holds exactly one row per evaluation answered.
 */
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "client.h"
#include "krl/service.h"
#include "krl/store.h"
#include "standin.h"
#include "testutil.h"

#define TOKEN "s3cret-token"

static krl_service *svc;
static standin *si;
static char dir[64], db[128], base[64];
static int rows_expected;        /* answers that must have made a row */
static const char *task = "level1/19_relu";

/* ==== Helpers ==== */

static char *eval_body(const char *cand, const char *extra)
{
	json_t *j = json_pack("{s:s, s:s}", "task", task, "candidate", cand);
	if (extra) {
		json_t *x = json_loads(extra, 0, NULL);
		assert_non_null(x);
		json_object_update(j, x);
		json_decref(x);
	}
	char *z = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return z;
}

static long post(const char *path, const char *token, const char *body,
                 http_reply *r)
{
	char url[256];
	snprintf(url, sizeof url, "%s%s", base, path);
	assert_int_equal(http_do("POST", url, token, body, strlen(body), r), 0);
	return r->status;
}

static long get(const char *path, const char *token, http_reply *r)
{
	char url[256];
	snprintf(url, sizeof url, "%s%s", base, path);
	assert_int_equal(http_do("GET", url, token, NULL, 0, r), 0);
	return r->status;
}

/* POSTs a candidate to /v1/evaluate; returns the status and the verdict
 * (into v). */
static long evaluate(const char *cand, const char *extra, char v[32])
{
	http_reply r;
	char *b = eval_body(cand, extra);
	long st = post("/v1/evaluate", TOKEN, b, &r);
	free(b);
	v[0] = 0;
	json_t *j = json_loads(r.body, 0, NULL);
	const char *z = json_string_value(json_object_get(j, "verdict"));
	snprintf(v, 32, "%s", z ? z : "");
	json_decref(j);
	http_reply_free(&r);
	return st;
}

static int setup(void **state)
{
	krl_service_evaluator ev;
	krl_service_opts o;
	krl_diag d = {0};
	curl_global_init(CURL_GLOBAL_ALL);
	snprintf(dir, sizeof dir, "/tmp/krl-svc-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof db, "%s/krl.db", dir);
	char work[128];
	snprintf(work, sizeof work, "%s/cands", dir);
	si = standin_new(2, &ev);
	memset(&o, 0, sizeof o);
	o.token = TOKEN;
	o.queue = 4;
	o.max_body = 64 << 10;
	o.request_timeout_s = 20;
	o.db = db;
	o.work_dir = work;
	o.raw_reward = 1;
	KRL_ASSERT_OK(krl_service_start(&o, &ev, &svc, &d), &d);
	snprintf(base, sizeof base, "http://127.0.0.1:%d", krl_service_port(svc));
	return 0;
}

static int teardown(void **state)
{
	krl_service_stop(svc);
	standin_free(si);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	curl_global_cleanup();
	return 0;
}

/* ==== Tests ==== */

static void healthz_without_token(void **state)
{
	http_reply r;
	assert_int_equal(get("/healthz", NULL, &r), 200);
	json_t *j = json_loads(r.body, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "ok");
	assert_int_equal(json_integer_value(json_object_get(j, "workers")), 2);
	assert_string_equal(json_string_value(json_object_get(j, "evaluator")),
	                    "stand-in");
	json_decref(j);
	http_reply_free(&r);
	assert_int_equal(post("/healthz", NULL, "{}", &r), 405);
	http_reply_free(&r);
}

static void token_required(void **state)
{
	http_reply r;
	char *b = eval_body("//@standin ok 1.5\n", NULL);
	int before = standin_evals(si);
	assert_int_equal(post("/v1/evaluate", NULL, b, &r), 401);
	http_reply_free(&r);
	assert_int_equal(post("/v1/evaluate", "wrong-token", b, &r), 401);
	http_reply_free(&r);
	assert_int_equal(post("/v1/evaluate", TOKEN "x", b, &r), 401);
	http_reply_free(&r);
	assert_int_equal(post("/reward", NULL, "{\"query\": [\"x\"]}", &r), 401);
	http_reply_free(&r);
	assert_int_equal(get("/metrics", NULL, &r), 401);
	http_reply_free(&r);
	free(b);
	assert_int_equal(standin_evals(si), before);
}

static void verdicts(void **state)
{
	char v[32];
	assert_int_equal(evaluate("//@standin ok 1.5\n", NULL, v), 200);
	assert_string_equal(v, "ok");
	assert_int_equal(evaluate("//@standin wrong\n", NULL, v), 200);
	assert_string_equal(v, "wrong_output");
	assert_int_equal(evaluate("//@standin hang 20\n", NULL, v), 200);
	assert_string_equal(v, "timeout");
	assert_int_equal(evaluate("//@standin crash\n", NULL, v), 200);
	assert_string_equal(v, "launch_error");
	rows_expected += 4;

	/* the record is the evaluator's, with the reward in a header */
	http_reply r;
	char *b = eval_body("//@standin ok 2.5\n", NULL);
	assert_int_equal(post("/v1/evaluate", TOKEN, b, &r), 200);
	free(b);
	json_t *j = json_loads(r.body, 0, NULL);
	assert_near(json_number_value(json_object_get(json_object_get(
		json_object_get(j, "timing"), "speedup"), "median")), 2.5, 1e-12);
	json_decref(j);
	http_reply_free(&r);
	rows_expected++;

	/* the task's own text instead of its id */
	char *text = krl_test_read("tasks/level1/19_relu.task", NULL);
	assert_non_null(text);
	json_t *q = json_pack("{s:s, s:s}", "task_text", text, "candidate",
	                      "//@standin ok 1.1\n");
	char *z = json_dumps(q, 0);
	assert_int_equal(post("/v1/evaluate", TOKEN, z, &r), 200);
	http_reply_free(&r);
	rows_expected++;
	free(z);
	json_decref(q);
	free(text);
}

static void bad_requests(void **state)
{
	http_reply r;
	int before = standin_evals(si);
	assert_int_equal(post("/v1/evaluate", TOKEN, "{\"task\": ", &r), 400);
	assert_non_null(strstr(r.body, "malformed JSON: line 1"));
	http_reply_free(&r);
	assert_int_equal(post("/v1/evaluate", TOKEN, "[1, 2]", &r), 400);
	http_reply_free(&r);
	assert_int_equal(post("/v1/evaluate", TOKEN, "{\"task\": \"level1/19_relu\"}",
	                      &r), 400);
	assert_non_null(strstr(r.body, "candidate"));
	http_reply_free(&r);
	assert_int_equal(post("/v1/evaluate", TOKEN,
	                      "{\"task\": \"level1/no_such\", \"candidate\": \"x\"}",
	                      &r), 404);
	http_reply_free(&r);
	/* never a path on the server */
	assert_int_equal(post("/v1/evaluate", TOKEN,
	                      "{\"task\": \"/etc/passwd\", \"candidate\": \"x\"}",
	                      &r), 404);
	http_reply_free(&r);
	assert_int_equal(post("/v1/evaluate", TOKEN,
	                      "{\"task\": \"tasks/level1/19_relu.task\", "
	                      "\"candidate\": \"x\"}", &r), 404);
	http_reply_free(&r);
	/* a file in the server's folder is not a task either */
	assert_int_equal(post("/v1/evaluate", TOKEN,
	                      "{\"task\": \"CMakeLists.txt\", \"candidate\": \"x\"}",
	                      &r), 404);
	assert_null(strstr(r.body, "CMakeLists.txt:")); /* never parsed */
	http_reply_free(&r);
	assert_int_equal(post("/v1/evaluate", TOKEN,
	                      "{\"task_text\": \"task broken(\", \"candidate\": \"x\"}",
	                      &r), 400);
	assert_non_null(strstr(r.body, "does not parse"));
	http_reply_free(&r);
	char v[32];
	assert_int_equal(evaluate("x", "{\"shapes\": \"kb1,nope\"}", v), 400);
	assert_int_equal(evaluate("x", "{\"seed\": -1}", v), 400);
	assert_int_equal(evaluate("x", "{\"timeout_s\": 0}", v), 400);
	assert_int_equal(post("/v2/nothing", TOKEN, "{}", &r), 404);
	http_reply_free(&r);
	assert_int_equal(get("/v1/evaluate", TOKEN, &r), 405);
	http_reply_free(&r);

	/* 413: read to the end, then refused */
	size_t n = (64 << 10) + 100;
	char *big = malloc(n + 1);
	memset(big, ' ', n);
	big[0] = '{';
	big[n - 1] = '}';
	big[n] = 0;
	assert_int_equal(post("/v1/evaluate", TOKEN, big, &r), 413);
	http_reply_free(&r);
	/* an unauthenticated one is 401, whatever its size */
	assert_int_equal(post("/v1/evaluate", NULL, big, &r), 401);
	http_reply_free(&r);
	free(big);
	assert_int_equal(standin_evals(si), before);
}

static void shapes_and_seed(void **state)
{
	char v[32], sets[256];
	unsigned long long seed;
	assert_int_equal(evaluate("//@standin ok 1.2\n",
	                          "{\"shapes\": [\"tiny\", \"kb1\"], \"seed\": 7}",
	                          v), 200);
	standin_last(si, sets, sizeof sets, &seed);
	assert_string_equal(sets, "tiny,kb1");
	assert_int_equal(seed, 7);
	assert_int_equal(evaluate("//@standin ok 1.2\n", "{\"shapes\": \"kb1\"}",
	                          v), 200);
	standin_last(si, sets, sizeof sets, &seed);
	assert_string_equal(sets, "kb1");
	assert_int_equal(seed, 0);
	rows_expected += 2;
}

static void deadline_504(void **state)
{
	char v[32];
	assert_int_equal(evaluate("//@standin stall\n", "{\"timeout_s\": 0.3}", v),
	                 504);
	rows_expected++;
}

typedef struct stall_arg {
	long status;
} stall_arg;

static void *stall_thread(void *p)
{
	stall_arg *a = p;
	char v[32];
	a->status = evaluate("//@standin stall\n", "{\"timeout_s\": 3}", v);
	return NULL;
}

/* Waits until the server holds no job (an abandoned one ends a little
 * after its request's 504). */
static void wait_idle(void)
{
	for (int tries = 0; tries < 400; tries++) {
		http_reply r;
		assert_int_equal(get("/healthz", NULL, &r), 200);
		json_t *j = json_loads(r.body, 0, NULL);
		int idle = json_integer_value(json_object_get(j, "queue")) == 0 &&
		           json_integer_value(json_object_get(j, "in_flight")) == 0;
		json_decref(j);
		http_reply_free(&r);
		if (idle)
			return;
		usleep(5000);
	}
	fail_msg("the server never became idle");
}

/* Polls /healthz until the queue holds q jobs and in_flight are running. */
static void wait_for(int q, int in_flight)
{
	for (int tries = 0; tries < 500; tries++) {
		http_reply r;
		assert_int_equal(get("/healthz", NULL, &r), 200);
		json_t *j = json_loads(r.body, 0, NULL);
		int there = json_integer_value(json_object_get(j, "queue")) == q &&
		            json_integer_value(json_object_get(j, "in_flight")) ==
		                    in_flight;
		json_decref(j);
		http_reply_free(&r);
		if (there)
			return;
		usleep(5000);
	}
	fail_msg("the server never held %d queued and %d running", q, in_flight);
}

static void queue_full_429(void **state)
{
	/* 2 workers and a queue of 4: two stalls occupy the workers, four
	 * more fill the queue, the seventh request is refused with
	 * Retry-After. */
	pthread_t t[6];
	static stall_arg a[6];
	wait_idle();
	for (int i = 0; i < 6; i++) {
		assert_int_equal(pthread_create(&t[i], NULL, stall_thread, &a[i]), 0);
		wait_for(i < 2 ? 0 : i - 1, i < 2 ? i + 1 : 2);
	}
	http_reply r;
	char *b = eval_body("//@standin ok 1.0\n", NULL);
	assert_int_equal(post("/v1/evaluate", TOKEN, b, &r), 429);
	assert_true(atoi(r.retry_after) >= 1);
	http_reply_free(&r);
	free(b);
	for (int i = 0; i < 6; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(a[i].status, 504);
	}
	rows_expected += 6;
}

static json_t *reward_call(const char *path, json_t *req, long want)
{
	http_reply r;
	char *z = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	assert_int_equal(post(path, TOKEN, z, &r), want);
	free(z);
	json_t *j = json_loads(r.body, 0, NULL);
	http_reply_free(&r);
	return j;
}

static void openrlhf_reward(void **state)
{
	const char *prompt = "Make relu faster. An earlier version:\n```cuda\n"
	                     "//@standin ok 9.0\n```\n";
	const char *good = "Here it is:\n```cuda\n//@standin ok 2.0\n```\n";
	const char *wrong = "```\n//@standin wrong\n```";
	const char *none = "I cannot write this kernel.";
	char *q0 = malloc(strlen(prompt) + strlen(good) + 1);
	char *q2 = malloc(strlen(prompt) + strlen(none) + 1);
	sprintf(q0, "%s%s", prompt, good);
	sprintf(q2, "%s%s", prompt, none);
	json_t *res = reward_call(
		"/reward",
		json_pack("{s:[s, s, s], s:[s, n, s], s:[s, s, s]}", "query", q0,
		          wrong, q2, "prompts", prompt, prompt, "labels", task, task,
		          task),
		200);
	json_t *rw = json_object_get(res, "rewards");
	assert_int_equal(json_array_size(rw), 3);
	/* raw rewards (this server runs --reward raw): speedup - 1, else -1;
	 * the prompt's own code block is never taken for the answer */
	assert_near(json_number_value(json_array_get(rw, 0)), 1.0, 1e-9);
	assert_near(json_number_value(json_array_get(rw, 1)), -1.0, 1e-9);
	assert_near(json_number_value(json_array_get(rw, 2)), -1.0, 1e-9);
	json_t *v = json_object_get(res, "verdicts");
	assert_string_equal(json_string_value(json_array_get(v, 0)), "ok");
	assert_string_equal(json_string_value(json_array_get(v, 1)),
	                    "wrong_output");
	assert_string_equal(json_string_value(json_array_get(v, 2)),
	                    "no_candidate");
	json_t *ids = json_object_get(res, "evaluation_ids");
	assert_int_equal(json_array_size(ids), 3);
	assert_true(json_integer_value(json_array_get(ids, 0)) > 0);
	assert_non_null(json_string_value(json_object_get(res, "run")));
	json_t *sc = json_object_get(res, "scores");
	assert_near(json_number_value(json_array_get(sc, 0)), 1.0, 0);
	assert_near(json_number_value(json_array_get(sc, 1)), 0.0, 0);
	json_decref(res);
	rows_expected += 3;
	free(q0);
	free(q2);

	/* OpenRLHF's own path, the task named once for the batch */
	res = reward_call("/get_reward",
	                  json_pack("{s:[s], s:s}", "query", good, "task", task),
	                  200);
	assert_near(json_number_value(json_array_get(
		json_object_get(res, "rewards"), 0)), 1.0, 1e-9);
	json_decref(res);
	rows_expected++;

	/* a prompt whose start the tokenizer's round trip changed: found by
	 * its end */
	char *q3 = malloc(strlen(prompt) + strlen(none) + 16);
	sprintf(q3, "<|im_start|>%s%s", prompt + 1, none);
	res = reward_call("/reward",
	                  json_pack("{s:[s], s:[s], s:s}", "query", q3, "prompts",
	                            prompt, "task", task), 200);
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(res, "verdicts"), 0)), "no_candidate");
	json_decref(res);
	free(q3);
	rows_expected++;

	json_decref(reward_call("/reward", json_pack("{s:[s]}", "query", good),
	                        400));
	json_decref(reward_call("/reward",
	                        json_pack("{s:[s], s:[s]}", "query", good,
	                                  "labels", "level1/none"), 404));
	json_decref(reward_call("/reward",
	                        json_pack("{s:[s], s:[s, s]}", "query", good,
	                                  "labels", task, task), 400));
	json_decref(reward_call("/reward", json_pack("{s:[]}", "query"), 400));
	/* more queries than the queue holds */
	json_decref(reward_call("/reward",
	                        json_pack("{s:[s, s, s, s, s], s:s}", "query",
	                                  good, good, good, good, good, "task",
	                                  task), 413));
}

static void metrics_text(void **state)
{
	http_reply r;
	wait_idle();
	assert_int_equal(get("/metrics", TOKEN, &r), 200);
	assert_non_null(strstr(r.content_type, "text/plain"));
	assert_non_null(strstr(r.body, "# TYPE krl_evaluations_total counter\n"));
	assert_non_null(strstr(r.body, "# TYPE krl_queue_depth gauge\n"));
	assert_non_null(strstr(r.body, "# TYPE krl_evaluation_seconds histogram\n"));
	assert_non_null(strstr(r.body, "krl_workers 2\n"));
	assert_non_null(strstr(r.body, "krl_http_responses_total{code=\"429\"} 1\n"));
	regex_t sample, comment;
	assert_int_equal(regcomp(&sample,
	                         "^[a-z_]+(\\{[a-z]+=\"[^\"]*\"\\})? "
	                         "[0-9]+(\\.[0-9]+)?$", REG_EXTENDED), 0);
	assert_int_equal(regcomp(&comment, "^# (HELP|TYPE) [a-z_]+ .+$",
	                         REG_EXTENDED), 0);
	long total = 0, inf = -1, count = -2;
	for (char *save = NULL, *l = strtok_r(r.body, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (regexec(l[0] == '#' ? &comment : &sample, l, 0, NULL, 0))
			fail_msg("not Prometheus text: '%s'", l);
		if (!strncmp(l, "krl_evaluations_total{", 22))
			total += atol(strrchr(l, ' ') + 1);
		if (!strncmp(l, "krl_evaluation_seconds_bucket{le=\"+Inf\"}", 40))
			inf = atol(strrchr(l, ' ') + 1);
		if (!strncmp(l, "krl_evaluation_seconds_count ", 29))
			count = atol(strrchr(l, ' ') + 1);
	}
	regfree(&sample);
	regfree(&comment);
	http_reply_free(&r);
	assert_int_equal(total, rows_expected);
	assert_int_equal(inf, count);
	assert_int_equal(count, rows_expected);
}

static void non_loopback_needs_token(void **state)
{
	krl_service_evaluator ev;
	krl_service_opts o;
	krl_service *s = NULL;
	krl_diag d = {0};
	char path[128];
	standin *x = standin_new(1, &ev);
	snprintf(path, sizeof path, "%s/other.db", dir);
	memset(&o, 0, sizeof o);
	o.host = "0.0.0.0";
	o.db = path;
	o.work_dir = dir;
	assert_int_equal(krl_service_start(&o, &ev, &s, &d), KRL_EINVAL);
	assert_null(s);
	assert_non_null(strstr(d.msg, "token"));
	o.token = "t";
	KRL_ASSERT_OK(krl_service_start(&o, &ev, &s, &d), &d);
	krl_service_stop(s);
	standin_free(x);
}

typedef struct slow_arg {
	long status;
	char verdict[32];
} slow_arg;

static void *slow_thread(void *p)
{
	slow_arg *a = p;
	a->status = evaluate("//@standin ok 1.7 400\n", NULL, a->verdict);
	return NULL;
}

/* Last: a stop while a request is in flight finishes it, and the store
 * holds one row per evaluation answered, nothing lost. */
static void graceful_stop_and_rows(void **state)
{
	pthread_t t;
	slow_arg a;
	char run[128];
	assert_int_equal(pthread_create(&t, NULL, slow_thread, &a), 0);
	for (int i = 0; i < 200; i++) {
		http_reply r;
		get("/healthz", NULL, &r);
		int busy = strstr(r.body, "\"in_flight\":1") != NULL;
		http_reply_free(&r);
		if (busy)
			break;
		usleep(5000);
	}
	snprintf(run, sizeof run, "%s", krl_service_run(svc));
	krl_service_stop(svc);
	svc = NULL;
	pthread_join(t, NULL);
	assert_int_equal(a.status, 200);
	assert_string_equal(a.verdict, "ok");
	rows_expected++;

	krl_store *st = NULL;
	krl_diag d = {0};
	int64_t id = 0, n = 0;
	KRL_ASSERT_OK(krl_store_open(db, &st, &d), &d);
	KRL_ASSERT_OK(krl_store_run_find(st, run, &id, &d), &d);
	KRL_ASSERT_OK(krl_store_count_evals(st, id, &n, &d), &d);
	assert_int_equal(n, rows_expected);
	krl_store_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthz_without_token),
		cmocka_unit_test(token_required),
		cmocka_unit_test(verdicts),
		cmocka_unit_test(bad_requests),
		cmocka_unit_test(shapes_and_seed),
		cmocka_unit_test(deadline_504),
		cmocka_unit_test(queue_full_429),
		cmocka_unit_test(openrlhf_reward),
		cmocka_unit_test(metrics_text),
		cmocka_unit_test(non_loopback_needs_token),
		cmocka_unit_test(graceful_stop_and_rows),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
