/*
 * The service's HTTP side (include/krl/service.h, docs/serve.md) on
 * libmicrohttpd, a thread per connection (a request waits for its
 * evaluation in its own thread).
 *
 * Every answer is sent once the whole body has been read, even a refusal
 * (401, 413): a client still sending its body would otherwise see the
 * connection reset instead of the answer. Bodies past --max-body are read
 * and dropped, never kept.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "krl/llm.h"
#include "service/service_int.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/strbuf.h"

/* Per-connection upload state (MHD's con_cls). */
typedef struct upload {
	krl_strbuf body;         /* at most max_body bytes */
	int too_big;
	int counted;             /* in s->active until completed */
	double t0;
} upload;

/* ==== Answers ==== */

static enum MHD_Result send_body(krl_service *s, struct MHD_Connection *c,
                                 int status, const char *type, char *body,
                                 const char *const *headers)
{
	if (!body)
		return MHD_NO;
	struct MHD_Response *r = MHD_create_response_from_buffer(
		strlen(body), body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	for (int i = 0; headers && headers[i]; i += 2)
		MHD_add_response_header(r, headers[i], headers[i + 1]);
	enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	krl_svc_metrics_http(s, status);
	return ok;
}

static enum MHD_Result send_json(krl_service *s, struct MHD_Connection *c,
                                 int status, json_t *j,
                                 const char *const *headers)
{
	char *z = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(9))
	            : NULL;
	json_decref(j);
	return send_body(s, c, status, "application/json", z, headers);
}

