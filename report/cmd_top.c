/*
 * cmd_top.c: 'prof-report top TRACE', the functions that took the time:
 * self and total share and samples per function, image or source line,
 * from the same filtered profile as folded and svg.
 */
#include <stdio.h>

#include "common/diag.h"
#include "report/cli.h"
#include "report/cmds.h"
#include "report/top.h"

static const char usage[] =
	"usage: prof-report top [--sort KEY] [--limit N] [--group BY] [OPTIONS] TRACE\n"
	"\n"
	"Prints one line per function: the share of samples spent in it (self)\n"
	"and in it or what it called (total), the two sample counts and its name.\n"
	"A function met twice in one stack counts once in that stack's total.\n"
	"\n"
	"  --sort KEY           self, total or name (default self); ties by name\n"
	"  --limit N            print only the first N lines\n"
	"  --group BY           function (default), image (frames of no image are\n"
	"                       \"[unknown]\") or line (\"FUNCTION (FILE:LINE)\")\n"
	CLI_COMMON_HELP;

int cmd_top(int argc, char **argv)
{
	struct cli_opts o;
	struct cli_trace ct;
	struct top_opts to;
	struct top t;
	const char *heading = "FUNCTION", *noun = "function";
	int first;

	first = cli_parse(argc, argv, usage, &o);
	cli_require_operands(argc, argv, first, 1, usage);
	to = (struct top_opts){ .group = TOP_GROUP_NAME, .skip = o.thread_frames ? 2 : 1 };
	switch (o.sort) {
	case CLI_SORT_TOTAL:
		to.sort = TOP_SORT_TOTAL;
		break;
	case CLI_SORT_NAME:
		to.sort = TOP_SORT_NAME;
		break;
	default:
		to.sort = TOP_SORT_SELF;
	}
	if (o.group == CLI_GROUP_IMAGE) {
		to.group = TOP_GROUP_IMAGE;
		heading = "IMAGE";
		noun = "image";
	} else if (o.group == CLI_GROUP_LINE) {
		/* A line is a frame name with its place, as --lines names
		 * frames: the profile keeps one name per function and line. */
		o.lines = 1;
		heading = "LINE";
		noun = "line";
	}
	cli_open(&o, argv[first], CLI_PROFILED, &ct);
	top_build(ct.p, &to, &t);
	if (top_write(stdout, &t, o.limit, heading, noun) < 0)
		die_errno("cannot write to standard output");
	diag_close_stdout();
	top_release(&t);
	cli_close(&ct);
	cli_release(&o);
	return 0;
}
