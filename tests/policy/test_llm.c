/* Tests for the chat-completions client (src/policy/llm.c) against the
 * scripted server (tests/common/mockllm.c) on 127.0.0.1. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "krl/llm.h"
#include "mockllm.h"
#include "testutil.h"

#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const env_vars[] = {
	"KRL_LLM_BASE_URL", "OPENAI_BASE_URL", "KRL_LLM_MODEL",
	"KRL_LLM_API_KEY", "OPENAI_API_KEY",
};

/* The host's variables must not leak into the tests. */
static int clear_env(void **state)
{
	for (int i = 0; i < ARRAY_LEN(env_vars); i++)
		unsetenv(env_vars[i]);
	return 0;
}

/* A client of m with fast retries; o may adjust the defaults. */
static krl_llm *client(mockllm *m, krl_llm_opts o)
{
	o.base_url = mockllm_url(m);
	if (!o.model)
		o.model = "mock-model";
	if (o.backoff_s == 0)
		o.backoff_s = 0.01;
	krl_llm *c = NULL;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_llm_create(&o, &c, &d), &d);
	return c;
}

static void test_success_and_request(void **state)
{
	mockllm_reply rep[] = {
		{ .completion = "```cuda\nint x;\n```", .prompt_tokens = 812,
		  .completion_tokens = 344 },
	};
	mockllm *m = mockllm_start(rep, ARRAY_LEN(rep));
	assert_non_null(m);
	krl_llm *c = client(m, (krl_llm_opts){ .temperature = 0.7,
	                                       .max_tokens = 2048 });
	krl_completion out;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_llm_complete(c, "be fast", "relu \"please\"\n", &out,
	                               &d), &d);
	assert_string_equal(out.text, "```cuda\nint x;\n```");
	assert_string_equal(out.finish_reason, "stop");
	assert_int_equal(out.prompt_tokens, 812);
	assert_int_equal(out.completion_tokens, 344);
	assert_int_equal(out.attempts, 1);
	assert_int_equal(out.http_status, 200);
	assert_true(out.seconds >= 0 && out.seconds < 10);

	/* What was sent. */
	assert_int_equal(mockllm_requests(m), 1);
	json_t *req = json_loads(mockllm_request_body(m, 0), 0, NULL);
	assert_non_null(req);
	assert_string_equal(json_string_value(json_object_get(req, "model")),
	                    "mock-model");
	json_t *msgs = json_object_get(req, "messages");
	assert_int_equal(json_array_size(msgs), 2);
	json_t *m0 = json_array_get(msgs, 0), *m1 = json_array_get(msgs, 1);
	assert_string_equal(json_string_value(json_object_get(m0, "role")),
	                    "system");
	assert_string_equal(json_string_value(json_object_get(m0, "content")),
	                    "be fast");
	assert_string_equal(json_string_value(json_object_get(m1, "role")),
	                    "user");
	assert_string_equal(json_string_value(json_object_get(m1, "content")),
	                    "relu \"please\"\n");
	assert_true(json_real_value(json_object_get(req, "temperature")) == 0.7);
	assert_int_equal(json_integer_value(json_object_get(req, "max_tokens")),
	                 2048);
	/* No key, no Authorization header. */
	assert_null(mockllm_request_authorization(m, 0));
	json_decref(req);
	krl_completion_clear(&out);
	assert_null(out.text);
	krl_completion_clear(NULL);
	krl_llm_free(c);
	mockllm_stop(m);
}

static void test_defaults_not_sent(void **state)
{
	mockllm_reply rep[] = { { .completion = "ok" } };
	mockllm *m = mockllm_start(rep, 1);
	krl_llm *c = client(m, (krl_llm_opts){ 0 });
	krl_completion out;
	krl_diag d;
	KRL_ASSERT_OK(krl_llm_complete(c, NULL, "u", &out, &d), &d);
	json_t *req = json_loads(mockllm_request_body(m, 0), 0, NULL);
	assert_null(json_object_get(req, "temperature"));
	assert_null(json_object_get(req, "max_tokens"));
	assert_int_equal(json_array_size(json_object_get(req, "messages")), 1);
	json_decref(req);
	krl_completion_clear(&out);
	krl_llm_free(c);
	mockllm_stop(m);
}