/* {"error": {"status": N, "message": "..."}} */
static enum MHD_Result send_error(krl_service *s, struct MHD_Connection *c,
                                  int status, const char *const *headers,
                                  const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static enum MHD_Result send_error(krl_service *s, struct MHD_Connection *c,
                                  int status, const char *const *headers,
                                  const char *fmt, ...)
{
	char msg[1400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (s->o.verbose)
		fprintf(stderr, "krl serve: %d %s\n", status, msg);
	json_t *m = json_string(msg);
	if (!m)
		m = json_string("(the message is not valid UTF-8)");
	return send_json(s, c, status,
	                 json_pack("{s:{s:i, s:o}}", "error", "status", status,
	                           "message", m),
	                 headers);
}

/* ==== Requests ==== */

/* The bearer token check: constant time in the token's length. */
static int authorized(krl_service *s, struct MHD_Connection *c)
{
	const char *want = s->o.token;
	if (!want || !*want)
		return 1;
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	                                            "Authorization");
	if (!h || strncasecmp(h, "Bearer ", 7))
		return 0;
	h += 7;
	while (*h == ' ')
		h++;
	size_t n = strlen(want), m = strlen(h);
	unsigned char diff = (unsigned char)(n != m);
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(want[i] ^ (i < m ? h[i] : 0));
	return !diff;
}

/* A task reference a client may use: a suite id or id prefix, never a
 * path (krl_suite_find would also open an existing file). */
static int plain_id(const char *z)
{
	if (!*z || *z == '/' || strstr(z, "..") || strlen(z) > 200)
		return 0;
	size_t n = strlen(z);
	if (n >= 5 && !strcmp(z + n - 5, ".task"))
		return 0;
	for (; *z; z++)
		if (!((*z >= 'a' && *z <= 'z') || (*z >= 'A' && *z <= 'Z') ||
		      (*z >= '0' && *z <= '9') || *z == '_' || *z == '-' ||
		      *z == '/' || *z == '.'))
			return 0;
	return 1;
}

/* Loads a task by id (404 when unknown) or parses a task text (400 when it
 * does not parse). Returns 0 or the HTTP status, with msg set. */
static int load_task(krl_service *s, const char *id, const char *text,
                     krl_task **t, char *msg, size_t cap)
{
	krl_diag d = {0};
	char buf[1200];
	*t = NULL;
	if (text) {
		if (krl_task_parse("request.task", text, strlen(text), t, &d) !=
		    KRL_OK) {
			snprintf(msg, cap, "task_text does not parse: %s",
			         krl_diag_format(&d, buf, sizeof buf));
			return 400;
		}
		return 0;
	}
	if (!plain_id(id)) {
		snprintf(msg, cap, "unknown task '%.200s' (a task id such as "
		         "level1/19_relu)", id);
		return 404;
	}
	/* Resolved in the suite only: krl_suite_load_task would also open
	 * a file of that name. */
	int i = krl_suite_find(s->suite, id, &d);
	if (i < 0) {
		snprintf(msg, cap, "unknown task '%s'%s", id,
		         strstr(d.msg, "ambiguous") ? " (ambiguous: several "
		                                      "tasks match)" : "");
		return 404;
	}
	if (krl_suite_load_task(s->suite, s->suite->ids[i], t, &d) != KRL_OK) {
		snprintf(msg, cap, "task '%s' cannot be loaded: %s", id,
		         krl_diag_format(&d, buf, sizeof buf));
		return 500;
	}
	return 0;
}

/* The optional "shapes" (a comma-separated string or an array of names)
 * into j; each must be a shape set of j's task. Returns 0 or 400. */
static int parse_shapes(json_t *v, svc_job *j, char *msg, size_t cap)
{
	if (!v || json_is_null(v))
		return 0;
	krl_strbuf b = {0};
	if (json_is_string(v)) {
		krl_strbuf_str(&b, json_string_value(v));
	} else if (json_is_array(v)) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x) {
			if (!json_is_string(x)) {
				krl_strbuf_free(&b);
				snprintf(msg, cap, "shapes must be names (strings)");
				return 400;
			}
			krl_strbuf_printf(&b, "%s%s", i ? "," : "",
			                  json_string_value(x));
		}
	} else {
		snprintf(msg, cap, "shapes must be a string or an array of "
		         "names");
		return 400;
	}
	char *z = krl_strbuf_take(&b);
	if (!z || strlen(z) >= sizeof j->sets_buf) {
		free(z);
		snprintf(msg, cap, "shapes is too long");
		return 400;
	}
	memcpy(j->sets_buf, z, strlen(z) + 1);
	free(z);
	for (char *save = NULL, *tok = strtok_r(j->sets_buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (j->nsets == SVC_MAX_SETS) {
			snprintf(msg, cap, "at most %d shape sets", SVC_MAX_SETS);
			return 400;
		}
		if (!krl_task_shapeset(j->task, tok)) {
			snprintf(msg, cap, "task %s has no shape set '%.100s'",
			         j->task->id ? j->task->id : j->task->name, tok);
			return 400;
		}
		j->sets[j->nsets++] = tok;
	}
	return 0;
}

/* The request's timeout: "timeout_s" (at most the server's) or the
 * server's. -1 when it is not a positive number. */
static double request_timeout(krl_service *s, json_t *req)
{
	json_t *v = json_object_get(req, "timeout_s");
	if (!v || json_is_null(v))
		return s->o.request_timeout_s;
	if (!json_is_number(v) || !(json_number_value(v) > 0))
		return -1;
	double t = json_number_value(v);
	return t < s->o.request_timeout_s ? t : s->o.request_timeout_s;
}

static json_t *parse_body(const char *body, size_t len, char *msg,
                          size_t cap)
{
	json_error_t err;
	json_t *req = json_loadb(body, len, 0, &err);
	if (!req) {
		snprintf(msg, cap, "malformed JSON: line %d, column %d: %s",
		         err.line, err.column, err.text);
		return NULL;
	}
	if (!json_is_object(req)) {
		json_decref(req);
		snprintf(msg, cap, "the body must be a JSON object");
		return NULL;
	}
	return req;
}

static int new_group(krl_service *s)
{
	pthread_mutex_lock(&s->mu);
	int g = s->next_group++;
	pthread_mutex_unlock(&s->mu);
	return g;
}

