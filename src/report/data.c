/*
 * The report's data (src/report/report_int.h): the results files' lines
 * merged per problem, and from the store every run with its verdict counts
 * and learning curve, and every problem's best correct candidate with what
 * it does and its source (capped).
 *
 * The store API has no listing of runs, so the runs' names, task, status
 * and dates are read here with one read-only query of the runs table
 * (docs/store.md's schema, version 1); everything else goes through
 * include/krl/store.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "krl/store.h"
#include "report/report_int.h"

#define MAX_VERDICTS 32 /* distinct verdict names kept; more count as "other" */

/* ==== String sets ==== */

void rp_set_add(rp_set *s, const char *z)
{
	if (!z || !*z)
		return;
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], z))
			return;
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 8;
		char **v = realloc(s->v, sizeof *v * (size_t)cap);
		if (!v)
			return;
		s->v = v;
		s->cap = cap;
	}
	if ((s->v[s->n] = strdup(z)))
		s->n++;
}

void rp_set_free(rp_set *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* ==== Problems ==== */

/* Natural order: digit runs compare as numbers (level1/2 before
 * level1/10). */
static int natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t la = 0, lb = 0;
			while (isdigit((unsigned char)a[la]))
				la++;
			while (isdigit((unsigned char)b[lb]))
				lb++;
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
		} else {
			if (*a != *b)
				return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
			a++;
			b++;
		}
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int problem_cmp(const void *x, const void *y)
{
	return natcmp(((const rp_problem *)x)->name, ((const rp_problem *)y)->name);
}

/* The problem called name, created when missing; NULL when out of memory. */
static rp_problem *problem(rp_data *D, const char *name)
{
	for (int i = 0; i < D->np; i++)
		if (!strcmp(D->p[i].name, name))
			return &D->p[i];
	if (D->np == D->capp) {
		int cap = D->capp ? 2 * D->capp : 32;
		rp_problem *p = realloc(D->p, sizeof *p * (size_t)cap);
		if (!p)
			return NULL;
		D->p = p;
		D->capp = cap;
	}
	rp_problem *p = &D->p[D->np];
	memset(p, 0, sizeof *p);
	p->best = p->lo = p->hi = p->roof = NAN;
	if (!(p->name = strdup(name)))
		return NULL;
	D->np++;
	return p;
}

