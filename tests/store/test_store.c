/*
 * Tests of the store (src/store/store.c) on real SQLite files in a
 * temporary directory: schema and reopen, content-addressed candidates,
 * run resume, evaluations by slot, exemplar pools, and crash recovery
 * (a writer SIGKILLed at random moments loses no reported commit).
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "testutil.h"
#include "krl/stats.h"
#include "krl/store.h"

/* ==== Fixtures ==== */

static char tmpdir[256];

/* A fresh database path per test: <tmpdir>/<name>.db (and no leftovers). */
static const char *db_path(const char *name)
{
	static char p[512];
	snprintf(p, sizeof p, "%s/%s.db", tmpdir, name);
	const char *sfx[] = { "", "-wal", "-shm" };
	for (int i = 0; i < 3; i++) {
		char f[600];
		snprintf(f, sizeof f, "%s%s", p, sfx[i]);
		unlink(f);
	}
	return p;
}

static int setup(void **state)
{
	(void)state;
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/krl-store-XXXXXX", t && *t ? t : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* One integer from a query run directly with SQLite (not the store). */
static long long sql_int(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	long long v = -1;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
	if (sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(db);
	return v;
}

/* PRAGMA integrity_check is "ok". */
static void assert_integrity(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1,
	                                    &q, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0), "ok");
	sqlite3_finalize(q);
	sqlite3_close(db);
}

/* An evaluation row with fixed test values; strings borrowed. */
static krl_eval_row make_row(int64_t run_id, const char *slot, const char *task,
                             const char *hash, const char *verdict,
                             double speedup)
{
	krl_eval_row r;
	memset(&r, 0, sizeof r);
	r.run_id = run_id;
	snprintf(r.slot, sizeof r.slot, "%s", slot);
	snprintf(r.task, sizeof r.task, "%s", task);
	snprintf(r.cand_hash, sizeof r.cand_hash, "%s", hash ? hash : "");
	snprintf(r.verdict, sizeof r.verdict, "%s", verdict);
	r.speedup = speedup;
	r.ci_low = speedup * 0.9;
	r.ci_high = speedup * 1.1;
	return r;
}

/* ==== Open ==== */

