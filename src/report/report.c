/*
 * The report document (include/krl/report.h, docs/report.md): the header
 * (inputs, commits, GPU, dates, what the speedups are over), then one
 * section per chart, then every problem's best candidate with its source.
 * Built in memory and written at once, so a failed report leaves no half
 * page behind the caller's back.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report_int.h"

static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
	"margin:24px auto;max-width:1000px;color:#222;padding:0 12px}"
	"h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 6px;"
	"border-bottom:1px solid #ddd;padding-bottom:4px}"
	"table{border-collapse:collapse;margin:8px 0}"
	"td,th{border:1px solid #ddd;padding:3px 7px;text-align:left;"
	"vertical-align:top;font-size:13px}th{background:#f4f4f4}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	".warn{background:#fff4e5;border:1px solid #f0a030;padding:6px 10px;"
	"margin:8px 0}.note{color:#555;font-size:13px}"
	"code,pre{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}"
	"pre{background:#f8f8f8;border:1px solid #e4e4e4;padding:8px;"
	"overflow:auto;max-height:480px}"
	"svg{display:block;margin:6px 0;max-width:100%;height:auto}"
	"svg text{font:11px system-ui,sans-serif;fill:#222}"
	"svg .label{text-anchor:end}svg .tick{text-anchor:middle;fill:#555}"
	"svg .axis{text-anchor:middle;font-weight:600}"
	"svg .grid{stroke:#e6e6e6}svg .ref{stroke:#444;stroke-dasharray:4 3}"
	"svg .bar{fill:#4c78a8}svg .flagged{fill:#d62728}"
	"svg .ci{stroke:#111;fill:none;stroke-width:1.2}"
	"svg .flag{fill:#d62728;font-weight:600}"
	"svg .inbar{fill:#fff;text-anchor:middle}"
	"svg .series polyline{fill:none;stroke-width:1.4;stroke-opacity:.75}"
	"svg a text{fill:#1a4d8f}";

/* ==== Helpers ==== */

/* "a, b, c" of a set, or none when empty. */
static void set_list(krl_strbuf *b, const rp_set *s, const char *none)
{
	if (!s->n) {
		krl_strbuf_str(b, "<span class=\"note\">");
		rp_escz(b, none);
		krl_strbuf_str(b, "</span>");
		return;
	}
	for (int i = 0; i < s->n; i++) {
		if (i)
			krl_strbuf_str(b, ", ");
		krl_strbuf_str(b, "<code>");
		rp_escz(b, s->v[i]);
		krl_strbuf_str(b, "</code>");
	}
}

/* The problem's speedup over kernelrl's reference: the results file's
 * when given, else the store's best. */
static void speedup_of(const rp_problem *p, double *v, double *lo, double *hi)
{
	*v = rp_res_num(p, "speedup");
	if (isfinite(*v)) {
		*lo = rp_res_num(p, "ci_low");
		*hi = rp_res_num(p, "ci_high");
		return;
	}
	*v = p->best;
	*lo = p->lo;
	*hi = p->hi;
}

static double roofline_of(const rp_problem *p)
{
	double r = rp_res_num(p, "roofline");
	return isfinite(r) ? r : p->roof;
}

