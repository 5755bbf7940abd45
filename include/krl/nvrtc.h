/*
 * kernelrl: NVRTC compilation with a content-addressed on-disk cache
 * (docs/runtime.md), in a sandboxed compiler process (docs/judge.md "The
 * compiler sandbox").
 *
 * Device code is compiled for one exact architecture ("sm_90a" on Hopper)
 * to a cubin. Before NVRTC sees it, the source must pass the include rule
 * (krl/srccheck.h: only <name> includes of CUDA toolkit headers); NVRTC
 * then runs in a separate process that can read nothing but the toolkit's
 * include directories, under a wall-clock deadline and CPU-time and
 * memory limits (krl_nvrtc_set_limits). The log that comes back is
 * filtered (no block quoting a file other than the candidate or a toolkit
 * header) and capped at KRL_COMPILE_LOG_CAP bytes.
 *
 * The cache key is the SHA-256 of the source, the full option list, the
 * architecture, the NVRTC version and a fingerprint of the toolkit's
 * include directories (every file's path, size and modification time);
 * an entry is one file <cache_dir>/nvrtc/<2 hex>/<62 hex>.cubin written
 * atomically by this process (temp file + rename), so concurrent compilers
 * and a kill at any moment never leave a torn entry. No GPU is needed.
 */
#ifndef KRL_NVRTC_H
#define KRL_NVRTC_H

#include <stddef.h>

#include "krl/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most bytes of compile log that leave the compiler (a note saying
 * how much was cut follows). */
#define KRL_COMPILE_LOG_CAP 16384

typedef struct krl_cubin {
	void *data;          /* the cubin image; NULL when compilation failed */
	size_t size;
	char *log;           /* the filtered, capped log (may be ""), never NULL */
	/* Why compilation failed, when not NVRTC's own errors: "include"
	 * (the include rule refused the source before NVRTC ran),
	 * "compile_timeout" (past the deadline or the CPU-time limit),
	 * "compile_resources" (the compiler ran out of memory or died).
	 * NULL otherwise. Static storage. */
	const char *reason;
	/* The sandbox the compiler process ran in: "landlock", "namespace"
	 * or "none"; NULL when no compiler process ran (a cache hit, or the
	 * include rule refused the source). Static storage. */
	const char *sandbox;
	int from_cache;      /* 1 when read from the cache */
	double ms;           /* wall time of this call, milliseconds */
	char key[65];        /* hex SHA-256 cache key */
} krl_cubin;

/* Limits of one compilation. */
typedef struct krl_compile_limits {
	double timeout_s;    /* wall-clock deadline, seconds (0: 30, or
	                      * $KRL_COMPILE_TIMEOUT) */
	size_t mem_bytes;    /* data (heap, anonymous memory) of the compiler
	                      * process, RLIMIT_DATA (0: 4 GiB) */
} krl_compile_limits;

/* Sets the limits every later compilation in this process uses (NULL or
 * zero fields: the defaults). Thread-safe. */
void krl_nvrtc_set_limits(const krl_compile_limits *lim);
/* The limits in force. */
krl_compile_limits krl_nvrtc_limits(void);

/* The CUDA toolkit include directories NVRTC searches (and the only ones
 * the compiler sandbox lets it read): static storage, *n of them. */
const char *const *krl_nvrtc_include_dirs(int *n);

/* A sentence on the compiler sandbox of this machine, e.g. "landlock (ABI
 * 7)" or "none (Landlock unavailable: ...; unshare: ...)", into buf; it
 * starts a compiler process when none has run yet. */
void krl_nvrtc_sandbox(char *buf, size_t cap);

/*
 * Compiles src (len bytes, need not be NUL-terminated) named `name` (used in
 * messages) for `arch` (e.g. "sm_90a"). cache_dir NULL disables the cache.
 * Returns KRL_OK with *out set; KRL_ECOMPILE with *out set (data NULL, log
 * holding NVRTC's messages or the refusal, reason set as above) when the
 * code does not compile, breaks the include rule or exceeds a limit, and d
 * holding the first error line; other codes with d filled (a compiler
 * process could not be started). The caller frees *out with
 * krl_cubin_free. Thread-safe.
 */
krl_err krl_nvrtc_compile(const char *src, size_t len, const char *name,
                          const char *arch, const char *cache_dir,
                          krl_cubin **out, krl_diag *d);
void krl_cubin_free(krl_cubin *c);

/* The options every compile uses for arch (for docs and --verbose); static
 * storage, NULL-terminated. */
const char *const *krl_nvrtc_options(const char *arch);

/* $KRL_CACHE_DIR, else $XDG_CACHE_HOME/krl, else $HOME/.cache/krl, else
 * /tmp/krl-cache. Static storage. "" (no cache) when that path is too
 * long to hold (it is never cut). */
const char *krl_cache_dir(void);

/* "major.minor" of the NVRTC library. */
const char *krl_nvrtc_version(void);

#ifdef __cplusplus
}
#endif
#endif
