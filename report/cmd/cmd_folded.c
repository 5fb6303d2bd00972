/*
 * cmd_folded.c: 'prof-report folded TRACE', the profile as folded stacks on
 * stdout, for flamegraph.pl, inferno or any text tool.
 */
#include <stdio.h>

#include "common/diag.h"
#include "report/cmd/cli_trace.h"
#include "report/cmd/cmds.h"
#include "report/output/folded.h"

int cmd_folded(int argc, char **argv)
{
	struct cli_report r = { 0 };
	const struct opt_option options[] = {
		CLI_OPT_THREAD_FRAMES(&r),
		CLI_REPORT_OPTIONS(&r),
		OPT_END,
	};
	const struct opt_command cmd = {
		"folded", "[TRACE...]", 0, -1,
		"Writes folded stacks (\"root;caller;callee COUNT\") to standard output.", options,
	};
	struct cli_trace ct;
	int first;

	first = opt_parse(&cmd, argc, argv);
	r.names_only = 1;
	cli_open(&r, &cmd, argv + first, (size_t)(argc - first), CLI_PROFILED, &ct);
	if (folded_write(stdout, ct.p) < 0)
		die_errno("cannot write to standard output");
	diag_close_stdout();
	cli_close(&ct);
	opt_release(&cmd);
	return 0;
}
