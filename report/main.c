/*
 * main.c: prof-report's entry point. It only parses the global options and
 * hands argv to the subcommand named on the command line; every subcommand
 * lives in report/cmd_<name>.c and is listed once, in the table below.
 */
#include <stdio.h>
#include <string.h>

#include "common/diag.h"
#include "format/trace.h"
#include "report/cmd/cmds.h"
#include "common/timing.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "info", cmd_info, "describe the trace, its images, threads and losses" },
	{ "folded", cmd_folded, "folded stacks for flamegraph.pl and inferno" },
	{ "svg", cmd_svg, "a flame graph" },
	{ "html", cmd_html, "one page to explore: timeline, flame graph, call trees, table" },
	{ "diff", cmd_diff, "what changed between two traces, as tables or a flame graph" },
	{ "threads", cmd_threads, "a per-thread table of samples and states" },
	{ "top", cmd_top, "self and total samples per function, image or line" },
	{ "annotate", cmd_annotate, "samples per source line and instruction of hot functions" },
	{ "export", cmd_export, "the profile for pprof or speedscope" },
	{ "pack", cmd_pack, "a symbol pack, for reports where the debug files are not" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: prof-report [-h | --help] [--version]\n"
	      "   or: prof-report COMMAND [OPTIONS] [TRACE...]\n"
	      "\ncommands:\n", f);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fputs("\n'prof-report COMMAND -h' describes the options of COMMAND.\n", f);
}

int main(int argc, char **argv)
{
	const char *cmd;
	size_t i;

	diag_set_progname("prof-report");
	timing_init();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		diag_close_stdout();
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("prof-report (trace format %d.%d)\n", TRACE_FORMAT_MAJOR, TRACE_FORMAT_MINOR);
		diag_close_stdout();
		return 0;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	if (cmd[0] == '-')
		fprintf(stderr, "prof-report: unknown option '%s'\n", cmd);
	else
		fprintf(stderr, "prof-report: '%s' is not a prof-report command\n", cmd);
	usage(stderr);
	return 2;
}
