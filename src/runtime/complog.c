/*
 * The compile log as it may leave the compiler (docs/judge.md "Compile
 * logs"): every record, store row, exported rollout and LLM prompt carries
 * it, so it must not carry a host file. NVRTC's log quotes the source line
 * of each diagnostic under a position header "FILE(LINE): ...". A block
 * whose FILE is neither the candidate nor beneath a CUDA toolkit include
 * directory (nor one of NVRTC's built-in headers, "__nv...") is replaced by
 * one line saying so: the include rule (srccheck.c) and the sandbox
 * (sandbox.c) should already keep such files out; this is the third wall.
 * The result is valid UTF-8 without control characters, and at most `cap`
 * bytes plus a note saying how much was cut.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/compiler.h"
#include "util/utf8.h"

static const char k_removed[] =
	"[lines removed here: they quote a file that is neither the candidate "
	"nor a CUDA toolkit header]\n";

/* The FILE of a position header "FILE(DIGITS): " at the start of line
 * [p, e), as [*f, *f + *fn); 0 when the line is not one. FILE starts with
 * a non-blank character (NVRTC indents the quoted source lines). */
static int header_file(const char *p, const char *e, const char **f,
                       size_t *fn)
{
	if (p >= e || *p == ' ' || *p == '\t')
		return 0;
	for (const char *q = p; q < e; q++) {
		if (*q != '(')
			continue;
		const char *r = q + 1;
		while (r < e && *r >= '0' && *r <= '9')
			r++;
		if (r > q + 1 && r + 1 < e && r[0] == ')' && r[1] == ':') {
			*f = p;
			*fn = (size_t)(q - p);
			return 1;
		}
	}
	return 0;
}

/* 1 when [f, f + n) names the candidate, a file beneath one of dirs, or
 * an NVRTC built-in header. */
static int allowed_file(const char *f, size_t n, const char *name,
                        const char *const *dirs, int ndirs)
{
	if (name && strlen(name) == n && memcmp(f, name, n) == 0)
		return 1;
	if (n >= 4 && memcmp(f, "__nv", 4) == 0 && !memchr(f, '/', n))
		return 1;
	for (int i = 0; i < ndirs; i++) {
		size_t k = strlen(dirs[i]);
		while (k > 1 && dirs[i][k - 1] == '/')
			k--;
		if (n > k + 1 && memcmp(f, dirs[i], k) == 0 && f[k] == '/' &&
		    !memmem(f, n, "/..", 3))
			return 1;
	}
	return 0;
}

char *krl_compile_log_clean(const char *log, const char *name,
                            const char *const *dirs, int ndirs, size_t cap)
{
	size_t n = log ? strlen(log) : 0;
	/* the filtered text is never longer than the log plus one note per
	 * line */
	size_t room = n + (n + 1) * (sizeof k_removed) + 1;
	char *out = malloc(room), *o = out;
	int drop = 0;
	if (!out)
		return NULL;
	for (const char *p = log; p && p < log + n;) {
		const char *e = memchr(p, '\n', (size_t)(log + n - p));
		const char *next = e ? e + 1 : log + n;
		if (!e)
			e = log + n;
		const char *f;
		size_t fn;
		if (header_file(p, e, &f, &fn)) {
			int was = drop;
			drop = !allowed_file(f, fn, name, dirs, ndirs);
			if (drop && !was) {
				memcpy(o, k_removed, sizeof k_removed - 1);
				o += sizeof k_removed - 1;
			}
		} else if (e == p) {
			drop = 0; /* a blank line ends a diagnostic */
		}
		if (!drop) {
			memcpy(o, p, (size_t)(next - p));
			o += next - p;
		}
		p = next;
	}
	*o = 0;
	krl_utf8_scrub(out);
	size_t len = (size_t)(o - out);
	if (len > cap) {
		char note[96];
		size_t k = 80; /* room for the note */
		size_t keep = krl_utf8_cut(out, len, cap > k ? cap - k : 0);
		/* end at a line where one is near */
		char *nl = memrchr(out, '\n', keep);
		if (nl && (size_t)(nl - out) + 256 >= keep)
			keep = (size_t)(nl - out) + 1;
		snprintf(note, sizeof note,
		         "[log cut: the first %zu of %zu bytes shown]\n", keep, len);
		memcpy(out + keep, note, strlen(note) + 1);
	}
	return out;
}
