/*
 * What the two optimization loops (src/rl/optimize.c for the LLM policy,
 * src/rl/search.c for the builtin one) share: candidate files in the work
 * folder, the verdict fields of a judge record and the live status line
 * (seeds for (seed, round, member) draws: krl_splitmix64, src/util/rng.h).
 */
#ifndef KRL_LOOP_INT_H
#define KRL_LOOP_INT_H

#include <jansson.h>
#include <stdint.h>

#include "krl/error.h"
#include "krl/store.h"

/* The default folder for candidate files. */
#define KRL_LOOP_WORK_DIR "krl-candidates"

/* The path of candidate hash's file, <work_dir>/<hash>.cu (work_dir NULL:
 * KRL_LOOP_WORK_DIR): malloc'd (caller frees), NULL when out of memory. */
char *krl_loop_candidate_path(const char *work_dir, const char *hash);

/* Stores source (content-addressed: hash gets its SHA-256) and writes it
 * to <work_dir>/<hash>.cu (work_dir NULL: KRL_LOOP_WORK_DIR, created when
 * missing); path (capacity cap) gets the file's path (KRL_EINVAL, the
 * file unwritten, when it does not fit). */
krl_err krl_loop_put_candidate(krl_store *st, const char *work_dir,
                               const char *source, char hash[65], char *path,
                               size_t cap, krl_diag *d);

/* The verdict of a judge record into row (verdict, and for "ok" the
 * speedup median with its interval). */
void krl_loop_read_record(const json_t *rec, krl_eval_row *row);

/* The live status line on stderr (one line per call when stderr is not a
 * terminal). */
void krl_loop_progress(const char *run, int round, int rounds, int64_t n,
                       int64_t total, int nok, double best, const char *last);

#endif
