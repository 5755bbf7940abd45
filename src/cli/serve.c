/* krl serve: the judge as an HTTP service for RL trainers (docs/serve.md). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "krl/service.h"

static const char serve_usage[] =
	"usage: krl serve [options]\n"
	"\n"
	"Serves the judge over HTTP until SIGINT or SIGTERM (docs/serve.md):\n"
	"  POST /v1/evaluate   {task | task_text, candidate, shapes?, seed?,\n"
	"                      timeout_s?} -> the verdict record (krl eval --json)\n"
	"  POST /reward        OpenRLHF's remote reward model: {query: [...],\n"
	"                      prompts?: [...], labels?: [task ids], task?} ->\n"
	"                      {rewards: [...], scores, verdicts, ...}\n"
	"                      (also at /get_reward)\n"
	"  GET  /healthz       liveness, no token needed\n"
	"  GET  /metrics       Prometheus text\n"
	"One judge worker per visible GPU; every evaluation is stored as krl\n"
	"optimize stores them (one run per start). On a signal it stops\n"
	"accepting, finishes or records the requests it holds, and exits.\n"
	"\n"
	"options:\n"
	"  --host ADDR         address to listen on (default 127.0.0.1); any other\n"
	"                      than a loopback address needs a token\n"
	"  --port N            port (default 8750; 0: any free port)\n"
	"  --token T           bearer token every endpoint but /healthz asks for\n"
	"                      (default $KRL_SERVE_TOKEN)\n"
	"  --queue N           jobs that may wait for a worker; past it 429 with\n"
	"                      Retry-After (default 64)\n"
	"  --max-body BYTES    request body limit, 413 past it (default 4194304)\n"
	"  --request-timeout S a request unanswered after S seconds gets 504 and\n"
	"                      its evaluation is stored as a timeout (default 600)\n"
	"  --workers N         judge workers on devices --device .. --device+N-1\n"
	"                      (default: every visible GPU from --device on)\n"
	"  --db PATH           the store (default krl.db)\n"
	"  --work-dir DIR      where candidate files are written (default\n"
	"                      krl-candidates)\n"
	"  --reward normalized|raw\n"
	"                      the reward /reward answers: the normalised, clipped\n"
	"                      reward krl optimize stores (default), or the raw\n"
	"                      one (speedup - 1, or -1 for a failure)\n"
	"  --verbose           one line per request on stderr\n"
	"\n";

/* The run's config: what a reader of the store needs to know. */
static char *run_config(const krl_judge_opts *o, const char *host, int port,
                        int workers, int raw)
{
	json_t *sets = json_array();
	for (int i = 0; i < o->nsets; i++)
		json_array_append_new(sets, json_string(o->sets[i]));
	json_t *c = json_pack(
		"{s:s, s:s, s:i, s:i, s:o, s:s?, s:i, s:i, s:f, s:f, s:b, s:b, s:s}",
		"command", "serve", "host", host, "port", port, "workers", workers,
		"shapes", sets, "time_shapes", o->time_set, "seeds", o->seeds,
		"hidden", o->hidden, "budget_s", o->time_budget_s, "timeout_s",
		o->call_timeout_s, "no_timing", o->no_timing, "no_stress",
		o->no_stress, "reward", raw ? "raw" : "normalized");
	char *z = c ? json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(c);
	return z;
}

