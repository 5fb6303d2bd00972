/*
 * opt.h: the command-line parser of both programs, driven by one table of
 * options per command.
 *
 * As in git's parse-options, a command declares its options in a table of
 * struct opt_option, every entry pointing at the variable it sets; the
 * parser accepts exactly those options (any other is bad usage, "unknown
 * option '--embed'"), and the usage lines, the option list of -h and the
 * words a shell's completion offers are all printed from the same table,
 * so none can drift from what is parsed. -h and --help are every command's;
 * so is --list-options, which the completion scripts read (see
 * opt_list()).
 *
 * A command is a program (prof-record) or a program's subcommand
 * ("prof-report folded"); messages name it as it was run, from
 * diag_progname(). Long options may be shortened to any prefix that names
 * one of them alone, as getopt_long allows.
 *
 * For main and cmd_* only: like common/parse.h, opt_parse() prints and
 * exits. -h prints the help to stdout and exits 0; bad usage prints a
 * message (and, for a mistake in the command line's shape, the usage
 * lines) to stderr and exits 2. opt_parse_args() is the same parser
 * without printing or exiting.
 */
#ifndef COMMON_OPT_H
#define COMMON_OPT_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

struct buf;

/* Bad usage, the exit status opt_parse() and opt_usage_error() exit with. */
#define OPT_EXIT_USAGE 2

/* What an entry of an option table parses, and the type its value points
 * at. */
enum opt_kind {
	OPT_KIND_END,     /* ends a table */
	OPT_KIND_GROUP,   /* starts a group: the rest up to the next are its options */
	OPT_KIND_FLAG,    /* int, set to 1 */
	OPT_KIND_STRING,  /* const char *, the argument (borrowed from argv) */
	OPT_KIND_STRINGS, /* struct opt_strings, every argument in turn */
	OPT_KIND_UINT,    /* uint64_t, a decimal integer in [min, max] */
	OPT_KIND_UINTS,   /* struct opt_uints: integers in [min, max], every one in turn */
	OPT_KIND_DECIMAL, /* double, a decimal number in [0, max] */
	OPT_KIND_SECONDS, /* struct opt_time: seconds in [0, max], kept as ns */
	OPT_KIND_INSTANT, /* struct opt_time: as SECONDS, or "mark:NAME" (a
	                   * name not empty), kept in mark for the command to
	                   * find */
	OPT_KIND_WORD,    /* int, the index of the argument in words */
	OPT_KIND_REGEX,   /* struct opt_regex: a POSIX extended regex */
	OPT_KIND_NOTE,    /* int, set to 1: another tool's option that is not
	                   * needed here; opt_parse() prints help as a note.
	                   * Takes a value only if one is attached ("--x=v")
	                   * or the next argument is one of words (or starts
	                   * with one and a ','). */
	OPT_KIND_REFUSE,  /* another tool's option that this one lacks: bad
	                   * usage, with help as the hint of what to do
	                   * instead; any attached value is ignored */
};

/* How an entry shows in the usage lines, -h and the completion. */
enum opt_attr {
	OPT_ATTR_REQUIRED = 1, /* must be given; shown without brackets */
	OPT_ATTR_HIDDEN = 2,   /* not shown anywhere; a long name matches only
	                        * in full */
	OPT_ATTR_OPERAND = 4,  /* shown by the command's operands, not among the
	                        * options of its usage lines ("-p PID") */
	OPT_ATTR_ALONE = 8,    /* a program's option used by itself
	                        * ("--version"): a usage line of its own */
};

struct opt_strings {
	const char **v;          /* borrowed from argv; the array is owned */
	size_t n;
};
struct opt_uints {
	uint32_t *v;
	size_t n;
};
struct opt_regex {
	regex_t re;
	int set;                 /* re is compiled (the last one given wins) */
};
struct opt_time {
	uint64_t ns;
	int set;                 /* the option was given */
	const char *mark;        /* INSTANT: the NAME of "mark:NAME" (borrowed
	                          * from argv), or NULL for seconds */
};

struct opt_option {
	int kind;                /* enum opt_kind */
	char short_name;         /* 'o', or 0 */
	const char *long_name;   /* "output", or NULL; for a group, its name */
	const char *arg;         /* the value's name in help ("FILE"), or NULL */
	const char *help;        /* one or more lines, '\n' between them */
	void *value;             /* what it sets, of the kind's type */
	uint64_t min, max;       /* UINT's and UINTS' range; DECIMAL and
	                          * SECONDS: max */
	const char *const *words;/* WORD and NOTE: NULL-terminated */
	int attr;                /* enum opt_attr, or'd */
	/* A group: what its options must say together, checked after
	 * parsing: NULL, or the message of a usage error. */
	const char *(*check)(const void *value);
};

/* A command: its name (NULL for a program without subcommands), its
 * operands as usage shows them ('\n' between alternatives, each a usage
 * line of its own), how many operands it takes, the paragraph its -h
 * prints after the usage lines, and its table. Options may follow
 * operands, as in git, up to a "--"; but when max_operands is
 * OPT_COMMAND_LINE, the operands are a command line to run, of any length,
 * and the first of them ends the options. */
