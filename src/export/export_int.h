/*
 * kernelrl export: private helpers shared by the CUDA and PyTorch writers
 * (src/export/).
 */
#ifndef KRL_EXPORT_INT_H
#define KRL_EXPORT_INT_H

#include "krl/export.h"
#include "util/strbuf.h"

/* The C identifier stem of a task: its name with every other character
 * made '_' ("relu" -> "relu"); writes into buf[cap]. */
void krl_export_stem(const krl_task *t, char *buf, size_t cap);
/* Writes b's text to dir/name; KRL_EIO or KRL_ENOMEM with d set. */
krl_err krl_export_file(const char *dir, const char *name, krl_strbuf *b,
                        krl_diag *d);
/* Copies file src to dir/name. */
krl_err krl_export_copy(const char *src, const char *dir, const char *name,
                        krl_diag *d);
/* Writes the --to cuda files of program p into dir (the torch writer puts
 * them in the package's csrc/). */
krl_err krl_export_cuda(const krl_task *t, const krl_candidate *c,
                        const krl_program *p, const krl_export_opts *o,
                        const char *dir, krl_diag *d);
/* Writes the --to torch package around the cuda files into dir. */
krl_err krl_export_torch(const krl_task *t, const krl_candidate *c,
                         const krl_program *p, const krl_export_opts *o,
                         const char *dir, krl_diag *d);
/* Bytes of the scratch workspace and of the derived buffers: each buffer
 * 256-byte aligned, in program order; off[i] is buffer i's offset in its
 * area (views and task buffers: 0). */
void krl_export_layout(const krl_program *p, size_t *off, size_t *scratch,
                       size_t *derived);

#endif
