/*
 * bench/plan_profile: where a task's reference plan spends its time, one
 * statement at a time (GPU). For finding why a reference is slower or
 * faster than PyTorch eager (issue 21's parity), not for speedups: each
 * statement is timed alone between CUDA events, with the other statements'
 * results left in place, after one warm-up run of the whole plan. Buffers
 * are zero-filled, not drawn, so data-dependent ops (index_select, pooling
 * ties) may time differently from a judged call.
 *
 *   plan_profile TASK [--shapes S] [--reps N] [--top K] [--candidate FILE]
 *
 * With --candidate, FILE's plan instead of the reference's: its device
 * code compiled with NVRTC for this GPU, its launches timed as statements
 * too; its init part, if any, runs once first (from the zero params: the
 * derived buffers are zeros transformed, which times as any other
 * values for the dense kernels and library calls this is for).
 * Prints the whole plan's time (events around one run of every statement),
 * the sum of the per-statement times, and the K slowest statements with
 * their op, line and share, then per op name the count and total.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/lang.h"
#include "krl/nvrtc.h"
#include "krl/ops.h"
#include "krl/runtime.h"
#include "krl/suite.h"

typedef struct row {
	int step;
	double ms;
} row;

static int by_ms_desc(const void *a, const void *b)
{
	double x = ((const row *)a)->ms, y = ((const row *)b)->ms;
	return (x < y) - (x > y);
}

static const char *step_name(const krl_step *s)
{
	return s->src && s->src->name ? s->src->name : "?";
}

/* Runs steps[0..n) of p `reps` times and returns the median of their
 * event-timed milliseconds, or a negative value after a failure (d says
 * which). */
static double time_steps(const krl_program *p, const krl_step *steps, int n,
                         void *const *ptr, const krl_module *mod,
                         krl_opctx *ops, cudaStream_t s, int reps,
                         krl_diag *d)
{
	cudaEvent_t a, b;
	double best[64];
	if (reps > 64)
		reps = 64;
	cudaEventCreate(&a);
	cudaEventCreate(&b);
	for (int r = 0; r < reps; r++) {
		float ms = 0;
		cudaEventRecord(a, s);
		if (krl_exec(p, steps, n, ptr, mod, ops, s, d) != KRL_OK)
			return -1;
		cudaEventRecord(b, s);
		if (cudaEventSynchronize(b) != cudaSuccess)
			return -1;
		cudaEventElapsedTime(&ms, a, b);
		best[r] = ms;
	}
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	/* the median, by insertion sort (reps is small) */
	for (int i = 1; i < reps; i++)
		for (int k = i; k > 0 && best[k] < best[k - 1]; k--) {
			double t = best[k];
			best[k] = best[k - 1];
			best[k - 1] = t;
		}
	return best[reps / 2];
}

