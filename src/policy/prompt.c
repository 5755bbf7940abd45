/*
 * kernelrl: the contrastive prompt (include/krl/llm.h, docs/llm.md
 * "Prompts"), after CUDA-L1: the task and its reference, previous correct
 * implementations with their measured speedups, then "analyse why they
 * differ, design, write the code", the requirements and the candidate
 * language.
 *
 * The words live in editable templates (system.md, user.md, language.md in
 * the template folder); this file only fills the {{placeholders}}.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/llm.h"
#include "krl/ops.h"
#include "util/strbuf.h"

#ifndef KRL_SOURCE_DIR
#define KRL_SOURCE_DIR "."
#endif

static const krl_pos nopos;

/* ==== Files ==== */

/* Reads the file at path. KRL_EIO saying the path (and, for a template,
 * how to point kernelrl at the template folder) when it cannot. */
static krl_err read_path(const char *path, int is_template, char **out,
                         krl_diag *d)
{
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return krl_diag_set(d, KRL_EIO, nopos, "cannot read %s%s: %s%s",
			is_template ? "the prompt template " : "", path,
			strerror(errno), is_template ? " (set $KRL_TEMPLATES to "
			"the folder holding system.md, user.md and language.md)"
			: "");
	krl_strbuf b = { 0 };
	char tmp[8192];
	size_t got;
	while ((got = fread(tmp, 1, sizeof tmp, f)) > 0)
		krl_strbuf_add(&b, tmp, got);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		krl_strbuf_free(&b);
		return krl_diag_set(d, KRL_EIO, nopos, "cannot read %s", path);
	}
	*out = krl_strbuf_take(&b);
	return *out ? KRL_OK : krl_diag_set(d, KRL_ENOMEM, nopos,
	                                    "out of memory");
}

/* Reads the template dir/name. */
static krl_err read_template(const char *dir, const char *name, char **out,
                             krl_diag *d)
{
	char path[4096];
	*out = NULL;
	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
		return krl_diag_set(d, KRL_EIO, nopos,
			"template path too long: %s/%s", dir, name);
	return read_path(path, 1, out, d);
}

/* ==== Sections ==== */

/* "- kb0: batch_size=16, dim=16384" for every shape set. */
static void shapes_text(krl_strbuf *b, const krl_task *t)
{
	for (int i = 0; i < t->nsets; i++) {
		const krl_shapeset *s = &t->sets[i];
		krl_strbuf_printf(b, "%s- %s:", i ? "\n" : "", s->name);
		for (int k = 0; k < s->n; k++)
			krl_strbuf_printf(b, "%s %s=%lld", k ? "," : "",
			                  s->keys[k], (long long)s->vals[k]);
	}
	if (t->nsets == 0)
		krl_strbuf_str(b, "(the task declares none)");
}

/* The longest run of backticks in z, so that a fence around z can be
 * longer than any run inside it. */
