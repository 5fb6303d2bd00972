/*
 * cli_options.h: the options several prof-report commands share, and the
 * views of them that the library modules take.
 *
 * Each cmd_*.c declares its options in a table for common/opt.h, and takes
 * the options that several commands share as groups declared once here:
 * CLI_FILTER_OPTIONS (which samples), CLI_FRAME_OPTIONS (how frames are
 * named), CLI_SYMBOL_OPTIONS (where names come from) and CLI_GRAPH_OPTIONS
 * (how a flame graph is drawn), and the single entries
 * CLI_OPT_THREAD_FRAMES and CLI_OPT_COLORS. What the options set is then
 * handed to the modules as their own structs: cli_filter() for stacks.h,
 * cli_profile_opts() for profile.h, cli_graph_opts() for flamegraph.h and
 * cli_symbolize_opts() for symbolize.h.
 */
#ifndef REPORT_CLI_OPTIONS_H
#define REPORT_CLI_OPTIONS_H

#include "common/opt.h"
#include "report/model/profile.h"
#include "report/model/stacks.h"
#include "report/output/flamegraph.h"
#include "report/symbols/srcfile.h"
#include "report/symbols/symbolize.h"

/* The options of every command that reports on a trace's samples. */
struct cli_report {
	/* filter options: which samples count */
	struct opt_uints tids;
	struct opt_regex thread;
	struct opt_uints pids;
	struct opt_regex process;
	int state;               /* enum stacks_state */
	struct opt_time from, to;
	struct opt_regex focus, exclude;
	/* frame options: how an address is named */
	int addresses, no_inline, lines, signatures;
	/* symbol options: where names come from */
	struct opt_strings symbols, packs;
	int offline;             /* --offline: no debuginfod servers */
	int thread_frames;       /* CLI_OPT_THREAD_FRAMES */
	int process_frames;      /* CLI_OPT_THREAD_FRAMES too */
	/* set by a command that shows nothing of a frame but its name (and
	 * so needs no line table unless --lines asks for lines) */
	int names_only;
};

/* The words of --state, in enum stacks_state's order. */
extern const char *const cli_state_words[];

/* The check of the filter group: --to must be later than --from (when
 * both are seconds; cli_open() checks marks). */
const char *cli_check_filter(const void *report);

#define CLI_FILTER_OPTIONS(r) \
	{ .kind = OPT_KIND_GROUP, .long_name = "filter options", \
	  .value = OPT_TYPED(struct cli_report, r), .check = cli_check_filter }, \
	OPT_UINTS(0, "tid", "TID", &(r)->tids, 0, UINT32_MAX, "only this thread (repeatable)"), \
	OPT_REGEX(0, "thread", "REGEX", &(r)->thread, \
		  "only threads whose name matches (extended regex)"), \
	OPT_UINTS(0, "pid", "PID", &(r)->pids, 0, UINT32_MAX, "only this process (repeatable)"), \
	OPT_REGEX(0, "process", "REGEX", &(r)->process, \
		  "only processes whose program's name matches"), \
	OPT_WORD(0, "state", "STATE", &(r)->state, cli_state_words, \
		 "all (the default), running, idle or preempted samples"), \
	OPT_INSTANT(0, "from", "SECONDS", &(r)->from, 1e9, \
		    "only samples this long after the start or later;\n" \
		    "mark:NAME, from the first mark NAME on"), \
	OPT_INSTANT(0, "to", "SECONDS", &(r)->to, 1e9, \
		    "only samples before this long after the start;\n" \
		    "mark:NAME, before the first mark NAME after --from"), \
	OPT_REGEX(0, "focus", "REGEX", &(r)->focus, \
		  "only stacks with a frame whose name matches"), \
	OPT_REGEX(0, "exclude", "REGEX", &(r)->exclude, \
		  "no stacks with a frame whose name matches")

#define CLI_FRAME_OPTIONS(r) \
	OPT_GROUP("frame options"), \
	OPT_FLAG(0, "addresses", &(r)->addresses, "show raw IMAGE+0xOFFSET frames"), \
	OPT_FLAG(0, "no-inline", &(r)->no_inline, "do not expand inline frames"), \
	OPT_FLAG(0, "lines", &(r)->lines, "add (FILE:LINE) to every frame name"), \
	OPT_FLAG(0, "signatures", &(r)->signatures, \
		 "name C++ functions by their full signature (return\n" \
		 "type and parameters), not their qualified name")

