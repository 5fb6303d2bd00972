/*
 * cmd_folded.c: 'prof-report folded TRACE', the profile as folded stacks on
 * stdout, for flamegraph.pl, inferno or any text tool.
 */
#include <stdio.h>

#include "common/diag.h"
#include "report/cli.h"
#include "report/cmds.h"
#include "report/folded.h"
#include "report/profile.h"
#include "report/symbolize.h"

static const char usage[] =
	"usage: prof-report folded [OPTIONS] TRACE\n"
	"\n"
	"Writes folded stacks (\"root;caller;callee COUNT\") to standard output.\n"
	"\n"
	CLI_COMMON_HELP;

int cmd_folded(int argc, char **argv)
{
	struct cli_opts o;
	struct trace *t;
	struct symbolize *sym = NULL;
	struct profile *p = NULL;
	struct profile_opts po;
	struct symbolize_opts so;
	int first, err;

	first = cli_parse(argc, argv, usage, &o);
	cli_require_operands(argc, argv, first, 1, usage);
	t = cli_load_trace(argv[first]);
	so = cli_symbolize_opts(&o);
	err = symbolize_new(t, &so, &sym);
	if (err < 0)
		die("cannot symbolize: %s", locate_strerror(err));
	po = (struct profile_opts){ .filter = cli_filter(&o), .thread_frames = o.thread_frames };
	err = profile_build(t, sym, &po, &p);
	if (err < 0)
		die("cannot build the profile of '%s': %s", argv[first], locate_strerror(err));
	if (folded_write(stdout, p) < 0)
		die_errno("cannot write to standard output");
	diag_close_stdout();
	profile_free(p);
	symbolize_free(sym);
	trace_free(t);
	cli_release(&o);
	return 0;
}