double rp_res_num(const rp_problem *p, const char *key)
{
	const json_t *v = p->res ? json_object_get(p->res, key) : NULL;
	return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *rp_res_str(const rp_problem *p, const char *key)
{
	return p->res ? json_string_value(json_object_get(p->res, key)) : NULL;
}

static void date_range(rp_data *D, const char *z)
{
	if (!z || !*z || strlen(z) >= sizeof D->date_lo)
		return;
	if (!D->date_lo[0] || strcmp(z, D->date_lo) < 0)
		snprintf(D->date_lo, sizeof D->date_lo, "%s", z);
	if (!D->date_hi[0] || strcmp(z, D->date_hi) > 0)
		snprintf(D->date_hi, sizeof D->date_hi, "%s", z);
}

/* ==== Results files ==== */

static const char *const peer_keys[] = {"torch_eager_ms", "torch_graph_ms",
                                        "torch_compile_ms", "best_torch_ms",
                                        "vs_best_torch"};

/* Merges one results line into its problem: a field already set keeps its
 * value unless that was null (the first file given wins). */
static krl_err merge_line(rp_data *D, json_t *line, const char *path, long ln,
                          krl_diag *d)
{
	const char *name = json_string_value(json_object_get(line, "problem"));
	if (!name)
		name = json_string_value(json_object_get(line, "task"));
	if (!name || !*name)
		return krl_diag_set(d, KRL_ESYNTAX, (krl_pos){0},
		                    "%s:%ld: a results line needs a \"problem\" (or "
		                    "\"task\") string", path, ln);
	rp_problem *p = problem(D, name);
	if (!p)
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
	if (!p->res && !(p->res = json_object()))
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
	const char *key;
	json_t *v;
	json_object_foreach(line, key, v) {
		json_t *old = json_object_get(p->res, key);
		if (!old || json_is_null(old))
			json_object_set(p->res, key, v);
	}
	rp_set_add(&D->commits, json_string_value(json_object_get(line, "commit")));
	rp_set_add(&D->gpus, json_string_value(json_object_get(line, "gpu")));
	rp_set_add(&D->shapes, json_string_value(json_object_get(line, "shapes")));
	rp_set_add(&D->torch,
	           json_string_value(json_object_get(line, "torch_version")));
	date_range(D, json_string_value(json_object_get(line, "date")));
	for (size_t k = 0; k < sizeof peer_keys / sizeof *peer_keys; k++)
		if (json_is_number(json_object_get(line, peer_keys[k])))
			D->peers = 1;
	return KRL_OK;
}

static krl_err load_results(rp_data *D, const char *path, krl_diag *d)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return krl_diag_set(d, errno == ENOENT ? KRL_ENOTFOUND : KRL_EIO,
		                    (krl_pos){0}, "cannot read results file %s: %s",
		                    path, strerror(errno));
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	long ln = 0;
	krl_err e = KRL_OK;
	while (!e && (n = getline(&buf, &cap, f)) >= 0) {
		ln++;
		size_t i = 0;
		while (i < (size_t)n && isspace((unsigned char)buf[i]))
			i++;
		if (i == (size_t)n)
			continue;
		json_error_t je;
		json_t *line = json_loadb(buf, (size_t)n, JSON_DISABLE_EOF_CHECK, &je);
		if (!json_is_object(line))
			e = krl_diag_set(d, KRL_ESYNTAX, (krl_pos){0},
			                 "%s:%ld: not a JSON object%s%s", path, ln,
			                 line ? "" : ": ", line ? "" : je.text);
		else
			e = merge_line(D, line, path, ln, d);
		json_decref(line);
	}
	if (!e && ferror(f))
		e = krl_diag_set(d, KRL_EIO, (krl_pos){0}, "cannot read %s", path);
	free(buf);
	fclose(f);
	return e;
}

/* ==== The store ==== */

static char *dup_col(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	return strdup(t ? (const char *)t : "");
}

/* Every run, in id order, from the runs table (read-only). */
static krl_err load_runs(rp_data *D, const char *db, krl_diag *d)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *q = NULL;
	krl_err e = KRL_OK;
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_busy_timeout(h, 10000) != SQLITE_OK ||
	    sqlite3_prepare_v2(h,
	                       "SELECT id, name, config, status, created, updated "
	                       "FROM runs ORDER BY id",
	                       -1, &q, NULL) != SQLITE_OK) {
		e = krl_diag_set(d, KRL_EIO, (krl_pos){0}, "store %s: %s", db,
		                 h ? sqlite3_errmsg(h) : "out of memory");
		goto out;
	}
	int rc, cap = 0;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (D->nr == cap) {
			cap = cap ? 2 * cap : 16;
			rp_run *r = realloc(D->r, sizeof *r * (size_t)cap);
			if (!r) {
				e = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
				goto out;
			}
			D->r = r;
		}
		rp_run *r = &D->r[D->nr];
		memset(r, 0, sizeof *r);
		D->nr++;
		r->id = sqlite3_column_int64(q, 0);
		r->name = dup_col(q, 1);
		json_t *cfg = json_loads((const char *)sqlite3_column_text(q, 2)
		                                 ? (const char *)sqlite3_column_text(q, 2)
		                                 : "{}",
		                         0, NULL);
		const char *task = json_string_value(json_object_get(cfg, "task"));
		r->task = strdup(task ? task : "");
		rp_set_add(&D->shapes,
		           json_string_value(json_object_get(cfg, "shapes")));
		json_decref(cfg);
		r->status = dup_col(q, 3);
		r->created = dup_col(q, 4);
		r->updated = dup_col(q, 5);
		r->counts = calloc(MAX_VERDICTS, sizeof *r->counts);
		if (!r->name || !r->task || !r->status || !r->created ||
		    !r->updated || !r->counts) {
			e = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
			goto out;
		}
		date_range(D, r->created);
		date_range(D, r->updated);
	}
	if (rc != SQLITE_DONE)
		e = krl_diag_set(d, KRL_EIO, (krl_pos){0}, "store %s: %s", db,
		                 sqlite3_errmsg(h));
