/*
 * test_opt.c: the option parser on a small table: values of every kind,
 * bundled and attached short options, long names and their prefixes,
 * operands moved after the options (or ending them, for a command line),
 * the errors and whether they show the usage, notes and refusals of
 * another tool's options, and the usage, -h and --list-options printed
 * from the table.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/opt.h"

static const char *const color_words[] = { "red", "green", "blue", NULL };
static const char *const graph_words[] = { "fp", "dwarf", NULL };

static struct {
	int force, quiet, color, note, version;
	const char *out;
	uint64_t n;
	double scale;
	struct opt_time wait;
	struct opt_uints ids;
	struct opt_strings dirs;
	struct opt_regex re;
} v;

static const struct opt_option options[] = {
	OPT_STRING('o', "output", "FILE", &v.out, "write to FILE"),
	OPT_FLAG('f', NULL, &v.force, "force"),
	OPT_FLAG('q', "quiet", &v.quiet, "quiet"),
	OPT_UINT('n', NULL, "N", &v.n, 1, 10, "a count\nof two lines"),
	OPT_WORD(0, "color", "COLOR", &v.color, color_words, "red, green or blue"),
	{ .kind = OPT_KIND_SECONDS, .long_name = "wait", .arg = "SECONDS", .value = &v.wait,
	  .min = 1, .max = 100, .help = "wait this long" },
	{ .kind = OPT_KIND_FLAG, .long_name = "version", .value = &v.version,
	  .attr = OPT_ATTR_ALONE, .help = "the version" },
	OPT_NOTE('g', "graph", &v.note, graph_words, "graphs are always drawn"),
	OPT_REFUSE('a', "all", "this tool reads one file"),
	OPT_GROUP("more options"),
	OPT_DECIMAL(0, "scale", "X", &v.scale, 5, "scale"),
	OPT_UINTS(0, "id", "ID", &v.ids, 0, 99, "an id (repeatable)"),
	OPT_STRINGS(0, "match-dir", "DIR", &v.dirs, "a directory (repeatable)"),
	OPT_REGEX(0, "match", "REGEX", &v.re, "a regex"),
	OPT_END,
};
static const struct opt_command cmd = { "demo", "[FILE...]", 0, -1, "Demonstrates.", options };

static struct opt_error err;

/* Parses the NULL-terminated words (argv[0] included) by c, into argv. */
#define MAX_ARGS 32
static char *argv[MAX_ARGS];
static int parse(const struct opt_command *c, const char *const *words)
{
	int argc = 0;

	opt_release(c);
	memset(&v, 0, sizeof(v));
	memset(&err, 0, sizeof(err));
	while (words[argc]) {
		cr_assert_lt(argc, MAX_ARGS - 1, "more words than MAX_ARGS holds");
		argv[argc] = (char *)words[argc], argc++;
	}
	argv[argc] = NULL;
	return opt_parse_args(c, argc, argv, &err);
}
#define PARSE(...) parse(&cmd, (const char *const[]){ "demo", __VA_ARGS__, NULL })

static void setup(void)
{
	diag_set_progname("prog");
}

TestSuite(opt, .init = setup);

Test(opt, values_of_every_kind)
{
	int first = PARSE("-o", "out", "-fq", "-n7", "--color=green", "--wait", "1.5", "--scale",
			  "2.5", "--id", "3", "--id=4", "--match-dir", "d", "--match", "^a+$");

	cr_assert_eq(first, 17);
	cr_assert_str_eq(v.out, "out");
	cr_assert(v.force && v.quiet);
	cr_assert_eq(v.n, 7);
	cr_assert_eq(v.color, 1);
	cr_assert(v.wait.set && v.wait.ns == 1500000000ull);
	cr_assert_eq(v.scale, 2.5);
	cr_assert(v.ids.n == 2 && v.ids.v[0] == 3 && v.ids.v[1] == 4);
	cr_assert(v.dirs.n == 1 && !strcmp(v.dirs.v[0], "d"));
	cr_assert(v.re.set && regexec(&v.re.re, "aaa", 0, NULL, 0) == 0);
	opt_release(&cmd);
	cr_assert(!v.ids.v && !v.dirs.v && !v.re.set);
}

Test(opt, an_attached_short_value_ends_the_bundle)
{
	cr_assert_eq(PARSE("-fooutfile"), 2);
	cr_assert(v.force);
	cr_assert_str_eq(v.out, "outfile");
}

Test(opt, long_names_shortened_when_one_matches)
{
	cr_assert_eq(PARSE("--out", "x", "--col", "blue"), 5);
	cr_assert_str_eq(v.out, "x");
	cr_assert_eq(v.color, 2);
	cr_assert_eq(PARSE("--q"), 2);
	cr_assert(v.quiet);
	cr_assert_eq(PARSE("--mat", "x"), OPT_BAD_USAGE);
	cr_assert_str_eq(err.msg, "ambiguous option '--mat'");
	cr_assert_eq(PARSE("--match", "x"), 3); /* a whole name wins */
}

