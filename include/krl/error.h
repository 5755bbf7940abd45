/*
 * kernelrl: result codes and diagnostics shared by every module.
 *
 * Every library function that can fail returns a krl_err; 0 (KRL_OK) is
 * success. Errors a user can cause (a bad task file, a bad candidate) carry a
 * krl_diag with the position (file:line:col) and a sentence saying what was
 * expected. The library never exits the process.
 */
#ifndef KRL_ERROR_H
#define KRL_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum krl_err {
	KRL_OK = 0,
	KRL_ENOMEM,        /* host allocation failed */
	KRL_EIO,           /* a file could not be read or written */
	KRL_ESYNTAX,       /* a task or candidate file does not parse */
	KRL_EINVAL,        /* a well-formed but invalid request or plan */
	KRL_ENOTFOUND,     /* a named task, op, kernel or shape set does not exist */
	KRL_ECOMPILE,      /* NVRTC rejected the device code */
	KRL_ENODEVICE,     /* no CUDA device or driver is available */
	KRL_ECUDA,         /* a CUDA driver/runtime call failed */
	KRL_ECUBLAS,       /* a cuBLAS/cuBLASLt call failed */
	KRL_ELAUNCH,       /* a candidate kernel failed at run time */
	KRL_ETIMEOUT,      /* a runner did not answer in time */
	KRL_ERUNNER,       /* the runner process died or broke the protocol */
	KRL_EUNSUPPORTED,  /* valid, but not implemented for these dtypes/shapes */
	KRL_EDEVMEM,       /* device memory could not be allocated */
	KRL_ERR_COUNT
} krl_err;

/* A short constant English description of a code. Never NULL. */
const char *krl_strerror(krl_err e);

/* A position in a user-written file; line and col start at 1, 0 = unknown. */
typedef struct krl_pos {
	const char *file; /* borrowed: points at the owning object's path */
	int line;
	int col;
} krl_pos;

/* A diagnostic: where and what. Filled by functions that take one. */
typedef struct krl_diag {
	krl_pos pos;
	char msg[1024];
} krl_diag;

/* printf-style: sets d->pos and d->msg (if d is not NULL). Returns e. */
krl_err krl_diag_set(krl_diag *d, krl_err e, krl_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Formats "file:line:col: msg" (or just msg without a position) into buf. */
const char *krl_diag_format(const krl_diag *d, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
