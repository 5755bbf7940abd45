/*
 * kernelrl: the OpenAI-compatible chat-completions client (include/krl/llm.h,
 * docs/llm.md) over libcurl.
 *
 * One libcurl easy handle per request, so any number of threads may call
 * krl_llm_complete on one client; a counting semaphore (mutex + condition)
 * bounds the requests in flight. Transport errors, timeouts, 408, 429 and
 * 5xx are retried with exponential backoff (Retry-After is honoured, capped);
 * other answers are final.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>

#include "krl/llm.h"
#include "util/clock.h"
#include "util/rng.h"
#include "util/strbuf.h"

/* A server's Retry-After is obeyed up to this many seconds. */
#define RETRY_AFTER_CAP_S 60.0
/* A response body larger than this is a broken server, not an answer. */
#define BODY_CAP ((size_t)64 << 20)
/* How much of a response body an error message quotes. */
#define EXCERPT_CHARS 300

struct krl_llm {
	char *url;               /* {base_url}/chat/completions */
	char *model;
	char *auth;              /* "Authorization: Bearer ..." or NULL */
	double timeout_s;
	int max_retries;
	double backoff_s;
	int max_in_flight;
	double temperature;
	int max_tokens;
	pthread_mutex_t mu;      /* guards in_flight */
	pthread_cond_t cv;
	int in_flight;
};

static const krl_pos nopos;

/* ==== Global state ==== */

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* ==== Options ==== */

/* The first of z, $e1, $e2 that is set and not empty; NULL if none. */
static const char *first_set(const char *z, const char *e1, const char *e2)
{
	if (z && *z)
		return z;
	const char *v = e1 ? getenv(e1) : NULL;
	if (v && *v)
		return v;
	v = e2 ? getenv(e2) : NULL;
	return v && *v ? v : NULL;
}

/* The endpoint for a base URL: trailing slashes dropped and
 * "/chat/completions" appended unless the URL already ends with it.
 * malloc'd, or NULL without memory. */
static char *endpoint_url(const char *base)
{
	static const char tail[] = "/chat/completions";
	size_t n = strlen(base);
	while (n > 0 && base[n - 1] == '/')
		n--;
	size_t nt = sizeof tail - 1;
	int has = n >= nt && !memcmp(base + n - nt, tail, nt);
	char *z = malloc(n + (has ? 0 : nt) + 1);
	if (!z)
		return NULL;
	memcpy(z, base, n);
	strcpy(z + n, has ? "" : tail);
	return z;
}

krl_err krl_llm_create(const krl_llm_opts *o, krl_llm **out, krl_diag *d)
{
	static const krl_llm_opts none;
	*out = NULL;
	if (!o)
		o = &none;
	const char *base = first_set(o->base_url, "KRL_LLM_BASE_URL",
	                             "OPENAI_BASE_URL");
	if (!base)
		return krl_diag_set(d, KRL_EINVAL, nopos,
			"no LLM server: set the base URL option, $KRL_LLM_BASE_URL "
			"or $OPENAI_BASE_URL (e.g. http://127.0.0.1:8000/v1)");
	if (strncasecmp(base, "http://", 7) && strncasecmp(base, "https://", 8))
		return krl_diag_set(d, KRL_EINVAL, nopos,
			"LLM base URL '%s' must start with http:// or https://",
			base);
	const char *model = first_set(o->model, "KRL_LLM_MODEL", NULL);
	if (!model)
		return krl_diag_set(d, KRL_EINVAL, nopos,
			"no LLM model: set the model option or $KRL_LLM_MODEL "
			"(the name the server at %s serves)", base);
	if (o->timeout_s < 0 || o->backoff_s < 0 || o->max_in_flight < 0 ||
	    o->max_tokens < 0 || o->temperature < 0 ||
	    isnan(o->timeout_s) || isnan(o->backoff_s) ||
	    isnan(o->temperature))
		return krl_diag_set(d, KRL_EINVAL, nopos,
			"LLM options: timeout, backoff, max_in_flight, max_tokens "
			"and temperature must not be negative");
	const char *key = first_set(o->api_key, "KRL_LLM_API_KEY",
	                            "OPENAI_API_KEY");

	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK)
		return krl_diag_set(d, KRL_EIO, nopos,
			"libcurl does not initialise: %s",
			curl_easy_strerror(global_rc));

	krl_llm *c = calloc(1, sizeof *c);
	if (!c)
		return krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
	c->url = endpoint_url(base);
	c->model = strdup(model);
	if (key) {
		size_t n = strlen(key) + 32;
		c->auth = malloc(n);
		if (c->auth)
			snprintf(c->auth, n, "Authorization: Bearer %s", key);
	}
	if (!c->url || !c->model || (key && !c->auth)) {
		krl_llm_free(c);
		return krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
	}
	c->timeout_s = o->timeout_s > 0 ? o->timeout_s : 300;
	c->max_retries = o->max_retries > 0 ? o->max_retries
	               : o->max_retries == 0 ? 4 : 0;
	c->backoff_s = o->backoff_s > 0 ? o->backoff_s : 1;
	c->max_in_flight = o->max_in_flight > 0 ? o->max_in_flight : 8;
	c->temperature = o->temperature;
	c->max_tokens = o->max_tokens;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	*out = c;
	return KRL_OK;
}