out:
	sqlite3_finalize(q);
	sqlite3_close_v2(h);
	return e;
}

/* The value of the line of z that starts with key, malloc'd, or NULL. */
static char *line_value(const char *z, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = z; p && *p;) {
		if (!strncmp(p, key, kl)) {
			p += kl;
			while (*p == ' ')
				p++;
			return strndup(p, strcspn(p, "\r\n"));
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

typedef struct walk {
	rp_data *D;
	int oom;
} walk;

static int verdict_index(rp_data *D, const char *v)
{
	for (int i = 0; i < D->verdicts.n; i++)
		if (!strcmp(D->verdicts.v[i], v))
			return i;
	if (D->verdicts.n >= MAX_VERDICTS - 1)
		v = "other";
	rp_set_add(&D->verdicts, v);
	for (int i = 0; i < D->verdicts.n; i++)
		if (!strcmp(D->verdicts.v[i], v))
			return i;
	return -1;
}

static rp_run *run_of(rp_data *D, int64_t id)
{
	int lo = 0, hi = D->nr - 1;
	while (lo <= hi) {
		int m = (lo + hi) / 2;
		if (D->r[m].id == id)
			return &D->r[m];
		if (D->r[m].id < id)
			lo = m + 1;
		else
			hi = m - 1;
	}
	return NULL;
}

static int on_eval(const krl_eval_row *row, void *ctx)
{
	walk *W = ctx;
	rp_data *D = W->D;
	int ok = !strcmp(row->verdict, "ok") && isfinite(row->speedup) &&
	         row->speedup > 0;
	D->evals++;
	rp_run *r = run_of(D, row->run_id);
	int vi = verdict_index(D, row->verdict);
	if (r && vi >= 0) {
		r->counts[vi]++;
		if (r->ncurve == r->capcurve) {
			int cap = r->capcurve ? 2 * r->capcurve : 32;
			double *c = realloc(r->curve, sizeof *c * (size_t)cap);
			if (!c) {
				W->oom = 1;
				return 1;
			}
			r->curve = c;
			r->capcurve = cap;
		}
		double prev = r->ncurve ? r->curve[r->ncurve - 1] : NAN;
		double now = ok && !(prev >= row->speedup) ? row->speedup : prev;
		r->curve[r->ncurve++] = now;
	}
	rp_problem *p = problem(D, row->task);
	if (!p) {
		W->oom = 1;
		return 1;
	}
	p->evals++;
	if (!ok)
		return 0;
	p->ok++;
	json_t *rec = row->record ? json_loads(row->record, 0, NULL) : NULL;
	rp_set_add(&D->precisions,
	           json_string_value(json_object_get(rec, "precision")));
	rp_set_add(&D->timings,
	           json_string_value(json_object_get(rec, "timing_mode")));
	rp_set_add(&D->baselines,
	           json_string_value(json_object_get(rec, "baseline")));
	rp_set_add(&D->gpus, json_string_value(json_object_get(rec, "device")));
	if (!(p->best >= row->speedup)) {
		p->best = row->speedup;
		p->lo = row->ci_low;
		p->hi = row->ci_high;
		const json_t *f =
			json_object_get(json_object_get(rec, "roofline"), "fraction");
		p->roof = json_is_number(f) ? json_number_value(f) : NAN;
		snprintf(p->hash, sizeof p->hash, "%s", row->cand_hash);
		free(p->what);
		p->what = row->completion ? line_value(row->completion, "what:")
		                          : NULL;
	}
	json_decref(rec);
	return 0;
}

/* The best candidates' sources, each cut at max bytes, all together at
 * most total bytes (the rest left out, and said so on the page). */
static krl_err load_sources(rp_data *D, krl_store *st, size_t max,
                            size_t total, krl_diag *d)
{
	for (int i = 0; i < D->np; i++) {
		rp_problem *p = &D->p[i];
		if (!p->hash[0])
			continue;
		char *src = NULL;
		krl_err e = krl_store_get_candidate(st, p->hash, &src, d);
		if (e == KRL_ENOTFOUND)
			continue;
		if (e)
			return e;
		p->source_len = strlen(src);
		size_t keep = p->source_len < max ? p->source_len : max;
		if (D->sources_bytes + keep > total) {
			p->source_left_out = 1;
			D->sources_left_out++;
			free(src);
			continue;
		}
		if (keep < p->source_len) {
			p->source_cut = 1;
			D->sources_cut++;
			src[keep] = 0;
		}
		D->sources_bytes += keep;
		p->source = src;
		/* no stored description: the source's first comment line */
		if ((!p->what || !*p->what) && src) {
			const char *c = strstr(src, "//");
			const char *c2 = strstr(src, "/*");
			if (!c || (c2 && c2 < c))
				c = c2;
			if (c) {
				c += 2;
				while (*c == ' ' || *c == '*')
					c++;
				free(p->what);
				char *w = strndup(c, strcspn(c, "\r\n"));
				p->what = w ? krl_fmt("(from the source) %s", w) : NULL;
				free(w);
			}
		}
	}
	return KRL_OK;
}

static krl_err load_store(rp_data *D, const krl_report_opts *o, krl_diag *d)
{
	if (access(o->db, R_OK) != 0)
		return krl_diag_set(d, KRL_ENOTFOUND, (krl_pos){0},
		                    "no store at %s (krl report reads one, it never "
		                    "creates one)", o->db);
	krl_err e = load_runs(D, o->db, d);
	if (e)
		return e;
	krl_store *st = NULL;
	if ((e = krl_store_open(o->db, &st, d)))
		return e;
	walk W = {D, 0};
	e = krl_store_foreach_eval(st, 0, on_eval, &W, d);
	if (!e && W.oom)
		e = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
	if (!e)
		e = load_sources(D, st, o->max_source ? o->max_source : 64 * 1024,
		                 o->max_sources_total ? o->max_sources_total
		                                      : 8 * 1024 * 1024,
		                 d);
	krl_store_close(st);
	return e;
}

krl_err rp_data_load(const krl_report_opts *o, rp_data *D, krl_diag *d)
{
	memset(D, 0, sizeof *D);
	if (!o->db && !o->nresults)
		return krl_diag_set(d, KRL_EINVAL, (krl_pos){0},
		                    "a report needs a store or a results file");
	krl_err e = KRL_OK;
	for (int i = 0; i < o->nresults && !e; i++)
		e = load_results(D, o->results[i], d);
	if (!e && o->db)
		e = load_store(D, o, d);
	if (!e && D->np > 1)
		qsort(D->p, (size_t)D->np, sizeof *D->p, problem_cmp);
	return e;
}

void rp_data_free(rp_data *D)
{
	for (int i = 0; i < D->np; i++) {
		free(D->p[i].name);
		json_decref(D->p[i].res);
		free(D->p[i].what);
		free(D->p[i].source);
	}
	free(D->p);
	for (int i = 0; i < D->nr; i++) {
		rp_run *r = &D->r[i];
		free(r->name);
		free(r->task);
		free(r->status);
		free(r->created);
		free(r->updated);
		free(r->counts);
		free(r->curve);
	}
	free(D->r);
	rp_set *sets[] = {&D->verdicts,   &D->commits, &D->gpus,
	                  &D->shapes,     &D->precisions, &D->timings,
	                  &D->baselines, &D->torch};
	for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
		rp_set_free(sets[i]);
	memset(D, 0, sizeof *D);
}