/* peer_ms / best_ms, or NaN. */
static double vs_peer(const rp_problem *p, const char *peer)
{
	double best = rp_res_num(p, "best_ms"), ms = rp_res_num(p, peer);
	if (!strcmp(peer, "best_torch_ms") && !isfinite(ms)) {
		double x = rp_res_num(p, "vs_best_torch");
		if (isfinite(x))
			return x;
	}
	return isfinite(best) && best > 0 && isfinite(ms) && ms > 0 ? ms / best
	                                                            : NAN;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* What every speedup on the page is measured over and how. */
static void conditions(krl_strbuf *b, const rp_data *D)
{
	krl_strbuf_str(b, "<p class=\"note\">Baseline: ");
	set_list(b, &D->baselines,
	         "kernelrl's eager reference (the task's reference plan)");
	krl_strbuf_str(b, "; shape set: ");
	set_list(b, &D->shapes, "not recorded");
	krl_strbuf_str(b, "; precision tier: ");
	set_list(b, &D->precisions, "not recorded in the inputs");
	krl_strbuf_str(b, "; timing mode: ");
	set_list(b, &D->timings, "not recorded in the inputs");
	krl_strbuf_str(b, " (inputs drawn before every call, L2 flushed, median "
	                  "of interleaved pairs).</p>\n");
}

/* ==== Sections ==== */

static void header(krl_strbuf *b, const krl_report_opts *o, const rp_data *D)
{
	char now[32];
	if (!o->generated) {
		time_t t = time(NULL);
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	krl_strbuf_str(b, "<h1>");
	rp_escz(b, o->title ? o->title : "kernelrl report");
	krl_strbuf_str(b, "</h1>\n<table class=\"head\">\n<tr><th>generated</th><td>");
	rp_escz(b, o->generated ? o->generated : now);
	krl_strbuf_str(b, "</td></tr>\n<tr><th>store</th><td>");
	if (o->db) {
		krl_strbuf_str(b, "<code>");
		rp_escz(b, o->db);
		krl_strbuf_printf(b, "</code>: %d runs, %lld evaluations", D->nr,
		                  (long long)D->evals);
	} else {
		krl_strbuf_str(b, "none");
	}
	krl_strbuf_str(b, "</td></tr>\n<tr><th>results files</th><td>");
	for (int i = 0; i < o->nresults; i++) {
		krl_strbuf_str(b, i ? "<br><code>" : "<code>");
		rp_escz(b, o->results[i]);
		krl_strbuf_str(b, "</code>");
	}
	if (!o->nresults)
		krl_strbuf_str(b, "none");
	krl_strbuf_str(b, "</td></tr>\n<tr><th>commit</th><td>");
	set_list(b, &D->commits, "not recorded (the store keeps no commit; "
	                         "pass the results files)");
	krl_strbuf_str(b, "</td></tr>\n<tr><th>GPU</th><td>");
	set_list(b, &D->gpus, "not recorded");
	krl_strbuf_str(b, "</td></tr>\n<tr><th>dates</th><td>");
	if (D->date_lo[0]) {
		rp_escz(b, D->date_lo);
		krl_strbuf_str(b, " &ndash; ");
		rp_escz(b, D->date_hi);
	} else {
		krl_strbuf_str(b, "not recorded");
	}
	krl_strbuf_str(b, "</td></tr>\n<tr><th>PyTorch</th><td>");
	set_list(b, &D->torch, "no peer columns in the inputs");
	krl_strbuf_printf(b, "</td></tr>\n<tr><th>problems</th><td>%d</td></tr>\n"
	                     "</table>\n", D->np);
	if (D->commits.n > 1)
		krl_strbuf_printf(b, "<p class=\"warn\"><b>Warning:</b> these results "
		                     "stitch %d commits; a result stitched from "
		                     "several commits is not an acceptance result "
		                     "(BENCHMARKING.md).</p>\n", D->commits.n);
	if (D->gpus.n > 1)
		krl_strbuf_printf(b, "<p class=\"warn\"><b>Warning:</b> these results "
		                     "come from %d kinds of GPU.</p>\n", D->gpus.n);
}

/* hrefs[i] is "#p<i>", the anchor of problem i's candidate section. */
typedef char href_t[24];

static void speedup_section(krl_strbuf *b, const rp_data *D, rp_row *rows,
                            href_t *hrefs)
{
	int n = 0, nlog = 0;
	double logsum = 0;
	for (int i = 0; i < D->np; i++) {
		const rp_problem *p = &D->p[i];
		rp_row *r = &rows[n];
		memset(r, 0, sizeof *r);
		speedup_of(p, &r->v, &r->lo, &r->hi);
		for (int k = 0; k < RP_MARKS; k++)
			r->mark[k] = NAN;
		r->label = p->name;
		r->href = hrefs[i];
		if (!isfinite(r->v) || r->v <= 0) {
			const char *v = rp_res_str(p, "verdict");
			r->v = NAN;
			int ours = p->evals || (p->res && (json_object_get(p->res, "speedup") ||
			                                   json_object_get(p->res, "verdict")));
			r->flag = !ours ? "no kernelrl result in the inputs"
			          : v && strcmp(v, "ok") ? v : "no correct candidate";
		} else {
			logsum += log(r->v);
			nlog++;
		}
		n++;
	}
	krl_strbuf_str(b, "<h2 id=\"speedup\">Speedup per problem</h2>\n");
	conditions(b, D);
	if (nlog)
		krl_strbuf_printf(b, "<p>Geometric mean <b>%.3fx</b> over %d problem%s "
		                     "with a correct candidate. Bars run from 1.0 (the "
		                     "baseline) to the speedup; the whisker is its "
		                     "95%% interval. A name links to its best "
		                     "candidate.</p>\n",
		                  exp(logsum / nlog), nlog, nlog > 1 ? "s" : "");
	/* the conditions on the chart itself, so that a cut-out chart still
	 * names its baseline */
	char axis[300];
	snprintf(axis, sizeof axis,
	         "speedup over %s (x); shapes %s, precision %s, timing %s",
	         D->baselines.n == 1 ? D->baselines.v[0]
	                             : "kernelrl's eager reference",
	         D->shapes.n == 1 ? D->shapes.v[0] : D->shapes.n ? "mixed" : "?",
	         D->precisions.n == 1 ? D->precisions.v[0]
	         : D->precisions.n    ? "mixed"
	                              : "not recorded",
	         D->timings.n == 1 ? D->timings.v[0]
	         : D->timings.n    ? "mixed"
	                           : "not recorded");
	rp_hbar c = {.axis = axis, .log = 1, .ref = 1.0,
	             .bar_name = "speedup over kernelrl's eager reference",
	             .rows = rows, .n = n};
	if (n)
		rp_svg_hbar(b, &c);
	else
		krl_strbuf_str(b, "<p class=\"note\">No problem in the inputs.</p>\n");
}

static const char *const peer_col[] = {"torch_eager_ms", "torch_graph_ms",
                                       "torch_compile_ms"};
static const char *const peer_name[] = {"vs PyTorch eager",
                                        "vs CUDA graph of eager",
                                        "vs torch.compile"};

static void peers_section(krl_strbuf *b, const rp_data *D, rp_row *rows,
                          href_t *hrefs)
{
	int n = 0, nlog = 0, with_peers = 0;
	double logsum = 0;
	krl_strbuf_str(b, "<h2 id=\"peers\">Speedup against PyTorch</h2>\n");
	if (!D->peers) {
		krl_strbuf_str(b, "<p class=\"note\">The results carry no peer "
		                  "columns (torch_eager_ms, torch_graph_ms, "
		                  "torch_compile_ms, best_torch_ms): measure them as "
		                  "BENCHMARKING.md says and pass that file with "
		                  "--results.</p>\n");
		return;
	}
	for (int i = 0; i < D->np; i++) {
		const rp_problem *p = &D->p[i];
		int any = 0;
		for (int k = 0; k < 3; k++)
			any |= isfinite(rp_res_num(p, peer_col[k]));
		any |= isfinite(rp_res_num(p, "best_torch_ms"));
		with_peers += any;
		rp_row *r = &rows[n];
		memset(r, 0, sizeof *r);
		r->label = p->name;
		r->href = hrefs[i];
		r->lo = r->hi = NAN;
		r->v = vs_peer(p, "best_torch_ms");
		for (int k = 0; k < RP_MARKS; k++)
			r->mark[k] = k < 3 ? vs_peer(p, peer_col[k]) : NAN;
		if (!any)
			continue;
		if (isfinite(r->v) && r->v > 0) {
			logsum += log(r->v);
			nlog++;
		} else {
			r->flag = isfinite(rp_res_num(p, "best_ms"))
			                  ? "no peer time"
			                  : "no kernelrl time (best_ms) for this problem";
		}
		n++;
	}
	krl_strbuf_str(b, "<p class=\"note\">Each is the peer's time over "
	                  "kernelrl's best time (peer_ms / best_ms; above 1 = "
	                  "kernelrl faster), with the peers measured on "
	                  "KernelBench's own Model at the same shape set in the "
	                  "same GPU session (BENCHMARKING.md). PyTorch ");
	set_list(b, &D->torch, "version not recorded");
	krl_strbuf_str(b, ". The bar is against the best of the three.</p>\n");
	if (nlog)
		krl_strbuf_printf(b, "<p>Geometric mean against the best of PyTorch: "
		                     "<b>%.3fx</b> over %d problem%s.</p>\n",
		                  exp(logsum / nlog), nlog, nlog > 1 ? "s" : "");
	else
		krl_strbuf_printf(b, "<p class=\"warn\">%d problem%s carry peer "
		                     "times but none has kernelrl's best_ms: pass the "
		                     "krl optimize --results file of the same run as "
		                     "well.</p>\n",
		                  with_peers, with_peers == 1 ? "" : "s");
	rp_hbar c = {.axis = "speedup over the PyTorch peer (peer ms / kernelrl "
	                     "best ms)",
	             .log = 1, .ref = 1.0, .nmark = 3,
	             .mark_name = {peer_name[0], peer_name[1], peer_name[2]},
	             .bar_name = "vs best of PyTorch", .rows = rows, .n = n};
	if (n && nlog)
		rp_svg_hbar(b, &c);
	/* peers that failed are recorded with their error, never dropped */
	int head = 0;
	for (int i = 0; i < D->np; i++) {
		const rp_problem *p = &D->p[i];
		const char *key;
		json_t *v;
		if (!p->res)
			continue;
		json_object_foreach(p->res, key, v) {
			size_t kl = strlen(key);
			if (kl < 6 || strcmp(key + kl - 6, "_error") ||
			    strncmp(key, "torch_", 6) || !json_is_string(v))
				continue;
			if (!head++)
				krl_strbuf_str(b, "<table><tr><th>problem</th><th>peer"
				                  "</th><th>error</th></tr>\n");
			krl_strbuf_str(b, "<tr><td>");
			rp_escz(b, p->name);
			krl_strbuf_str(b, "</td><td>");
			rp_esc(b, key, kl - 6);
			krl_strbuf_str(b, "</td><td>");
			rp_escz(b, json_string_value(v));
			krl_strbuf_str(b, "</td></tr>\n");
		}
	}
	if (head)
		krl_strbuf_str(b, "</table>\n");
}

static void verdict_section(krl_strbuf *b, const rp_data *D)
{
	krl_strbuf_str(b, "<h2 id=\"verdicts\">Verdict mix</h2>\n");
	if (!D->nr || !D->verdicts.n) {
		krl_strbuf_str(b, "<p class=\"note\">No evaluations in the store"
		                  "</p>\n");
		return;
	}
	int nv = D->verdicts.n, nrows = D->nr + 1;
	long *counts = calloc((size_t)nrows * (size_t)nv, sizeof *counts);
	const char **labels = calloc((size_t)nrows, sizeof *labels);
	if (!counts || !labels) {
		free(counts);
		free(labels);
		b->oom = 1;
		return;
	}
	labels[0] = "all runs";
	for (int r = 0; r < D->nr; r++) {
		labels[r + 1] = D->r[r].name;
		for (int k = 0; k < nv; k++) {
			counts[(r + 1) * nv + k] = D->r[r].counts[k];
			counts[k] += D->r[r].counts[k];
		}
	}
	krl_strbuf_printf(b, "<p class=\"note\">Every evaluation in the store by "
	                     "verdict, per run (%d runs, %lld evaluations).</p>\n",
	                  D->nr, (long long)D->evals);
	rp_svg_stack(b, labels, nrows, (const char *const *)D->verdicts.v, nv,
	             counts);
	krl_strbuf_str(b, "<table><tr><th>verdict</th><th>evaluations</th></tr>\n");
	for (int k = 0; k < nv; k++) {
		krl_strbuf_str(b, "<tr><td>");
		rp_escz(b, D->verdicts.v[k]);
		krl_strbuf_printf(b, "</td><td class=\"n\">%ld</td></tr>\n", counts[k]);
	}
	krl_strbuf_str(b, "</table>\n");
	free(counts);
	free(labels);
}

static void curve_section(krl_strbuf *b, const rp_data *D)
{
	krl_strbuf_str(b, "<h2 id=\"learning\">Best speedup against evaluations "
	                  "spent</h2>\n");
	rp_series *s = calloc((size_t)D->nr + 1, sizeof *s);
	double **norm = calloc((size_t)D->nr + 1, sizeof *norm);
	if (!s || !norm) {
		free(s);
		free(norm);
		b->oom = 1;
		return;
	}
	int n = 0;
	double ymax = 1;
	for (int r = 0; r < D->nr; r++) {
		const rp_run *R = &D->r[r];
		if (!R->ncurve || !isfinite(R->curve[R->ncurve - 1]))
			continue;
		s[n].label = R->name;
		s[n].y = R->curve;
		s[n].n = R->ncurve;
		if (R->curve[R->ncurve - 1] > ymax)
			ymax = R->curve[R->ncurve - 1];
		n++;
	}
	if (!n) {
		krl_strbuf_str(b, "<p class=\"note\">No run in the store reached a "
		                  "correct candidate.</p>\n");
		goto out;
	}
	krl_strbuf_printf(b, "<p class=\"note\">One line per run (%d), in the "
	                     "store's evaluation order: the best speedup over "
	                     "kernelrl's eager reference found after each "
	                     "evaluation (nothing drawn before the first correct "
	                     "candidate). Hover a line for its run.</p>\n", n);
	rp_svg_lines(b, "evaluations spent", "best speedup (x)", s, n,
	             ceil(ymax * 1.05 * 10) / 10);
	/* the same, each run relative to its own final best: how soon the
	 * search gets there */
	for (int i = 0; i < n; i++) {
		double fin = s[i].y[s[i].n - 1];
		if (!(norm[i] = malloc(sizeof **norm * (size_t)s[i].n))) {
			b->oom = 1;
			goto out;
		}
		for (int j = 0; j < s[i].n; j++)
			norm[i][j] = s[i].y[j] / fin;
		s[i].y = norm[i];
	}
	krl_strbuf_str(b, "<p class=\"note\">Relative to each run's final best "
	                  "(1.0 = the best it found):</p>\n");
	rp_svg_lines(b, "evaluations spent", "fraction of the run's best", s, n,
	             1.0);
out:
	for (int i = 0; i <= D->nr; i++)
		free(norm[i]);
	free(norm);
	free(s);
}

static void roofline_section(krl_strbuf *b, const rp_data *D, rp_row *rows,
                             href_t *hrefs)
{
	int n = 0, wrong = 0;
	double *vals = malloc(sizeof *vals * (size_t)(D->np ? D->np : 1));
	if (!vals) {
		b->oom = 1;
		return;
	}
	krl_strbuf_str(b, "<h2 id=\"roofline\">Roofline fraction</h2>\n");
	for (int i = 0; i < D->np; i++) {
		double f = roofline_of(&D->p[i]);
		if (!isfinite(f))
			continue;
		rp_row *r = &rows[n];
		memset(r, 0, sizeof *r);
		r->label = D->p[i].name;
		r->href = hrefs[i];
		r->v = f;
		r->lo = r->hi = NAN;
		for (int k = 0; k < RP_MARKS; k++)
			r->mark[k] = NAN;
		if (f > 1.0) {
			r->flag = "ceiling wrong";
			wrong++;
		}
		vals[n++] = f;
	}
	if (!n) {
		krl_strbuf_str(b, "<p class=\"note\">No roofline fractions in the "
		                  "inputs.</p>\n");
		free(vals);
		return;
	}
	qsort(vals, (size_t)n, sizeof *vals, dcmp);
	double med = n % 2 ? vals[n / 2] : (vals[n / 2 - 1] + vals[n / 2]) / 2;
	krl_strbuf_printf(b, "<p class=\"note\">The best candidate's time over "
	                     "the floor its bytes and flops allow (copy bandwidth "
	                     "and the fp32 rate the judge measured on this GPU); "
	                     "median <b>%.2f</b> over %d problems.</p>\n", med, n);
	if (wrong)
		krl_strbuf_printf(b, "<p class=\"warn\"><b>%d fraction%s above "
		                     "1.0:</b> a candidate cannot beat its floor, so "
		                     "the ceiling used for %s is wrong (e.g. a "
		                     "tensor-core or TF32 rate the fp32 ceiling does "
		                     "not count, or bytes counted that the candidate "
		                     "never moves). Drawn in red, not hidden.</p>\n",
		                  wrong, wrong > 1 ? "s" : "",
		                  wrong > 1 ? "those problems" : "that problem");
	rp_hbar c = {.axis = "fraction of the roofline floor (1.0 = at the "
	                     "ceiling)",
	             .log = 0, .ref = 1.0, .bar_name = "roofline fraction",
	             .rows = rows, .n = n};
	rp_svg_hbar(b, &c);
	free(vals);
}

static void candidates_section(krl_strbuf *b, const rp_data *D,
                               const krl_report_opts *o)
{
	size_t cap = o->max_source ? o->max_source : 64 * 1024;
	krl_strbuf_str(b, "<h2 id=\"candidates\">Best candidate per problem</h2>\n");
	krl_strbuf_printf(b, "<p class=\"note\">What each problem's best correct "
	                     "candidate in the store does (its stored "
	                     "description) and its source. Sources are embedded "
	                     "up to %zu bytes each and %zu bytes in all",
	                  cap,
	                  o->max_sources_total ? o->max_sources_total
	                                       : (size_t)8 * 1024 * 1024);
	if (D->sources_cut || D->sources_left_out)
		krl_strbuf_printf(b, ": here %d source%s cut and %d left out "
		                     "(read them with the store's candidate hash)",
		                  D->sources_cut, D->sources_cut == 1 ? "" : "s",
		                  D->sources_left_out);
	krl_strbuf_str(b, ".</p>\n<table><tr><th>problem</th><th>speedup [95% "
	                  "CI]</th><th>vs best of PyTorch</th><th>evaluations"
	                  "</th><th>what the best candidate does</th></tr>\n");
	for (int i = 0; i < D->np; i++) {
		const rp_problem *p = &D->p[i];
		double v, lo, hi;
		speedup_of(p, &v, &lo, &hi);
		krl_strbuf_printf(b, "<tr id=\"p%d\"><td><code>", i);
		rp_escz(b, p->name);
		krl_strbuf_str(b, "</code></td><td class=\"n\">");
		if (isfinite(v)) {
			rp_num(b, "%.3fx", v);
			krl_strbuf_str(b, " [");
			rp_num(b, "%.3f", lo);
			krl_strbuf_str(b, ", ");
			rp_num(b, "%.3f", hi);
			krl_strbuf_str(b, "]");
		} else {
			krl_strbuf_str(b, "-");
		}
		krl_strbuf_str(b, "</td><td class=\"n\">");
		double vb = vs_peer(p, "best_torch_ms");
		if (isfinite(vb))
			rp_num(b, "%.3fx", vb);
		else
			krl_strbuf_str(b, "-");
		krl_strbuf_str(b, "</td><td class=\"n\">");
		double ev = rp_res_num(p, "evaluations");
		if (p->evals)
			krl_strbuf_printf(b, "%lld (%lld correct)", (long long)p->evals,
			                  (long long)p->ok);
		else
			rp_num(b, "%.0f", ev);
		krl_strbuf_str(b, "</td><td>");
		if (p->what && *p->what)
			rp_escz(b, p->what);
		else if (p->hash[0])
			krl_strbuf_str(b, "<span class=\"note\">no description stored"
			                  "</span>");
		else if (!o->db)
			krl_strbuf_str(b, "<span class=\"note\">no store given</span>");
		else
			krl_strbuf_str(b, "<span class=\"note\">no correct candidate in "
			                  "the store</span>");
		if (p->hash[0]) {
			krl_strbuf_str(b, "<br><span class=\"note\">candidate <code>");
			rp_esc(b, p->hash, 16);
			krl_strbuf_str(b, "</code></span>");
		}
		if (p->source) {
			krl_strbuf_printf(b, "<details><summary>source (%zu bytes%s)"
			                     "</summary><pre><code>",
			                  p->source_len,
			                  p->source_cut ? ", cut here" : "");
			rp_escz(b, p->source);
			if (p->source_cut)
				krl_strbuf_printf(b, "\n[... %zu more bytes not embedded]",
				                  p->source_len - strlen(p->source));
			krl_strbuf_str(b, "</code></pre></details>");
		} else if (p->source_left_out) {
			krl_strbuf_printf(b, "<br><span class=\"note\">source (%zu bytes) "
			                     "left out: the page's cap on embedded "
			                     "sources was reached</span>", p->source_len);
		}
		krl_strbuf_str(b, "</td></tr>\n");
	}
	krl_strbuf_str(b, "</table>\n");
}

/* ==== The document ==== */

krl_err krl_report_write(const krl_report_opts *o, FILE *out, krl_diag *d)
{
	rp_data D;
	krl_err e = rp_data_load(o, &D, d);
	if (e) {
		rp_data_free(&D);
		return e;
	}
	krl_strbuf b = {0};
	size_t nrow = (size_t)(D.np ? D.np : 1);
	rp_row *rows = calloc(nrow, sizeof *rows);
	href_t *hrefs = calloc(nrow, sizeof *hrefs);
	if (!rows || !hrefs) {
		e = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
		goto out;
	}
	for (int i = 0; i < D.np; i++)
		snprintf(hrefs[i], sizeof hrefs[i], "#p%d", i);
	krl_strbuf_str(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	                   "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
	                   "content=\"width=device-width, initial-scale=1\">\n"
	                   "<title>");
	rp_escz(&b, o->title ? o->title : "kernelrl report");
	krl_strbuf_printf(&b, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
	header(&b, o, &D);
	krl_strbuf_str(&b, "<p class=\"note\">Sections: <a href=\"#speedup\">"
	                   "speedup</a> &middot; <a href=\"#peers\">against "
	                   "PyTorch</a> &middot; <a href=\"#verdicts\">verdict "
	                   "mix</a> &middot; <a href=\"#learning\">learning curve"
	                   "</a> &middot; <a href=\"#roofline\">roofline</a> "
	                   "&middot; <a href=\"#candidates\">best candidates</a>"
	                   "</p>\n");
	speedup_section(&b, &D, rows, hrefs);
	peers_section(&b, &D, rows, hrefs);
	verdict_section(&b, &D);
	curve_section(&b, &D);
	roofline_section(&b, &D, rows, hrefs);
	candidates_section(&b, &D, o);
	krl_strbuf_str(&b, "<p class=\"note\">Made by <code>krl report</code>; "
	                   "this page loads nothing from the network.</p>\n"
	                   "</body>\n</html>\n");
	if (b.oom) {
		e = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0},
		                 "out of memory building the report");
		goto out;
	}
	if (fwrite(b.z, 1, b.len, out) != b.len || fflush(out) != 0)
		e = krl_diag_set(d, KRL_EIO, (krl_pos){0}, "cannot write the report");
out:
	krl_strbuf_free(&b);
	free(rows);
	free(hrefs);
	rp_data_free(&D);
	return e;
}
