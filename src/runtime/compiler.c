/*
 * The compiler processes: NVRTC runs here, never in the calling process
 * (docs/judge.md "The compiler sandbox").
 *
 * A compiler process is the calling program itself, started again from
 * /proc/self/exe with KRL_COMPILER_CHILD=1 in an environment of its own: a
 * constructor in this file sees the variable before main() and runs
 * child_main() instead, so every program linked with libkrl (krl, the
 * tests, the benchmarks) can compile without knowing where a helper
 * binary lives. The child
 *   - closes every descriptor but its socket (fd 0 and 1), moves to "/",
 *     sets RLIMIT_CORE 0, RLIMIT_FSIZE 0 and RLIMIT_NOFILE 64;
 *   - compiles an empty program once, so that NVRTC has loaded every
 *     library it loads lazily (libnvrtc-builtins, the C++ runtime) while
 *     it may still open them;
 *   - enters the sandbox (sandbox.c: read access beneath the include
 *     directories only) and sets RLIMIT_DATA (the memory limit: data,
 *     not address space, which the CUDA driver NVRTC loads reserves by the
 *     hundred GiB);
 *   - says hello with the sandbox level, then answers compile requests
 *     one at a time until its socket closes, each under an RLIMIT_CPU
 *     soft limit a little past the request's deadline.
 * The parent keeps idle children in a pool, gives each request a deadline
 * and kills a child that misses it (compile_timeout) or reads a child that
 * died mid-request as one that ran out of its limits (compile_resources).
 * Only the parent touches the on-disk cache (nvrtc.c).
 *
 * Wire format (native byte order, one machine): request "KRLQ", u32 cpu
 * seconds, u32 nopt, nopt x (u32 len, bytes), u32 name len, name, u64 src
 * len, src; answer "KRLR", u32 status, u64 log len, log, u64 cubin len,
 * cubin; hello "KRLH", u32 level, u32 len, text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nvrtc.h>

#include "runtime/child.h"
#include "runtime/compiler.h"
#include "util/clock.h"
#include "util/strbuf.h"

extern char **environ;

#define MAGIC_REQ 0x51524c4bu   /* "KRLQ" */
#define MAGIC_REP 0x52524c4bu   /* "KRLR" */
#define MAGIC_HELLO 0x48524c4bu /* "KRLH" */
#define MAX_SRC ((uint64_t)256 << 20)
#define MAX_LOG ((uint64_t)1 << 20)    /* the child cuts longer logs */
#define MAX_CUBIN ((uint64_t)1 << 30)
#define MAX_OPTS 64
#define MAX_OPT_LEN 8192
#define MAX_IDLE 64

enum { ST_OK, ST_COMPILE, ST_API, ST_NOMEM };

static const krl_pos nopos = {0};

/* ==== Byte I/O ==== */

/* Moves n bytes over fd (writing when wr), waiting at most until deadline
 * (a CLOCK_MONOTONIC time in seconds; <= 0: forever). Returns 0, or -1
 * with errno (ETIMEDOUT past the deadline, EPIPE when the peer is gone). */
