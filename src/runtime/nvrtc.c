/*
 * NVRTC compilation with a content-addressed on-disk cache
 * (include/krl/nvrtc.h, docs/runtime.md "NVRTC cache"). NVRTC itself runs
 * in a sandboxed compiler process (compiler.c); this file checks the
 * include rule first (srccheck.c), owns the cache (the compiler process
 * never writes a file) and filters the log that comes back (complog.c).
 *
 * One compile = one option list, built here and nowhere else:
 *   --gpu-architecture=<arch>   a real architecture, so the result is a cubin
 *   -std=c++17
 *   --include-path=<dir>        one per CUDA toolkit include directory
 * No fast-math, no debug or line info: precision is a contract (VISION.md),
 * and NVRTC's defaults (IEEE division and sqrt, fmad on) match nvcc's.
 *
 * The key is the SHA-256 of a length-prefixed serialisation of the source
 * with comments and whitespace runs made canonical (code_only: what the
 * compiler sees, so that candidates differing only in comments -- the
 * optimizer's choice line, the plan -- or layout share one entry), the
 * options, the architecture, the NVRTC version and the fingerprint of the
 * include directories (toolkit_fingerprint: a header edited or replaced
 * in place changes every key, since a candidate may include any of
 * them). An entry is the file
 * <cache_dir>/nvrtc/<2 hex>/<62 hex>.cubin, written to a temp file in the
 * same directory and renamed into place, so a reader sees a whole entry or
 * none. An entry that does not look like a complete ELF file is ignored and
 * rewritten.
 *
 * Thread-safety: process-wide state (version, include paths, cache dir) is
 * set once through pthread_once; the per-architecture option lists that
 * krl_nvrtc_options() hands out are interned under a mutex and never freed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nvrtc.h>
#include <openssl/evp.h>

#include "krl/nvrtc.h"
#include "krl/srccheck.h"
#include "runtime/compiler.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/strbuf.h"
#include "util/utf8.h"

#ifndef KRL_CUDA_INCLUDE
#define KRL_CUDA_INCLUDE ""
#endif

#define MAX_INCLUDES 16
#define MAX_PATH 4096
#define MAX_OPTIONS (2 + MAX_INCLUDES)
#define MAX_CUBIN ((size_t)1 << 30) /* larger cache files are not cubins */

static const krl_pos no_pos = { 0 };

/* ==== Process-wide state (set once) ==== */

static struct {
	char version[32];       /* "major.minor" or "unknown" */
	char inc[MAX_INCLUDES][MAX_PATH + 16]; /* "--include-path=<dir>" */
	const char *dir[MAX_INCLUDES];        /* each <dir> within inc[] */
	int ninc;
} g;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* Splits list on any of seps and appends "--include-path=<dir>" for each
 * non-empty directory, up to MAX_INCLUDES. */
static void add_includes(const char *list, const char *seps)
{
	const char *p = list;
	while (*p && g.ninc < MAX_INCLUDES) {
		size_t n = strcspn(p, seps);
		if (n > 0 && n < MAX_PATH) {
			snprintf(g.inc[g.ninc], sizeof g.inc[0],
			         "--include-path=%.*s", (int)n, p);
			g.dir[g.ninc] = g.inc[g.ninc] + strlen("--include-path=");
			g.ninc++;
			/* CUDA 13 keeps libcu++ (cuda/std/...), which the
			 * toolkit's own headers include, under include/cccl. */
			char cccl[MAX_PATH + 8];
			struct stat st;
			snprintf(cccl, sizeof cccl, "%.*s/cccl", (int)n, p);
			if (g.ninc < MAX_INCLUDES && stat(cccl, &st) == 0 &&
			    S_ISDIR(st.st_mode)) {
				snprintf(g.inc[g.ninc], sizeof g.inc[0],
				         "--include-path=%.*s", MAX_PATH, cccl);
				g.dir[g.ninc] = g.inc[g.ninc] +
				                strlen("--include-path=");
				g.ninc++;
			}
		}
		p += n;
		if (*p)
			p++;
	}
}

