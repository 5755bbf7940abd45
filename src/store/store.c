/*
 * The store (include/krl/store.h, docs/store.md): one SQLite database in
 * WAL mode with runs, content-addressed candidates and evaluations.
 *
 * Durability: every evaluation is its own transaction, and a transaction
 * is committed when sqlite3_step of COMMIT returns. With
 * journal_mode=WAL the commit has then been written to the -wal file, so
 * killing the process (kill -9 included) cannot lose it: the kernel holds
 * the written pages, and the next opener replays the WAL. We run with
 * synchronous=FULL, which adds an fsync of the WAL per commit, so a commit
 * also survives an OS crash or power loss; an evaluation takes seconds of
 * GPU time, next to which the fsync is free.
 *
 * Prepared statements are cached in the handle (prepared on first use,
 * reset after each). The handle is not thread-safe: one per thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <sqlite3.h>

#include "krl/store.h"

/* The schema version this code writes (PRAGMA user_version). */
#define STORE_SCHEMA_VERSION 1

/* Rows fetched per page by krl_store_foreach_eval. */
#define FOREACH_PAGE 64

static const char *const schema_v1 =
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  config TEXT NOT NULL,"
	"  status TEXT NOT NULL DEFAULT 'running'"
	"    CHECK (status IN ('running', 'done', 'failed')),"
	"  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
	"  updated TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
	");"
	"CREATE TABLE candidates ("
	"  hash TEXT PRIMARY KEY,"
	"  source BLOB NOT NULL,"
	"  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
	");"
	"CREATE TABLE evaluations ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  slot TEXT NOT NULL,"
	"  round INTEGER NOT NULL,"
	"  grp INTEGER NOT NULL,"
	"  member INTEGER NOT NULL,"
	"  task TEXT NOT NULL,"
	"  cand_hash TEXT REFERENCES candidates(hash),"
	"  verdict TEXT NOT NULL,"
	"  speedup REAL,"  /* NULL when written as NaN; read back as 0 */
	"  ci_low REAL,"
	"  ci_high REAL,"
	"  reward REAL,"
	"  advantage REAL,"
	"  record TEXT,"
	"  prompt TEXT,"
	"  completion TEXT,"
	"  policy TEXT,"
	"  prompt_tokens INTEGER NOT NULL DEFAULT 0,"
	"  completion_tokens INTEGER NOT NULL DEFAULT 0,"
	"  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
	"  UNIQUE (run_id, slot)"
	");"
	"CREATE INDEX evaluations_run ON evaluations(run_id);"
	"CREATE INDEX evaluations_task_verdict"
	"  ON evaluations(task, verdict, cand_hash, speedup);"
	"PRAGMA user_version = 1;";

/* ==== Statement cache ==== */

enum {
	ST_CAND_PUT,
	ST_CAND_GET,
	ST_CAND_HAS,
	ST_RUN_FIND,
	ST_RUN_INSERT,
	ST_RUN_RESUME,
	ST_RUN_STATUS,
	ST_RUN_HAS,
	ST_SLOT_HAS,
	ST_EVAL_INSERT,
	ST_EVAL_ADV,
	ST_EVAL_PAGE_ALL,
	ST_EVAL_PAGE_RUN,
	ST_EVAL_COUNT_ALL,
	ST_EVAL_COUNT_RUN,
	ST_EXEMPLARS,
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_COUNT
};

#define EVAL_COLUMNS                                                         \
	"id, run_id, slot, round, grp, member, task, cand_hash, verdict, "   \
	"speedup, ci_low, ci_high, reward, advantage, record, prompt, "      \
	"completion, policy, prompt_tokens, completion_tokens"

