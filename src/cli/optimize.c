/* krl optimize, krl export-rollouts: the contrastive RL loop and its data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "krl/judge.h"
#include "krl/optimize.h"
#include "krl/suite.h"

static const char optimize_usage[] =
	"usage: krl optimize TASK --policy llm [options]\n"
	"\n"
	"Runs CUDA-L1's contrastive loop: each round shows the model earlier\n"
	"candidates of the task with their measured speedups, asks for G new ones,\n"
	"judges each (see krl eval), stores every evaluation with its reward and,\n"
	"per round, group-relative advantages. Kill it at any moment and run the\n"
	"same command again: it resumes without losing or repeating an evaluation.\n"
	"\n"
	"options:\n"
	"  --policy P          llm (an OpenAI-compatible server); builtin is not\n"
	"                      available yet\n"
	"  --stage S           rl (default): contrastive RL, exemplars with their\n"
	"                      speedups, speedup rewards; selfsup: self-supervised\n"
	"                      rounds, no exemplars, reward 1 for a correct candidate\n"
	"  --base-url URL      chat-completions server, e.g. http://127.0.0.1:8000/v1\n"
	"                      (default $KRL_LLM_BASE_URL or $OPENAI_BASE_URL)\n"
	"  --model NAME        model name (default $KRL_LLM_MODEL)\n"
	"                      the API key comes from $KRL_LLM_API_KEY or $OPENAI_API_KEY\n"
	"  --rounds N          prompts per run (default 4)\n"
	"  --group G           proposals per prompt (default 4)\n"
	"  --exemplars N       earlier candidates shown per prompt (default 2)\n"
	"  --tau T             exemplar sampling temperature (default 1)\n"
	"  --temperature T     sampling temperature sent to the model\n"
	"  --llm-timeout S     per request (default 300); --max-in-flight N (default 8)\n"
	"  --run NAME          run name in the store (default TASK/STAGE)\n"
	"  --db PATH           the store (default krl.db)\n"
	"  --work-dir DIR      where candidate files are written (default krl-candidates)\n"
	"  --json              print the run summary as JSON\n"
	"\n";

static const char sft_usage[] =
	"usage: krl export-sft [--db PATH] [--run NAME] [--min-speedup X] [--out FILE]\n"
	"\n"
	"Writes the supervised fine-tuning set (the paper's data augmentation): one\n"
	"JSON line per distinct correct candidate (its best evaluation: task, prompt,\n"
	"completion, candidate source, speedup, policy), over one run or all runs --\n"
	"runs of several models or policies in one store make one set.\n";

static const char export_usage[] =
	"usage: krl export-rollouts [--db PATH] [--run NAME] [--out FILE]\n"
	"\n"
	"Writes every stored evaluation (all runs, or one) as JSON lines: prompt,\n"
	"completion, reward, advantage, verdict, speedup, task, run, slot; the\n"
	"format verl, OpenRLHF and TRL read (docs/rl.md).\n";

/* The final table: verdict counts and the best candidates. */
static void print_summary(const json_t *sum)
{
	const char *key;
	json_t *v;
	printf("\nrun %s (%s): %lld evaluations, %d correct%s\n",
	       json_string_value(json_object_get(sum, "run")),
	       json_string_value(json_object_get(sum, "stage")),
	       (long long)json_integer_value(json_object_get(sum, "evaluations")),
	       (int)json_integer_value(json_object_get(sum, "correct")),
	       json_is_true(json_object_get(sum, "resumed")) ? " (resumed)" : "");
	printf("  verdicts:");
	json_object_foreach(json_object_get(sum, "verdicts"), key, v)
		printf(" %s %lld", key, (long long)json_integer_value(v));
	printf("\n\n  %-8s %-24s %s\n", "slot", "speedup [95% CI]", "candidate");
	size_t i;
	json_array_foreach(json_object_get(sum, "top"), i, v) {
		char sp[64];
		snprintf(sp, sizeof sp, "%.3fx [%.3f, %.3f]",
		         json_number_value(json_object_get(v, "speedup")),
		         json_number_value(json_object_get(v, "ci_low")),
		         json_number_value(json_object_get(v, "ci_high")));
		printf("  %-8s %-24s %s\n",
		       json_string_value(json_object_get(v, "slot")), sp,
		       json_string_value(json_object_get(v, "file")));
	}
	if (!json_array_size(json_object_get(sum, "top")))
		printf("  (no correct candidate yet)\n");
	printf("\n  speedups: over kernelrl's eager reference, strict fp32, stream "
	       "timing, on the timing shape set\n");
}

