/*
 * mockllm: a scripted OpenAI-compatible chat-completions server for tests.
 *
 * It listens on 127.0.0.1 (an ephemeral port), answers
 * POST /v1/chat/completions from a script of replies, and records every
 * request it received so that tests can assert on what the client sent.
 * Each connection gets its own thread, so concurrent requests really are
 * concurrent (and counted: mockllm_max_concurrent).
 *
 * Choosing a reply: an unused entry whose `match` is a substring of the
 * request's (last) user message wins (the first such entry in script
 * order; the raw body when the request has no user message); otherwise the
 * first unused entry without a `match`. An entry is used once unless its
 * `repeat` is negative (then it never runs out). When nothing is left the
 * server answers 500 with a body saying the script is exhausted.
 *
 * The script can also come from a JSON file (docs/llm.md, "Test fixtures"):
 *
 *   { "replies": [
 *       { "status": 503, "body": "{\"error\": \"overloaded\"}" },
 *       { "completion": "text of choices[0].message.content",
 *         "prompt_tokens": 812, "completion_tokens": 344 },
 *       { "candidate_file": "../../../examples/level1/19_relu.fast.cu",
 *         "match": "task relu", "repeat": -1 } ] }
 *
 * (a top-level array is accepted too). Keys: status, delay_ms, body,
 * completion, completion_file, candidate_file, finish_reason,
 * prompt_tokens, completion_tokens, retry_after, close_connection, match,
 * repeat. File paths are relative to the JSON file's folder.
 */
#ifndef KRL_MOCKLLM_H
#define KRL_MOCKLLM_H

#include <stddef.h>

typedef struct mockllm_reply {
	int status;                /* HTTP status; 0 means 200 */
	int delay_ms;              /* wait this long before answering */
	const char *body;          /* the raw response body, sent as is; when
	                            * NULL a chat completion is built from
	                            * `completion` (NULL: "") */
	const char *completion;    /* choices[0].message.content */
	const char *finish_reason; /* NULL: "stop" */
	int prompt_tokens;         /* usage, as sent */
	int completion_tokens;
	const char *retry_after;   /* a Retry-After header value, or NULL */
	int close_connection;      /* drop the connection without an answer */
	const char *match;         /* NULL: next in order; else a substring of
	                            * the user message that selects this entry */
	int repeat;                /* 0: used once; negative: never runs out */
} mockllm_reply;

typedef struct mockllm mockllm;

/* Starts a server that plays replies[0..n) (copied: the array may be freed
 * afterwards). Returns NULL (with a line on stderr) when it cannot listen.
 * Stop it with mockllm_stop. */
mockllm *mockllm_start(const mockllm_reply *replies, int n);

/* Starts a server that plays the script in the JSON file at path. NULL on
 * failure, with the reason in err (may be NULL). */
mockllm *mockllm_start_file(const char *path, char *err, size_t cap);

/* "http://127.0.0.1:PORT/v1": the base URL a client is given. */
const char *mockllm_url(mockllm *m);

/* The number of requests received so far (any path and method). */
int mockllm_requests(mockllm *m);

/* The body of request i (0-based, in arrival order), or NULL. The string is
 * owned by the server and lives until mockllm_stop. */
const char *mockllm_request_body(mockllm *m, int i);

/* The Authorization header of request i, or NULL when it had none. */
const char *mockllm_request_authorization(mockllm *m, int i);

/* The most requests that were being answered at the same moment. */
int mockllm_max_concurrent(mockllm *m);

/* Stops the server (waking any reply still waiting out its delay) and frees
 * everything. NULL is a no-op. */
void mockllm_stop(mockllm *m);

#endif
