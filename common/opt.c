/*
 * opt.c: the option parser every command's table goes through, so that an
 * option means the same thing, and is refused the same way, in both
 * programs, and the usage, -h and completion cannot drift from what is
 * parsed.
 *
 * It parses by itself rather than through getopt_long, because it needs
 * what getopt cannot give: a value that is optional yet may stand apart
 * ("--call-graph dwarf", as perf takes it), options that exist only to
 * say what to do instead, and no global state between two parses. It keeps
 * getopt's conventions: short options bundle ("-fq", "-ofile"), a long
 * option's value follows it or an '=', a long name may be shortened, and
 * "--" ends the options.
 */
#include "common/opt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/parse.h"

/* Where an option's help starts in -h, and where usage lines wrap. */
#define HELP_COLUMN 23
#define USAGE_WIDTH 80

/* The entry -h and --help stand for, and --list-options's. */
static const struct opt_option help_option = { .long_name = "help", .short_name = 'h' };
static const struct opt_option list_option = { .long_name = "list-options",
					       .attr = OPT_ATTR_HIDDEN };

static int is_option(const struct opt_option *o)
{
	return o->kind != OPT_KIND_GROUP && o->kind != OPT_KIND_END;
}

static int shown(const struct opt_option *o)
{
	return is_option(o) && !(o->attr & OPT_ATTR_HIDDEN);
}

/* Whether o is a flag that usage bundles with the others ("[-fqv]"). */
static int bundled(const struct opt_option *o)
{
	return o->kind == OPT_KIND_FLAG && o->short_name && shown(o) &&
	       !(o->attr & (OPT_ATTR_REQUIRED | OPT_ATTR_OPERAND | OPT_ATTR_ALONE));
}

static int takes_value(const struct opt_option *o)
{
	return o->arg && o->kind != OPT_KIND_NOTE && o->kind != OPT_KIND_REFUSE;
}

/* "PROG" or "PROG NAME", as messages and usage name the command. */
static void add_command(struct buf *b, const struct opt_command *c)
{
	buf_addstr(b, diag_progname());
	if (c->name)
		buf_addf(b, " %s", c->name);
}

/* "a, b or c", of the NULL-terminated words. */
static void add_words(struct buf *b, const char *const *words, const char *sep, const char *last)
{
	for (int i = 0; words[i]; i++)
		buf_addf(b, "%s%s", i ? (words[i + 1] ? sep : last) : "", words[i]);
}

/* One word of a usage line: "[-o FILE]", "[--negate]", a required
 * "--format FORMAT", or a group's "[filter options]". */
static void add_usage_word(struct buf *b, const struct opt_option *o)
{
	if (o->kind == OPT_KIND_GROUP) {
		buf_addf(b, "[%s]", o->long_name);
		return;
	}
	if (!(o->attr & (OPT_ATTR_REQUIRED | OPT_ATTR_ALONE)))
		buf_addch(b, '[');
	if (o->short_name)
		buf_addf(b, "-%c", o->short_name);
	else
		buf_addf(b, "--%s", o->long_name);
	if (takes_value(o))
		buf_addf(b, " %s", o->arg);
	if (!(o->attr & (OPT_ATTR_REQUIRED | OPT_ATTR_ALONE)))
		buf_addch(b, ']');
}

/* Appends word to the usage line that started at *line, on a new line
 * indented by indent if it would pass USAGE_WIDTH. */
static void add_wrapped(struct buf *b, size_t *line, size_t indent, const char *word, size_t len)
{
	if (!len)
		return;
	if (b->len - *line + 1 + len > USAGE_WIDTH) {
		buf_addch(b, '\n');
		*line = b->len;
		buf_addf(b, "%*s", (int)indent, "");
	}
	buf_addf(b, " %.*s", (int)len, word);
}

/* One usage line: the command, its bundled flags, its other options one
 * by one, its groups by name, then the operands (len bytes of them),
 * wrapped under the first word after the command. */
