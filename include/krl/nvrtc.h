/*
 * kernelrl: NVRTC compilation with a content-addressed on-disk cache
 * (docs/runtime.md).
 *
 * Device code is compiled for one exact architecture ("sm_90a" on Hopper)
 * to a cubin. The cache key is the SHA-256 of the source, the full option
 * list, the architecture and the NVRTC version; an entry is one file
 * <cache_dir>/nvrtc/<2 hex>/<62 hex>.cubin written atomically (temp file +
 * rename), so concurrent compilers and a kill at any moment never leave a
 * torn entry. No GPU is needed.
 */
#ifndef KRL_NVRTC_H
#define KRL_NVRTC_H

#include <stddef.h>

#include "krl/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct krl_cubin {
	void *data;          /* the cubin image; NULL when compilation failed */
	size_t size;
	char *log;           /* NVRTC's log (may be ""), never NULL */
	int from_cache;      /* 1 when read from the cache */
	double ms;           /* wall time of this call, milliseconds */
	char key[65];        /* hex SHA-256 cache key */
} krl_cubin;

/*
 * Compiles src (len bytes, need not be NUL-terminated) named `name` (used in
 * messages) for `arch` (e.g. "sm_90a"). cache_dir NULL disables the cache.
 * Returns KRL_OK with *out set; KRL_ECOMPILE with *out set (data NULL, log
 * holding NVRTC's messages) when the code does not compile; other codes with
 * d filled. The caller frees *out with krl_cubin_free.
 */
krl_err krl_nvrtc_compile(const char *src, size_t len, const char *name,
                          const char *arch, const char *cache_dir,
                          krl_cubin **out, krl_diag *d);
void krl_cubin_free(krl_cubin *c);

/* The options every compile uses for arch (for docs and --verbose); static
 * storage, NULL-terminated. */
const char *const *krl_nvrtc_options(const char *arch);

/* $KRL_CACHE_DIR, else $XDG_CACHE_HOME/krl, else $HOME/.cache/krl, else
 * /tmp/krl-cache. Static storage. */
const char *krl_cache_dir(void);

/* "major.minor" of the NVRTC library. */
const char *krl_nvrtc_version(void);

#ifdef __cplusplus
}
#endif
#endif
