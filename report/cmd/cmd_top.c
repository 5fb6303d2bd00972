/*
 * cmd_top.c: 'prof-report top TRACE', the functions that took the time:
 * self and total share and samples per function, image or source line,
 * from the same filtered profile as folded and svg.
 */
#include <stdio.h>

#include "common/diag.h"
#include "report/cmd/cli_trace.h"
#include "report/cmd/cmds.h"
#include "report/output/top.h"

static const char *const sort_words[] = { "self", "total", "name", NULL };
static const char *const group_words[] = { "function", "image", "line", NULL };
enum { GROUP_FUNCTION, GROUP_IMAGE, GROUP_LINE };

_Static_assert(TOP_SORT_SELF == 0 && TOP_SORT_TOTAL == 1 && TOP_SORT_NAME == 2,
	       "sort_words are in enum top_sort's order");

int cmd_top(int argc, char **argv)
{
	struct cli_report r = { 0 };
	uint64_t limit = 0;
	int sort = TOP_SORT_SELF, group = GROUP_FUNCTION, json = 0;
	const struct opt_option options[] = {
		OPT_WORD(0, "sort", "KEY", &sort, sort_words,
			 "self, total or name (default self); ties by name"),
		OPT_UINT(0, "limit", "N", &limit, 1, SIZE_MAX, "print only the first N lines"),
		OPT_WORD(0, "group", "BY", &group, group_words,
			 "function (default), image (code in no file is \"[jit]\"\n"
			 "where a code range names it, else \"[anon]\") or line\n"
			 "(\"FUNCTION (FILE:LINE)\"); unnamed anonymous code is\n"
			 "one \"[anon]\" row but with --addresses"),
		OPT_FLAG(0, "json", &json, "write the table as JSON (prof-json(5))"),
		CLI_OPT_THREAD_FRAMES(&r),
		CLI_REPORT_OPTIONS(&r),
		OPT_END,
	};
	const struct opt_command cmd = {
		"top", "[TRACE...]", 0, -1,
		"Prints one line per function: the share of samples spent in it (self)\n"
		"and in it or what it called (total), the two sample counts and its name.\n"
		"A function met twice in one stack counts once in that stack's total.",
		options,
	};
	struct cli_trace ct;
	struct top_opts to;
	struct top t;
	const char *heading = "FUNCTION", *noun = "function";
	int first;

	first = opt_parse(&cmd, argc, argv);
	r.names_only = 1; /* --group line turns --lines on */
	to = (struct top_opts){ .group = TOP_GROUP_NAME, .sort = sort,
				.skip = 1 + (size_t)r.process_frames + (size_t)r.thread_frames,
				.merge_anon = !r.addresses };
	if (group == GROUP_IMAGE) {
		to.group = TOP_GROUP_IMAGE;
		heading = "IMAGE";
		noun = "image";
	} else if (group == GROUP_LINE) {
		/* A line is a frame name with its place, as --lines names
		 * frames: the profile keeps one name per function and line. */
		r.lines = 1;
		heading = "LINE";
		noun = "line";
	}
	cli_open(&r, &cmd, argv + first, (size_t)(argc - first), CLI_PROFILED, &ct);
	top_build(ct.p, &to, &t);
	if ((json ? top_write_json(stdout, &t, (size_t)limit, group_words[group])
		  : top_write(stdout, &t, (size_t)limit, heading, noun)) < 0)
		die_errno("cannot write to standard output");
	diag_close_stdout();
	top_release(&t);
	cli_close(&ct);
	opt_release(&cmd);
	return 0;
}