static void test_bearer(void **state)
{
	mockllm_reply rep[] = { { .completion = "a" }, { .completion = "b" } };
	mockllm *m = mockllm_start(rep, 2);
	krl_llm *c = client(m, (krl_llm_opts){ .api_key = "sk-test-123" });
	krl_completion out;
	krl_diag d;
	KRL_ASSERT_OK(krl_llm_complete(c, "s", "u", &out, &d), &d);
	assert_string_equal(mockllm_request_authorization(m, 0),
	                    "Bearer sk-test-123");
	krl_completion_clear(&out);
	krl_llm_free(c);

	/* From the environment, $KRL_LLM_API_KEY before $OPENAI_API_KEY. */
	setenv("OPENAI_API_KEY", "sk-openai", 1);
	setenv("KRL_LLM_API_KEY", "sk-krl", 1);
	c = client(m, (krl_llm_opts){ 0 });
	KRL_ASSERT_OK(krl_llm_complete(c, "s", "u", &out, &d), &d);
	assert_string_equal(mockllm_request_authorization(m, 1),
	                    "Bearer sk-krl");
	krl_completion_clear(&out);
	krl_llm_free(c);
	clear_env(NULL);
	mockllm_stop(m);
}

static void test_timeout_then_success(void **state)
{
	mockllm_reply rep[] = {
		{ .delay_ms = 3000, .completion = "too late" },
		{ .completion = "in time", .completion_tokens = 2 },
	};
	mockllm *m = mockllm_start(rep, 2);
	krl_llm *c = client(m, (krl_llm_opts){ .timeout_s = 0.3 });
	krl_completion out;
	krl_diag d;
	KRL_ASSERT_OK(krl_llm_complete(c, "s", "u", &out, &d), &d);
	assert_string_equal(out.text, "in time");
	assert_int_equal(out.attempts, 2);
	assert_true(out.seconds >= 0.3 && out.seconds < 2.5);
	krl_completion_clear(&out);
	krl_llm_free(c);
	mockllm_stop(m);
}

static void test_timeout_exhausted(void **state)
{
	mockllm_reply rep[] = { { .delay_ms = 3000, .repeat = -1 } };
	mockllm *m = mockllm_start(rep, 1);
	krl_llm *c = client(m, (krl_llm_opts){ .timeout_s = 0.2,
	                                       .max_retries = 1 });
	krl_completion out;
	krl_diag d;
	assert_int_equal(krl_llm_complete(c, "s", "u", &out, &d),
	                 KRL_ETIMEOUT);
	assert_int_equal(out.attempts, 2);
	assert_null(out.text);
	assert_non_null(strstr(d.msg, mockllm_url(m)));
	assert_non_null(strstr(d.msg, "within 0.2 s"));
	krl_llm_free(c);
	mockllm_stop(m);
}

static void test_503_503_success(void **state)
{
	mockllm_reply rep[] = {
		{ .status = 503, .body = "{\"error\":\"busy\"}" },
		{ .status = 503, .body = "{\"error\":\"busy\"}" },
		{ .completion = "third time" },
	};
	mockllm *m = mockllm_start(rep, 3);
	krl_llm *c = client(m, (krl_llm_opts){ .backoff_s = 0.1 });
	krl_completion out;
	krl_diag d;
	KRL_ASSERT_OK(krl_llm_complete(c, "s", "u", &out, &d), &d);
	assert_string_equal(out.text, "third time");
	assert_int_equal(out.attempts, 3);
	assert_int_equal(out.http_status, 200);
	/* Backoff 0.1 s, then 0.2 s. */
	assert_true(out.seconds >= 0.3);
	assert_int_equal(mockllm_requests(m), 3);
	krl_completion_clear(&out);
	krl_llm_free(c);
	mockllm_stop(m);
}

static void test_429_retry_after(void **state)
{
	mockllm_reply rep[] = {
		{ .status = 429, .retry_after = "1",
		  .body = "{\"error\":{\"message\":\"rate limited\"}}" },
		{ .completion = "after waiting" },
	};
	mockllm *m = mockllm_start(rep, 2);
	krl_llm *c = client(m, (krl_llm_opts){ .backoff_s = 0.01 });
	krl_completion out;
	krl_diag d;
	KRL_ASSERT_OK(krl_llm_complete(c, "s", "u", &out, &d), &d);
	assert_int_equal(out.attempts, 2);
	/* Retry-After (1 s) wins over the 10 ms backoff. */
	assert_true(out.seconds >= 0.95);
	krl_completion_clear(&out);
	krl_llm_free(c);
	mockllm_stop(m);
}

