/* krl eval, krl batch: judge candidates. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "krl/judge.h"
#include "krl/suite.h"
#include "util/strbuf.h"

static const char eval_usage[] =
	"usage: krl eval TASK CANDIDATE [options]\n"
	"       krl batch FILE [options]\n"
	"\n"
	"Compiles the candidate with NVRTC, runs it in a separate runner process,\n"
	"checks every output element against the eager reference on fresh seeds and\n"
	"shape sets, and times candidate and reference interleaved (L2 flushed and\n"
	"fresh inputs before every call). Prints a summary, or one JSON record.\n"
	"A batch FILE has one 'CANDIDATE TASK [EXPECTED_VERDICT [EXPECTED_REASON]]' per\n"
	"line; the reason is the record's failure.reason (mismatch, out_of_bounds_write, ...)\n"
	"(paths relative to FILE's folder, '#' comments).\n"
	"\n"
	"options:\n"
	"  --json             print the verdict record as JSON (batch: one per line)\n"
	"\n"
	"exit status: 0 ok (batch: every verdict as expected), 1 another verdict,\n"
	"2 usage error, 3 the judge itself failed (no GPU, bad task).\n";

typedef struct evalargs {
	krl_judge_opts o;
	int json;
	const char *pos[2];
	int npos;
	char sets_buf[512];
} evalargs;

static int parse_args(int argc, char **argv, evalargs *a, int want)
{
	memset(a, 0, sizeof *a);
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int used;
		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			fputs(eval_usage, stdout);
			fputs(krl_cli_judge_usage, stdout);
			exit(KRL_EXIT_OK);
		} else if (!strcmp(s, "--json")) {
			a->json = 1;
		} else if ((used = krl_cli_judge_option(s, v, &a->o, a->sets_buf,
		                                        sizeof a->sets_buf)) < 0) {
			return -1;
		} else if (used > 0) {
			i += used - 1;
		} else if (s[0] == '-') {
			fprintf(stderr, "krl: unknown option '%s' (see krl eval --help)\n", s);
			return -1;
		} else if (a->npos < want) {
			a->pos[a->npos++] = s;
		} else {
			fprintf(stderr, "krl: unexpected argument '%s'\n", s);
			return -1;
		}
	}
	if (a->npos != want) {
		fputs(eval_usage, stderr);
		return -1;
	}
	return 0;
}

static void emit(const json_t *rec, int as_json)
{
	if (as_json) {
		char *s = json_dumps(rec, JSON_COMPACT | JSON_REAL_PRECISION(9));
		if (s)
			puts(s);
		free(s);
	} else {
		krl_record_print(stdout, rec);
	}
	fflush(stdout);
}

int krl_cmd_eval(int argc, char **argv)
{
	evalargs a;
	krl_suite *s = NULL;
	krl_task *t = NULL;
	krl_judge *j = NULL;
	json_t *rec = NULL;
	krl_diag d = {0};
	char buf[1200];
	int rc = KRL_EXIT_ERROR;
	if (parse_args(argc, argv, &a, 2) != 0)
		return KRL_EXIT_USAGE;
	if (krl_suite_load(NULL, &s, &d) != KRL_OK ||
	    krl_suite_load_task(s, a.pos[0], &t, &d) != KRL_OK ||
	    krl_judge_create(&a.o, &j, &d) != KRL_OK ||
	    krl_judge_eval(j, t, a.pos[1], &rec, &d) != KRL_OK) {
		fprintf(stderr, "krl eval: %s\n", krl_diag_format(&d, buf, sizeof buf));
		goto out;
	}
	emit(rec, a.json);
	rc = strcmp(json_string_value(json_object_get(rec, "verdict")), "ok")
	             ? KRL_EXIT_VERDICT
	             : KRL_EXIT_OK;
out:
	json_decref(rec);
	krl_judge_free(j);
	krl_task_free(t);
	krl_suite_free(s);
	return rc;
}

int krl_cmd_batch(int argc, char **argv)
{
	evalargs a;
	krl_suite *s = NULL;
	krl_judge *j = NULL;
	krl_diag d = {0};
	char buf[1200], line[2048];
	int as_expected = 0, other = 0, rc = KRL_EXIT_ERROR;
	FILE *f = NULL;
	if (parse_args(argc, argv, &a, 1) != 0)
		return KRL_EXIT_USAGE;
	char dirbuf[4096];
	if (krl_fmt_fixed(dirbuf, sizeof dirbuf, "the batch file's path", &d,
	                  "%s", a.pos[0]) != KRL_OK) {
		fprintf(stderr, "krl batch: %s\n", d.msg);
		return KRL_EXIT_ERROR;
	}
	const char *dir = dirname(dirbuf);
	if (!(f = fopen(a.pos[0], "r"))) {
		fprintf(stderr, "krl batch: cannot open %s\n", a.pos[0]);
		return KRL_EXIT_ERROR;
	}
	if (krl_suite_load(NULL, &s, &d) != KRL_OK ||
	    krl_judge_create(&a.o, &j, &d) != KRL_OK) {
		fprintf(stderr, "krl batch: %s\n", krl_diag_format(&d, buf, sizeof buf));
		goto out;
	}
	for (int lineno = 1; fgets(line, sizeof line, f); lineno++) {
		/* each field as long as the line: sscanf never cuts one */
		char cand[sizeof line], task[sizeof line];
		char expect[sizeof line] = "", reason[sizeof line] = "";
		char path[4096];
		if (!strchr(line, '\n') && !feof(f)) {
			fprintf(stderr, "krl batch: %s:%d: line longer than %zu "
			        "bytes\n", a.pos[0], lineno, sizeof line - 2);
			other++;
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		int n = sscanf(line, "%2047s %2047s %2047s %2047s", cand, task,
		               expect, reason);
		if (n < 2)
			continue;
		if (krl_fmt_fixed(path, sizeof path, "the candidate path", &d,
		                  "%s%s%s", cand[0] == '/' ? "" : dir,
		                  cand[0] == '/' ? "" : "/", cand) != KRL_OK) {
			fprintf(stderr, "krl batch: %s:%d: %s\n", a.pos[0], lineno,
			        d.msg);
			other++;
			continue;
		}
		krl_task *t = NULL;
		json_t *rec = NULL;
		if (krl_suite_load_task(s, task, &t, &d) != KRL_OK ||
		    krl_judge_eval(j, t, path, &rec, &d) != KRL_OK) {
			fprintf(stderr, "krl batch: %s:%d: %s\n", a.pos[0], lineno,
			        krl_diag_format(&d, buf, sizeof buf));
			krl_task_free(t);
			other++;
			continue;
		}
		const char *v = json_string_value(json_object_get(rec, "verdict"));
		int ok = expect[0] ? !strcmp(v, expect) : !strcmp(v, "ok");
		if (expect[0])
			json_object_set_new(rec, "expected", json_string(expect));
		if (reason[0]) {
			const char *got = json_string_value(json_object_get(
				json_object_get(rec, "failure"), "reason"));
			ok = ok && got && !strcmp(got, reason);
			json_object_set_new(rec, "expected_reason", json_string(reason));
		}
		json_object_set_new(rec, "as_expected", json_boolean(ok));
		emit(rec, a.json);
		if (!a.json && !ok)
			printf("  ^ NOT AS EXPECTED (expected %s%s%s)\n",
			       expect[0] ? expect : "ok", reason[0] ? " " : "", reason);
		ok ? as_expected++ : other++;
		json_decref(rec);
		krl_task_free(t);
	}
	fprintf(a.json ? stderr : stdout, "%d passed, %d failed\n", as_expected,
	        other);
	rc = other ? KRL_EXIT_VERDICT : KRL_EXIT_OK;
out:
	if (f)
		fclose(f);
	krl_judge_free(j);
	krl_suite_free(s);
	return rc;
}
