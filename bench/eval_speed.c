/*
 * bench/eval_speed: how fast is the judge?
 *
 *   eval_speed [--manifest examples/level1/EXPECTED] [--reps 5] [--shapes S]
 *              [--no-evals] [--json OUT]
 *
 * 1. NVRTC compile time of every example candidate for the device's
 *    architecture: cold (an empty cache each time) and cached (a hit), p50
 *    and p95 over all compiles.
 * 2. Full evaluations per minute: every example judged (correctness on the
 *    shape sets given, timing on the last), wall time measured. Needs a GPU;
 *    --no-evals skips it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "krl/judge.h"
#include "krl/lang.h"
#include "krl/nvrtc.h"
#include "krl/runtime.h"
#include "krl/stats.h"
#include "krl/suite.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct entry {
	char path[1024], task[256], expect[64];
} entry;

static int read_manifest(const char *manifest, entry **out)
{
	char dir[512], line[1024];
	snprintf(dir, sizeof dir, "%s", manifest);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		strcpy(dir, ".");
	FILE *f = fopen(manifest, "r");
	if (!f)
		return -1;
	int n = 0, cap = 64;
	entry *e = calloc((size_t)cap, sizeof *e);
	while (e && fgets(line, sizeof line, f) && n < cap) {
		char file[256];
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		if (sscanf(line, "%255s %255s %63s", file, e[n].task, e[n].expect) < 2)
			continue;
		snprintf(e[n].path, sizeof e[n].path, "%s/%s", dir, file);
		n++;
	}
	fclose(f);
	*out = e;
	return n;
}

int main(int argc, char **argv)
{
	const char *manifest = "examples/level1/EXPECTED", *json_out = NULL;
	const char *shapes = "kb1";
	int reps = 5, evals = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--manifest") && i + 1 < argc)
			manifest = argv[++i];
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--shapes") && i + 1 < argc)
			shapes = argv[++i];
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json_out = argv[++i];
		else if (!strcmp(argv[i], "--no-evals"))
			evals = 0;
		else {
			fprintf(stderr, "usage: eval_speed [--manifest F] [--reps N] "
			                "[--shapes A,B] [--no-evals] [--json OUT]\n");
			return 2;
		}
	}
	entry *ex = NULL;
	int n = read_manifest(manifest, &ex);
	if (n <= 0) {
		fprintf(stderr, "eval_speed: cannot read %s\n", manifest);
		return 1;
	}
	krl_device dev;
	krl_diag d = {0};
	const char *arch = "sm_90a";
	int have_gpu = krl_device_open(0, &dev, &d) == KRL_OK;
	if (have_gpu)
		arch = dev.arch;

	/* ==== 1. NVRTC compile time ==== */
	double *cold = calloc((size_t)(n * reps), sizeof *cold);
	double *hot = calloc((size_t)(n * reps), sizeof *hot);
	int nc = 0, nh = 0;
	char tmpl[] = "/tmp/krl-bench-XXXXXX";
	const char *base = mkdtemp(tmpl);
	for (int i = 0; i < n; i++) {
		krl_candidate *c = NULL;
		if (krl_candidate_load(ex[i].path, &c, &d) != KRL_OK)
			continue; /* an invalid_plan example: nothing to compile */
		for (int r = 0; r < reps; r++) {
			char dir[600];
			snprintf(dir, sizeof dir, "%s/cold-%d-%d", base, i, r);
			krl_cubin *cb = NULL;
			krl_err e = krl_nvrtc_compile(c->source, c->len, ex[i].path, arch,
			                              dir, &cb, &d);
			if (e == KRL_OK)
				cold[nc++] = cb->ms;
			krl_cubin_free(cb);
			if (e != KRL_OK)
				break; /* compile_error examples: not timed */
			cb = NULL;
			if (krl_nvrtc_compile(c->source, c->len, ex[i].path, arch, dir,
			                      &cb, &d) == KRL_OK && cb->from_cache)
				hot[nh++] = cb->ms;
			krl_cubin_free(cb);
		}
		krl_candidate_free(c);
	}
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "eval_speed: could not remove %s\n", base);
	double c50 = krl_quantile(cold, nc, 0.5), c95 = krl_quantile(cold, nc, 0.95);
	double h50 = krl_quantile(hot, nh, 0.5), h95 = krl_quantile(hot, nh, 0.95);
	printf("nvrtc %s (%s): cold p50 %.1f ms p95 %.1f ms (n=%d); cached p50 "
	       "%.3f ms p95 %.3f ms (n=%d)\n",
	       arch, krl_nvrtc_version(), c50, c95, nc, h50, h95, nh);
	json_t *res = json_pack("{s:s, s:s, s:{s:f, s:f, s:i}, s:{s:f, s:f, s:i}}",
	                        "arch", arch, "nvrtc", krl_nvrtc_version(),
	                        "cold_ms", "p50", c50, "p95", c95, "n", nc,
	                        "cached_ms", "p50", h50, "p95", h95, "n", nh);

	/* ==== 2. Evaluations per minute ==== */
	if (evals && have_gpu) {
		krl_judge_opts o = {0};
		char sets[256];
		snprintf(sets, sizeof sets, "%s", shapes);
		for (char *t = strtok(sets, ","); t && o.nsets < 7; t = strtok(NULL, ","))
			o.sets[o.nsets++] = t;
		krl_judge *j = NULL;
		krl_suite *s = NULL;
		if (krl_suite_load(NULL, &s, &d) != KRL_OK ||
		    krl_judge_create(&o, &j, &d) != KRL_OK) {
			fprintf(stderr, "eval_speed: %s\n", d.msg);
			return 1;
		}
		double t0 = now_s();
		int done = 0, as_expected = 0;
		json_t *per = json_array();
		for (int i = 0; i < n; i++) {
			krl_task *t = NULL;
			json_t *rec = NULL;
			double ts = now_s();
			if (krl_suite_load_task(s, ex[i].task, &t, &d) != KRL_OK ||
			    krl_judge_eval(j, t, ex[i].path, &rec, &d) != KRL_OK) {
				fprintf(stderr, "eval_speed: %s: %s\n", ex[i].path, d.msg);
				krl_task_free(t);
				continue;
			}
			const char *v = json_string_value(json_object_get(rec, "verdict"));
			done++;
			as_expected += !strcmp(v, ex[i].expect);
			json_array_append_new(per, json_pack("{s:s, s:s, s:f}", "candidate",
			                                     ex[i].path, "verdict", v,
			                                     "seconds", now_s() - ts));
			json_decref(rec);
			krl_task_free(t);
		}
		double minutes = (now_s() - t0) / 60;
		printf("evaluations: %d in %.2f min = %.1f per minute (shapes %s, "
		       "%d as expected)\n",
		       done, minutes, done / minutes, shapes, as_expected);
		json_object_set_new(res, "evaluations",
		                    json_pack("{s:i, s:f, s:f, s:s, s:o}", "n", done,
		                              "minutes", minutes, "per_minute",
		                              done / minutes, "shapes", shapes,
		                              "each", per));
		krl_judge_free(j);
		krl_suite_free(s);
	}
	if (json_out)
		json_dump_file(res, json_out, JSON_INDENT(2));
	json_decref(res);
	free(cold);
	free(hot);
	free(ex);
	return 0;
}
