/*
 * Compiling candidates ahead of their evaluation (krl_judge_precompile):
 * NVRTC runs on the CPU cores, several programs at once, and fills the
 * judge's content-addressed cache, so that the evaluations that follow
 * find their cubin there and the GPU is not kept waiting on the compiler
 * one candidate at a time. A candidate's source is its whole file, so the
 * text given here has the same cache key as the judge's own compile of it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/judge_int.h"
#include "krl/nvrtc.h"

typedef struct pcwork {
	krl_judge *j;
	const char *const *texts;
	int n;
	atomic_int next;
	atomic_int done;
} pcwork;

static void *worker(void *arg)
{
	pcwork *w = arg;
	for (;;) {
		int i = atomic_fetch_add(&w->next, 1);
		if (i >= w->n)
			break;
		krl_cubin *c = NULL;
		krl_diag d = {0};
		/* A failure is not ours to report: the evaluation compiles
		 * again and gives the verdict with NVRTC's log. */
		if (w->texts[i] &&
		    krl_nvrtc_compile(w->texts[i], strlen(w->texts[i]),
		                      "precompile", w->j->dev.arch, w->j->cache_dir,
		                      &c, &d) == KRL_OK)
			atomic_fetch_add(&w->done, 1);
		krl_cubin_free(c);
	}
	return NULL;
}

int krl_judge_precompile(krl_judge *j, const char *const *texts, int n,
                         int threads)
{
	pcwork w = {.j = j, .texts = texts, .n = n};
	pthread_t tid[32];
	int started = 0;
	if (n <= 0)
		return 0;
	if (threads <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		threads = c > 1 ? (int)c - 1 : 1;
	}
	if (threads > n)
		threads = n;
	if (threads > 32)
		threads = 32;
	atomic_init(&w.next, 0);
	atomic_init(&w.done, 0);
	/* The calling thread works too; a thread that cannot start only
	 * means fewer compiles at once. */
	for (int i = 0; i < threads - 1; i++)
		if (pthread_create(&tid[started], NULL, worker, &w) == 0)
			started++;
	worker(&w);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return atomic_load(&w.done);
}
