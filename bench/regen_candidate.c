/*
 * bench/regen_candidate: the builtin optimizer's candidate for a choice,
 * written by the code generator of this build (CPU). For re-judging a
 * stored result's candidate after a generator change, or for judging one
 * choice by hand:
 *
 *   regen_candidate TASK SET FILE      the choice of FILE's "krl-choice:" line
 *   regen_candidate TASK SET -c LINE   the choice "krl-choice: name=opt ..."
 *
 * The candidate goes to standard output, what it does to standard error.
 * Decisions the line does not name get their first option, names the
 * task's space lacks are ignored (krl_choice_parse). Tasks are read from
 * $KRL_TASKS (default ./tasks). Exit status 0, or 1 with the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/lang.h"
#include "krl/opt.h"
#include "krl/suite.h"

int main(int argc, char **argv)
{
	if (argc != 4 && !(argc == 5 && !strcmp(argv[3], "-c"))) {
		fprintf(stderr, "usage: regen_candidate TASK SET FILE\n"
		                "       regen_candidate TASK SET -c "
		                "\"krl-choice: name=opt ...\"\n");
		return 2;
	}
	krl_diag d = { 0 };
	krl_suite *suite = NULL;
	krl_task *t = NULL;
	krl_opt *o = NULL;
	krl_candidate *cand = NULL;
	char *text = NULL, *what = NULL;
	krl_choice c;
	int rc = 1;
	const char *root = getenv("KRL_TASKS");
	if (argc == 4 && krl_candidate_load(argv[3], &cand, &d) != KRL_OK) {
		fprintf(stderr, "regen_candidate: %s: %s\n", argv[3], d.msg);
		goto out;
	}
	const char *src = cand ? cand->source : argv[4];
	if (krl_suite_load(root ? root : "tasks", &suite, &d) != KRL_OK ||
	    krl_suite_load_task(suite, argv[1], &t, &d) != KRL_OK ||
	    krl_opt_create(t, argv[2], &o, &d) != KRL_OK ||
	    krl_choice_parse(krl_opt_space(o), src, &c, &d) != KRL_OK ||
	    krl_opt_generate(o, &c, &text, &what, &d) != KRL_OK) {
		fprintf(stderr, "regen_candidate: %s\n", d.msg);
		goto out;
	}
	fputs(text, stdout);
	fprintf(stderr, "%s\n", what);
	rc = 0;
out:
	free(text);
	free(what);
	krl_candidate_free(cand);
	krl_opt_free(o);
	krl_task_free(t);
	krl_suite_free(suite);
	return rc;
}
