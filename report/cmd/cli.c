/*
 * cli.c: the option parser every subcommand's table goes through, so that
 * --tid or --state means the same thing everywhere and no command takes an
 * option it does not use; and one place that loads a trace and warns about
 * what was lost.
 *
 * At each parse a table becomes getopt_long's long options (an entry's
 * value is 256 plus its index) and short option string; -h and --help are
 * every command's. The usage line and the option list of -h are printed
 * from the same table, so they cannot drift from what is parsed.
 */
#include "report/cmd/cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/parse.h"
#include "format/trace_pack.h"
#include "report/symbols/pack.h"
#include "common/timing.h"

const char *const cli_state_words[] = { "all", "running", "idle", "preempted", NULL };
const char *const cli_color_words[] = { "hot", "image", "lang", NULL };

_Static_assert(STACKS_STATE_ALL == 0 && STACKS_STATE_RUNNING == 1 && STACKS_STATE_IDLE == 2 &&
		       STACKS_STATE_PREEMPTED == 3,
	       "cli_state_words are in enum stacks_state's order");
_Static_assert(FLAMEGRAPH_PALETTE_HOT == 0 && FLAMEGRAPH_PALETTE_IMAGE == 1 &&
		       FLAMEGRAPH_PALETTE_LANG == 2,
	       "cli_color_words are in enum flamegraph_palette's order");

/* Where an option's help starts in -h, and where usage lines wrap. */
#define HELP_COLUMN 23
#define USAGE_WIDTH 80

/* One word of the usage line: "[-o FILE]", "[--negate]", a required
 * "--format FORMAT", or a group's "[filter options]". */
static void add_usage_word(struct buf *b, const struct cli_option *o)
{
	if (o->kind == CLI_GROUP) {
		buf_addf(b, "[%s]", o->long_name);
		return;
	}
	if (!o->required)
		buf_addch(b, '[');
	if (o->short_name)
		buf_addf(b, "-%c", o->short_name);
	else
		buf_addf(b, "--%s", o->long_name);
	if (o->arg)
		buf_addf(b, " %s", o->arg);
	if (!o->required)
		buf_addch(b, ']');
}

/* The usage line of c: its own options one by one, then its groups by
 * name, then the operands, wrapped under the first word after the name. */
static void add_usage(struct buf *b, const struct cli_command *c)
{
	struct buf word;
	size_t line = b->len, indent;
	int grouped = 0;

	buf_init(&word);
	buf_addf(b, "usage: prof-report %s", c->name);
	indent = b->len - line;
	for (const struct cli_option *o = c->options;; o++) {
		buf_reset(&word);
		if (o->kind == CLI_END)
			buf_addstr(&word, c->operands);
		else if (o->kind == CLI_GROUP || !grouped)
			add_usage_word(&word, o);
		else
			continue;
		grouped |= o->kind == CLI_GROUP;
		if (b->len - line + 1 + word.len > USAGE_WIDTH) {
			buf_addch(b, '\n');
			line = b->len;
			buf_addf(b, "%*s", (int)indent, "");
		}
		buf_addf(b, " %s", (char *)word.data);
		if (o->kind == CLI_END)
			break;
	}
	buf_addch(b, '\n');
	buf_release(&word);
}

/* One line of -h per line of help: the option's names on the first. */
static void add_help_entry(struct buf *b, const char *names, const char *help)
{
	size_t start = b->len;

	buf_addf(b, "  %s", names);
	for (const char *h = help; *h;) {
		size_t n = strcspn(h, "\n");

		if (b->len - start + 1 > HELP_COLUMN) {
			buf_addch(b, '\n');
			start = b->len;
		}
		buf_addf(b, "%*s%.*s\n", (int)(HELP_COLUMN - (b->len - start)), "", (int)n, h);
		start = b->len;
		h += n;
		if (*h)
			h++;
	}
}

