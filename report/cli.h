/*
 * cli.h: the options every prof-report subcommand shares.
 *
 * For cmd_* only: like common/parse.h, these print and exit. -h prints the
 * subcommand's usage to stdout and exits 0; bad usage prints a message and
 * the usage line to stderr and exits 2; a trace that cannot be loaded is a
 * runtime error (exit 1).
 */
#ifndef REPORT_CLI_H
#define REPORT_CLI_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/trace.h"
#include "report/profile.h"
#include "report/symbolize.h"

/* The common options, one line each, for a subcommand's usage text. */
#define CLI_COMMON_HELP \
	"  --tid TID            only this thread (repeatable)\n" \
	"  --thread REGEX       only threads whose name matches (extended regex)\n" \
	"  --state STATE        running, idle or all samples (default all)\n" \
	"  --from SECONDS       only samples this long after the start or later\n" \
	"  --to SECONDS         only samples before this long after the start\n" \
	"  --focus REGEX        only stacks with a frame whose name matches\n" \
	"  --exclude REGEX      no stacks with a frame whose name matches\n" \
	"  --thread-frames      add a 'NAME [TID]' frame under the root\n" \
	"  --symbols DIR        also look for debug files in DIR (repeatable)\n" \
	"  --pack FILE          take symbols from this pack (repeatable), for images\n" \
	"                       without a debug file; TRACE.syms is used by itself\n" \
	"  --addresses          show raw IMAGE+0xOFFSET frames\n" \
	"  --no-inline          do not expand inline frames\n" \
	"  --lines              add (FILE:LINE) to every frame name\n" \
	"  -h, --help           show this help\n"

struct cli_opts {
	uint32_t *tids;
	size_t ntids;
	regex_t thread_re;
	int have_thread_re;
	int state;               /* enum profile_state */
	uint64_t from, to;       /* ns since the start; to only if has_to */
	int has_to;
	int thread_frames;
	const char **symbol_dirs;
	size_t nsymbol_dirs;
	const char **packs;      /* --pack */
	size_t npacks;
	int embed;               /* pack --embed */
	int addresses;
	int no_inline;
	int lines;
	const char *output;      /* -o: write here instead of stdout */
	const char *title;       /* flame graphs: --title */
	unsigned width;          /* --width, pixels; default 1200 */
	double minwidth;         /* --minwidth, pixels; default 0.1 */
	regex_t focus_re, exclude_re; /* --focus, --exclude: frame names */
	int have_focus_re, have_exclude_re;
	int reverse, inverted;   /* --reverse, --inverted */
	int colors;              /* --colors: enum cli_colors */
	int negate;              /* diff --negate */
	int folded;              /* diff --folded */
	int sort;                /* top --sort: enum cli_sort */
	size_t limit;            /* top --limit; 0 for no limit */
	int group;               /* top --group: enum cli_group */
	const char *split_dir;   /* threads --split DIR */
	int format;              /* export --format: enum cli_format */
};

/* The words of --colors, --sort and --group, in this order. */
enum cli_colors { CLI_COLORS_HOT, CLI_COLORS_IMAGE, CLI_COLORS_LANG };
enum cli_sort { CLI_SORT_SELF, CLI_SORT_TOTAL, CLI_SORT_NAME };
enum cli_group { CLI_GROUP_FUNCTION, CLI_GROUP_IMAGE, CLI_GROUP_LINE };
/* --format's words follow CLI_FORMAT_NONE (not given). */
enum cli_format { CLI_FORMAT_NONE, CLI_FORMAT_PPROF, CLI_FORMAT_SPEEDSCOPE };

/* The flame-graph options, for the subcommands that draw one. */
#define CLI_GRAPH_HELP \
	"  -o, --output FILE    write the graph to FILE (default standard output)\n" \
	"  --title TEXT         the title (default \"Flame Graph\")\n" \
	"  --width PIXELS       the width (default 1200)\n" \
	"  --minwidth PIXELS    merge frames narrower than this (default 0.1); their\n" \
	"                       time stays in their callers\n" \
	CLI_LAYOUT_HELP

/* How a graph is laid out, for every subcommand that draws graphs. */
#define CLI_LAYOUT_HELP \
	"  --reverse            reverse the stacks: leaves at the base, callers above\n" \
	"  --inverted           an icicle graph, the base at the top\n"

/* Parses the options of a subcommand (argv[0] is its name) into o, which
 * the caller releases with cli_release(). Returns the index in argv of the
 * first operand. usage is the subcommand's full usage text. */
int cli_parse(int argc, char **argv, const char *usage, struct cli_opts *o);
void cli_release(struct cli_opts *o);

/* Requires exactly n operands from argv[first] on; else bad usage. */
void cli_require_operands(int argc, char **argv, int first, int n, const char *usage);
/* Prints "prof-report: MSG" and the first line of usage to stderr, and
 * exits 2. */
void cli_usage_error(const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* The filter view of o that the library modules take (borrowing from o). */
struct profile_filter cli_filter(const struct cli_opts *o);
/* The stream for path (-o), created or truncated, or standard output if
 * path is NULL; dies with a clear message if it cannot be created. */
FILE *cli_output_open(const char *path);
/* Closes what cli_output_open(path) returned (standard output through
 * diag_close_stdout()), and dies if anything written was lost. */
void cli_output_close(const char *path, FILE *f);

/* The profile options of o (borrowing from o): its filter, --thread-frames,
 * --focus and --exclude. */
struct profile_opts cli_profile_opts(const struct cli_opts *o);

/* A trace opened for a subcommand, as far as it asks: loaded, then
 * symbolized, then made into the filtered profile. Loading warns when the
 * trace was cut short, had corrupt chunks or was not finished cleanly. */
enum cli_stage { CLI_LOADED, CLI_SYMBOLIZED, CLI_PROFILED };
struct cli_trace {
	const char *path;
	struct trace *t;
	struct pack *pack;     /* the symbol packs, from CLI_SYMBOLIZED on */
	struct symbolize *sym; /* from CLI_SYMBOLIZED on, else NULL */
	struct profile *p;     /* at CLI_PROFILED, else NULL */
};
/* Opens path to the given stage under the options o, or dies with a clear
 * message. The symbol packs are the --pack files, then the pack embedded
 * in the trace, then TRACE.syms if it exists. Release with cli_close(). */
void cli_open(const struct cli_opts *o, const char *path, enum cli_stage stage,
	      struct cli_trace *ct);
void cli_close(struct cli_trace *ct);

#endif
