/*
 * kernelrl: the runtime (docs/runtime.md): the device, guarded device
 * buffers, loaded candidate modules, and the executor that runs a resolved
 * plan (krl_program) on one stream.
 *
 * The CUDA runtime API manages devices, memory, streams and events; the
 * driver API, reached through cudaGetDriverEntryPointByVersion (so nothing
 * links libcuda directly), loads cubins and launches candidate kernels with
 * the options Hopper code needs (large dynamic shared memory, clusters,
 * cooperative launch).
 */
#ifndef KRL_RUNTIME_H
#define KRL_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "krl/error.h"
#include "krl/lang.h"
#include "krl/nvrtc.h"
#include "krl/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Device ==== */

typedef struct krl_device {
	int ordinal;
	char name[256];
	char uuid[40];           /* hex */
	int cc_major, cc_minor;
	char arch[16];           /* NVRTC target: "sm_90a" on Hopper */
	int sm_count;
	size_t l2_bytes;
	size_t total_mem;
	krl_limits limits;
} krl_device;

/* Selects device `ordinal` (CUDA_VISIBLE_DEVICES applies) on this thread
 * and fills *dev. KRL_ENODEVICE with a clear message when there is no GPU
 * or driver. */
krl_err krl_device_open(int ordinal, krl_device *dev, krl_diag *d);
/* The CUDA devices this process sees (CUDA_VISIBLE_DEVICES applied); 0
 * when there is none or the runtime fails. Initialises CUDA: a process
 * that calls it must not fork children that use CUDA. */
int krl_device_count(void);

/* ==== Guarded buffers ==== */

/* Every device buffer kernelrl hands to a plan sits between two guard
 * regions of KRL_GUARD_BYTES filled with KRL_GUARD_PATTERN; writes past
 * either end are found by krl_gbuf_check_guards. */
#define KRL_GUARD_BYTES (64u << 10)
#define KRL_GUARD_PATTERN 0xA5C3F00Du
/* Outputs and scratch are filled with this before every call: a NaN in
 * every float dtype (f32 0x7FF87FF8, f64 0x7FF87FF87FF87FF8, f16 and
 * bf16 0x7FF8), bytes that are no bool (0xF8, 0x7F), and a large
 * recognisable integer (2146992120 as i32). */
#define KRL_POISON_PATTERN 0x7FF87FF8u

typedef struct krl_gbuf {
	void *base;              /* the allocation (owned unless `opened`) */
	void *ptr;               /* base + KRL_GUARD_BYTES: the buffer */
	size_t bytes;            /* usable bytes */
	size_t alloc;            /* total bytes of the allocation */
	int opened;              /* mapped from another process (IPC) */
} krl_gbuf;

/* Allocates bytes (rounded up to 256) with guards filled. */
krl_err krl_gbuf_alloc(krl_gbuf *b, size_t bytes, void *stream, krl_diag *d);
/* Frees (or, for an IPC mapping, closes) b; zeroes it. NULL-safe. */
void krl_gbuf_free(krl_gbuf *b);
/* Refills both guards. */
krl_err krl_gbuf_reset_guards(krl_gbuf *b, void *stream, krl_diag *d);
/* Counts corrupted guard bytes; *where is the signed offset from ptr of
 * the first (negative: before the buffer). Synchronous. */
krl_err krl_gbuf_check_guards(const krl_gbuf *b, int64_t *bad, int64_t *where,
                              void *stream, krl_diag *d);
/* IPC: the 64-byte handle of b's allocation, as 128 hex chars + NUL. */
krl_err krl_gbuf_export(const krl_gbuf *b, char hex[129], krl_diag *d);
/* Maps an allocation exported by another process. */
krl_err krl_gbuf_import(krl_gbuf *b, const char *hex, size_t bytes,
                        krl_diag *d);

/* ==== Modules ==== */

typedef struct krl_module krl_module;

/* Loads a compiled cubin and resolves every kernel of cand. A cubin the
 * driver rejects is KRL_ELAUNCH. Free with krl_module_free. */
krl_err krl_module_load(const krl_cubin *cb, const krl_candidate *cand,
                        krl_module **out, krl_diag *d);
void krl_module_free(krl_module *m);

/* ==== Executor ==== */

/* Buffer b of a program as an op's tensor over `data` (NULL where only
 * its shape is needed). */
void krl_buf_tensor(const krl_buf *b, void *data, krl_tensor *t);

/*
 * Runs steps[0..n) of program p asynchronously on `stream`: kernel
 * launches through mod (may be NULL for a reference plan) and op calls
 * through ops. bufs[i] is the device pointer of p->bufs[i]. Returns
 * KRL_ELAUNCH when a launch is rejected, KRL_ECUDA/KRL_ECUBLAS from ops,
 * with d saying which statement (file:line) failed.
 */
krl_err krl_exec(const krl_program *p, const krl_step *steps, int n,
                 void *const *bufs, const krl_module *mod, krl_opctx *ops,
                 void *stream, krl_diag *d);

/* Sets each launched kernel's dynamic shared memory limit to the largest
 * `smem` the program asks of it (needed above 48 KiB). Call once after
 * loading, before krl_exec. */
krl_err krl_exec_prepare(const krl_program *p, const krl_module *mod,
                         krl_diag *d);

/* ==== CUDA graphs of a plan ==== */

typedef struct krl_cugraph krl_cugraph;

/*
 * Captures steps[0..n) of program p, exactly as krl_exec would enqueue
 * them on `stream` with these bufs, mod and ops, into one CUDA graph
 * (stream capture, mode thread-local: a call that synchronises, allocates
 * or copies to the host on this thread fails instead of being left out),
 * and instantiates it. Nothing runs. The caller runs the same steps
 * uncaptured first, so that every lazy allocation, library plan and
 * workspace growth has happened; replays then use the same buffers, so
 * inputs are redrawn into them and outputs read from them. A step that
 * cannot be captured is KRL_EUNSUPPORTED with d naming the statement
 * (file:line), the library's or driver's error and why (krl_cugraph_hint);
 * the stream is left usable and not capturing. Free with krl_cugraph_free.
 */
krl_err krl_cugraph_capture(const krl_program *p, const krl_step *steps, int n,
                          void *const *bufs, const krl_module *mod,
                          krl_opctx *ops, void *stream, krl_cugraph **out,
                          krl_diag *d);
/* Enqueues one replay of g on stream (asynchronous). */
krl_err krl_cugraph_launch(const krl_cugraph *g, void *stream, krl_diag *d);
/* How many nodes (kernels, copies, memsets, ...) the capture holds. */
int krl_cugraph_nodes(const krl_cugraph *g);
/* Frees g (NULL-safe). */
void krl_cugraph_free(krl_cugraph *g);
/* Why a CUDA runtime error code (cudaError_t, as an int) raised during a
 * capture means the call cannot be captured: a sentence for messages, or
 * "" when the code says nothing capture-specific. Needs no GPU. */
const char *krl_cugraph_hint(int cuda_error);

/*
 * Runs a reference program's body on the CPU with the float64 golden ops:
 * bufs[i] holds p->bufs[i] as numel doubles (integers too); a view's
 * entry is not read (it lives in its root's array, from its offset on).
 * Candidate launches are KRL_EUNSUPPORTED. Needs no GPU.
 */
krl_err krl_exec_golden(const krl_program *p, double *const *bufs,
                        krl_diag *d);

#ifdef __cplusplus
}
#endif
#endif
