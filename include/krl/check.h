/*
 * kernelrl: device-side drawing, poisoning and checking of buffers
 * (docs/judge.md). These are the judge's trusted kernels: inputs and params
 * are drawn on the device from seeds (counter-based, so a (seed, index) pair
 * always gives the same value, on any launch configuration), outputs are
 * poisoned before a call, guard regions are filled and checked, and outputs
 * are compared element by element against the reference.
 *
 * All functions enqueue work on `stream` (a cudaStream_t / CUstream) and
 * return without synchronising, except where they return a result to the
 * host (krl_compare, krl_count_diff, krl_check_pattern), which synchronise
 * the stream. Errors: KRL_ECUDA (message in d), KRL_EUNSUPPORTED.
 */
#ifndef KRL_CHECK_H
#define KRL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "krl/error.h"
#include "krl/lang.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills n elements of dtype at dst with values from dist, determined by
 * (seed, element index) alone. normal uses Box-Muller on a counter-based
 * hash; randint/bernoulli give integers (for float dtypes, integral
 * values). */
krl_err krl_fill_random(void *dst, krl_dtype t, int64_t n, krl_dist dist,
                        uint64_t seed, void *stream, krl_diag *d);

/* The value krl_fill_random(dst, t, n, dist, seed) stores at `index`, as a
 * double, computed on the host bit for bit as the device computes it (for
 * tests and for checking a drawn buffer). Needs no GPU; cannot fail
 * (KRL_DIST_NONE gives 0). */
double krl_draw_value(krl_dist dist, krl_dtype t, uint64_t seed,
                      int64_t index);

/* Kind KRL_JITTER_KIND of krl_stress_apply: every element times (1 + v u),
 * u uniform in [-1, 1) from (seed, index): a perturbation of 8 to 16
 * ulps of f32 for v = 2^-20, with which the judge asks how much the reference's own
 * outputs move on a stress draw (docs/judge.md "Ill-conditioned draws").
 * Not a stress kind of the task language. */
#define KRL_JITTER_KIND 3

/* Applies stress kind `kind` (krl_stress_kind, or KRL_JITTER_KIND) with
 * value v to the n elements of float dtype t at dst, in place
 * (docs/judge.md "Stress draws"): every element times v (scale), plus v
 * (offset), or about one in 1024 elements chosen by seed, and always one,
 * times v (spikes). KRL_EINVAL for an integer or bool dtype. */
krl_err krl_stress_apply(void *dst, krl_dtype t, int64_t n, int kind,
                         double v, uint64_t seed, void *stream, krl_diag *d);

/* The value element i of n with value x (as stored in dtype t) takes
 * under krl_stress_apply, computed on the host bit for bit as the device
 * computes it. */
double krl_stress_host(krl_dtype t, int kind, double v, uint64_t seed,
                       int64_t i, int64_t n, double x);

/* Fills `bytes` bytes at dst with the 32-bit pattern (bytes need not be a
 * multiple of 4: the tail gets the pattern's low bytes). */
krl_err krl_fill_pattern(void *dst, size_t bytes, uint32_t pattern,
                         void *stream, krl_diag *d);

/* Counts the bytes in dst[0..bytes) that differ from the pattern (as laid
 * down by krl_fill_pattern); *first is the offset of the first one or -1. */
krl_err krl_check_pattern(const void *dst, size_t bytes, uint32_t pattern,
                          int64_t *count, int64_t *first, void *stream,
                          krl_diag *d);

/* Counts the elements of two buffers whose bytes differ (exact, for the
 * inputs-unchanged check). */
krl_err krl_count_diff(const void *a, const void *b, size_t bytes,
                       int64_t *count, int64_t *first, void *stream,
                       krl_diag *d);

typedef struct krl_cmp {
	int64_t n;           /* elements compared */
	int64_t bad;         /* elements outside tolerance (NaN/Inf mismatch included) */
	int64_t nonfinite;   /* elements of the candidate that are NaN or Inf where the reference is finite */
	int64_t worst;       /* index of the largest excess abs(c-r) - (atol+rtol*abs(r)); -1 when n == 0 */
	double max_abs;      /* max abs(c - r) over finite pairs */
	double max_rel;      /* max abs(c - r) / abs(r) over finite pairs with r != 0 */
	double sum_sq;       /* sum of (c - r)^2 over finite pairs */
	double cand_at_worst, ref_at_worst;
} krl_cmp;

/*
 * Compares candidate c against reference r, n elements of dtype t:
 * an element passes when abs(c - r) <= atol + rtol * abs(r) (floats;
 * computed in double), or c == r exactly (integers, bool). NaN passes only
 * against NaN, +-Inf only against the same Inf. `c` may be NULL to compare
 * an all-zero candidate, and `c_const` non-NULL to compare the constant
 * *c_const (for the degenerate-output checks).
 */
krl_err krl_compare(const void *c, const double *c_const, const void *r,
                    krl_dtype t, int64_t n, double atol, double rtol,
                    krl_cmp *out, void *stream, krl_diag *d);

/* Reads element i of a device buffer as a double (synchronous). */
krl_err krl_read_element(const void *src, krl_dtype t, int64_t i, double *out,
                         void *stream, krl_diag *d);

/* Writes L2-flushing traffic: memset of `bytes` at scratch. The judge passes
 * a buffer of at least twice the L2 size. */
krl_err krl_flush_l2(void *scratch, size_t bytes, void *stream, krl_diag *d);
/* Reads bytes (a multiple of 32) of src once, 16 bytes a load, as one
 * stream or as two (its halves side by side, as a kernel reading two
 * inputs does), in a resident grid of blocks of `block` threads (256 or
 * 1024), folding them into one word per block of sink (at least 2048
 * words: up to 2048 blocks): the read-only streaming rates the
 * roofline's memory ceiling is measured with (src/judge/roofline.c).
 * Asynchronous on stream. */
krl_err krl_stream_read(const void *src, size_t bytes, int streams,
                        int block, uint32_t *sink, void *stream,
                        krl_diag *d);

#ifdef __cplusplus
}
#endif
#endif
