/* Child processes: reaping and descriptor hygiene (runtime/child.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/child.h"

int krl_child_reap(pid_t pid, int grace_ms, char *buf, size_t cap)
{
	int st = 0;
	pid_t got = 0;
	for (int waited = 0; got == 0 && waited < grace_ms; waited += 2) {
		got = waitpid(pid, &st, WNOHANG);
		if (got == 0) {
			struct timespec ts = {0, 2 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
	if (got == 0) {
		kill(pid, SIGKILL);
		while ((got = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
			;
	}
	if (got > 0 && WIFSIGNALED(st)) {
		snprintf(buf, cap, "killed by signal %d (%s)", WTERMSIG(st),
		         strsignal(WTERMSIG(st)));
		return WTERMSIG(st);
	}
	if (got > 0 && WIFEXITED(st))
		snprintf(buf, cap, "exited with status %d", WEXITSTATUS(st));
	else
		snprintf(buf, cap, "ended");
	return 0;
}

void krl_child_close_from(int lowfd)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lowfd, ~0u, 0u) == 0)
		return;
#endif
	for (int f = lowfd; f < 4096; f++)
		close(f);
}
