/*
 * Text built without silent truncation. Private to libkrl.
 *
 * krl_strbuf is the one growable string: appends never cut, and an
 * allocation failure is sticky (every later append is a no-op and
 * krl_strbuf_take returns NULL), so a builder checks once, at the end.
 *
 * krl_fmt_fixed is for the texts that live in fixed-size fields (paths in
 * PATH_MAX buffers, names in records): it formats into the field or fails
 * with a message that says what did not fit, instead of keeping a prefix.
 */
#ifndef KRL_UTIL_STRBUF_H
#define KRL_UTIL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "krl/error.h"

typedef struct krl_strbuf {
	char *z;        /* NUL-terminated once anything was appended */
	size_t len, cap;
	int oom;        /* an allocation failed: the text is incomplete */
} krl_strbuf;

/* Appends p[0..n) (may contain NULs). */
void krl_strbuf_add(krl_strbuf *b, const char *p, size_t n);

/* Appends a NUL-terminated string. */
void krl_strbuf_str(krl_strbuf *b, const char *z);

/* Appends printf text, whole whatever its length. */
void krl_strbuf_printf(krl_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void krl_strbuf_vprintf(krl_strbuf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Takes the text out of b and resets b: a malloc'd string the caller
 * frees ("" when nothing was appended), or NULL when an allocation
 * failed. */
char *krl_strbuf_take(krl_strbuf *b);

/* Frees the text and resets b (b may be all zero). */
void krl_strbuf_free(krl_strbuf *b);

/* printf text in a malloc'd string of its own length (caller frees), or
 * NULL when out of memory. */
char *krl_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *krl_vfmt(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

/* printf into buf[cap]. When the text does not fit (cap - 1 bytes), buf
 * becomes "" and the result is KRL_EINVAL with d (may be NULL) saying
 * "<what> is too long (<n> bytes, at most <cap - 1>): <its start>...";
 * what names the field ("the candidate path", "the run name"). */
krl_err krl_fmt_fixed(char *buf, size_t cap, const char *what, krl_diag *d,
                      const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif
