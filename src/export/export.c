/*
 * kernelrl export (docs/export.md): resolves a candidate's plan on one shape
 * set and writes it out as ordinary CUDA (src/export/cuda.c) or as a
 * PyTorch package around that (src/export/torch.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_int.h"
#include "krl/ops.h"
#include "util/fs.h"

static const krl_pos nopos = { 0, 0, 0 };

void krl_export_stem(const krl_task *t, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", t->name ? t->name : "task");
	for (char *q = buf; *q; q++)
		if (!isalnum((unsigned char)*q))
			*q = '_';
}

krl_err krl_export_file(const char *dir, const char *name, krl_strbuf *b,
                        krl_diag *d)
{
	char path[4096];
	krl_err e = KRL_OK;
	if (b->oom)
		e = krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory "
		                 "writing %s", name);
	else if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
		e = krl_diag_set(d, KRL_EIO, nopos, "path too long: %s/%s",
		                 dir, name);
	if (!e) {
		FILE *f = fopen(path, "w");
		size_t n = b->len;
		if (!f || (n && fwrite(b->z, 1, n, f) != n) || fclose(f) != 0)
			e = krl_diag_set(d, KRL_EIO, nopos, "cannot write "
			                 "%s: %s", path, strerror(errno));
	}
	krl_strbuf_free(b);
	memset(b, 0, sizeof *b);
	return e;
}

krl_err krl_export_copy(const char *src, const char *dir, const char *name,
                        krl_diag *d)
{
	FILE *f = fopen(src, "rb");
	if (!f)
		return krl_diag_set(d, KRL_ENOTFOUND, nopos, "cannot read "
		                    "%s: %s", src, strerror(errno));
	krl_strbuf b = {0};
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		krl_strbuf_add(&b, chunk, n);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		krl_strbuf_free(&b);
		return krl_diag_set(d, KRL_EIO, nopos, "error reading %s", src);
	}
	return krl_export_file(dir, name, &b, d);
}

int krl_export_op_supported(const char *op, char *msg, size_t cap)
{
	if (krl_op_find(op))
		return 1;
	snprintf(msg, cap, "op '%s' is not in kernelrl's op library, so "
	         "libkrl_ops cannot run it", op);
	return 0;
}

/* Every call of the plan must be an op libkrl_ops runs. */
static krl_err check_ops(const krl_program *p, krl_diag *d)
{
	char msg[512];
	for (int pass = 0; pass < 2; pass++) {
		const krl_step *s = pass ? p->init : p->body;
		int n = pass ? p->ninit : p->nbody;
		for (int i = 0; i < n; i++)
			if (s[i].kind == KRL_ST_CALL &&
			    !krl_export_op_supported(s[i].op->name, msg, sizeof msg))
				return krl_diag_set(d, KRL_EUNSUPPORTED, s[i].src
				                    ? s[i].src->pos : nopos,
				                    "%s", msg);
	}
	return KRL_OK;
}

/* The generated host code names its own identifiers krl_* (the buffer
 * table, the stream, the workspaces): a task buffer may not. */
static krl_err check_names(const krl_task *t, const krl_program *p,
                           krl_diag *d)
{
	for (int i = 0; i < p->ntask; i++)
		if (!strncmp(p->bufs[i].name, "krl_", 4))
			return krl_diag_set(d, KRL_EUNSUPPORTED, nopos,
			                    "task %s: buffer '%s': names starting "
			                    "with krl_ are the exported host code's "
			                    "own; rename it to export",
			                    t->id ? t->id : t->name,
			                    p->bufs[i].name);
	return KRL_OK;
}

krl_err krl_export_write(const krl_task *t, const krl_candidate *c,
                         const krl_export_opts *o, const char *dir,
                         krl_diag *d)
{
	if (!krl_task_shapeset(t, o->shapes))
		return krl_diag_set(d, KRL_ENOTFOUND, nopos, "task %s has no shape "
		                    "set '%s'", t->id ? t->id : t->name, o->shapes);
	krl_limits lim = krl_limits_sm90();
	krl_program *p = NULL;
	krl_err e = krl_program_build(t, c, o->shapes, &lim, &p, d);
	if (e)
		return e;
	if ((e = check_ops(p, d)) || (e = check_names(t, p, d)))
		goto out;
	if (krl_mkdirs(dir) != 0) {
		e = krl_diag_set(d, KRL_EIO, nopos, "cannot create %s: %s",
		                 dir, strerror(errno));
		goto out;
	}
	e = o->to == KRL_EXPORT_TORCH ? krl_export_torch(t, c, p, o, dir, d)
	                              : krl_export_cuda(t, c, p, o, dir, d);
out:
	krl_program_free(p);
	return e;
}
