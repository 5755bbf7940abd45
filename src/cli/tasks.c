/* krl tasks, krl show: the suite and one task resolved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "krl/judge.h"
#include "krl/ops.h"
#include "krl/suite.h"
#include "util/strbuf.h"

int krl_cmd_tasks(int argc, char **argv)
{
	krl_suite *s = NULL;
	krl_diag d = {0};
	char buf[1200];
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: krl tasks\n\nLists every task of the suite: id, name, "
		     "shape sets, outputs.");
		return KRL_EXIT_OK;
	}
	if (krl_suite_load(NULL, &s, &d) != KRL_OK) {
		fprintf(stderr, "krl tasks: %s\n", krl_diag_format(&d, buf, sizeof buf));
		return KRL_EXIT_ERROR;
	}
	int bad = 0;
	printf("%-28s %-22s %s\n", "ID", "NAME", "SHAPE SETS");
	for (int i = 0; i < s->n; i++) {
		krl_task *t = NULL;
		if (krl_task_load(s->paths[i], &t, &d) != KRL_OK) {
			printf("%-28s (does not parse: %s)\n", s->ids[i],
			       krl_diag_format(&d, buf, sizeof buf));
			bad++;
			continue;
		}
		krl_strbuf sets = { 0 };
		for (int k = 0; k < t->nsets; k++)
			krl_strbuf_printf(&sets, "%s%s", k ? "," : "",
			                  t->sets[k].name);
		char *z = krl_strbuf_take(&sets);
		printf("%-28s %-22s %s%s\n", s->ids[i], t->name,
		       z ? z : "(out of memory)",
		       t->degenerate ? "  (degenerate output, declared)" : "");
		free(z);
		krl_task_free(t);
	}
	printf("%d tasks\n", s->n);
	krl_suite_free(s);
	return bad ? KRL_EXIT_ERROR : KRL_EXIT_OK;
}

static void print_shape(const krl_buf *b)
{
	printf("%s [", krl_dtype_name(b->dtype));
	for (int k = 0; k < b->ndim; k++)
		printf("%s%lld", k ? ", " : "", (long long)b->dim[k]);
	printf("]");
}

int krl_cmd_show(int argc, char **argv)
{
	const char *ref = NULL, *set = "kb1";
	krl_suite *s = NULL;
	krl_task *t = NULL;
	krl_program *p = NULL;
	krl_diag d = {0};
	char buf[1200];
	int rc = KRL_EXIT_ERROR;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--shapes") && i + 1 < argc)
			set = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			puts("usage: krl show TASK [--shapes SET]\n\nPrints the task "
			     "resolved for one shape set (default kb1): buffers with "
			     "concrete shapes,\ndistributions, tolerance, minimal "
			     "bytes/flops and the reference plan.");
			return KRL_EXIT_OK;
		} else if (!ref && argv[i][0] != '-')
			ref = argv[i];
		else {
			fprintf(stderr, "krl show: unexpected argument '%s'\n", argv[i]);
			return KRL_EXIT_USAGE;
		}
	}
	if (!ref) {
		fprintf(stderr, "usage: krl show TASK [--shapes SET]\n");
		return KRL_EXIT_USAGE;
	}
	krl_limits lim = krl_limits_sm90();
	if (krl_suite_load(NULL, &s, &d) != KRL_OK ||
	    krl_suite_load_task(s, ref, &t, &d) != KRL_OK ||
	    krl_program_build(t, NULL, set, &lim, &p, &d) != KRL_OK) {
		fprintf(stderr, "krl show: %s\n", krl_diag_format(&d, buf, sizeof buf));
		goto out;
	}
	printf("task %s (%s)\n", t->id, t->name);
	if (t->source)
		printf("source %s\n", t->source);
	printf("shapes %s:", set);
	const krl_shapeset *ss = krl_task_shapeset(t, set);
	for (int k = 0; ss && k < ss->n; k++)
		printf(" %s=%lld", ss->keys[k], (long long)ss->vals[k]);
	printf("\n");
	/* the judge's timing mode for this task (docs/judge.md) */
	printf("timing %s (the default, --timing auto: graph for level 3, "
	       "stream otherwise)\n",
	       krl_timing_name(krl_judge_timing_for(KRL_TIMING_AUTO, t)));
	static const char *const roles[] = {"input", "param", "output", "buffer",
	                                    "derived", "view"};
	static const char *const dists[] = {"", "normal", "uniform", "randint",
	                                    "bernoulli", "const", "tril", "triu",
	                                    "arange", "swin_coords", "swin_index",
	                                    "swin_mask"};
	for (int i = 0; i < p->nbufs; i++) {
		const krl_buf *b = &p->bufs[i];
		printf("%-7s %-10s ", roles[b->role], b->name);
		print_shape(b);
		if (b->role == KRL_ROLE_VIEW)
			printf("  = %s+%lld", p->bufs[b->alias].name,
			       (long long)b->offset);
		if (b->dist.kind >= KRL_DIST_SWIN_COORDS)
			printf("  %s(%g, %g, %lld, %lld)", dists[b->dist.kind],
			       b->dist.a, b->dist.b, (long long)b->dist.rows,
			       (long long)b->dist.cols);
		else if (b->dist.kind != KRL_DIST_NONE)
			printf("  %s(%g, %g)", dists[b->dist.kind], b->dist.a, b->dist.b);
		printf("  %.3f MB\n", b->bytes / 1e6);
	}
	printf("tolerance atol=%g rtol=%g\n", t->atol, t->rtol);
	printf("minimal bytes %.6g (%.3f GB), flops %.6g\n", p->bytes,
	       p->bytes / 1e9, p->flops);
	if (t->degenerate)
		printf("degenerate: %s\n", t->degenerate);
	krl_stress_print(stdout, t, p);
	printf("reference plan:\n");
	for (int i = 0; i < p->nbody; i++) {
		const krl_step *st = &p->body[i];
		printf("  call %s(", st->op->name);
		for (int k = 0; k < st->nin; k++)
			printf("%s%s", k ? ", " : "", p->bufs[st->in[k]].name);
		printf(") -> ");
		for (int k = 0; k < st->nout; k++)
			printf("%s%s", k ? ", " : "", p->bufs[st->out[k]].name);
		for (int k = 0; k < st->attrs.n; k++)
			printf(" %s=%g", st->attrs.key[k], st->attrs.val[k]);
		printf("\n");
	}
	rc = KRL_EXIT_OK;
out:
	krl_program_free(p);
	krl_task_free(t);
	krl_suite_free(s);
	return rc;
}