static void test_400_not_retried(void **state)
{
	mockllm_reply rep[] = {
		{ .status = 400, .body = "{\"error\":{\"message\":\"model "
		  "'x' does not exist\"}}", .repeat = -1 },
	};
	mockllm *m = mockllm_start(rep, 1);
	krl_llm *c = client(m, (krl_llm_opts){ 0 });
	krl_completion out;
	krl_diag d;
	assert_int_equal(krl_llm_complete(c, "s", "u", &out, &d), KRL_EIO);
	assert_int_equal(out.attempts, 1);
	assert_int_equal(out.http_status, 400);
	assert_int_equal(mockllm_requests(m), 1);
	assert_non_null(strstr(d.msg, mockllm_url(m)));
	assert_non_null(strstr(d.msg, "/chat/completions"));
	assert_non_null(strstr(d.msg, "HTTP 400"));
	assert_non_null(strstr(d.msg, "does not exist"));
	krl_llm_free(c);
	mockllm_stop(m);
}

static void test_5xx_exhausted(void **state)
{
	mockllm_reply rep[] = {
		{ .status = 500, .body = "internal\nerror", .repeat = -1 },
	};
	mockllm *m = mockllm_start(rep, 1);
	krl_llm *c = client(m, (krl_llm_opts){ .max_retries = 2 });
	krl_completion out;
	krl_diag d;
	assert_int_equal(krl_llm_complete(c, "s", "u", &out, &d), KRL_EIO);
	assert_int_equal(out.attempts, 3);
	assert_int_equal(out.http_status, 500);
	assert_non_null(strstr(d.msg, "HTTP 500 (3 attempts): internal error"));
	krl_llm_free(c);

	/* Negative max_retries: none. */
	c = client(m, (krl_llm_opts){ .max_retries = -1 });
	assert_int_equal(krl_llm_complete(c, "s", "u", &out, &d), KRL_EIO);
	assert_int_equal(out.attempts, 1);
	krl_llm_free(c);
	mockllm_stop(m);
}

static void test_malformed(void **state)
{
	mockllm_reply rep[] = {
		{ .body = "{\"choices\": [" },
		{ .body = "{\"id\": \"x\", \"object\": \"chat.completion\"}" },
		{ .body = "{\"choices\": [{\"message\": {\"content\": null}, "
		  "\"finish_reason\": \"length\"}]}" },
		{ .body = "[1, 2]" },
		{ .body = "{\"error\": {\"message\": \"context too long\"}}" },
	};
	mockllm *m = mockllm_start(rep, ARRAY_LEN(rep));
	krl_llm *c = client(m, (krl_llm_opts){ 0 });
	krl_completion out;
	krl_diag d;
	assert_int_equal(krl_llm_complete(c, "s", "u", &out, &d), KRL_ESYNTAX);
	assert_int_equal(out.attempts, 1);
	assert_non_null(strstr(d.msg, "not a JSON object"));
	assert_non_null(strstr(d.msg, "{\"choices\": ["));
	assert_int_equal(krl_llm_complete(c, "s", "u", &out, &d), KRL_ESYNTAX);
	assert_non_null(strstr(d.msg, "no choices[0]"));
	assert_int_equal(krl_llm_complete(c, "s", "u", &out, &d), KRL_ESYNTAX);
	assert_non_null(strstr(d.msg, "finish_reason length"));
	assert_int_equal(krl_llm_complete(c, "s", "u", &out, &d), KRL_ESYNTAX);
	assert_int_equal(krl_llm_complete(c, "s", "u", &out, &d), KRL_EIO);
	assert_non_null(strstr(d.msg, "context too long"));
	assert_null(out.text);
	assert_int_equal(mockllm_requests(m), 5);
	krl_llm_free(c);
	mockllm_stop(m);
}

/* A loopback port nobody listens on. */
static int closed_port(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(s >= 0);
	struct sockaddr_in sa = { .sin_family = AF_INET };
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
	socklen_t n = sizeof sa;
	assert_int_equal(getsockname(s, (struct sockaddr *)&sa, &n), 0);
	close(s);
	return ntohs(sa.sin_port);
}

static void test_connection_refused(void **state)
{
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/", closed_port());
	krl_llm_opts o = { .base_url = url, .model = "m", .max_retries = 2,
	                   .backoff_s = 0.01 };
	krl_llm *c = NULL;
	krl_diag d;
	KRL_ASSERT_OK(krl_llm_create(&o, &c, &d), &d);
	krl_completion out;
	assert_int_equal(krl_llm_complete(c, "s", "u", &out, &d), KRL_EIO);
	assert_int_equal(out.attempts, 3);
	assert_int_equal(out.http_status, 0);
	/* The trailing slash is dropped before the path. */
	assert_non_null(strstr(d.msg, "/v1/chat/completions"));
	assert_non_null(strstr(d.msg, "3 attempts"));
	krl_llm_free(c);
}