static const char *const stmt_sql[ST_COUNT] = {
	[ST_CAND_PUT] = "INSERT OR IGNORE INTO candidates(hash, source) VALUES (?1, ?2)",
	[ST_CAND_GET] = "SELECT source FROM candidates WHERE hash = ?1",
	[ST_CAND_HAS] = "SELECT 1 FROM candidates WHERE hash = ?1",
	[ST_RUN_FIND] = "SELECT id, config FROM runs WHERE name = ?1",
	[ST_RUN_INSERT] = "INSERT INTO runs(name, config) VALUES (?1, ?2)",
	[ST_RUN_RESUME] = "UPDATE runs SET status = 'running', updated = "
	                  "strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1",
	[ST_RUN_STATUS] = "UPDATE runs SET status = ?2, updated = "
	                  "strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1",
	[ST_RUN_HAS] = "SELECT 1 FROM runs WHERE id = ?1",
	[ST_SLOT_HAS] = "SELECT 1 FROM evaluations WHERE run_id = ?1 AND slot = ?2",
	[ST_EVAL_INSERT] =
		"INSERT INTO evaluations(run_id, slot, round, grp, member, task, "
		"cand_hash, verdict, speedup, ci_low, ci_high, reward, advantage, "
		"record, prompt, completion, policy, prompt_tokens, "
		"completion_tokens) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
		"?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
	[ST_EVAL_ADV] = "UPDATE evaluations SET advantage = ?2 WHERE id = ?1",
	[ST_EVAL_PAGE_ALL] = "SELECT " EVAL_COLUMNS " FROM evaluations "
	                     "WHERE id > ?2 ORDER BY id LIMIT ?3",
	[ST_EVAL_PAGE_RUN] = "SELECT " EVAL_COLUMNS " FROM evaluations "
	                     "WHERE run_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
	[ST_EVAL_COUNT_ALL] = "SELECT COUNT(*) FROM evaluations",
	[ST_EVAL_COUNT_RUN] = "SELECT COUNT(*) FROM evaluations WHERE run_id = ?1",
	/* A bare column (c.source) next to MAX() is well-defined here: it
	 * depends only on the grouped hash. Ties broken by hash so that the
	 * order is stable. */
	[ST_EXEMPLARS] =
		"SELECT e.cand_hash, MAX(e.speedup) AS best, c.source "
		"FROM evaluations e JOIN candidates c ON c.hash = e.cand_hash "
		"WHERE e.task = ?1 AND e.verdict = 'ok' "
		"GROUP BY e.cand_hash ORDER BY best DESC, e.cand_hash",
	/* IMMEDIATE takes the write lock up front, so a transaction never
	 * fails half-way on a lock upgrade (busy_timeout waits for it). */
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
};

struct krl_store {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *st[ST_COUNT];
};

/* ==== Errors ==== */

/* Records "store <path>: <sqlite message>" and returns KRL_EIO. */
static krl_err store_fail(krl_store *s, krl_diag *d)
{
	return krl_diag_set(d, KRL_EIO, (krl_pos){ 0 }, "store %s: %s", s->path,
	                    sqlite3_errmsg(s->db));
}

/* Like store_fail, for a failure message of our own. */
static krl_err store_err(krl_store *s, krl_diag *d, krl_err e, const char *what)
{
	return krl_diag_set(d, e, (krl_pos){ 0 }, "store %s: %s", s->path, what);
}

/* The cached statement id, reset and unbound; NULL (and the diagnostic
 * set) if it does not prepare. */
static sqlite3_stmt *stmt(krl_store *s, int id, krl_diag *d)
{
	if (!s->st[id]) {
		if (sqlite3_prepare_v3(s->db, stmt_sql[id], -1,
		                       SQLITE_PREPARE_PERSISTENT, &s->st[id],
		                       NULL) != SQLITE_OK) {
			store_fail(s, d);
			return NULL;
		}
	}
	return s->st[id];
}

/* Makes a cached statement reusable: called after every use. */
static void done(sqlite3_stmt *q)
{
	if (q) {
		sqlite3_reset(q);
		sqlite3_clear_bindings(q);
	}
}

