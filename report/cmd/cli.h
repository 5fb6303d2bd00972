/*
 * cli.h: prof-report's option tables, and the trace every subcommand opens.
 *
 * As in git's parse-options, each cmd_*.c declares its options in a table
 * of struct cli_option, every entry pointing at the variable it sets, and
 * takes the options that several commands share as groups declared once
 * here: CLI_FILTER_OPTIONS (which samples), CLI_FRAME_OPTIONS (how frames
 * are named), CLI_SYMBOL_OPTIONS (where names come from) and
 * CLI_GRAPH_OPTIONS (how a flame graph is drawn), and the single entries
 * CLI_OPT_THREAD_FRAMES and CLI_OPT_COLORS. A command's table is the one
 * list of what it takes: the parser accepts exactly those options (any
 * other is bad usage, "prof-report folded: unknown option '--embed'"), and
 * the usage line and the option list of its -h are printed from it.
 *
 * For cmd_* only: like common/parse.h, these print and exit. -h prints the
 * usage to stdout and exits 0; bad usage prints a message and the usage
 * line to stderr and exits 2; a trace that cannot be loaded is a runtime
 * error (exit 1).
 */
#ifndef REPORT_CLI_H
#define REPORT_CLI_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/trace.h"
#include "report/output/flamegraph.h"
#include "report/model/profile.h"
#include "report/model/stacks.h"
#include "report/symbols/symbolize.h"

/* What an entry of an option table parses, and the type its value points
 * at. */
enum cli_kind {
	CLI_END,      /* ends a table */
	CLI_GROUP,    /* starts a group: the rest up to the next are its options */
	CLI_FLAG,     /* int, set to 1 */
	CLI_STRING,   /* const char *, the argument (borrowed from argv) */
	CLI_STRINGS,  /* struct cli_strings, every argument in turn */
	CLI_UINT,     /* uint64_t, a decimal integer in [min, max] */
	CLI_DECIMAL,  /* double, a decimal number in [0, max] */
	CLI_SECONDS,  /* struct cli_time: seconds in [0, max], kept as ns */
	CLI_WORD,     /* int, the index of the argument in words */
	CLI_REGEX,    /* struct cli_regex: a POSIX extended regex */
	CLI_TIDS,     /* struct cli_tids: thread or process ids, every argument in turn */
};

struct cli_strings {
	const char **v;          /* borrowed from argv; the array is owned */
	size_t n;
};
struct cli_regex {
	regex_t re;
	int set;                 /* re is compiled (the last one given wins) */
};
struct cli_time {
	uint64_t ns;
	int set;                 /* the option was given */
};
struct cli_tids {
	uint32_t *v;
	size_t n;
};

struct cli_option {
	int kind;                /* enum cli_kind */
	char short_name;         /* 'o', or 0 */
	const char *long_name;   /* "output"; for CLI_GROUP, its name */
	const char *arg;         /* the value's name in help ("FILE"), or NULL */
	const char *help;        /* one or more lines, '\n' between them */
	void *value;             /* what it sets, of the kind's type */
	uint64_t min, max;       /* CLI_UINT's range; CLI_DECIMAL and
	                          * CLI_SECONDS: max */
	const char *const *words;/* CLI_WORD: NULL-terminated */
	int required;            /* must be given; shown without brackets */
	/* CLI_GROUP: what the group's options must say together, checked
	 * after parsing: NULL, or the message of a usage error. */
	const char *(*check)(const void *value);
};

/* A subcommand: its name, operands (as usage shows them; n of them are
 * required, exactly, or -n: n or more), the paragraph its -h prints after
 * the usage line, and its table. */
struct cli_command {
	const char *name;
	const char *operands;
	int noperands;
	const char *about;
	const struct cli_option *options;
};

/* Entries. Each checks the type of what its value points at. */
#define CLI_TYPED(type, v) (1 ? (v) : (type *)NULL)
#define CLI_OPT_END { .kind = CLI_END }
#define CLI_OPT_GROUP(name) { .kind = CLI_GROUP, .long_name = (name) }
#define CLI_OPT_FLAG(s, l, v, h) \
	{ .kind = CLI_FLAG, .short_name = (s), .long_name = (l), .help = (h), \
	  .value = CLI_TYPED(int, v) }
#define CLI_OPT_STRING(s, l, a, v, h) \
	{ .kind = CLI_STRING, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = CLI_TYPED(const char *, v) }
