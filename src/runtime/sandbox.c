/*
 * The compiler's sandbox (docs/judge.md "The compiler sandbox"): what a
 * compiler process (compiler.c) does to itself, after its libraries are
 * loaded and before it reads any candidate, so that NVRTC can open no file
 * but the CUDA toolkit's headers.
 *
 * Three levels, the first that works:
 *   landlock   Linux 5.13+ with Landlock enabled: a ruleset that handles
 *              every file-system right the kernel knows (and, from ABI 4,
 *              TCP bind/connect; from ABI 6, abstract Unix sockets and
 *              signals) and grants only read access to files and
 *              directories beneath the include directories;
 *   namespace  otherwise, a new user and mount namespace: an empty
 *              read-only tmpfs root holding read-only bind mounts of the
 *              include directories at their own paths, then chroot into it
 *              and drop every capability;
 *   none       neither is available: the include rule (srccheck.c) and the
 *              log filter (nvrtc.c) stand alone.
 * PR_SET_NO_NEW_PRIVS is set in every case.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/compiler.h"
#include "util/fs.h"

/* ==== Landlock ==== */

/* The kernel's structures, declared here so that the build does not
 * depend on how new the installed kernel headers are (the attribute grows
 * with the ABI; the kernel reads the size it is given). */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;             /* ABI 6 */
};

struct ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

#define LL_CREATE_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_READ_FILE (1ull << 2)
#define LL_FS_READ_DIR (1ull << 3)
#define LL_FS_V1 ((1ull << 13) - 1) /* execute .. make_sym */
#define LL_FS_REFER (1ull << 13)    /* ABI 2 */
#define LL_FS_TRUNCATE (1ull << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ull << 15) /* ABI 5 */
#define LL_NET_ALL 3ull             /* bind_tcp, connect_tcp (ABI 4) */
#define LL_SCOPE_ALL 3ull           /* abstract unix socket, signal (ABI 6) */

#if defined(SYS_landlock_create_ruleset) && defined(SYS_landlock_add_rule) && \
	defined(SYS_landlock_restrict_self)
#define HAVE_LANDLOCK 1
#else
#define HAVE_LANDLOCK 0
#endif

/* Enters a Landlock domain that lets the process read beneath dirs only.
 * Returns the ABI version (>= 1), or 0 with why[] set. */
static int enter_landlock(const char *const *dirs, int ndirs, char *why,
                          size_t cap)
{
#if HAVE_LANDLOCK
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	                   LL_CREATE_VERSION);
	if (abi < 1) {
		snprintf(why, cap, "Landlock unavailable: %s", strerror(errno));
		return 0;
	}
	struct ll_ruleset_attr attr = {.handled_access_fs = LL_FS_V1};
	size_t size = sizeof attr.handled_access_fs;
	if (abi >= 2)
		attr.handled_access_fs |= LL_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LL_FS_TRUNCATE;
	if (abi >= 5)
		attr.handled_access_fs |= LL_FS_IOCTL_DEV;
	if (abi >= 4) {
		attr.handled_access_net = LL_NET_ALL;
		size = offsetof(struct ll_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ALL;
		size = sizeof attr;
	}
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (rs < 0) {
		snprintf(why, cap, "landlock_create_ruleset: %s", strerror(errno));
		return 0;
	}
	for (int i = 0; i < ndirs; i++) {
		int fd = open(dirs[i], O_PATH | O_CLOEXEC | O_DIRECTORY);
		if (fd < 0)
			continue; /* a missing directory grants nothing */
		struct ll_path_beneath pb = {
			.allowed_access = LL_FS_READ_FILE | LL_FS_READ_DIR,
			.parent_fd = fd,
		};
		long r = syscall(SYS_landlock_add_rule, rs, LL_RULE_PATH_BENEATH,
		                 &pb, 0);
		int e = errno;
		close(fd);
		if (r != 0) {
			close(rs);
			snprintf(why, cap, "landlock_add_rule %s: %s", dirs[i],
			         strerror(e));
			return 0;
		}
	}
	long r = syscall(SYS_landlock_restrict_self, rs, 0);
	int e = errno;
	close(rs);
	if (r != 0) {
		snprintf(why, cap, "landlock_restrict_self: %s", strerror(e));
		return 0;
	}
	return (int)abi;
#else
	(void)dirs;
	(void)ndirs;
	snprintf(why, cap, "built without Landlock system calls");
	return 0;
#endif
}

/* ==== Mount namespace ==== */

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = (ssize_t)strlen(text);
	int ok = write(fd, text, (size_t)n) == n;
	close(fd);
	return ok ? 0 : -1;
}