static void add_usage_line(struct buf *b, const struct opt_command *c, const char *lead,
			   const char *operands, size_t len)
{
	struct buf word;
	size_t line = b->len, indent;
	int grouped = 0;

	buf_init(&word);
	buf_addf(b, "%s ", lead);
	add_command(b, c);
	indent = b->len - line;
	for (const struct opt_option *o = c->options; o->kind != OPT_KIND_END; o++)
		if (!grouped && bundled(o))
			buf_addf(&word, "%s%c", word.len ? "" : "[-", o->short_name);
		else
			grouped |= o->kind == OPT_KIND_GROUP;
	if (word.len)
		buf_addch(&word, ']');
	add_wrapped(b, &line, indent, (char *)word.data, word.len);
	grouped = 0;
	for (const struct opt_option *o = c->options; o->kind != OPT_KIND_END; o++) {
		grouped |= o->kind == OPT_KIND_GROUP;
		if (o->kind != OPT_KIND_GROUP &&
		    (grouped || !shown(o) || bundled(o) || (o->attr & (OPT_ATTR_OPERAND | OPT_ATTR_ALONE))))
			continue;
		buf_reset(&word);
		add_usage_word(&word, o);
		add_wrapped(b, &line, indent, (char *)word.data, word.len);
	}
	add_wrapped(b, &line, indent, operands, len);
	buf_addch(b, '\n');
	buf_release(&word);
}

void opt_usage(struct buf *b, const struct opt_command *c)
{
	const char *ops = c->operands ? c->operands : "", *lead = "usage:";
	struct buf word;

	for (;;) {
		size_t n = strcspn(ops, "\n");

		add_usage_line(b, c, lead, ops, n);
		lead = "      ";
		ops += n;
		if (!*ops++)
			break;
	}
	if (c->name)
		return;
	/* A program: its -h and the options it takes alone, a line each. */
	buf_init(&word);
	buf_addf(b, "%s ", lead);
	add_command(b, c);
	buf_addstr(b, " -h | --help\n");
	for (const struct opt_option *o = c->options; o->kind != OPT_KIND_END; o++) {
		if (!shown(o) || !(o->attr & OPT_ATTR_ALONE))
			continue;
		buf_reset(&word);
		add_usage_word(&word, o);
		buf_addf(b, "%s ", lead);
		add_command(b, c);
		buf_addf(b, " %s\n", (char *)word.data);
	}
	buf_release(&word);
}

