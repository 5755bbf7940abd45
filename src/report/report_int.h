/*
 * The report's insides (include/krl/report.h): the data gathered from the
 * store and the results files (data.c), HTML text (html.c) and the SVG
 * chart primitives (svg.c). Private to libkrl.
 */
#ifndef KRL_REPORT_INT_H
#define KRL_REPORT_INT_H

#include <stdint.h>

#include <jansson.h>

#include "krl/report.h"
#include "util/strbuf.h"

/* ==== HTML text (html.c) ==== */

/* Appends z (n bytes) as HTML text or attribute value: & < > " ' escaped,
 * bytes that are not valid UTF-8 and control characters other than
 * newline and tab written as '?'. */
void rp_esc(krl_strbuf *b, const char *z, size_t n);
/* rp_esc of a NUL-terminated string; NULL writes nothing. */
void rp_escz(krl_strbuf *b, const char *z);
/* A number as text: "-" for NaN, else printf fmt. */
void rp_num(krl_strbuf *b, const char *fmt, double x);

/* ==== Charts (svg.c) ==== */

#define RP_MARKS 4

/* One row of a horizontal bar chart. */
typedef struct rp_row {
	const char *label;     /* problem name (escaped when written) */
	const char *href;      /* "#p3": a link inside the page, or NULL */
	double v, lo, hi;      /* bar value and its interval (NaN: none) */
	double mark[RP_MARKS]; /* extra markers (NaN: none) */
	const char *flag;      /* text after the bar ("ceiling wrong"), or NULL */
} rp_row;

typedef struct rp_hbar {
	const char *axis;      /* what x is */
	int log;               /* log10 scale (every value must be > 0) */
	double ref;            /* a vertical reference line (NaN: none) */
	int nmark;             /* markers per row in use */
	const char *mark_name[RP_MARKS];
	const char *bar_name;  /* the legend text of the bar */
	rp_row *rows;
	int n;
} rp_hbar;

/* A horizontal bar per row from the reference (or 0) to v, its interval as
 * an error bar, markers as shapes, a legend; values above the scale's end
 * are drawn to the end with their number. Every bar carries a <title>
 * with its numbers (hover text; no script). */
void rp_svg_hbar(krl_strbuf *b, const rp_hbar *c);

/* A stacked horizontal bar per row: counts[r * nnames + k] of name k in
 * row r, each segment coloured by name, with a legend. */
void rp_svg_stack(krl_strbuf *b, const char *const *rows, int nrows,
                  const char *const *names, int nnames, const long *counts);

/* One polyline per series: y[i] after i + 1 evaluations (NaN: nothing
 * yet), x from 1 to the longest series, y from 0 to ymax. */
typedef struct rp_series {
	const char *label;
	const double *y;
	int n;
} rp_series;
void rp_svg_lines(krl_strbuf *b, const char *xaxis, const char *yaxis,
                  const rp_series *s, int n, double ymax);

/* The colour of verdict name (ok green, failures warm, others grey). */
const char *rp_verdict_colour(const char *name);

/* ==== The data (data.c) ==== */

/* A set of distinct strings, in the order first seen. */
typedef struct rp_set {
	char **v;
	int n, cap;
} rp_set;
void rp_set_add(rp_set *s, const char *z);
void rp_set_free(rp_set *s);

typedef struct rp_problem {
	char *name;
	json_t *res;          /* the results files' fields, merged; or NULL */
	int64_t evals, ok;    /* in the store */
	double best, lo, hi;  /* the store's best correct candidate (NaN: none) */
	double roof;          /* its roofline fraction (NaN: none) */
	char hash[65];        /* its candidate ("" when none) */
	char *what;           /* what it does (its completion's "what:" line) */
	char *source;         /* its source, possibly cut (NULL: none) */
	size_t source_len;    /* the full length */
	int source_cut;       /* 1 when source holds only a prefix */
	int source_left_out;  /* 1 when the total cap left it out */
} rp_problem;

typedef struct rp_run {
	int64_t id;
	char *name, *task, *status, *created, *updated;
	long *counts;         /* per verdict of rp_data.verdicts */
	double *curve;        /* best speedup after each evaluation (NaN: none yet) */
	int ncurve, capcurve;
} rp_run;

typedef struct rp_data {
	rp_problem *p;
	int np, capp;
	rp_run *r;
	int nr;
	rp_set verdicts;
	rp_set commits, gpus, shapes, precisions, timings, baselines, torch;
	char date_lo[40], date_hi[40];
	int peers;            /* some problem has peer columns */
	int64_t evals;
	size_t sources_bytes; /* embedded */
	int sources_cut, sources_left_out;
} rp_data;

/* Reads the store (when o->db) and the results files into D. */
krl_err rp_data_load(const krl_report_opts *o, rp_data *D, krl_diag *d);
void rp_data_free(rp_data *D);

/* The problem's number from its results fields (NaN when absent). */
double rp_res_num(const rp_problem *p, const char *key);
/* The problem's results string field, or NULL. */
const char *rp_res_str(const rp_problem *p, const char *key);

#endif
