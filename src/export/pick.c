/*
 * kernelrl export: which stored candidate to export (docs/export.md): the
 * ok evaluation of a task with the highest measured speedup, in one run or
 * in all of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/export.h"

static const krl_pos nopos = { 0, 0, 0 };

typedef struct pick_ctx {
	const char *task;
	krl_export_pick *best;
	int found;
	int64_t evals;           /* evaluations of the task, any verdict */
} pick_ctx;

static int pick_row(const krl_eval_row *row, void *ctx)
{
	pick_ctx *p = ctx;
	if (strcmp(row->task, p->task) != 0)
		return 0;
	p->evals++;
	if (strcmp(row->verdict, "ok") != 0 || !row->cand_hash[0])
		return 0;
	if (p->found && row->speedup <= p->best->speedup)
		return 0;
	p->found = 1;
	memcpy(p->best->hash, row->cand_hash, sizeof p->best->hash);
	p->best->speedup = row->speedup;
	p->best->ci_low = row->ci_low;
	p->best->ci_high = row->ci_high;
	return 0;
}

krl_err krl_export_best(krl_store *st, const char *task_id, const char *run,
                        krl_export_pick *out, krl_diag *d)
{
	memset(out, 0, sizeof *out);
	int64_t run_id = 0;
	krl_err e;
	if (run) {
		if ((e = krl_store_run_find(st, run, &run_id, d)))
			return e == KRL_ENOTFOUND
			       ? krl_diag_set(d, e, nopos, "no run named '%s' in "
			                      "the store", run)
			       : e;
		snprintf(out->run, sizeof out->run, "%s", run);
	}
	pick_ctx p = { task_id, out, 0, 0 };
	if ((e = krl_store_foreach_eval(st, run_id, pick_row, &p, d)))
		return e;
	if (!p.found)
		return krl_diag_set(d, KRL_ENOTFOUND, nopos,
		                    "no stored candidate of %s with verdict ok%s%s "
		                    "(%lld evaluation%s of it); run krl optimize "
		                    "first or pass --candidate FILE.cu", task_id,
		                    run ? " in run " : "", run ? run : "",
		                    (long long)p.evals, p.evals == 1 ? "" : "s");
	return krl_store_get_candidate(st, out->hash, &out->source, d);
}
