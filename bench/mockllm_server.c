/*
 * bench/mockllm_server FIXTURE.json: serves recorded chat completions
 * (tests/common/mockllm.c) on 127.0.0.1 until SIGINT/SIGTERM, printing its
 * base URL on the first line of stdout. Used by bench/optimize_llm.sh to
 * drive `krl optimize --policy llm` on the GPU machine without a model.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "mockllm.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	char err[512] = "";
	if (argc != 2) {
		fprintf(stderr, "usage: mockllm_server FIXTURE.json\n");
		return 2;
	}
	mockllm *m = mockllm_start_file(argv[1], err, sizeof err);
	if (!m) {
		fprintf(stderr, "mockllm_server: %s\n", err);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("%s\n", mockllm_url(m));
	fflush(stdout);
	while (!stop)
		pause();
	fprintf(stderr, "mockllm_server: %d requests served\n",
	        mockllm_requests(m));
	mockllm_stop(m);
	return 0;
}
