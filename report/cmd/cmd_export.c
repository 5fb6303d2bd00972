/*
 * cmd_export.c: 'prof-report export --format pprof|speedscope TRACE', the
 * profile for the tools a team already runs: pprof (go tool pprof,
 * Pyroscope, Parca, Grafana) or speedscope. Both take the same filters as
 * the other outputs. Threads are part of both formats (labels in pprof, a
 * profile each in speedscope), so there is no --thread-frames, and --lines
 * is refused for pprof, whose locations always carry their lines.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/progress.h"
#include "report/cmd/cli_trace.h"
#include "report/cmd/cmds.h"
#include "report/model/export.h"
#include "report/output/pprof.h"
#include "report/output/speedscope.h"

static const char *const format_words[] = { "pprof", "speedscope", NULL };
enum { FORMAT_PPROF, FORMAT_SPEEDSCOPE };

int cmd_export(int argc, char **argv)
{
	struct cli_report r = { 0 };
	const char *output = NULL;
	int format = FORMAT_PPROF;
	const struct opt_option options[] = {
		{ .kind = OPT_KIND_WORD, .long_name = "format", .arg = "FORMAT", .value = &format,
		  .words = format_words, .attr = OPT_ATTR_REQUIRED, .help = "pprof or speedscope" },
		OPT_STRING('o', "output", "FILE", &output,
			   "write to FILE (default or '-': standard output, which\n"
			   "for pprof must not be a terminal)"),
		CLI_REPORT_OPTIONS(&r),
		OPT_END,
	};
	const struct opt_command cmd = {
		"export", "[TRACE...]", 0, -1,
		"Writes the profile for another tool. FORMAT is pprof (gzip'd profile.proto,\n"
		"for go tool pprof, Pyroscope, Parca or Grafana; threads are labels) or\n"
		"speedscope (JSON, a profile per thread). --lines does not apply to pprof,\n"
		"which always has the lines.",
		options,
	};
	struct cli_trace ct;
	struct stacks_filter filter;
	struct export *e;
	const char *name;
	FILE *out;
	int first, err;

	first = opt_parse(&cmd, argc, argv);
	if (r.lines && format == FORMAT_PPROF)
		opt_usage_error(&cmd, "option '--lines' does not apply to pprof: its locations have "
				"their lines (try 'go tool pprof -lines')");
	name = cli_output_is_stdout(output) ? "standard output" : output;
	if (cli_output_is_stdout(output) && format == FORMAT_PPROF && isatty(STDOUT_FILENO))
		die("not writing binary pprof data to a terminal; use -o FILE or a pipe");
	cli_open(&r, &cmd, argv + first, (size_t)(argc - first), CLI_SYMBOLIZED, &ct);
	filter = cli_filter(&r);
	e = export_build(ct.stacks, &filter, ct.progress);
	progress_end(ct.progress);
	out = cli_output_open(output);
	if (format == FORMAT_PPROF) {
		struct buf b;

		buf_init(&b);
		pprof_encode(&b, ct.t, e);
		err = pprof_gzip(out, b.data, b.len);
		buf_release(&b);
		if (err == PPROF_E_ZLIB)
			die("cannot write '%s': %s", name, prof_strerror(err));
	} else {
		err = speedscope_write(out, ct.t, e, r.lines);
	}
	if (err < 0)
		die_errno("cannot write '%s'", name);
	cli_output_close(output, out);
	export_free(e);
	cli_close(&ct);
	opt_release(&cmd);
	return 0;
}
