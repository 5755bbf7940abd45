/*
 * What the judge does before the GPU (krl_judge_check, `krl check`): read
 * and parse the candidate, validate its plan on every shape set, apply the
 * include rule and compile it in the sandbox for an architecture. The
 * judge's own evaluation (eval.c) runs the same code before it touches the
 * device, so a candidate `krl check` accepts fails the judge only on the
 * GPU (launch, timing, correctness), never before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge_int.h"
#include "krl/nvrtc.h"
#include "util/clock.h"
#include "util/json.h"
#include "util/utf8.h"

int krl_judge_read_candidate(json_t *rec, const char *path,
                             krl_candidate **cand, krl_err *err,
                             krl_diag *d)
{
	krl_diag pd = {0};
	char buf[1400];
	krl_err r = krl_candidate_load(path, cand, &pd);
	if (r == KRL_EIO || r == KRL_ENOMEM) {
		*err = r;
		*d = pd;
		return -1;
	}
	if (r != KRL_OK)
		return krl_judge_verdict(rec, KRL_V_INVALID_PLAN,
		                         json_pack("{s:s}", "reason", "parse"), "%s",
		                         krl_diag_format(&pd, buf, sizeof buf));
	return 0;
}

int krl_judge_build_set(json_t *rec, const krl_task *t,
                        const krl_candidate *cand, const krl_shapeset *ss,
                        const char *name, const krl_limits *lim,
                        krl_program **rp, krl_program **cp, krl_err *err,
                        krl_diag *d)
{
	krl_diag pd = {0};
	char buf[1400];
	krl_err r;
	if (!ss) {
		*err = krl_diag_set(d, KRL_ENOTFOUND, (krl_pos){0},
		                    "task %s has no shape set '%s'",
		                    t->id ? t->id : t->name, name);
		return -1;
	}
	if ((r = krl_program_build_shapes(t, NULL, ss, lim, rp, &pd)) != KRL_OK) {
		*err = krl_diag_set(d, r, pd.pos, "the task's reference plan: %s",
		                    pd.msg);
		return -1;
	}
	r = krl_program_build_shapes(t, cand, ss, lim, cp, &pd);
	if (r == KRL_ENOMEM) {
		*err = r;
		*d = pd;
		return -1;
	}
	if (r != KRL_OK)
		return krl_judge_verdict(rec, KRL_V_INVALID_PLAN,
		                         json_pack("{s:s, s:s}", "reason", "plan",
		                                   "set", name),
		                         "%s (shape set %s)",
		                         krl_diag_format(&pd, buf, sizeof buf), name);
	return 0;
}

int krl_judge_compile_candidate(json_t *rec, const krl_candidate *cand,
                                const char *arch, const char *cache_dir,
                                krl_cubin **cubin, krl_err *err,
                                krl_diag *d)
{
	krl_diag pd = {0};
	krl_err r = krl_nvrtc_compile(cand->source, cand->len, cand->path, arch,
	                              cache_dir, cubin, &pd);
	krl_cubin *c = *cubin;
	if (c) {
		json_t *comp = json_pack("{s:f, s:b, s:s, s:s}", "ms", c->ms,
		                         "cached", c->from_cache, "arch", arch,
		                         "key", c->key);
		json_object_set_new(comp, "sandbox", c->sandbox
		                                             ? json_string(c->sandbox)
		                                             : json_null());
		/* c->log is filtered and capped (KRL_COMPILE_LOG_CAP) */
		json_object_set_new(comp, "log", krl_json_text(c->log));
		json_object_set_new(rec, "compile", comp);
	}
	if (r == KRL_ECOMPILE) {
		const char *reason = c && c->reason ? c->reason : "nvrtc";
		const char *log = c ? c->log : pd.msg;
		size_t n = krl_utf8_cut(log, strlen(log), 1500);
		const char *what = !strcmp(reason, "include")
		                           ? "the include rule refused the device code"
		                   : !strcmp(reason, "compile_timeout")
		                           ? "compilation ran out of time"
		                   : !strcmp(reason, "compile_resources")
		                           ? "compilation ran out of resources"
		                           : "NVRTC rejected the device code";
		return krl_judge_verdict(rec, KRL_V_COMPILE_ERROR,
		                         json_pack("{s:s}", "reason", reason),
		                         "%s:\n%.*s%s", what, (int)n, log,
		                         n < strlen(log) ? " [...]" : "");
	}
	if (r != KRL_OK) {
		*err = r;
		*d = pd;
		return -1;
	}
	return 0;
}

krl_err krl_judge_check(const krl_task *t, const char *cand_path,
                        const krl_check_opts *o, json_t **record,
                        krl_diag *d)
{
	krl_check_opts dflt = {0};
	const char *arch;
	krl_candidate *cand = NULL;
	krl_cubin *cubin = NULL;
	krl_err err = KRL_OK;
	krl_limits lim = krl_limits_sm90();
	double t0 = krl_now_s();
	int rc;
	if (!o)
		o = &dflt;
	arch = o->arch ? o->arch : "sm_90a";
	*record = NULL;
	json_t *rec = json_object();
	json_t *sets = json_array();
	json_object_set_new(rec, "task", json_string(t->id ? t->id : t->name));
	json_object_set_new(rec, "candidate", krl_json_text(cand_path));
	json_object_set_new(rec, "arch", json_string(arch));
	json_object_set_new(rec, "sets", sets);
	if (o->nsets > 0) {
		for (int s = 0; s < o->nsets; s++)
			json_array_append_new(sets, json_string(o->sets[s]));
	} else {
		for (int s = 0; s < t->nsets; s++)
			json_array_append_new(sets, json_string(t->sets[s].name));
	}

	rc = krl_judge_read_candidate(rec, cand_path, &cand, &err, d);
	/* The plan on every shape set, as the judge validates it. */
	for (size_t s = 0; rc == 0 && s < json_array_size(sets); s++) {
		const char *set = json_string_value(json_array_get(sets, s));
		krl_program *rp = NULL, *cp = NULL;
		rc = krl_judge_build_set(rec, t, cand, krl_task_shapeset(t, set), set,
		                         &lim, &rp, &cp, &err, d);
		krl_program_free(rp);
		krl_program_free(cp);
	}
	if (rc == 0)
		rc = krl_judge_compile_candidate(rec, cand, arch,
		                                 o->no_cache ? NULL
		                                 : o->cache_dir ? o->cache_dir
		                                                : krl_cache_dir(),
		                                 &cubin, &err, d);
	krl_candidate_free(cand);
	krl_cubin_free(cubin);
	if (rc < 0) {
		json_decref(rec);
		return err ? err : KRL_EINVAL;
	}
	if (rc == 0)
		krl_judge_verdict(rec, KRL_V_OK, NULL,
		                  "parses, its plan is valid on %d shape set%s, and "
		                  "its device code compiles for %s",
		                  (int)json_array_size(sets),
		                  json_array_size(sets) == 1 ? "" : "s", arch);
	json_object_set_new(rec, "check_seconds", json_real(krl_now_s() - t0));
	*record = rec;
	return KRL_OK;
}
