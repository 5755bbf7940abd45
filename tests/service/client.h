/*
 * A small libcurl client for the service tests and the load generator
 * (tests/service/): one request per call, thread-safe (curl_global_init
 * must have run), plus the load mix of issue 19's acceptance test.
 */
#ifndef KRL_TEST_CLIENT_H
#define KRL_TEST_CLIENT_H

#include <stddef.h>

typedef struct http_reply {
	long status;             /* 0: no answer (transport error in body) */
	char *body;              /* malloc'd, NUL-terminated */
	size_t len;
	char retry_after[32];    /* the Retry-After header, or "" */
	char content_type[96];
} http_reply;

/* method "GET" or "POST"; token NULL: no Authorization header. Returns 0,
 * or -1 when no answer came (r->body says why). */
int http_do(const char *method, const char *url, const char *token,
            const char *body, size_t len, http_reply *r);
void http_reply_free(http_reply *r);

/* ==== The load mix ==== */

typedef enum load_kind {
	LOAD_GOOD,               /* 200, verdict ok */
	LOAD_WRONG,              /* 200, verdict wrong_output */
	LOAD_HANG,               /* 200, verdict timeout (the judge's own) */
	LOAD_STALL,              /* 504 (its deadline passes mid-evaluation) */
	LOAD_MALFORMED,          /* 400 */
	LOAD_OVERSIZED,          /* 413 */
	LOAD_UNAUTH,             /* 401 */
	LOAD_UNKNOWN_TASK,       /* 404 */
	LOAD_NKINDS
} load_kind;

typedef struct load_opts {
	const char *base;        /* "http://127.0.0.1:PORT" */
	const char *token;
	const char *task;        /* a task id */
	const char *good, *wrong, *hang, *stall; /* candidate texts (stall may
	                          * be NULL: none in the mix) */
	double stall_timeout_s;  /* timeout_s sent with stalls */
	size_t max_body;         /* the server's limit (oversized goes past) */
	int requests, clients;
	unsigned seed;
	const char *shapes;      /* "shapes" sent with every evaluation, or
	                          * NULL: the server's default */
} load_opts;

typedef struct load_result {
	int sent[LOAD_NKINDS];
	int correct[LOAD_NKINDS];
	int evaluations;         /* answers that should have made a row */
	int wrong_answers;       /* an unexpected status or verdict */
	int no_answer;
	double seconds;
	char first_error[512];
} load_result;

/* Sends o->requests requests from o->clients threads, a shuffled mix of
 * the kinds, and checks each answer. */
void load_run(const load_opts *o, load_result *r);
const char *load_kind_name(load_kind k);

#endif
