/*
 * cmd_folded.c: 'prof-report folded TRACE', the profile as folded stacks on
 * stdout, for flamegraph.pl, inferno or any text tool.
 */
#include <stdio.h>

#include "common/diag.h"
#include "report/cli.h"
#include "report/cmds.h"
#include "report/folded.h"

static const char usage[] =
	"usage: prof-report folded [OPTIONS] TRACE\n"
	"\n"
	"Writes folded stacks (\"root;caller;callee COUNT\") to standard output.\n"
	"\n"
	CLI_COMMON_HELP;

int cmd_folded(int argc, char **argv)
{
	struct cli_opts o;
	struct cli_trace ct;
	int first;

	first = cli_parse(argc, argv, usage, &o);
	cli_require_operands(argc, argv, first, 1, usage);
	cli_open(&o, argv[first], CLI_PROFILED, &ct);
	if (folded_write(stdout, ct.p) < 0)
		die_errno("cannot write to standard output");
	diag_close_stdout();
	cli_close(&ct);
	cli_release(&o);
	return 0;
}
