/*
 * cmd_html.c: 'prof-report html TRACE -o FILE', the profile as one
 * self-contained page: a timeline of its threads, and a flame graph,
 * call trees and a function table of what is selected on it
 * (report/output/html.h). The profile is built here rather than by
 * cli_open(), with the page's timeline told of every sample it keeps.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/diag.h"
#include "report/cmd/cli_trace.h"
#include "report/cmd/cmds.h"
#include "report/model/profile.h"
#include "report/output/flamegraph.h"
#include "report/output/html.h"

int cmd_html(int argc, char **argv)
{
	struct cli_report r = { 0 };
	struct cli_graph g = CLI_GRAPH_INIT;
	const char *output = NULL, *title = NULL;
	const struct opt_option options[] = {
		OPT_STRING('o', "output", "FILE", &output,
			   "write the page to FILE (default standard output)"),
		OPT_STRING(0, "title", "TEXT", &title, "the page's title (default \"prof: COMMAND\")"),
		CLI_OPT_COLORS(&g),
		CLI_REPORT_OPTIONS(&r),
		OPT_END,
	};
	const struct opt_command cmd = {
		"html", "[TRACE...]", 0, -1,
		"Writes the profile as one self-contained HTML page: a timeline of its\n"
		"threads, and a flame graph, call trees and a function table of the\n"
		"threads and time selected on it.", options,
	};
	struct cli_trace ct;
	struct profile_opts po;
	struct html_timeline *tl;
	struct html_opts ho;
	FILE *out;
	char *sub, *own_title = NULL;
	int first;

	first = opt_parse(&cmd, argc, argv);
	/* Only the lang palette needs a frame's source file. */
	r.names_only = g.colors != FLAMEGRAPH_PALETTE_LANG;
	cli_open(&r, &cmd, argv + first, (size_t)(argc - first), CLI_SYMBOLIZED, &ct);
	tl = html_timeline_new(ct.t);
	po = cli_profile_opts(&r);
	po.progress = ct.progress;
	po.sample = html_timeline_sample;
	po.ctx = tl;
	ct.p = profile_build(ct.stacks, &po);
	progress_end(ct.progress);
	sub = cli_subtitle(ct.t, ct.p);
	if (!title) {
		char *root = stacks_root_name(ct.t);

		title = own_title = xasprintf("prof: %s", root);
		free(root);
	}
	ho = (struct html_opts){ .title = title, .subtitle = sub, .palette = g.colors };
	out = cli_output_open(output);
	if (html_write_profile(out, ct.t, ct.p, tl, &ho) < 0)
		die_errno("cannot write '%s'", output ? output : "standard output");
	cli_output_close(output, out);
	html_timeline_free(tl);
	free(sub);
	free(own_title);
	cli_close(&ct);
	opt_release(&cmd);
	return 0;
}