/* Runs a statement without results (BEGIN, COMMIT, ...). */
static krl_err exec_simple(krl_store *s, int id, krl_diag *d)
{
	sqlite3_stmt *q = stmt(s, id, d);
	if (!q)
		return KRL_EIO;
	int rc = sqlite3_step(q);
	krl_err e = rc == SQLITE_DONE ? KRL_OK : store_fail(s, d);
	done(q);
	return e;
}

/* Rolls back the open transaction, if any, keeping the first error's
 * diagnostic. */
static void rollback(krl_store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		exec_simple(s, ST_ROLLBACK, NULL);
}

/* ==== Open and close ==== */

/* Applies the schema to a new database or checks an existing one's
 * version, inside one write transaction so that two processes opening a
 * fresh file at once do not both create it. */
static krl_err apply_schema(krl_store *s, krl_diag *d)
{
	krl_err e = exec_simple(s, ST_BEGIN, d);
	if (e)
		return e;
	sqlite3_stmt *q = NULL;
	int version = -1;
	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &q, NULL) !=
	            SQLITE_OK ||
	    sqlite3_step(q) != SQLITE_ROW) {
		e = store_fail(s, d);
		goto out;
	}
	version = sqlite3_column_int(q, 0);
	if (version == 0) {
		if (sqlite3_exec(s->db, schema_v1, NULL, NULL, NULL) != SQLITE_OK) {
			e = store_fail(s, d);
			goto out;
		}
	} else if (version != STORE_SCHEMA_VERSION) {
		e = krl_diag_set(d, KRL_EUNSUPPORTED, (krl_pos){ 0 },
		                 "store %s: schema version %d, this kernelrl "
		                 "reads version %d",
		                 s->path, version, STORE_SCHEMA_VERSION);
		goto out;
	}
	e = exec_simple(s, ST_COMMIT, d);
out:
	sqlite3_finalize(q);
	if (e)
		rollback(s);
	return e;
}

/* Sets the connection's pragmas; journal_mode must come back as "wal"
 * (or "memory" for an in-memory database). */
static krl_err configure(krl_store *s, krl_diag *d)
{
	if (sqlite3_busy_timeout(s->db, 10000) != SQLITE_OK ||
	    sqlite3_exec(s->db,
	                 "PRAGMA foreign_keys = ON;"
	                 "PRAGMA synchronous = FULL;",
	                 NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(s, d);
	sqlite3_stmt *q = NULL;
	krl_err e = KRL_OK;
	if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &q,
	                       NULL) != SQLITE_OK ||
	    sqlite3_step(q) != SQLITE_ROW) {
		e = store_fail(s, d);
	} else {
		const char *mode = (const char *)sqlite3_column_text(q, 0);
		if (!mode || (strcmp(mode, "wal") && strcmp(mode, "memory")))
			e = krl_diag_set(d, KRL_EIO, (krl_pos){ 0 },
			                 "store %s: cannot use WAL mode "
			                 "(journal mode is %s)",
			                 s->path, mode ? mode : "?");
	}
	sqlite3_finalize(q);
	return e;
}

krl_err krl_store_open(const char *path, krl_store **out, krl_diag *d)
{
	*out = NULL;
	krl_store *s = calloc(1, sizeof *s);
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){ 0 },
		                    "store %s: out of memory", path);
	}
	krl_err e;
	int rc = sqlite3_open_v2(path, &s->db,
	                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                                 SQLITE_OPEN_NOMUTEX,
	                         NULL);
	if (rc != SQLITE_OK) {
		e = s->db ? store_fail(s, d)
		          : krl_diag_set(d, KRL_ENOMEM, (krl_pos){ 0 },
		                         "store %s: out of memory", path);
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	if ((e = configure(s, d)) || (e = apply_schema(s, d)))
		goto fail;
	*out = s;
	return KRL_OK;
fail:
	krl_store_close(s);
	return e;
}

/* Finalizes the cached statements and closes the database; NULL is a
 * no-op. Can't fail: a close that SQLite defers (a statement still open)
 * completes when that statement is finalized, which never happens after
 * this, so every statement is finalized first. */
