/*
 * The report's chart primitives (src/report/report_int.h): horizontal bar
 * charts with intervals and markers, stacked bars, and line charts, written
 * as inline SVG. Text inside a chart is escaped like the rest of the page;
 * hover text is an SVG <title>, so the page needs no script.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"

/* Layout, in SVG user units (pixels at 100%). */
#define W 1000
#define LABEL_W 360
#define PLOT_W 440
#define ROW_H 16
#define TOP 34
#define BOTTOM 40
#define LABEL_MAX 60 /* characters of a row label shown; the rest in <title> */

static const char *const mark_colour[RP_MARKS] = {"#d62728", "#9467bd",
                                                  "#ff7f0e", "#17becf"};
static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c",
                                      "#d62728", "#9467bd", "#8c564b",
                                      "#e377c2", "#7f7f7f", "#bcbd22",
                                      "#17becf"};

const char *rp_verdict_colour(const char *v)
{
	static const struct { const char *name, *colour; } known[] = {
		{"ok", "#2ca02c"},           {"wrong_output", "#d62728"},
		{"compile_error", "#ff7f0e"}, {"runtime_error", "#e377c2"},
		{"timeout", "#8c564b"},      {"slower", "#bcbd22"},
		{"no_candidate", "#7f7f7f"}, {"rejected", "#9467bd"},
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (!strcmp(v, known[i].name))
			return known[i].colour;
	/* anything else: a stable colour from the name */
	unsigned h = 5381;
	for (const char *p = v; *p; p++)
		h = h * 33 + (unsigned char)*p;
	return palette[h % (sizeof palette / sizeof *palette)];
}

/* A row label, cut to LABEL_MAX characters with an ellipsis. */
static void label_text(krl_strbuf *b, const char *z)
{
	size_t n = strlen(z);
	if (n <= LABEL_MAX) {
		rp_escz(b, z);
		return;
	}
	/* cut at a character boundary */
	size_t k = LABEL_MAX - 1;
	while (k > 0 && ((unsigned char)z[k] & 0xc0) == 0x80)
		k--;
	rp_esc(b, z, k);
	krl_strbuf_str(b, "\xe2\x80\xa6");
}

/* ==== Scales ==== */

typedef struct scale {
	int log;
	double lo, hi; /* the domain */
	double x0, w;  /* the range */
} scale;

static double sx(const scale *s, double v)
{
	if (s->log) {
		if (v < s->lo)
			v = s->lo;
		return s->x0 + s->w * (log(v) - log(s->lo)) / (log(s->hi) - log(s->lo));
	}
	return s->x0 + s->w * (v - s->lo) / (s->hi - s->lo);
}

/* Appends x-axis ticks with labels and grid lines from y0 to y1. */
static void ticks(krl_strbuf *b, const scale *s, double y0, double y1)
{
	double t[64];
	int n = 0;
	if (s->log) {
		static const double m[] = {1, 2, 5};
		double span = log10(s->hi / s->lo);
		for (int e = (int)floor(log10(s->lo)) - 1;
		     e <= (int)ceil(log10(s->hi)) && n < 60; e++)
			for (int k = 0; k < 3 && n < 60; k++) {
				if (span > 2.5 && k > 0)
					continue; /* decades only on wide ranges */
				double v = m[k] * pow(10, e);
				if (v >= s->lo * 0.999 && v <= s->hi * 1.001)
					t[n++] = v;
			}
	} else {
		double raw = (s->hi - s->lo) / 6, p = pow(10, floor(log10(raw)));
		double step = raw / p < 1.5 ? p : raw / p < 3.5 ? 2 * p
		                                 : raw / p < 7.5 ? 5 * p : 10 * p;
		for (double v = ceil(s->lo / step) * step;
		     v <= s->hi + step * 1e-9 && n < 60; v += step)
			t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	for (int i = 0; i < n; i++) {
		double x = sx(s, t[i]);
		krl_strbuf_printf(b,
		                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		                  "y2=\"%.1f\" class=\"grid\"/>"
		                  "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">%g</text>\n",
		                  x, y0, x, y1, x, y1 + 14, t[i]);
	}
}

/* Widens [*lo, *hi] by v when v is a usable value. */
static void extend(double v, int log_scale, double *lo, double *hi)
{
	if (!isfinite(v) || (log_scale && v <= 0))
		return;
	if (v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

/* ==== Markers ==== */

static void marker(krl_strbuf *b, int k, double x, double y, const char *tip,
                   double v)
{
	const char *c = mark_colour[k % RP_MARKS];
	krl_strbuf_str(b, "<g>");
	switch (k % RP_MARKS) {
	case 0:
		krl_strbuf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
		                     "fill=\"%s\"/>", x, y, c);
		break;
	case 1:
		krl_strbuf_printf(b, "<path d=\"M%.1f %.1fl4 4l-4 4l-4 -4z\" "
		                     "fill=\"%s\"/>", x, y - 4, c);
		break;
	case 2:
		krl_strbuf_printf(b, "<path d=\"M%.1f %.1fl4 7h-8z\" fill=\"%s\"/>",
		                  x, y - 4, c);
		break;
	default:
		krl_strbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" "
		                     "height=\"7\" fill=\"none\" stroke=\"%s\" "
		                     "stroke-width=\"1.5\"/>", x - 3.5, y - 3.5, c);
	}
	krl_strbuf_str(b, "<title>");
	rp_escz(b, tip);
	if (isfinite(v))
		krl_strbuf_printf(b, ": %.3f", v);
	krl_strbuf_str(b, "</title></g>");
}

/* ==== Horizontal bars ==== */

void rp_svg_hbar(krl_strbuf *b, const rp_hbar *c)
{
	double lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < c->n; i++) {
		const rp_row *r = &c->rows[i];
		extend(r->v, c->log, &lo, &hi);
		extend(r->lo, c->log, &lo, &hi);
		extend(r->hi, c->log, &lo, &hi);
		for (int k = 0; k < c->nmark; k++)
			extend(r->mark[k], c->log, &lo, &hi);
	}
	extend(c->ref, c->log, &lo, &hi);
	if (!isfinite(lo)) {
		lo = c->log ? 0.5 : 0;
		hi = c->log ? 2 : 1;
	}
	scale s = {c->log, lo, hi, LABEL_W, PLOT_W};
	if (c->log) {
		s.lo = lo / 1.15;
		s.hi = hi * 1.15;
	} else {
		s.lo = lo < 0 ? lo * 1.1 : 0;
		s.hi = hi > 0 ? hi * 1.1 : 1;
	}
	int h = TOP + c->n * ROW_H + BOTTOM;
	krl_strbuf_printf(b, "<svg "
	                     "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	                     "role=\"img\">\n", W, h, W, h);
	/* legend, from the left edge: about 6.2 units a character */
	int any_ci = 0;
	for (int i = 0; i < c->n; i++)
		any_ci |= isfinite(c->rows[i].lo) && isfinite(c->rows[i].hi);
	double lx = 10;
	krl_strbuf_printf(b, "<rect x=\"%.0f\" y=\"8\" width=\"14\" height=\"10\" "
	                     "class=\"bar\"/><text x=\"%.0f\" y=\"17\">",
	                  lx, lx + 18);
	rp_escz(b, c->bar_name);
	if (any_ci)
		krl_strbuf_str(b, " (whisker: 95% interval)");
	krl_strbuf_str(b, "</text>\n");
	lx += 18 + 6.2 * (double)(strlen(c->bar_name ? c->bar_name : "") +
	                          (any_ci ? 24 : 0)) + 20;
	for (int k = 0; k < c->nmark; k++) {
		marker(b, k, lx, 13, c->mark_name[k], NAN);
		krl_strbuf_printf(b, "<text x=\"%.0f\" y=\"17\">", lx + 8);
		rp_escz(b, c->mark_name[k]);
		krl_strbuf_str(b, "</text>\n");
		lx += 28 + 6.2 * (double)strlen(c->mark_name[k]);
	}
	double y0 = TOP, y1 = TOP + c->n * ROW_H;
	ticks(b, &s, y0, y1);
	double base = isfinite(c->ref) ? c->ref : (c->log ? s.lo : 0);
	if (isfinite(c->ref))
		krl_strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		                     "y2=\"%.1f\" class=\"ref\"/>\n",
		                  sx(&s, c->ref), y0 - 4, sx(&s, c->ref), y1);
	for (int i = 0; i < c->n; i++) {
		const rp_row *r = &c->rows[i];
		double y = TOP + i * ROW_H, ym = y + ROW_H / 2.0;
		if (r->href) {
			krl_strbuf_str(b, "<a href=\"");
			rp_escz(b, r->href);
			krl_strbuf_str(b, "\">");
		}
		krl_strbuf_printf(b, "<text x=\"%d\" y=\"%.1f\" class=\"label\">"
		                     "<title>", LABEL_W - 6, ym + 4);
		rp_escz(b, r->label);
		krl_strbuf_str(b, "</title>");
		label_text(b, r->label);
		krl_strbuf_str(b, "</text>");
		if (r->href)
			krl_strbuf_str(b, "</a>");
		krl_strbuf_str(b, "\n");
		if (isfinite(r->v) && (!c->log || r->v > 0)) {
			double a = sx(&s, base), z = sx(&s, r->v);
			krl_strbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			                     "height=\"%d\" class=\"%s\"><title>",
			                  fmin(a, z), y + 3, fabs(z - a) < 1 ? 1 : fabs(z - a),
			                  ROW_H - 6, r->flag ? "bar flagged" : "bar");
			rp_escz(b, r->label);
			krl_strbuf_printf(b, ": %.3f", r->v);
			if (isfinite(r->lo) && isfinite(r->hi))
				krl_strbuf_printf(b, " [%.3f, %.3f]", r->lo, r->hi);
			krl_strbuf_str(b, "</title></rect>");
			if (isfinite(r->lo) && isfinite(r->hi) &&
			    (!c->log || (r->lo > 0 && r->hi > 0))) {
				double l = sx(&s, r->lo), u = sx(&s, r->hi);
				krl_strbuf_printf(b,
				                  "<path d=\"M%.1f %.1fv6M%.1f %.1fH%.1fM%.1f "
				                  "%.1fv6\" class=\"ci\"/>",
				                  l, ym - 3, l, ym, u, u, ym - 3);
			}
		}
		for (int k = 0; k < c->nmark; k++)
			if (isfinite(r->mark[k]) && (!c->log || r->mark[k] > 0))
				marker(b, k, sx(&s, r->mark[k]), ym, c->mark_name[k],
				       r->mark[k]);
		/* the numbers in a column of their own, right of the plot (a
		 * row without a value says why where its bar would be) */
		double tx = isfinite(r->v) ? LABEL_W + PLOT_W + 12 : LABEL_W + 4;
		krl_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" class=\"%s\">",
		                  tx, ym + 4, r->flag ? "val flag" : "val");
		if (isfinite(r->v))
			krl_strbuf_printf(b, "%.3f", r->v);
		else if (!r->flag)
			krl_strbuf_str(b, "no value");
		if (r->flag) {
			krl_strbuf_str(b, isfinite(r->v) ? " " : "");
			rp_escz(b, r->flag);
		}
		krl_strbuf_str(b, "</text>\n");
	}
	krl_strbuf_printf(b, "<text x=\"%.1f\" y=\"%d\" class=\"axis\">", LABEL_W + PLOT_W / 2.0,
	                  h - 6);
	rp_escz(b, c->axis);
	krl_strbuf_str(b, c->log ? " (log scale)</text>\n</svg>\n" : "</text>\n</svg>\n");
}

