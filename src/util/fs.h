/*
 * Folders on the host file system. Private to libkrl.
 */
#ifndef KRL_UTIL_FS_H
#define KRL_UTIL_FS_H

/* mkdir -p: creates path and the folders above it that are missing (mode
 * 0755; existing ones are fine). Returns 0, or -1 with errno set
 * (ENAMETOOLONG when path is PATH_MAX bytes or more: it is never cut). */
int krl_mkdirs(const char *path);

#endif
