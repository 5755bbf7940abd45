/*
 * mockllm: a scripted OpenAI-compatible chat-completions server for the
 * tests (mockllm.h), over libmicrohttpd with a thread per connection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <jansson.h>
#include <microhttpd.h>

#include "mockllm.h"

/* A reply with owned strings, and whether it has been played. */
typedef struct entry {
	mockllm_reply r;
	int used;
} entry;

typedef struct request {
	char *body;
	char *authorization;
} request;

struct mockllm {
	struct MHD_Daemon *daemon;
	char url[64];
	pthread_mutex_t mu;
	pthread_cond_t cv;       /* signalled on stop, to end delays early */
	int stopping;
	entry *script;
	int nscript;
	request *reqs;
	int nreqs, capreqs;
	int active, max_active;
	int serial;
};

/* Per-connection upload state (MHD's con_cls). */
typedef struct upload {
	char *buf;
	size_t len, cap;
} upload;

/* ==== Script ==== */

static char *dup_or_null(const char *z)
{
	return z ? strdup(z) : NULL;
}

static void reply_free_strings(mockllm_reply *r)
{
	free((char *)r->body);
	free((char *)r->completion);
	free((char *)r->finish_reason);
	free((char *)r->retry_after);
	free((char *)r->match);
}

static void reply_copy(mockllm_reply *dst, const mockllm_reply *src)
{
	*dst = *src;
	dst->body = dup_or_null(src->body);
	dst->completion = dup_or_null(src->completion);
	dst->finish_reason = dup_or_null(src->finish_reason);
	dst->retry_after = dup_or_null(src->retry_after);
	dst->match = dup_or_null(src->match);
}

/* Picks the entry for a request body (see mockllm.h); NULL when none is
 * left. Called with m->mu held. */
static entry *pick(mockllm *m, const char *body)
{
	entry *e = NULL;
	for (int i = 0; i < m->nscript && !e; i++) {
		entry *x = &m->script[i];
		if (!x->used && x->r.match && strstr(body, x->r.match))
			e = x;
	}
	for (int i = 0; i < m->nscript && !e; i++) {
		entry *x = &m->script[i];
		if (!x->used && !x->r.match)
			e = x;
	}
	if (e && e->r.repeat >= 0)
		e->used = 1;
	return e;
}

/* ==== HTTP ==== */

/* Builds a chat completion JSON for r. Returns a malloc'd string. */
static char *completion_json(const mockllm_reply *r, int serial)
{
	char id[32];
	snprintf(id, sizeof id, "mock-%d", serial);
	json_t *msg = json_pack("{s:s, s:s}", "role", "assistant", "content",
	                        r->completion ? r->completion : "");
	json_t *choice = json_pack("{s:i, s:o, s:s}", "index", 0, "message", msg,
	                           "finish_reason",
	                           r->finish_reason ? r->finish_reason : "stop");
	json_t *root = json_pack(
		"{s:s, s:s, s:i, s:s, s:[o], s:{s:i, s:i, s:i}}", "id", id,
		"object", "chat.completion", "created", 0, "model", "mockllm",
		"choices", choice, "usage", "prompt_tokens", r->prompt_tokens,
		"completion_tokens", r->completion_tokens, "total_tokens",
		r->prompt_tokens + r->completion_tokens);
	char *z = root ? json_dumps(root, JSON_COMPACT) : NULL;
	json_decref(root);
	return z;
}

static enum MHD_Result send_text(struct MHD_Connection *c, int status,
                                 const char *body, const char *retry_after)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type", "application/json");
	if (retry_after)
		MHD_add_response_header(resp, "Retry-After", retry_after);
	enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, resp);
	MHD_destroy_response(resp);
	return ok;
}

/* Waits ms milliseconds or until the server stops. */
static void delay(mockllm *m, int ms)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&m->mu);
	while (!m->stopping) {
		if (pthread_cond_timedwait(&m->cv, &m->mu, &until) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&m->mu);
}