void krl_store_close(krl_store *s)
{
	if (!s)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

/* ==== Candidates ==== */

/* hex SHA-256 of data[0..len) into hash (65 bytes). 0 on success. */
static int sha256_hex(const void *data, size_t len, char hash[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32)
		return -1;
	static const char hex[] = "0123456789abcdef";
	for (unsigned i = 0; i < n; i++) {
		hash[2 * i] = hex[md[i] >> 4];
		hash[2 * i + 1] = hex[md[i] & 15];
	}
	hash[64] = 0;
	return 0;
}

krl_err krl_store_put_candidate(krl_store *s, const char *source, size_t len,
                                char hash[65], krl_diag *d)
{
	if (sha256_hex(source, len, hash))
		return store_err(s, d, KRL_EIO, "SHA-256 failed (libcrypto)");
	sqlite3_stmt *q = stmt(s, ST_CAND_PUT, d);
	if (!q)
		return KRL_EIO;
	krl_err e = KRL_OK;
	/* A zero-length blob must still be a blob, not NULL: zeroblob. */
	if (sqlite3_bind_text(q, 1, hash, 64, SQLITE_STATIC) != SQLITE_OK ||
	    (len ? sqlite3_bind_blob64(q, 2, source, len, SQLITE_STATIC)
	         : sqlite3_bind_zeroblob(q, 2, 0)) != SQLITE_OK ||
	    sqlite3_step(q) != SQLITE_DONE)
		e = store_fail(s, d);
	done(q);
	return e;
}

krl_err krl_store_get_candidate(krl_store *s, const char *hash, char **source,
                                krl_diag *d)
{
	*source = NULL;
	sqlite3_stmt *q = stmt(s, ST_CAND_GET, d);
	if (!q)
		return KRL_EIO;
	krl_err e = KRL_OK;
	sqlite3_bind_text(q, 1, hash, -1, SQLITE_STATIC);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		const void *b = sqlite3_column_blob(q, 0);
		size_t n = (size_t)sqlite3_column_bytes(q, 0);
		char *p = malloc(n + 1);
		if (!p) {
			e = store_err(s, d, KRL_ENOMEM, "out of memory");
		} else {
			if (n)
				memcpy(p, b, n);
			p[n] = 0;
			*source = p;
		}
	} else if (rc == SQLITE_DONE) {
		e = krl_diag_set(d, KRL_ENOTFOUND, (krl_pos){ 0 },
		                 "store %s: no candidate %s", s->path, hash);
	} else {
		e = store_fail(s, d);
	}
	done(q);
	return e;
}

/* ==== Runs ==== */

/*
 * Looks the name up and, in the same write transaction, creates the run
 * if it is missing, so that two processes beginning the same run agree on
 * one row. A resumed run is set back to "running".
 */
krl_err krl_store_run_begin(krl_store *s, const char *name, const char *config,
                            int64_t *run_id, int *resumed, krl_diag *d)
{
	*run_id = 0;
	*resumed = 0;
	if (!name || !*name || !config)
		return store_err(s, d, KRL_EINVAL, "a run needs a name and a config");
	krl_err e = exec_simple(s, ST_BEGIN, d);
	if (e)
		return e;
	sqlite3_stmt *q = stmt(s, ST_RUN_FIND, d);
	if (!q) {
		e = KRL_EIO;
		goto out;
	}
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);
		const char *old = (const char *)sqlite3_column_text(q, 1);
		if (!old || strcmp(old, config) != 0) {
			e = krl_diag_set(d, KRL_EINVAL, (krl_pos){ 0 },
			                 "store %s: run '%s' exists with other "
			                 "options (stored %s, given %s); resume "
			                 "it with the same options or choose "
			                 "another run name",
			                 s->path, name, old ? old : "null", config);
			done(q);
			goto out;
		}
		done(q);
		q = stmt(s, ST_RUN_RESUME, d);
		if (!q) {
			e = KRL_EIO;
			goto out;
		}
		sqlite3_bind_int64(q, 1, id);
		if (sqlite3_step(q) != SQLITE_DONE)
			e = store_fail(s, d);
		done(q);
		if (e)
			goto out;
		*run_id = id;
		*resumed = 1;
	} else if (rc == SQLITE_DONE) {
		done(q);
		q = stmt(s, ST_RUN_INSERT, d);
		if (!q) {
			e = KRL_EIO;
			goto out;
		}
		sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, config, -1, SQLITE_STATIC);
		if (sqlite3_step(q) != SQLITE_DONE)
			e = store_fail(s, d);
		done(q);
		if (e)
			goto out;
		*run_id = sqlite3_last_insert_rowid(s->db);
	} else {
		e = store_fail(s, d);
		done(q);
		goto out;
	}
	e = exec_simple(s, ST_COMMIT, d);
