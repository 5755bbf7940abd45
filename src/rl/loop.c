/*
 * Pieces shared by the LLM loop and the builtin search (src/rl/loop_int.h):
 * candidate files, record fields, the status line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rl/loop_int.h"
#include "util/fs.h"
#include "util/strbuf.h"

static krl_err write_file(const char *path, const char *text, krl_diag *d)
{
	FILE *f = fopen(path, "wb");
	if (!f || fputs(text, f) < 0) {
		if (f)
			fclose(f);
		return krl_diag_set(d, KRL_EIO, (krl_pos){0}, "cannot write %s: %s",
		                    path, strerror(errno));
	}
	if (fclose(f) != 0)
		return krl_diag_set(d, KRL_EIO, (krl_pos){0}, "cannot write %s: %s",
		                    path, strerror(errno));
	return KRL_OK;
}

char *krl_loop_candidate_path(const char *work_dir, const char *hash)
{
	krl_strbuf b = { 0 };
	krl_strbuf_printf(&b, "%s/%s.cu", work_dir ? work_dir : KRL_LOOP_WORK_DIR,
	                  hash);
	return krl_strbuf_take(&b);
}

krl_err krl_loop_put_candidate(krl_store *st, const char *work_dir,
                               const char *source, char hash[65], char *path,
                               size_t cap, krl_diag *d)
{
	const char *dir = work_dir ? work_dir : KRL_LOOP_WORK_DIR;
	krl_err e = krl_store_put_candidate(st, source, strlen(source), hash, d);
	if (e != KRL_OK)
		return e;
	if (krl_mkdirs(dir) != 0)
		return krl_diag_set(d, KRL_EIO, (krl_pos){0}, "cannot create %s: %s",
		                    dir, strerror(errno));
	char *z = krl_loop_candidate_path(dir, hash);
	if (!z)
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
	e = krl_fmt_fixed(path, cap, "the candidate path", d, "%s", z);
	free(z);
	if (e != KRL_OK)
		return e;
	return write_file(path, source, d);
}

void krl_loop_read_record(const json_t *rec, krl_eval_row *row)
{
	const char *vn = json_string_value(json_object_get(rec, "verdict"));
	snprintf(row->verdict, sizeof row->verdict, "%s", vn ? vn : "unknown");
	if (!strcmp(row->verdict, "ok")) {
		json_t *sp = json_object_get(json_object_get(rec, "timing"),
		                             "speedup");
		row->speedup = json_number_value(json_object_get(sp, "median"));
		row->ci_low = json_number_value(json_object_get(sp, "ci_low"));
		row->ci_high = json_number_value(json_object_get(sp, "ci_high"));
	}
}

void krl_loop_progress(const char *run, int round, int rounds, int64_t n,
                       int64_t total, int nok, double best, const char *last)
{
	int tty = isatty(STDERR_FILENO);
	fprintf(stderr, "%s[%s] round %d/%d  evaluations %lld/%lld  correct %d  "
	                "best %.3fx  last: %s%s",
	        tty ? "\r\033[K" : "", run, round + 1, rounds, (long long)n,
	        (long long)total, nok, best, last, tty ? "" : "\n");
	fflush(stderr);
}
