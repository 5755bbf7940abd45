/* The krl command-line tool: one function per subcommand. */
#ifndef KRL_CLI_H
#define KRL_CLI_H

int krl_cmd_tasks(int argc, char **argv);
int krl_cmd_show(int argc, char **argv);
int krl_cmd_eval(int argc, char **argv);
int krl_cmd_batch(int argc, char **argv);

/* Exit codes. */
enum { KRL_EXIT_OK = 0, KRL_EXIT_VERDICT = 1, KRL_EXIT_USAGE = 2,
       KRL_EXIT_ERROR = 3 };

#endif