#define CLI_OPT_STRINGS(s, l, a, v, h) \
	{ .kind = CLI_STRINGS, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = CLI_TYPED(struct cli_strings, v) }
#define CLI_OPT_UINT(s, l, a, v, lo, hi, h) \
	{ .kind = CLI_UINT, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = CLI_TYPED(uint64_t, v), .min = (lo), .max = (hi) }
#define CLI_OPT_DECIMAL(s, l, a, v, hi, h) \
	{ .kind = CLI_DECIMAL, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = CLI_TYPED(double, v), .max = (hi) }
#define CLI_OPT_SECONDS(s, l, a, v, hi, h) \
	{ .kind = CLI_SECONDS, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = CLI_TYPED(struct cli_time, v), .max = (hi) }
#define CLI_OPT_WORD(s, l, a, v, w, h) \
	{ .kind = CLI_WORD, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = CLI_TYPED(int, v), .words = (w) }
#define CLI_OPT_REGEX(s, l, a, v, h) \
	{ .kind = CLI_REGEX, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = CLI_TYPED(struct cli_regex, v) }
#define CLI_OPT_TIDS(s, l, a, v, h) \
	{ .kind = CLI_TIDS, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = CLI_TYPED(struct cli_tids, v) }

/* The options of every command that reports on a trace's samples. */
struct cli_report {
	/* filter options: which samples count */
	struct cli_tids tids;
	struct cli_regex thread;
	struct cli_tids pids;
	struct cli_regex process;
	int state;               /* enum stacks_state */
	struct cli_time from, to;
	struct cli_regex focus, exclude;
	/* frame options: how an address is named */
	int addresses, no_inline, lines;
	/* symbol options: where names come from */
	struct cli_strings symbols, packs;
	int thread_frames;       /* CLI_OPT_THREAD_FRAMES */
	int process_frames;      /* CLI_OPT_THREAD_FRAMES too */
	/* set by a command that shows nothing of a frame but its name (and
	 * so needs no line table unless --lines asks for lines) */
	int names_only;
};

/* The words of --state, in enum stacks_state's order. */
extern const char *const cli_state_words[];

/* The check of the filter group: --to must be later than --from. */
const char *cli_check_filter(const void *report);

#define CLI_FILTER_OPTIONS(r) \
	{ .kind = CLI_GROUP, .long_name = "filter options", .value = CLI_TYPED(struct cli_report, r), \
	  .check = cli_check_filter }, \
	CLI_OPT_TIDS(0, "tid", "TID", &(r)->tids, "only this thread (repeatable)"), \
	CLI_OPT_REGEX(0, "thread", "REGEX", &(r)->thread, \
		      "only threads whose name matches (extended regex)"), \
	CLI_OPT_TIDS(0, "pid", "PID", &(r)->pids, "only this process (repeatable)"), \
	CLI_OPT_REGEX(0, "process", "REGEX", &(r)->process, \
		      "only processes whose program's name matches"), \
	CLI_OPT_WORD(0, "state", "STATE", &(r)->state, cli_state_words, \
		     "all (the default), running, idle or preempted samples"), \
	CLI_OPT_SECONDS(0, "from", "SECONDS", &(r)->from, 1e9, \
			"only samples this long after the start or later"), \
	CLI_OPT_SECONDS(0, "to", "SECONDS", &(r)->to, 1e9, \
			"only samples before this long after the start"), \
	CLI_OPT_REGEX(0, "focus", "REGEX", &(r)->focus, \
		      "only stacks with a frame whose name matches"), \
	CLI_OPT_REGEX(0, "exclude", "REGEX", &(r)->exclude, \
		      "no stacks with a frame whose name matches")

#define CLI_FRAME_OPTIONS(r) \
	CLI_OPT_GROUP("frame options"), \
	CLI_OPT_FLAG(0, "addresses", &(r)->addresses, "show raw IMAGE+0xOFFSET frames"), \
	CLI_OPT_FLAG(0, "no-inline", &(r)->no_inline, "do not expand inline frames"), \
	CLI_OPT_FLAG(0, "lines", &(r)->lines, "add (FILE:LINE) to every frame name")

#define CLI_SYMBOL_OPTIONS(r) \
	CLI_OPT_GROUP("symbol options"), \
	CLI_OPT_STRINGS(0, "symbols", "DIR", &(r)->symbols, \
			"also look for debug files in DIR (repeatable)"), \
	CLI_OPT_STRINGS(0, "pack", "FILE", &(r)->packs, \
			"take symbols from this pack (repeatable), for images\n" \
			"without a debug file; TRACE.syms is used by itself")