static void batch_init(svc_batch *b, double timeout_s)
{
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&b->done, &a);
	pthread_condattr_destroy(&a);
	b->remaining = 0;
	b->timeout_s = timeout_s;
	b->deadline = krl_now_s() + timeout_s;
}

/* Admits jobs[0..n) (n may be 0) and waits for them. Returns 0 when all
 * are answered, else the status to send (429 with *retry, 503, 504). */
static int run_batch(krl_service *s, svc_job **jobs, int n, svc_batch *b,
                     int *retry)
{
	if (n == 0)
		return 0;
	int st = krl_svc_admit(s, jobs, n, b, retry);
	if (st)
		return st;
	return krl_svc_wait(s, jobs, n, b) ? 0 : 504;
}

/* POST /v1/evaluate */
static enum MHD_Result evaluate(krl_service *s, struct MHD_Connection *c,
                                const char *body, size_t len)
{
	char msg[1300];
	int st;
	json_t *req = parse_body(body, len, msg, sizeof msg);
	if (!req)
		return send_error(s, c, 400, NULL, "%s", msg);
	json_t *task = json_object_get(req, "task");
	json_t *text = json_object_get(req, "task_text");
	json_t *cand = json_object_get(req, "candidate");
	json_t *seed = json_object_get(req, "seed");
	double timeout_s = request_timeout(s, req);
	svc_job *j = calloc(1, sizeof *j);
	enum MHD_Result r;
	if (!j) {
		json_decref(req);
		return MHD_NO;
	}
	if (!!task == !!text || (task && !json_is_string(task)) ||
	    (text && !json_is_string(text))) {
		r = send_error(s, c, 400, NULL, "give either \"task\" (an id) or "
		               "\"task_text\" (a task file's text), a string");
		goto out;
	}
	if (!json_is_string(cand) || !json_string_length(cand)) {
		r = send_error(s, c, 400, NULL, "\"candidate\" (the candidate "
		               "file's text) is missing or empty");
		goto out;
	}
	if (seed && !json_is_null(seed) &&
	    (!json_is_integer(seed) || json_integer_value(seed) < 0)) {
		r = send_error(s, c, 400, NULL, "\"seed\" must be an integer >= 0");
		goto out;
	}
	if (timeout_s < 0) {
		r = send_error(s, c, 400, NULL, "\"timeout_s\" must be a number "
		               "of seconds above 0");
		goto out;
	}
	if ((st = load_task(s, task ? json_string_value(task) : NULL,
	                    text ? json_string_value(text) : NULL, &j->task,
	                    msg, sizeof msg))) {
		r = send_error(s, c, st, NULL, "%s", msg);
		goto out;
	}
	if ((st = parse_shapes(json_object_get(req, "shapes"), j, msg,
	                       sizeof msg))) {
		r = send_error(s, c, st, NULL, "%s", msg);
		goto out;
	}
	j->seed = json_is_integer(seed) ? (uint64_t)json_integer_value(seed) : 0;
	j->cand_text = strdup(json_string_value(cand));
	if (!j->cand_text) {
		r = MHD_NO;
		goto out;
	}
	j->group = new_group(s);
	svc_batch b;
	batch_init(&b, timeout_s);
	int retry = 1;
	svc_job *jobs[1] = {j};
	st = run_batch(s, jobs, 1, &b, &retry);
	pthread_cond_destroy(&b.done);
	if (!jobs[0])
		j = NULL; /* abandoned to its worker */
	if (st == 429) {
		char ra[16];
		snprintf(ra, sizeof ra, "%d", retry);
		const char *h[] = {"Retry-After", ra, NULL};
		r = send_error(s, c, 429, h, "the queue is full (%d jobs); retry "
		               "in %d s", s->o.queue, retry);
	} else if (st == 503) {
		const char *h[] = {"Connection", "close", NULL};
		r = send_error(s, c, 503, h, "the server is shutting down");
	} else if (st == 504) {
		r = send_error(s, c, 504, NULL, "the request's deadline (%g s) "
		               "passed before the evaluation finished (recorded "
		               "as a timeout)", timeout_s);
	} else if (j->err != KRL_OK) {
		r = send_error(s, c, 500, NULL, "the evaluation failed: %s",
		               j->errmsg);
	} else {
		char id[32], rw[32];
		snprintf(id, sizeof id, "%lld", (long long)j->row_id);
		snprintf(rw, sizeof rw, "%.9g",
		         s->o.raw_reward ? j->raw_reward : j->reward);
		const char *h[] = {"X-Krl-Evaluation-Id", id, "X-Krl-Reward", rw,
		                   "X-Krl-Run", s->run, NULL};
		r = send_json(s, c, 200, json_incref(j->record), h);
	}
out:
	krl_svc_job_free(j);
	json_decref(req);
	return r;
}