static void test_open_reopen(void **state)
{
	(void)state;
	const char *path = db_path("open");
	krl_store *s = NULL;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_store_open(path, &s, &d), &d);
	int64_t run;
	int resumed;
	KRL_ASSERT_OK(krl_store_run_begin(s, "r", "{}", &run, &resumed, &d), &d);
	krl_store_close(s);
	krl_store_close(NULL);

	assert_int_equal(sql_int(path, "PRAGMA user_version"), 1);
	assert_int_equal(sql_int(path, "SELECT COUNT(*) FROM sqlite_master "
	                               "WHERE name = 'evaluations_task_verdict'"),
	                 1);
	KRL_ASSERT_OK(krl_store_open(path, &s, &d), &d);
	int64_t again;
	KRL_ASSERT_OK(krl_store_run_find(s, "r", &again, &d), &d);
	assert_true(again == run);
	krl_store_close(s);

	/* A file that is not a database: KRL_EIO naming the path. */
	const char *junk = db_path("junk");
	FILE *f = fopen(junk, "wb");
	assert_non_null(f);
	for (int i = 0; i < 512; i++)
		fputs("not a database ", f);
	fclose(f);
	assert_int_equal(krl_store_open(junk, &s, &d), KRL_EIO);
	assert_null(s);
	assert_non_null(strstr(d.msg, "store "));
	assert_non_null(strstr(d.msg, junk));

	/* A schema from the future is refused, not overwritten. */
	const char *future = db_path("future");
	sqlite3 *db;
	assert_int_equal(sqlite3_open(future, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL,
	                              NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(krl_store_open(future, &s, &d), KRL_EUNSUPPORTED);
	assert_non_null(strstr(d.msg, "99"));

	/* A directory that does not exist. */
	assert_int_equal(krl_store_open("/nonexistent/dir/x.db", &s, &d), KRL_EIO);
	assert_non_null(strstr(d.msg, "/nonexistent/dir/x.db"));
}

/* ==== Candidates ==== */

static void test_candidates(void **state)
{
	(void)state;
	const char *path = db_path("cand");
	krl_store *s;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_store_open(path, &s, &d), &d);
	char h1[65], h2[65], h3[65];
	KRL_ASSERT_OK(krl_store_put_candidate(s, "abc", 3, h1, &d), &d);
	/* FIPS 180-2 test vector */
	assert_string_equal(h1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	KRL_ASSERT_OK(krl_store_put_candidate(s, "abc", 3, h2, &d), &d);
	assert_string_equal(h1, h2);
	/* Only len bytes count. */
	KRL_ASSERT_OK(krl_store_put_candidate(s, "abcdef", 3, h3, &d), &d);
	assert_string_equal(h1, h3);
	KRL_ASSERT_OK(krl_store_put_candidate(s, "", 0, h2, &d), &d);
	assert_string_equal(h2, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

	char *src = NULL;
	KRL_ASSERT_OK(krl_store_get_candidate(s, h1, &src, &d), &d);
	assert_string_equal(src, "abc");
	free(src);
	KRL_ASSERT_OK(krl_store_get_candidate(s, h2, &src, &d), &d);
	assert_string_equal(src, "");
	free(src);
	assert_int_equal(krl_store_get_candidate(s, "00", &src, &d), KRL_ENOTFOUND);
	assert_null(src);
	krl_store_close(s);
	assert_int_equal(sql_int(path, "SELECT COUNT(*) FROM candidates"), 2);
}

/* ==== Runs ==== */

static void test_runs(void **state)
{
	(void)state;
	const char *path = db_path("runs");
	krl_store *s;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_store_open(path, &s, &d), &d);
	int64_t a, b, c;
	int resumed = -1;
	KRL_ASSERT_OK(krl_store_run_begin(s, "alpha", "{\"g\":4}", &a, &resumed, &d), &d);
	assert_int_equal(resumed, 0);
	assert_true(a > 0);
	KRL_ASSERT_OK(krl_store_run_begin(s, "beta", "{\"g\":8}", &b, &resumed, &d), &d);
	assert_int_equal(resumed, 0);
	assert_true(b != a);
	KRL_ASSERT_OK(krl_store_run_status(s, a, "failed", &d), &d);
	KRL_ASSERT_OK(krl_store_run_begin(s, "alpha", "{\"g\":4}", &c, &resumed, &d), &d);
	assert_int_equal(resumed, 1);
	assert_true(c == a);

	/* Other options: refused, and the stored run is untouched. */
	assert_int_equal(krl_store_run_begin(s, "alpha", "{\"g\":5}", &c, &resumed, &d),
	                 KRL_EINVAL);
	assert_non_null(strstr(d.msg, "alpha"));
	assert_non_null(strstr(d.msg, "{\"g\":4}"));
	/* Textual: the same JSON spelled differently is another config. */
	assert_int_equal(krl_store_run_begin(s, "alpha", "{ \"g\": 4 }", &c, &resumed, &d),
	                 KRL_EINVAL);

	KRL_ASSERT_OK(krl_store_run_find(s, "beta", &c, &d), &d);
	assert_true(c == b);
	assert_int_equal(krl_store_run_find(s, "gamma", &c, &d), KRL_ENOTFOUND);

	KRL_ASSERT_OK(krl_store_run_status(s, b, "done", &d), &d);
	assert_int_equal(krl_store_run_status(s, b, "paused", &d), KRL_EINVAL);
	assert_int_equal(krl_store_run_status(s, 9999, "done", &d), KRL_ENOTFOUND);
	krl_store_close(s);
	assert_int_equal(sql_int(path, "SELECT COUNT(*) FROM runs WHERE "
	                               "name = 'alpha' AND status = 'running'"),
	                 1);
	assert_int_equal(sql_int(path, "SELECT COUNT(*) FROM runs WHERE "
	                               "name = 'beta' AND status = 'done'"),
	                 1);
}

/* ==== Evaluations ==== */

typedef struct collect {
	int n, stop_at;
	int64_t ids[512];
	char slots[512][64];
	krl_store *s; /* when set, the callback writes an advantage */
} collect;

static int collect_fn(const krl_eval_row *r, void *ctx)
{
	collect *c = ctx;
	c->ids[c->n] = r->id;
	snprintf(c->slots[c->n], 64, "%s", r->slot);
	c->n++;
	if (c->s) {
		krl_diag d;
		if (krl_store_set_advantage(c->s, r->id, r->id * 0.5, &d) != KRL_OK)
			return -1;
	}
	return c->stop_at && c->n == c->stop_at;
}

static int check_fields_fn(const krl_eval_row *r, void *ctx)
{
	int *seen = ctx;
	if (strcmp(r->slot, "r0/g0/k0") == 0) {
		assert_string_equal(r->task, "t1");
		assert_int_equal(r->round, 0);
		assert_int_equal(r->group, 0);
		assert_int_equal(r->member, 0);
		assert_string_equal(r->verdict, "ok");
		assert_true(r->speedup == 1.25 && r->ci_low == 1.125 &&
		            r->ci_high == 1.375);
		assert_true(r->reward == 0.75);
		assert_int_equal(r->has_advantage, 0);
		assert_string_equal(r->record, "{\"verdict\":\"ok\"}");
		assert_string_equal(r->prompt, "make it fast");
		assert_string_equal(r->completion, "```cuda ...```");
		assert_string_equal(r->policy, "llm:test");
		assert_int_equal(r->prompt_tokens, 120);
		assert_int_equal(r->completion_tokens, 340);
		assert_int_equal(strlen(r->cand_hash), 64);
	} else {
		assert_string_equal(r->slot, "r0/g0/k1");
		assert_string_equal(r->cand_hash, "");
		assert_string_equal(r->verdict, "no_candidate");
		assert_null(r->record);
		assert_null(r->policy);
		assert_int_equal(r->has_advantage, 1);
		assert_true(r->advantage == -0.5);
		assert_int_equal(r->member, 1);
		assert_true(r->ci_low == 0 && r->ci_high == 0);
	}
	(*seen)++;
	return 0;
}

static void test_evaluations(void **state)
{
	(void)state;
	const char *path = db_path("evals");
	krl_store *s;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_store_open(path, &s, &d), &d);
	int64_t run, other;
	int resumed;
	KRL_ASSERT_OK(krl_store_run_begin(s, "r", "{}", &run, &resumed, &d), &d);
	KRL_ASSERT_OK(krl_store_run_begin(s, "o", "{}", &other, &resumed, &d), &d);
	char h[65];
	KRL_ASSERT_OK(krl_store_put_candidate(s, "kernel", 6, h, &d), &d);

	int has = -1;
	KRL_ASSERT_OK(krl_store_has_slot(s, run, "r0/g0/k0", &has, &d), &d);
	assert_int_equal(has, 0);

	krl_eval_row r = make_row(run, "r0/g0/k0", "t1", h, "ok", 1.25);
	r.reward = 0.75;
	r.record = "{\"verdict\":\"ok\"}";
	r.prompt = "make it fast";
	r.completion = "```cuda ...```";
	r.policy = "llm:test";
	r.prompt_tokens = 120;
	r.completion_tokens = 340;
	KRL_ASSERT_OK(krl_store_add_eval(s, &r, &d), &d);
	assert_true(r.id > 0);
	int64_t first_id = r.id;
	KRL_ASSERT_OK(krl_store_has_slot(s, run, "r0/g0/k0", &has, &d), &d);
	assert_int_equal(has, 1);
	/* slots are per run */
	KRL_ASSERT_OK(krl_store_has_slot(s, other, "r0/g0/k0", &has, &d), &d);
	assert_int_equal(has, 0);

	/* The same slot again: refused, nothing added. */
	krl_eval_row dup = make_row(run, "r0/g0/k0", "t1", h, "ok", 9.0);
	assert_int_equal(krl_store_add_eval(s, &dup, &d), KRL_EINVAL);
	assert_non_null(strstr(d.msg, "r0/g0/k0"));
	/* A candidate that was never put: refused. */
	krl_eval_row ghost = make_row(run, "r0/g0/k2", "t1",
	                              "0000000000000000000000000000000000000000000000000000000000000000",
	                              "ok", 2.0);
	assert_int_equal(krl_store_add_eval(s, &ghost, &d), KRL_ENOTFOUND);
	/* An unknown run: refused. */
	krl_eval_row norun = make_row(4242, "r0/g0/k0", "t1", h, "ok", 2.0);
	assert_int_equal(krl_store_add_eval(s, &norun, &d), KRL_ENOTFOUND);
	/* Missing slot: refused. */
	krl_eval_row noslot = make_row(run, "", "t1", h, "ok", 2.0);
	assert_int_equal(krl_store_add_eval(s, &noslot, &d), KRL_EINVAL);

	krl_eval_row none = make_row(run, "r0/g0/k1", "t1", NULL, "no_candidate", 0);
	none.ci_low = none.ci_high = NAN; /* no interval: stored, read as 0 */
	none.member = 1;
	none.reward = -1;
	none.prompt = "make it fast";
	KRL_ASSERT_OK(krl_store_add_eval(s, &none, &d), &d);
	assert_true(none.id > first_id);
	KRL_ASSERT_OK(krl_store_set_advantage(s, none.id, -0.5, &d), &d);
	assert_int_equal(krl_store_set_advantage(s, 99999, 1.0, &d), KRL_ENOTFOUND);

	int64_t n;
	KRL_ASSERT_OK(krl_store_count_evals(s, run, &n, &d), &d);
	assert_true(n == 2);
	int seen = 0;
	KRL_ASSERT_OK(krl_store_foreach_eval(s, run, check_fields_fn, &seen, &d), &d);
	assert_int_equal(seen, 2);

	/* Many rows interleaved over two runs (crossing foreach's pages). */
	for (int i = 0; i < 150; i++) {
		char slot[64];
		snprintf(slot, sizeof slot, "r1/g%d/k%d", i / 4, i % 4);
		krl_eval_row x = make_row(i % 3 ? run : other, slot, "t2", h,
		                          "wrong_output", 0);
		KRL_ASSERT_OK(krl_store_add_eval(s, &x, &d), &d);
	}
	KRL_ASSERT_OK(krl_store_count_evals(s, run, &n, &d), &d);
	assert_true(n == 2 + 100);
	KRL_ASSERT_OK(krl_store_count_evals(s, other, &n, &d), &d);
	assert_true(n == 50);
	KRL_ASSERT_OK(krl_store_count_evals(s, 0, &n, &d), &d);
	assert_true(n == 152);

	collect *c = calloc(1, sizeof *c);
	KRL_ASSERT_OK(krl_store_foreach_eval(s, run, collect_fn, c, &d), &d);
	assert_int_equal(c->n, 102);
	assert_string_equal(c->slots[0], "r0/g0/k0");
	assert_string_equal(c->slots[1], "r0/g0/k1");
	assert_string_equal(c->slots[2], "r1/g0/k1"); /* i = 1 */
	for (int i = 1; i < c->n; i++)
		assert_true(c->ids[i] > c->ids[i - 1]);

	/* All runs, stopping early (after the first page boundary). */
	memset(c, 0, sizeof *c);
	c->stop_at = 70;
	KRL_ASSERT_OK(krl_store_foreach_eval(s, 0, collect_fn, c, &d), &d);
	assert_int_equal(c->n, 70);
	for (int i = 1; i < c->n; i++)
		assert_true(c->ids[i] == c->ids[i - 1] + 1);

	/* Writing from inside the callback commits. */
	memset(c, 0, sizeof *c);
	c->s = s;
	KRL_ASSERT_OK(krl_store_foreach_eval(s, other, collect_fn, c, &d), &d);
	assert_int_equal(c->n, 50);
	assert_int_equal(sql_int(path, "SELECT COUNT(*) FROM evaluations e "
	                               "JOIN runs r ON r.id = e.run_id WHERE "
	                               "r.name = 'o' AND e.advantage = e.id * 0.5"),
	                 50);
	free(c);
	krl_store_close(s);
	assert_integrity(path);
}

