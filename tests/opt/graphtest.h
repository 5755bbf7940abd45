/*
 * Helpers of the optimizer's CPU tests (tests/opt/): a task's golden
 * reference on drawn inputs, and a graph's interpreted outputs compared
 * with it. Header-only, included by each test file.
 */
#ifndef KRL_TEST_GRAPHTEST_H
#define KRL_TEST_GRAPHTEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge_int.h"
#include "krl/opt.h"
#include "krl/runtime.h"
#include "opt/opt_int.h"
#include "testutil.h"

/* Golden buffers of one task at one set: drawn inputs and params, and the
 * reference outputs. */
typedef struct gt_run {
	krl_program *p;
	double **bufs;
} gt_run;

static inline void gt_free(gt_run *r)
{
	for (int i = 0; r->bufs && r->p && i < r->p->nbufs; i++)
		free(r->bufs[i]);
	free(r->bufs);
	krl_program_free(r->p);
	memset(r, 0, sizeof *r);
}

static inline krl_err gt_golden(const krl_task *t, const char *set,
                                uint64_t seed, gt_run *r, krl_diag *d)
{
	krl_limits lim = krl_limits_sm90();
	memset(r, 0, sizeof *r);
	krl_err e = krl_program_build(t, NULL, set, &lim, &r->p, d);
	if (e)
		return e;
	r->bufs = calloc((size_t)r->p->nbufs, sizeof *r->bufs);
	if (!r->bufs)
		return KRL_ENOMEM;
	for (int i = 0; i < r->p->nbufs; i++) {
		int64_t n = r->p->bufs[i].numel ? r->p->bufs[i].numel : 1;
		if (!(r->bufs[i] = calloc((size_t)n, sizeof **r->bufs)))
			return KRL_ENOMEM;
	}
	krl_judge_draw_host(r->p, r->bufs, KRL_ROLE_PARAM, seed, NULL, NULL);
	krl_judge_draw_host(r->p, r->bufs, KRL_ROLE_INPUT, seed + 1, NULL, NULL);
	return krl_exec_golden(r->p, r->bufs, d);
}

/* Runs g at set on copies of r's inputs; compares with r's outputs.
 * Returns the number of elements that differ (printing the first). */
static inline int64_t gt_check(const krl_graph *g, const char *set,
                               const gt_run *r, const char *id, krl_diag *d)
{
	const krl_program *p = r->p;
	double **mine = calloc((size_t)p->ntask, sizeof *mine);
	int64_t bad = 0;
	char buf[1200];
	assert_non_null(mine);
	for (int i = 0; i < p->ntask; i++) {
		int64_t n = p->bufs[i].numel ? p->bufs[i].numel : 1;
		mine[i] = malloc((size_t)n * sizeof **mine);
		assert_non_null(mine[i]);
		if (p->bufs[i].role == KRL_ROLE_OUTPUT)
			for (int64_t k = 0; k < n; k++)
				mine[i][k] = NAN;
		else
			memcpy(mine[i], r->bufs[i], (size_t)n * sizeof **mine);
	}
	krl_err e = krl_graph_interp(g, set, mine, d);
	if (e) {
		fprintf(stderr, "%s: interp: %s\n", id,
		        krl_diag_format(d, buf, sizeof buf));
		bad = 1;
	}
	for (int i = 0; !e && i < p->ntask; i++) {
		if (p->bufs[i].role != KRL_ROLE_OUTPUT)
			continue;
		double mx = 0;
		for (int64_t k = 0; k < p->bufs[i].numel; k++)
			mx = fmax(mx, fabs(r->bufs[i][k]));
		for (int64_t k = 0; k < p->bufs[i].numel; k++) {
			double a = mine[i][k], b = r->bufs[i][k];
			int ok = (isnan(a) && isnan(b)) || a == b ||
			         fabs(a - b) <= 1e-9 * fabs(b) + 1e-12 * (1 + mx);
			if (!ok && !bad++)
				fprintf(stderr, "%s: %s[%lld] = %.17g, golden %.17g\n",
				        id, p->bufs[i].name, (long long)k, a, b);
			bad += !ok && bad > 1;
		}
	}
	for (int i = 0; i < p->ntask; i++)
		free(mine[i]);
	free(mine);
	return bad;
}

#endif