Test(opt, a_hidden_option_matches_only_in_full)
{
	cr_assert_eq(PARSE("--gr"), OPT_BAD_USAGE);
	cr_assert_str_eq(err.msg, "unknown option '--gr'");
	cr_assert_eq(PARSE("--graph"), 2);
	cr_assert(v.note);
}

Test(opt, operands_move_after_the_options)
{
	cr_assert_eq(PARSE("a", "-f", "b", "--", "-q", "c"), 3);
	cr_assert(v.force && !v.quiet);
	cr_assert_str_eq(argv[1], "-f");
	cr_assert_str_eq(argv[3], "a");
	cr_assert_str_eq(argv[4], "b");
	cr_assert_str_eq(argv[5], "-q");
	cr_assert_str_eq(argv[6], "c");
}

Test(opt, a_command_line_ends_the_options)
{
	static const struct opt_command run = { NULL, "-- COMMAND [ARG ...]", 0, OPT_COMMAND_LINE,
						"Runs.", options };
	const char *const words[] = { "prog", "-f", "ls", "-q", NULL };

	cr_assert_eq(parse(&run, words), 2);
	cr_assert(v.force && !v.quiet);
	cr_assert_str_eq(argv[2], "ls");
	cr_assert_str_eq(argv[3], "-q");
	cr_assert_eq(parse(&run, (const char *const[]){ "prog", "--", "-q", NULL }), 2);
	cr_assert(!v.quiet);
	cr_assert_str_eq(argv[2], "-q");
}

Test(opt, operand_counts)
{
	static const struct opt_command two = { "two", "A B", 2, 2, "Two.", options };

	cr_assert_eq(parse(&two, (const char *const[]){ "two", "a", NULL }), OPT_BAD_USAGE);
	cr_assert_str_eq(err.msg, "missing operands");
	cr_assert_eq(parse(&two, (const char *const[]){ "two", "a", "b", "c", NULL }), OPT_BAD_USAGE);
	cr_assert_str_eq(err.msg, "unexpected argument 'c'");
	cr_assert(err.usage);
}