/* The completion part of an OpenRLHF query: the text after the prompt
 * when the query holds it (OpenRLHF sends prompt and response decoded
 * together), so that a code block of the prompt is never taken for the
 * model's candidate. A tokenizer's round trip may change the prompt's
 * start (special tokens, a chat template), so its second half (at most
 * its last 256 bytes) is looked for next; else the whole query. */
static const char *response_part(const char *query, const char *prompt)
{
	if (!prompt || !*prompt)
		return query;
	size_t n = strlen(prompt);
	const char *p = strstr(query, prompt);
	if (p)
		return p + n;
	size_t k = n / 2 < 256 ? n / 2 : 256;
	if (!k)
		return query;
	const char *tail = prompt + n - k;
	const char *last = NULL;
	for (p = query; (p = strstr(p, tail)); p++)
		last = p;
	return last ? last + strlen(tail) : query;
}

/* An array field of the reward request: NULL when absent, else it must be
 * an array of n strings or nulls. */
static int string_array(json_t *req, const char *key, size_t n,
                        json_t **out, char *msg, size_t cap)
{
	json_t *v = json_object_get(req, key);
	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v) || json_array_size(v) != n) {
		snprintf(msg, cap, "\"%s\" must be an array as long as \"query\" "
		         "(%zu)", key, n);
		return 400;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *x = json_array_get(v, i);
		if (!json_is_string(x) && !json_is_null(x)) {
			snprintf(msg, cap, "\"%s\"[%zu] must be a string", key, i);
			return 400;
		}
	}
	*out = v;
	return 0;
}

