/*
 * HTML text for the report (src/report/report_int.h): every string that
 * comes from outside (task names, candidate sources, run names, messages)
 * goes through rp_esc, which also keeps the page valid UTF-8.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"
#include "util/utf8.h"

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
			else if (s[i] >= 0x80 &&
			         !(k = krl_utf8_char_len(z + i, n - i)))
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
