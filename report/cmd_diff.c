/*
 * cmd_diff.c: 'prof-report diff BASE NEW', what changed between two runs:
 * the functions whose share grew and shrank most, and with -o a
 * differential flame graph, or with --folded the two-column folded stacks
 * flamegraph.pl's difference mode reads. Both traces are read with the
 * same options, so a filter selects the same threads or window in each.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/diag.h"
#include "report/cli.h"
#include "report/cmds.h"
#include "report/diff.h"

static const char usage[] =
	"usage: prof-report diff [-o FILE] [--negate] [--folded] [OPTIONS] BASE NEW\n"
	"\n"
	"Prints the functions whose share of the samples grew and shrank most\n"
	"from the trace BASE to the trace NEW, both normalised by their sample\n"
	"totals. With -o, also writes a differential flame graph: red grew,\n"
	"blue shrank.\n"
	"\n"
	"  --negate             swap the colours: blue grew, red shrank\n"
	"  --folded             write \"STACK BASE NEW\" lines instead of the table\n"
	"                       (BASE scaled to NEW's total)\n"
	"  --limit N            rows of each table (default 10)\n"
	CLI_GRAPH_HELP
	CLI_COMMON_HELP;

int cmd_diff(int argc, char **argv)
{
	struct cli_opts o;
	struct cli_trace base, new;
	struct diff d;
	struct diff_row *rows = NULL;
	size_t nrows = 0;
	int first;

	first = cli_parse(argc, argv, usage, &o);
	cli_require_operands(argc, argv, first, 2, usage);
	cli_open(&o, argv[first], CLI_PROFILED, &base);
	cli_open(&o, argv[first + 1], CLI_PROFILED, &new);
	diff_build(base.p, new.p, &d);
	if (o.output) {
		struct flamegraph_opts fo = {
			.title = o.title ? o.title : "Differential Flame Graph",
			.subtitle = o.negate ? "blue: grew, red: shrank (normalised by sample totals)"
					     : "red: grew, blue: shrank (normalised by sample totals)",
			.width = o.width, .minwidth = o.minwidth,
			.reverse = o.reverse, .inverted = o.inverted,
		};
		FILE *f = fopen(o.output, "w");

		if (!f)
			die_errno("cannot create '%s'", o.output);
		if (diff_write_svg(f, &d, &fo, o.negate) < 0 || fclose(f) != 0)
			die_errno("cannot write '%s'", o.output);
	}
	if (o.folded) {
		if (diff_write_folded(stdout, &d) < 0)
			die_errno("cannot write to standard output");
	} else {
		diff_rows(base.p, new.p, o.thread_frames ? 2 : 1, &rows, &nrows);
		if (diff_write_table(stdout, rows, nrows, o.limit) < 0)
			die_errno("cannot write to standard output");
	}
	diag_close_stdout();
	free(rows);
	diff_release(&d);
	cli_close(&new);
	cli_close(&base);
	cli_release(&o);
	return 0;
}