/* ==== Exemplars ==== */

static void test_exemplars(void **state)
{
	(void)state;
	const char *path = db_path("ex");
	krl_store *s;
	krl_diag d = { 0 };
	KRL_ASSERT_OK(krl_store_open(path, &s, &d), &d);
	int64_t r1, r2;
	int resumed;
	KRL_ASSERT_OK(krl_store_run_begin(s, "one", "{}", &r1, &resumed, &d), &d);
	KRL_ASSERT_OK(krl_store_run_begin(s, "two", "{}", &r2, &resumed, &d), &d);
	char x[65], y[65], z[65], w[65];
	KRL_ASSERT_OK(krl_store_put_candidate(s, "X", 1, x, &d), &d);
	KRL_ASSERT_OK(krl_store_put_candidate(s, "Y", 1, y, &d), &d);
	KRL_ASSERT_OK(krl_store_put_candidate(s, "Z", 1, z, &d), &d);
	KRL_ASSERT_OK(krl_store_put_candidate(s, "W", 1, w, &d), &d);
	struct {
		int64_t run;
		const char *slot, *task, *hash, *verdict;
		double sp;
	} ev[] = {
		{ r1, "a", "A", x, "ok", 1.5 },
		{ r1, "b", "A", x, "ok", 2.0 },  /* X's best on A */
		{ r2, "a", "A", x, "ok", 1.7 },
		{ r2, "b", "A", y, "ok", 3.0 },  /* Y, another run */
		{ r1, "c", "A", z, "wrong_output", 10.0 }, /* not correct */
		{ r1, "d", "B", w, "ok", 5.0 },  /* another task */
		{ r1, "e", "A", NULL, "no_candidate", 0 },
		{ r2, "c", "B", x, "ok", 9.0 },  /* X on B does not count on A */
	};
	for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
		krl_eval_row r = make_row(ev[i].run, ev[i].slot, ev[i].task,
		                          ev[i].hash, ev[i].verdict, ev[i].sp);
		KRL_ASSERT_OK(krl_store_add_eval(s, &r, &d), &d);
	}
	krl_exemplar *ex = NULL;
	int n = -1;
	KRL_ASSERT_OK(krl_store_exemplars(s, "A", &ex, &n, &d), &d);
	assert_int_equal(n, 2);
	assert_string_equal(ex[0].hash, y);
	assert_true(ex[0].score == 3.0);
	assert_string_equal(ex[0].source, "Y");
	assert_string_equal(ex[1].hash, x);
	assert_true(ex[1].score == 2.0);
	assert_string_equal(ex[1].source, "X");
	krl_exemplars_free(ex, n);

	KRL_ASSERT_OK(krl_store_exemplars(s, "B", &ex, &n, &d), &d);
	assert_int_equal(n, 2);
	assert_string_equal(ex[0].hash, x);
	assert_true(ex[0].score == 9.0);
	assert_string_equal(ex[1].source, "W");
	krl_exemplars_free(ex, n);

	KRL_ASSERT_OK(krl_store_exemplars(s, "none", &ex, &n, &d), &d);
	assert_int_equal(n, 0);
	krl_exemplars_free(ex, n);
	krl_exemplars_free(NULL, 0);
	krl_store_close(s);
}