int main(int argc, char **argv)
{
	const char *id = NULL, *set = "kb1", *cpath = NULL;
	int reps = 5, top = 15;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--shapes") && i + 1 < argc)
			set = argv[++i];
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--top") && i + 1 < argc)
			top = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--candidate") && i + 1 < argc)
			cpath = argv[++i];
		else if (argv[i][0] != '-' && !id)
			id = argv[i];
		else {
			fprintf(stderr, "usage: plan_profile TASK [--shapes S] "
			        "[--reps N] [--top K] [--candidate FILE]\n");
			return 2;
		}
	}
	if (!id) {
		fprintf(stderr, "usage: plan_profile TASK [--shapes S] [--reps N] "
		        "[--top K] [--candidate FILE]\n");
		return 2;
	}
	if (reps < 1)
		reps = 1;
	char msg[2048];
	krl_diag d = { 0 };
	krl_suite *suite = NULL;
	krl_task *t = NULL;
	krl_program *p = NULL;
	krl_candidate *cand = NULL;
	krl_cubin *cu = NULL;
	krl_module *mod = NULL;
	krl_device dev;
	krl_opctx *ops = NULL;
	cudaStream_t s = NULL;
	void **ptr = NULL;
	row *rows = NULL;
	int rc = 1;
	const char *root = getenv("KRL_TASKS");
	if (krl_suite_load(root ? root : "tasks", &suite, &d) != KRL_OK ||
	    krl_suite_load_task(suite, id, &t, &d) != KRL_OK ||
	    krl_device_open(0, &dev, &d) != KRL_OK ||
	    (cpath && krl_candidate_load(cpath, &cand, &d) != KRL_OK) ||
	    krl_program_build(t, cand, set, &dev.limits, &p, &d) != KRL_OK)
		goto fail;
	if (cand) {
		if (krl_nvrtc_compile(cand->source, cand->len, cpath, dev.arch,
		                      krl_cache_dir(), &cu, &d) != KRL_OK ||
		    krl_module_load(cu, cand, &mod, &d) != KRL_OK ||
		    krl_exec_prepare(p, mod, &d) != KRL_OK)
			goto fail;
	}
	cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
	if (krl_opctx_create(s, &ops, &d) != KRL_OK)
		goto fail;
	ptr = calloc((size_t)p->nbufs, sizeof *ptr);
	rows = calloc((size_t)p->nbody + 1, sizeof *rows);
	if (!ptr || !rows) {
		fprintf(stderr, "plan_profile: out of memory\n");
		goto out;
	}
	size_t total = 0;
	for (int i = 0; i < p->nbufs; i++) {
		if (p->bufs[i].role == KRL_ROLE_VIEW)
			continue;
		size_t n = p->bufs[i].bytes ? p->bufs[i].bytes : 16;
		if (cudaMalloc(&ptr[i], n) != cudaSuccess ||
		    cudaMemset(ptr[i], 0, n) != cudaSuccess) {
			fprintf(stderr, "plan_profile: %s: cannot allocate %zu bytes "
			        "for %s\n", id, n, p->bufs[i].name);
			goto out;
		}
		total += n;
	}
	krl_program_bind_views(p, ptr, 0);
	/* the candidate's init part once, as the judge runs it before timing */
	if (p->ninit &&
	    time_steps(p, p->init, p->ninit, ptr, mod, ops, s, 1, &d) < 0)
		goto fail;
	/* one warm-up run: plan caches, workspaces, cuDNN heuristics */
	if (time_steps(p, p->body, p->nbody, ptr, mod, ops, s, 1, &d) < 0)
		goto fail;
	double whole = time_steps(p, p->body, p->nbody, ptr, mod, ops, s, reps,
	                          &d);
	if (whole < 0)
		goto fail;
	double sum = 0;
	for (int i = 0; i < p->nbody; i++) {
		rows[i].step = i;
		rows[i].ms = time_steps(p, p->body + i, 1, ptr, mod, ops, s, reps,
		                        &d);
		if (rows[i].ms < 0)
			goto fail;
		sum += rows[i].ms;
	}
	printf("%s at %s: %d statements, %.1f MB of buffers, whole plan %.4f ms, "
	       "sum of statements %.4f ms\n", id, set, p->nbody,
	       (double)total / 1e6, whole, sum);
	qsort(rows, (size_t)p->nbody, sizeof *rows, by_ms_desc);
	for (int k = 0; k < top && k < p->nbody; k++) {
		const krl_step *st = p->body + rows[k].step;
		printf("  %8.4f ms %5.1f%%  line %-5d %s\n", rows[k].ms,
		       sum > 0 ? 100 * rows[k].ms / sum : 0,
		       st->src ? st->src->pos.line : 0, step_name(st));
	}
	/* per op name: count and total, in order of total */
	printf("  by op:\n");
	for (int k = 0; k < p->nbody; k++) {
		const char *nm = step_name(p->body + rows[k].step);
		int seen = 0;
		for (int q = 0; q < k && !seen; q++)
			seen = !strcmp(nm, step_name(p->body + rows[q].step));
		if (seen)
			continue;
		int cnt = 0;
		double tot = 0;
		for (int q = k; q < p->nbody; q++)
			if (!strcmp(nm, step_name(p->body + rows[q].step))) {
				cnt++;
				tot += rows[q].ms;
			}
		printf("    %-22s %4d calls %9.4f ms %5.1f%%\n", nm, cnt, tot,
		       sum > 0 ? 100 * tot / sum : 0);
	}
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "plan_profile: %s\n", krl_diag_format(&d, msg, sizeof msg));
out:
	if (ptr)
		for (int i = 0; p && i < p->nbufs; i++)
			if (p->bufs[i].role != KRL_ROLE_VIEW)
				cudaFree(ptr[i]);
	free(ptr);
	free(rows);
	krl_opctx_free(ops);
	if (s)
		cudaStreamDestroy(s);
	krl_program_free(p);
	krl_module_free(mod);
	krl_cubin_free(cu);
	krl_candidate_free(cand);
	krl_task_free(t);
	krl_suite_free(suite);
	return rc;
}
