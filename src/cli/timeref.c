/* krl time-ref: the eager reference timed alone, as the judge times it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "krl/judge.h"
#include "krl/suite.h"

static const char timeref_usage[] =
	"usage: krl time-ref TASK... [--shapes S] [--reps N] [--timing MODE] [--json]\n"
	"\n"
	"Times each task's eager reference alone on shape set S (default kb1) with\n"
	"the judge's protocol: fresh inputs and a flushed L2 before each of N timed\n"
	"calls (default 30), CUDA events on the stream, median. --timing as krl eval's:\n"
	"stream, graph (the plan captured once in a CUDA graph after an uncaptured\n"
	"call, every timed call a replay) or auto (default: graph for level-3\n"
	"tasks, stream for the others). Needs a GPU.\n";

int krl_cmd_time_ref(int argc, char **argv)
{
	krl_judge_opts o = {0};
	const char *set = "kb1";
	int reps = 30, json = 0, nrefs = 0, rc = KRL_EXIT_OK;
	const char *refs[512];
	krl_suite *s = NULL;
	krl_judge *j = NULL;
	krl_diag d = {0};
	char buf[1200];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(timeref_usage, stdout);
			return KRL_EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--shapes") && v) {
			set = v;
			i++;
		} else if (!strcmp(a, "--timing") && v) {
			if (krl_timing_parse(v, &o.timing) != 0) {
				fprintf(stderr, "krl time-ref: --timing needs "
				        "stream, graph or auto, got '%s'\n", v);
				return KRL_EXIT_USAGE;
			}
			i++;
		} else if (!strcmp(a, "--reps") && v) {
			reps = atoi(v);
			i++;
		} else if (a[0] != '-' && nrefs < 512) {
			refs[nrefs++] = a;
		} else {
			fputs(timeref_usage, stderr);
			return KRL_EXIT_USAGE;
		}
	}
	if (!nrefs) {
		fputs(timeref_usage, stderr);
		return KRL_EXIT_USAGE;
	}
	o.sets[0] = set;
	o.nsets = 1;
	if (krl_suite_load(NULL, &s, &d) != KRL_OK ||
	    krl_judge_create(&o, &j, &d) != KRL_OK) {
		fprintf(stderr, "krl time-ref: %s\n",
		        krl_diag_format(&d, buf, sizeof buf));
		krl_suite_free(s);
		return KRL_EXIT_ERROR;
	}
	for (int k = 0; k < nrefs; k++) {
		krl_task *t = NULL;
		json_t *rec = NULL;
		if (krl_suite_load_task(s, refs[k], &t, &d) != KRL_OK ||
		    krl_judge_time_reference(j, t, set, reps, &rec, &d) != KRL_OK) {
			fprintf(stderr, "krl time-ref: %s: %s\n", refs[k],
			        krl_diag_format(&d, buf, sizeof buf));
			rc = KRL_EXIT_ERROR;
		} else if (json) {
			char *z = json_dumps(rec, JSON_COMPACT);
			puts(z);
			free(z);
		} else {
			json_t *m = json_object_get(rec, "ref_ms");
			printf("%-34s %-5s %-6s %10.4f ms (mean %.4f, min %.4f, "
			       "n %d)  roofline %.2f\n", t->id, set,
			       json_string_value(json_object_get(rec,
			                                         "timing_mode")),
			       json_number_value(json_object_get(m, "median")),
			       json_number_value(json_object_get(m, "mean")),
			       json_number_value(json_object_get(m, "min")),
			       (int)json_integer_value(json_object_get(m, "n")),
			       json_number_value(json_object_get(rec, "roofline")));
		}
		fflush(stdout);
		json_decref(rec);
		krl_task_free(t);
	}
	krl_judge_free(j);
	krl_suite_free(s);
	return rc;
}