/* Enters a user and mount namespace whose root is a read-only tmpfs that
 * holds read-only bind mounts of dirs. Returns 1, or 0 with why[] set
 * (the process may then be in a namespace but has not changed root). */
static int enter_namespace(const char *const *dirs, int ndirs, char *why,
                           size_t cap)
{
	static const char root[] = "/tmp";
	const char *what = NULL;
	int fds[16], ok = 0;
	char map[64], path[4200];
	uid_t uid = getuid();
	gid_t gid = getgid();
	if (ndirs > 16)
		ndirs = 16;
	for (int i = 0; i < ndirs; i++)
		fds[i] = -1;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
		what = "unshare(user, mount namespace)";
		goto out;
	}
	/* The directories are opened in the new namespace (a bind mount's
	 * source must be one of its mounts) and before the tmpfs goes over
	 * /tmp, which could hide one; a bind mount takes its source from
	 * /proc/self/fd/N. */
	for (int i = 0; i < ndirs; i++)
		fds[i] = dirs[i][0] == '/' ? open(dirs[i], O_PATH | O_CLOEXEC |
		                                                   O_DIRECTORY)
		                           : -1;
	/* Map ourselves to root of the new namespace (mounts need it). */
	snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
	if ((write_file("/proc/self/setgroups", "deny") != 0 && errno != ENOENT) ||
	    write_file("/proc/self/uid_map", map) != 0) {
		what = "uid_map";
		goto out;
	}
	snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
	if (write_file("/proc/self/gid_map", map) != 0) {
		what = "gid_map";
		goto out;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		what = "make / private";
		goto out;
	}
	/* The new root: an empty tmpfs over /tmp (only in this namespace). */
	if (mount("krl-sandbox", root, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	          "size=1m,mode=0755") != 0) {
		what = "mount tmpfs";
		goto out;
	}
	for (int i = 0; i < ndirs; i++) {
		char src[64];
		if (fds[i] < 0 || snprintf(path, sizeof path, "%s%s", root,
		                           dirs[i]) >= (int)sizeof path)
			continue;
		snprintf(src, sizeof src, "/proc/self/fd/%d", fds[i]);
		if (krl_mkdirs(path) != 0) {
			what = "mkdir in the sandbox root";
			goto out;
		}
		if (mount(src, path, NULL, MS_BIND | MS_REC, NULL) != 0 ||
		    mount(NULL, path, NULL,
		          MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV,
		          NULL) != 0) {
			what = "read-only bind mount of an include directory";
			goto out;
		}
	}
	if (mount(NULL, root, NULL,
	          MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
	          NULL) != 0) {
		what = "remount the sandbox root read-only";
		goto out;
	}
	if (chdir(root) != 0 || chroot(".") != 0 || chdir("/") != 0) {
		what = "chroot";
		goto out;
	}
	/* No capability left, in this namespace or any other. */
	for (int c = 0; c <= 63; c++)
		prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
	struct {
		uint32_t version;
		int pid;
	} hdr = {0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0};
	uint32_t data[6] = {0};
	if (syscall(SYS_capset, &hdr, data) != 0) {
		what = "capset";
		goto out;
	}
	ok = 1;
out:
	if (what)
		snprintf(why, cap, "%s: %s", what, strerror(errno));
	for (int i = 0; i < ndirs; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return ok;
}

/* ==== Entry ==== */

krl_sandbox_level krl_sandbox_enter(const char *const *dirs, int ndirs,
                                    char *how, size_t cap)
{
	char why1[256] = "", why2[256] = "";
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	const char *force = getenv("KRL_SANDBOX");
	int want_ll = !force || !*force || !strcmp(force, "landlock");
	int want_ns = !force || !*force || !strcmp(force, "namespace");
	if (force && !strcmp(force, "none")) {
		snprintf(how, cap, "none (KRL_SANDBOX=none)");
		return KRL_SANDBOX_NONE;
	}
	int abi = want_ll ? enter_landlock(dirs, ndirs, why1, sizeof why1) : 0;
	if (abi > 0) {
		snprintf(how, cap, "landlock (ABI %d)", abi);
		return KRL_SANDBOX_LANDLOCK;
	}
	if (!want_ll)
		snprintf(why1, sizeof why1, "Landlock not tried (KRL_SANDBOX=%s)",
		         force);
	if (want_ns && enter_namespace(dirs, ndirs, why2, sizeof why2)) {
		snprintf(how, cap, "namespace (%s)", why1);
		return KRL_SANDBOX_NAMESPACE;
	}
	if (!want_ns)
		snprintf(why2, sizeof why2, "namespace not tried");
	snprintf(how, cap, "none (%s; %s)", why1, why2);
	return KRL_SANDBOX_NONE;
}