static void test_dropped_connection_retried(void **state)
{
	mockllm_reply rep[] = {
		{ .close_connection = 1 },
		{ .completion = "second" },
	};
	mockllm *m = mockllm_start(rep, 2);
	krl_llm *c = client(m, (krl_llm_opts){ 0 });
	krl_completion out;
	krl_diag d;
	KRL_ASSERT_OK(krl_llm_complete(c, "s", "u", &out, &d), &d);
	assert_string_equal(out.text, "second");
	assert_int_equal(out.attempts, 2);
	krl_completion_clear(&out);
	krl_llm_free(c);
	mockllm_stop(m);
}

static void test_concurrency_bound(void **state)
{
	mockllm_reply rep[] = {
		{ .delay_ms = 150, .completion = "slow", .repeat = -1 },
	};
	mockllm *m = mockllm_start(rep, 1);
	krl_llm *c = client(m, (krl_llm_opts){ .max_in_flight = 2 });
	const char *users[6] = { "p0", "p1", "p2", "p3", "p4", "p5" };
	krl_completion out[6];
	krl_err errs[6];
	krl_diag diags[6];
	krl_llm_complete_many(c, "s", users, 6, out, errs, diags);
	for (int i = 0; i < 6; i++) {
		KRL_ASSERT_OK(errs[i], &diags[i]);
		assert_string_equal(out[i].text, "slow");
		krl_completion_clear(&out[i]);
	}
	assert_int_equal(mockllm_requests(m), 6);
	/* Never more than 2 at once, and 2 at once did happen. */
	assert_int_equal(mockllm_max_concurrent(m), 2);
	/* Each prompt went out once. */
	for (int i = 0; i < 6; i++) {
		char want[16];
		snprintf(want, sizeof want, "\"p%d\"", i);
		int seen = 0;
		for (int k = 0; k < 6; k++)
			seen += strstr(mockllm_request_body(m, k), want) != NULL;
		assert_int_equal(seen, 1);
	}
	/* NULL errs and diags are allowed. */
	krl_llm_complete_many(c, "s", users, 3, out, NULL, NULL);
	for (int i = 0; i < 3; i++)
		krl_completion_clear(&out[i]);
	krl_llm_free(c);
	mockllm_stop(m);
}

static void test_keyed_replies(void **state)
{
	mockllm_reply rep[] = {
		{ .completion = "default", .repeat = -1 },
		{ .completion = "for softmax", .match = "softmax" },
	};
	mockllm *m = mockllm_start(rep, 2);
	krl_llm *c = client(m, (krl_llm_opts){ 0 });
	krl_completion out;
	krl_diag d;
	KRL_ASSERT_OK(krl_llm_complete(c, "softmax in system", "relu", &out,
	                               &d), &d);
	assert_string_equal(out.text, "default");
	krl_completion_clear(&out);
	KRL_ASSERT_OK(krl_llm_complete(c, "s", "task softmax", &out, &d), &d);
	assert_string_equal(out.text, "for softmax");
	krl_completion_clear(&out);
	/* The keyed entry is used up. */
	KRL_ASSERT_OK(krl_llm_complete(c, "s", "task softmax", &out, &d), &d);
	assert_string_equal(out.text, "default");
	krl_completion_clear(&out);
	krl_llm_free(c);
	mockllm_stop(m);
}

static void test_create_errors(void **state)
{
	krl_llm *c = (krl_llm *)0x1;
	krl_diag d;
	krl_llm_opts o = { .model = "m" };
	assert_int_equal(krl_llm_create(&o, &c, &d), KRL_EINVAL);
	assert_null(c);
	assert_non_null(strstr(d.msg, "$KRL_LLM_BASE_URL"));
	o = (krl_llm_opts){ .base_url = "http://127.0.0.1:1/v1" };
	assert_int_equal(krl_llm_create(&o, &c, &d), KRL_EINVAL);
	assert_non_null(strstr(d.msg, "$KRL_LLM_MODEL"));
	o = (krl_llm_opts){ .base_url = "127.0.0.1:1", .model = "m" };
	assert_int_equal(krl_llm_create(&o, &c, &d), KRL_EINVAL);
	assert_non_null(strstr(d.msg, "http://"));
	o = (krl_llm_opts){ .base_url = "http://x", .model = "m",
	                    .timeout_s = -1 };
	assert_int_equal(krl_llm_create(&o, &c, &d), KRL_EINVAL);
	krl_llm_free(NULL);
}