int krl_cmd_optimize(int argc, char **argv)
{
	krl_judge_opts jo = {0};
	krl_optimize_opts oo = {0};
	krl_llm_opts lo = {0};
	char sets_buf[512];
	const char *ref = NULL, *policy = NULL, *db = "krl.db";
	int json = 0, rc = KRL_EXIT_ERROR;
	krl_suite *s = NULL;
	krl_task *t = NULL;
	krl_judge *j = NULL;
	krl_llm *llm = NULL;
	krl_store *st = NULL;
	json_t *sum = NULL;
	krl_diag d = {0};
	char buf[1200];
	oo.progress = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int used;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(optimize_usage, stdout);
			fputs(krl_cli_judge_usage, stdout);
			return KRL_EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			json = 1;
			continue;
		}
		used = krl_cli_judge_option(a, v, &jo, sets_buf, sizeof sets_buf);
		if (used < 0)
			return KRL_EXIT_USAGE;
		if (used > 0) {
			i += used - 1;
			continue;
		}
		if (a[0] != '-') {
			if (ref) {
				fprintf(stderr, "krl optimize: unexpected argument '%s'\n", a);
				return KRL_EXIT_USAGE;
			}
			ref = a;
			continue;
		}
		if (!v) {
			fprintf(stderr, "krl optimize: unknown option '%s' or missing value "
			                "(see krl optimize --help)\n", a);
			return KRL_EXIT_USAGE;
		}
		i++;
		if (!strcmp(a, "--policy"))
			policy = v;
		else if (!strcmp(a, "--base-url"))
			lo.base_url = v;
		else if (!strcmp(a, "--model"))
			lo.model = v;
		else if (!strcmp(a, "--rounds"))
			oo.rounds = atoi(v);
		else if (!strcmp(a, "--group"))
			oo.group = atoi(v);
		else if (!strcmp(a, "--exemplars"))
			oo.exemplars.n = atoi(v);
		else if (!strcmp(a, "--tau"))
			oo.exemplars.tau = atof(v);
		else if (!strcmp(a, "--temperature"))
			lo.temperature = atof(v);
		else if (!strcmp(a, "--llm-timeout"))
			lo.timeout_s = atof(v);
		else if (!strcmp(a, "--max-in-flight"))
			lo.max_in_flight = atoi(v);
		else if (!strcmp(a, "--run"))
			oo.run_name = v;
		else if (!strcmp(a, "--stage")) {
			if (!strcmp(v, "rl"))
				oo.stage = KRL_STAGE_RL;
			else if (!strcmp(v, "selfsup"))
				oo.stage = KRL_STAGE_SELFSUP;
			else {
				fprintf(stderr, "krl optimize: --stage is rl or selfsup, "
				                "not '%s'\n", v);
				return KRL_EXIT_USAGE;
			}
		}
		else if (!strcmp(a, "--db"))
			db = v;
		else if (!strcmp(a, "--work-dir"))
			oo.work_dir = v;
		else {
			fprintf(stderr, "krl optimize: unknown option '%s' (see krl "
			                "optimize --help)\n", a);
			return KRL_EXIT_USAGE;
		}
	}
	if (!ref) {
		fputs(optimize_usage, stderr);
		return KRL_EXIT_USAGE;
	}
	if (!policy || strcmp(policy, "llm") != 0) {
		fprintf(stderr, "krl optimize: the builtin policy is not available "
		                "yet; use --policy llm with an OpenAI-compatible "
		                "server (--base-url, --model)\n");
		return KRL_EXIT_USAGE;
	}
	oo.shapes = jo.nsets ? jo.sets[jo.nsets - 1] : "kb1";
	char policy_name[300];
	const char *model = lo.model ? lo.model : getenv("KRL_LLM_MODEL");
	snprintf(policy_name, sizeof policy_name, "llm:%s", model ? model : "?");
	oo.policy = policy_name;
	if (krl_suite_load(NULL, &s, &d) != KRL_OK ||
	    krl_suite_load_task(s, ref, &t, &d) != KRL_OK ||
	    krl_llm_create(&lo, &llm, &d) != KRL_OK ||
	    krl_store_open(db, &st, &d) != KRL_OK ||
	    krl_judge_create(&jo, &j, &d) != KRL_OK) {
		fprintf(stderr, "krl optimize: %s\n",
		        krl_diag_format(&d, buf, sizeof buf));
		goto out;
	}
	krl_evaluator ev = krl_judge_evaluator(j);
	if (krl_optimize_llm(t, llm, &ev, st, &oo, &sum, &d) != KRL_OK) {
		fprintf(stderr, "krl optimize: %s\n(run the same command again to "
		                "resume)\n", krl_diag_format(&d, buf, sizeof buf));
		goto out;
	}
	if (json) {
		char *z = json_dumps(sum, JSON_COMPACT);
		if (z)
			puts(z);
		free(z);
	} else {
		print_summary(sum);
	}
	rc = KRL_EXIT_OK;