out:
	if (e) {
		rollback(s);
		*run_id = 0;
		*resumed = 0;
	}
	return e;
}

krl_err krl_store_run_status(krl_store *s, int64_t run_id, const char *status,
                             krl_diag *d)
{
	if (!status || (strcmp(status, "running") && strcmp(status, "done") &&
	                strcmp(status, "failed")))
		return krl_diag_set(d, KRL_EINVAL, (krl_pos){ 0 },
		                    "store %s: run status '%s' (expected "
		                    "running, done or failed)",
		                    s->path, status ? status : "(null)");
	sqlite3_stmt *q = stmt(s, ST_RUN_STATUS, d);
	if (!q)
		return KRL_EIO;
	krl_err e = KRL_OK;
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_text(q, 2, status, -1, SQLITE_STATIC);
	if (sqlite3_step(q) != SQLITE_DONE)
		e = store_fail(s, d);
	else if (sqlite3_changes(s->db) == 0)
		e = krl_diag_set(d, KRL_ENOTFOUND, (krl_pos){ 0 },
		                 "store %s: no run with id %lld", s->path,
		                 (long long)run_id);
	done(q);
	return e;
}

krl_err krl_store_run_find(krl_store *s, const char *name, int64_t *run_id,
                           krl_diag *d)
{
	*run_id = 0;
	sqlite3_stmt *q = stmt(s, ST_RUN_FIND, d);
	if (!q)
		return KRL_EIO;
	krl_err e = KRL_OK;
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*run_id = sqlite3_column_int64(q, 0);
	else if (rc == SQLITE_DONE)
		e = krl_diag_set(d, KRL_ENOTFOUND, (krl_pos){ 0 },
		                 "store %s: no run named '%s'", s->path, name);
	else
		e = store_fail(s, d);
	done(q);
	return e;
}

/* ==== Evaluations ==== */

void krl_eval_row_clear(krl_eval_row *r)
{
	if (!r)
		return;
	free(r->record);
	free(r->prompt);
	free(r->completion);
	free(r->policy);
	r->record = r->prompt = r->completion = r->policy = NULL;
}

/* 1 when the fixed-size field holds a terminated string. */
#define TERMINATED(f) (memchr((f), 0, sizeof(f)) != NULL)

/* Runs a "SELECT 1 ... " existence query already bound: 1, 0 or -1. */
static int exists(krl_store *s, sqlite3_stmt *q, krl_diag *d)
{
	int rc = sqlite3_step(q);
	int r = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
	if (r < 0)
		store_fail(s, d);
	done(q);
	return r;
}

krl_err krl_store_has_slot(krl_store *s, int64_t run_id, const char *slot,
                           int *has, krl_diag *d)
{
	*has = 0;
	sqlite3_stmt *q = stmt(s, ST_SLOT_HAS, d);
	if (!q)
		return KRL_EIO;
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_text(q, 2, slot, -1, SQLITE_STATIC);
	int r = exists(s, q, d);
	if (r < 0)
		return KRL_EIO;
	*has = r;
	return KRL_OK;
}

