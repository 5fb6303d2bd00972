/*
 * cli.c: one getopt_long loop for the options all subcommands share, so
 * that --tid or --state means the same thing everywhere, and one place that
 * loads a trace and warns about what was lost.
 */
#include "cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/diag.h"
#include "common/parse.h"
#include "format/trace_syms.h"
#include "report/pack.h"

enum {
	OPT_TID = 256,
	OPT_THREAD,
	OPT_STATE,
	OPT_FROM,
	OPT_TO,
	OPT_THREAD_FRAMES,
	OPT_SYMBOLS,
	OPT_ADDRESSES,
	OPT_NO_INLINE,
	OPT_LINES,
	OPT_TITLE,
	OPT_WIDTH,
	OPT_MINWIDTH,
	OPT_FOCUS,
	OPT_EXCLUDE,
	OPT_REVERSE,
	OPT_INVERTED,
	OPT_COLORS,
	OPT_NEGATE,
	OPT_FOLDED,
	OPT_SORT,
	OPT_LIMIT,
	OPT_GROUP,
	OPT_SPLIT,
	OPT_FORMAT,
	OPT_PACK,
	OPT_EMBED,
};

/* Options may follow the trace operand, as in git; "--" ends them. */
static const char shortopts[] = ":ho:";
static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "thread", required_argument, NULL, OPT_THREAD },
	{ "state", required_argument, NULL, OPT_STATE },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "thread-frames", no_argument, NULL, OPT_THREAD_FRAMES },
	{ "symbols", required_argument, NULL, OPT_SYMBOLS },
	{ "addresses", no_argument, NULL, OPT_ADDRESSES },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "output", required_argument, NULL, 'o' },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "focus", required_argument, NULL, OPT_FOCUS },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "group", required_argument, NULL, OPT_GROUP },
	{ "split", required_argument, NULL, OPT_SPLIT },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "pack", required_argument, NULL, OPT_PACK },
	{ "embed", no_argument, NULL, OPT_EMBED },
	{ NULL, 0, NULL, 0 },
};

void cli_usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", diag_progname());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	/* A short usage: the first line, and where the rest is. */
	fprintf(stderr, "\n%.*s\n", (int)strcspn(usage, "\n"), usage);
	exit(2);
}

/* Compiles arg for option opt into *re (replacing an earlier one), or
 * exits with bad usage. */
static void compile_re(const char *usage, const char *opt, const char *arg, regex_t *re, int *have)
{
	char msg[256];
	int err;

	if (*have)
		regfree(re);
	*have = 0;
	err = regcomp(re, arg, REG_EXTENDED | REG_NOSUB);
	if (err) {
		regerror(err, re, msg, sizeof(msg));
		cli_usage_error(usage, "option '%s': bad regex '%s': %s", opt, arg, msg);
	}
	*have = 1;
}

/* The index of arg in the NULL-terminated words, or bad usage. */
static int pick_word(const char *usage, const char *opt, const char *arg, const char *const *words)
{
	char list[128] = "";

	for (int i = 0; words[i]; i++)
		if (!strcmp(arg, words[i]))
			return i;
	for (int i = 0; words[i]; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? (words[i + 1] ? ", " : " or ") : "", words[i]);
	cli_usage_error(usage, "option '%s': '%s' is not %s", opt, arg, list);
}

static const char *const color_words[] = { "hot", "image", "lang", NULL };
static const char *const sort_words[] = { "self", "total", "name", NULL };
static const char *const group_words[] = { "function", "image", "line", NULL };
static const char *const format_words[] = { "pprof", "speedscope", NULL };