static void init_once(void)
{
	int major = 0, minor = 0;
	if (nvrtcVersion(&major, &minor) == NVRTC_SUCCESS)
		snprintf(g.version, sizeof g.version, "%d.%d", major, minor);
	else
		snprintf(g.version, sizeof g.version, "unknown");

	/* $KRL_CUDA_INCLUDE (';' or ':' separated) replaces the directories
	 * CMake found, for a toolkit that moved after the build. */
	const char *env = getenv("KRL_CUDA_INCLUDE");
	if (env && *env)
		add_includes(env, ";:");
	else
		add_includes(KRL_CUDA_INCLUDE, ";:");
}

const char *krl_nvrtc_version(void)
{
	pthread_once(&g_once, init_once);
	return g.version;
}

const char *const *krl_nvrtc_include_dirs(int *n)
{
	pthread_once(&g_once, init_once);
	if (n)
		*n = g.ninc;
	return g.dir;
}

/* ==== Limits ==== */

static krl_compile_limits g_lim;
static pthread_mutex_t g_lim_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_lim_once = PTHREAD_ONCE_INIT;

/* The default deadline: 30 s, or $KRL_COMPILE_TIMEOUT seconds (the test
 * suite raises it: a cold GEMM compile takes 10 s on a 2-core machine and
 * much longer when the tests run in parallel under the sanitizers). */
static double default_timeout(void)
{
	const char *z = getenv("KRL_COMPILE_TIMEOUT");
	double v = z && *z ? atof(z) : 0;
	return v > 0 ? v : 30.0;
}

static void lim_once(void)
{
	g_lim.timeout_s = default_timeout();
	g_lim.mem_bytes = (size_t)4 << 30;
}

void krl_nvrtc_set_limits(const krl_compile_limits *lim)
{
	pthread_once(&g_lim_once, lim_once);
	pthread_mutex_lock(&g_lim_lock);
	g_lim.timeout_s = lim && lim->timeout_s > 0 ? lim->timeout_s
	                                            : default_timeout();
	g_lim.mem_bytes = lim && lim->mem_bytes ? lim->mem_bytes
	                                        : (size_t)4 << 30;
	pthread_mutex_unlock(&g_lim_lock);
}

krl_compile_limits krl_nvrtc_limits(void)
{
	pthread_once(&g_lim_once, lim_once);
	pthread_mutex_lock(&g_lim_lock);
	krl_compile_limits l = g_lim;
	pthread_mutex_unlock(&g_lim_lock);
	return l;
}

void krl_nvrtc_sandbox(char *buf, size_t cap)
{
	krl_compiler_sandbox_how(buf, cap);
	if (buf[0])
		return;
	/* No compiler process yet: compile the empty program to start one. */
	krl_cubin *c = NULL;
	krl_diag d = {0};
	krl_nvrtc_compile("", 0, "sandbox-probe.cu", "sm_90a", NULL, &c, &d);
	krl_cubin_free(c);
	krl_compiler_sandbox_how(buf, cap);
	if (!buf[0])
		snprintf(buf, cap, "unknown (no compiler process: %s)", d.msg);
}

static char g_cache_dir[MAX_PATH];
static pthread_once_t g_cache_once = PTHREAD_ONCE_INIT;

/* A folder whose path does not fit is never cut (a cut path names
 * another folder): g_cache_dir stays "", which means no cache, and the
 * reason goes to stderr once. */
static void cache_dir_once(void)
{
	const char *z, *var = NULL, *tail = "";
	if ((z = getenv("KRL_CACHE_DIR")) && *z)
		var = "KRL_CACHE_DIR";
	else if ((z = getenv("XDG_CACHE_HOME")) && *z)
		var = "XDG_CACHE_HOME", tail = "/krl";
	else if ((z = getenv("HOME")) && *z)
		var = "HOME", tail = "/.cache/krl";
	else
		z = "/tmp/krl-cache";
	krl_diag d = {0};
	if (krl_fmt_fixed(g_cache_dir, sizeof g_cache_dir, "the cache folder",
	                  &d, "%s%s", z, tail) != KRL_OK)
		fprintf(stderr, "krl: no compile cache: %s (from $%s)\n", d.msg,
		        var ? var : "?");
}

