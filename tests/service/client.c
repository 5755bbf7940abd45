/* The service tests' HTTP client and load generator (client.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>

#include "client.h"

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
	http_reply *r = ctx;
	size_t k = size * n;
	char *z = realloc(r->body, r->len + k + 1);
	if (!z)
		return 0;
	memcpy(z + r->len, p, k);
	r->body = z;
	r->len += k;
	r->body[r->len] = 0;
	return k;
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx)
{
	http_reply *r = ctx;
	size_t k = size * n;
	char line[256];
	snprintf(line, sizeof line, "%.*s", (int)(k < 255 ? k : 255), p);
	line[strcspn(line, "\r\n")] = 0;
	if (!strncasecmp(line, "Retry-After:", 12))
		snprintf(r->retry_after, sizeof r->retry_after, "%s",
		         line + 12 + strspn(line + 12, " "));
	if (!strncasecmp(line, "Content-Type:", 13))
		snprintf(r->content_type, sizeof r->content_type, "%s",
		         line + 13 + strspn(line + 13, " "));
	return k;
}

int http_do(const char *method, const char *url, const char *token,
            const char *body, size_t len, http_reply *r)
{
	memset(r, 0, sizeof *r);
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	char auth[300];
	if (!c)
		return -1;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 900L); /* the real judge queues */
	if (token) {
		snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
		h = curl_slist_append(h, auth);
	}
	if (!strcmp(method, "POST")) {
		h = curl_slist_append(h, "Content-Type: application/json");
		h = curl_slist_append(h, "Expect:");
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	CURLcode e = curl_easy_perform(c);
	if (e == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	if (e != CURLE_OK) {
		free(r->body);
		r->body = strdup(curl_easy_strerror(e));
		r->status = 0;
		return -1;
	}
	if (!r->body)
		r->body = calloc(1, 1);
	return 0;
}

void http_reply_free(http_reply *r)
{
	free(r->body);
	r->body = NULL;
}

/* ==== The load mix ==== */

static const char *const kind_names[LOAD_NKINDS] = {
	"good", "wrong", "hang", "stall", "malformed", "oversized",
	"unauthenticated", "unknown_task"};

const char *load_kind_name(load_kind k)
{
	return kind_names[k];
}

typedef struct shared {
	const load_opts *o;
	load_kind *plan;
	int next;
	pthread_mutex_t mu;
	load_result *r;
} shared;

static char *evaluate_body(const load_opts *o, const char *task,
                           const char *cand, double timeout_s)
{
	json_t *j = json_pack("{s:s, s:s}", "task", task, "candidate", cand);
	if (o->shapes)
		json_object_set_new(j, "shapes", json_string(o->shapes));
	if (timeout_s > 0)
		json_object_set_new(j, "timeout_s", json_real(timeout_s));
	char *z = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return z;
}

/* Sends one request of kind k; 1 when its answer is the right one. */
static int one(const load_opts *o, load_kind k, char *why, size_t cap)
{
	char url[512];
	char *body = NULL;
	size_t len = 0;
	const char *token = o->token;
	snprintf(url, sizeof url, "%s/v1/evaluate", o->base);
	switch (k) {
	case LOAD_GOOD: body = evaluate_body(o, o->task, o->good, 0); break;
	case LOAD_WRONG: body = evaluate_body(o, o->task, o->wrong, 0); break;
	case LOAD_HANG: body = evaluate_body(o, o->task, o->hang, 0); break;
	case LOAD_STALL:
		body = evaluate_body(o, o->task, o->stall, o->stall_timeout_s);
		break;
	case LOAD_MALFORMED:
		body = strdup("{\"task\": \"x\", \"candidate\": ");
		break;
	case LOAD_OVERSIZED:
		len = o->max_body + 1 + 4096;
		body = malloc(len + 1);
		if (body) {
			memset(body, ' ', len);
			body[0] = '{';
			body[len - 1] = '}';
			body[len] = 0;
		}
		break;
	case LOAD_UNAUTH:
		body = evaluate_body(o, o->task, o->good, 0);
		token = NULL;
		break;
	case LOAD_UNKNOWN_TASK:
		body = evaluate_body(o, "level9/no_such_task", o->good, 0);
		break;
	default: break;
	}
	if (!body) {
		snprintf(why, cap, "out of memory");
		return 0;
	}
	if (!len)
		len = strlen(body);
	http_reply r;
	int rc = http_do("POST", url, token, body, len, &r);
	free(body);
	if (rc) {
		snprintf(why, cap, "%s: no answer: %s", kind_names[k], r.body);
		http_reply_free(&r);
		return -1;
	}
	static const long want[LOAD_NKINDS] = {200, 200, 200, 504, 400, 413,
	                                       401, 404};
	static const char *const verdict[LOAD_NKINDS] = {
		"ok", "wrong_output", "timeout"};
	int ok = r.status == want[k];
	if (ok && k <= LOAD_HANG) {
		json_t *j = json_loads(r.body, 0, NULL);
		const char *v = json_string_value(json_object_get(j, "verdict"));
		ok = v && !strcmp(v, verdict[k]);
		json_decref(j);
	}
	if (!ok)
		snprintf(why, cap, "%s: status %ld: %.300s", kind_names[k],
		         r.status, r.body);
	http_reply_free(&r);
	return ok;
}

static void *client_main(void *arg)
{
	shared *sh = arg;
	char why[512];
	for (;;) {
		pthread_mutex_lock(&sh->mu);
		int i = sh->next < sh->o->requests ? sh->next++ : -1;
		pthread_mutex_unlock(&sh->mu);
		if (i < 0)
			break;
		load_kind k = sh->plan[i];
		int ok = one(sh->o, k, why, sizeof why);
		pthread_mutex_lock(&sh->mu);
		if (ok > 0) {
			sh->r->correct[k]++;
		} else {
			if (ok < 0)
				sh->r->no_answer++;
			else
				sh->r->wrong_answers++;
			if (!sh->r->first_error[0])
				snprintf(sh->r->first_error,
				         sizeof sh->r->first_error, "%s", why);
		}
		pthread_mutex_unlock(&sh->mu);
	}
	return NULL;
}

void load_run(const load_opts *o, load_result *r)
{
	/* The mix, in parts per 100: mostly evaluations, as a trainer sends. */
	static const int share[LOAD_NKINDS] = {40, 20, 8, 4, 10, 6, 8, 4};
	shared sh = {.o = o, .r = r};
	memset(r, 0, sizeof *r);
	sh.plan = calloc((size_t)o->requests, sizeof *sh.plan);
	if (!sh.plan)
		return;
	int n = 0;
	for (int k = 0; k < LOAD_NKINDS; k++) {
		if (k == LOAD_STALL && !o->stall)
			continue;
		int m = o->requests * share[k] / 100;
		for (int i = 0; i < m && n < o->requests; i++)
			sh.plan[n++] = (load_kind)k;
	}
	while (n < o->requests)
		sh.plan[n++] = LOAD_GOOD;
	unsigned s = o->seed ? o->seed : 1;
	for (int i = o->requests - 1; i > 0; i--) {
		s = s * 1103515245u + 12345u;
		int j = (int)((s >> 8) % (unsigned)(i + 1));
		load_kind t = sh.plan[i];
		sh.plan[i] = sh.plan[j];
		sh.plan[j] = t;
	}
	for (int i = 0; i < o->requests; i++) {
		r->sent[sh.plan[i]]++;
		if (sh.plan[i] <= LOAD_STALL)
			r->evaluations++;
	}
	pthread_mutex_init(&sh.mu, NULL);
	pthread_t *t = calloc((size_t)o->clients, sizeof *t);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int started = 0;
	for (int i = 0; t && i < o->clients; i++)
		if (pthread_create(&t[i], NULL, client_main, &sh) == 0)
			started++;
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->seconds = (double)(t1.tv_sec - t0.tv_sec) +
	             (t1.tv_nsec - t0.tv_nsec) / 1e9;
	free(t);
	free(sh.plan);
	pthread_mutex_destroy(&sh.mu);
}
