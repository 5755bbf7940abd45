/*
 * The sandboxed compiler processes (private to src/runtime; nvrtc.c is the
 * public way in). docs/judge.md "The compiler sandbox".
 */
#ifndef KRL_RUNTIME_COMPILER_H
#define KRL_RUNTIME_COMPILER_H

#include <stddef.h>

#include "krl/error.h"
#include "krl/nvrtc.h"

typedef enum krl_sandbox_level {
	KRL_SANDBOX_NONE,
	KRL_SANDBOX_NAMESPACE,
	KRL_SANDBOX_LANDLOCK
} krl_sandbox_level;

/*
 * Restricts the calling process so that it can open no file except for
 * reading beneath dirs (sandbox.c). Irreversible. Returns the level
 * reached and describes it in how[] ("landlock (ABI 7)", "none (why)").
 * $KRL_SANDBOX ("landlock", "namespace", "none") limits what is tried.
 */
krl_sandbox_level krl_sandbox_enter(const char *const *dirs, int ndirs,
                                    char *how, size_t cap);

/*
 * Compiles src[0..len) named `name` with NVRTC options opts[0..nopt) in a
 * compiler process (a pool of them, started on demand, each sandboxed to
 * the include directories dirs[0..ndirs) once at its start), under
 * limits: the wall-clock deadline is enforced here (the process is
 * killed), CPU time and memory (data, not address space) by the
 * process's own rlimits.
 *
 * Fills c->data/size (the cubin) on KRL_OK; on KRL_ECOMPILE c->log holds
 * the reason and c->reason is NULL (NVRTC rejected the code),
 * "compile_timeout" or "compile_resources". c->sandbox names the level.
 * c->log is NVRTC's raw log (the caller filters and caps it). Other codes:
 * the compiler process could not be started or spoke nonsense (d set).
 * Thread-safe.
 */
krl_err krl_compiler_run(const char *src, size_t len, const char *name,
                         const char *const *opts, int nopt,
                         const char *const *dirs, int ndirs,
                         const krl_compile_limits *lim, krl_cubin *c,
                         krl_diag *d);

/*
 * The compile log as it may leave the compiler (complog.c): blocks quoting
 * a file other than `name`, a file beneath dirs or an NVRTC built-in
 * header replaced by a note, invalid UTF-8 and control characters
 * replaced by '?', cut to at most cap bytes plus a note. Returns malloc'd
 * text (caller frees), NULL when memory ran out.
 */
char *krl_compile_log_clean(const char *log, const char *name,
                            const char *const *dirs, int ndirs, size_t cap);

/* A sentence on the sandbox of the last compiler process started, e.g.
 * "landlock (ABI 7)", into buf ("" when none has started). */
void krl_compiler_sandbox_how(char *buf, size_t cap);

/* Kills every idle compiler process (they also exit by themselves when
 * this process ends). For tests. */
void krl_compiler_shutdown(void);

#endif