/* ==== Stacked bars ==== */

void rp_svg_stack(krl_strbuf *b, const char *const *rows, int nrows,
                  const char *const *names, int nnames, const long *counts)
{
	long max = 1;
	for (int r = 0; r < nrows; r++) {
		long t = 0;
		for (int k = 0; k < nnames; k++)
			t += counts[r * nnames + k];
		if (t > max)
			max = t;
	}
	int h = TOP + nrows * ROW_H + BOTTOM;
	krl_strbuf_printf(b, "<svg "
	                     "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	                     "role=\"img\">\n", W, h, W, h);
	double lx = LABEL_W;
	for (int k = 0; k < nnames; k++) {
		krl_strbuf_printf(b, "<rect x=\"%.0f\" y=\"8\" width=\"12\" "
		                     "height=\"10\" fill=\"%s\"/><text x=\"%.0f\" "
		                     "y=\"17\">", lx, rp_verdict_colour(names[k]),
		                  lx + 15);
		rp_escz(b, names[k]);
		krl_strbuf_str(b, "</text>\n");
		lx += 24 + 6.5 * (double)strlen(names[k]);
	}
	scale s = {0, 0, (double)max, LABEL_W, PLOT_W};
	ticks(b, &s, TOP, TOP + nrows * ROW_H);
	for (int r = 0; r < nrows; r++) {
		double y = TOP + r * ROW_H, x = LABEL_W;
		long t = 0;
		krl_strbuf_printf(b, "<text x=\"%d\" y=\"%.1f\" class=\"label\">"
		                     "<title>", LABEL_W - 6, y + ROW_H / 2.0 + 4);
		rp_escz(b, rows[r]);
		krl_strbuf_str(b, "</title>");
		label_text(b, rows[r]);
		krl_strbuf_str(b, "</text>\n");
		for (int k = 0; k < nnames; k++) {
			long n = counts[r * nnames + k];
			if (!n)
				continue;
			double w = PLOT_W * (double)n / (double)max;
			krl_strbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			                     "height=\"%d\" fill=\"%s\"><title>",
			                  x, y + 2, w, ROW_H - 4,
			                  rp_verdict_colour(names[k]));
			rp_escz(b, names[k]);
			krl_strbuf_printf(b, ": %ld</title></rect>", n);
			if (w >= 18)
				krl_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" "
				                     "class=\"inbar\">%ld</text>",
				                  x + w / 2, y + ROW_H / 2.0 + 4, n);
			krl_strbuf_str(b, "\n");
			x += w;
			t += n;
		}
		krl_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" class=\"val\">%ld"
		                     "</text>\n", x + 6, y + ROW_H / 2.0 + 4, t);
	}
	krl_strbuf_printf(b, "<text x=\"%.1f\" y=\"%d\" class=\"axis\">"
	                     "evaluations</text>\n</svg>\n",
	                  LABEL_W + PLOT_W / 2.0, h - 6);
}

