/*
 * The degenerate-output audit of tasks (`krl audit-tasks`): computes each
 * task's reference output with the float64 golden ops on the CPU, on inputs
 * and params drawn exactly as the judge draws them, and asks of every output
 * whether a trivial output -- all zero, a constant, or a copy of an input --
 * would pass the task's own tolerance against it. Such a task cannot tell a
 * shortcut from the work: it must be fixed (distributions, tolerance) or
 * declare `degenerate "why"`. The judge makes the same check on the GPU at
 * every evaluation (docs/judge.md); this one needs no GPU and runs in CI.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge_int.h"
#include "krl/runtime.h"

static int is_int(krl_dtype t)
{
	return t == KRL_I32 || t == KRL_I64 || t == KRL_BOOL;
}

/* The judge's element rule (krl_compare), on the host. */
static int close_enough(double c, double r, krl_dtype t, double atol,
                        double rtol)
{
	if (is_int(t))
		return c == r;
	if (isnan(r) || isnan(c))
		return isnan(r) && isnan(c);
	if (isinf(r) || isinf(c))
		return c == r;
	return fabs(c - r) <= atol + rtol * fabs(r);
}

/* Does the constant (alt == NULL: *k) or alt[] pass against ref[0..n)? */
static int passes(const double *alt, double k, const double *ref, int64_t n,
                  krl_dtype t, double atol, double rtol)
{
	for (int64_t i = 0; i < n; i++)
		if (!close_enough(alt ? alt[i] : k, ref[i], t, atol, rtol))
			return 0;
	return 1;
}

krl_err krl_audit_task(const krl_task *t, const char *set,
                       int64_t max_elements, uint64_t seed, json_t *rows,
                       krl_diag *d)
{
	krl_program *p = NULL;
	double **bufs = NULL;
	krl_limits lim = krl_limits_sm90();
	krl_err r = krl_program_build(t, NULL, set, &lim, &p, d);
	if (r != KRL_OK)
		return r;
	int64_t total = 0;
	for (int i = 0; i < p->nbufs; i++)
		if (p->bufs[i].role != KRL_ROLE_VIEW)
			total += p->bufs[i].numel;
	/* The golden ops run about 1e9 simple operations a second: bound the
	 * work as well as the memory. */
	if (total > max_elements || p->flops > 16.0 * (double)max_elements) {
		r = krl_diag_set(d, KRL_EUNSUPPORTED, (krl_pos){t->path, 0, 0},
		                 "%s at %s has %lld elements and %.3g flops, above "
		                 "the CPU audit's limits (%lld elements, %.3g flops)",
		                 t->id ? t->id : t->name, set, (long long)total,
		                 p->flops, (long long)max_elements,
		                 16.0 * (double)max_elements);
		goto out;
	}
	bufs = calloc((size_t)p->nbufs, sizeof *bufs);
	if (!bufs) {
		r = KRL_ENOMEM;
		goto out;
	}
	for (int i = 0; i < p->nbufs; i++)
		if (p->bufs[i].role != KRL_ROLE_VIEW &&
		    !(bufs[i] = calloc((size_t)(p->bufs[i].numel ? p->bufs[i].numel : 1),
		                       sizeof **bufs))) {
			r = KRL_ENOMEM;
			goto out;
		}
	krl_judge_draw_host(p, bufs, KRL_ROLE_PARAM, seed, NULL, NULL);
	krl_judge_draw_host(p, bufs, KRL_ROLE_INPUT, seed + 1, NULL, NULL);
	if ((r = krl_exec_golden(p, bufs, d)) != KRL_OK)
		goto out;
	for (int i = 0; i < p->ntask; i++) {
		const krl_buf *b = &p->bufs[i];
		const char *flag = NULL;
		if (b->role != KRL_ROLE_OUTPUT)
			continue;
		double maxabs = 0;
		for (int64_t k = 0; k < b->numel; k++)
			if (fabs(bufs[i][k]) > maxabs)
				maxabs = fabs(bufs[i][k]);
		if (passes(NULL, 0, bufs[i], b->numel, b->dtype, t->atol, t->rtol))
			flag = "all zero";
		else if (b->numel > 1 && isfinite(bufs[i][0]) &&
		         passes(NULL, bufs[i][0], bufs[i], b->numel, b->dtype,
		                t->atol, t->rtol))
			flag = "constant";
		for (int k = 0; k < p->ntask && !flag; k++) {
			const krl_buf *in = &p->bufs[k];
			if (in->role == KRL_ROLE_INPUT && in->dtype == b->dtype &&
			    in->numel == b->numel &&
			    passes(bufs[k], 0, bufs[i], b->numel, b->dtype, t->atol,
			           t->rtol))
				flag = "a copy of an input";
		}
		json_array_append_new(
			rows, json_pack("{s:s, s:s, s:s, s:o, s:b, s:f}", "task",
			                t->id ? t->id : t->name, "set", set, "output",
			                b->name, "flag",
			                flag ? json_string(flag) : json_null(),
			                "declared", t->degenerate != NULL, "max_abs",
			                maxabs));
	}
out:
	if (bufs)
		for (int i = 0; i < p->nbufs; i++)
			if (p->bufs[i].role != KRL_ROLE_VIEW)
				free(bufs[i]);
	free(bufs);
	krl_program_free(p);
	return r;
}