/* Records a complete request. Returns its index, or -1 without memory. */
static int record(mockllm *m, struct MHD_Connection *c, const char *body)
{
	const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	                                               "Authorization");
	pthread_mutex_lock(&m->mu);
	int i = -1;
	if (m->nreqs == m->capreqs) {
		int cap = m->capreqs ? 2 * m->capreqs : 16;
		request *p = realloc(m->reqs, (size_t)cap * sizeof *p);
		if (!p)
			goto out;
		m->reqs = p;
		m->capreqs = cap;
	}
	i = m->nreqs++;
	m->reqs[i].body = strdup(body);
	m->reqs[i].authorization = dup_or_null(auth);
out:
	pthread_mutex_unlock(&m->mu);
	return i;
}

/* Answers one complete request. */
static enum MHD_Result answer(mockllm *m, struct MHD_Connection *c,
                              const char *url, const char *method,
                              const char *body)
{
	record(m, c, body);
	if (strcmp(method, "POST") || strcmp(url, "/v1/chat/completions"))
		return send_text(c, 404, "{\"error\":{\"message\":\"mockllm: "
		                 "only POST /v1/chat/completions\"}}", NULL);

	/* `match` looks at the user message; at the raw body when there is
	 * none (a request that is not a chat completion). */
	json_t *req = json_loads(body, 0, NULL);
	json_t *msgs = json_object_get(req, "messages");
	const char *prompt = NULL;
	for (size_t i = 0; i < json_array_size(msgs); i++) {
		json_t *msg = json_array_get(msgs, i);
		const char *role = json_string_value(json_object_get(msg, "role"));
		if (role && !strcmp(role, "user"))
			prompt = json_string_value(json_object_get(msg,
			                                           "content"));
	}
	pthread_mutex_lock(&m->mu);
	entry *e = pick(m, prompt ? prompt : body);
	mockllm_reply r;
	memset(&r, 0, sizeof r);
	if (e)
		reply_copy(&r, &e->r);
	int serial = ++m->serial;
	if (++m->active > m->max_active)
		m->max_active = m->active;
	pthread_mutex_unlock(&m->mu);
	json_decref(req);

	enum MHD_Result ok;
	if (!e) {
		ok = send_text(c, 500, "{\"error\":{\"message\":\"mockllm: the "
		               "script is exhausted\"}}", NULL);
		goto done;
	}
	if (r.delay_ms > 0)
		delay(m, r.delay_ms);
	if (r.close_connection) {
		ok = MHD_NO; /* MHD closes the connection without an answer */
	} else if (r.body) {
		ok = send_text(c, r.status ? r.status : 200, r.body,
		               r.retry_after);
	} else {
		char *z = completion_json(&r, serial);
		ok = z ? send_text(c, r.status ? r.status : 200, z,
		                   r.retry_after)
		       : MHD_NO;
		free(z);
	}
	reply_free_strings(&r);
done:
	pthread_mutex_lock(&m->mu);
	m->active--;
	pthread_mutex_unlock(&m->mu);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *data,
                                  size_t *size, void **con_cls)
{
	mockllm *m = cls;
	upload *u = *con_cls;
	if (!u) {
		u = calloc(1, sizeof *u);
		if (!u)
			return MHD_NO;
		*con_cls = u;
		return MHD_YES;
	}
	if (*size) {
		if (u->len + *size + 1 > u->cap) {
			size_t cap = 2 * (u->len + *size) + 64;
			char *p = realloc(u->buf, cap);
			if (!p)
				return MHD_NO;
			u->buf = p;
			u->cap = cap;
		}
		memcpy(u->buf + u->len, data, *size);
		u->len += *size;
		u->buf[u->len] = 0;
		*size = 0;
		return MHD_YES;
	}
	return answer(m, c, url, method, u->buf ? u->buf : "");
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
	upload *u = *con_cls;
	if (u) {
		free(u->buf);
		free(u);
		*con_cls = NULL;
	}
}

/* ==== Lifecycle ==== */

