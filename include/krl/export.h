/*
 * kernelrl: `krl export` (docs/export.md): a candidate taken out of
 * kernelrl as ordinary CUDA, or as a PyTorch package.
 *
 * --to cuda writes a folder with the candidate's device code as it is plus
 * generated host code for its plan (kernels.cu), a C header with one
 * launch function per plan (krl_<task>.h), a sample main.cu and a
 * Makefile. Shapes are fixed to one shape set. Library calls go through
 * libkrl_ops (src/export/shim/krl_ops_shim.h), a shared library built
 * from kernelrl's op library, copied next to the export.
 *
 * --to torch writes an installable Python package whose ModelNew is a
 * drop-in for KernelBench's Model: the --to cuda sources, built into a
 * shared library on first import and called through ctypes with PyTorch's
 * tensors, allocator and current stream.
 */
#ifndef KRL_EXPORT_H
#define KRL_EXPORT_H

#include "krl/error.h"
#include "krl/lang.h"
#include "krl/store.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum krl_export_kind { KRL_EXPORT_CUDA, KRL_EXPORT_TORCH } krl_export_kind;

typedef struct krl_export_opts {
	krl_export_kind to;
	const char *shapes;      /* shape set the shapes are fixed to (kb1) */
	const char *arch;        /* nvcc's -arch (sm_90a) */
	const char *ops_lib;     /* libkrl_ops.so to bundle, or NULL (then a
	                          * plan with calls says where to put one) */
	const char *kb_model;    /* torch: KernelBench's Model file (required) */
	/* Provenance, written into meta.json / the README (may be NULL/0). */
	const char *cand_hash;
	const char *cand_origin; /* "store krl.db" or the candidate's path */
	double speedup, ci_low, ci_high;
} krl_export_opts;

/*
 * Writes the export of candidate c of task t into folder dir (created if
 * needed; files there of the same names are replaced). Fails with
 * KRL_ENOTFOUND (unknown shape set, missing Model file), KRL_EINVAL (the
 * plan does not resolve on the shape set), KRL_EUNSUPPORTED (a library op
 * the export cannot call, named in d) or KRL_EIO, with d saying why.
 */
krl_err krl_export_write(const krl_task *t, const krl_candidate *c,
                         const krl_export_opts *o, const char *dir,
                         krl_diag *d);

/* The best stored candidate of task id: the ok evaluation with the highest
 * measured speedup, in run `run` (NULL: every run). *source is malloc'd
 * (caller frees). KRL_ENOTFOUND, saying so, when there is none. */
typedef struct krl_export_pick {
	char hash[65];
	double speedup, ci_low, ci_high;
	char run[128];
	char *source;
} krl_export_pick;

krl_err krl_export_best(krl_store *st, const char *task_id, const char *run,
                        krl_export_pick *out, krl_diag *d);

/* Ops the export can call: every op of the library (through libkrl_ops),
 * so this is 1 unless a future op is marked host-only; 0 with the reason
 * in msg otherwise. */
int krl_export_op_supported(const char *op, char *msg, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