/* Binds a C string, or NULL for a NULL pointer. */
static int bind_str(sqlite3_stmt *q, int i, const char *v)
{
	return v ? sqlite3_bind_text(q, i, v, -1, SQLITE_STATIC)
	         : sqlite3_bind_null(q, i);
}

/* Checks the row's own fields before touching the database. */
static krl_err check_row(krl_store *s, const krl_eval_row *r, krl_diag *d)
{
	if (!TERMINATED(r->slot) || !TERMINATED(r->task) ||
	    !TERMINATED(r->cand_hash) || !TERMINATED(r->verdict))
		return store_err(s, d, KRL_EINVAL,
		                 "evaluation row has an unterminated field");
	if (!r->slot[0] || !r->task[0] || !r->verdict[0])
		return store_err(s, d, KRL_EINVAL,
		                 "evaluation row needs a slot, a task and a "
		                 "verdict");
	return KRL_OK;
}

/*
 * One transaction: checks that the run and the candidate (when cand_hash
 * is not empty) exist, then inserts. The foreign keys would refuse either
 * too; the explicit checks give a sentence a user can act on.
 */
krl_err krl_store_add_eval(krl_store *s, krl_eval_row *row, krl_diag *d)
{
	krl_err e = check_row(s, row, d);
	if (e)
		return e;
	if ((e = exec_simple(s, ST_BEGIN, d)))
		return e;
	sqlite3_stmt *q = stmt(s, ST_RUN_HAS, d);
	if (!q) {
		e = KRL_EIO;
		goto out;
	}
	sqlite3_bind_int64(q, 1, row->run_id);
	int r = exists(s, q, d);
	if (r <= 0) {
		e = r < 0 ? KRL_EIO
		          : krl_diag_set(d, KRL_ENOTFOUND, (krl_pos){ 0 },
		                         "store %s: no run with id %lld",
		                         s->path, (long long)row->run_id);
		goto out;
	}
	if (row->cand_hash[0]) {
		if (!(q = stmt(s, ST_CAND_HAS, d))) {
			e = KRL_EIO;
			goto out;
		}
		sqlite3_bind_text(q, 1, row->cand_hash, -1, SQLITE_STATIC);
		r = exists(s, q, d);
		if (r <= 0) {
			e = r < 0 ? KRL_EIO
			          : krl_diag_set(d, KRL_ENOTFOUND, (krl_pos){ 0 },
			                         "store %s: evaluation at slot %s "
			                         "names candidate %s, which is "
			                         "not stored (put it first)",
			                         s->path, row->slot,
			                         row->cand_hash);
			goto out;
		}
	}
	if (!(q = stmt(s, ST_EVAL_INSERT, d))) {
		e = KRL_EIO;
		goto out;
	}
	sqlite3_bind_int64(q, 1, row->run_id);
	sqlite3_bind_text(q, 2, row->slot, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 3, row->round);
	sqlite3_bind_int(q, 4, row->group);
	sqlite3_bind_int(q, 5, row->member);
	sqlite3_bind_text(q, 6, row->task, -1, SQLITE_STATIC);
	bind_str(q, 7, row->cand_hash[0] ? row->cand_hash : NULL);
	sqlite3_bind_text(q, 8, row->verdict, -1, SQLITE_STATIC);
	sqlite3_bind_double(q, 9, row->speedup);
	sqlite3_bind_double(q, 10, row->ci_low);
	sqlite3_bind_double(q, 11, row->ci_high);
	sqlite3_bind_double(q, 12, row->reward);
	if (row->has_advantage)
		sqlite3_bind_double(q, 13, row->advantage);
	else
		sqlite3_bind_null(q, 13);
	bind_str(q, 14, row->record);
	bind_str(q, 15, row->prompt);
	bind_str(q, 16, row->completion);
	bind_str(q, 17, row->policy);
	sqlite3_bind_int(q, 18, row->prompt_tokens);
	sqlite3_bind_int(q, 19, row->completion_tokens);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		e = krl_diag_set(d, KRL_EINVAL, (krl_pos){ 0 },
		                 "store %s: run %lld already has an evaluation "
		                 "at slot %s",
		                 s->path, (long long)row->run_id, row->slot);
	else if (rc != SQLITE_DONE)
		e = store_fail(s, d);
	done(q);
	if (e)
		goto out;
	int64_t id = sqlite3_last_insert_rowid(s->db);
	if ((e = exec_simple(s, ST_COMMIT, d)))
		goto out;
	row->id = id;
out:
	if (e)
		rollback(s);
	return e;
}