static void mockllm_free(mockllm *m)
{
	for (int i = 0; i < m->nscript; i++)
		reply_free_strings(&m->script[i].r);
	free(m->script);
	for (int i = 0; i < m->nreqs; i++) {
		free(m->reqs[i].body);
		free(m->reqs[i].authorization);
	}
	free(m->reqs);
	pthread_mutex_destroy(&m->mu);
	pthread_cond_destroy(&m->cv);
	free(m);
}

mockllm *mockllm_start(const mockllm_reply *replies, int n)
{
	mockllm *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cv, NULL);
	m->script = calloc(n > 0 ? (size_t)n : 1, sizeof *m->script);
	if (!m->script) {
		mockllm_free(m);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		reply_copy(&m->script[i].r, &replies[i]);
	m->nscript = n;

	struct sockaddr_in sa;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = 0;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	m->daemon = MHD_start_daemon(
		MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD,
		0, NULL, NULL, on_request, m,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, m,
		MHD_OPTION_END);
	if (!m->daemon) {
		fprintf(stderr, "mockllm: cannot listen on 127.0.0.1\n");
		mockllm_free(m);
		return NULL;
	}
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(m->daemon, MHD_DAEMON_INFO_BIND_PORT);
	if (!info || !info->port) {
		fprintf(stderr, "mockllm: no port was bound\n");
		mockllm_stop(m);
		return NULL;
	}
	snprintf(m->url, sizeof m->url, "http://127.0.0.1:%u/v1",
	         (unsigned)info->port);
	return m;
}

void mockllm_stop(mockllm *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->mu);
	m->stopping = 1;
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->mu);
	if (m->daemon)
		MHD_stop_daemon(m->daemon);
	mockllm_free(m);
}

const char *mockllm_url(mockllm *m)
{
	return m->url;
}

int mockllm_requests(mockllm *m)
{
	pthread_mutex_lock(&m->mu);
	int n = m->nreqs;
	pthread_mutex_unlock(&m->mu);
	return n;
}

const char *mockllm_request_body(mockllm *m, int i)
{
	pthread_mutex_lock(&m->mu);
	const char *z = i >= 0 && i < m->nreqs ? m->reqs[i].body : NULL;
	pthread_mutex_unlock(&m->mu);
	return z;
}

const char *mockllm_request_authorization(mockllm *m, int i)
{
	pthread_mutex_lock(&m->mu);
	const char *z = i >= 0 && i < m->nreqs ? m->reqs[i].authorization
	                                       : NULL;
	pthread_mutex_unlock(&m->mu);
	return z;
}

int mockllm_max_concurrent(mockllm *m)
{
	pthread_mutex_lock(&m->mu);
	int n = m->max_active;
	pthread_mutex_unlock(&m->mu);
	return n;
}

/* ==== JSON scripts ==== */

/* Reads a file; malloc'd, NUL-terminated, or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	char tmp[8192];
	while ((got = fread(tmp, 1, sizeof tmp, f)) > 0) {
		if (len + got + 1 > cap) {
			cap = 2 * (len + got) + 1;
			char *p = realloc(buf, cap);
			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		memcpy(buf + len, tmp, got);
		len += got;
	}
	fclose(f);
	if (!buf)
		buf = calloc(1, 1);
	else
		buf[len] = 0;
	return buf;
}

/* path relative to the folder of base; malloc'd. */
static char *relative_to(const char *base, const char *path)
{
	const char *slash = strrchr(base, '/');
	if (path[0] == '/' || !slash)
		return strdup(path);
	size_t n = (size_t)(slash - base) + 1;
	char *z = malloc(n + strlen(path) + 1);
	if (z) {
		memcpy(z, base, n);
		strcpy(z + n, path);
	}
	return z;
}

