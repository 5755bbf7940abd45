/*
 * HTML text for the report (src/report/report_int.h): every string that
 * comes from outside (task names, candidate sources, run names, messages)
 * goes through rp_esc, which also keeps the page valid UTF-8.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"

/* The length of the valid UTF-8 character at s[0..n), or 0 when s does
 * not start one (overlong forms, surrogates, above U+10FFFF). */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	unsigned cp = c & (0x3f >> (len - 1));
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void rp_esc(krl_strbuf *b, const char *z, size_t n)
{
	const unsigned char *s = (const unsigned char *)z;
	size_t i = 0, run = 0; /* s[i - run .. i) is copied as is */
	while (i < n) {
		const char *rep = NULL;
		size_t k = 1;
		switch (s[i]) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		case '\n': case '\t': break;
		default:
			if (s[i] < 0x20 || s[i] == 0x7f)
				rep = "?";
			else if (s[i] >= 0x80 && !(k = utf8_char(s + i, n - i)))
				rep = "?", k = 1;
		}
		if (rep) {
			krl_strbuf_add(b, (const char *)s + i - run, run);
			krl_strbuf_str(b, rep);
			run = 0;
			i += k;
		} else {
			run += k;
			i += k;
		}
	}
	krl_strbuf_add(b, (const char *)s + n - run, run);
}

void rp_escz(krl_strbuf *b, const char *z)
{
	if (z)
		rp_esc(b, z, strlen(z));
}

void rp_num(krl_strbuf *b, const char *fmt, double x)
{
	if (!isfinite(x)) {
		krl_strbuf_str(b, "-");
		return;
	}
	char buf[64];
	snprintf(buf, sizeof buf, fmt, x);
	krl_strbuf_str(b, buf);
}