int krl_cmd_serve(int argc, char **argv)
{
	krl_service_opts so;
	krl_judge_opts jo;
	char sets_buf[512];
	int workers = 0;
	memset(&so, 0, sizeof so);
	memset(&jo, 0, sizeof jo);
	so.port = 8750;
	so.token = getenv("KRL_SERVE_TOKEN");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int used;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(serve_usage, stdout);
			fputs(krl_cli_judge_usage, stdout);
			return KRL_EXIT_OK;
		} else if (!strcmp(a, "--verbose")) {
			so.verbose = 1;
			continue;
		} else if ((used = krl_cli_judge_option(a, v, &jo, sets_buf,
		                                        sizeof sets_buf)) < 0) {
			return KRL_EXIT_USAGE;
		} else if (used > 0) {
			i += used - 1;
			continue;
		}
		static const char *const valued[] = {
			"--host", "--port", "--token", "--queue", "--max-body",
			"--request-timeout", "--workers", "--db", "--store",
			"--work-dir", "--reward"};
		int known = 0;
		for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
			known |= !strcmp(a, valued[k]);
		if (!known) {
			fprintf(stderr, "krl serve: unknown %s '%s' (see krl serve "
			        "--help)\n", a[0] == '-' ? "option" : "argument", a);
			return KRL_EXIT_USAGE;
		}
		if (!v) {
			fprintf(stderr, "krl serve: %s needs a value\n", a);
			return KRL_EXIT_USAGE;
		}
		i++;
		char *end = NULL;
		if (!strcmp(a, "--host")) {
			so.host = v;
		} else if (!strcmp(a, "--port")) {
			long p = strtol(v, &end, 10);
			if (*end || p < 0 || p > 65535) {
				fprintf(stderr, "krl serve: --port needs 0..65535, got "
				        "'%s'\n", v);
				return KRL_EXIT_USAGE;
			}
			so.port = (int)p;
		} else if (!strcmp(a, "--token")) {
			so.token = v;
		} else if (!strcmp(a, "--queue") || !strcmp(a, "--workers")) {
			long n = strtol(v, &end, 10);
			if (*end || n < 1 || n > 100000) {
				fprintf(stderr, "krl serve: %s needs a count >= 1, got "
				        "'%s'\n", a, v);
				return KRL_EXIT_USAGE;
			}
			*(!strcmp(a, "--queue") ? &so.queue : &workers) = (int)n;
		} else if (!strcmp(a, "--max-body")) {
			unsigned long long n = strtoull(v, &end, 10);
			if (*end || n < 1024) {
				fprintf(stderr, "krl serve: --max-body needs bytes >= "
				        "1024, got '%s'\n", v);
				return KRL_EXIT_USAGE;
			}
			so.max_body = (size_t)n;
		} else if (!strcmp(a, "--request-timeout")) {
			so.request_timeout_s = strtod(v, &end);
			if (*end || !(so.request_timeout_s > 0)) {
				fprintf(stderr, "krl serve: --request-timeout needs "
				        "seconds above 0, got '%s'\n", v);
				return KRL_EXIT_USAGE;
			}
		} else if (!strcmp(a, "--db") || !strcmp(a, "--store")) {
			so.db = v;
		} else if (!strcmp(a, "--work-dir")) {
			so.work_dir = v;
		} else if (!strcmp(a, "--reward")) {
			if (strcmp(v, "raw") && strcmp(v, "normalized")) {
				fprintf(stderr, "krl serve: --reward is normalized or "
				        "raw, got '%s'\n", v);
				return KRL_EXIT_USAGE;
			}
			so.raw_reward = !strcmp(v, "raw");
		}
	}

	krl_service_evaluator ev;
	krl_service *s = NULL;
	krl_diag d = {0};
	char buf[1200];
	int rc = KRL_EXIT_ERROR;
	if (krl_service_judge_evaluator(&jo, workers, &ev, &d) != KRL_OK) {
		fprintf(stderr, "krl serve: %s\n", krl_diag_format(&d, buf,
		                                                  sizeof buf));
		return KRL_EXIT_ERROR;
	}
	char *config = run_config(&jo, so.host ? so.host : "127.0.0.1",
	                          so.port, ev.nworkers, so.raw_reward);
	so.config = config;
	/* SIGINT and SIGTERM stay blocked in every thread, and in the
	 * judge's runner and compiler processes, which inherit the mask: the
	 * main thread takes them with sigwait. So a terminal's Ctrl-C, sent
	 * to the whole process group, cannot kill a runner in the middle of
	 * an evaluation that the graceful stop is waiting for. */
	sigset_t stop_signals;
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
	fprintf(stderr, "krl serve: starting %d judge worker%s...\n",
	        ev.nworkers, ev.nworkers == 1 ? "" : "s");
	if (krl_service_start(&so, &ev, &s, &d) != KRL_OK) {
		fprintf(stderr, "krl serve: %s\n", krl_diag_format(&d, buf,
		                                                  sizeof buf));
		goto out;
	}
	const char *host = so.host ? so.host : "127.0.0.1";
	printf("http://%s%s%s:%d\n", strchr(host, ':') ? "[" : "", host,
	       strchr(host, ':') ? "]" : "", krl_service_port(s));
	fflush(stdout);
	fprintf(stderr, "krl serve: listening (run %s, store %s%s)\n",
	        krl_service_run(s), so.db ? so.db : "krl.db",
	        so.token && *so.token ? ", bearer token required" : "");
	int sig = SIGTERM;
	if (sigwait(&stop_signals, &sig) != 0)
		sig = SIGTERM;
	fprintf(stderr, "krl serve: %s: finishing the requests in hand...\n",
	        sig == SIGINT ? "SIGINT" : "SIGTERM");
	krl_service_stop(s);
	fprintf(stderr, "krl serve: stopped\n");
	rc = KRL_EXIT_OK;
out:
	free(config);
	krl_service_judge_evaluator_free(&ev);
	return rc;
}
