/* Result codes and diagnostics (include/krl/error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "krl/error.h"
#include "util/utf8.h"

static const char *const krl_err_text[KRL_ERR_COUNT] = {
	[KRL_OK] = "ok",
	[KRL_ENOMEM] = "out of host memory",
	[KRL_EIO] = "file input/output error",
	[KRL_ESYNTAX] = "syntax error",
	[KRL_EINVAL] = "invalid argument or plan",
	[KRL_ENOTFOUND] = "not found",
	[KRL_ECOMPILE] = "device code does not compile",
	[KRL_ENODEVICE] = "no CUDA device available",
	[KRL_ECUDA] = "CUDA call failed",
	[KRL_ECUBLAS] = "cuBLAS call failed",
	[KRL_ELAUNCH] = "kernel launch or execution failed",
	[KRL_ETIMEOUT] = "timed out",
	[KRL_ERUNNER] = "runner process failed",
	[KRL_EUNSUPPORTED] = "not supported",
	[KRL_EDEVMEM] = "out of device memory",
};

const char *krl_strerror(krl_err e)
{
	if ((unsigned)e >= KRL_ERR_COUNT || !krl_err_text[e])
		return "unknown error";
	return krl_err_text[e];
}

krl_err krl_diag_set(krl_diag *d, krl_err e, krl_pos pos, const char *fmt, ...)
{
	if (!d)
		return e;
	d->pos = pos;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
	/* a message cut short ends in "..." (never inside a character) */
	if (n >= (int)sizeof d->msg) {
		size_t k = krl_utf8_cut(d->msg, strlen(d->msg), sizeof d->msg - 4);
		memcpy(d->msg + k, "...", 4);
	}
	return e;
}

const char *krl_diag_format(const krl_diag *d, char *buf, size_t cap)
{
	if (d->pos.file && d->pos.line > 0)
		snprintf(buf, cap, "%s:%d:%d: %s", d->pos.file, d->pos.line,
		         d->pos.col, d->msg);
	else if (d->pos.file)
		snprintf(buf, cap, "%s: %s", d->pos.file, d->msg);
	else
		snprintf(buf, cap, "%s", d->msg);
	return buf;
}