/* One line of -h per line of help: the option's names on the first. */
static void add_help_entry(struct buf *b, const char *names, const char *help)
{
	size_t start = b->len;

	buf_addf(b, "  %s", names);
	for (const char *h = help; *h;) {
		size_t n = strcspn(h, "\n");

		if (b->len - start + 2 > HELP_COLUMN) {
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

/* "-o, --output FILE", "--title TEXT" or "-o FILE". */
static void add_names(struct buf *b, const struct opt_option *o)
{
	if (o->short_name)
		buf_addf(b, "-%c%s", o->short_name, o->long_name ? ", " : "");
	if (o->long_name)
		buf_addf(b, "--%s", o->long_name);
	if (takes_value(o))
		buf_addf(b, " %s", o->arg);
}

static void add_option_help(struct buf *b, const struct opt_option *o)
{
	struct buf names;

	buf_init(&names);
	add_names(&names, o);
	add_help_entry(b, (char *)names.data, o->help);
	buf_release(&names);
}

void opt_help(struct buf *b, const struct opt_command *c)
{
	const struct opt_option *o, *groups;

	opt_usage(b, c);
	buf_addf(b, "\n%s\n\n", c->about);
	for (o = c->options; is_option(o); o++)
		if (shown(o) && !(o->attr & OPT_ATTR_ALONE))
			add_option_help(b, o);
	groups = o;
	add_help_entry(b, "-h, --help", "show this help");
	for (o = c->options; o != groups; o++)
		if (shown(o) && (o->attr & OPT_ATTR_ALONE))
			add_option_help(b, o);
	for (o = groups; o->kind != OPT_KIND_END; o++) {
		if (o->kind == OPT_KIND_GROUP)
			buf_addf(b, "\n%s:\n", o->long_name);
		else if (shown(o))
			add_option_help(b, o);
	}
}

/* One line of --list-options: name, then its value's name and words. */
static void add_list_line(struct buf *b, char dash, const char *name, const struct opt_option *o)
{
	buf_addf(b, "-%s%s", dash ? "-" : "", name);
	if (takes_value(o)) {
		buf_addf(b, " %s", o->arg);
		if (o->words) {
			buf_addch(b, ' ');
			add_words(b, o->words, " ", " ");
		}
	}
	buf_addch(b, '\n');
}

void opt_list(struct buf *b, const struct opt_command *c)
{
	buf_addstr(b, "-h\n--help\n");
	for (const struct opt_option *o = c->options; o->kind != OPT_KIND_END; o++) {
		char s[2] = { o->short_name, 0 };

		if (!shown(o))
			continue;
		if (o->short_name)
			add_list_line(b, 0, s, o);
		if (o->long_name)
			add_list_line(b, 1, o->long_name, o);
	}
}

static int DIAG_PRINTF(3, 4) bad_usage(struct opt_error *e, int usage, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->usage = usage;
	return OPT_BAD_USAGE;
}

static const struct opt_option *find_short(const struct opt_command *c, char ch)
{
	for (const struct opt_option *o = c->options; o->kind != OPT_KIND_END; o++)
		if (is_option(o) && o->short_name == ch)
			return o;
	return ch == help_option.short_name ? &help_option : NULL;
}

/* Whether o's long name is name (len bytes), or starts with it and o may
 * be shortened. */
static int long_match(const struct opt_option *o, const char *name, size_t len, int exact)
{
	if (!o->long_name || strncmp(o->long_name, name, len))
		return 0;
	return exact ? !o->long_name[len] : !(o->attr & OPT_ATTR_HIDDEN);
}

/* The option named name (len bytes), exactly or as the one option whose
 * name starts with it; NULL, with *e filled in, if there is none. */
static const struct opt_option *find_long(const struct opt_command *c, const char *name,
					  size_t len, struct opt_error *e)
{
	const struct opt_option *found = NULL;
	const struct opt_option *builtin[] = { &help_option, &list_option };

	for (int exact = 1; exact >= 0 && !found; exact--) {
		int n = 0;

		for (const struct opt_option *o = c->options; o->kind != OPT_KIND_END; o++)
			if (is_option(o) && long_match(o, name, len, exact))
				n++, found = o;
		for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
			if (long_match(builtin[i], name, len, exact))
				n++, found = builtin[i];
		if (n > 1) {
			bad_usage(e, 1, "ambiguous option '--%.*s'", (int)len, name);
			return NULL;
		}
	}
	if (!found)
		bad_usage(e, 1, "unknown option '--%.*s'", (int)len, name);
	return found;
}

/* Whether arg is one of words, alone or before a ','. */
static int is_word(const char *arg, const char *const *words)
{
	for (size_t i = 0; words && words[i]; i++) {
		size_t n = strlen(words[i]);
		if (!strncmp(arg, words[i], n) && (!arg[n] || arg[n] == ','))
			return 1;
	}
	return 0;
}

/* Sets what o points at from arg (NULL for a flag); opt is its name in
 * messages. */
static int set_value(const struct opt_option *o, const char *opt, const char *arg,
		     struct opt_error *e)
{
	char why[PARSE_WHY_MAX];
	uint64_t u;
	double d;

	switch (o->kind) {
	case OPT_KIND_FLAG:
	case OPT_KIND_NOTE:
		*(int *)o->value = 1;
		return 0;
	case OPT_KIND_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_KIND_STRINGS: {
		struct opt_strings *s = o->value;

		s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
		s->v[s->n++] = arg;
		return 0;
	}
	case OPT_KIND_UINT:
	case OPT_KIND_UINTS:
		if (parse_uint(arg, o->min, o->max, &u, why) < 0)
			return bad_usage(e, 0, "option '%s': '%s' %s", opt, arg, why);
		if (o->kind == OPT_KIND_UINT) {
			*(uint64_t *)o->value = u;
		} else {
			struct opt_uints *l = o->value;

			l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
			l->v[l->n++] = (uint32_t)u;
		}
		return 0;
	case OPT_KIND_INSTANT:
		if (!strncmp(arg, "mark:", 5)) {
			struct opt_time *t = o->value;

			if (!arg[5])
				return bad_usage(e, 0, "option '%s': '%s' names no mark", opt, arg);
			*t = (struct opt_time){ .set = 1, .mark = arg + 5 };
			return 0;
		}
		/* fall through */
	case OPT_KIND_DECIMAL:
	case OPT_KIND_SECONDS:
		if (parse_decimal(arg, (double)o->max, &d, why) < 0)
			return bad_usage(e, 0, "option '%s': '%s' %s", opt, arg, why);
		if (o->kind == OPT_KIND_DECIMAL) {
			*(double *)o->value = d;
		} else {
			struct opt_time *t = o->value;

			t->ns = (uint64_t)(d * 1e9);
			t->set = 1;
			t->mark = NULL;
			if (t->ns < o->min) /* min is 1 ns at most: "not zero" */
				return bad_usage(e, 0, "option '%s': '%s' must be more than zero seconds",
						 opt, arg);
		}
		return 0;
	case OPT_KIND_WORD: {
		struct buf list;

		for (int i = 0; o->words[i]; i++)
			if (!strcmp(arg, o->words[i])) {
				*(int *)o->value = i;
				return 0;
			}
		buf_init(&list);
		add_words(&list, o->words, ", ", " or ");
		bad_usage(e, 1, "option '%s': '%s' is not %s", opt, arg, (char *)list.data);
		buf_release(&list);
		return OPT_BAD_USAGE;
	}
	case OPT_KIND_REGEX: {
		struct opt_regex *r = o->value;
		char msg[256];
		int err;

		if (r->set)
			regfree(&r->re);
		r->set = 0;
		err = regcomp(&r->re, arg, REG_EXTENDED | REG_NOSUB);
		if (err) {
			regerror(err, &r->re, msg, sizeof(msg));
			return bad_usage(e, 1, "option '%s': bad regex '%s': %s", opt, arg, msg);
		}
		r->set = 1;
		return 0;
	}
	}
	BUG("option '%s' of kind %d", opt, o->kind);
}

/* One parse: the command, the arguments, the index of the one being
 * read, and which of the table's entries were given. */
struct parser {
	const struct opt_command *c;
	int argc;
	char **argv;
	int i;
	unsigned char *given;
	struct opt_error *e;
};

/* Takes the option o, met as spelled with the value attached (or NULL) in
 * argv[i], and the value from the next argument if it needs one. */
static int take(struct parser *p, const struct opt_option *o, const char *spelled,
		const char *attached)
{
	char name[64];

	if (o == &help_option)
		return OPT_ASKED_HELP;
	if (o == &list_option)
		return OPT_ASKED_LIST;
	p->given[o - p->c->options] = 1;
	if (o->kind == OPT_KIND_REFUSE)
		return bad_usage(p->e, 0, "unknown option '%s': %s", spelled, o->help);
	if (o->kind == OPT_KIND_NOTE) {
		if (!attached && p->i + 1 < p->argc && is_word(p->argv[p->i + 1], o->words))
			p->i++;
		return set_value(o, spelled, NULL, p->e);
	}
	if (takes_value(o) && !attached) {
		if (p->i + 1 >= p->argc)
			return bad_usage(p->e, 1, "option '%s' needs a value", spelled);
		attached = p->argv[++p->i];
	} else if (!takes_value(o) && attached) {
		return bad_usage(p->e, 1, "option '%s' takes no value", spelled);
	}
	/* A value's messages name its option as -h lists it first. */
	if (o->long_name)
		snprintf(name, sizeof(name), "--%s", o->long_name);
	else
		snprintf(name, sizeof(name), "-%c", o->short_name);
	return set_value(o, name, attached, p->e);
}

/* Parses argv[i], an option or a bundle of short ones. */
static int parse_one(struct parser *p)
{
	const char *a = p->argv[p->i];
	const struct opt_option *o;
	char spelled[64];
	int r;

	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

		if (!(o = find_long(p->c, a + 2, len, p->e)))
			return OPT_BAD_USAGE;
		snprintf(spelled, sizeof(spelled), "%.*s", (int)(len + 2), a);
		return take(p, o, spelled, eq ? eq + 1 : NULL);
	}
	for (const char *s = a + 1; *s; s++) {
		if (!(o = find_short(p->c, *s)))
			return bad_usage(p->e, 1, "unknown option '-%c'", *s);
		snprintf(spelled, sizeof(spelled), "-%c", *s);
		if (takes_value(o))
			return take(p, o, spelled, s[1] ? s + 1 : NULL);
		if ((r = take(p, o, spelled, NULL)) < 0)
			return r;
	}
	return 0;
}

/* The checks once every option is in: required options, groups, and the
 * number of operands. */
static int check(const struct parser *p, char **ops, int nops)
{
	const struct opt_command *c = p->c;

	for (const struct opt_option *o = c->options; o->kind != OPT_KIND_END; o++) {
		const char *why;

		if ((o->attr & OPT_ATTR_REQUIRED) && !p->given[o - c->options]) {
			struct buf words;

			buf_init(&words);
			if (o->words) {
				buf_addstr(&words, ": ");
				add_words(&words, o->words, ", ", " or ");
			}
			bad_usage(p->e, 1, "missing option '--%s %s'%s", o->long_name, o->arg,
				  words.len ? (char *)words.data : "");
			buf_release(&words);
			return OPT_BAD_USAGE;
		}
		if (o->kind == OPT_KIND_GROUP && o->check && (why = o->check(o->value)))
			return bad_usage(p->e, 1, "%s", why);
	}
	if (nops < c->min_operands)
		return bad_usage(p->e, 1, "missing operands");
	if (c->max_operands >= 0 && nops > c->max_operands)
		return bad_usage(p->e, 1, "unexpected argument '%s'", ops[c->max_operands]);
	return 0;
}

int opt_parse_args(const struct opt_command *c, int argc, char **argv, struct opt_error *e)
{
	struct parser p = { .c = c, .argc = argc, .argv = argv, .e = e };
	char **ops = xcalloc((size_t)argc + 1, sizeof(*ops));
	char **rest = xcalloc((size_t)argc + 1, sizeof(*rest));
	int n = 0, nops = 0, nrest = 0, r = 0;

	while (c->options[n].kind != OPT_KIND_END)
		n++;
	p.given = xcalloc((size_t)n + 1, 1);
	for (p.i = 1; p.i < argc && r >= 0; p.i++) {
		const char *a = argv[p.i];
		int from = p.i;

		if (!strcmp(a, "--") || ((a[0] != '-' || !a[1]) && c->max_operands == OPT_COMMAND_LINE)) {
			if (!strcmp(a, "--"))
				rest[nrest++] = argv[p.i++];
			while (p.i < argc)
				ops[nops++] = argv[p.i++];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			ops[nops++] = argv[p.i];
			continue;
		}
		r = parse_one(&p);
		while (from <= p.i && from < argc)
			rest[nrest++] = argv[from++];
	}
	if (r >= 0)
		r = check(&p, ops, nops);
	if (r >= 0) {
		/* the options first, then the operands, as getopt leaves them */
		memcpy(argv + 1, rest, (size_t)nrest * sizeof(*argv));
		memcpy(argv + 1 + nrest, ops, (size_t)nops * sizeof(*argv));
		r = argc - nops;
	}
	free(p.given);
	free(ops);
	free(rest);
	return r;
}

int opt_parse(const struct opt_command *c, int argc, char **argv)
{
	struct opt_error e;
	struct buf b;
	int r = opt_parse_args(c, argc, argv, &e);

	if (r >= 0) {
		for (const struct opt_option *o = c->options; o->kind != OPT_KIND_END; o++)
			if (o->kind == OPT_KIND_NOTE && *(int *)o->value)
				fprintf(stderr, "%s: note: %s\n", diag_progname(), o->help);
		return r;
	}
	buf_init(&b);
	if (r == OPT_ASKED_HELP || r == OPT_ASKED_LIST) {
		if (r == OPT_ASKED_HELP)
			opt_help(&b, c);
		else
			opt_list(&b, c);
		fputs((char *)b.data, stdout);
		diag_close_stdout();
		exit(0);
	}
	add_command(&b, c);
	fprintf(stderr, "%s: %s\n", (char *)b.data, e.msg);
	buf_reset(&b);
	if (e.usage) {
		opt_usage(&b, c);
		fputs((char *)b.data, stderr);
	}
	exit(OPT_EXIT_USAGE);
}

void opt_usage_error(const struct opt_command *c, const char *fmt, ...)
{
	va_list ap;
	struct buf b;

	buf_init(&b);
	add_command(&b, c);
	fprintf(stderr, "%s: ", (char *)b.data);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	buf_reset(&b);
	opt_usage(&b, c);
	fprintf(stderr, "\n%s", (char *)b.data);
	exit(OPT_EXIT_USAGE);
}

void opt_release(const struct opt_command *c)
{
	for (const struct opt_option *o = c->options; o->kind != OPT_KIND_END; o++) {
		switch (o->kind) {
		case OPT_KIND_STRINGS: {
			struct opt_strings *s = o->value;

			free(s->v);
			*s = (struct opt_strings){ 0 };
			break;
		}
		case OPT_KIND_UINTS: {
			struct opt_uints *l = o->value;

			free(l->v);
			*l = (struct opt_uints){ 0 };
			break;
		}
		case OPT_KIND_REGEX: {
			struct opt_regex *r = o->value;

			if (r->set)
				regfree(&r->re);
			r->set = 0;
			break;
		}
		}
	}
}
