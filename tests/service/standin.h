/*
 * The judge stand-in for the service tests (tests/service/): a
 * krl_service_evaluator whose verdicts follow a marker line in the
 * candidate file it is given (read from the path, as the judge reads it):
 *
 *   //@standin ok SPEEDUP [MS]   ok with that speedup (after MS ms)
 *   //@standin wrong [MS]        wrong_output (mismatch)
 *   //@standin hang [MS]         the judge's own hang verdict: timeout
 *                                (call_timeout) after MS ms (default 50)
 *   //@standin stall             runs until the request's deadline has
 *                                passed (then ok): the 504 path
 *   //@standin crash             launch_error
 *   no marker                    compile_error
 *
 * It counts evaluations and the most that ran at once, so tests can check
 * the worker count. Not part of the library: the real evaluator is the
 * judge (krl_service_judge_evaluator).
 */
#ifndef KRL_TEST_STANDIN_H
#define KRL_TEST_STANDIN_H

#include "krl/service.h"

typedef struct standin standin;

/* A stand-in with nworkers workers; ev is filled to use it. */
standin *standin_new(int nworkers, krl_service_evaluator *ev);
void standin_free(standin *s);
/* Evaluations made so far, and the most that ran at the same time. */
int standin_evals(standin *s);
int standin_max_concurrent(standin *s);
/* The shape sets and seed of the last evaluation ("kb1,tiny", 0). */
void standin_last(standin *s, char *sets, size_t cap, unsigned long long *seed);

#endif