krl_err krl_store_set_advantage(krl_store *s, int64_t id, double advantage,
                                krl_diag *d)
{
	sqlite3_stmt *q = stmt(s, ST_EVAL_ADV, d);
	if (!q)
		return KRL_EIO;
	krl_err e = KRL_OK;
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_double(q, 2, advantage);
	if (sqlite3_step(q) != SQLITE_DONE)
		e = store_fail(s, d);
	else if (sqlite3_changes(s->db) == 0)
		e = krl_diag_set(d, KRL_ENOTFOUND, (krl_pos){ 0 },
		                 "store %s: no evaluation with id %lld", s->path,
		                 (long long)id);
	done(q);
	return e;
}

/* A malloc'd copy of a text column, NULL for SQL NULL. *oom set on
 * allocation failure. */
static char *column_dup(sqlite3_stmt *q, int i, int *oom)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	if (!t)
		return NULL;
	size_t n = (size_t)sqlite3_column_bytes(q, i);
	char *p = malloc(n + 1);
	if (!p) {
		*oom = 1;
		return NULL;
	}
	memcpy(p, t, n);
	p[n] = 0;
	return p;
}

/* Copies a text column into a fixed field, always terminated. The
 * values were written from the same fixed fields of krl_eval_row (whose
 * writers refuse what does not fit), so nothing is cut. */
static void column_copy(sqlite3_stmt *q, int i, char *dst, size_t cap)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

/* Fills r from the current row of an EVAL_COLUMNS query. Returns 0, or
 * -1 when out of memory (r is then cleared). */
static int read_row(sqlite3_stmt *q, krl_eval_row *r)
{
	int oom = 0;
	memset(r, 0, sizeof *r);
	r->id = sqlite3_column_int64(q, 0);
	r->run_id = sqlite3_column_int64(q, 1);
	column_copy(q, 2, r->slot, sizeof r->slot);
	r->round = sqlite3_column_int(q, 3);
	r->group = sqlite3_column_int(q, 4);
	r->member = sqlite3_column_int(q, 5);
	column_copy(q, 6, r->task, sizeof r->task);
	column_copy(q, 7, r->cand_hash, sizeof r->cand_hash);
	column_copy(q, 8, r->verdict, sizeof r->verdict);
	r->speedup = sqlite3_column_double(q, 9);
	r->ci_low = sqlite3_column_double(q, 10);
	r->ci_high = sqlite3_column_double(q, 11);
	r->reward = sqlite3_column_double(q, 12);
	r->has_advantage = sqlite3_column_type(q, 13) != SQLITE_NULL;
	r->advantage = r->has_advantage ? sqlite3_column_double(q, 13) : 0;
	r->record = column_dup(q, 14, &oom);
	r->prompt = column_dup(q, 15, &oom);
	r->completion = column_dup(q, 16, &oom);
	r->policy = column_dup(q, 17, &oom);
	r->prompt_tokens = sqlite3_column_int(q, 18);
	r->completion_tokens = sqlite3_column_int(q, 19);
	if (oom) {
		krl_eval_row_clear(r);
		return -1;
	}
	return 0;
}

/*
 * Reads FOREACH_PAGE rows at a time into memory and finishes the query
 * before calling fn on them, so fn may write to the store (set an
 * advantage, add an evaluation) and those writes commit at once, and
 * memory stays bounded however large the run. The rows passed to fn are
 * freed after fn returns.
 */
