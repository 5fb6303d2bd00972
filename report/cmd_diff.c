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

int cmd_diff(int argc, char **argv)
{
	struct cli_report r = { 0 };
	struct cli_graph g = CLI_GRAPH_INIT;
	const char *output = NULL;
	int negate = 0, folded = 0;
	uint64_t limit = 10;
	const struct cli_option options[] = {
		CLI_OPT_STRING('o', "output", "FILE", &output,
			       "also write a differential flame graph to FILE"),
		CLI_OPT_FLAG(0, "negate", &negate, "swap the colours: blue grew, red shrank"),
		CLI_OPT_FLAG(0, "folded", &folded,
			     "write \"STACK BASE NEW\" lines instead of the table\n"
			     "(BASE scaled to NEW's total)"),
		CLI_OPT_UINT(0, "limit", "N", &limit, 1, SIZE_MAX, "rows of each table (default 10)"),
		CLI_OPT_THREAD_FRAMES(&r),
		CLI_GRAPH_OPTIONS(&g, "the title (default \"Differential Flame Graph\")"),
		CLI_REPORT_OPTIONS(&r),
		CLI_OPT_END,
	};
	const struct cli_command cmd = {
		"diff", "BASE NEW", 2,
		"Prints the functions whose share of the samples grew and shrank most\n"
		"from the trace BASE to the trace NEW, both normalised by their sample\n"
		"totals. With -o, also writes a differential flame graph: red grew,\n"
		"blue shrank. Both traces are read with the same options.",
		options,
	};
	struct cli_trace base, new;
	struct diff d;
	struct diff_row *rows = NULL;
	size_t nrows = 0;
	int first;

	first = cli_parse(&cmd, argc, argv);
	r.names_only = 1;
	cli_open(&r, argv[first], CLI_PROFILED, &base);
	cli_open(&r, argv[first + 1], CLI_PROFILED, &new);
	diff_build(base.p, new.p, &d);
	if (output) {
		struct flamegraph_opts fo = cli_graph_opts(&g);
		FILE *f = fopen(output, "w");

		if (!fo.title)
			fo.title = "Differential Flame Graph";
		fo.subtitle = negate ? "blue: grew, red: shrank (normalised by sample totals)"
				     : "red: grew, blue: shrank (normalised by sample totals)";
		if (!f)
			die_errno("cannot create '%s'", output);
		if (diff_write_svg(f, &d, &fo, negate) < 0 || fclose(f) != 0)
			die_errno("cannot write '%s'", output);
	}
	if (folded) {
		if (diff_write_folded(stdout, &d) < 0)
			die_errno("cannot write to standard output");
	} else {
		diff_rows(base.p, new.p, r.thread_frames ? 2 : 1, &rows, &nrows);
		if (diff_write_table(stdout, rows, nrows, (size_t)limit) < 0)
			die_errno("cannot write to standard output");
	}
	diag_close_stdout();
	free(rows);
	diff_release(&d);
	cli_close(&new);
	cli_close(&base);
	cli_release(&cmd);
	return 0;
}