/* The three groups of every command that reports on a trace's samples. */
#define CLI_REPORT_OPTIONS(r) CLI_FILTER_OPTIONS(r), CLI_FRAME_OPTIONS(r), CLI_SYMBOL_OPTIONS(r)

#define CLI_OPT_THREAD_FRAMES(r) \
	CLI_OPT_FLAG(0, "process-frames", &(r)->process_frames, \
		     "add a 'NAME [PID]' frame under the root"), \
	CLI_OPT_FLAG(0, "thread-frames", &(r)->thread_frames, \
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
	CLI_OPT_GROUP("graph options"), \
	CLI_OPT_STRING(0, "title", "TEXT", &(g)->title, title_help), \
	CLI_OPT_UINT(0, "width", "PIXELS", &(g)->width, 100, 100000, \
		     "the width (default 1200)"), \
	CLI_OPT_DECIMAL(0, "minwidth", "PIXELS", &(g)->minwidth, 1000, \
			"merge frames narrower than this (default 0.1); their\n" \
			"time stays in their callers"), \
	CLI_OPT_FLAG(0, "reverse", &(g)->reverse, \
		     "reverse the stacks: leaves at the base, callers above"), \
	CLI_OPT_FLAG(0, "inverted", &(g)->inverted, "an icicle graph, the base at the top")

#define CLI_OPT_COLORS(g) \
	CLI_OPT_WORD(0, "colors", "PALETTE", &(g)->colors, cli_color_words, \
		     "hot (default), image (a hue per image) or lang\n" \
		     "(Rust, C++, C, Go, unresolved)")

/* Parses argv (argv[0] is the command's name) by c's table, and checks
 * that exactly c->noperands operands are left. Returns the index in argv
 * of the first operand. The values the table points at keep what they
 * held for options not given (their defaults); release them with
 * cli_release(). */
int cli_parse(const struct cli_command *c, int argc, char **argv);
/* Frees what parsing c's table allocated, and clears it. */
void cli_release(const struct cli_command *c);
/* Prints "prof-report NAME: MSG" and c's usage line to stderr, and exits
 * 2. */
void cli_usage_error(const struct cli_command *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* The views of r that the library modules take (borrowing from r). */
struct stacks_filter cli_filter(const struct cli_report *r);
struct profile_opts cli_profile_opts(const struct cli_report *r);
/* The flame graph options of g (borrowed), without a subtitle. */
struct flamegraph_opts cli_graph_opts(const struct cli_graph *g);

/* Whether -o path means standard output: no -o, or "-". */
int cli_output_is_stdout(const char *path);
/* The stream for path (-o), created or truncated, or standard output
 * (cli_output_is_stdout()); dies with a clear message if it cannot be
 * created. */
FILE *cli_output_open(const char *path);
/* Closes what cli_output_open(path) returned (standard output through
 * diag_close_stdout()), and dies if anything written was lost. */
void cli_output_close(const char *path, FILE *f);

struct buf;
/* Appends "chunk SEQ" to b, or "chunks SEQ-LAST" for nseq > 1. */
void cli_chunk_names(struct buf *b, uint32_t seq, uint32_t nseq);

/* A trace opened for a subcommand, as far as it asks: loaded, then
 * symbolized, then made into the filtered profile. Loading warns, in one
 * line, when the trace did not read back whole: chunks missing or
 * damaged, cut short, samples dropped, or not finished cleanly. */
enum cli_stage { CLI_LOADED, CLI_SYMBOLIZED, CLI_PROFILED };
struct cli_trace {
	const char *path;
	struct trace *t;
	struct pack *pack;     /* the symbol packs, from CLI_SYMBOLIZED on */
	struct symbolize *sym; /* from CLI_SYMBOLIZED on, else NULL */
	struct stacks *stacks; /* its stacks; frames from CLI_SYMBOLIZED on */
	struct profile *p;     /* at CLI_PROFILED, else NULL */
};
/* Opens path to the given stage under the options r, or dies with a clear
 * message. The symbol packs are the --pack files, then the pack embedded
 * in the trace, then TRACE.syms if it exists. Release with cli_close(). */
void cli_open(const struct cli_report *r, const char *path, enum cli_stage stage,
	      struct cli_trace *ct);
void cli_close(struct cli_trace *ct);

#endif
