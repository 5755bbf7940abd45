/*
 * The integrations/ examples (verl's reward function, OpenRLHF's reward
 * function file and client) against a running krl serve (CPU): this test
 * starts the service with the judge stand-in and the recorded-completion
 * server (tests/common/mockllm.c) as the policy, then runs
 * tests/service/integrations_check.py (python3, standard library only),
 * and checks that the store holds the evaluations it caused.
 *
 * The service runs in this process, with the same library as `krl serve`:
 * the krl binary always runs the real judge, so the stand-in comes in
 * through the evaluator interface here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "krl/service.h"
#include "krl/store.h"
#include "mockllm.h"
#include "standin.h"
#include "testutil.h"

#define TOKEN "integration-token"

static void examples_against_serve(void **state)
{
	krl_service_evaluator ev;
	krl_service_opts o;
	krl_service *s = NULL;
	krl_diag d = {0};
	char dir[64] = "/tmp/krl-integ-XXXXXX", db[128], work[128], url[64];
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof db, "%s/krl.db", dir);
	snprintf(work, sizeof work, "%s/cands", dir);

	const mockllm_reply replies[] = {
		{.completion = "The loads are now vectorised:\n```cuda\n"
		               "//@standin ok 2.0\n```\n",
		 .match = "case good", .repeat = -1},
		{.completion = "```\n//@standin wrong\n```", .match = "case wrong",
		 .repeat = -1},
		{.completion = "I would rather not write a kernel today.",
		 .match = "case none", .repeat = -1},
	};
	mockllm *m = mockllm_start(replies, 3);
	assert_non_null(m);

	standin *si = standin_new(2, &ev);
	memset(&o, 0, sizeof o);
	o.token = TOKEN;
	o.db = db;
	o.work_dir = work;
	o.raw_reward = 1;
	o.request_timeout_s = 60;
	KRL_ASSERT_OK(krl_service_start(&o, &ev, &s, &d), &d);
	snprintf(url, sizeof url, "http://127.0.0.1:%d", krl_service_port(s));
	setenv("KRL_SERVE_URL", url, 1);
	setenv("KRL_SERVE_TOKEN", TOKEN, 1);
	setenv("KRL_LLM_BASE_URL", mockllm_url(m), 1);
	int rc = system("python3 tests/service/integrations_check.py");
	assert_int_equal(rc, 0);

	char run[128];
	snprintf(run, sizeof run, "%s", krl_service_run(s));
	krl_service_stop(s);
	standin_free(si);
	mockllm_stop(m);
	/* verl: 4 responses; reward_func: 3; client.py: 2 */
	krl_store *st = NULL;
	int64_t id = 0, n = 0;
	KRL_ASSERT_OK(krl_store_open(db, &st, &d), &d);
	KRL_ASSERT_OK(krl_store_run_find(st, run, &id, &d), &d);
	KRL_ASSERT_OK(krl_store_count_evals(st, id, &n, &d), &d);
	krl_store_close(st);
	assert_int_equal(n, 9);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
	if (system("python3 -c 'import json, urllib.request' >/dev/null 2>&1")) {
		printf("SKIP: no python3\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(examples_against_serve),
	};
	curl_global_init(CURL_GLOBAL_ALL);
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