int cli_parse(int argc, char **argv, const char *usage, struct cli_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->width = 1200;
	o->minwidth = 0.1;
	opterr = 0;
	optind = 0; /* glibc: a full re-initialisation */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage, stdout);
			diag_close_stdout();
			exit(0);
		case OPT_TID:
			o->tids = xrealloc(o->tids, (o->ntids + 1) * sizeof(*o->tids));
			o->tids[o->ntids++] = (uint32_t)parse_uint_opt("--tid", optarg, 0, UINT32_MAX);
			break;
		case OPT_THREAD:
			compile_re(usage, "--thread", optarg, &o->thread_re, &o->have_thread_re);
			break;
		case OPT_STATE:
			if (profile_state_parse(optarg, &o->state) < 0)
				cli_usage_error(usage, "option '--state': '%s' is not running, idle or all",
						optarg);
			break;
		case OPT_FROM:
			o->from = parse_seconds_opt("--from", optarg, 1e9);
			break;
		case OPT_TO:
			o->to = parse_seconds_opt("--to", optarg, 1e9);
			o->has_to = 1;
			break;
		case OPT_THREAD_FRAMES:
			o->thread_frames = 1;
			break;
		case OPT_SYMBOLS:
			o->symbol_dirs = xrealloc(o->symbol_dirs,
						  (o->nsymbol_dirs + 1) * sizeof(*o->symbol_dirs));
			o->symbol_dirs[o->nsymbol_dirs++] = optarg;
			break;
		case OPT_ADDRESSES:
			o->addresses = 1;
			break;
		case OPT_NO_INLINE:
			o->no_inline = 1;
			break;
		case OPT_LINES:
			o->lines = 1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_TITLE:
			o->title = optarg;
			break;
		case OPT_WIDTH:
			o->width = (unsigned)parse_uint_opt("--width", optarg, 100, 100000);
			break;
		case OPT_MINWIDTH:
			o->minwidth = parse_decimal_opt("--minwidth", optarg, 1000);
			break;
		case OPT_FOCUS:
			compile_re(usage, "--focus", optarg, &o->focus_re, &o->have_focus_re);
			break;
		case OPT_EXCLUDE:
			compile_re(usage, "--exclude", optarg, &o->exclude_re, &o->have_exclude_re);
			break;
		case OPT_REVERSE:
			o->reverse = 1;
			break;
		case OPT_INVERTED:
			o->inverted = 1;
			break;
		case OPT_COLORS:
			o->colors = pick_word(usage, "--colors", optarg, color_words);
			break;
		case OPT_NEGATE:
			o->negate = 1;
			break;
		case OPT_FOLDED:
			o->folded = 1;
			break;
		case OPT_SORT:
			o->sort = pick_word(usage, "--sort", optarg, sort_words);
			break;
		case OPT_LIMIT:
			o->limit = (size_t)parse_uint_opt("--limit", optarg, 1, SIZE_MAX);
			break;
		case OPT_GROUP:
			o->group = pick_word(usage, "--group", optarg, group_words);
			break;
		case OPT_SPLIT:
			o->split_dir = optarg;
			break;
		case OPT_FORMAT:
			o->format = CLI_FORMAT_PPROF + pick_word(usage, "--format", optarg, format_words);
			break;
		case OPT_PACK:
			o->packs = xrealloc(o->packs, (o->npacks + 1) * sizeof(*o->packs));
			o->packs[o->npacks++] = optarg;
			break;
		case OPT_EMBED:
			o->embed = 1;
			break;
		case ':':
			cli_usage_error(usage, "option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt > 0 && optopt < 256)
				cli_usage_error(usage, "unknown option '-%c'", optopt);
			cli_usage_error(usage, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->has_to && o->to <= o->from)
		cli_usage_error(usage, "option '--to' must be later than '--from'");
	return optind;
}

void cli_release(struct cli_opts *o)
{
	free(o->tids);
	free(o->symbol_dirs);
	free(o->packs);
	if (o->have_thread_re)
		regfree(&o->thread_re);
	if (o->have_focus_re)
		regfree(&o->focus_re);
	if (o->have_exclude_re)
		regfree(&o->exclude_re);
	memset(o, 0, sizeof(*o));
}

void cli_require_operands(int argc, char **argv, int first, int n, const char *usage)
{
	if (argc - first < n)
		cli_usage_error(usage, "missing %s", n == 1 ? "the trace file" : "operands");
	if (argc - first > n)
		cli_usage_error(usage, "unexpected argument '%s'", argv[first + n]);
}

struct profile_filter cli_filter(const struct cli_opts *o)
{
	return (struct profile_filter){
		.tids = o->tids,
		.ntids = o->ntids,
		.thread_re = o->have_thread_re ? &o->thread_re : NULL,
		.state = o->state,
		.from = o->from,
		.to = o->to,
		.has_to = o->has_to,
	};
}

static struct symbolize_opts symbolize_opts(const struct cli_opts *o)
{
	return (struct symbolize_opts){
		.symbol_dirs = o->symbol_dirs,
		.nsymbol_dirs = o->nsymbol_dirs,
		.addresses = o->addresses,
		.no_inline = o->no_inline,
		.lines = o->lines,
	};
}

