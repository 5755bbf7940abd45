/*
 * kernelrl: the include rule over a candidate's device source
 * (include/krl/srccheck.h).
 *
 * One pass. A pre-pass refuses the bytes whose meaning compilers disagree on
 * (translation phase 1); the lexer then reads logical characters -- line
 * splices skipped (phase 2), offsets still those of the original text -- and
 * cuts them into the few kinds of token the rule needs (phase 3): comments,
 * literals, identifiers, pp-numbers, '#', '##', '(', ')' and "anything
 * else". Every token goes through two small state machines: the directive
 * being read (started by a '#' first on its line) and the _Pragma operator.
 *
 * Why refuse rather than guess: the checker and the compiler must cut the
 * text into the same lines, comments and literals. Where they could
 * disagree -- a raw string one of them sees and the other does not, a
 * comment one of them ends earlier -- everything after is read differently,
 * and a directive the checker takes for comment text would reach NVRTC.
 * So every construct whose reading is compiler-specific is an error here,
 * with a message that says so; ordinary CUDA never needs one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "krl/srccheck.h"

#define QUOTE_MAX 60     /* bytes of candidate text a message quotes */
#define HEADER_MAX 255   /* the longest header name */
#define SPELL_MAX 64     /* identifier bytes kept for comparisons */
#define PIECE_MAX 16     /* bytes kept of a piece of an identifier */
#define PRAGMA_MAX 512   /* the longest _Pragma string, destringized */
#define CACHE_SLOTS 16   /* header names found already */

#define DIRECTIVES "define, undef, if, ifdef, ifndef, elif, elifdef, " \
	"elifndef, else, endif, error, warning, pragma, line, include and " \
	"# alone"
#define PRAGMAS "unroll, nounroll, once, pack, push_macro, pop_macro, " \
	"message, nv_diag* and diag_*"

typedef enum dstate {
	D_NONE,     /* not in a directive */
	D_START,    /* after '#': the directive's name comes next */
	D_INCLUDE,  /* after "include": the header name comes next */
	D_INCLUDED, /* after the header name: nothing may follow */
	D_LINE,     /* after "line": a number comes next */
	D_LINED,    /* after the number: nothing may follow */
	D_PRAGMA,   /* after "pragma": the pragma's name, or nothing */
	D_DEFINE,   /* after "define": the macro's name */
	D_BODY      /* the rest of an allowed directive: any tokens */
} dstate;

typedef enum tkind {
	T_IDENT,
	T_NUMBER,
	T_STRING,   /* a string literal, prefix in tok.prefix */
	T_CHAR,
	T_RAW,      /* a raw string literal */
	T_HASH,     /* # or %: */
	T_HASHHASH, /* ## or %:%: */
	T_LPAREN,
	T_RPAREN,
	T_OTHER
} tkind;

typedef struct tok {
	tkind kind;
	size_t start, end;         /* offsets in the source: [start, end) */
	char spell[SPELL_MAX + 1]; /* identifier: its first bytes, spliced */
	size_t nspell;             /* identifier: its full length */
	int ext;                   /* name or number holds $ or a byte >= 0x80 */
	int high;                  /* identifier of bytes >= 0x80 only */
	int digits;                /* number of decimal digits only */
	int wraps;                 /* identifier or number holds "pragma" etc. */
	int prefix;                /* string: 0, 'L', 'u', 'U' or '8' (u8) */
	size_t quote;              /* string: its opening quote */
} tok;

typedef struct scan {
	const char *z;
	size_t n;
	const char *name;
	const char *const *dirs;
	int ndirs;
	krl_diag *d;
	int bol;        /* nothing but blanks and comments yet on this line */
	dstate dir;
	size_t dir_at;  /* the directive's '#' */
	int prag;       /* _Pragma seen: 1 wants '(', 2 a string, 3 ')' */
	size_t prag_at; /* that _Pragma */
	char found[CACHE_SLOTS][HEADER_MAX + 1]; /* names that resolved */
} scan;

/* ==== Reading: translation phases 1 and 2 ==== */

static int ch(const scan *s, size_t p)
{
	return p < s->n ? (unsigned char)s->z[p] : -1;
}

/* The offset of the first logical character at or after p: line splices
 * (a backslash then LF or CR-LF) are skipped. */
static size_t skip(const scan *s, size_t p)
{
	const char *z = s->z;
	while (p < s->n && z[p] == '\\') {
		if (p + 1 < s->n && z[p + 1] == '\n')
			p += 2;
		else if (p + 2 < s->n && z[p + 1] == '\r' && z[p + 2] == '\n')
			p += 3;
		else
			break;
	}
	return p;
}

/* The logical character after the one at p. */
static inline size_t next(const scan *s, size_t p)
{
	if (++p >= s->n)
		return s->n;
	return s->z[p] == '\\' ? skip(s, p) : p;
}

static int is_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* What compilers may take into an identifier: GCC and EDG accept '$' and
 * UTF-8; taking the most keeps the checker on the safe side (see lex). */
