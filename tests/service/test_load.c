/*
 * Issue 19's load test of krl serve (CPU, the judge stand-in): 500
 * requests from 32 concurrent clients -- good, wrong, hanging and stalling
 * candidates, malformed, oversized, unauthenticated and unknown-task
 * requests -- each gets exactly one correct answer; the store holds one
 * row per evaluation (none lost, none doubled); the metrics agree; the
 * server still answers /healthz. gpu_serve.c runs the same mix against
 * the real judge.
 */
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

#define TOKEN "load-token"

static void load_500_from_32(void **state)
{
	krl_service_evaluator ev;
	krl_service_opts o;
	krl_service *s = NULL;
	krl_diag d = {0};
	char dir[64] = "/tmp/krl-load-XXXXXX", db[128], work[128], base[64];
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof db, "%s/krl.db", dir);
	snprintf(work, sizeof work, "%s/cands", dir);
	standin *si = standin_new(4, &ev);
	memset(&o, 0, sizeof o);
	o.token = TOKEN;
	o.queue = 64;            /* above the 32 clients: no 429 in this mix */
	o.max_body = 256 << 10;
	o.request_timeout_s = 30;
	o.db = db;
	o.work_dir = work;
	KRL_ASSERT_OK(krl_service_start(&o, &ev, &s, &d), &d);
	snprintf(base, sizeof base, "http://127.0.0.1:%d", krl_service_port(s));

	load_opts lo = {
		.base = base, .token = TOKEN, .task = "level1/19_relu",
		.good = "// a good one\n//@standin ok 1.4 5\n",
		.wrong = "//@standin wrong 5\n",
		.hang = "//@standin hang 40\n",
		.stall = "//@standin stall\n", .stall_timeout_s = 0.25,
		.max_body = o.max_body, .requests = 500, .clients = 32,
		.seed = 19};
	load_result r;
	load_run(&lo, &r);
	for (int k = 0; k < LOAD_NKINDS; k++)
		printf("%-16s %3d sent, %3d answered correctly\n",
		       load_kind_name((load_kind)k), r.sent[k], r.correct[k]);
	printf("%d requests in %.2f s; %d wrong answers, %d without an answer%s%s\n",
	       lo.requests, r.seconds, r.wrong_answers, r.no_answer,
	       r.first_error[0] ? "; first: " : "", r.first_error);
	assert_int_equal(r.wrong_answers, 0);
	assert_int_equal(r.no_answer, 0);
	for (int k = 0; k < LOAD_NKINDS; k++)
		assert_int_equal(r.correct[k], r.sent[k]);
	assert_true(r.sent[LOAD_STALL] > 0 && r.sent[LOAD_OVERSIZED] > 0);

	/* still up, and idle once the abandoned stalls have been recorded */
	http_reply h;
	char url[128];
	snprintf(url, sizeof url, "%s/healthz", base);
	int idle = 0;
	for (int i = 0; i < 400 && !idle; i++) {
		assert_int_equal(http_do("GET", url, NULL, NULL, 0, &h), 0);
		assert_int_equal(h.status, 200);
		idle = strstr(h.body, "\"queue\":0") &&
		       strstr(h.body, "\"in_flight\":0");
		http_reply_free(&h);
		if (!idle)
			usleep(5000);
	}
	assert_true(idle);
	snprintf(url, sizeof url, "%s/metrics", base);
	assert_int_equal(http_do("GET", url, TOKEN, NULL, 0, &h), 0);
	char want[64];
	snprintf(want, sizeof want, "krl_evaluation_seconds_count %d\n",
	         r.evaluations);
	assert_non_null(strstr(h.body, want));
	http_reply_free(&h);
	/* every evaluation reached the evaluator except the stalls that
	 * waited past their deadline in the queue */
	assert_true(standin_evals(si) <= r.evaluations);

	char run[128];
	snprintf(run, sizeof run, "%s", krl_service_run(s));
	krl_service_stop(s);
	standin_free(si);

	krl_store *st = NULL;
	int64_t id = 0, n = 0;
	KRL_ASSERT_OK(krl_store_open(db, &st, &d), &d);
	KRL_ASSERT_OK(krl_store_run_find(st, run, &id, &d), &d);
	KRL_ASSERT_OK(krl_store_count_evals(st, id, &n, &d), &d);
	krl_store_close(st);
	printf("store: %lld rows for %d evaluations\n", (long long)n,
	       r.evaluations);
	assert_int_equal(n, r.evaluations);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(load_500_from_32),
	};
	curl_global_init(CURL_GLOBAL_ALL);
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
