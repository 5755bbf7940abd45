/*
 * kernelrl fuzzing: checks shared by the fuzz targets (tests/fuzz/).
 *
 * Every target feeds its input to a parser and then asserts what the API
 * promises whatever the input: a result code in range, *out set exactly on
 * success, a non-empty diagnostic on failure whose position does not point
 * into freed memory, and a program whose indices all stay in bounds. A broken
 * promise aborts through KRL_FUZZ_CHECK, which libFuzzer reports as a crash
 * (with the input saved) just like an ASan or UBSan finding.
 */
#ifndef KRL_FUZZ_H
#define KRL_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/lang.h"
#include "krl/ops.h"

#define KRL_FUZZ_CHECK(cond)                                              \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "%s:%d: broken promise: %s\n",    \
			        __FILE__, __LINE__, #cond);               \
			abort();                                          \
		}                                                         \
	} while (0)

/* A parse or build call returned r and filled d: check the diagnostic.
 * `path` is the only file name the caller passed in, so a position must name
 * it (or nothing): any other pointer could point into a freed object, and
 * formatting the message reads it, which ASan would catch. */
static inline void krl_fuzz_check_result(krl_err r, const krl_diag *d,
                                         const char *const *paths, int npaths)
{
	KRL_FUZZ_CHECK((int)r >= 0 && r < KRL_ERR_COUNT);
	KRL_FUZZ_CHECK(krl_strerror(r) != NULL);
	if (r == KRL_OK)
		return;
	KRL_FUZZ_CHECK(memchr(d->msg, 0, sizeof d->msg) != NULL);
	KRL_FUZZ_CHECK(d->msg[0] != 0);
	int known = d->pos.file == NULL;
	for (int i = 0; i < npaths && !known; i++)
		known = d->pos.file == paths[i];
	if (!known)
		known = d->pos.file && strlen(d->pos.file) < 4096;
	KRL_FUZZ_CHECK(known);
	KRL_FUZZ_CHECK(d->pos.line >= 0 && d->pos.col >= 0);
	char buf[1200];
	krl_diag_format(d, buf, sizeof buf);
	KRL_FUZZ_CHECK(memchr(buf, 0, sizeof buf) != NULL);
}

/* Walks a built program and checks that every index it holds is in range
 * and every launch or call agrees with what the validator promised. */
static inline void krl_fuzz_check_steps(const krl_program *p,
                                        const krl_step *s, int n,
                                        const krl_candidate *cand,
                                        const krl_limits *lim)
{
	for (int i = 0; i < n; i++, s++) {
		KRL_FUZZ_CHECK(s->src != NULL);
		if (s->kind == KRL_ST_LAUNCH) {
			KRL_FUZZ_CHECK(cand != NULL);
			KRL_FUZZ_CHECK(s->kernel >= 0 &&
			               s->kernel < cand->nkernels);
			const krl_kernel *k = &cand->kernels[s->kernel];
			KRL_FUZZ_CHECK(s->nargs == k->nparams);
			unsigned long long threads = 1;
			for (int j = 0; j < 3; j++) {
				KRL_FUZZ_CHECK(s->grid[j] >= 1 && s->block[j] >= 1);
				threads *= s->block[j];
			}
			KRL_FUZZ_CHECK(threads <= lim->max_threads);
			KRL_FUZZ_CHECK(s->smem <= lim->max_smem);
			for (int j = 0; j < s->nargs; j++) {
				const krl_karg *a = &s->args[j];
				KRL_FUZZ_CHECK(a->buf >= -1 && a->buf < p->nbufs);
				KRL_FUZZ_CHECK(a->size <= sizeof a->bytes);
				KRL_FUZZ_CHECK((a->buf >= 0) ==
				               (k->params[j].type == KRL_P_PTR));
			}
		} else {
			KRL_FUZZ_CHECK(s->kind == KRL_ST_CALL);
			KRL_FUZZ_CHECK(s->op != NULL);
			KRL_FUZZ_CHECK(s->nin >= 0 && s->nin <= KRL_MAX_CALL_IN);
			KRL_FUZZ_CHECK(krl_op_takes_nin(s->op, s->nin));
			KRL_FUZZ_CHECK(s->attrs.nin == s->nin);
			KRL_FUZZ_CHECK(s->nout >= 0 && s->nout <= KRL_MAX_CALL_OUT);
			for (int j = 0; j < s->nin; j++)
				KRL_FUZZ_CHECK(s->in[j] >= 0 &&
				               s->in[j] < p->nbufs);
			for (int j = 0; j < s->nout; j++)
				KRL_FUZZ_CHECK(s->out[j] >= 0 &&
				               s->out[j] < p->nbufs);
			KRL_FUZZ_CHECK(s->attrs.n >= 0 &&
			               s->attrs.n <= KRL_MAX_ATTR);
			for (int j = 0; j < s->attrs.n; j++)
				KRL_FUZZ_CHECK(s->attrs.key[j] != NULL);
		}
	}
}

static inline void krl_fuzz_check_program(const krl_program *p,
                                          const krl_task *task,
                                          const krl_candidate *cand,
                                          const krl_limits *lim)
{
	KRL_FUZZ_CHECK(p != NULL);
	KRL_FUZZ_CHECK(p->ntask == task->ndecls);
	KRL_FUZZ_CHECK(p->nbufs >= p->ntask);
	for (int i = 0; i < p->nbufs; i++) {
		const krl_buf *b = &p->bufs[i];
		KRL_FUZZ_CHECK(b->name != NULL);
		KRL_FUZZ_CHECK(b->ndim >= 0 && b->ndim <= KRL_MAX_DIM);
		KRL_FUZZ_CHECK((int)b->dtype >= 0 && b->dtype < KRL_DTYPE_COUNT);
		KRL_FUZZ_CHECK(b->numel >= 0);
		int64_t numel = 1;
		for (int j = 0; j < b->ndim; j++) {
			KRL_FUZZ_CHECK(b->dim[j] >= 1);
			KRL_FUZZ_CHECK(!__builtin_mul_overflow(numel, b->dim[j],
			                                       &numel));
		}
		KRL_FUZZ_CHECK(numel == b->numel);
	}
	krl_fuzz_check_steps(p, p->init, p->ninit, cand, lim);
	krl_fuzz_check_steps(p, p->body, p->nbody, cand, lim);
}

#endif
