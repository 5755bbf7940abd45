/* The judge's command-line options, shared by krl eval, batch and optimize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/strbuf.h"

const char krl_cli_judge_usage[] =
	"judge options:\n"
	"  --shapes A[,B...]  shape sets checked (default kb1); timing uses the last\n"
	"  --time-shapes S    shape set to time on (default: the last of --shapes)\n"
	"  --seeds N          correctness seeds per shape set (default 5, minimum 5)\n"
	"  --hidden N         hidden shape sets drawn at random from the task's tiny\n"
	"                     set for each evaluation, checked too (default 1; 0: none)\n"
	"  --no-timing        check correctness only\n"
	"  --timing MODE      how timed calls run, the same for candidate and\n"
	"                     reference: stream (the plan enqueued op by op),\n"
	"                     graph (each side's plan captured once in a CUDA\n"
	"                     graph and replayed; fresh inputs and an L2 flush\n"
	"                     before every replay, as in stream mode), or auto\n"
	"                     (default: graph for level-3 tasks, stream for the\n"
	"                     others)\n"
	"  --budget SECONDS   timing budget per evaluation (default 20)\n"
	"  --rse X            stop timing when both relative standard errors <= X (0.01)\n"
	"  --min-pairs N      at least N timed pairs (default 20)\n"
	"  --timeout SECONDS  a candidate call taking longer is a hang (default 10)\n"
	"  --compile-timeout SECONDS\n"
	"                     a compilation taking longer is a compile_error\n"
	"                     (compile_timeout; default 30)\n"
	"  --compile-memory MIB\n"
	"                     memory limit of the compiler process (its data)\n"
	"                     (compile_resources past it; default 4096, at\n"
	"                     least 256)\n"
	"  --no-stress        skip the stress draws (scaled, offset and spiked\n"
	"                     inputs) that catch numerically unstable candidates\n"
	"  --seed N           make the judge's draws reproducible (and so\n"
	"                     predictable: for debugging only; default: every\n"
	"                     seed and choice from getrandom)\n"
	"  --device N         CUDA device ordinal (default 0)\n";

int krl_cli_shape_list(const char *cmd, const char *v, char *buf, size_t cap,
                       const char **sets, int max)
{
	krl_diag d = {0};
	int n = 0;
	if (krl_fmt_fixed(buf, cap, "the --shapes list", &d, "%s", v) != KRL_OK) {
		fprintf(stderr, "%s: %s\n", cmd, d.msg);
		return -1;
	}
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		if (n == max) {
			fprintf(stderr, "%s: too many shape sets (at most %d)\n", cmd,
			        max);
			return -1;
		}
		sets[n++] = tok;
	}
	return n;
}

int krl_cli_judge_option(const char *s, const char *v, krl_judge_opts *o,
                         char *sets_buf, size_t cap)
{
	static const char *const valued[] = {
		"--shapes", "--time-shapes", "--seeds", "--hidden", "--budget",
		"--rse", "--min-pairs", "--timeout", "--seed", "--device",
		"--compile-timeout", "--compile-memory", "--timing"};
	int is_valued = 0;
	if (!strcmp(s, "--no-timing")) {
		o->no_timing = 1;
		return 1;
	}
	if (!strcmp(s, "--no-stress")) {
		o->no_stress = 1;
		return 1;
	}
	for (size_t i = 0; i < sizeof valued / sizeof *valued; i++)
		is_valued |= !strcmp(s, valued[i]);
	if (!is_valued)
		return 0;
	if (!v) {
		fprintf(stderr, "krl: %s needs a value\n", s);
		return -1;
	}
	if (!strcmp(s, "--shapes")) {
		int n = krl_cli_shape_list("krl", v, sets_buf, cap, o->sets,
		                           KRL_JUDGE_MAX_SETS / 2);
		if (n < 0)
			return -1;
		o->nsets = n;
	} else if (!strcmp(s, "--timing")) {
		if (krl_timing_parse(v, &o->timing) != 0) {
			fprintf(stderr, "krl: --timing needs stream, graph or auto, "
			        "got '%s'\n", v);
			return -1;
		}
	} else if (!strcmp(s, "--time-shapes")) {
		o->time_set = v;
	} else if (!strcmp(s, "--seeds")) {
		o->seeds = atoi(v);
	} else if (!strcmp(s, "--hidden")) {
		int h = atoi(v);
		o->hidden = h > 0 ? h : -1;
	} else if (!strcmp(s, "--budget")) {
		o->time_budget_s = atof(v);
	} else if (!strcmp(s, "--rse")) {
		o->rse_target = atof(v);
	} else if (!strcmp(s, "--min-pairs")) {
		o->min_pairs = atoi(v);
	} else if (!strcmp(s, "--timeout")) {
		o->call_timeout_s = atof(v);
	} else if (!strcmp(s, "--seed")) {
		o->seed = strtoull(v, NULL, 0);
	} else if (!strcmp(s, "--device")) {
		o->device = atoi(v);
	} else if (!strcmp(s, "--compile-timeout")) {
		o->compile_timeout_s = atof(v);
		if (!(o->compile_timeout_s > 0)) {
			fprintf(stderr, "krl: --compile-timeout needs a number of "
			        "seconds above 0, got '%s'\n", v);
			return -1;
		}
	} else if (!strcmp(s, "--compile-memory")) {
		o->compile_memory_mib = strtoull(v, NULL, 10);
		if (o->compile_memory_mib < 256) {
			fprintf(stderr, "krl: --compile-memory needs at least "
			        "256 (MiB: NVRTC's own compiles take a hundred or "
			        "more), got '%s'\n", v);
			return -1;
		}
	}
	return 2;
}