Test(opt, errors_and_whether_usage_follows)
{
	static const struct {
		const char *args[3];
		const char *msg;
		int usage;
	} cases[] = {
		{ { "-x" }, "unknown option '-x'", 1 },
		{ { "--bogus" }, "unknown option '--bogus'", 1 },
		{ { "-o" }, "option '-o' needs a value", 1 },
		{ { "--quiet=1" }, "option '--quiet' takes no value", 1 },
		{ { "-n", "11" }, "option '-n': '11' is out of range (1 to 10)", 0 },
		{ { "-n", "x" }, "option '-n': 'x' is not a number", 0 },
		{ { "--scale", "6" }, "option '--scale': '6' is too large (at most 5)", 0 },
		{ { "--wait", "0" }, "option '--wait': '0' must be more than zero seconds", 0 },
		{ { "--color", "pink" }, "option '--color': 'pink' is not red, green or blue", 1 },
		{ { "--match", "(" }, "option '--match': bad regex '(': Unmatched ( or \\(", 1 },
		{ { "-fa" }, "unknown option '-a': this tool reads one file", 0 },
		{ { "--all=x" }, "unknown option '--all': this tool reads one file", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const *a = cases[i].args;

		cr_assert_eq(PARSE(a[0], a[1], a[2]), OPT_BAD_USAGE, "%s", a[0]);
		cr_assert_str_eq(err.msg, cases[i].msg);
		cr_assert_eq(err.usage, cases[i].usage, "%s", a[0]);
	}
}

Test(opt, a_note_takes_only_its_words)
{
	cr_assert_eq(PARSE("-g", "dwarf,8192", "x"), 3);
	cr_assert(v.note);
	cr_assert_str_eq(argv[3], "x");
	cr_assert_eq(PARSE("--graph", "x"), 2);
	cr_assert_str_eq(argv[2], "x");
	cr_assert_eq(PARSE("--graph=anything"), 2);
}

static const char *check_quiet(const void *value)
{
	return *(const int *)value ? "quiet cannot be checked" : NULL;
}

Test(opt, required_options_and_group_checks)
{
	static const struct opt_option req[] = {
		{ .kind = OPT_KIND_WORD, .long_name = "color", .arg = "COLOR", .value = &v.color,
		  .words = color_words, .attr = OPT_ATTR_REQUIRED, .help = "a color" },
		{ .kind = OPT_KIND_GROUP, .long_name = "checked", .value = &v.quiet,
		  .check = check_quiet },
		OPT_FLAG('q', NULL, &v.quiet, "quiet"),
		OPT_END,
	};
	static const struct opt_command c = { "req", "", 0, 0, "Requires.", req };

	cr_assert_eq(parse(&c, (const char *const[]){ "req", NULL }), OPT_BAD_USAGE);
	cr_assert_str_eq(err.msg, "missing option '--color COLOR': red, green or blue");
	cr_assert_eq(parse(&c, (const char *const[]){ "req", "--color", "red", NULL }), 3);
	cr_assert_eq(parse(&c, (const char *const[]){ "req", "--color", "red", "-q", NULL }),
		     OPT_BAD_USAGE);
	cr_assert_str_eq(err.msg, "quiet cannot be checked");
}

Test(opt, help_and_list_are_asked_for)
{
	cr_assert_eq(PARSE("-fh"), OPT_ASKED_HELP);
	cr_assert_eq(PARSE("--he"), OPT_ASKED_HELP);
	cr_assert_eq(PARSE("--list-options"), OPT_ASKED_LIST);
	cr_assert_eq(PARSE("--list"), OPT_BAD_USAGE);
}

/* The text of fn(c), for a comparison. */
static char *text(void (*fn)(struct buf *, const struct opt_command *), const struct opt_command *c)
{
	struct buf b;

	buf_init(&b);
	fn(&b, c);
	return (char *)b.data;
}

Test(opt, help_from_the_table)
{
	char *h = text(opt_help, &cmd);

	cr_assert_str_eq(h,
		"usage: prog demo [-fq] [-o FILE] [-n N] [--color COLOR] [--wait SECONDS]\n"
		"                 [more options] [FILE...]\n"
		"\n"
		"Demonstrates.\n"
		"\n"
		"  -o, --output FILE    write to FILE\n"
		"  -f                   force\n"
		"  -q, --quiet          quiet\n"
		"  -n N                 a count\n"
		"                       of two lines\n"
		"  --color COLOR        red, green or blue\n"
		"  --wait SECONDS       wait this long\n"
		"  -h, --help           show this help\n"
		"  --version            the version\n"
		"\n"
		"more options:\n"
		"  --scale X            scale\n"
		"  --id ID              an id (repeatable)\n"
		"  --match-dir DIR      a directory (repeatable)\n"
		"  --match REGEX        a regex\n");
	free(h);
}

Test(opt, a_programs_usage_has_its_alternatives_and_lone_options)
{
	static const struct opt_option few[] = {
		OPT_FLAG('f', NULL, &v.force, "force"),
		{ .kind = OPT_KIND_UINT, .short_name = 'p', .arg = "PID", .value = &v.n, .max = 9,
		  .attr = OPT_ATTR_OPERAND, .help = "a process" },
		{ .kind = OPT_KIND_FLAG, .long_name = "version", .value = &v.version,
		  .attr = OPT_ATTR_ALONE, .help = "the version" },
		OPT_REFUSE('a', "all", "no"),
		OPT_END,
	};
	static const struct opt_command prog = { NULL, "-- COMMAND\n-p PID", 0, OPT_COMMAND_LINE,
						 "Runs.", few };
	char *u = text(opt_usage, &prog);

	cr_assert_str_eq(u, "usage: prog [-f] -- COMMAND\n"
			    "       prog [-f] -p PID\n"
			    "       prog -h | --help\n"
			    "       prog --version\n");
	free(u);
}

Test(opt, list_for_completion)
{
	char *l = text(opt_list, &cmd);

	cr_assert_str_eq(l, "-h\n--help\n-o FILE\n--output FILE\n-f\n-q\n--quiet\n-n N\n"
			    "--color COLOR red green blue\n--wait SECONDS\n--version\n"
			    "--scale X\n--id ID\n--match-dir DIR\n--match REGEX\n");
	free(l);
}

/* An instant is seconds, or mark:NAME kept for the command to find; the
 * last one given wins either way, and a mark needs a name. */
Test(opt, instant_is_seconds_or_a_mark)
{
	static const struct opt_option inst[] = {
		OPT_INSTANT(0, "from", "SECONDS", &v.wait, 100, "from then"),
		OPT_END,
	};
	static const struct opt_command c = { "demo", NULL, 0, 0, "Demonstrates.", inst };

	cr_assert_eq(parse(&c, (const char *const[]){ "demo", "--from", "mark:a b", NULL }), 3);
	cr_assert(v.wait.set && v.wait.ns == 0);
	cr_assert_str_eq(v.wait.mark, "a b");
	cr_assert_eq(parse(&c, (const char *const[]){ "demo", "--from=mark:x", "--from", "2", NULL }), 4);
	cr_assert(v.wait.set && v.wait.ns == 2000000000ull && !v.wait.mark);
	cr_assert_eq(parse(&c, (const char *const[]){ "demo", "--from", "mark:", NULL }), OPT_BAD_USAGE);
	cr_assert_str_eq(err.msg, "option '--from': 'mark:' names no mark");
	cr_assert_eq(parse(&c, (const char *const[]){ "demo", "--from", "mark", NULL }), OPT_BAD_USAGE);
	cr_assert_str_eq(err.msg, "option '--from': 'mark' is not a number");
	opt_release(&c);
}