/* POST /reward (and /get_reward): OpenRLHF's remote reward model. */
static enum MHD_Result reward(krl_service *s, struct MHD_Connection *c,
                              const char *body, size_t len)
{
	char msg[1300];
	int st = 0;
	enum MHD_Result r;
	svc_job **jobs = NULL, **queued = NULL;
	int *qidx = NULL;
	size_t n = 0;
	json_t *prompts = NULL, *labels = NULL;
	json_t *req = parse_body(body, len, msg, sizeof msg);
	if (!req)
		return send_error(s, c, 400, NULL, "%s", msg);
	json_t *query = json_object_get(req, "query");
	json_t *task = json_object_get(req, "task");
	double timeout_s = request_timeout(s, req);
	if (!json_is_array(query) || !json_array_size(query)) {
		r = send_error(s, c, 400, NULL, "\"query\" must be a non-empty "
		               "array of completion texts");
		goto out;
	}
	n = json_array_size(query);
	if (n > (size_t)s->o.queue) {
		r = send_error(s, c, 413, NULL, "%zu queries in one request; at "
		               "most %d (the queue)", n, s->o.queue);
		goto out;
	}
	if (task && !json_is_null(task) && !json_is_string(task)) {
		r = send_error(s, c, 400, NULL, "\"task\" must be a task id");
		goto out;
	}
	if (timeout_s < 0) {
		r = send_error(s, c, 400, NULL, "\"timeout_s\" must be a number "
		               "of seconds above 0");
		goto out;
	}
	if ((st = string_array(req, "prompts", n, &prompts, msg, sizeof msg)) ||
	    (st = string_array(req, "labels", n, &labels, msg, sizeof msg))) {
		r = send_error(s, c, st, NULL, "%s", msg);
		goto out;
	}
	jobs = calloc(n, sizeof *jobs);
	queued = calloc(n, sizeof *queued);
	qidx = calloc(n, sizeof *qidx);
	if (!jobs || !queued || !qidx) {
		r = MHD_NO;
		goto out;
	}
	int group = new_group(s), nq = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *q = json_array_get(query, i);
		const char *label = json_string_value(json_array_get(labels, i));
		const char *ref = label && *label ? label : json_string_value(task);
		const char *prompt = json_string_value(json_array_get(prompts, i));
		svc_job *j = jobs[i] = calloc(1, sizeof *j);
		if (!j) {
			r = MHD_NO;
			goto out;
		}
		j->group = group;
		j->member = (int)i;
		if (!json_is_string(q)) {
			r = send_error(s, c, 400, NULL, "\"query\"[%zu] must be a "
			               "string", i);
			goto out;
		}
		if (!ref) {
			r = send_error(s, c, 400, NULL, "no task for query %zu: give "
			               "\"labels\" (task ids) or \"task\"", i);
			goto out;
		}
		if ((st = load_task(s, ref, NULL, &j->task, msg, sizeof msg))) {
			r = send_error(s, c, st, NULL, "query %zu: %s", i, msg);
			goto out;
		}
		const char *resp = response_part(json_string_value(q), prompt);
		j->prompt = prompt ? strdup(prompt) : NULL;
		j->completion = strdup(resp);
		krl_diag xd = {0};
		if (krl_extract_candidate(resp, &j->cand_text, &xd) != KRL_OK)
			j->no_cand_msg = strdup(xd.msg);
		else {
			qidx[nq] = (int)i;
			queued[nq++] = j;
		}
	}
	svc_batch b;
	batch_init(&b, timeout_s);
	int retry = 1;
	st = run_batch(s, queued, nq, &b, &retry);
	pthread_cond_destroy(&b.done);
	for (int k = 0; k < nq; k++)
		if (!queued[k])
			jobs[qidx[k]] = NULL; /* abandoned to its worker */
	if (st == 429 || st == 503) {
		char ra[16];
		snprintf(ra, sizeof ra, "%d", retry);
		const char *h429[] = {"Retry-After", ra, NULL};
		const char *h503[] = {"Connection", "close", NULL};
		r = st == 429 ? send_error(s, c, 429, h429, "the queue is full "
		                           "(%d jobs); retry in %d s", s->o.queue,
		                           retry)
		              : send_error(s, c, 503, h503, "the server is "
		                           "shutting down");
		goto out;
	}
	/* Admitted: the completions without a candidate are committed too,
	 * with the failure penalty, as krl optimize commits them. */
	for (size_t i = 0; i < n; i++)
		if (jobs[i] && !jobs[i]->cand_text)
			krl_svc_record_now(
				s, jobs[i],
				json_pack("{s:s, s:s, s:s}", "task",
				          jobs[i]->task->id ? jobs[i]->task->id
				                            : jobs[i]->task->name,
				          "verdict", "no_candidate", "message",
				          jobs[i]->no_cand_msg ? jobs[i]->no_cand_msg
				                               : ""));
	if (st == 504) {
		r = send_error(s, c, 504, NULL, "the request's deadline (%g s) "
		               "passed before every evaluation finished (recorded "
		               "as timeouts)", timeout_s);
		goto out;
	}
	json_t *rewards = json_array(), *scores = json_array(),
	       *verdicts = json_array(), *speedups = json_array(),
	       *ids = json_array();
	for (size_t i = 0; i < n; i++) {
		svc_job *j = jobs[i];
		if (j->err != KRL_OK) {
			json_decref(rewards);
			json_decref(scores);
			json_decref(verdicts);
			json_decref(speedups);
			json_decref(ids);
			r = send_error(s, c, 500, NULL, "query %zu: the evaluation "
			               "failed: %s", i, j->errmsg);
			goto out;
		}
		int ok = !strcmp(j->verdict, "ok");
		json_array_append_new(rewards, json_real(s->o.raw_reward
		                                                 ? j->raw_reward
		                                                 : j->reward));
		json_array_append_new(scores, json_real(ok ? 1.0 : 0.0));
		json_array_append_new(verdicts, json_string(j->verdict));
		json_array_append_new(speedups, json_real(j->speedup));
		json_array_append_new(ids, json_integer(j->row_id));
	}
	r = send_json(s, c, 200,
	              json_pack("{s:o, s:o, s:o, s:{s:O}, s:o, s:o, s:s}",
	                        "rewards", rewards, "scores", scores,
	                        "verdicts", verdicts,
	                        "extra_logs", "speedup", speedups, "speedups",
	                        speedups, "evaluation_ids", ids, "run", s->run),
	              NULL);