static struct trace *load_trace(const char *path)
{
	struct trace *t = NULL;
	const struct trace_load_status *st;
	int err;

	err = trace_load(path, &t);
	if (err < 0)
		die("cannot read '%s': %s", path, trace_strerror(err));
	st = &t->status;
	if (st->tail_bytes_lost)
		warning("'%s' was cut short: %" PRIu64 " bytes after the last complete chunk are lost",
			path, st->tail_bytes_lost);
	else if (!st->has_footer)
		warning("'%s' was not finished cleanly (no footer)", path);
	if (st->chunks_corrupt)
		warning("'%s' has %" PRIu64 " corrupt chunk%s, skipped", path, st->chunks_corrupt,
			st->chunks_corrupt == 1 ? "" : "s");
	if (st->samples_dropped)
		warning("'%s': %" PRIu64 " samples refer to missing stacks and were dropped", path,
			st->samples_dropped);
	return t;
}

FILE *cli_output_open(const char *path)
{
	FILE *f;

	if (!path)
		return stdout;
	if (!(f = fopen(path, "w")))
		die_errno("cannot create '%s'", path);
	return f;
}

void cli_output_close(const char *path, FILE *f)
{
	if (!path)
		diag_close_stdout();
	else if (fclose(f) != 0)
		die_errno("cannot write '%s'", path);
}

struct profile_opts cli_profile_opts(const struct cli_opts *o)
{
	return (struct profile_opts){ .filter = cli_filter(o), .thread_frames = o->thread_frames,
				      .focus = o->have_focus_re ? &o->focus_re : NULL,
				      .exclude = o->have_exclude_re ? &o->exclude_re : NULL };
}

/* Warns of what reading the pack at path lost. */
static void warn_pack(const char *path, const struct trace_syms *s)
{
	const struct trace_load_status *st = &s->status;

	if (st->chunks_corrupt)
		warning("pack '%s' has %" PRIu64 " corrupt chunk%s, skipped", path, st->chunks_corrupt,
			st->chunks_corrupt == 1 ? "" : "s");
	if (st->tail_bytes_lost)
		warning("pack '%s' was cut short: %" PRIu64 " bytes after the last complete chunk are lost",
			path, st->tail_bytes_lost);
}

static struct pack *load_packs(const struct cli_opts *o, const char *path, struct trace *t)
{
	struct pack *p = pack_new();
	struct trace_syms *s;
	char *side = xasprintf("%s.syms", path);
	size_t i;
	int err;

	for (i = 0; i < o->npacks; i++) {
		if ((err = trace_syms_load(o->packs[i], &s)) < 0)
			die("cannot read pack '%s': %s", o->packs[i], trace_strerror(err));
		warn_pack(o->packs[i], s);
		pack_add(p, s, o->packs[i], 1);
	}
	if (t->syms)
		pack_add(p, t->syms, path, 0);
	if (access(side, F_OK) == 0) {
		if ((err = trace_syms_load(side, &s)) < 0) {
			warning("not using pack '%s': %s", side, trace_strerror(err));
		} else {
			warn_pack(side, s);
			pack_add(p, s, side, 1);
		}
	}
	free(side);
	return p;
}

void cli_open(const struct cli_opts *o, const char *path, enum cli_stage stage,
	      struct cli_trace *ct)
{
	struct symbolize_opts so = symbolize_opts(o);
	struct profile_opts po = cli_profile_opts(o);
	int err;

	*ct = (struct cli_trace){ .path = path, .t = load_trace(path) };
	if (stage < CLI_SYMBOLIZED)
		return;
	if (!o->addresses)
		so.pack = ct->pack = load_packs(o, path, ct->t);
	if ((err = symbolize_new(ct->t, &so, &ct->sym)) < 0)
		die("cannot symbolize '%s': %s", path, locate_strerror(err));
	if (stage < CLI_PROFILED)
		return;
	if ((err = profile_build(ct->t, ct->sym, &po, &ct->p)) < 0)
		die("cannot build the profile of '%s': %s", path, locate_strerror(err));
}

void cli_close(struct cli_trace *ct)
{
	profile_free(ct->p);
	symbolize_free(ct->sym);
	pack_free(ct->pack);
	trace_free(ct->t);
}