#define CLI_SYMBOL_OPTIONS(r) \
	OPT_GROUP("symbol options"), \
	OPT_STRINGS(0, "symbols", "DIR", &(r)->symbols, \
		    "also look for debug files in DIR (repeatable)"), \
	OPT_STRINGS(0, "pack", "FILE", &(r)->packs, \
		    "take symbols from this pack (repeatable), for images\n" \
		    "without a debug file; TRACE.syms is used by itself"), \
	OPT_FLAG(0, "offline", &(r)->offline, \
		 "fetch no debug file from the debuginfod servers of\n" \
		 "DEBUGINFOD_URLS")

/* Where source files are looked for (annotate, and pack --sources):
 * report/symbols/srcfile.h. */
struct cli_sources {
	struct opt_strings dirs, maps;
};
/* The check of the group: each --source-map is OLD=NEW. */
const char *cli_check_sources(const void *sources);
/* The finder the options ask for, with pack (or NULL) for text that no
 * file here has. Caller frees with srcfile_free(). */
struct srcfile *cli_srcfile(const struct cli_sources *o, struct pack *pack);

#define CLI_SOURCE_OPTIONS(o) \
	{ .kind = OPT_KIND_GROUP, .long_name = "source options", \
	  .value = OPT_TYPED(struct cli_sources, o), .check = cli_check_sources }, \
	OPT_STRINGS(0, "source-dir", "DIR", &(o)->dirs, \
		    "also look for sources under DIR, by their trailing\n" \
		    "path components (repeatable)"), \
	OPT_STRINGS(0, "source-map", "OLD=NEW", &(o)->maps, \
		    "look for sources under OLD in NEW (repeatable)")

/* The three groups of every command that reports on a trace's samples. */
#define CLI_REPORT_OPTIONS(r) CLI_FILTER_OPTIONS(r), CLI_FRAME_OPTIONS(r), CLI_SYMBOL_OPTIONS(r)

#define CLI_OPT_THREAD_FRAMES(r) \
	OPT_FLAG(0, "process-frames", &(r)->process_frames, \
		 "add a 'NAME [PID]' frame under the root"), \
	OPT_FLAG(0, "thread-frames", &(r)->thread_frames, \
		 "add a 'NAME [TID]' frame under the root (and\n" \
		 "the process's)")

/* How a flame graph is drawn. */
struct cli_graph {
	const char *title;
	uint64_t width;          /* pixels */
	double minwidth;         /* pixels */
	int reverse, inverted;
	int colors;              /* CLI_OPT_COLORS: enum flamegraph_palette */
};
#define CLI_GRAPH_INIT { .width = 1200, .minwidth = 0.1 }

/* The words of --colors, in enum flamegraph_palette's order. */
extern const char *const cli_color_words[];

/* title is the help of --title, which says its default. */
#define CLI_GRAPH_OPTIONS(g, title_help) \
	OPT_GROUP("graph options"), \
	OPT_STRING(0, "title", "TEXT", &(g)->title, title_help), \
	OPT_UINT(0, "width", "PIXELS", &(g)->width, 100, 100000, \
		 "the width (default 1200)"), \
	OPT_DECIMAL(0, "minwidth", "PIXELS", &(g)->minwidth, 1000, \
		    "merge frames narrower than this (default 0.1); their\n" \
		    "time stays in their callers"), \
	OPT_FLAG(0, "reverse", &(g)->reverse, \
		 "reverse the stacks: leaves at the base, callers above"), \
	OPT_FLAG(0, "inverted", &(g)->inverted, "an icicle graph, the base at the top")

#define CLI_OPT_COLORS(g) \
	OPT_WORD(0, "colors", "PALETTE", &(g)->colors, cli_color_words, \
		 "hot (default), image (a hue per image) or lang\n" \
		 "(Rust, C++, C, Go, unresolved)")

/* The views of r that the library modules take (borrowing from r). */
struct stacks_filter cli_filter(const struct cli_report *r);
struct profile_opts cli_profile_opts(const struct cli_report *r);
struct symbolize_opts cli_symbolize_opts(const struct cli_report *r);
/* The flame graph options of g (borrowed), without a subtitle. */
struct flamegraph_opts cli_graph_opts(const struct cli_graph *g);

#endif
