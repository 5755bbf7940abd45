/*
 * kernelrl: the report (docs/report.md): one self-contained HTML file with
 * inline SVG charts, made from the store and from the results files that
 * `krl optimize --results` (and bench/peers.py) write. The page fetches
 * nothing: no scripts, fonts, styles or images from anywhere.
 *
 * What it shows: per-problem speedup with its 95% interval (and against
 * PyTorch's peers where the results carry their columns), the verdict mix
 * per run, the best speedup against evaluations spent, roofline fractions
 * (above 1.0 flagged "ceiling wrong"), and for each problem what the best
 * candidate does with its source embedded (capped).
 */
#ifndef KRL_REPORT_H
#define KRL_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "krl/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct krl_report_opts {
	const char *db;               /* the store, or NULL for none */
	const char *const *results;   /* results JSONL files */
	int nresults;
	const char *title;            /* NULL: "kernelrl report" */
	size_t max_source;            /* bytes of one embedded source; 0: 64 KiB */
	size_t max_sources_total;     /* all embedded sources; 0: 8 MiB */
	const char *generated;        /* the date shown as "generated"; NULL: now */
} krl_report_opts;

/* Writes the report to out. A store that does not exist is KRL_ENOTFOUND
 * (the report never creates one); a results line that is not a JSON
 * object is KRL_ESYNTAX with the file and line. With neither a store nor
 * a results file it is KRL_EINVAL. */
krl_err krl_report_write(const krl_report_opts *o, FILE *out, krl_diag *d);

#ifdef __cplusplus
}
#endif
#endif
