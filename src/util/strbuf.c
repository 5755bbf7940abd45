/*
 * Text built without silent truncation (src/util/strbuf.h): the growable
 * krl_strbuf and formatting into fixed-size fields that fails when the
 * text does not fit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/utf8.h"

/* ==== Growable string ==== */

/* Makes room for n more bytes and the NUL; 0, or -1 (b->oom set). */
static int reserve(krl_strbuf *b, size_t n)
{
	if (b->oom)
		return -1;
	if (n > (size_t)-1 / 2 - b->len - 1) {
		b->oom = 1;
		return -1;
	}
	if (b->len + n + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + n + 1)
		cap *= 2;
	char *q = realloc(b->z, cap);
	if (!q) {
		b->oom = 1;
		return -1;
	}
	b->z = q;
	b->cap = cap;
	return 0;
}

void krl_strbuf_add(krl_strbuf *b, const char *p, size_t n)
{
	if (reserve(b, n) != 0)
		return;
	if (n)
		memcpy(b->z + b->len, p, n);
	b->len += n;
	b->z[b->len] = 0;
}

void krl_strbuf_str(krl_strbuf *b, const char *z)
{
	krl_strbuf_add(b, z, strlen(z));
}

void krl_strbuf_vprintf(krl_strbuf *b, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0) { /* an encoding error: the text cannot be made whole */
		b->oom = 1;
		return;
	}
	if (reserve(b, (size_t)n) != 0)
		return;
	vsnprintf(b->z + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void krl_strbuf_printf(krl_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	krl_strbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *krl_strbuf_take(krl_strbuf *b)
{
	if (!b->z && !b->oom)
		krl_strbuf_add(b, "", 0);
	if (b->oom) {
		krl_strbuf_free(b);
		return NULL;
	}
	char *z = b->z;
	memset(b, 0, sizeof *b);
	return z;
}

void krl_strbuf_free(krl_strbuf *b)
{
	free(b->z);
	memset(b, 0, sizeof *b);
}

char *krl_vfmt(const char *fmt, va_list ap)
{
	krl_strbuf b = { 0 };
	krl_strbuf_vprintf(&b, fmt, ap);
	return krl_strbuf_take(&b);
}

char *krl_fmt(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *z = krl_vfmt(fmt, ap);
	va_end(ap);
	return z;
}

/* ==== Fixed-size fields ==== */

krl_err krl_fmt_fixed(char *buf, size_t cap, const char *what, krl_diag *d,
                      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = cap ? vsnprintf(buf, cap, fmt, ap) : -1;
	va_end(ap);
	if (n >= 0 && (size_t)n < cap)
		return KRL_OK;
	krl_pos none = {0};
	if (n < 0) {
		if (cap)
			buf[0] = 0;
		return krl_diag_set(d, KRL_EINVAL, none, "%s cannot be formatted",
		                    what);
	}
	/* buf holds the text's first cap - 1 bytes: quote some of them */
	size_t k = krl_utf8_cut(buf, strlen(buf), 64);
	krl_err e = krl_diag_set(d, KRL_EINVAL, none,
	                         "%s is too long (%d bytes, at most %zu): "
	                         "%.*s...", what, n, cap - 1, (int)k, buf);
	buf[0] = 0;
	return e;
}