krl_err krl_store_foreach_eval(krl_store *s, int64_t run_id,
                               int (*fn)(const krl_eval_row *row, void *ctx),
                               void *ctx, krl_diag *d)
{
	krl_eval_row *page = calloc(FOREACH_PAGE, sizeof *page);
	if (!page)
		return store_err(s, d, KRL_ENOMEM, "out of memory");
	krl_err e = KRL_OK;
	int64_t last = 0;
	int stop = 0;
	while (!e && !stop) {
		sqlite3_stmt *q =
			stmt(s, run_id ? ST_EVAL_PAGE_RUN : ST_EVAL_PAGE_ALL, d);
		if (!q) {
			e = KRL_EIO;
			break;
		}
		if (run_id)
			sqlite3_bind_int64(q, 1, run_id);
		sqlite3_bind_int64(q, 2, last);
		sqlite3_bind_int(q, 3, FOREACH_PAGE);
		int n = 0, rc;
		while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
			if (read_row(q, &page[n])) {
				e = store_err(s, d, KRL_ENOMEM, "out of memory");
				break;
			}
			n++;
		}
		if (!e && rc != SQLITE_DONE)
			e = store_fail(s, d);
		done(q);
		for (int i = 0; i < n; i++) {
			if (!e && !stop)
				stop = fn(&page[i], ctx) != 0;
			last = page[i].id;
			krl_eval_row_clear(&page[i]);
		}
		if (n < FOREACH_PAGE)
			break;
	}
	free(page);
	return e;
}

krl_err krl_store_count_evals(krl_store *s, int64_t run_id, int64_t *n,
                              krl_diag *d)
{
	*n = 0;
	sqlite3_stmt *q =
		stmt(s, run_id ? ST_EVAL_COUNT_RUN : ST_EVAL_COUNT_ALL, d);
	if (!q)
		return KRL_EIO;
	krl_err e = KRL_OK;
	if (run_id)
		sqlite3_bind_int64(q, 1, run_id);
	if (sqlite3_step(q) == SQLITE_ROW)
		*n = sqlite3_column_int64(q, 0);
	else
		e = store_fail(s, d);
	done(q);
	return e;
}

/* ==== Exemplar pools ==== */

krl_err krl_store_exemplars(krl_store *s, const char *task, krl_exemplar **out,
                            int *n, krl_diag *d)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *q = stmt(s, ST_EXEMPLARS, d);
	if (!q)
		return KRL_EIO;
	sqlite3_bind_text(q, 1, task, -1, SQLITE_STATIC);
	krl_err e = KRL_OK;
	krl_exemplar *ex = NULL;
	int cnt = 0, cap = 0, rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (cnt == cap) {
			int ncap = cap ? 2 * cap : 16;
			krl_exemplar *g = realloc(ex, sizeof *ex * (size_t)ncap);
			if (!g) {
				e = store_err(s, d, KRL_ENOMEM, "out of memory");
				break;
			}
			ex = g;
			cap = ncap;
		}
		krl_exemplar *x = &ex[cnt];
		column_copy(q, 0, x->hash, sizeof x->hash);
		x->score = sqlite3_column_double(q, 1);
		const void *b = sqlite3_column_blob(q, 2);
		size_t len = (size_t)sqlite3_column_bytes(q, 2);
		if (!(x->source = malloc(len + 1))) {
			e = store_err(s, d, KRL_ENOMEM, "out of memory");
			break;
		}
		if (len)
			memcpy(x->source, b, len);
		x->source[len] = 0;
		cnt++;
	}
	if (!e && rc != SQLITE_DONE)
		e = store_fail(s, d);
	done(q);
	if (e) {
		krl_exemplars_free(ex, cnt);
		return e;
	}
	*out = ex;
	*n = cnt;
	return KRL_OK;
}

/* Frees the sources and the array; NULL is a no-op. */
void krl_exemplars_free(krl_exemplar *ex, int n)
{
	if (!ex)
		return;
	for (int i = 0; i < n; i++)
		free(ex[i].source);
	free(ex);
}