static int is_ident(int c)
{
	return is_alnum(c) || c == '$' || c >= 0x80;
}

/* A trigraph starts at p. Phase 1 works on the physical text, so its three
 * characters must be adjacent. Inside comments only ??/ matters: it would
 * be a backslash, which can join lines or end the comment. */
static int trigraph(const scan *s, size_t p, int in_comment)
{
	if (p + 2 >= s->n || s->z[p] != '?' || s->z[p + 1] != '?')
		return 0;
	char c = s->z[p + 2];
	if (in_comment)
		return c == '/';
	return c && strchr("=/'()!<>-", c) != NULL;
}

/* ==== Messages ==== */

/* The position of offset off: 1-based line and byte column. */
static krl_pos pos_at(const scan *s, size_t off)
{
	krl_pos pos = { s->name, 1, 1 };
	if (off > s->n)
		off = s->n;
	if (off == 0)
		return pos;
	size_t line = 1;
	const char *p = s->z, *end = s->z + off;
	for (;;) {
		const char *q = memchr(p, '\n', (size_t)(end - p));
		if (!q)
			break;
		line++;
		p = q + 1;
	}
	size_t col = (size_t)(end - p) + 1;
	pos.line = line < INT_MAX ? (int)line : INT_MAX;
	pos.col = col < INT_MAX ? (int)col : INT_MAX;
	return pos;
}

