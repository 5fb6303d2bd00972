/*
 * cmd_export.c: 'prof-report export --format pprof|speedscope TRACE', the
 * profile for the tools a team already runs: pprof (go tool pprof,
 * Pyroscope, Parca, Grafana) or speedscope. Both take the same filters as
 * the other outputs. Threads are part of both formats (labels in pprof, a
 * profile each in speedscope), so --thread-frames is refused, and so is
 * --lines for pprof, whose locations always carry their lines.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/diag.h"
#include "report/cli.h"
#include "report/cmds.h"
#include "report/export.h"
#include "report/pprof.h"
#include "report/speedscope.h"

static const char usage[] =
	"usage: prof-report export --format FORMAT [-o FILE] [OPTIONS] TRACE\n"
	"\n"
	"Writes the profile for another tool. FORMAT is pprof (gzip'd profile.proto,\n"
	"for go tool pprof, Pyroscope, Parca or Grafana; threads are labels) or\n"
	"speedscope (JSON, a profile per thread). --thread-frames does not apply,\n"
	"nor --lines to pprof, which always has the lines.\n"
	"\n"
	"  --format FORMAT      pprof or speedscope\n"
	"  -o, --output FILE    write to FILE (default or '-': standard output, which\n"
	"                       for pprof must not be a terminal)\n"
	CLI_COMMON_HELP;

int cmd_export(int argc, char **argv)
{
	struct cli_opts o;
	struct cli_trace ct;
	struct profile_opts po;
	struct export *e = NULL;
	const char *name;
	FILE *out;
	int first, err;

	first = cli_parse(argc, argv, usage, &o);
	cli_require_operands(argc, argv, first, 1, usage);
	if (o.format == CLI_FORMAT_NONE)
		cli_usage_error(usage, "missing '--format pprof' or '--format speedscope'");
	if (o.thread_frames)
		cli_usage_error(usage, "option '--thread-frames' does not apply to export: threads "
				"are %s", o.format == CLI_FORMAT_PPROF ? "labels in pprof"
								   : "profiles in speedscope");
	if (o.lines && o.format == CLI_FORMAT_PPROF)
		cli_usage_error(usage, "option '--lines' does not apply to pprof: its locations have "
				"their lines (try 'go tool pprof -lines')");
	if (o.output && !strcmp(o.output, "-"))
		o.output = NULL;
	name = o.output ? o.output : "standard output";
	if (!o.output && o.format == CLI_FORMAT_PPROF && isatty(STDOUT_FILENO))
		die("not writing binary pprof data to a terminal; use -o FILE or a pipe");
	cli_open(&o, argv[first], CLI_SYMBOLIZED, &ct);
	po = cli_profile_opts(&o);
	if ((err = export_build(ct.t, ct.sym, &po, &e)) < 0)
		die("cannot export '%s': %s", argv[first], locate_strerror(err));
	out = cli_output_open(o.output);
	if (o.format == CLI_FORMAT_PPROF) {
		struct buf b;

		buf_init(&b);
		pprof_encode(&b, ct.t, e);
		err = pprof_gzip(out, b.data, b.len);
		buf_release(&b);
		if (err == PPROF_E_ZLIB)
			die("cannot write '%s': %s", name, pprof_strerror(err));
	} else {
		err = speedscope_write(out, ct.t, e, o.lines);
	}
	if (err < 0)
		die_errno("cannot write '%s'", name);
	cli_output_close(o.output, out);
	export_free(e);
	cli_close(&ct);
	cli_release(&o);
	return 0;
}
