/* krl export: a stored or named candidate as standalone CUDA or as a
 * PyTorch package (docs/export.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "krl/export.h"
#include "krl/store.h"
#include "krl/suite.h"

static const char export_usage[] =
	"usage: krl export TASK [--db krl.db] [--run R | --candidate FILE.cu]\n"
	"                  --to cuda|torch [--shapes kb1] [--arch sm_90a]\n"
	"                  [--kernelbench MODEL.py] DIR\n"
	"\n"
	"Writes TASK's best stored candidate (the ok evaluation with the highest\n"
	"measured speedup, in run R or in any run), or the candidate FILE.cu, into\n"
	"folder DIR:\n"
	"  --to cuda   kernels.cu (device code + host code of the plan), krl_<task>.h\n"
	"              (one launch function), main.cu (a sample), Makefile\n"
	"  --to torch  a Python package krl_<task>/ with ModelNew, a drop-in for\n"
	"              KernelBench's Model (MODEL.py; default: the task's source\n"
	"              file under .kb/<shapes>/ from bench/fetch_kb.sh)\n"
	"Shapes are fixed to shape set --shapes. Library calls run through\n"
	"libkrl_ops.so, copied into the export (KRL_OPS_LIB: its path).\n";

#ifndef KRL_OPS_LIB_PATH
#define KRL_OPS_LIB_PATH ""
#endif

/* .kb/<set>/levelN/FILE.py from the task's `source "KernelBench
 * levelN/FILE.py [(REV)]"` line, when that file exists; else NULL. */
static const char *default_model(const krl_task *t, const char *shapes,
                                 char *buf, size_t cap)
{
	const char *pfx = "KernelBench ";
	if (!t->source || strncmp(t->source, pfx, strlen(pfx)) != 0)
		return NULL;
	/* the path ends at the first blank; a "(main)" or "(b08d959^)" after
	 * it says which KernelBench revision (kb1, kb0) the file is from */
	const char *z = t->source + strlen(pfx);
	const char *set = strstr(z, "(main)") ? "kb1"
	                : strstr(z, "(b08d959^)") ? "kb0"
	                : !strcmp(shapes, "kb0") ? "kb0" : "kb1";
	snprintf(buf, cap, ".kb/%s/%.*s", set, (int)strcspn(z, " \t"), z);
	return access(buf, R_OK) == 0 ? buf : NULL;
}

int krl_cmd_export(int argc, char **argv)
{
	const char *db = "krl.db", *run = NULL, *cand_path = NULL, *to = NULL;
	const char *dir = NULL, *task_ref = NULL, *model = NULL;
	krl_export_opts o = { .shapes = "kb1", .arch = "sm_90a" };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(export_usage, stdout);
			return KRL_EXIT_OK;
		}
		if (a[0] != '-') {
			if (!task_ref)
				task_ref = a;
			else if (!dir)
				dir = a;
			else {
				fprintf(stderr, "krl export: unexpected argument "
				        "'%s'\n%s", a, export_usage);
				return KRL_EXIT_USAGE;
			}
			continue;
		}
		if (!v) {
			fprintf(stderr, "krl export: %s needs a value\n%s", a,
			        export_usage);
			return KRL_EXIT_USAGE;
		}
		i++;
		if (!strcmp(a, "--db"))
			db = v;
		else if (!strcmp(a, "--run"))
			run = v;
		else if (!strcmp(a, "--candidate"))
			cand_path = v;
		else if (!strcmp(a, "--to"))
			to = v;
		else if (!strcmp(a, "--shapes"))
			o.shapes = v;
		else if (!strcmp(a, "--arch"))
			o.arch = v;
		else if (!strcmp(a, "--kernelbench"))
			model = v;
		else {
			fprintf(stderr, "krl export: unknown option '%s'\n%s", a,
			        export_usage);
			return KRL_EXIT_USAGE;
		}
	}
	if (!task_ref || !dir || !to || (strcmp(to, "cuda") && strcmp(to, "torch")) ||
	    (run && cand_path)) {
		fprintf(stderr, "krl export: %s\n%s",
		        !task_ref || !dir ? "TASK and DIR are required"
		        : !to ? "--to cuda or --to torch is required"
		        : run && cand_path ? "--run and --candidate exclude each other"
		        : "--to is cuda or torch", export_usage);
		return KRL_EXIT_USAGE;
	}
	o.to = !strcmp(to, "torch") ? KRL_EXPORT_TORCH : KRL_EXPORT_CUDA;
	const char *lib = getenv("KRL_OPS_LIB");
	o.ops_lib = lib && *lib ? lib : *KRL_OPS_LIB_PATH ? KRL_OPS_LIB_PATH : NULL;

	krl_diag d = {0};
	char buf[1400], modelbuf[1024], origin[1100];
	int rc = KRL_EXIT_ERROR;
	krl_suite *s = NULL;
	krl_task *t = NULL;
	krl_candidate *c = NULL;
	krl_store *st = NULL;
	krl_export_pick pick = {0};
	krl_err e = krl_suite_load(NULL, &s, &d);
	if (!e)
		e = krl_suite_load_task(s, task_ref, &t, &d);
	if (e)
		goto fail;
	if (cand_path) {
		if ((e = krl_candidate_load(cand_path, &c, &d)))
			goto fail;
		snprintf(origin, sizeof origin, "%s", cand_path);
	} else {
		if (access(db, R_OK) != 0) {
			fprintf(stderr, "krl export: no store at %s (pass --db, or "
			        "--candidate FILE.cu)\n", db);
			goto out;
		}
		if ((e = krl_store_open(db, &st, &d)) ||
		    (e = krl_export_best(st, t->id, run, &pick, &d)))
			goto fail;
		snprintf(origin, sizeof origin, "store %s%s%s", db,
		         run ? ", run " : "", run ? run : "");
		if ((e = krl_candidate_parse(pick.hash, pick.source,
		                             strlen(pick.source), &c, &d)))
			goto fail;
		o.cand_hash = pick.hash;
		o.speedup = pick.speedup;
		o.ci_low = pick.ci_low;
		o.ci_high = pick.ci_high;
	}
	o.cand_origin = origin;
	if (o.to == KRL_EXPORT_TORCH)
		o.kb_model = model ? model
		                   : default_model(t, o.shapes, modelbuf, sizeof modelbuf);
	if ((e = krl_export_write(t, c, &o, dir, &d)))
		goto fail;
	printf("exported %s (%s) --to %s into %s (shapes %s)\n", t->id,
	       o.cand_hash ? o.cand_hash : cand_path, to, dir, o.shapes);
	rc = KRL_EXIT_OK;
	goto out;
fail:
	fprintf(stderr, "krl export: %s\n", krl_diag_format(&d, buf, sizeof buf));
out:
	free(pick.source);
	krl_candidate_free(c);
	krl_store_close(st);
	krl_task_free(t);
	krl_suite_free(s);
	return rc;
}