/* ==== Lines ==== */

void rp_svg_lines(krl_strbuf *b, const char *xaxis, const char *yaxis,
                  const rp_series *ser, int n, double ymax)
{
	const int h = 360, left = 70, right = 30, top = 20, bottom = 50;
	int maxn = 1;
	for (int i = 0; i < n; i++)
		if (ser[i].n > maxn)
			maxn = ser[i].n;
	scale xs = {0, 1, maxn > 1 ? (double)maxn : 2, left, W - left - right};
	double pw = h - top - bottom;
	krl_strbuf_printf(b, "<svg "
	                     "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	                     "role=\"img\">\n", W, h, W, h);
	ticks(b, &xs, top, h - bottom);
	for (int k = 0; k <= 5; k++) {
		double v = ymax * k / 5, y = top + pw * (1 - (double)k / 5);
		krl_strbuf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
		                     "y2=\"%.1f\" class=\"grid\"/><text x=\"%d\" "
		                     "y=\"%.1f\" class=\"label\">%g</text>\n",
		                  left, y, W - right, y, left - 6, y + 4, v);
	}
	for (int i = 0; i < n; i++) {
		const char *col = palette[i % (sizeof palette / sizeof *palette)];
		krl_strbuf_printf(b, "<g class=\"series\" stroke=\"%s\"><title>", col);
		rp_escz(b, ser[i].label);
		krl_strbuf_str(b, "</title>");
		int open = 0;
		double py = 0;
		for (int j = 0; j < ser[i].n; j++) {
			double v = ser[i].y[j];
			if (!isfinite(v)) {
				if (open)
					krl_strbuf_str(b, "\"/>");
				open = 0;
				continue;
			}
			if (v > ymax)
				v = ymax;
			double x = sx(&xs, j + 1), y = top + pw * (1 - v / ymax);
			if (!open)
				krl_strbuf_str(b, "<polyline points=\"");
			/* a step: the best holds until the next evaluation */
			if (open)
				krl_strbuf_printf(b, " %.1f,%.1f", x, py);
			krl_strbuf_printf(b, "%s%.1f,%.1f", open ? " " : "", x, y);
			open = 1;
			py = y;
		}
		if (open)
			krl_strbuf_str(b, "\"/>");
		krl_strbuf_str(b, "</g>\n");
	}
	krl_strbuf_printf(b, "<text x=\"%.1f\" y=\"%d\" class=\"axis\">", left + (W - left - right) / 2.0,
	                  h - 8);
	rp_escz(b, xaxis);
	krl_strbuf_printf(b, "</text><text x=\"14\" y=\"%.1f\" class=\"axis\" "
	                     "transform=\"rotate(-90 14 %.1f)\">",
	                  top + pw / 2, top + pw / 2);
	rp_escz(b, yaxis);
	krl_strbuf_str(b, "</text>\n</svg>\n");
}