static void add_option_help(struct buf *b, const struct cli_option *o)
{
	char names[64];

	if (o->short_name)
		snprintf(names, sizeof(names), "-%c, --%s%s%s", o->short_name, o->long_name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	else
		snprintf(names, sizeof(names), "--%s%s%s", o->long_name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
	add_help_entry(b, names, o->help);
}

/* -h: the usage line, what the command does, its own options and -h, then
 * each group under its name. */
static void print_help(const struct cli_command *c)
{
	struct buf b;
	const struct cli_option *o;

	buf_init(&b);
	add_usage(&b, c);
	buf_addf(&b, "\n%s\n\n", c->about);
	for (o = c->options; o->kind != CLI_END && o->kind != CLI_GROUP; o++)
		add_option_help(&b, o);
	add_help_entry(&b, "-h, --help", "show this help");
	for (; o->kind != CLI_END; o++) {
		if (o->kind == CLI_GROUP)
			buf_addf(&b, "\n%s:\n", o->long_name);
		else
			add_option_help(&b, o);
	}
	fputs((char *)b.data, stdout);
	buf_release(&b);
	diag_close_stdout();
	exit(0);
}

static void DIAG_NORETURN usage_error_v(const struct cli_command *c, const char *prog,
					const char *fmt, va_list ap)
{
	struct buf b;

	fprintf(stderr, "%s %s: ", prog, c->name);
	vfprintf(stderr, fmt, ap);
	buf_init(&b);
	add_usage(&b, c);
	fprintf(stderr, "\n%s", (char *)b.data);
	buf_release(&b);
	exit(2);
}

void cli_usage_error(const struct cli_command *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	usage_error_v(c, diag_progname(), fmt, ap);
}

/* As cli_usage_error(), while the program's name is "prof-report NAME". */
static void DIAG_NORETURN parse_error(const struct cli_command *c, const char *prog,
				      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	usage_error_v(c, prog, fmt, ap);
}

/* "a, b or c", of the NULL-terminated words. */
static void add_words(struct buf *b, const char *const *words)
{
	for (int i = 0; words[i]; i++)
		buf_addf(b, "%s%s", i ? (words[i + 1] ? ", " : " or ") : "", words[i]);
}

/* The index of arg in the NULL-terminated words, or bad usage. */
static int pick_word(const struct cli_command *c, const char *prog, const char *opt,
		     const char *arg, const char *const *words)
{
	struct buf list;

	for (int i = 0; words[i]; i++)
		if (!strcmp(arg, words[i]))
			return i;
	buf_init(&list);
	add_words(&list, words);
	parse_error(c, prog, "option '%s': '%s' is not %s", opt, arg, (char *)list.data);
}

/* Sets what o points at from arg (NULL for a flag). */
static void set_value(const struct cli_command *c, const char *prog, const struct cli_option *o,
		      const char *arg)
{
	char opt[64], msg[256];

	snprintf(opt, sizeof(opt), "--%s", o->long_name);
	switch (o->kind) {
	case CLI_FLAG:
		*(int *)o->value = 1;
		break;
	case CLI_STRING:
		*(const char **)o->value = arg;
		break;
	case CLI_STRINGS: {
		struct cli_strings *s = o->value;

		s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
		s->v[s->n++] = arg;
		break;
	}
	case CLI_UINT:
		*(uint64_t *)o->value = parse_uint_opt(opt, arg, o->min, o->max);
		break;
	case CLI_DECIMAL:
		*(double *)o->value = parse_decimal_opt(opt, arg, (double)o->max);
		break;
	case CLI_SECONDS: {
		struct cli_time *t = o->value;

		t->ns = parse_seconds_opt(opt, arg, (double)o->max);
		t->set = 1;
		break;
	}
	case CLI_WORD:
		*(int *)o->value = pick_word(c, prog, opt, arg, o->words);
		break;
	case CLI_REGEX: {
		struct cli_regex *r = o->value;
		int err;

		if (r->set)
			regfree(&r->re);
		r->set = 0;
		err = regcomp(&r->re, arg, REG_EXTENDED | REG_NOSUB);
		if (err) {
			regerror(err, &r->re, msg, sizeof(msg));
			parse_error(c, prog, "option '%s': bad regex '%s': %s", opt, arg, msg);
		}
		r->set = 1;
		break;
	}
	case CLI_TIDS: {
		struct cli_tids *t = o->value;

		t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
		t->v[t->n++] = (uint32_t)parse_uint_opt(opt, arg, 0, UINT32_MAX);
		break;
	}
	default:
		BUG("option '%s' of kind %d", opt, o->kind);
	}
}

const char *cli_check_filter(const void *report)
{
	const struct cli_report *r = report;

	if (r->to.set && r->to.ns <= r->from.ns)
		return "option '--to' must be later than '--from'";
	return NULL;
}

int cli_parse(const struct cli_command *c, int argc, char **argv)
{
	const char *prog = diag_progname();
	struct option *longopts;
	struct buf shortopts;
	unsigned char *given;
	char *name;
	size_t n = 0, nl = 0;
	int ch;

	while (c->options[n].kind != CLI_END)
		n++;
	longopts = xcalloc(n + 2, sizeof(*longopts));
	given = xcalloc(n + 1, 1);
	buf_init(&shortopts);
	/* Options may follow the trace operand, as in git; "--" ends them.
	 * A leading ':' makes a missing value ':', not '?'. */
	buf_addstr(&shortopts, ":h");
	longopts[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &c->options[i];

		if (o->kind == CLI_GROUP)
			continue;
		longopts[nl++] = (struct option){ o->long_name, o->arg ? required_argument : no_argument,
						  NULL, 256 + (int)i };
		if (o->short_name)
			buf_addf(&shortopts, "%c%s", o->short_name, o->arg ? ":" : "");
	}
	/* Messages while parsing, common/parse.h's too, name the command. */
	name = xasprintf("%s %s", prog, c->name);
	diag_set_progname(name);
	opterr = 0;
	optind = 0; /* glibc: a full re-initialisation */
	while ((ch = getopt_long(argc, argv, (char *)shortopts.data, longopts, NULL)) != -1) {
		size_t i = n;

		if (ch == 'h')
			print_help(c);
		if (ch == ':')
			parse_error(c, prog, "option '%s' needs a value", argv[optind - 1]);
		if (ch >= 256)
			i = (size_t)ch - 256;
		else if (ch != '?')
			for (i = 0; i < n && c->options[i].short_name != ch; i++)
				;
		if (i == n) {
			if (optopt > 0 && optopt < 256)
				parse_error(c, prog, "unknown option '-%c'", optopt);
			parse_error(c, prog, "unknown option '%s'", argv[optind - 1]);
		}
		set_value(c, prog, &c->options[i], optarg);
		given[i] = 1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &c->options[i];
		const char *why;

		if (o->required && !given[i]) {
			struct buf words;

			buf_init(&words);
			if (o->words) {
				buf_addstr(&words, ": ");
				add_words(&words, o->words);
			}
			parse_error(c, prog, "missing option '--%s %s'%s", o->long_name, o->arg,
				    words.len ? (char *)words.data : "");
		}
		if (o->kind == CLI_GROUP && o->check && (why = o->check(o->value)))
			parse_error(c, prog, "%s", why);
	}
	if (argc - optind < (c->noperands < 0 ? -c->noperands : c->noperands))
		parse_error(c, prog, "missing %s", c->noperands == 1 ? "the trace file" : "operands");
	if (c->noperands >= 0 && argc - optind > c->noperands)
		parse_error(c, prog, "unexpected argument '%s'", argv[optind + c->noperands]);
	diag_set_progname(prog);
	free(name);
	free(longopts);
	free(given);
	buf_release(&shortopts);
	return optind;
}

void cli_release(const struct cli_command *c)
{
	for (const struct cli_option *o = c->options; o->kind != CLI_END; o++) {
		switch (o->kind) {
		case CLI_STRINGS: {
			struct cli_strings *s = o->value;

			free(s->v);
			*s = (struct cli_strings){ 0 };
			break;
		}
		case CLI_REGEX: {
			struct cli_regex *r = o->value;

			if (r->set)
				regfree(&r->re);
			r->set = 0;
			break;
		}
		case CLI_TIDS: {
			struct cli_tids *t = o->value;

			free(t->v);
			*t = (struct cli_tids){ 0 };
			break;
		}
		}
	}
}

struct stacks_filter cli_filter(const struct cli_report *r)
{
	return (struct stacks_filter){
		.tids = r->tids.v,
		.ntids = r->tids.n,
		.thread_re = r->thread.set ? &r->thread.re : NULL,
		.pids = r->pids.v,
		.npids = r->pids.n,
		.process_re = r->process.set ? &r->process.re : NULL,
		.state = r->state,
		.from = r->from.ns,
		.to = r->to.ns,
		.has_to = r->to.set,
		.focus = r->focus.set ? &r->focus.re : NULL,
		.exclude = r->exclude.set ? &r->exclude.re : NULL,
	};
}

struct profile_opts cli_profile_opts(const struct cli_report *r)
{
	return (struct profile_opts){ .filter = cli_filter(r), .thread_frames = r->thread_frames,
				      .process_frames = r->process_frames };
}

struct flamegraph_opts cli_graph_opts(const struct cli_graph *g)
{
	return (struct flamegraph_opts){
		.title = g->title, .width = (unsigned)g->width, .minwidth = g->minwidth,
		.reverse = g->reverse, .inverted = g->inverted, .palette = g->colors,
		.frame_info = profile_frame_info,
	};
}

static struct symbolize_opts symbolize_opts(const struct cli_report *r)
{
	return (struct symbolize_opts){
		.symbol_dirs = r->symbols.v,
		.nsymbol_dirs = r->symbols.n,
		.addresses = r->addresses,
		.no_inline = r->no_inline,
		.lines = r->lines,
		.names_only = r->names_only,
	};
}

void cli_chunk_names(struct buf *b, uint32_t seq, uint32_t nseq)
{
	if (nseq > 1)
		buf_addf(b, "chunks %" PRIu32 "-%" PRIu32, seq, seq + (nseq - 1));
	else
		buf_addf(b, "chunk %" PRIu32, seq);
}

/* The listed loss of this kind (and damage, for TRACE_LOSS_DAMAGED; -1
 * for any), if it is the only one, or NULL. */
static const struct trace_loss *only_loss(const struct trace_load_status *st, int kind, int damage)
{
	const struct trace_loss *found = NULL;

	for (size_t i = 0; i < st->nlosses; i++) {
		const struct trace_loss *l = &st->losses[i];
		if (l->kind != kind || (damage >= 0 && l->damage != damage))
			continue;
		if (found)
			return NULL;
		found = l;
	}
	return found;
}

/* Appends ", " and then a count of chunks, naming the chunk if it is the
 * only one listed. */
static void add_chunks(struct buf *b, const struct trace_load_status *st, int kind,
		       uint64_t count, const char *what)
{
	const struct trace_loss *l = only_loss(st, kind, -1);

	buf_addstr(b, ", ");
	if (count == 1 && l && l->nseq == 1)
		cli_chunk_names(b, l->seq, 1);
	else
		buf_addf(b, "%" PRIu64 " chunks", count);
	buf_addf(b, " %s", what);
}

/* The one warning for a trace (a footer is due) or a pack that did not
 * read back whole: what was lost, in a line. */
static void warn_loss(const char *what, const char *path, const struct trace_load_status *st,
		      int trace)
{
	const struct trace_loss *cut = only_loss(st, TRACE_LOSS_CUT, -1);
	struct buf b;

	buf_init(&b);
	if (st->chunks_missing)
		add_chunks(&b, st, TRACE_LOSS_MISSING, st->chunks_missing, "missing");
	if (st->chunks_damaged)
		add_chunks(&b, st, TRACE_LOSS_DAMAGED, st->chunks_damaged, "damaged");
	else if (st->bytes_damaged)
		buf_addf(&b, ", %" PRIu64 " bytes damaged", st->bytes_damaged);
	if (only_loss(st, TRACE_LOSS_DAMAGED, TRACE_DAMAGE_FOOTER))
		buf_addstr(&b, ", its footer disagrees with its chunks");
	if (cut)
		buf_addf(&b, ", cut short (%" PRIu64 " bytes of chunk %" PRIu32 " lost)", cut->bytes,
			 cut->seq);
	if (trace && st->samples_dropped)
		buf_addf(&b, ", %" PRIu64 " sample%s dropped", st->samples_dropped,
			 st->samples_dropped == 1 ? "" : "s");
	if (only_loss(st, TRACE_LOSS_UNFINISHED, -1))
		buf_addstr(&b, ", not finished cleanly (no footer)");
	if (b.len)
		warning("%s'%s' is incomplete: %s", what, path, (char *)b.data + 2);
	buf_release(&b);
}

static struct trace *load_trace(const char *path)
{
	struct trace *t = NULL;
	int err, prev = timing_enter(TIMING_OPEN);

	err = trace_load(path, &t);
	timing_leave(prev);
	if (err < 0)
		die("cannot read '%s': %s", path, prof_strerror(err));
	warn_loss("", path, &t->status, 1);
	return t;
}

int cli_output_is_stdout(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

FILE *cli_output_open(const char *path)
{
	FILE *f;

	if (cli_output_is_stdout(path))
		return stdout;
	if (!(f = fopen(path, "w")))
		die_errno("cannot create '%s'", path);
	return f;
}

void cli_output_close(const char *path, FILE *f)
{
	if (cli_output_is_stdout(path))
		diag_close_stdout();
	else if (fclose(f) != 0)
		die_errno("cannot write '%s'", path);
}

static struct pack *load_packs(const struct cli_report *r, const char *path, struct trace *t)
{
	struct pack *p = pack_new();
	struct trace_pack *s;
	char *side = xasprintf("%s.syms", path);
	size_t i;
	int err;

	for (i = 0; i < r->packs.n; i++) {
		if ((err = trace_pack_load(r->packs.v[i], &s)) < 0)
			die("cannot read pack '%s': %s", r->packs.v[i], prof_strerror(err));
		warn_loss("pack ", r->packs.v[i], &s->status, 0);
		pack_add(p, s, r->packs.v[i], 1);
	}
	if (t->pack)
		pack_add(p, t->pack, path, 0);
	if (access(side, F_OK) == 0) {
		if ((err = trace_pack_load(side, &s)) < 0) {
			warning("not using pack '%s': %s", side, prof_strerror(err));
		} else {
			warn_loss("pack ", side, &s->status, 0);
			pack_add(p, s, side, 1);
		}
	}
	free(side);
	return p;
}

void cli_open(const struct cli_report *r, const char *path, enum cli_stage stage,
	      struct cli_trace *ct)
{
	struct symbolize_opts so = symbolize_opts(r);
	struct profile_opts po = cli_profile_opts(r);

	*ct = (struct cli_trace){ .path = path, .t = load_trace(path) };
	if (stage >= CLI_SYMBOLIZED) {
		if (!r->addresses)
			so.pack = ct->pack = load_packs(r, path, ct->t);
		ct->sym = symbolize_new(ct->t, &so);
	}
	ct->stacks = stacks_new(ct->t, ct->sym);
	if (stage >= CLI_PROFILED) {
		timing_enter(TIMING_PROFILE);
		ct->p = profile_build(ct->stacks, &po);
	}
	timing_enter(TIMING_OUTPUT);
}

void cli_close(struct cli_trace *ct)
{
	timing_enter(TIMING_RELEASE);
	profile_free(ct->p);
	stacks_free(ct->stacks);
	symbolize_free(ct->sym);
	pack_free(ct->pack);
	trace_free(ct->t);
}
