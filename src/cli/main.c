/* krl: the kernelrl command-line tool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "krl/judge.h"

static const char usage[] =
	"usage: krl COMMAND [ARGS]\n"
	"\n"
	"kernelrl makes GPU kernels faster and proves it honestly.\n"
	"\n"
	"commands:\n"
	"  tasks                       list the task suite (id, name, shape sets)\n"
	"  show TASK [--shapes S]      print a task resolved for shape set S (default kb1)\n"
	"  audit-tasks [opts]          find tasks whose outputs a trivial output would match (CPU)\n"
	"  time-ref TASK... [opts]     time the eager reference alone (GPU)\n"
	"  check TASK CANDIDATE [opts] what the judge does before the GPU: parse, validate,\n"
	"                              include rule, sandboxed NVRTC compile (no GPU needed)\n"
	"  eval TASK CANDIDATE [opts]  judge a candidate: compile, check, time (see krl eval --help)\n"
	"  batch FILE [opts]           judge every line 'CANDIDATE TASK [VERDICT [REASON]]' of FILE\n"
	"  optimize TASK... [opts]     make tasks faster: the builtin policy's search, a table of\n"
	"                              speedups (resumable; --policy llm: CUDA-L1's loop with an LLM)\n"
	"  train [opts]                learn the builtin policy's weights; --eval: vs uniform choice\n"
	"  serve [opts]                the judge as an HTTP service for RL trainers (GPU;\n"
	"                              /v1/evaluate, OpenRLHF's /reward, /metrics)\n"
	"  export TASK --to cuda|torch DIR  the best candidate as standalone CUDA or a\n"
	"                              PyTorch package with ModelNew (see krl export --help)\n"
	"  export-rollouts [opts]      stored evaluations as JSON lines for an RL trainer\n"
	"  export-sft [opts]           correct candidates as an SFT set (data augmentation)\n"
	"  report [opts] OUT.html      one self-contained HTML page with charts of the store\n"
	"                              and results files (speedups, peers, verdicts, roofline)\n"
	"  help                        this text\n"
	"\n"
	"TASK is an id (level1/19_relu), an unambiguous prefix (level1/19) or a .task path.\n"
	"Environment: KRL_TASKS (tasks folder), KRL_CACHE_DIR (NVRTC cache and device ceilings),\n"
	"KRL_COMPILE_TIMEOUT (default compile deadline, s), KRL_SANDBOX (landlock, namespace, none),\n"
	"KRL_LLM_BASE_URL, KRL_LLM_MODEL, KRL_LLM_API_KEY, KRL_TEMPLATES, KRL_WEIGHTS,\n"
	"CUDA_VISIBLE_DEVICES, KRL_SERVE_TOKEN.\n";

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "__runner"))
		return krl_runner_main(atoi(argv[2]), argc >= 4 ? atoi(argv[3]) : 0);
	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? KRL_EXIT_USAGE : KRL_EXIT_OK;
	}
	if (!strcmp(argv[1], "tasks"))
		return krl_cmd_tasks(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return krl_cmd_show(argc - 1, argv + 1);
	if (!strcmp(argv[1], "audit-tasks"))
		return krl_cmd_audit_tasks(argc - 1, argv + 1);
	if (!strcmp(argv[1], "time-ref"))
		return krl_cmd_time_ref(argc - 1, argv + 1);
	if (!strcmp(argv[1], "eval"))
		return krl_cmd_eval(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check"))
		return krl_cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "batch"))
		return krl_cmd_batch(argc - 1, argv + 1);
	if (!strcmp(argv[1], "optimize"))
		return krl_cmd_optimize(argc - 1, argv + 1);
	if (!strcmp(argv[1], "train"))
		return krl_cmd_train(argc - 1, argv + 1);
	if (!strcmp(argv[1], "serve"))
		return krl_cmd_serve(argc - 1, argv + 1);
	if (!strcmp(argv[1], "export"))
		return krl_cmd_export(argc - 1, argv + 1);
	if (!strcmp(argv[1], "export-rollouts"))
		return krl_cmd_export_rollouts(argc - 1, argv + 1);
	if (!strcmp(argv[1], "export-sft"))
		return krl_cmd_export_sft(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return krl_cmd_report(argc - 1, argv + 1);
	fprintf(stderr, "krl: unknown command '%s'\n\n%s", argv[1], usage);
	return KRL_EXIT_USAGE;
}
