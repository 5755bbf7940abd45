/* krl check: what the judge does before the GPU, on any machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "krl/judge.h"
#include "krl/nvrtc.h"
#include "krl/suite.h"

static const char check_usage[] =
	"usage: krl check TASK CANDIDATE [options]\n"
	"\n"
	"Does what the judge does before the GPU, on any machine (no GPU needed):\n"
	"parses the candidate, validates its plan on every shape set of the task,\n"
	"applies the include rule (only <name> includes of CUDA toolkit headers)\n"
	"and compiles its device code with NVRTC in the compiler sandbox. Prints\n"
	"the verdict (ok, invalid_plan or compile_error with its reason: parse,\n"
	"plan, include, compile_timeout, compile_resources, nvrtc), or one JSON\n"
	"record. The judge runs the same code at the start of every evaluation.\n"
	"\n"
	"options:\n"
	"  --arch SM             the architecture to compile for (default sm_90a)\n"
	"  --shapes A[,B...]     shape sets to validate (default: all of the task's)\n"
	"  --compile-timeout S   wall-clock deadline of the compilation (default 30)\n"
	"  --compile-memory MIB  memory limit of the compiler (its data; default 4096,\n"
	"                        at least 256)\n"
	"  --no-cache            compile even when the NVRTC cache has the result\n"
	"  --json                print the record as JSON\n"
	"\n"
	"exit status: 0 ok, 1 another verdict, 2 usage error, 3 kernelrl itself\n"
	"failed (bad task, no compiler process).\n";

int krl_cmd_check(int argc, char **argv)
{
	krl_check_opts o = {0};
	krl_judge_opts jo = {0}; /* the compiler's limits, parsed as krl eval's */
	const char *pos[2] = {NULL, NULL};
	int npos = 0, as_json = 0, rc = KRL_EXIT_ERROR;
	char sets_buf[512];
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int valued = !strcmp(s, "--arch") || !strcmp(s, "--shapes");
		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			fputs(check_usage, stdout);
			return KRL_EXIT_OK;
		} else if (!strcmp(s, "--json")) {
			as_json = 1;
		} else if (!strcmp(s, "--no-cache")) {
			o.no_cache = 1;
		} else if (valued && !v) {
			fprintf(stderr, "krl check: %s needs a value\n", s);
			return KRL_EXIT_USAGE;
		} else if (!strcmp(s, "--arch")) {
			o.arch = v;
			i++;
		} else if (!strcmp(s, "--shapes")) {
			int n = krl_cli_shape_list("krl check", v, sets_buf,
			                           sizeof sets_buf, o.sets,
			                           KRL_JUDGE_MAX_SETS);
			if (n < 0)
				return KRL_EXIT_USAGE;
			o.nsets = n;
			i++;
		} else if (!strcmp(s, "--compile-timeout") ||
		           !strcmp(s, "--compile-memory")) {
			char unused[8];
			int used = krl_cli_judge_option(s, v, &jo, unused,
			                                sizeof unused);
			if (used < 0)
				return KRL_EXIT_USAGE;
			i += used - 1;
		} else if (s[0] == '-') {
			fprintf(stderr, "krl check: unknown option '%s' (see krl "
			        "check --help)\n", s);
			return KRL_EXIT_USAGE;
		} else if (npos < 2) {
			pos[npos++] = s;
		} else {
			fprintf(stderr, "krl check: unexpected argument '%s'\n", s);
			return KRL_EXIT_USAGE;
		}
	}
	if (npos != 2) {
		fputs(check_usage, stderr);
		return KRL_EXIT_USAGE;
	}
	/* zero fields: the defaults */
	krl_compile_limits lim = {jo.compile_timeout_s,
	                          (size_t)jo.compile_memory_mib << 20};
	krl_nvrtc_set_limits(&lim);

	krl_suite *suite = NULL;
	krl_task *t = NULL;
	json_t *rec = NULL;
	krl_diag d = {0};
	char buf[1200];
	if (krl_suite_load(NULL, &suite, &d) != KRL_OK ||
	    krl_suite_load_task(suite, pos[0], &t, &d) != KRL_OK ||
	    krl_judge_check(t, pos[1], &o, &rec, &d) != KRL_OK) {
		fprintf(stderr, "krl check: %s\n",
		        krl_diag_format(&d, buf, sizeof buf));
		goto out;
	}
	const char *v = json_string_value(json_object_get(rec, "verdict"));
	if (as_json) {
		char *z = json_dumps(rec, JSON_COMPACT | JSON_REAL_PRECISION(9));
		if (z)
			puts(z);
		free(z);
	} else {
		const char *msg = json_string_value(json_object_get(rec, "message"));
		const char *reason = json_string_value(
			json_object_get(json_object_get(rec, "failure"), "reason"));
		const json_t *comp = json_object_get(rec, "compile");
		printf("%s%s%s  %s  %s\n  %s\n", v, reason ? " " : "",
		       reason ? reason : "",
		       json_string_value(json_object_get(rec, "task")), pos[1],
		       msg ? msg : "");
		if (comp)
			printf("  compile %.1f ms%s, sandbox %s\n",
			       json_number_value(json_object_get(comp, "ms")),
			       json_is_true(json_object_get(comp, "cached"))
			               ? " (cached)"
			               : "",
			       json_is_string(json_object_get(comp, "sandbox"))
			               ? json_string_value(json_object_get(comp,
			                                                   "sandbox"))
			               : "(not run)");
	}
	fflush(stdout);
	rc = strcmp(v, "ok") ? KRL_EXIT_VERDICT : KRL_EXIT_OK;
out:
	json_decref(rec);
	krl_task_free(t);
	krl_suite_free(suite);
	return rc;
}