void krl_llm_free(krl_llm *c)
{
	if (!c)
		return;
	if (c->auth) {
		/* The key should not linger in freed memory. */
		memset(c->auth, 0, strlen(c->auth));
		free(c->auth);
	}
	free(c->url);
	free(c->model);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	free(c);
}

void krl_completion_clear(krl_completion *c)
{
	if (!c)
		return;
	free(c->text);
	free(c->finish_reason);
	memset(c, 0, sizeof *c);
}

/* ==== The in-flight bound ==== */

static void slot_acquire(krl_llm *c)
{
	pthread_mutex_lock(&c->mu);
	while (c->in_flight >= c->max_in_flight)
		pthread_cond_wait(&c->cv, &c->mu);
	c->in_flight++;
	pthread_mutex_unlock(&c->mu);
}

static void slot_release(krl_llm *c)
{
	pthread_mutex_lock(&c->mu);
	c->in_flight--;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

/* ==== One HTTP attempt ==== */

typedef struct response {
	krl_strbuf body;
	int overflow;            /* the body passed BODY_CAP */
	double retry_after;      /* seconds; negative when absent */
} response;

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
	response *r = ud;
	size_t add = size * n;
	if (r->body.len + add + 1 > BODY_CAP) {
		r->overflow = 1;
		return 0; /* makes libcurl stop with CURLE_WRITE_ERROR */
	}
	krl_strbuf_add(&r->body, p, add);
	return r->body.oom ? 0 : add;
}

/* Picks Retry-After out of the response headers: delta-seconds, or an
 * HTTP date turned into seconds from now. */
static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
	response *r = ud;
	size_t len = size * n;
	static const char name[] = "retry-after:";
	size_t nn = sizeof name - 1;
	if (len <= nn || strncasecmp(p, name, nn))
		return len;
	char val[128];
	size_t k = len - nn < sizeof val - 1 ? len - nn : sizeof val - 1;
	memcpy(val, p + nn, k);
	val[k] = 0;
	char *end;
	double s = strtod(val, &end);
	if (end != val && s >= 0 && isfinite(s)) {
		r->retry_after = s;
	} else {
		time_t t = curl_getdate(val, NULL);
		if (t != -1)
			r->retry_after = fmax(0, difftime(t, time(NULL)));
	}
	return len;
}

/* POSTs payload to c->url. Returns the libcurl code; *status is the HTTP
 * status (0 without a response); errbuf gets libcurl's detail. */
static CURLcode post(krl_llm *c, const char *payload, response *r,
                     long *status, char *errbuf)
{
	*status = 0;
	errbuf[0] = 0;
	CURL *h = curl_easy_init();
	if (!h)
		return CURLE_FAILED_INIT;
	struct curl_slist *hdr = NULL, *t;
	CURLcode rc = CURLE_OUT_OF_MEMORY;
	if (!(t = curl_slist_append(hdr, "Content-Type: application/json")))
		goto out;
	hdr = t;
	/* Big prompts would otherwise wait for a 100-continue. */
	if (!(t = curl_slist_append(hdr, "Expect:")))
		goto out;
	hdr = t;
	if (c->auth) {
		if (!(t = curl_slist_append(hdr, c->auth)))
			goto out;
		hdr = t;
	}
	long timeout_ms = (long)fmin(c->timeout_s * 1000.0, 1e9);
	if (timeout_ms < 1)
		timeout_ms = 1;
	curl_easy_setopt(h, CURLOPT_URL, c->url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, payload);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
	                 (curl_off_t)strlen(payload));
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
	                 timeout_ms < 30000 ? timeout_ms : 30000L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* threads */
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h, CURLOPT_USERAGENT, "kernelrl/0.1");
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
out:
	curl_slist_free_all(hdr);
	curl_easy_cleanup(h);
	return rc;
}

/* ==== Messages ==== */

/* A one-line excerpt of a body (control characters become spaces). */
static void excerpt(const char *body, size_t len, char *buf, size_t cap)
{
	size_t k = 0;
	for (size_t i = 0; i < len && k + 4 < cap && i < EXCERPT_CHARS; i++) {
		unsigned char ch = (unsigned char)body[i];
		buf[k++] = ch < 0x20 || ch == 0x7f ? ' ' : (char)ch;
	}
	if (len > EXCERPT_CHARS && k + 4 < cap) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = 0;
	if (k == 0)
		snprintf(buf, cap, "(empty body)");
}

