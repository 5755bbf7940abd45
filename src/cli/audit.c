/* krl audit-tasks: the degenerate-output audit of the suite. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "krl/judge.h"
#include "krl/suite.h"

static const char audit_usage[] =
	"usage: krl audit-tasks [--shapes tiny[,kb0...]] [--max-elements N] [--json] [TASK...]\n"
	"\n"
	"For every task (or those named), computes the reference output on the CPU\n"
	"with the float64 golden ops, on inputs drawn as the judge draws them, and\n"
	"reports each output that an all-zero, constant or input-copy output would\n"
	"match within the task's own tolerance: such a task cannot tell a shortcut\n"
	"from the work and must be fixed or declare `degenerate \"why\"`. Sets with\n"
	"more than --max-elements elements (default 16777216) or 16 times as many\n"
	"flops are skipped and said so. The judge\n"
	"repeats the check on the GPU at every evaluation, at full size.\n"
	"exit status: 0 when no undeclared task is flagged, 1 otherwise.\n";

int krl_cmd_audit_tasks(int argc, char **argv)
{
	char sets_buf[256];
	const char *sets[16] = {"tiny"};
	int nsets = 1, json = 0, nrefs = 0, undeclared = 0, skipped = 0;
	const char *refs[256];
	int64_t max_elements = 1 << 24;
	krl_suite *s = NULL;
	krl_diag d = {0};
	char buf[1200];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(audit_usage, stdout);
			return KRL_EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--shapes") && v) {
			nsets = krl_cli_shape_list("krl audit-tasks", v, sets_buf,
			                           sizeof sets_buf, sets, 16);
			if (nsets < 0)
				return KRL_EXIT_USAGE;
			i++;
		} else if (!strcmp(a, "--max-elements") && v) {
			max_elements = strtoll(v, NULL, 0);
			i++;
		} else if (a[0] != '-' && nrefs < 256) {
			refs[nrefs++] = a;
		} else {
			fputs(audit_usage, stderr);
			return KRL_EXIT_USAGE;
		}
	}
	if (krl_suite_load(NULL, &s, &d) != KRL_OK) {
		fprintf(stderr, "krl audit-tasks: %s\n",
		        krl_diag_format(&d, buf, sizeof buf));
		return KRL_EXIT_ERROR;
	}
	json_t *rows = json_array();
	int n = nrefs ? nrefs : s->n;
	for (int k = 0; k < n; k++) {
		krl_task *t = NULL;
		if (krl_suite_load_task(s, nrefs ? refs[k] : s->ids[k], &t, &d) !=
		    KRL_OK) {
			fprintf(stderr, "krl audit-tasks: %s\n",
			        krl_diag_format(&d, buf, sizeof buf));
			undeclared++;
			continue;
		}
		for (int j = 0; j < nsets; j++) {
			krl_err r = krl_audit_task(t, sets[j], max_elements, 1, rows, &d);
			if (r == KRL_EUNSUPPORTED) {
				skipped++;
				if (!json)
					printf("%-34s %-6s skipped: %s\n", t->id, sets[j], d.msg);
			} else if (r != KRL_OK) {
				fprintf(stderr, "krl audit-tasks: %s: %s\n", t->id,
				        krl_diag_format(&d, buf, sizeof buf));
				undeclared++;
			}
		}
		krl_task_free(t);
	}
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row) {
		const char *flag = json_string_value(json_object_get(row, "flag"));
		int declared = json_is_true(json_object_get(row, "declared"));
		if (flag && !declared)
			undeclared++;
		if (json) {
			char *z = json_dumps(row, JSON_COMPACT);
			puts(z);
			free(z);
		} else if (flag) {
			printf("%-34s %-6s output %-8s would pass as %s%s\n",
			       json_string_value(json_object_get(row, "task")),
			       json_string_value(json_object_get(row, "set")),
			       json_string_value(json_object_get(row, "output")), flag,
			       declared ? " (declared degenerate)" : "  <-- UNDECLARED");
		}
	}
	fprintf(json ? stderr : stdout,
	        "%zu outputs audited, %d undeclared degenerate, %d sets skipped\n",
	        json_array_size(rows), undeclared, skipped);
	json_decref(rows);
	krl_suite_free(s);
	return undeclared ? KRL_EXIT_VERDICT : KRL_EXIT_OK;
}