static const char *str_key(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int int_key(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (json_is_integer(v))
		return (int)json_integer_value(v);
	return json_is_true(v) ? 1 : 0;
}

/* Fills r (owned strings in *owned, freed by the caller) from entry o.
 * Returns 0, or -1 with err set. */
static int entry_from_json(const char *path, json_t *o, int i,
                           mockllm_reply *r, char **owned, char *err,
                           size_t cap)
{
	if (!json_is_object(o)) {
		snprintf(err, cap, "%s: reply %d is not an object", path, i);
		return -1;
	}
	static const char *const known[] = {
		"status", "delay_ms", "body", "completion", "completion_file",
		"candidate_file", "finish_reason", "prompt_tokens",
		"completion_tokens", "retry_after", "close_connection", "match",
		"repeat", "comment", NULL
	};
	const char *key;
	json_t *val;
	json_object_foreach(o, key, val) {
		int ok = 0;
		for (int k = 0; known[k]; k++)
			ok |= !strcmp(key, known[k]);
		if (!ok) {
			snprintf(err, cap, "%s: reply %d: unknown key \"%s\"",
			         path, i, key);
			return -1;
		}
	}
	memset(r, 0, sizeof *r);
	r->status = int_key(o, "status");
	r->delay_ms = int_key(o, "delay_ms");
	r->body = str_key(o, "body");
	r->completion = str_key(o, "completion");
	r->finish_reason = str_key(o, "finish_reason");
	r->prompt_tokens = int_key(o, "prompt_tokens");
	r->completion_tokens = int_key(o, "completion_tokens");
	r->retry_after = str_key(o, "retry_after");
	r->close_connection = int_key(o, "close_connection");
	r->match = str_key(o, "match");
	r->repeat = int_key(o, "repeat");
	const char *cf = str_key(o, "completion_file");
	const char *cand = str_key(o, "candidate_file");
	if (cf || cand) {
		char *full = relative_to(path, cf ? cf : cand);
		char *text = full ? slurp(full) : NULL;
		if (!text) {
			snprintf(err, cap, "%s: reply %d: cannot read %s", path, i,
			         full ? full : "(no memory)");
			free(full);
			return -1;
		}
		free(full);
		if (cand) {
			/* A plain answer around the candidate, as a model writes. */
			static const char pre[] = "The new version removes the "
				"slow path.\n\n```cuda\n";
			static const char post[] = "```\n";
			size_t n = strlen(text);
			int nl = n > 0 && text[n - 1] == '\n';
			char *z = malloc(sizeof pre + n + 1 + sizeof post);
			if (!z) {
				free(text);
				snprintf(err, cap, "out of memory");
				return -1;
			}
			sprintf(z, "%s%s%s%s", pre, text, nl ? "" : "\n", post);
			free(text);
			text = z;
		}
		*owned = text;
		r->completion = text;
	}
	return 0;
}

mockllm *mockllm_start_file(const char *path, char *err, size_t cap)
{
	char dummy[8];
	if (!err) {
		err = dummy;
		cap = sizeof dummy;
	}
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root) {
		snprintf(err, cap, "%s:%d:%d: %s", path, je.line, je.column,
		         je.text);
		return NULL;
	}
	json_t *arr = json_is_array(root) ? root
	                                  : json_object_get(root, "replies");
	if (!json_is_array(arr)) {
		snprintf(err, cap, "%s: expected an array or {\"replies\": [...]}",
		         path);
		json_decref(root);
		return NULL;
	}
	int n = (int)json_array_size(arr);
	mockllm_reply *rs = calloc(n ? (size_t)n : 1, sizeof *rs);
	char **owned = calloc(n ? (size_t)n : 1, sizeof *owned);
	mockllm *m = NULL;
	if (!rs || !owned) {
		snprintf(err, cap, "out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++)
		if (entry_from_json(path, json_array_get(arr, (size_t)i), i,
		                    &rs[i], &owned[i], err, cap))
			goto out;
	m = mockllm_start(rs, n);
	if (!m)
		snprintf(err, cap, "cannot start the server on 127.0.0.1");
out:
	if (owned)
		for (int i = 0; i < n; i++)
			free(owned[i]);
	free(owned);
	free(rs);
	json_decref(root);
	return m;
}