/* ==== Crash recovery ==== */

/* The content the writer gives evaluation i: deterministic, so the parent
 * can check it. Prompts of up to 200 KB (100 KB on average) make each
 * commit span many WAL pages and make the WAL pass SQLite's 1000-page
 * automatic checkpoint within a round, so the writer is sometimes killed
 * during or after a checkpoint into the main file. */
static void crash_prompt(int i, char *buf, size_t cap)
{
	size_t len = 1000 + (size_t)(i * 7919) % 200000;
	if (len >= cap)
		len = cap - 1;
	for (size_t k = 0; k < len; k++)
		buf[k] = (char)('a' + (i + k) % 26);
	buf[len] = 0;
}

/* The child: opens the store, resumes run "crash", and commits one
 * evaluation per slot not yet present, reporting each committed index on
 * fd. Never returns. */
static void crash_writer(const char *path, int fd)
{
	krl_store *s;
	krl_diag d;
	int64_t run;
	int resumed;
	static char prompt[1 << 18];
	if (krl_store_open(path, &s, &d) ||
	    krl_store_run_begin(s, "crash", "{\"k\":1}", &run, &resumed, &d))
		_exit(2);
	for (int i = 0; i < 1000000; i++) {
		char slot[64], src[64];
		int has;
		snprintf(slot, sizeof slot, "r0/g0/k%d", i);
		if (krl_store_has_slot(s, run, slot, &has, &d))
			_exit(3);
		if (has)
			continue;
		krl_eval_row r = make_row(run, slot, "crash_task", NULL, "ok", 1 + i / 100.0);
		int len = snprintf(src, sizeof src, "kernel %d", i);
		if (krl_store_put_candidate(s, src, (size_t)len, r.cand_hash, &d))
			_exit(4);
		r.member = i;
		crash_prompt(i, prompt, sizeof prompt);
		r.prompt = prompt;
		r.completion = src;
		if (krl_store_add_eval(s, &r, &d))
			_exit(5);
		if (write(fd, &i, sizeof i) != sizeof i)
			_exit(6);
	}
	_exit(0);
}