const char *krl_cache_dir(void)
{
	pthread_once(&g_cache_once, cache_dir_once);
	return g_cache_dir;
}

/* ==== Options ==== */

/* 1 when arch names a real architecture: "sm_" digits, one optional
 * lower-case suffix letter (sm_90a, sm_100f). A virtual "compute_XX" has
 * no cubin and is refused. */
static int arch_ok(const char *arch)
{
	if (!arch || strncmp(arch, "sm_", 3) != 0)
		return 0;
	const char *p = arch + 3;
	int digits = 0;
	while (*p >= '0' && *p <= '9') {
		p++;
		digits++;
	}
	if (*p >= 'a' && *p <= 'z')
		p++;
	return digits >= 2 && digits <= 4 && *p == 0;
}

/* Fills opts[] with the option list for arch (archopt is the caller's
 * buffer for the architecture option) and returns the count. */
static int build_options(const char *arch, char *archopt, size_t cap,
                         const char **opts)
{
	pthread_once(&g_once, init_once);
	int n = 0;
	snprintf(archopt, cap, "--gpu-architecture=%s", arch);
	opts[n++] = archopt;
	opts[n++] = "-std=c++17";
	for (int i = 0; i < g.ninc; i++)
		opts[n++] = g.inc[i];
	return n;
}

typedef struct interned {
	struct interned *next;
	char arch[24];
	char archopt[48];
	const char *opts[MAX_OPTIONS + 1];
} interned;
static interned *g_interned;
static pthread_mutex_t g_intern_lock = PTHREAD_MUTEX_INITIALIZER;

/* Returns the option list for arch, interned so that the pointer stays
 * valid for the life of the process; NULL when arch is not a real
 * architecture or memory ran out. */
const char *const *krl_nvrtc_options(const char *arch)
{
	if (!arch_ok(arch))
		return NULL;
	pthread_mutex_lock(&g_intern_lock);
	interned *e;
	for (e = g_interned; e; e = e->next)
		if (strcmp(e->arch, arch) == 0)
			break;
	if (!e && (e = calloc(1, sizeof *e))) {
		snprintf(e->arch, sizeof e->arch, "%s", arch);
		int n = build_options(arch, e->archopt, sizeof e->archopt,
		                      e->opts);
		e->opts[n] = NULL;
		e->next = g_interned;
		g_interned = e;
	}
	pthread_mutex_unlock(&g_intern_lock);
	return e ? e->opts : NULL;
}

/* ==== Cache key ==== */

static int hash_u64(EVP_MD_CTX *ctx, uint64_t v)
{
	unsigned char b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return EVP_DigestUpdate(ctx, b, sizeof b);
}

static int hash_field(EVP_MD_CTX *ctx, const void *p, size_t n)
{
	return hash_u64(ctx, n) && (n == 0 || EVP_DigestUpdate(ctx, p, n));
}

/*
 * The source as the compiler sees it, for the key: every comment is one
 * space (as in translation phase 3: a block comment over several lines
 * too, and a line comment continued by backslash-newline), then every run
 * of whitespace outside string and character literals is one newline if
 * it holds one (directives end at newlines) and one space otherwise.
 * Literals, with their escapes, are kept whole. Returns NULL (the caller
 * keys the whole source) when out of memory or when the source holds a
 * raw string literal, which this scanner does not parse.
 */