out:
	json_decref(sum);
	krl_judge_free(j);
	krl_store_close(st);
	krl_llm_free(llm);
	krl_task_free(t);
	krl_suite_free(s);
	return rc;
}

/* krl export-sft and krl export-rollouts: same options (export-sft also
 * takes --min-speedup), different writers. */
static int export_cmd(int argc, char **argv, int sft)
{
	const char *usage = sft ? sft_usage : export_usage;
	const char *name = sft ? "krl export-sft" : "krl export-rollouts";
	const char *db = "krl.db", *run = NULL, *outp = NULL;
	double min_speedup = 0;
	krl_store *st = NULL;
	krl_diag d = {0};
	char buf[1200];
	int64_t n = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return KRL_EXIT_OK;
		}
		if (!v) {
			fputs(usage, stderr);
			return KRL_EXIT_USAGE;
		}
		i++;
		if (!strcmp(a, "--db"))
			db = v;
		else if (!strcmp(a, "--run"))
			run = v;
		else if (!strcmp(a, "--out"))
			outp = v;
		else if (sft && !strcmp(a, "--min-speedup"))
			min_speedup = atof(v);
		else {
			fputs(usage, stderr);
			return KRL_EXIT_USAGE;
		}
	}
	FILE *f = outp ? fopen(outp, "w") : stdout;
	if (!f) {
		fprintf(stderr, "%s: cannot write %s\n", name, outp);
		return KRL_EXIT_ERROR;
	}
	krl_err e = krl_store_open(db, &st, &d);
	if (e == KRL_OK)
		e = sft ? krl_export_sft(st, run, min_speedup, f, &n, &d)
		        : krl_export_rollouts(st, run, f, &n, &d);
	krl_store_close(st);
	if (outp)
		fclose(f);
	if (e != KRL_OK) {
		fprintf(stderr, "%s: %s\n", name,
		        krl_diag_format(&d, buf, sizeof buf));
		return KRL_EXIT_ERROR;
	}
	fprintf(stderr, "%lld %s\n", (long long)n,
	        sft ? "SFT examples" : "rollouts");
	return KRL_EXIT_OK;
}

int krl_cmd_export_sft(int argc, char **argv)
{
	return export_cmd(argc, argv, 1);
}

int krl_cmd_export_rollouts(int argc, char **argv)
{
	return export_cmd(argc, argv, 0);
}