static void test_env_and_fixture(void **state)
{
	char err[256] = "";
	mockllm *m = mockllm_start_file("tests/data/llm/relu_flaky.json", err,
	                                sizeof err);
	if (!m)
		fail_msg("%s", err);
	setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/wrong", 1);
	setenv("KRL_LLM_BASE_URL", mockllm_url(m), 1);
	setenv("KRL_LLM_MODEL", "env-model", 1);
	krl_llm_opts o = { .backoff_s = 0.01 };
	krl_llm *c = NULL;
	krl_diag d;
	KRL_ASSERT_OK(krl_llm_create(&o, &c, &d), &d);
	clear_env(NULL);
	/* 503, then 429 (Retry-After 1), then the fast candidate. */
	krl_completion out;
	KRL_ASSERT_OK(krl_llm_complete(c, "s", "u", &out, &d), &d);
	assert_int_equal(out.attempts, 3);
	assert_int_equal(out.prompt_tokens, 2400);
	assert_non_null(strstr(mockllm_request_body(m, 0), "\"env-model\""));
	char *src = NULL;
	KRL_ASSERT_OK(krl_extract_candidate(out.text, &src, &d), &d);
	char *want = krl_test_read("examples/level1/19_relu.fast.cu", NULL);
	assert_non_null(want);
	assert_string_equal(src, want);
	free(want);
	free(src);
	krl_completion_clear(&out);
	/* Then an answer without code. */
	KRL_ASSERT_OK(krl_llm_complete(c, "s", "u", &out, &d), &d);
	assert_int_equal(krl_extract_candidate(out.text, &src, &d),
	                 KRL_ENOTFOUND);
	krl_completion_clear(&out);
	krl_llm_free(c);
	mockllm_stop(m);

	/* Every shipped fixture loads; a bad one says why. */
	const char *files[] = { "relu_fast", "relu_wrong", "garbage",
	                        "gpu_fixture" };
	for (int i = 0; i < ARRAY_LEN(files); i++) {
		char path[128];
		snprintf(path, sizeof path, "tests/data/llm/%s.json", files[i]);
		m = mockllm_start_file(path, err, sizeof err);
		if (!m)
			fail_msg("%s", err);
		mockllm_stop(m);
	}
	assert_null(mockllm_start_file("tests/data/llm/none.json", err,
	                               sizeof err));
	assert_non_null(strstr(err, "none.json"));
}

static void test_stop_wakes_delay(void **state)
{
	/* A reply still waiting out its delay must not hold up the stop. */
	mockllm_reply rep[] = { { .delay_ms = 60000 } };
	mockllm *m = mockllm_start(rep, 1);
	krl_llm *c = client(m, (krl_llm_opts){ .timeout_s = 0.2,
	                                       .max_retries = -1 });
	krl_completion out;
	krl_diag d;
	assert_int_equal(krl_llm_complete(c, "s", "u", &out, &d),
	                 KRL_ETIMEOUT);
	krl_llm_free(c);
	mockllm_stop(m);
	mockllm_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_success_and_request, clear_env),
		cmocka_unit_test_setup(test_defaults_not_sent, clear_env),
		cmocka_unit_test_setup(test_bearer, clear_env),
		cmocka_unit_test_setup(test_timeout_then_success, clear_env),
		cmocka_unit_test_setup(test_timeout_exhausted, clear_env),
		cmocka_unit_test_setup(test_503_503_success, clear_env),
		cmocka_unit_test_setup(test_429_retry_after, clear_env),
		cmocka_unit_test_setup(test_400_not_retried, clear_env),
		cmocka_unit_test_setup(test_5xx_exhausted, clear_env),
		cmocka_unit_test_setup(test_malformed, clear_env),
		cmocka_unit_test_setup(test_connection_refused, clear_env),
		cmocka_unit_test_setup(test_dropped_connection_retried, clear_env),
		cmocka_unit_test_setup(test_concurrency_bound, clear_env),
		cmocka_unit_test_setup(test_keyed_replies, clear_env),
		cmocka_unit_test_setup(test_create_errors, clear_env),
		cmocka_unit_test_setup(test_env_and_fixture, clear_env),
		cmocka_unit_test_setup(test_stop_wakes_delay, clear_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