static krl_err fail(const scan *s, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Sets the diagnostic at offset `at`; returns KRL_ECOMPILE. */
static krl_err fail(const scan *s, size_t at, const char *fmt, ...)
{
	if (!s->d)
		return KRL_ECOMPILE;
	char msg[sizeof s->d->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return krl_diag_set(s->d, KRL_ECOMPILE, pos_at(s, at), "%s", msg);
}

/* Copies the candidate's text from `from` to `to` or the end of the
 * logical line, whichever comes first, into buf (QUOTE_MAX + 4 bytes):
 * splices removed, a tab as a space, other bytes that are not printable
 * ASCII as '?', trailing blanks dropped, "..." when cut. */
static const char *quote(const scan *s, size_t from, size_t to, char *buf)
{
	size_t k = 0, p = skip(s, from);
	int cut = 0;
	for (; p < to && p < s->n; p = next(s, p)) {
		int c = ch(s, p);
		if (c == '\n' || c == '\r')
			break;
		if (k == QUOTE_MAX) {
			cut = 1;
			break;
		}
		buf[k++] = c == '\t' ? ' ' : c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	while (k > 0 && buf[k - 1] == ' ')
		k--;
	strcpy(buf + k, cut ? "..." : "");
	return buf;
}

static krl_err fail_trigraph(const scan *s, size_t p, int in_comment)
{
	if (in_comment)
		return fail(s, p, "the trigraph ?\?/ in a comment: with trigraphs "
		            "on it is a backslash, which can join lines or end "
		            "the comment (write it differently)");
	return fail(s, p, "the trigraph ?\?%c: trigraph sequences are not "
	            "allowed (some compilers still replace them)", s->z[p + 2]);
}

static krl_err fail_ucn(const scan *s, size_t p)
{
	return fail(s, p, "a universal character name (\\u or \\U) outside a "
	            "literal: compilers disagree on them in identifiers, so "
	            "they are allowed only in string and character literals");
}

/* 1 when a universal character name (\u or \U) starts at p. */
static int is_ucn(const scan *s, size_t p)
{
	if (ch(s, p) != '\\')
		return 0;
	int c = ch(s, next(s, p));
	return c == 'u' || c == 'U';
}

/* ==== Phase 1: bytes ==== */

/* Refuses NUL and other control bytes (tab, LF, VT, FF and CR-LF aside),
 * a CR not followed by LF, and a backslash followed by blanks and a line
 * end (GCC takes it for a line splice, the standard does not). */
static krl_err check_bytes(const scan *s)
{
	const unsigned char *z = (const unsigned char *)s->z;
	for (size_t i = 0; i < s->n; i++) {
		unsigned c = z[i];
		if (c == '\\') {
			size_t j = i + 1;
			while (j < s->n && (z[j] == ' ' || z[j] == '\t' ||
			                    z[j] == '\f' || z[j] == '\v'))
				j++;
			if (j > i + 1 && j < s->n && (z[j] == '\n' || z[j] == '\r'))
				return fail(s, i, "a backslash followed by blanks "
				            "at the end of a line: compilers disagree "
				            "whether it joins the lines (remove the "
				            "blanks)");
			continue;
		}
		if ((c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t' ||
		    c == '\f' || c == '\v')
			continue;
		if (c == '\r') {
			if (i + 1 < s->n && z[i + 1] == '\n')
				continue;
			return fail(s, i, "a carriage return not followed by a "
			            "line feed: lines must end in LF or CR-LF");
		}
		if (c == 0)
			return fail(s, i, "a NUL byte: device source must be text");
		return fail(s, i, "the control character 0x%02x: device source "
		            "must be text (tab, vertical tab, form feed and line "
		            "ends are the only control characters allowed)", c);
	}
	return KRL_OK;
}

/* ==== Phase 3: comments and literals ==== */

/* Skips the comment that starts at p ("//" or slash-star); sets *end to
 * the character after it (a "//" comment ends before its line end) and
 * *nl when a block comment holds a line end. */
static krl_err comment(const scan *s, size_t p, size_t *end, int *nl)
{
	size_t start = p;
	p = next(s, p);
	int block = ch(s, p) == '*', star = 0;
	for (p = next(s, p); p < s->n; p = next(s, p)) {
		int c = ch(s, p);
		if (!block && c == '\n')
			break;
		if (block && c == '/' && star) {
			*end = next(s, p);
			return KRL_OK;
		}
		if (c == '?' && trigraph(s, p, 1))
			return fail_trigraph(s, p, 1);
		if (c == '\n')
			*nl = 1;
		star = c == '*';
	}
	if (block)
		return fail(s, start, "unterminated comment: no */ before the "
		            "end of the file");
	*end = p;
	return KRL_OK;
}

/* Lexes the string or character literal whose opening quote is at p (the
 * token, prefix included, starts at start); sets *end after it. */
static krl_err quoted(const scan *s, size_t start, size_t p, size_t *end)
{
	int q = ch(s, p);
	for (p = next(s, p);; p = next(s, p)) {
		int c = ch(s, p);
		int esc = c == '\\';
		if (esc) {
			p = next(s, p);
			c = ch(s, p);
		}
		if (c < 0 || c == '\n' || c == '\r') {
			char buf[QUOTE_MAX + 4];
			return fail(s, start, "unterminated %s literal %s: it "
			            "must end on its line",
			            q == '"' ? "string" : "character",
			            quote(s, start, s->n, buf));
		}
		if (c == '?' && trigraph(s, p, 0))
			return fail_trigraph(s, p, 0);
		if (c == q && !esc) {
			*end = next(s, p);
			return KRL_OK;
		}
	}
}

/* Lexes the raw string literal whose opening quote is at p (the token
 * starts at start); sets *end after it and *nl when it spans lines.
 * Phases 1 and 2 are reverted inside a raw string, so this reads bytes. */
static krl_err raw_string(const scan *s, size_t start, size_t p, size_t *end,
                          int *nl)
{
	const char *z = s->z;
	size_t d = p + 1, q = d;
	for (; q < s->n && z[q] != '('; q++) {
		unsigned char c = (unsigned char)z[q];
		if (q - d == 16 || c == ' ' || c == ')' || c == '\\' ||
		    c < 0x20 || c >= 0x7f)
			return fail(s, start, "invalid raw string delimiter: at "
			            "most 16 characters other than blanks, "
			            "parentheses, backslashes, control and "
			            "non-ASCII characters, then '('");
		if (c == '?' && trigraph(s, q, 0))
			return fail_trigraph(s, q, 0);
	}
	if (q >= s->n)
		return fail(s, start, "unterminated raw string literal: no '(' "
		            "after its delimiter");
	size_t dn = q - d;
	for (q++; q < s->n; q++) {
		char c = z[q];
		if (c == '\n' && s->dir != D_NONE)
			return fail(s, start, "a raw string literal in a "
			            "directive must end on its line (compilers "
			            "disagree whether it may span lines)");
		if (c == '\n')
			*nl = 1;
		else if (c == '?' && trigraph(s, q, 0))
			return fail_trigraph(s, q, 0);
		else if (c == ')' && s->n - q > dn + 1 &&
		         !memcmp(z + q + 1, z + d, dn) && z[q + 1 + dn] == '"') {
			*end = skip(s, q + dn + 2);
			return KRL_OK;
		}
	}
	return fail(s, start, "unterminated raw string literal: no )%.*s\" "
	            "before the end of the file", (int)dn, z + d);
}

/* ==== Identifiers ==== */

/* Why identifier w[0..n) (n its full length, w its first bytes) may not
 * appear, or NULL. A proper prefix of _Pragma, __has_include or
 * __has_embed is refused too: "#define C(a,b) a##b" then C(__has_, include)
 * or C(_Prag, ma) would build the name, and the checker expands no macro
 * (the first piece of a pasted name is always such a prefix, written out).
 * __pragma's prefixes pass: it is MSVC's alone, and __p is a common name. */
static const char *forbidden(const char *w, size_t n)
{
	static const struct {
		const char *name;
		const char *why;
	} pasted[] = {
		{ "_Pragma", "it begins _Pragma, which ## could complete" },
		{ "__has_include", "it begins __has_include, which ## could "
		                   "complete" },
		{ "__has_embed", "it begins __has_embed, which ## could "
		                 "complete" },
	};
	if (n >= 13 && !memcmp(w, "__has_include", 13))
		return "it probes the host file system";
	if (n >= 11 && !memcmp(w, "__has_embed", 11))
		return "it probes the host file system";
	if (n == 8 && !memcmp(w, "__pragma", 8))
		return "only #pragma and _Pragma(\"...\") with an allowed pragma "
		       "may be used";
	for (size_t i = 0; i < sizeof pasted / sizeof *pasted; i++)
		if (n < strlen(pasted[i].name) &&
		    !memcmp(w, pasted[i].name, n))
			return pasted[i].why;
	return NULL;
}

/* Checks a piece of a name that holds $ or non-ASCII bytes (a compiler
 * that does not take those into names ends it there). */
static krl_err check_piece(const scan *s, size_t at, const char *w, size_t n,
                           size_t start)
{
	char buf[QUOTE_MAX + 4];
	const char *why = forbidden(w, n);
	if (!why && n == 7 && !memcmp(w, "_Pragma", 7))
		why = "_Pragma must stand alone, followed by ( \"pragma\" )";
	if (why)
		return fail(s, at, "%s: a name holding %.*s is not allowed (%s)",
		            quote(s, start, s->n, buf),
		            (int)(n < PIECE_MAX ? n : PIECE_MAX), w, why);
	return KRL_OK;
}

/* A search, one character at a time and in any case, for the words that
 * the toolkit's wrappers of _Pragma and __has_include carry in their names
 * (_CCCL_PRAGMA, _CCCL_HAS_INCLUDE): "pragma", "has_include", "has_embed".
 * No word repeats its first letter, so resetting on a mismatch is exact. */
typedef struct words {
	size_t got[3];
} words;

/* Feeds c; returns 1 when it completes one of the words. */
static int words_step(words *m, int c)
{
	static const char *const w[] = { "pragma", "has_include",
	                                 "has_embed" };
	int lc = c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c, hit = 0;
	for (int i = 0; i < 3; i++) {
		m->got[i] = lc == w[i][m->got[i]] ? m->got[i] + 1 :
		                                    lc == w[i][0];
		if (!w[i][m->got[i]]) {
			hit = 1;
			m->got[i] = 0;
		}
	}
	return hit;
}

/* Reads identifier or number t once more: checks each run of ASCII
 * letters, digits and _ when t holds $ or a non-ASCII byte, and sets
 * t->wraps when t holds one of the wrappers' words. */
static krl_err check_words(const scan *s, tok *t)
{
	words m = { { 0, 0, 0 } };
	char piece[PIECE_MAX];
	size_t npiece = 0, piece_at = t->start;
	krl_err r;
	for (size_t p = t->start;; p = next(s, p)) {
		int c = p < t->end ? ch(s, p) : -1;
		t->wraps |= words_step(&m, c);
		if (is_alnum(c)) {
			if (npiece == 0)
				piece_at = p;
			if (npiece < PIECE_MAX)
				piece[npiece] = (char)c;
			npiece++;
			continue;
		}
		if (t->ext && npiece &&
		    (r = check_piece(s, piece_at, piece, npiece, t->start)))
			return r;
		npiece = 0;
		if (c < 0)
			return KRL_OK;
	}
}

/* Lexes the identifier at p into t; *end is the character after it. */
static krl_err identifier(const scan *s, size_t p, tok *t, size_t *end)
{
	t->kind = T_IDENT;
	t->high = 1;
	for (int c; is_ident(c = ch(s, p)); p = next(s, p)) {
		if (t->nspell < SPELL_MAX)
			t->spell[t->nspell] = (char)c;
		t->nspell++;
		if (c < 0x80)
			t->high = 0;
		if (!is_alnum(c))
			t->ext = 1;
	}
	t->spell[t->nspell < SPELL_MAX ? t->nspell : SPELL_MAX] = 0;
	if (is_ucn(s, p))
		return fail_ucn(s, p);
	const char *why = t->ext ? NULL : forbidden(t->spell, t->nspell);
	if (why) {
		char buf[QUOTE_MAX + 4];
		return fail(s, t->start, "%s is not allowed: %s",
		            quote(s, t->start, p, buf), why);
	}
	*end = p;
	return KRL_OK;
}

/* Lexes the pp-number at p into t ([lex.ppnumber]: digits, letters, _, '.',
 * e+ e- E+ E- p+ p- P+ P- and ' before a letter, digit or _). */
static krl_err number(const scan *s, size_t p, tok *t, size_t *end)
{
	t->kind = T_NUMBER;
	t->digits = 1;
	for (;;) {
		int c = ch(s, p);
		if (c == '\'') {
			size_t q = next(s, p);
			if (!is_alnum(ch(s, q)))
				return fail(s, p, "a digit separator ' must be "
				            "followed by a letter, digit or _ "
				            "(compilers disagree where such a "
				            "number ends)");
			t->digits = 0;
			p = next(s, q);
		} else if (c == 'e' || c == 'E' || c == 'p' || c == 'P') {
			t->digits = 0;
			p = next(s, p);
			if (ch(s, p) == '+' || ch(s, p) == '-')
				p = next(s, p);
		} else if (is_ident(c) || c == '.') {
			if (!is_digit(c))
				t->digits = 0;
			if (c == '$' || c >= 0x80)
				t->ext = 1;
			p = next(s, p);
		} else if (is_ucn(s, p)) {
			return fail_ucn(s, p);
		} else {
			break;
		}
	}
	*end = p;
	return KRL_OK;
}

static int spelled(const tok *t, const char *w)
{
	size_t n = strlen(w);
	return t->kind == T_IDENT && t->nspell == n && !memcmp(t->spell, w, n);
}

/* ==== Tokens ==== */

/* Lexes the token at p (not a blank, a line end or a comment) into t and
 * sets t->end to the logical character after it; *nl is set when the
 * token (a raw string) spans lines. `suffix`: p is just after a literal,
 * so an identifier there is the literal's ud-suffix (C++11), never the
 * prefix of another literal: '1'R"x(" is '1'R then an ordinary string. */
static krl_err lex(const scan *s, size_t p, int suffix, tok *t, int *nl)
{
	t->start = t->end = t->quote = p;
	t->spell[0] = 0;
	t->nspell = 0;
	t->ext = t->high = t->digits = t->wraps = t->prefix = 0;
	size_t q = next(s, p);
	int c = ch(s, p);
	krl_err r;
	if (c == '"' || c == '\'') {
		t->kind = c == '"' ? T_STRING : T_CHAR;
		t->quote = p;
		return quoted(s, p, p, &t->end);
	}
	if (is_digit(c) || (c == '.' && is_digit(ch(s, q)))) {
		if ((r = number(s, p, t, &t->end)) || (r = check_words(s, t)))
			return r;
	} else if (is_ident(c)) {
		if ((r = identifier(s, p, t, &t->end)) ||
		    (r = check_words(s, t)))
			return r;
	} else if (is_ucn(s, p)) {
		return fail_ucn(s, p);
	} else if (c == '#' || (c == '%' && ch(s, q) == ':')) {
		/* ## and %:%: are one token; #%: and %:# are two. */
		t->kind = T_HASH;
		if (c == '#' && ch(s, q) == '#') {
			t->kind = T_HASHHASH;
			q = next(s, q);
		} else if (c == '%') {
			q = next(s, q);
			if (ch(s, q) == '%' && ch(s, next(s, q)) == ':') {
				t->kind = T_HASHHASH;
				q = next(s, next(s, q));
			}
		}
		t->end = q;
		return KRL_OK;
	} else {
		if (c == '?' && trigraph(s, p, 0))
			return fail_trigraph(s, p, 0);
		t->kind = c == '(' ? T_LPAREN : c == ')' ? T_RPAREN : T_OTHER;
		t->end = q;
		return KRL_OK;
	}

	/* An identifier or number just before a quote: an encoding prefix,
	 * a raw string's prefix, or (maximal munch) two tokens. */
	int quote_c = ch(s, t->end);
	if ((quote_c != '"' && quote_c != '\'') || (suffix && !t->ext))
		return KRL_OK;
	static const char *const prefixes[] = { "u8", "u", "U", "L" };
	static const char *const raw[] = { "R", "u8R", "uR", "UR", "LR" };
	for (size_t i = 0; !suffix && i < sizeof prefixes / sizeof *prefixes;
	     i++)
		if (spelled(t, prefixes[i])) {
			t->kind = quote_c == '"' ? T_STRING : T_CHAR;
			t->prefix = t->nspell == 2 ? '8' : t->spell[0];
			t->quote = t->end;
			return quoted(s, t->start, t->end, &t->end);
		}
	for (size_t i = 0; !suffix && quote_c == '"' &&
	                   i < sizeof raw / sizeof *raw; i++)
		if (spelled(t, raw[i])) {
			t->kind = T_RAW;
			t->quote = t->end;
			return raw_string(s, t->start, t->end, &t->end, nl);
		}
	/* Where "x$R" or "1é" ends is compiler-specific, and "R" then '"'
	 * would start a raw string that spans lines. */
	if (t->ext) {
		char buf[QUOTE_MAX + 4];
		return fail(s, t->start, "%s: '$' or a non-ASCII byte in a "
		            "name just before a quote (compilers disagree where "
		            "such a name ends, so the literal could be read as a "
		            "raw string)", quote(s, t->start, s->n, buf));
	}
	return KRL_OK;
}

/* ==== Pragmas ==== */

/* 1 when the ASCII identifier w[0..n) names an allowed pragma (w holds at
 * least its first SPELL_MAX bytes). */
static int pragma_ok(const char *w, size_t n)
{
	static const char *const names[] = { "unroll", "nounroll", "once",
	                                     "pack", "push_macro", "pop_macro",
	                                     "message" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (n == strlen(names[i]) && !memcmp(w, names[i], n))
			return 1;
	return (n >= 7 && !memcmp(w, "nv_diag", 7)) ||
	       (n >= 5 && !memcmp(w, "diag_", 5));
}

/* Checks the string of _Pragma("...") (token t): destringized (\" to ",
 * \\ to \), it must be blank or start with an allowed pragma's name, and
 * hold no word that would be refused in the source. */
static krl_err pragma_string(const scan *s, const tok *t)
{
	char buf[PRAGMA_MAX + 1], qb[QUOTE_MAX + 4];
	size_t n = 0;
	/* The literal was lexed already: an unescaped '"' ends it. */
	for (size_t p = next(s, t->quote);; p = next(s, p)) {
		int c = ch(s, p);
		if (c == '"')
			break;
		if (c == '\\') {
			p = next(s, p);
			int e = ch(s, p);
			if (e != '"' && e != '\\' && n < PRAGMA_MAX)
				buf[n++] = '\\';
			c = e;
		}
		if (n == PRAGMA_MAX)
			return fail(s, s->prag_at, "%s: a _Pragma string may be "
			            "at most %d bytes long",
			            quote(s, s->prag_at, s->n, qb), PRAGMA_MAX);
		buf[n++] = (char)c;
	}
	buf[n] = 0;
	size_t i = 0;
	while (i < n && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	size_t w = i;
	while (i < n && is_alnum((unsigned char)buf[i]))
		i++;
	int ok = i == n && w == n; /* blank: an empty pragma */
	if (!ok && i > w && !is_digit((unsigned char)buf[w]))
		ok = pragma_ok(buf + w, i - w) &&
		     (i == n || !is_ident((unsigned char)buf[i])) &&
		     buf[i] != '\\';
	if (!ok)
		return fail(s, s->prag_at, "%s: only the pragmas " PRAGMAS
		            " are allowed", quote(s, s->prag_at, s->n, qb));
	for (i = 0; i < n;) {
		size_t j = i;
		words m = { { 0, 0, 0 } };
		int wraps = 0;
		while (j < n && is_alnum((unsigned char)buf[j]))
			wraps |= words_step(&m, (unsigned char)buf[j++]);
		if (j > i && (wraps || forbidden(buf + i, j - i) ||
		              (j - i == 7 && !memcmp(buf + i, "_Pragma", 7))))
			return fail(s, s->prag_at, "%s: the pragma names %.*s, "
			            "which is not allowed",
			            quote(s, s->prag_at, s->n, qb),
			            (int)(j - i < PIECE_MAX ? j - i : PIECE_MAX),
			            buf + i);
		i = j > i ? j : i + 1;
	}
	return KRL_OK;
}

/* ==== Header names ==== */

static unsigned hash(const char *w)
{
	unsigned h = 2166136261u;
	for (; *w; w++)
		h = (h ^ (unsigned char)*w) * 16777619u;
	return h;
}

/* Where the first directory holding `name` (a valid header name) is, as
 * the compiler searches: 1 when it is a regular file whose real path stays
 * inside that directory; 0 when no directory holds it; -1 when the first
 * that does holds something else (a directory, a link leading out). */
static int resolve(scan *s, const char *name)
{
	char *slot = s->found[hash(name) % CACHE_SLOTS];
	if (!strcmp(slot, name))
		return 1;
	for (int i = 0; i < s->ndirs; i++) {
		const char *dir = s->dirs[i];
		char path[PATH_MAX], real[PATH_MAX], rdir[PATH_MAX];
		struct stat st;
		if (!dir || !*dir ||
		    snprintf(path, sizeof path, "%s/%s", dir, name) >=
		            (int)sizeof path)
			continue;
		if (stat(path, &st) != 0) {
			if (errno == ENOENT || errno == ENOTDIR)
				continue;
			return -1;
		}
		if (!S_ISREG(st.st_mode) || !realpath(dir, rdir) ||
		    !realpath(path, real))
			return -1;
		size_t k = strlen(rdir);
		if (strncmp(real, rdir, k) != 0 || real[k] != '/')
			return -1;
		strcpy(slot, name);
		return 1;
	}
	return 0;
}

/* Why name[0..n) is not a header name, or NULL: a header name is
 * segments of [A-Za-z0-9_][A-Za-z0-9_.+-]* joined by single '/'s, at most
 * HEADER_MAX bytes (name holds the first HEADER_MAX bytes; n may be more).
 * buf (cap bytes) holds a reason that names a character. */
static const char *header_name_bad(const char *name, size_t n, char *buf,
                                   size_t cap)
{
	if (n == 0)
		return "empty header name";
	if (n > HEADER_MAX)
		return "a header name may be at most 255 bytes long";
	if (name[0] == '/')
		return "an absolute path; a header name is relative to the CUDA "
		       "toolkit's include directories";
	for (size_t i = 0; i <= n;) {
		size_t j = i;
		while (j < n && name[j] != '/')
			j++;
		if (j == i)
			return "an empty path segment (// or a trailing /)";
		if (name[i] == '.')
			return "a path segment starting with '.' (. and .. are "
			       "not allowed)";
		for (size_t k = i; k < j; k++) {
			int c = (unsigned char)name[k];
			if (is_alnum(c) ||
			    (k > i && (c == '.' || c == '+' || c == '-')))
				continue;
			snprintf(buf, cap, "the character '%c' is not allowed in "
			         "a header name (letters, digits, _ . + - and / "
			         "only)", c >= 0x20 && c < 0x7f ? c : '?');
			return buf;
		}
		i = j + 1;
	}
	return NULL;
}

/* Lexes and checks the header name <...> at p of the #include being read;
 * sets *end after it. */
static krl_err header(scan *s, size_t p, size_t *end)
{
	char name[HEADER_MAX + 1], qb[QUOTE_MAX + 4];
	size_t n = 0;
	for (p = next(s, p);; p = next(s, p)) {
		int c = ch(s, p);
		if (c < 0 || c == '\n' || c == '\r')
			return fail(s, s->dir_at, "%s: no closing '>' on the line",
			            quote(s, s->dir_at, s->n, qb));
		if (c == '>')
			break;
		if (c == '?' && trigraph(s, p, 0))
			return fail_trigraph(s, p, 0);
		if (n < HEADER_MAX)
			name[n] = (char)c;
		n++;
	}
	*end = next(s, p);
	char buf[160];
	const char *why = header_name_bad(name, n, buf, sizeof buf);
	if (why)
		return fail(s, s->dir_at, "%s: %s",
		            quote(s, s->dir_at, *end, qb), why);
	name[n] = 0;
	if (s->ndirs <= 0)
		return fail(s, s->dir_at, "%s: not a header of the CUDA "
		            "toolkit's include directories (none are configured, "
		            "so nothing may be included)",
		            quote(s, s->dir_at, *end, qb));
	int found = resolve(s, name);
	if (found <= 0)
		return fail(s, s->dir_at, "%s: %s the CUDA toolkit's include "
		            "directories (only toolkit headers may be included)",
		            quote(s, s->dir_at, *end, qb),
		            found < 0 ? "not a regular file inside" :
		                        "not a header of");
	s->dir = D_INCLUDED;
	return KRL_OK;
}

/* ==== Directives ==== */

/* The state after directive name t, or D_NONE for a refused directive. */
static dstate directive(const tok *t)
{
	static const char *const plain[] = {
		"undef", "if", "ifdef", "ifndef", "elif", "elifdef",
		"elifndef", "else", "endif", "error", "warning"
	};
	if (spelled(t, "include"))
		return D_INCLUDE;
	if (spelled(t, "line"))
		return D_LINE;
	if (spelled(t, "pragma"))
		return D_PRAGMA;
	if (spelled(t, "define"))
		return D_DEFINE;
	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
		if (spelled(t, plain[i]))
			return D_BODY;
	return D_NONE;
}

/* The end of a logical line (or of the file): a directive still waiting
 * for its operand, or a _Pragma inside it, is incomplete. */
static krl_err end_line(scan *s)
{
	char qb[QUOTE_MAX + 4];
	dstate dir = s->dir;
	s->dir = D_NONE;
	if (dir != D_NONE && s->prag)
		return fail(s, s->prag_at, "%s: _Pragma must be followed by "
		            "( \"pragma\" ) on the same line of a directive",
		            quote(s, s->prag_at, s->n, qb));
	if (dir == D_INCLUDE)
		return fail(s, s->dir_at, "%s: no header name; write #include "
		            "<name>", quote(s, s->dir_at, s->n, qb));
	if (dir == D_LINE)
		return fail(s, s->dir_at, "%s: #line needs a decimal line "
		            "number", quote(s, s->dir_at, s->n, qb));
	return KRL_OK;
}

/* Runs token t through the _Pragma and directive state machines. */
static krl_err feed(scan *s, const tok *t)
{
	char qb[QUOTE_MAX + 4];
	krl_err r;
	if (s->prag) {
		int want = s->prag;
		int ok = want == 1 ? t->kind == T_LPAREN :
		         want == 3 ? t->kind == T_RPAREN :
		         t->kind == T_STRING && (t->prefix == 0 || t->prefix == 'L');
		if (!ok)
			return fail(s, s->prag_at, "%s: _Pragma must be followed "
			            "by ( \"pragma\" ), one plain string literal "
			            "written out (no macro, no #, no raw string)",
			            quote(s, s->prag_at, s->n, qb));
		if (want == 2 && (r = pragma_string(s, t)))
			return r;
		s->prag = want == 3 ? 0 : want + 1;
	} else if (spelled(t, "_Pragma")) {
		s->prag = 1;
		s->prag_at = t->start;
	}

	if (t->wraps && s->dir != D_START && !spelled(t, "_Pragma"))
		return fail(s, t->start, "%s: a name holding \"pragma\", "
		            "\"has_include\" or \"has_embed\" is not allowed: "
		            "toolkit macros such as _CCCL_PRAGMA and "
		            "_CCCL_HAS_INCLUDE wrap _Pragma and __has_include, and "
		            "the checker expands no macro (write #pragma or "
		            "_Pragma(\"...\"))", quote(s, t->start, t->end, qb));

	if (t->kind == T_HASH && s->bol) {
		/* A directive may start after a comment that ended a line
		 * which was itself a directive. */
		if ((r = end_line(s)))
			return r;
		s->dir = D_START;
		s->dir_at = t->start;
		return KRL_OK;
	}
	const char *q;
	switch (s->dir) {
	case D_NONE:
	case D_BODY:
		return KRL_OK;
	case D_START:
		if (t->kind != T_IDENT)
			return fail(s, s->dir_at, "%s: a directive name must "
			            "follow # (line markers such as # 1 \"file\" "
			            "are not allowed)",
			            quote(s, s->dir_at, s->n, qb));
		if ((s->dir = directive(t)) == D_NONE)
			return fail(s, s->dir_at, "%s: only the directives "
			            DIRECTIVES " are allowed",
			            quote(s, s->dir_at, s->n, qb));
		return KRL_OK;
	case D_INCLUDE:
		q = quote(s, s->dir_at, s->n, qb); /* a refusal either way */
		if (t->kind == T_STRING || t->kind == T_RAW)
			return fail(s, s->dir_at, "%s: only <name> includes of "
			            "CUDA toolkit headers are allowed (a quoted "
			            "include searches host directories)", q);
		return fail(s, s->dir_at, "%s: macro-expanded include names "
		            "are not allowed (the checker cannot expand macros); "
		            "write #include <name>", q);
	case D_INCLUDED:
		return fail(s, s->dir_at, "%s: only blanks and comments may "
		            "follow the header name",
		            quote(s, s->dir_at, s->n, qb));
	case D_LINE:
	case D_LINED:
		if (s->dir == D_LINE && t->kind == T_NUMBER && t->digits) {
			s->dir = D_LINED;
			return KRL_OK;
		}
		return fail(s, s->dir_at, "%s: only #line <decimal number> is "
		            "allowed (no file name, no macro)",
		            quote(s, s->dir_at, s->n, qb));
	case D_PRAGMA:
		if (t->kind != T_IDENT || t->ext ||
		    !pragma_ok(t->spell, t->nspell))
			return fail(s, s->dir_at, "%s: only the pragmas " PRAGMAS
			            " are allowed", quote(s, s->dir_at, s->n, qb));
		s->dir = D_BODY;
		return KRL_OK;
	case D_DEFINE:
		if (t->kind == T_IDENT && !t->ext &&
		    pragma_ok(t->spell, t->nspell))
			return fail(s, s->dir_at, "%s: a macro may not be named "
			            "like an allowed pragma (" PRAGMAS "): pragma "
			            "lines may be macro-expanded",
			            quote(s, s->dir_at, s->n, qb));
		s->dir = D_BODY;
		return KRL_OK;
	}
	return KRL_OK;
}

/* ==== Entry point ==== */

static krl_err run(scan *s)
{
	krl_err r;
	size_t p = skip(s, 0);
	size_t udl = SIZE_MAX; /* where a literal ended: a ud-suffix may follow */
	while (p < s->n) {
		int c = ch(s, p);
		if (c == '\n') {
			if ((r = end_line(s)))
				return r;
			s->bol = 1;
			p = next(s, p);
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\f' || c == '\v' ||
		    c == '\r') {
			p = next(s, p);
			continue;
		}
		int nl = 0;
		if (c == '/' && (ch(s, next(s, p)) == '/' ||
		                 ch(s, next(s, p)) == '*')) {
			/* A comment that holds a line end may precede a
			 * directive (counting it as a line start is safe). */
			if ((r = comment(s, p, &p, &nl)))
				return r;
			s->bol |= nl;
			continue;
		}
		if (c == '<' && s->dir == D_INCLUDE) {
			if ((r = header(s, p, &p)))
				return r;
			s->bol = 0;
			continue;
		}
		tok t;
		if ((r = lex(s, p, p == udl, &t, &nl)) || (r = feed(s, &t)))
			return r;
		udl = t.kind == T_STRING || t.kind == T_CHAR || t.kind == T_RAW ?
		      t.end : SIZE_MAX;
		/* A run of non-ASCII bytes (a BOM, a no-break space) may be
		 * blank to some compiler: a '#' after it may start a line. */
		s->bol = nl || (s->bol && t.kind == T_IDENT && t.high);
		p = t.end;
	}
	if ((r = end_line(s)))
		return r;
	if (s->prag) {
		char qb[QUOTE_MAX + 4];
		return fail(s, s->prag_at, "%s: _Pragma must be followed by "
		            "( \"pragma\" )", quote(s, s->prag_at, s->n, qb));
	}
	return KRL_OK;
}

krl_err krl_srccheck(const char *src, size_t len, const char *name,
                     const char *const *dirs, int ndirs, krl_diag *d)
{
	scan s = {
		.z = src ? src : "",
		.n = src ? len : 0,
		.name = name,
		.dirs = dirs,
		.ndirs = dirs ? ndirs : 0,
		.d = d,
		.bol = 1,
	};
	krl_err r = check_bytes(&s);
	return r ? r : run(&s);
}