static int xfer(int fd, void *buf, size_t n, int wr, double deadline)
{
	char *p = buf;
	while (n > 0) {
		if (deadline > 0) {
			double left = deadline - krl_now_s();
			if (left <= 0) {
				errno = ETIMEDOUT;
				return -1;
			}
			struct pollfd pf = {fd, (short)(wr ? POLLOUT : POLLIN), 0};
			/* at most ~11 days per wait: a huge deadline cannot
			 * overflow poll's int milliseconds */
			int pr = poll(&pf, 1, left > 1e6 ? 1000000000
			                                  : (int)ceil(left * 1e3));
			if (pr < 0 && errno == EINTR)
				continue;
			if (pr < 0)
				return -1;
			if (pr == 0) {
				errno = ETIMEDOUT;
				return -1;
			}
		}
		ssize_t k = wr ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k < 0)
			return -1;
		if (k == 0) {
			errno = EPIPE;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int put_u32(int fd, uint32_t v, double dl)
{
	return xfer(fd, &v, sizeof v, 1, dl);
}

static int put_u64(int fd, uint64_t v, double dl)
{
	return xfer(fd, &v, sizeof v, 1, dl);
}

static int get_u32(int fd, uint32_t *v, double dl)
{
	return xfer(fd, v, sizeof *v, 0, dl);
}

static int get_u64(int fd, uint64_t *v, double dl)
{
	return xfer(fd, v, sizeof *v, 0, dl);
}

/* ==== The child ==== */

/* Reads a u32-length-prefixed string (at most cap bytes) into malloc'd
 * memory, NUL-terminated. */
static char *get_str(int fd, uint32_t cap)
{
	uint32_t n;
	if (get_u32(fd, &n, 0) != 0 || n > cap)
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (!s || xfer(fd, s, n, 0, 0) != 0) {
		free(s);
		return NULL;
	}
	s[n] = 0;
	return s;
}

static int reply(int fd, uint32_t status, const char *log, size_t loglen,
                 const void *cubin, size_t size)
{
	if (loglen > MAX_LOG)
		loglen = MAX_LOG;
	return put_u32(fd, MAGIC_REP, 0) || put_u32(fd, status, 0) ||
	       put_u64(fd, loglen, 0) || xfer(fd, (void *)log, loglen, 1, 0) ||
	       put_u64(fd, size, 0) || xfer(fd, (void *)cubin, size, 1, 0);
}

/* One request: compile and answer. Returns 0, or -1 when the socket is
 * gone or the request is malformed (the child then exits). */
static int serve(int fd)
{
	uint32_t magic, cpu_s, nopt;
	char *opts[MAX_OPTS] = {0}, *name = NULL, *src = NULL, *log = NULL;
	void *cubin = NULL;
	uint64_t len = 0;
	int rc = -1;
	nvrtcProgram prog = NULL;
	if (get_u32(fd, &magic, 0) != 0 || magic != MAGIC_REQ ||
	    get_u32(fd, &cpu_s, 0) != 0 || get_u32(fd, &nopt, 0) != 0 ||
	    nopt > MAX_OPTS)
		return -1;
	for (uint32_t i = 0; i < nopt; i++)
		if (!(opts[i] = get_str(fd, MAX_OPT_LEN)))
			goto out;
	if (!(name = get_str(fd, 4096)) || get_u64(fd, &len, 0) != 0 ||
	    len > MAX_SRC || !(src = malloc(len + 1)) ||
	    xfer(fd, src, len, 0, 0) != 0)
		goto out;
	src[len] = 0;

	/* CPU time: a little past the deadline the parent enforces, so a
	 * compiler the parent cannot kill in time still stops. */
	struct rusage ru;
	struct rlimit rl;
	getrusage(RUSAGE_SELF, &ru);
	if (getrlimit(RLIMIT_CPU, &rl) == 0) {
		rlim_t want = (rlim_t)ru.ru_utime.tv_sec + (rlim_t)ru.ru_stime.tv_sec +
		              cpu_s + 2;
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || want < rl.rlim_max
		                      ? want
		                      : rl.rlim_max;
		setrlimit(RLIMIT_CPU, &rl);
	}

	uint32_t st = ST_OK;
	size_t logsize = 0, size = 0;
	nvrtcResult r = nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL);
	if (r == NVRTC_SUCCESS)
		r = nvrtcCompileProgram(prog, (int)nopt, (const char *const *)opts);
	if (prog && nvrtcGetProgramLogSize(prog, &logsize) == NVRTC_SUCCESS &&
	    (log = malloc(logsize + 1))) {
		log[0] = 0;
		if (logsize > 0 && nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS)
			logsize = 0;
		log[logsize] = 0;
		logsize = strlen(log);
	}
	if (r == NVRTC_SUCCESS && nvrtcGetCUBINSize(prog, &size) == NVRTC_SUCCESS &&
	    size > 0 && size <= MAX_CUBIN && (cubin = malloc(size)) &&
	    nvrtcGetCUBIN(prog, cubin) == NVRTC_SUCCESS) {
		rc = reply(fd, ST_OK, log ? log : "", logsize, cubin, size);
		goto out;
	}
	if (r == NVRTC_ERROR_COMPILATION) {
		/* The front end reports running out of memory (the memory
		 * limit) as a compile error of its own. */
		st = log && strstr(log, "catastrophic error: out of memory")
		             ? ST_NOMEM
		             : ST_COMPILE;
		/* A failed compilation that names no error is the back end
		 * failing for want of memory (seen with the limit a few
		 * hundred MiB short), not the candidate's code. */
		if (st == ST_COMPILE && (!log || !strstr(log, "error")))
			st = ST_NOMEM;
	} else {
		char why[256];
		st = r == NVRTC_ERROR_OUT_OF_MEMORY || (r == NVRTC_SUCCESS && !cubin)
		             ? ST_NOMEM
		             : ST_API;
		snprintf(why, sizeof why, "NVRTC: %s%s",
		         r == NVRTC_SUCCESS ? "the cubin could not be read back"
		                            : nvrtcGetErrorString(r),
		         size > MAX_CUBIN ? " (larger than 1 GiB)" : "");
		free(log);
		log = strdup(why);
		logsize = log ? strlen(log) : 0;
	}
	rc = reply(fd, st, log ? log : "", logsize, NULL, 0);
out:
	if (prog)
		nvrtcDestroyProgram(&prog);
	for (uint32_t i = 0; i < nopt && i < MAX_OPTS; i++)
		free(opts[i]);
	free(name);
	free(src);
	free(log);
	free(cubin);
	return rc;
}

static void set_limit(int what, rlim_t v)
{
	struct rlimit rl = {v, v};
	struct rlimit old;
	if (getrlimit(what, &old) == 0 && old.rlim_max != RLIM_INFINITY &&
	    old.rlim_max < v)
		rl.rlim_cur = rl.rlim_max = old.rlim_max;
	setrlimit(what, &rl);
}

/* The child's life: set up, warm up, sandbox, hello, serve. Never
 * returns. */
static void child_main(void)
{
	const int fd = 0;
	char how[600];
	const char *dirs[16];
	int ndirs = 0;
	char *dirlist = getenv("KRL_COMPILER_DIRS");
	const char *mem = getenv("KRL_COMPILER_MEM");
	/* Nothing but the socket (fd 0, duplicated on 1) stays open. */
	krl_child_close_from(3);
	if (chdir("/") != 0)
		_exit(2);
	set_limit(RLIMIT_CORE, 0);
	set_limit(RLIMIT_FSIZE, 0);
	set_limit(RLIMIT_NOFILE, 64);
	signal(SIGPIPE, SIG_DFL);
	for (char *p = dirlist ? strdup(dirlist) : NULL, *tok;
	     p && (tok = strsep(&p, ":")) && ndirs < 16;)
		if (*tok)
			dirs[ndirs++] = tok;

	/* Load what NVRTC loads lazily, while files may still be opened. */
	nvrtcProgram warm = NULL;
	if (nvrtcCreateProgram(&warm, "", "warmup.cu", 0, NULL, NULL) ==
	    NVRTC_SUCCESS) {
		const char *o[] = {"-std=c++17"};
		nvrtcCompileProgram(warm, 1, o);
		nvrtcDestroyProgram(&warm);
	}

	/* What the warm process maps and holds, for the record (read before
	 * the sandbox closes /proc). */
	char mapped[96] = "";
	{
		FILE *f = fopen("/proc/self/status", "r");
		char line[128];
		long vm = -1, data = -1;
		while (f && fgets(line, sizeof line, f)) {
			if (!strncmp(line, "VmSize:", 7))
				vm = atol(line + 7);
			else if (!strncmp(line, "VmData:", 7))
				data = atol(line + 7);
		}
		if (f)
			fclose(f);
		if (vm >= 0 && data >= 0)
			snprintf(mapped, sizeof mapped,
			         "; warm: %ld MiB mapped, %ld MiB data", vm >> 10,
			         data >> 10);
	}
	krl_sandbox_level level = krl_sandbox_enter(dirs, ndirs, how, sizeof how);
	strncat(how, mapped, sizeof how - strlen(how) - 1);
#if defined(__SANITIZE_ADDRESS__)
	/* The sanitizer's shadow memory is data that already exceeds any
	 * limit a compile could live with. */
	(void)mem;
	strncat(how, "; no memory limit (sanitizer build)",
	        sizeof how - strlen(how) - 1);
#else
	/* The memory limit is on data (private writable mappings: the heap,
	 * anonymous memory), not on address space: where NVRTC loads the
	 * CUDA driver (the GPU machine), the driver reserves address space by
	 * the hundred GiB, inaccessible and never backed. */
	if (mem && *mem)
		set_limit(RLIMIT_DATA, (rlim_t)strtoull(mem, NULL, 10));
#endif
	uint32_t n = (uint32_t)strlen(how);
	if (put_u32(fd, MAGIC_HELLO, 0) || put_u32(fd, (uint32_t)level, 0) ||
	    put_u32(fd, n, 0) || xfer(fd, how, n, 1, 0))
		_exit(1);
	while (serve(fd) == 0)
		;
	_exit(0);
}

__attribute__((constructor)) static void compiler_child_entry(void)
{
	const char *v = getenv("KRL_COMPILER_CHILD");
	if (v && !strcmp(v, "1"))
		child_main();
}

/* ==== The parent: a pool of children ==== */

typedef struct worker {
	struct worker *next;
	pid_t pid;
	int fd;
	size_t mem;              /* the RLIMIT_DATA it was started with */
	char dirs[4096];         /* the include directories it may read */
	krl_sandbox_level level;
	char how[600];
} worker;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static worker *g_idle;
static int g_nidle;
static char g_how[600]; /* the sandbox of the last child started */

/* Kills and reaps w, and frees it. */
static void worker_kill(worker *w)
{
	if (!w)
		return;
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}

/* The environment of a child: its marker, its limits and directories,
 * and only what the dynamic loader and the sanitizers need from ours
 * (no API keys, no proxies). */
static char **child_env(const char *dirs, size_t mem)
{
	static const char *const keep[] = {"LD_LIBRARY_PATH", "KRL_SANDBOX",
	                                   "ASAN_OPTIONS", "UBSAN_OPTIONS",
	                                   "LSAN_OPTIONS"};
	int n = 0, cap = 8 + (int)(sizeof keep / sizeof keep[0]);
	char **env = calloc((size_t)cap, sizeof *env);
	if (!env)
		return NULL;
	if (asprintf(&env[n++], "KRL_COMPILER_CHILD=1") < 0 ||
	    asprintf(&env[n++], "KRL_COMPILER_DIRS=%s", dirs) < 0 ||
	    asprintf(&env[n++], "KRL_COMPILER_MEM=%zu", mem) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
		const char *v = getenv(keep[i]);
		if (v && asprintf(&env[n++], "%s=%s", keep[i], v) < 0)
			goto fail;
	}
	return env;
fail:
	for (int i = 0; i < cap; i++)
		free(env[i]);
	free(env);
	return NULL;
}

static void free_env(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

/* Starts a child and waits for its hello. */
static krl_err worker_start(const char *dirs, size_t mem, worker **out,
                            krl_diag *d)
{
	int sv[2] = {-1, -1};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, deflt;
	char **env = NULL;
	krl_err r = KRL_OK;
	worker *w = calloc(1, sizeof *w);
	*out = NULL;
	if (!w)
		return krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
	w->pid = -1;
	w->fd = -1;
	w->mem = mem;
	snprintf(w->dirs, sizeof w->dirs, "%s", dirs);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		free(w);
		return krl_diag_set(d, KRL_EIO, nopos,
		                    "compiler process: socketpair: %s",
		                    strerror(errno));
	}
	if (!(env = child_env(dirs, mem))) {
		r = krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigfillset(&deflt);
	sigdelset(&deflt, SIGKILL);
	sigdelset(&deflt, SIGSTOP);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &deflt);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
	                                        POSIX_SPAWN_SETSIGDEF);
	char *argv[] = {"krl-compiler", NULL};
	int e = posix_spawn(&w->pid, "/proc/self/exe", &fa, &attr, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (e != 0) {
		w->pid = -1;
		r = krl_diag_set(d, KRL_EIO, nopos,
		                 "cannot start a compiler process from "
		                 "/proc/self/exe: %s", strerror(e));
		goto out;
	}
	close(sv[1]);
	sv[1] = -1;
	w->fd = sv[0];
	sv[0] = -1;
	/* The hello comes after NVRTC's warm-up compile: seconds at most. */
	uint32_t magic = 0, level = 0, n = 0;
	double dl = krl_now_s() + 120;
	if (get_u32(w->fd, &magic, dl) != 0 || magic != MAGIC_HELLO ||
	    get_u32(w->fd, &level, dl) != 0 || get_u32(w->fd, &n, dl) != 0 ||
	    n >= sizeof w->how || xfer(w->fd, w->how, n, 0, dl) != 0) {
		char how[128];
		krl_child_reap(w->pid, 100, how, sizeof how);
		w->pid = -1;
		r = krl_diag_set(d, KRL_EIO, nopos,
		                 "the compiler process did not start (%s)", how);
		goto out;
	}
	w->how[n] = 0;
	w->level = (krl_sandbox_level)level;
	pthread_mutex_lock(&g_lock);
	snprintf(g_how, sizeof g_how, "%s", w->how);
	pthread_mutex_unlock(&g_lock);
out:
	free_env(env);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (r != KRL_OK) {
		worker_kill(w);
		return r;
	}
	*out = w;
	return KRL_OK;
}

/* An idle child started with these limits and directories, or a new one.
 * A child that died while idle (its socket reads as closed) is reaped. */
static krl_err worker_get(const char *dirs, size_t mem, worker **out,
                          krl_diag *d)
{
	worker *w = NULL;
	pthread_mutex_lock(&g_lock);
	for (worker **pp = &g_idle; *pp; pp = &(*pp)->next) {
		if ((*pp)->mem != mem || strcmp((*pp)->dirs, dirs) != 0)
			continue;
		w = *pp;
		*pp = w->next;
		g_nidle--;
		break;
	}
	pthread_mutex_unlock(&g_lock);
	if (w) {
		struct pollfd pf = {w->fd, POLLIN, 0};
		if (poll(&pf, 1, 0) != 0) {
			worker_kill(w); /* idle children send nothing */
			w = NULL;
		}
	}
	if (w) {
		*out = w;
		return KRL_OK;
	}
	return worker_start(dirs, mem, out, d);
}

static void worker_put(worker *w)
{
	pthread_mutex_lock(&g_lock);
	if (g_nidle < MAX_IDLE) {
		w->next = g_idle;
		g_idle = w;
		g_nidle++;
		w = NULL;
	}
	pthread_mutex_unlock(&g_lock);
	worker_kill(w);
}

void krl_compiler_sandbox_how(char *buf, size_t cap)
{
	pthread_mutex_lock(&g_lock);
	snprintf(buf, cap, "%s", g_how);
	pthread_mutex_unlock(&g_lock);
}

void krl_compiler_shutdown(void)
{
	pthread_mutex_lock(&g_lock);
	worker *w = g_idle;
	g_idle = NULL;
	g_nidle = 0;
	pthread_mutex_unlock(&g_lock);
	while (w) {
		worker *next = w->next;
		worker_kill(w);
		w = next;
	}
}

static int send_str(int fd, const char *s, double dl)
{
	uint32_t n = (uint32_t)strlen(s);
	return put_u32(fd, n, dl) || xfer(fd, (void *)s, n, 1, dl);
}

/* Reads a u64-prefixed blob of at most cap bytes into malloc'd memory
 * (NUL-terminated). */
static int get_blob(int fd, uint64_t cap, char **out, size_t *len, double dl)
{
	uint64_t n;
	*out = NULL;
	if (get_u64(fd, &n, dl) != 0)
		return -1;
	if (n > cap) {
		errno = EMSGSIZE;
		return -1;
	}
	char *b = malloc(n + 1);
	if (!b)
		return -1;
	if (xfer(fd, b, n, 0, dl) != 0) {
		free(b);
		return -1;
	}
	b[n] = 0;
	*out = b;
	*len = n;
	return 0;
}

static krl_err fail_log(krl_cubin *c, const char *reason, krl_diag *d,
                        const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static krl_err fail_log(krl_cubin *c, const char *reason, krl_diag *d,
                        const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(c->log);
	c->log = krl_vfmt(fmt, ap); /* the log is data: whole */
	va_end(ap);
	c->reason = reason;
	if (!c->log)
		return krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
	krl_diag_set(d, KRL_ECOMPILE, nopos, "%s", c->log);
	return KRL_ECOMPILE;
}

krl_err krl_compiler_run(const char *src, size_t len, const char *name,
                         const char *const *opts, int nopt,
                         const char *const *dirs, int ndirs,
                         const krl_compile_limits *lim, krl_cubin *c,
                         krl_diag *d)
{
	char dirlist[4096] = "";
	worker *w = NULL;
	krl_err r;
	double timeout = lim && lim->timeout_s > 0 ? lim->timeout_s : 30;
	size_t mem = lim && lim->mem_bytes ? lim->mem_bytes : (size_t)4 << 30;
	/* the sandbox's readable folders: a cut list would drop one */
	for (size_t i = 0, k = 0; i < (size_t)ndirs; i++) {
		int n = snprintf(dirlist + k, sizeof dirlist - k, "%s%s",
		                 i ? ":" : "", dirs[i]);
		if (n < 0 || (size_t)n >= sizeof dirlist - k)
			return krl_diag_set(d, KRL_EINVAL, nopos, "%s: the include "
			                    "folders, joined, are longer than the "
			                    "compiler process takes (%zu bytes)",
			                    name, sizeof dirlist - 1);
		k += (size_t)n;
	}
	if (len > MAX_SRC)
		return fail_log(c, "compile_resources", d,
		                "%s: the source is %zu bytes, more than the "
		                "compiler takes (%llu)", name, len,
		                (unsigned long long)MAX_SRC);
	if ((r = worker_get(dirlist, mem, &w, d)) != KRL_OK)
		return r;
	c->sandbox = w->level == KRL_SANDBOX_LANDLOCK    ? "landlock"
	             : w->level == KRL_SANDBOX_NAMESPACE ? "namespace"
	                                                 : "none";
	double t0 = krl_now_s(), dl = t0 + timeout;
	uint32_t cpu = timeout > 1e6 ? 1000000u : (uint32_t)ceil(timeout);
	int bad = put_u32(w->fd, MAGIC_REQ, dl) || put_u32(w->fd, cpu, dl) ||
	          put_u32(w->fd, (uint32_t)nopt, dl);
	for (int i = 0; i < nopt && !bad; i++)
		bad = send_str(w->fd, opts[i], dl);
	bad = bad || send_str(w->fd, name, dl) || put_u64(w->fd, len, dl) ||
	      xfer(w->fd, (void *)src, len, 1, dl);
	uint32_t magic = 0, st = 0;
	char *log = NULL, *cubin = NULL;
	size_t loglen = 0, size = 0;
	bad = bad || get_u32(w->fd, &magic, dl) || magic != MAGIC_REP ||
	      get_u32(w->fd, &st, dl) ||
	      get_blob(w->fd, MAX_LOG, &log, &loglen, dl) ||
	      get_blob(w->fd, MAX_CUBIN, &cubin, &size, dl);
	if (bad) {
		int timed_out = errno == ETIMEDOUT, sig = 0;
		char how[160];
		free(log);
		free(cubin);
		if (timed_out) {
			worker_kill(w);
			return fail_log(c, "compile_timeout", d,
			                "%s: compilation did not finish within "
			                "%.1f s (--compile-timeout); the compiler "
			                "was stopped", name, timeout);
		}
		/* a child that closed its socket is exiting: a moment's grace */
		sig = krl_child_reap(w->pid, 100, how, sizeof how);
		w->pid = -1;
		worker_kill(w);
		if (sig == SIGXCPU)
			return fail_log(c, "compile_timeout", d,
			                "%s: compilation used up its CPU time "
			                "(%.1f s, --compile-timeout); the compiler "
			                "was %s", name, timeout, how);
		return fail_log(c, "compile_resources", d,
		                "%s: the compiler process %s while compiling "
		                "this candidate: it ran out of its memory "
		                "limit (%zu MiB, --compile-memory) or crashed",
		                name, how, mem >> 20);
	}
	worker_put(w);
	c->log = log;
	if (st == ST_OK && size > 0) {
		c->data = cubin;
		c->size = size;
		return KRL_OK;
	}
	free(cubin);
	if (st == ST_NOMEM)
		/* fail_log replaces NVRTC's words, which quote what it was
		 * compiling when memory ran out */
		return fail_log(c, "compile_resources", d,
		                "%s: the compiler ran out of memory (limit %zu "
		                "MiB, --compile-memory)", name, mem >> 20);
	if (st == ST_API)
		krl_diag_set(d, KRL_ECOMPILE, nopos, "%s: %s", name, log ? log : "");
	return KRL_ECOMPILE; /* NVRTC's verdict; the log says why */
}