struct opt_command {
	const char *name;
	const char *operands;
	int min_operands;
	int max_operands;        /* -1: no limit; or OPT_COMMAND_LINE */
	const char *about;
	const struct opt_option *options;
};
#define OPT_COMMAND_LINE (-2)

/* Entries. Each checks the type of what its value points at. */
#define OPT_TYPED(type, v) (1 ? (v) : (type *)NULL)
#define OPT_END { .kind = OPT_KIND_END }
#define OPT_GROUP(name) { .kind = OPT_KIND_GROUP, .long_name = (name) }
#define OPT_FLAG(s, l, v, h) \
	{ .kind = OPT_KIND_FLAG, .short_name = (s), .long_name = (l), .help = (h), \
	  .value = OPT_TYPED(int, v) }
#define OPT_STRING(s, l, a, v, h) \
	{ .kind = OPT_KIND_STRING, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = OPT_TYPED(const char *, v) }
#define OPT_STRINGS(s, l, a, v, h) \
	{ .kind = OPT_KIND_STRINGS, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = OPT_TYPED(struct opt_strings, v) }
#define OPT_UINT(s, l, a, v, lo, hi, h) \
	{ .kind = OPT_KIND_UINT, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = OPT_TYPED(uint64_t, v), .min = (lo), .max = (hi) }
#define OPT_UINTS(s, l, a, v, lo, hi, h) \
	{ .kind = OPT_KIND_UINTS, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = OPT_TYPED(struct opt_uints, v), .min = (lo), .max = (hi) }
#define OPT_DECIMAL(s, l, a, v, hi, h) \
	{ .kind = OPT_KIND_DECIMAL, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = OPT_TYPED(double, v), .max = (hi) }
#define OPT_SECONDS(s, l, a, v, hi, h) \
	{ .kind = OPT_KIND_SECONDS, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = OPT_TYPED(struct opt_time, v), .max = (hi) }
#define OPT_INSTANT(s, l, a, v, hi, h) \
	{ .kind = OPT_KIND_INSTANT, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = OPT_TYPED(struct opt_time, v), .max = (hi) }
#define OPT_WORD(s, l, a, v, w, h) \
	{ .kind = OPT_KIND_WORD, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = OPT_TYPED(int, v), .words = (w) }
#define OPT_REGEX(s, l, a, v, h) \
	{ .kind = OPT_KIND_REGEX, .short_name = (s), .long_name = (l), .arg = (a), .help = (h), \
	  .value = OPT_TYPED(struct opt_regex, v) }
#define OPT_NOTE(s, l, v, w, note) \
	{ .kind = OPT_KIND_NOTE, .short_name = (s), .long_name = (l), .help = (note), \
	  .value = OPT_TYPED(int, v), .words = (w), .attr = OPT_ATTR_HIDDEN }
#define OPT_REFUSE(s, l, hint) \
	{ .kind = OPT_KIND_REFUSE, .short_name = (s), .long_name = (l), .help = (hint), \
	  .attr = OPT_ATTR_HIDDEN }

/* What opt_parse_args() found instead of a command line to run. */
enum opt_outcome {
	OPT_BAD_USAGE = -1,  /* msg says why; usage says whether to show
	                      * the usage lines after it */
	OPT_ASKED_HELP = -2, /* -h or --help */
	OPT_ASKED_LIST = -3, /* --list-options */
};
struct opt_error {
	char msg[512];
	int usage;
};

/* Parses argv (argv[0] is the command's name) by c's table, and checks the
 * number of operands. Returns the index in argv of the first operand, the
 * operands having been moved after the options (in order, without the
 * "--" that ended the options), or an enum opt_outcome, with *e filled in
 * for OPT_BAD_USAGE. The values the table points at keep what they held
 * for options not given (their defaults); release them with
 * opt_release(), whatever was returned. */
int opt_parse_args(const struct opt_command *c, int argc, char **argv, struct opt_error *e);
/* As opt_parse_args(), and for what is not a command line to run, prints
 * (as the file comment says) and exits. Before returning, prints the note
 * of each OPT_KIND_NOTE option given. */
int opt_parse(const struct opt_command *c, int argc, char **argv);
/* Frees what parsing c's table allocated, and clears it. */
void opt_release(const struct opt_command *c);
/* Prints "PROG[ NAME]: MSG" and c's usage lines to stderr, and exits 2. */
void opt_usage_error(const struct opt_command *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Appends c's usage lines ("usage: PROG[ NAME] ...") to b. */
void opt_usage(struct buf *b, const struct opt_command *c);
/* Appends c's -h to b: the usage lines, c->about, and each option with its
 * help, own options first and then each group under its name. */
void opt_help(struct buf *b, const struct opt_command *c);
/* Appends what --list-options prints to b: a line for each name of each
 * option -h shows, "NAME", or "NAME ARG" for one that takes a value, and
 * then the words the value may be, if it is one of a list. */
void opt_list(struct buf *b, const struct opt_command *c);

#endif
