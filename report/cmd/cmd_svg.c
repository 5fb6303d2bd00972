/*
 * cmd_svg.c: 'prof-report svg TRACE -o out.svg', the profile as an
 * interactive flame graph, under the subtitle cli_subtitle() gives. The
 * layout (--reverse, --inverted, --width, --minwidth) and the palette
 * (--colors) go to the renderer as they are; the image and lang palettes
 * learn each frame's image and language from the profile.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/diag.h"
#include "report/cmd/cli_trace.h"
#include "report/cmd/cmds.h"
#include "report/output/flamegraph.h"
#include "report/model/profile.h"
#include "report/symbols/symbolize.h"

int cmd_svg(int argc, char **argv)
{
	struct cli_report r = { 0 };
	struct cli_graph g = CLI_GRAPH_INIT;
	const char *output = NULL;
	const struct opt_option options[] = {
		OPT_STRING('o', "output", "FILE", &output,
			   "write the graph to FILE (default standard output)"),
		CLI_OPT_COLORS(&g),
		CLI_OPT_THREAD_FRAMES(&r),
		CLI_GRAPH_OPTIONS(&g, "the title (default \"Flame Graph\", or \"Icicle Graph\"\n"
				      "with --inverted)"),
		CLI_REPORT_OPTIONS(&r),
		OPT_END,
	};
	const struct opt_command cmd = {
		"svg", "[TRACE...]", 0, -1, "Writes the profile as an interactive SVG flame graph.", options,
	};
	struct cli_trace ct;
	struct flamegraph_opts fo;
	FILE *out;
	char *sub;
	int first;

	first = opt_parse(&cmd, argc, argv);
	/* Only the lang palette needs a frame's source file. */
	r.names_only = g.colors != FLAMEGRAPH_PALETTE_LANG;
	cli_open(&r, &cmd, argv + first, (size_t)(argc - first), CLI_PROFILED, &ct);
	sub = cli_subtitle(ct.t, ct.p);
	fo = cli_graph_opts(&g);
	fo.subtitle = sub;
	out = cli_output_open(output);
	if (flamegraph_write_svg(out, ct.p, &fo) < 0)
		die_errno("cannot write '%s'", output ? output : "standard output");
	cli_output_close(output, out);
	free(sub);
	cli_close(&ct);
	opt_release(&cmd);
	return 0;
}
