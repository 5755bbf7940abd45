/*
 * Child processes of libkrl (private): the compiler processes
 * (compiler.c) and the judge's runner (src/judge/judge.c) are reaped and
 * stripped of inherited descriptors the same way.
 */
#ifndef KRL_RUNTIME_CHILD_H
#define KRL_RUNTIME_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Waits up to grace_ms for child pid to end by itself, then kills it
 * (SIGKILL) and waits for it: the child is reaped on return. Says how it
 * ended in buf ("killed by signal 9 (Killed)", "exited with status 3",
 * "ended") and returns the signal that ended it, or 0.
 */
int krl_child_reap(pid_t pid, int grace_ms, char *buf, size_t cap);

/* Closes every descriptor from lowfd up (close_range where the kernel has
 * it). Async-signal-safe: for a forked child before exec. */
void krl_child_close_from(int lowfd);

#endif
