/*
 * kernelrl: the LLM policy's pieces (docs/llm.md): an OpenAI-compatible
 * chat-completions client (vLLM, SGLang, llama.cpp server, hosted APIs) over
 * libcurl, the contrastive prompt builder with editable templates, and the
 * extraction of a candidate from an answer.
 */
#ifndef KRL_LLM_H
#define KRL_LLM_H

#include "krl/error.h"
#include "krl/lang.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Client ==== */

typedef struct krl_llm_opts {
	const char *base_url;    /* e.g. "http://127.0.0.1:8000/v1"; NULL: $KRL_LLM_BASE_URL, then $OPENAI_BASE_URL */
	const char *model;       /* NULL: $KRL_LLM_MODEL */
	const char *api_key;     /* NULL: $KRL_LLM_API_KEY, then $OPENAI_API_KEY; may be absent */
	double timeout_s;        /* whole request; 0: 300 */
	int max_retries;         /* on timeouts, 429 and 5xx; 0: 4 (negative: none) */
	double backoff_s;        /* first retry delay, doubled each time; 0: 1 */
	int max_in_flight;       /* concurrent requests; 0: 8 */
	double temperature;      /* 0 means the server default */
	int max_tokens;          /* 0: not sent */
} krl_llm_opts;

typedef struct krl_llm krl_llm;

/* Resolves options (and environment). A missing base URL or model is
 * KRL_EINVAL saying which option/variable to set. */
krl_err krl_llm_create(const krl_llm_opts *o, krl_llm **out, krl_diag *d);
void krl_llm_free(krl_llm *c);

typedef struct krl_completion {
	char *text;              /* choices[0].message.content (owned) */
	char *finish_reason;     /* owned, may be NULL */
	int prompt_tokens, completion_tokens;
	int attempts;            /* requests made, retries included */
	double seconds;          /* wall time, retries included */
	int http_status;         /* of the last attempt (0: no response) */
} krl_completion;

void krl_completion_clear(krl_completion *c);

/*
 * One chat completion (a system and a user message), blocking. Thread-safe;
 * at most max_in_flight requests are in flight per client. Retries
 * timeouts, connection errors, 429 and 5xx with exponential backoff;
 * other 4xx fail at once. Errors: KRL_ETIMEOUT, KRL_EIO (HTTP/transport,
 * message says status and body excerpt), KRL_ESYNTAX (a response that is
 * not a chat completion).
 */
krl_err krl_llm_complete(krl_llm *c, const char *system, const char *user,
                         krl_completion *out, krl_diag *d);

/* n completions of the same or different prompts concurrently (up to
 * max_in_flight at once); errs[i] and diags[i] (may be NULL) per request. */
void krl_llm_complete_many(krl_llm *c, const char *system,
                           const char *const *users, int n,
                           krl_completion *out, krl_err *errs,
                           krl_diag *diags);

/* ==== Prompts ==== */

typedef struct krl_prompt_exemplar {
	const char *source;      /* a candidate file */
	double speedup;          /* its measured speedup over the reference */
} krl_prompt_exemplar;

/*
 * Builds the contrastive prompt (the paper's structure): the task and its
 * reference; previous implementations with their measured speedups; the
 * generation protocol (analyse why the versions differ in speed, then
 * design, then write the code); the requirements (exact semantics, no
 * caching between calls, shapes fixed per call, the precision tier); and a
 * reference of the candidate language. Text comes from the template files
 * system.md and user.md in template_dir (NULL: templates/ of the source
 * tree), with {{task_name}}, {{task_text}}, {{shapes}}, {{exemplars}},
 * {{language}}, {{precision}} replaced. *system and *user are malloc'd.
 */
krl_err krl_prompt_build(const char *template_dir, const krl_task *t,
                         const char *task_text, const char *shapes,
                         const krl_prompt_exemplar *ex, int nex,
                         char **system, char **user, krl_diag *d);

/* ==== Extraction ==== */

/*
 * The candidate in an answer: the last fenced code block (``` with any info
 * string) that contains a "/\*@plan" block, else the last fenced block.
 * KRL_ENOTFOUND with a reason when there is none or it is empty; never
 * crashes on any input. *source is malloc'd.
 */
krl_err krl_extract_candidate(const char *answer, char **source, krl_diag *d);

#ifdef __cplusplus
}
#endif
#endif