/* Is a libcurl failure worth another try? Bad URLs, protocols and TLS
 * verification failures will fail the same way again. */
static int transport_retryable(CURLcode rc)
{
	switch (rc) {
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_NOT_BUILT_IN:
	case CURLE_OUT_OF_MEMORY:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_FAILED_INIT:
		return 0;
	default:
		return 1;
	}
}

/* ==== Requests and answers ==== */

/* The request body; malloc'd, or NULL without memory or when a message
 * is not valid UTF-8 (jansson refuses it). */
static char *request_json(const krl_llm *c, const char *system,
                          const char *user)
{
	json_t *root = json_pack("{s:s, s:[]}", "model", c->model, "messages");
	json_t *msgs = json_object_get(root, "messages");
	if (!root)
		return NULL;
	if (system && json_array_append_new(msgs, json_pack("{s:s, s:s}",
	              "role", "system", "content", system)))
		goto fail;
	if (json_array_append_new(msgs, json_pack("{s:s, s:s}", "role", "user",
	                          "content", user ? user : "")))
		goto fail;
	if (c->temperature > 0 && json_object_set_new(root, "temperature",
	                          json_real(c->temperature)))
		goto fail;
	if (c->max_tokens > 0 && json_object_set_new(root, "max_tokens",
	                         json_integer(c->max_tokens)))
		goto fail;
	char *z = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	return z;
fail:
	json_decref(root);
	return NULL;
}

static int int_field(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_integer(v))
		return 0;
	json_int_t x = json_integer_value(v);
	return x < 0 ? 0 : x > 0x7fffffff ? 0x7fffffff : (int)x;
}

/* Parses a 2xx body into out. KRL_ESYNTAX for anything that is not a chat
 * completion; KRL_EIO for a body that carries an error object. */
static krl_err parse_completion(const krl_llm *c, const response *r,
                                krl_completion *out, krl_diag *d)
{
	char ex[EXCERPT_CHARS + 16];
	json_error_t je;
	json_t *root = json_loadb(r->body.z ? r->body.z : "", r->body.len, 0,
	                          &je);
	krl_err e = KRL_OK;
	if (!json_is_object(root)) {
		excerpt(r->body.z, r->body.len, ex, sizeof ex);
		e = krl_diag_set(d, KRL_ESYNTAX, nopos,
			"POST %s: HTTP %d but the answer is not a JSON object "
			"(%s): %s", c->url, out->http_status,
			root ? "another JSON value" : je.text, ex);
		goto out;
	}
	json_t *choices = json_object_get(root, "choices");
	json_t *ch0 = json_array_get(choices, 0);
	if (!json_is_object(ch0)) {
		json_t *err = json_object_get(root, "error");
		const char *em = json_string_value(json_object_get(err,
		                                   "message"));
		if (!em)
			em = json_string_value(err);
		excerpt(r->body.z, r->body.len, ex, sizeof ex);
		if (em)
			e = krl_diag_set(d, KRL_EIO, nopos,
				"POST %s: HTTP %d with an error: %s", c->url,
				out->http_status, em);
		else
			e = krl_diag_set(d, KRL_ESYNTAX, nopos,
				"POST %s: HTTP %d but the answer has no "
				"choices[0]: %s", c->url, out->http_status, ex);
		goto out;
	}
	const char *fr = json_string_value(json_object_get(ch0,
	                                   "finish_reason"));
	json_t *content = json_object_get(json_object_get(ch0, "message"),
	                                  "content");
	if (!json_is_string(content)) {
		excerpt(r->body.z, r->body.len, ex, sizeof ex);
		e = krl_diag_set(d, KRL_ESYNTAX, nopos,
			"POST %s: HTTP %d but choices[0].message.content is not "
			"a string (finish_reason %s): %s", c->url,
			out->http_status, fr ? fr : "absent", ex);
		goto out;
	}
	out->text = strndup(json_string_value(content),
	                    json_string_length(content));
	out->finish_reason = fr ? strdup(fr) : NULL;
	if (!out->text || (fr && !out->finish_reason)) {
		free(out->text);
		free(out->finish_reason);
		out->text = out->finish_reason = NULL;
		e = krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
		goto out;
	}
	json_t *usage = json_object_get(root, "usage");
	out->prompt_tokens = int_field(usage, "prompt_tokens");
	out->completion_tokens = int_field(usage, "completion_tokens");
out:
	json_decref(root);
	return e;
}