static char *code_only(const char *src, size_t len, size_t *outlen)
{
	for (size_t i = 0; i + 1 < len; i++)
		if (src[i] == 'R' && src[i + 1] == '"')
			return NULL;
	char *o = malloc(len + 1);
	size_t n = 0, i = 0;
	int ws = 0; /* pending whitespace: 0 none, 1 a space, 2 a newline */
	if (!o)
		return NULL;
	while (i < len) {
		char c = src[i];
		if (c == '/' && i + 1 < len && src[i + 1] == '/') {
			for (i += 2; i < len && src[i] != '\n'; i++)
				if (src[i] == '\\' && i + 1 < len && src[i + 1] == '\n')
					i++;
			ws = ws > 1 ? ws : 1;
			continue;
		}
		if (c == '/' && i + 1 < len && src[i + 1] == '*') {
			for (i += 2; i < len && !(src[i] == '*' && i + 1 < len &&
			                          src[i + 1] == '/');
			     i++)
				;
			i = i < len ? i + 2 : len;
			ws = ws > 1 ? ws : 1;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' ||
		    c == '\n') {
			ws = c == '\n' ? 2 : ws > 1 ? ws : 1;
			i++;
			continue;
		}
		if (ws && n > 0)
			o[n++] = ws == 2 ? '\n' : ' ';
		ws = 0;
		o[n++] = src[i++];
		if (c == '"' || c == '\'') {
			while (i < len && src[i] != c && src[i] != '\n') {
				if (src[i] == '\\' && i + 1 < len)
					o[n++] = src[i++];
				o[n++] = src[i++];
			}
			if (i < len && src[i] == c)
				o[n++] = src[i++];
		}
	}
	*outlen = n;
	return o;
}

/* ==== Toolkit fingerprint ==== */

/* Each file's "path\0size\0mtime" beneath the include directories, for
 * the fingerprint (nftw gives no context pointer: filled under once). */
static char **g_fp_items;
static size_t g_fp_n, g_fp_cap;
static unsigned char g_fp[32];
static int g_fp_ok;
static pthread_once_t g_fp_once = PTHREAD_ONCE_INIT;