out:
	for (size_t i = 0; jobs && i < n; i++)
		krl_svc_job_free(jobs[i]);
	free(jobs);
	free(queued);
	free(qidx);
	json_decref(req);
	return r;
}

static enum MHD_Result healthz(krl_service *s, struct MHD_Connection *c)
{
	pthread_mutex_lock(&s->mu);
	int stopping = s->stopping, q = s->queued, f = s->in_flight;
	pthread_mutex_unlock(&s->mu);
	return send_json(s, c, stopping ? 503 : 200,
	                 json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:s, s:s}",
	                           "status", stopping ? "stopping" : "ok",
	                           "evaluator", s->ev.name ? s->ev.name : "",
	                           "workers", s->nthreads, "queue", q,
	                           "queue_capacity", s->o.queue, "in_flight", f,
	                           "run", s->run, "store", s->o.db),
	                 NULL);
}

static enum MHD_Result route(krl_service *s, struct MHD_Connection *c,
                             const char *url, const char *method,
                             upload *u)
{
	int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
	int post = !strcmp(method, "POST");
	const char *allow_get[] = {"Allow", "GET, HEAD", NULL};
	const char *allow_post[] = {"Allow", "POST", NULL};
	if (!strcmp(url, "/healthz"))
		return get ? healthz(s, c)
		           : send_error(s, c, 405, allow_get, "use GET");
	pthread_mutex_lock(&s->mu);
	int stopping = s->stopping;
	pthread_mutex_unlock(&s->mu);
	if (stopping) {
		const char *h[] = {"Connection", "close", NULL};
		return send_error(s, c, 503, h, "the server is shutting down");
	}
	if (!authorized(s, c)) {
		const char *h[] = {"WWW-Authenticate", "Bearer", NULL};
		return send_error(s, c, 401, h, "a valid bearer token is required "
		                  "(Authorization: Bearer TOKEN)");
	}
	int is_eval = !strcmp(url, "/v1/evaluate");
	int is_reward = !strcmp(url, "/reward") || !strcmp(url, "/get_reward");
	if (!strcmp(url, "/metrics")) {
		if (!get)
			return send_error(s, c, 405, allow_get, "use GET");
		return send_body(s, c, 200, "text/plain; version=0.0.4",
		                 krl_svc_metrics_text(s), NULL);
	}
	if (!is_eval && !is_reward)
		return send_error(s, c, 404, NULL, "no such endpoint: %.200s "
		                  "(POST /v1/evaluate, POST /reward, GET /healthz, "
		                  "GET /metrics)", url);
	if (!post)
		return send_error(s, c, 405, allow_post, "use POST");
	if (u->too_big)
		return send_error(s, c, 413, NULL, "the body is larger than %zu "
		                  "bytes (--max-body)", s->o.max_body);
	const char *body = u->body.z ? u->body.z : "";
	return is_eval ? evaluate(s, c, body, u->body.len)
	               : reward(s, c, body, u->body.len);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *data,
                                  size_t *size, void **con_cls)
{
	krl_service *s = cls;
	upload *u = *con_cls;
	if (!u) {
		u = calloc(1, sizeof *u);
		if (!u)
			return MHD_NO;
		u->t0 = krl_now_s();
		/* A stop waits for every request begun before it, until its
		 * answer has been sent (on_completed). */
		pthread_mutex_lock(&s->mu);
		if (!s->stopping) {
			s->active++;
			u->counted = 1;
		}
		pthread_mutex_unlock(&s->mu);
		const char *cl = MHD_lookup_connection_value(
			c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && strtoull(cl, NULL, 10) > s->o.max_body)
			u->too_big = 1;
		*con_cls = u;
		return MHD_YES;
	}
	if (*size) {
		if (!u->too_big && u->body.len + *size > s->o.max_body) {
			u->too_big = 1;
			krl_strbuf_free(&u->body);
		}
		if (!u->too_big) {
			krl_strbuf_add(&u->body, data, *size);
			if (u->body.oom)
				return MHD_NO;
		}
		*size = 0;
		return MHD_YES;
	}
	enum MHD_Result r = route(s, c, url, method, u);
	if (s->o.verbose)
		fprintf(stderr, "krl serve: %s %s %.3f s\n", method, url,
		        krl_now_s() - u->t0);
	return r;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
	krl_service *s = cls;
	upload *u = *con_cls;
	if (u) {
		if (u->counted) {
			pthread_mutex_lock(&s->mu);
			if (--s->active == 0)
				pthread_cond_broadcast(&s->idle);
			pthread_mutex_unlock(&s->mu);
		}
		krl_strbuf_free(&u->body);
		free(u);
		*con_cls = NULL;
	}
}