static int longest_backtick_run(const char *z)
{
	int best = 0, run = 0;
	for (; *z; z++) {
		run = *z == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

typedef struct ranked {
	const krl_prompt_exemplar *e;
	int index;
} ranked;

/* Best first; equal speedups keep their given order; NaN last. */
static int by_speedup(const void *pa, const void *pb)
{
	const ranked *a = pa, *b = pb;
	double x = a->e->speedup, y = b->e->speedup;
	int xn = isnan(x), yn = isnan(y);
	if (xn != yn)
		return xn - yn;
	if (!xn && x != y)
		return x > y ? -1 : 1;
	return a->index - b->index;
}

static krl_err exemplars_text(krl_strbuf *b, const krl_prompt_exemplar *ex,
                              int nex, krl_diag *d)
{
	if (nex <= 0) {
		krl_strbuf_str(b, "(none yet: this is the first attempt, so "
		               "start from the reference plan and make it "
		               "faster)");
		return KRL_OK;
	}
	ranked *r = malloc((size_t)nex * sizeof *r);
	if (!r)
		return krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
	for (int i = 0; i < nex; i++)
		r[i] = (ranked){ &ex[i], i };
	qsort(r, (size_t)nex, sizeof *r, by_speedup);
	for (int i = 0; i < nex; i++) {
		const char *src = r[i].e->source ? r[i].e->source : "";
		double s = r[i].e->speedup;
		if (isfinite(s) && s > 0)
			krl_strbuf_printf(b, "%s## Implementation %d: speedup "
			                  "%.2fx over the eager reference\n\n",
			                  i ? "\n\n" : "", i + 1, s);
		else
			krl_strbuf_printf(b, "%s## Implementation %d: speedup "
			                  "not measured\n\n", i ? "\n\n" : "",
			                  i + 1);
		int fence = longest_backtick_run(src) + 1;
		if (fence < 3)
			fence = 3;
		for (int k = 0; k < fence; k++)
			krl_strbuf_add(b, "`", 1);
		krl_strbuf_str(b, "cuda\n");
		krl_strbuf_str(b, src);
		size_t n = strlen(src);
		if (n == 0 || src[n - 1] != '\n')
			krl_strbuf_add(b, "\n", 1);
		for (int k = 0; k < fence; k++)
			krl_strbuf_add(b, "`", 1);
	}
	free(r);
	return KRL_OK;
}

static void precision_text(krl_strbuf *b, const krl_task *t)
{
	krl_strbuf_printf(b, "strict fp32. Compute in fp32 (or wider): no "
	                  "TF32 tensor-core math, no fp16 or bf16 anywhere, "
	                  "no reduced-precision intrinsics that change "
	                  "results beyond the tolerance. An output element "
	                  "passes when |out - ref| <= atol + rtol * |ref|, "
	                  "with atol=%g and rtol=%g.", t->atol, t->rtol);
}

/* ==== Templates ==== */

typedef struct subst {
	const char *name;
	const char *value;
} subst;

/* Copies template text (read from path, for messages) into b with every
 * {{name}} replaced. A {{...}} holding anything but an identifier is left
 * as it is; an unknown identifier is KRL_ESYNTAX at path:line:col. Values
 * are not scanned again, so a task text holding "{{" is safe. */
static krl_err fill(krl_strbuf *b, const char *path, const char *text,
                    const subst *s, int ns, krl_diag *d)
{
	int line = 1;
	const char *bol = text;
	const char *p = text;
	while (*p) {
		const char *open = strstr(p, "{{");
		if (!open) {
			krl_strbuf_str(b, p);
			break;
		}
		for (const char *q = p; q < open; q++)
			if (*q == '\n') {
				line++;
				bol = q + 1;
			}
		const char *n0 = open + 2, *n1 = n0;
		while (*n0 == ' ')
			n0++;
		n1 = n0;
		while ((*n1 >= 'a' && *n1 <= 'z') || (*n1 >= 'A' && *n1 <= 'Z') ||
		       (*n1 >= '0' && *n1 <= '9') || *n1 == '_')
			n1++;
		const char *close = n1;
		while (*close == ' ')
			close++;
		if (n1 == n0 || strncmp(close, "}}", 2)) {
			krl_strbuf_add(b, p, (size_t)(n0 - p));
			p = n0;
			continue;
		}
		krl_strbuf_add(b, p, (size_t)(open - p));
		size_t len = (size_t)(n1 - n0);
		int k;
		for (k = 0; k < ns; k++)
			if (strlen(s[k].name) == len &&
			    !memcmp(s[k].name, n0, len))
				break;
		if (k == ns)
			return krl_diag_set(d, KRL_ESYNTAX, nopos,
				"%s:%d:%d: unknown placeholder {{%.*s}} (known: "
				"task_name, task_text, shapes, exemplars, language, "
				"precision)", path, line, (int)(open - bol) + 1,
				(int)len, n0);
		krl_strbuf_str(b, s[k].value);
		p = close + 2;
	}
	return b->oom ? krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory")
	              : KRL_OK;
}

/* Drops trailing newlines, so that "{{x}}\n" in a template stays one line
 * break. */
static void chomp(char *z)
{
	size_t n = strlen(z);
	while (n > 0 && (z[n - 1] == '\n' || z[n - 1] == '\r'))
		z[--n] = 0;
}

/* Whether the language reference names op z as code: "`z" followed by a
 * character that cannot continue a name (so `tanh` is not found in
 * `tanhshrink`). */
static int names_op(const char *lang, const char *z)
{
	size_t n = strlen(z);
	for (const char *p = lang; (p = strchr(p, '`')); p++)
		if (!strncmp(p + 1, z, n) && !(p[1 + n] == '_' ||
		    (p[1 + n] >= 'a' && p[1 + n] <= 'z') ||
		    (p[1 + n] >= '0' && p[1 + n] <= '9')))
			return 1;
	return 0;
}

/*
 * The language reference: the template language.md, then one line for each
 * op of the library that the template does not name, from the op's own
 * declaration (its inputs and outputs, attributes and one-line doc), so
 * that an op added to its family reaches the LLM without a template edit
 * (docs/ops.md). Takes tlang; returns the text (caller frees) or NULL when
 * out of memory.
 */
static char *language_text(char *tlang)
{
	int nops = 0;
	const krl_op *const *ops = krl_op_all(&nops);
	krl_strbuf b = { 0 };
	int more = 0;
	krl_strbuf_str(&b, tlang);
	for (int i = 0; i < nops; i++) {
		const krl_op *op = ops[i];
		if (names_op(tlang, op->name))
			continue;
		if (!more++)
			krl_strbuf_str(&b, "\n\nMore library ops, as the op library "
			               "describes them:\n");
		if (op->nin < 0)
			krl_strbuf_printf(&b, "\n- `%s` (%d to %d inputs, %d output%s",
			                  op->name, -op->nin, KRL_MAX_CALL_IN,
			                  op->nout, op->nout == 1 ? "" : "s");
		else
			krl_strbuf_printf(&b, "\n- `%s` (%d input%s, %d output%s",
			                  op->name, op->nin, op->nin == 1 ? "" : "s",
			                  op->nout, op->nout == 1 ? "" : "s");
		for (int k = 0; op->attr_names && op->attr_names[k]; k++)
			krl_strbuf_printf(&b, "%s`%s`", k ? ", " : "; attributes ",
			                  op->attr_names[k]);
		krl_strbuf_printf(&b, "): %s", op->doc ? op->doc : "");
	}
	free(tlang);
	return krl_strbuf_take(&b);
}

krl_err krl_prompt_build(const char *template_dir, const krl_task *t,
                         const char *task_text, const char *shapes,
                         const krl_prompt_exemplar *ex, int nex,
                         char **system, char **user, krl_diag *d)
{
	*system = *user = NULL;
	const char *dir = template_dir;
	if (!dir || !*dir)
		dir = getenv("KRL_TEMPLATES");
	if (!dir || !*dir)
		dir = KRL_SOURCE_DIR "/templates";

	char *tsys = NULL, *tuser = NULL, *tlang = NULL, *ttask = NULL;
	char *vshapes = NULL, *vex = NULL, *vprec = NULL;
	krl_strbuf bs = { 0 }, bu = { 0 }, tmp = { 0 };
	krl_err e;
	if ((e = read_template(dir, "system.md", &tsys, d)) ||
	    (e = read_template(dir, "user.md", &tuser, d)) ||
	    (e = read_template(dir, "language.md", &tlang, d)))
		goto out;
	chomp(tlang);
	if (!(tlang = language_text(tlang))) {
		e = krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
		goto out;
	}
	if (!task_text) {
		if (!t->path) {
			e = krl_diag_set(d, KRL_EINVAL, nopos,
				"krl_prompt_build: no task text and no task path");
			goto out;
		}
		e = read_path(t->path, 0, &ttask, d);
		if (e)
			goto out;
		task_text = ttask;
	}
	if (!shapes) {
		shapes_text(&tmp, t);
		vshapes = krl_strbuf_take(&tmp);
	}
	if ((e = exemplars_text(&tmp, ex, nex, d)))
		goto out;
	vex = krl_strbuf_take(&tmp);
	precision_text(&tmp, t);
	vprec = krl_strbuf_take(&tmp);
	if ((!shapes && !vshapes) || !vex || !vprec) {
		e = krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
		goto out;
	}
	/* The task text goes inside a fence: without its last newline the
	 * closing fence stays on its own line all the same. */
	size_t ntask = strlen(task_text);
	while (ntask > 0 && task_text[ntask - 1] == '\n')
		ntask--;
	char *vtask = strndup(task_text, ntask);
	if (!vtask) {
		e = krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
		goto out;
	}
	free(ttask);
	ttask = vtask;
	const subst s[] = {
		{ "task_name", t->id ? t->id : t->name ? t->name : "task" },
		{ "task_text", vtask },
		{ "shapes", shapes ? shapes : vshapes },
		{ "exemplars", vex },
		{ "language", tlang },
		{ "precision", vprec },
	};
	int ns = (int)(sizeof s / sizeof s[0]);
	char psys[4096], puser[4096];
	if ((e = krl_fmt_fixed(psys, sizeof psys, "the template path", d,
	                       "%s/system.md", dir)) ||
	    (e = krl_fmt_fixed(puser, sizeof puser, "the template path", d,
	                       "%s/user.md", dir)) ||
	    (e = fill(&bs, psys, tsys, s, ns, d)) ||
	    (e = fill(&bu, puser, tuser, s, ns, d)))
		goto out;
	*system = krl_strbuf_take(&bs);
	*user = krl_strbuf_take(&bu);
	if (!*system || !*user) {
		free(*system);
		free(*user);
		*system = *user = NULL;
		e = krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
	}
out:
	krl_strbuf_free(&bs);
	krl_strbuf_free(&bu);
	krl_strbuf_free(&tmp);
	free(tsys);
	free(tuser);
	free(tlang);
	free(ttask);
	free(vshapes);
	free(vex);
	free(vprec);
	return e;
}