typedef struct crash_check {
	int n;
	unsigned char *seen;
	int cap;
} crash_check;

static int crash_check_fn(const krl_eval_row *r, void *ctx)
{
	crash_check *c = ctx;
	static char want[1 << 18];
	char slot[64], src[64];
	int i = r->member;
	assert_true(i >= 0 && i < c->cap);
	assert_int_equal(c->seen[i], 0);
	c->seen[i] = 1;
	c->n++;
	snprintf(slot, sizeof slot, "r0/g0/k%d", i);
	snprintf(src, sizeof src, "kernel %d", i);
	assert_string_equal(r->slot, slot);
	assert_string_equal(r->completion, src);
	assert_true(r->speedup == 1 + i / 100.0);
	crash_prompt(i, want, sizeof want);
	assert_string_equal(r->prompt, want);
	assert_int_equal(strlen(r->cand_hash), 64);
	return 0;
}

static void test_crash_recovery(void **state)
{
	(void)state;
	const char *path = db_path("crash");
	unsigned long long seed = (unsigned long long)time(NULL) ^ (unsigned long long)getpid();
	print_message("crash test seed %llu\n", seed);
	krl_rng rng = { seed };
	enum { CAP = 100000 };
	crash_check c = { 0, calloc(CAP, 1), CAP };
	int reported_max = -1;
	long long prev_size = 0;
	for (int round = 0; round < 8; round++) {
		int fds[2];
		assert_int_equal(pipe(fds), 0);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			close(fds[0]);
			crash_writer(path, fds[1]);
		}
		close(fds[1]);
		/* Let it commit some, then kill it at a random moment. */
		int target = 3 + (int)(krl_rng_uniform(&rng) * 40), got = 0, i;
		while (got < target && read(fds[0], &i, sizeof i) == sizeof i) {
			reported_max = i > reported_max ? i : reported_max;
			got++;
		}
		usleep((useconds_t)(krl_rng_uniform(&rng) * 3000));
		kill(pid, SIGKILL);
		/* Reports written before the kill are commits too. */
		while (read(fds[0], &i, sizeof i) == sizeof i)
			reported_max = i > reported_max ? i : reported_max;
		close(fds[0]);
		int status;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		assert_true(got == target); /* the writer did not fail early */

		/* The main file grows only through checkpoints, and each
		 * recovery's close folds the WAL in: growth since then means
		 * the writer checkpointed before it was killed. */
		struct stat st;
		long long main_size = stat(path, &st) == 0 ? (long long)st.st_size : -1;
		int writer_checkpointed = main_size > prev_size;

		/* Every reported commit is there, intact, once; at most the one
		 * commit that had no time to be reported is beyond them. */
		krl_store *s;
		krl_diag d;
		KRL_ASSERT_OK(krl_store_open(path, &s, &d), &d);
		int64_t run;
		KRL_ASSERT_OK(krl_store_run_find(s, "crash", &run, &d), &d);
		memset(c.seen, 0, CAP);
		c.n = 0;
		KRL_ASSERT_OK(krl_store_foreach_eval(s, run, crash_check_fn, &c, &d), &d);
		for (int k = 0; k <= reported_max; k++)
			assert_int_equal(c.seen[k], 1);
		assert_true(c.n == reported_max + 1 || c.n == reported_max + 2);
		krl_exemplar *ex;
		int n;
		KRL_ASSERT_OK(krl_store_exemplars(s, "crash_task", &ex, &n, &d), &d);
		assert_int_equal(n, c.n);
		krl_exemplars_free(ex, n);
		krl_store_close(s);
		assert_integrity(path);
		prev_size = stat(path, &st) == 0 ? (long long)st.st_size : -1;
		print_message("round %d: killed after %d reports, %d evaluations "
		              "stored, writer checkpointed: %s\n",
		              round, got, c.n, writer_checkpointed ? "yes" : "no");
	}
	free(c.seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_reopen),
		cmocka_unit_test(test_candidates),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_evaluations),
		cmocka_unit_test(test_exemplars),
		cmocka_unit_test(test_crash_recovery),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