static int fp_visit(const char *path, const struct stat *st, int type,
                    struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_F && type != FTW_SL)
		return 0;
	if (g_fp_n == g_fp_cap) {
		size_t cap = g_fp_cap ? 2 * g_fp_cap : 4096;
		char **p = realloc(g_fp_items, cap * sizeof *p);
		if (!p)
			return 1;
		g_fp_items = p;
		g_fp_cap = cap;
	}
	char *item = NULL;
	if (asprintf(&item, "%s%c%lld%c%lld.%09ld", path, 0, (long long)st->st_size,
	             0, (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec) < 0)
		return 1;
	g_fp_items[g_fp_n++] = item;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* SHA-256 over the sorted items of every include directory: a toolkit
 * header edited, added or removed changes it. */
static void fingerprint_once(void)
{
	pthread_once(&g_once, init_once);
	int ok = 1;
	for (int i = 0; i < g.ninc && ok; i++)
		ok = nftw(g.dir[i], fp_visit, 32, FTW_PHYS) == 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int mdlen = 0;
	if (ok && ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		qsort(g_fp_items, g_fp_n, sizeof *g_fp_items, cmp_str);
		for (size_t i = 0; i < g_fp_n && ok; i++) {
			/* path, size and time are three NUL-ended fields */
			const char *it = g_fp_items[i];
			size_t a = strlen(it), b = strlen(it + a + 1),
			       c = strlen(it + a + b + 2);
			ok = EVP_DigestUpdate(ctx, it, a + b + c + 3);
		}
		ok = ok && EVP_DigestFinal_ex(ctx, g_fp, &mdlen) && mdlen == 32;
	} else {
		ok = 0;
	}
	EVP_MD_CTX_free(ctx);
	for (size_t i = 0; i < g_fp_n; i++)
		free(g_fp_items[i]);
	free(g_fp_items);
	g_fp_items = NULL;
	g_fp_n = g_fp_cap = 0;
	g_fp_ok = ok;
}

/* Writes the hex SHA-256 key into key[65]. Returns 0, or -1 when OpenSSL
 * fails. Every field is length-prefixed (8 bytes, little-endian), so no
 * two different inputs serialise to the same bytes. */
static int cache_key(const char *src, size_t len, const char *const *opts,
                     int nopt, const char *arch, char key[65])
{
	static const char tag[] = "krl-nvrtc-cache-v3";
	unsigned char md[32];
	unsigned int mdlen = 0;
	int ok = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx)
		return -1;
	if (!EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		goto out;
	pthread_once(&g_fp_once, fingerprint_once);
	/* an unreadable toolkit still keys consistently, as "no fingerprint" */
	if (!hash_field(ctx, tag, sizeof tag - 1) ||
	    !hash_field(ctx, g.version, strlen(g.version)) ||
	    !hash_field(ctx, g_fp, g_fp_ok ? sizeof g_fp : 0) ||
	    !hash_field(ctx, arch, strlen(arch)) ||
	    !hash_u64(ctx, (uint64_t)nopt))
		goto out;
	for (int i = 0; i < nopt; i++)
		if (!hash_field(ctx, opts[i], strlen(opts[i])))
			goto out;
	size_t clen = 0;
	char *code = code_only(src, len, &clen);
	int hashed = code ? hash_u64(ctx, 1) && hash_field(ctx, code, clen)
	                  : hash_u64(ctx, 0) && hash_field(ctx, src, len);
	free(code);
	if (!hashed || !EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != sizeof md)
		goto out;
	for (int i = 0; i < 32; i++)
		snprintf(key + 2 * i, 3, "%02x", md[i]);
	ok = 1;
out:
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : -1;
}

/* ==== Cache files ==== */

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* 1 when buf looks like a complete 64-bit little-endian ELF image: the
 * magic, and section and program header tables inside the file (a
 * truncated write fails the second test). */
static int elf_complete(const unsigned char *b, size_t n)
{
	if (n < 64 || memcmp(b, "\177ELF", 4) != 0 || b[4] != 2 || b[5] != 1)
		return 0;
	uint64_t phoff = le(b + 32, 8), shoff = le(b + 40, 8);
	uint64_t phent = le(b + 54, 2), phnum = le(b + 56, 2);
	uint64_t shent = le(b + 58, 2), shnum = le(b + 60, 2);
	if (phnum && (phoff > n || phent * phnum > n - phoff))
		return 0;
	if (shnum && (shoff > n || shent * shnum > n - shoff))
		return 0;
	return 1;
}

/* Reads a valid cache entry into a malloc'd buffer (caller frees). Returns
 * NULL when there is none or it is not a complete cubin. */
static void *cache_read(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	unsigned char *buf = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 64 ||
	    (size_t)st.st_size > MAX_CUBIN)
		goto fail;
	size_t n = (size_t)st.st_size, got = 0;
	if (!(buf = malloc(n)))
		goto fail;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			goto fail;
		got += (size_t)r;
	}
	if (!elf_complete(buf, n))
		goto fail;
	close(fd);
	*size = n;
	return buf;
fail:
	free(buf);
	close(fd);
	return NULL;
}

/* Writes data to path atomically: a temp file in the same directory, then
 * rename(2). Best effort: a cache that cannot be written only costs time,
 * so failures are not reported. No fsync: after a power loss an entry may
 * be empty or short, and cache_read rejects those. */
static void cache_write(const char *dir, const char *path, const void *data,
                        size_t size)
{
	char tmp[MAX_PATH + 64];
	if (krl_mkdirs(dir) != 0)
		return;
	if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof tmp)
		return;
	int fd = mkstemp(tmp);
	if (fd < 0)
		return;
	const unsigned char *p = data;
	size_t put = 0;
	while (put < size) {
		ssize_t w = write(fd, p + put, size - put);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		put += (size_t)w;
	}
	int ok = put == size && fchmod(fd, 0644) == 0;
	if (close(fd) != 0)
		ok = 0;
	if (!ok || rename(tmp, path) != 0)
		unlink(tmp);
}

/* ==== Compilation ==== */

/* Copies the first line of log that mentions "error" into d. */
static void first_error(const char *log, const char *name, krl_diag *d)
{
	const char *p = strstr(log, "error");
	if (!p) {
		krl_diag_set(d, KRL_ECOMPILE, no_pos,
		             "%s: NVRTC rejected the device code", name);
		return;
	}
	while (p > log && p[-1] != '\n')
		p--;
	int n = (int)strcspn(p, "\n");
	krl_diag_set(d, KRL_ECOMPILE, no_pos, "%s: %.*s", name, n, p);
}

