/* The krl command-line tool: one function per subcommand. */
#ifndef KRL_CLI_H
#define KRL_CLI_H

#include <stddef.h>

#include "krl/judge.h"

int krl_cmd_tasks(int argc, char **argv);
int krl_cmd_show(int argc, char **argv);
int krl_cmd_eval(int argc, char **argv);
int krl_cmd_batch(int argc, char **argv);
int krl_cmd_optimize(int argc, char **argv);
int krl_cmd_export_rollouts(int argc, char **argv);
int krl_cmd_export_sft(int argc, char **argv);
int krl_cmd_audit_tasks(int argc, char **argv);
int krl_cmd_time_ref(int argc, char **argv);

/* Consumes the judge option s (with its value v, which may be NULL) into o:
 * returns how many arguments it used (1 or 2), 0 when s is not a judge
 * option, -1 after printing an error. --shapes keeps pointers into
 * sets_buf. */
int krl_cli_judge_option(const char *s, const char *v, krl_judge_opts *o,
                         char *sets_buf, size_t cap);
extern const char krl_cli_judge_usage[];

/* Exit codes. */
enum { KRL_EXIT_OK = 0, KRL_EXIT_VERDICT = 1, KRL_EXIT_USAGE = 2,
       KRL_EXIT_ERROR = 3 };

#endif
