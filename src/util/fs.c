/*
 * Folders on the host file system (src/util/fs.h).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "util/fs.h"

int krl_mkdirs(const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);
	if (n >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (n == 0) {
		errno = ENOENT;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(buf, 0755) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	if (mkdir(buf, 0755) != 0 && errno != EEXIST)
		return -1;
	return 0;
}
