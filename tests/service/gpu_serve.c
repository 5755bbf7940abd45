/*
 * Issue 19's load test of krl serve against the real judge (GPU): the mix
 * of test_load.c -- a correct, a wrong and a hanging relu candidate
 * (examples/level1/19_relu.*.cu, tests/adversarial/hang_grid_barrier_relu.cu),
 * malformed, oversized, unauthenticated and unknown-task requests -- from
 * 32 concurrent clients, one judge worker per visible GPU. Each request
 * must get its one correct answer and the store one row per evaluation.
 * Prints the throughput (evaluations per minute per GPU) and appends it
 * as a JSON line to $KRL_SERVE_RESULTS when that is set.
 *
 * $KRL_SERVE_LOAD_N requests (default 100; the acceptance run uses 500),
 * each evaluation at the shape sets $KRL_SERVE_SHAPES (sent as the
 * request's "shapes"; default tiny,kb1). The wrong candidate is wrong only
 * where relu's element count is not a multiple of 4, as at tiny (3003):
 * at kb1 and a hidden set alone (the server's default) it is right
 * whenever the hidden draw's count is one, and was judged ok on 10 of 20
 * such requests (H200, 2026-12-04), so the test names its sets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "client.h"
#include "krl/service.h"
#include "krl/store.h"
#include "testutil.h"

#define TOKEN "gpu-load-token"

static void load_real_judge(void **state)
{
	krl_judge_opts jo;
	krl_service_evaluator ev;
	krl_service_opts o;
	krl_service *s = NULL;
	krl_diag d = {0};
	char dir[64] = "/tmp/krl-gpuload-XXXXXX", db[128], work[128], base[64];
	const char *nz = getenv("KRL_SERVE_LOAD_N");
	int n = nz ? atoi(nz) : 100;
	assert_true(n >= 20);
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof db, "%s/krl.db", dir);
	snprintf(work, sizeof work, "%s/cands", dir);
	memset(&jo, 0, sizeof jo);
	jo.runner_path = getenv("KRL_BIN");
	if (!jo.runner_path)
		jo.runner_path = "build/krl";
	jo.call_timeout_s = 2;   /* a hang costs 2 s, not the default 10 */
	KRL_ASSERT_OK(krl_service_judge_evaluator(&jo, 0, &ev, &d), &d);
	memset(&o, 0, sizeof o);
	o.token = TOKEN;
	o.queue = 64;
	o.max_body = 1 << 20;
	o.request_timeout_s = 600;
	o.db = db;
	o.work_dir = work;
	KRL_ASSERT_OK(krl_service_start(&o, &ev, &s, &d), &d);
	snprintf(base, sizeof base, "http://127.0.0.1:%d", krl_service_port(s));

	char *good = krl_test_read("examples/level1/19_relu.fast.cu", NULL);
	char *wrong = krl_test_read("examples/level1/19_relu.wrong.cu", NULL);
	char *hang = krl_test_read("tests/adversarial/hang_grid_barrier_relu.cu",
	                           NULL);
	assert_non_null(good);
	assert_non_null(wrong);
	assert_non_null(hang);
	load_opts lo = {
		.base = base, .token = TOKEN, .task = "level1/19_relu",
		.good = good, .wrong = wrong, .hang = hang, .stall = NULL,
		.max_body = o.max_body, .requests = n, .clients = 32, .seed = 19,
		.shapes = getenv("KRL_SERVE_SHAPES") ? getenv("KRL_SERVE_SHAPES") :
		          "tiny,kb1"};
	load_result r;
	load_run(&lo, &r);
	for (int k = 0; k < LOAD_NKINDS; k++)
		printf("%-16s %3d sent, %3d answered correctly\n",
		       load_kind_name((load_kind)k), r.sent[k], r.correct[k]);
	double per_gpu = r.evaluations / r.seconds * 60 / ev.nworkers;
	printf("%d requests in %.1f s on %d GPU%s: %.1f evaluations per minute "
	       "per GPU; %d wrong answers, %d without an answer%s%s\n", n,
	       r.seconds, ev.nworkers, ev.nworkers == 1 ? "" : "s", per_gpu,
	       r.wrong_answers, r.no_answer,
	       r.first_error[0] ? "; first: " : "", r.first_error);
	const char *out = getenv("KRL_SERVE_RESULTS");
	FILE *f = out ? fopen(out, "a") : NULL;
	if (f) {
		char date[32];
		time_t now = time(NULL);
		strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
		fprintf(f, "{\"test\": \"serve_load\", \"requests\": %d, "
		        "\"clients\": 32, \"shapes\": \"%s\", \"gpus\": %d, "
		        "\"evaluations\": %d, "
		        "\"seconds\": %.2f, \"evals_per_min_per_gpu\": %.2f, "
		        "\"wrong_answers\": %d, \"no_answer\": %d, \"date\": "
		        "\"%s\"}\n", n, lo.shapes ? lo.shapes : "default",
		        ev.nworkers, r.evaluations, r.seconds,
		        per_gpu, r.wrong_answers, r.no_answer, date);
		fclose(f);
	}
	assert_int_equal(r.wrong_answers, 0);
	assert_int_equal(r.no_answer, 0);

	http_reply h;
	char url[128];
	snprintf(url, sizeof url, "%s/healthz", base);
	assert_int_equal(http_do("GET", url, NULL, NULL, 0, &h), 0);
	assert_int_equal(h.status, 200);
	http_reply_free(&h);

	char run[128];
	snprintf(run, sizeof run, "%s", krl_service_run(s));
	krl_service_stop(s);
	krl_service_judge_evaluator_free(&ev);
	krl_store *st = NULL;
	int64_t id = 0, rows = 0;
	KRL_ASSERT_OK(krl_store_open(db, &st, &d), &d);
	KRL_ASSERT_OK(krl_store_run_find(st, run, &id, &d), &d);
	KRL_ASSERT_OK(krl_store_count_evals(st, id, &rows, &d), &d);
	krl_store_close(st);
	assert_int_equal(rows, r.evaluations);
	free(good);
	free(wrong);
	free(hang);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
	krl_test_require_gpu("service_gpu_serve");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(load_real_judge),
	};
	curl_global_init(CURL_GLOBAL_ALL);
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
