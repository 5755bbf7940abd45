/*
 * The builtin search as the krl tool runs it (krl optimize, krl train):
 * one task optimized with the judge, the results table, the --results
 * lines, and the judge's options renamed where the search takes the name.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

int krl_cli_round0(const char *cmd, const char *v, krl_builtin_opts *o)
{
	if (v && (!strcmp(v, "fixed") || !strcmp(v, "policy"))) {
		o->round0_policy = !strcmp(v, "policy");
		return 0;
	}
	fprintf(stderr, "krl %s: --round0 is fixed or policy, not '%s'\n", cmd,
	        v ? v : "");
	return -1;
}

krl_err krl_cli_search(const krl_suite *s, const char *ref, krl_judge *j,
                       krl_store *st, krl_policy *pol,
                       const krl_builtin_opts *o, json_t **summary,
                       krl_diag *d)
{
	krl_task *t = NULL;
	krl_opt *opt = NULL;
	*summary = NULL;
	krl_err e = krl_suite_load_task(s, ref, &t, d);
	if (e == KRL_OK)
		e = krl_opt_create(t, o->shapes ? o->shapes : "kb1", &opt, d);
	if (e == KRL_OK) {
		krl_generator gen = krl_opt_generator(opt);
		krl_evaluator ev = krl_judge_evaluator(j);
		e = krl_optimize_builtin(t, &gen, pol, &ev, st, o, summary, d);
	}
	krl_opt_free(opt);
	krl_task_free(t);
	return e;
}

/* ==== The table ==== */

static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

void krl_cli_table_header(FILE *f)
{
	fprintf(f, "%-30s %10s %10s  %-26s %8s  %s\n", "problem", "ref ms",
	        "best ms", "speedup [95% CI]", "roofline", "what the best did");
}

void krl_cli_table_row(FILE *f, const char *problem, const json_t *sum,
                       const char *error)
{
	char sp[64], ref[32], best[32], roof[32];
	if (!sum) {
		fprintf(f, "%-30s %10s %10s  %-26s %8s  not optimized: %s\n", problem,
		        "-", "-", "-", "-", error ? error : "");
		return;
	}
	double x = num(sum, "speedup"), rf = num(sum, "roofline");
	if (!isnan(x))
		snprintf(sp, sizeof sp, "%.3fx [%.3f, %.3f]", x, num(sum, "ci_low"),
		         num(sum, "ci_high"));
	else
		snprintf(sp, sizeof sp, "no correct candidate");
	snprintf(ref, sizeof ref, "%.4f", num(sum, "ref_ms"));
	snprintf(best, sizeof best, "%.4f", num(sum, "best_ms"));
	snprintf(roof, sizeof roof, "%.0f%%", 100 * rf);
	const char *what = json_string_value(json_object_get(sum, "what"));
	fprintf(f, "%-30s %10s %10s  %-26s %8s  %s\n", problem,
	        isnan(x) ? "-" : ref, isnan(x) ? "-" : best, sp,
	        isnan(rf) ? "-" : roof,
	        what ? what
	             : json_string_value(json_object_get(sum, "verdict")));
}

/* ==== Results lines ==== */

/* The commit results are recorded against: $KRL_COMMIT when set (a GPU
 * machine runs a copied working tree whose git state may be older than
 * the binaries: bench/run_gpu.sh sets it from .commit), else `git
 * rev-parse HEAD`, else "unknown". */
const char *krl_cli_commit(void)
{
	static char rev[128];
	if (rev[0])
		return rev;
	const char *env = getenv("KRL_COMMIT");
	if (env && *env && strlen(env) < sizeof rev) {
		snprintf(rev, sizeof rev, "%s", env);
		return rev;
	}
	snprintf(rev, sizeof rev, "unknown");
	FILE *p = popen("git rev-parse HEAD 2>/dev/null", "r");
	if (!p)
		return rev;
	char buf[128];
	if (fgets(buf, sizeof buf, p)) {
		buf[strcspn(buf, "\r\n")] = 0;
		if (strlen(buf) == 40)
			snprintf(rev, sizeof rev, "%s", buf);
	}
	pclose(p);
	return rev;
}

void krl_cli_date(char buf[32])
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *copy_num(const json_t *sum, const char *k)
{
	const json_t *v = json_object_get(sum, k);
	return json_is_number(v) ? json_real(json_number_value(v)) : json_null();
}

krl_err krl_cli_results_line(const char *path, const char *problem,
                             const char *shapes, const char *timing,
                             const json_t *sum,
                             const char *error, krl_diag *d)
{
	char date[32];
	krl_cli_date(date);
	json_t *line = json_pack(
		"{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:I, s:s, s:s}",
		"problem", problem, "shapes", shapes, "timing",
		timing ? timing : "stream", "ref_ms",
		copy_num(sum, "ref_ms"), "best_ms", copy_num(sum, "best_ms"),
		"speedup", copy_num(sum, "speedup"), "ci_low",
		copy_num(sum, "ci_low"), "ci_high", copy_num(sum, "ci_high"),
		"roofline", copy_num(sum, "roofline"), "verdict",
		sum ? json_string_value(json_object_get(sum, "verdict"))
		    : (error ? error : "error"),
		"evaluations",
		(json_int_t)(sum ? json_integer_value(json_object_get(sum,
		                                                      "evaluations"))
		                 : 0),
		"commit", krl_cli_commit(), "date", date);
	/* the GPU it was measured on, where the search says */
	static const char *const gpu_keys[] = { "gpu", "gpu_uuid", "device" };
	for (size_t i = 0; line && i < 3; i++) {
		json_t *v = json_object_get(sum, gpu_keys[i]);
		if (v)
			json_object_set(line, gpu_keys[i], v);
	}
	char *z = line ? json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER |
	                                      JSON_REAL_PRECISION(9))
	               : NULL;
	json_decref(line);
	if (!z)
		return KRL_ENOMEM;
	FILE *f = fopen(path, "a");
	int bad = !f || fprintf(f, "%s\n", z) < 0;
	if (f)
		bad |= fclose(f) != 0;
	free(z);
	if (bad)
		return krl_diag_set(d, KRL_EIO, (krl_pos){0}, "cannot append to %s",
		                    path);
	return KRL_OK;
}

/* ==== Judge options under other names ==== */

void krl_cli_print_judge_usage(FILE *f, const char *const *rename, int n)
{
	const char *z = krl_cli_judge_usage;
	while (*z) {
		size_t len = strcspn(z, "\n");
		int done = 0;
		for (int i = 0; i < n && !done; i++) {
			size_t ol = strlen(rename[2 * i]);
			if (len > ol + 2 && !strncmp(z, "  ", 2) &&
			    !strncmp(z + 2, rename[2 * i], ol) && z[2 + ol] == ' ') {
				/* The description starts after two blanks; keep its
				 * column. */
				size_t desc = 2 + ol;
				while (desc + 1 < len && !(z[desc] == ' ' && z[desc + 1] == ' '))
					desc++;
				while (desc < len && z[desc] == ' ')
					desc++;
				int col = (int)desc;
				done = 1;
				if (!rename[2 * i + 1])
					break; /* the command lists it among its own */
				int w = fprintf(f, "  %s", rename[2 * i + 1]);
				fprintf(f, "%*s%.*s\n", w < col ? col - w : 1, "",
				        (int)(len - desc), z + desc);
			}
		}
		if (!done)
			fprintf(f, "%.*s\n", (int)len, z);
		z += len + (z[len] == '\n');
	}
}