static void sleep_s(double s)
{
	if (!(s > 0))
		return;
	struct timespec ts;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Up to +25% on a backoff, so that the requests of one batch that failed
 * together do not all come back at the same instant: one output of a
 * process-wide splitmix64 stream per call (not seeded: only timing depends
 * on it). */
static double jitter(double s)
{
	static _Atomic uint64_t calls;
	uint64_t x = krl_splitmix64_at(0, atomic_fetch_add(&calls, 1));
	return s * (1.0 + 0.25 * (double)(x % 1024) / 1024.0);
}

krl_err krl_llm_complete(krl_llm *c, const char *system, const char *user,
                         krl_completion *out, krl_diag *d)
{
	memset(out, 0, sizeof *out);
	char *payload = request_json(c, system, user);
	if (!payload)
		return krl_diag_set(d, KRL_ENOMEM, nopos,
			"cannot encode the request: out of memory, or a prompt "
			"that is not valid UTF-8");
	double t0 = krl_now_s();
	krl_err e = KRL_OK;
	response r = { 0 };
	char errbuf[CURL_ERROR_SIZE];
	char ex[EXCERPT_CHARS + 16];
	for (int attempt = 1;; attempt++) {
		krl_strbuf_free(&r.body);
		memset(&r, 0, sizeof r);
		r.retry_after = -1;
		long status = 0;
		slot_acquire(c);
		CURLcode rc = post(c, payload, &r, &status, errbuf);
		slot_release(c);
		out->attempts = attempt;
		out->http_status = (int)status;
		int retry;
		if (rc != CURLE_OK) {
			retry = transport_retryable(rc) && !r.overflow;
			if (rc == CURLE_OPERATION_TIMEDOUT)
				e = krl_diag_set(d, KRL_ETIMEOUT, nopos,
					"POST %s: no complete answer within %.1f s "
					"(%d attempt%s)", c->url, c->timeout_s,
					attempt, attempt > 1 ? "s" : "");
			else
				e = krl_diag_set(d, KRL_EIO, nopos,
					"POST %s: %s%s%s (HTTP %ld, %d attempt%s)",
					c->url, r.overflow
					? "the answer is larger than 64 MiB"
					: curl_easy_strerror(rc),
					errbuf[0] ? ": " : "", errbuf, status,
					attempt, attempt > 1 ? "s" : "");
		} else if (status >= 200 && status < 300) {
			e = parse_completion(c, &r, out, d);
			retry = 0;
		} else {
			retry = status == 408 || status == 429 || status >= 500;
			excerpt(r.body.z, r.body.len, ex, sizeof ex);
			e = krl_diag_set(d, KRL_EIO, nopos,
				"POST %s: HTTP %ld (%d attempt%s): %s", c->url,
				status, attempt, attempt > 1 ? "s" : "", ex);
		}
		if (!retry || attempt > c->max_retries)
			break;
		double wait = c->backoff_s * pow(2, attempt - 1);
		wait = r.retry_after >= 0 ? fmin(r.retry_after, RETRY_AFTER_CAP_S)
		                          : jitter(wait);
		sleep_s(wait);
	}
	krl_strbuf_free(&r.body);
	free(payload);
	out->seconds = krl_now_s() - t0;
	return e;
}

/* ==== Batches ==== */

typedef struct batch {
	krl_llm *c;
	const char *system;
	const char *const *users;
	int n;
	krl_completion *out;
	krl_err *errs;
	krl_diag *diags;
	atomic_int next;
} batch;

/* Takes requests off the batch until none is left. */
static void *batch_worker(void *arg)
{
	batch *b = arg;
	for (;;) {
		int i = atomic_fetch_add(&b->next, 1);
		if (i >= b->n)
			break;
		krl_err e = krl_llm_complete(b->c, b->system, b->users[i],
		                             &b->out[i],
		                             b->diags ? &b->diags[i] : NULL);
		if (b->errs)
			b->errs[i] = e;
	}
	return NULL;
}

void krl_llm_complete_many(krl_llm *c, const char *system,
                           const char *const *users, int n,
                           krl_completion *out, krl_err *errs,
                           krl_diag *diags)
{
	if (n <= 0)
		return;
	batch b = { .c = c, .system = system, .users = users, .n = n,
	            .out = out, .errs = errs, .diags = diags };
	atomic_init(&b.next, 0);
	/* The caller is one of the workers; a thread that cannot be created
	 * only makes the batch slower. */
	int nthreads = (n < c->max_in_flight ? n : c->max_in_flight) - 1;
	pthread_t *th = nthreads > 0 ? calloc((size_t)nthreads, sizeof *th)
	                             : NULL;
	int started = 0;
	for (int i = 0; th && i < nthreads; i++) {
		if (pthread_create(&th[started], NULL, batch_worker, &b))
			break;
		started++;
	}
	batch_worker(&b);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
}
