/*
 * kernelrl: finding the candidate in an LLM's answer (include/krl/llm.h,
 * docs/llm.md "Extraction").
 *
 * Fenced code blocks follow CommonMark's rules, which is what models are
 * trained to write: a fence is a line of at least three backticks or tildes
 * indented by at most three spaces; a backtick fence's info string has no
 * backtick (so "```x```" inside prose is not a fence); the closing fence
 * uses the same character, at least as many of it, and nothing else; an
 * unclosed block runs to the end of the answer (a truncated answer). Lines
 * are split on LF, and a CR before the LF is dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "krl/llm.h"

typedef struct block {
	size_t start, end;       /* content bytes [start, end) of the answer */
	int indent;              /* the opening fence's indentation */
	int found;
} block;

typedef struct line {
	size_t start, end;       /* without the LF and a CR before it */
	size_t next;             /* where the next line starts */
} line;

static line line_at(const char *z, size_t pos, size_t len)
{
	line l = { pos, pos, len };
	const char *nl = memchr(z + pos, '\n', len - pos);
	l.end = nl ? (size_t)(nl - z) : len;
	l.next = nl ? l.end + 1 : len;
	if (l.end > l.start && z[l.end - 1] == '\r')
		l.end--;
	return l;
}

/* If l is a fence, returns its length and sets *ch, *indent and *rest (the
 * first byte after the run); else 0. */
static int fence(const char *z, line l, char *ch, int *indent, size_t *rest)
{
	size_t p = l.start;
	int sp = 0;
	while (p < l.end && z[p] == ' ' && sp < 4) {
		p++;
		sp++;
	}
	if (sp > 3 || p >= l.end || (z[p] != '`' && z[p] != '~'))
		return 0;
	char c = z[p];
	size_t q = p;
	while (q < l.end && z[q] == c)
		q++;
	if (q - p < 3)
		return 0;
	*ch = c;
	*indent = sp;
	*rest = q;
	return (int)(q - p);
}

static int has(const char *z, size_t start, size_t end, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = start; i + n <= end; i++)
		if (z[i] == needle[0] && !memcmp(z + i, needle, n))
			return 1;
	return 0;
}

/* Scans z[from, len) for fenced blocks; sets the last one and the last one
 * holding a plan. */
static void scan(const char *z, size_t from, size_t len, block *last,
                 block *last_plan)
{
	size_t pos = from;
	while (pos < len) {
		line l = line_at(z, pos, len);
		char ch;
		int indent;
		size_t rest;
		int n = fence(z, l, &ch, &indent, &rest);
		if (!n || (ch == '`' && memchr(z + rest, '`', l.end - rest))) {
			pos = l.next;
			continue;
		}
		/* An opening fence: find its closing one. */
		block b = { l.next, len, indent, 1 };
		pos = len;
		for (size_t p = l.next; p < len;) {
			line m = line_at(z, p, len);
			char ch2 = 0;
			int ind2 = 0;
			size_t rest2 = 0;
			int n2 = fence(z, m, &ch2, &ind2, &rest2);
			if (n2 >= n && ch2 == ch) {
				size_t k = rest2;
				while (k < m.end && (z[k] == ' ' || z[k] == '\t'))
					k++;
				if (k == m.end) {
					b.end = p;
					pos = m.next;
					break;
				}
			}
			p = m.next;
		}
		*last = b;
		if (has(z, b.start, b.end, "/*@plan"))
			*last_plan = b;
	}
}

/* The block's text: each line without the fence's indentation (up to that
 * many spaces) and without a CR, ending in LF. malloc'd or NULL. */
static char *block_text(const char *z, block b)
{
	char *out = malloc(b.end - b.start + 2);
	if (!out)
		return NULL;
	size_t k = 0;
	for (size_t pos = b.start; pos < b.end;) {
		line l = line_at(z, pos, b.end);
		size_t p = l.start;
		for (int i = 0; i < b.indent && p < l.end && z[p] == ' '; i++)
			p++;
		memcpy(out + k, z + p, l.end - p);
		k += l.end - p;
		out[k++] = '\n';
		pos = l.next;
	}
	out[k] = 0;
	return out;
}

static int blank(const char *z)
{
	for (; *z; z++)
		if (*z != ' ' && *z != '\t' && *z != '\n' && *z != '\r' &&
		    *z != '\f' && *z != '\v')
			return 0;
	return 1;
}

krl_err krl_extract_candidate(const char *answer, char **source, krl_diag *d)
{
	static const krl_pos nopos;
	*source = NULL;
	if (!answer)
		return krl_diag_set(d, KRL_ENOTFOUND, nopos,
			"no fenced code block in the answer (it is empty)");
	size_t len = strlen(answer);
	block last = { 0 }, last_plan = { 0 };
	/* Reasoning models think aloud before "</think>"; their drafts there
	 * are not the answer unless the answer itself has no code. */
	const char *think = NULL;
	for (const char *p = answer; (p = strstr(p, "</think>")); p += 8)
		think = p + 8;
	if (think)
		scan(answer, (size_t)(think - answer), len, &last, &last_plan);
	if (!last.found)
		scan(answer, 0, len, &last, &last_plan);
	if (!last.found)
		return krl_diag_set(d, KRL_ENOTFOUND, nopos,
			"no fenced code block in the answer");
	block b = last_plan.found ? last_plan : last;
	char *z = block_text(answer, b);
	if (!z)
		return krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
	if (blank(z)) {
		free(z);
		return krl_diag_set(d, KRL_ENOTFOUND, nopos,
			"the last fenced code block in the answer is empty");
	}
	*source = z;
	return KRL_OK;
}
