/* krl report: one self-contained HTML page with charts from the store and
 * results files (include/krl/report.h, docs/report.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "krl/report.h"

static const char report_usage[] =
	"usage: krl report [--db DB] [--results FILE.jsonl]... [options] OUT.html\n"
	"\n"
	"Writes one self-contained HTML page (inline CSS and SVG; it loads nothing\n"
	"from the network) from the store and from results files (the lines of\n"
	"krl optimize --results, and PyTorch's peer columns, BENCHMARKING.md):\n"
	"per-problem speedup with its 95% interval, against PyTorch eager, CUDA\n"
	"graph and torch.compile where the results carry them; the verdict mix per\n"
	"run; the best speedup against evaluations spent; roofline fractions\n"
	"(above 1.0 flagged \"ceiling wrong\"); each problem's best candidate with\n"
	"what it does and its source.\n"
	"\n"
	"options:\n"
	"  --db DB             the store (default krl.db when it exists; --store is\n"
	"                      the same); --no-db: results files only\n"
	"  --results FILE      a results JSONL file (repeatable; lines of one\n"
	"                      problem are merged, the first file given wins)\n"
	"  --title TEXT        the page's title (default \"kernelrl report\")\n"
	"  --max-source BYTES  per embedded candidate source (default 65536)\n"
	"  --max-sources BYTES all embedded sources together (default 8388608)\n";

static int bytes_arg(const char *opt, const char *v, size_t *out)
{
	char *end = NULL;
	unsigned long long x = strtoull(v, &end, 10);
	if (!end || *end || x < 1 || v[0] == '-') {
		fprintf(stderr, "krl report: %s needs a positive number of bytes\n",
		        opt);
		return -1;
	}
	*out = (size_t)x;
	return 0;
}

int krl_cmd_report(int argc, char **argv)
{
	krl_report_opts o = {0};
	const char *results[256], *outp = NULL, *db = NULL;
	int nores = 0, nodb = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(report_usage, stdout);
			return KRL_EXIT_OK;
		}
		if (!strcmp(a, "--no-db")) {
			nodb = 1;
			continue;
		}
		if (a[0] != '-') {
			if (outp) {
				fprintf(stderr, "krl report: one OUT.html, not '%s' too\n", a);
				return KRL_EXIT_USAGE;
			}
			outp = a;
			continue;
		}
		if (!v) {
			fprintf(stderr, "krl report: unknown option '%s' or missing "
			                "value\n\n%s", a, report_usage);
			return KRL_EXIT_USAGE;
		}
		i++;
		if (!strcmp(a, "--db") || !strcmp(a, "--store"))
			db = v;
		else if (!strcmp(a, "--results")) {
			if (nores == 256) {
				fprintf(stderr, "krl report: at most 256 results files\n");
				return KRL_EXIT_USAGE;
			}
			results[nores++] = v;
		} else if (!strcmp(a, "--title"))
			o.title = v;
		else if (!strcmp(a, "--max-source")) {
			if (bytes_arg(a, v, &o.max_source))
				return KRL_EXIT_USAGE;
		} else if (!strcmp(a, "--max-sources")) {
			if (bytes_arg(a, v, &o.max_sources_total))
				return KRL_EXIT_USAGE;
		} else {
			fprintf(stderr, "krl report: unknown option '%s'\n\n%s", a,
			        report_usage);
			return KRL_EXIT_USAGE;
		}
	}
	if (!outp) {
		fputs(report_usage, stderr);
		return KRL_EXIT_USAGE;
	}
	if (nodb && db) {
		fprintf(stderr, "krl report: --db and --no-db together\n");
		return KRL_EXIT_USAGE;
	}
	/* krl.db by default, but only when it is there: a results-only report
	 * needs no store, and the report never creates one */
	if (!db && !nodb) {
		FILE *f = fopen("krl.db", "rb");
		if (f) {
			fclose(f);
			db = "krl.db";
		}
	}
	o.db = db;
	o.results = results;
	o.nresults = nores;
	if (!o.db && !nores) {
		fprintf(stderr, "krl report: no store (krl.db is not here; give "
		                "--db) and no --results file: nothing to report\n");
		return KRL_EXIT_USAGE;
	}
	/* written next to OUT and renamed over it, so that a failed report
	 * never leaves a half page */
	size_t tl = strlen(outp) + 8;
	char *tmp = malloc(tl);
	if (!tmp)
		return KRL_EXIT_ERROR;
	snprintf(tmp, tl, "%s.tmp", outp);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "krl report: cannot write %s\n", tmp);
		free(tmp);
		return KRL_EXIT_ERROR;
	}
	krl_diag d = {0};
	char buf[1200];
	krl_err e = krl_report_write(&o, f, &d);
	if (fclose(f) != 0 && e == KRL_OK)
		e = krl_diag_set(&d, KRL_EIO, (krl_pos){0}, "cannot write %s", tmp);
	if (e == KRL_OK && rename(tmp, outp) != 0)
		e = krl_diag_set(&d, KRL_EIO, (krl_pos){0}, "cannot rename %s to %s",
		                 tmp, outp);
	if (e != KRL_OK) {
		remove(tmp);
		free(tmp);
		fprintf(stderr, "krl report: %s\n", krl_diag_format(&d, buf, sizeof buf));
		return KRL_EXIT_ERROR;
	}
	free(tmp);
	fprintf(stderr, "krl report: wrote %s\n", outp);
	return KRL_EXIT_OK;
}