krl_err krl_nvrtc_compile(const char *src, size_t len, const char *name,
                          const char *arch, const char *cache_dir,
                          krl_cubin **out, krl_diag *d)
{
	double t0 = krl_now_s() * 1e3;
	if (!out)
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "krl_nvrtc_compile: out is NULL");
	*out = NULL;
	if (!name)
		name = "device.cu";
	if (!src && len > 0)
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "%s: source is NULL", name);
	if (!src)
		src = "";
	if (!arch_ok(arch))
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "%s: architecture \"%s\" is not a real GPU "
		                    "architecture (expected e.g. sm_90a)",
		                    name, arch ? arch : "(null)");
	const char *opts[MAX_OPTIONS];
	char archopt[64];
	int nopt = build_options(arch, archopt, sizeof archopt, opts);

	krl_cubin *c = calloc(1, sizeof *c);
	if (!c)
		return krl_diag_set(d, KRL_ENOMEM, no_pos, "out of memory");
	krl_err err = KRL_OK;
	/* The include rule, before anything reads the source: a refusal is
	 * the candidate's compile error, with where and why (it also refuses
	 * a NUL byte, which would make NVRTC compile less than the key
	 * covers). */
	krl_diag sd = {0};
	if (krl_srccheck(src, len, name, g.dir, g.ninc, &sd) != KRL_OK) {
		char buf[1400];
		c->reason = "include";
		c->log = strdup(krl_diag_format(&sd, buf, sizeof buf));
		if (!c->log) {
			err = krl_diag_set(d, KRL_ENOMEM, no_pos, "out of memory");
			goto fail;
		}
		*d = sd;
		c->ms = krl_now_s() * 1e3 - t0;
		*out = c;
		return KRL_ECOMPILE;
	}
	if (cache_key(src, len, opts, nopt, arch, c->key) != 0) {
		err = krl_diag_set(d, KRL_ENOMEM, no_pos,
		                   "%s: SHA-256 of the cache key failed", name);
		goto fail;
	}

	char dir[MAX_PATH], path[MAX_PATH + 80];
	int use_cache = cache_dir && *cache_dir &&
	                snprintf(dir, sizeof dir, "%s/nvrtc/%.2s", cache_dir,
	                         c->key) < (int)sizeof dir;
	if (use_cache) {
		snprintf(path, sizeof path, "%s/%s.cubin", dir, c->key + 2);
		if ((c->data = cache_read(path, &c->size))) {
			if (!(c->log = strdup(""))) {
				err = krl_diag_set(d, KRL_ENOMEM, no_pos,
				                   "out of memory");
				goto fail;
			}
			c->from_cache = 1;
			goto done;
		}
	}

	krl_compile_limits lim = krl_nvrtc_limits();
	err = krl_compiler_run(src, len, name, opts, nopt, g.dir, g.ninc, &lim,
	                       c, d);
	if (err == KRL_OK || err == KRL_ECOMPILE) {
		/* What leaves the compiler: no foreign file, capped. */
		char *clean = krl_compile_log_clean(c->log ? c->log : "", name,
		                                    g.dir, g.ninc,
		                                    KRL_COMPILE_LOG_CAP);
		free(c->log);
		c->log = clean;
		if (!c->log) {
			err = krl_diag_set(d, KRL_ENOMEM, no_pos, "out of memory");
			goto fail;
		}
	}
	if (err == KRL_ECOMPILE) {
		if (!c->reason)
			first_error(c->log, name, d);
		c->ms = krl_now_s() * 1e3 - t0;
		*out = c;
		return err;
	}
	if (err != KRL_OK)
		goto fail;
	if (use_cache)
		cache_write(dir, path, c->data, c->size);
done:
	c->ms = krl_now_s() * 1e3 - t0;
	*out = c;
	return KRL_OK;
fail:
	krl_cubin_free(c);
	return err;
}

void krl_cubin_free(krl_cubin *c)
{
	if (!c)
		return;
	free(c->data);
	free(c->log);
	free(c);
}