/* ==== Lifecycle ==== */

/* Resolves host (a name or a numeric address) for listening on port into
 * ss; *loopback says whether it is a loopback address. */
static krl_err resolve(const char *host, int port,
                       struct sockaddr_storage *ss, socklen_t *len,
                       int *loopback, krl_diag *d)
{
	struct addrinfo hints, *res = NULL;
	char ps[16];
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	snprintf(ps, sizeof ps, "%d", port);
	int rc = getaddrinfo(host, ps, &hints, &res);
	if (rc != 0 || !res)
		return krl_diag_set(d, KRL_EINVAL, (krl_pos){0},
		                    "cannot resolve --host %s: %s", host,
		                    gai_strerror(rc));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		*loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	} else {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
		*loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr) ||
		            (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr) &&
		             a->sin6_addr.s6_addr[12] == 127);
	}
	return KRL_OK;
}

/* "serve/<UTC start with nanoseconds>/p<pid>.<k>": new at every start. */
static void run_name(char *buf, size_t cap)
{
	static int counter;
	struct timespec ts;
	struct tm tm;
	char date[32];
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, cap, "serve/%s.%09ldZ/p%d.%d", date, ts.tv_nsec,
	         (int)getpid(), __atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST));
}

static void service_free(krl_service *s)
{
	if (s->store && s->run_id)
		krl_store_run_status(s->store, s->run_id, "done", NULL);
	krl_store_close(s->store);
	krl_suite_free(s->suite);
	krl_reward_norm_free(&s->norm);
	pthread_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->store_mu);
	pthread_cond_destroy(&s->work);
	pthread_cond_destroy(&s->idle);
	pthread_cond_destroy(&s->opened_cv);
	free(s->work_dir);
	free(s);
}

krl_err krl_service_start(const krl_service_opts *o,
                          const krl_service_evaluator *ev, krl_service **out,
                          krl_diag *d)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	int loopback = 0;
	krl_err e;
	*out = NULL;
	if (!ev || !ev->eval)
		return krl_diag_set(d, KRL_EINVAL, (krl_pos){0},
		                    "no evaluator");
	krl_service *s = calloc(1, sizeof *s);
	if (!s)
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
	s->o = *o;
	s->ev = *ev;
	if (s->ev.nworkers < 1)
		s->ev.nworkers = 1;
	if (!s->o.host)
		s->o.host = "127.0.0.1";
	if (s->o.queue <= 0)
		s->o.queue = 64;
	if (!s->o.max_body)
		s->o.max_body = 4u << 20;
	if (!(s->o.request_timeout_s > 0))
		s->o.request_timeout_s = 600;
	if (!s->o.db)
		s->o.db = "krl.db";
	if (!s->o.token || !*s->o.token)
		s->o.token = NULL;
	pthread_mutex_init(&s->mu, NULL);
	pthread_mutex_init(&s->store_mu, NULL);
	pthread_cond_init(&s->work, NULL);
	pthread_cond_init(&s->idle, NULL);
	pthread_cond_init(&s->opened_cv, NULL);
	snprintf(s->host, sizeof s->host, "%s", s->o.host);
	s->o.host = s->host;
	if ((e = resolve(s->host, s->o.port, &ss, &sslen, &loopback, d)) !=
	    KRL_OK)
		goto fail;
	if (!loopback && !s->o.token) {
		e = krl_diag_set(d, KRL_EINVAL, (krl_pos){0},
		                 "refusing to listen on %s (not a loopback "
		                 "address) without a bearer token: give --token "
		                 "TOKEN or set KRL_SERVE_TOKEN", s->host);
		goto fail;
	}
	if (krl_reward_norm_init(&s->norm, &s->o.reward) != KRL_OK) {
		e = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
		goto fail;
	}
	s->work_dir = strdup(s->o.work_dir ? s->o.work_dir : "krl-candidates");
	if (!s->work_dir) {
		e = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
		goto fail;
	}
	if (krl_mkdirs(s->work_dir) != 0) {
		e = krl_diag_set(d, KRL_EIO, (krl_pos){0}, "cannot create %s",
		                 s->work_dir);
		goto fail;
	}
	if ((e = krl_suite_load(s->o.tasks_root, &s->suite, d)) != KRL_OK ||
	    (e = krl_store_open(s->o.db, &s->store, d)) != KRL_OK)
		goto fail;
	run_name(s->run, sizeof s->run);
	int resumed = 0;
	if ((e = krl_store_run_begin(s->store, s->run,
	                             s->o.config ? s->o.config : "{}",
	                             &s->run_id, &resumed, d)) != KRL_OK)
		goto fail;
	if ((e = krl_svc_workers_start(s, d)) != KRL_OK) {
		krl_svc_workers_stop(s);
		krl_store_run_status(s->store, s->run_id, "failed", NULL);
		s->run_id = 0;
		goto fail;
	}
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION |
	                 MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	s->daemon = MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR,
		(struct sockaddr *)&ss, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
		s, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)1024, MHD_OPTION_END);
	if (!s->daemon) {
		e = krl_diag_set(d, KRL_EIO, (krl_pos){0}, "cannot listen on "
		                 "%s port %d (in use, or not an address of this "
		                 "machine?)", s->host, s->o.port);
		krl_svc_workers_stop(s);
		goto fail;
	}
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? info->port : s->o.port;
	*out = s;
	return KRL_OK;
fail:
	service_free(s);
	return e;
}

int krl_service_port(const krl_service *s)
{
	return s->port;
}

const char *krl_service_run(const krl_service *s)
{
	return s->run;
}

void krl_service_stop(krl_service *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stopping = 1;
	pthread_mutex_unlock(&s->mu);
	/* Stop accepting; requests that arrive on connections already open
	 * get 503, and every request begun before is answered (each by its
	 * deadline) before MHD_stop_daemon shuts the connections down. */
	MHD_socket ls = MHD_quiesce_daemon(s->daemon);
	pthread_mutex_lock(&s->mu);
	while (s->active > 0)
		pthread_cond_wait(&s->idle, &s->mu);
	pthread_mutex_unlock(&s->mu);
	MHD_stop_daemon(s->daemon);
	if (ls != MHD_INVALID_SOCKET)
		close(ls);
	/* Nothing is queued any more; jobs abandoned to their workers are
	 * finished and recorded before the workers leave. */
	krl_svc_workers_stop(s);
	service_free(s);
}
