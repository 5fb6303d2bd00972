/*
 * annotate.c: writing a function's lines and instructions with their
 * samples.
 *
 * Each function is first laid out (struct view): the file most of its
 * samples are in, its source, the span of lines its line table gives it,
 * its own lines in order and, with instructions, its code decoded from
 * the bytes the symbolizer finds. The text and the JSON writers then walk
 * that one layout, so they never disagree.
 */
#include "report/output/annotate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/json.h"
#include "common/text.h"
#include "report/symbols/disasm.h"

/* The most line-table rows read for a function's span, and the longest
 * text of a line shown. */
#define MAX_ROWS 65536
#define MAX_TEXT 512

struct insn {
	struct disasm_insn d;
	uint64_t self, total;
	const char *file;
	uint32_t line;
};

struct view {
	const struct annotate_fn *fn;
	const char *file;            /* the file most of its samples are in */
	const struct srcfile_file *src; /* file's source */
	uint32_t first, last;        /* its span in file: 0, 0 if unknown */
	size_t *top;                 /* its own lines (sites without parent):
	                              * file's by line, then the others' */
	size_t ntop;
	struct insn *insns;          /* with instructions */
	size_t ninsns;
	const char *why_no_code;     /* why insns is empty, if it is */
};

static int same_file(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static const struct view *cmp_view;

static int cmp_top(const void *x, const void *y)
{
	const struct annotate_site *a = &cmp_view->fn->sites[*(const size_t *)x];
	const struct annotate_site *b = &cmp_view->fn->sites[*(const size_t *)y];
	int ma = same_file(a->file, cmp_view->file), mb = same_file(b->file, cmp_view->file), c;

	if (ma != mb)
		return mb - ma;
	if (!same_file(a->file, b->file)) {
		if (!a->file || !b->file)
			return a->file ? -1 : 1;
		if ((c = strcmp(a->file, b->file)))
			return c;
	}
	return (a->line > b->line) - (a->line < b->line);
}

/* The file of the function's own line with the most samples. */
static const char *main_file(const struct annotate_fn *fn)
{
	const struct annotate_site *best = NULL;

	for (size_t i = 0; i < fn->nsites; i++) {
		const struct annotate_site *s = &fn->sites[i];

		if (s->parent == ANNOTATE_NONE && s->file && (!best || s->total > best->total))
			best = s;
	}
	return best ? best->file : NULL;
}

static const struct srcfile_file *source_of(const struct annotate_write_opts *o,
					   const struct annotate_site *s);

static void note(const struct annotate_write_opts *o, char *msg)
{
	if (o->note)
		o->note(msg);
	free(msg);
}

/* The link-time range of fn's code in its image, from the symbol of its
 * address with the most samples: of a function the compiler split in a
 * hot and a cold part (GCC's "f.cold"), the hot one. */
static int code_range(const struct annotate_write_opts *o, const struct annotate_fn *fn, uint64_t *lo,
		      uint64_t *hi)
{
	size_t hot = 0;

	if (fn->image < 0 || !fn->naddrs)
		return -1;
	for (size_t i = 1; i < fn->naddrs; i++)
		if (fn->addrs[i].total > fn->addrs[hot].total)
			hot = i;
	return symbolize_image_function(o->sym, (size_t)fn->image, fn->addrs[hot].at, lo, hi);
}

/* The function's own line at link-time address at, from its frames. */
static const struct symbolize_frame *line_at(const struct annotate_write_opts *o,
					     const struct annotate_fn *fn, uint64_t at)
{
	const struct symbolize_frame *fr;
	size_t n = symbolize_image_addr(o->sym, (size_t)fn->image, at, &fr);

	return fr[n - 1].resolved && !strcmp(fr[n - 1].name, fn->name) ? &fr[n - 1] : NULL;
}

static void decode(struct view *v, const struct annotate_write_opts *o, uint64_t lo, uint64_t hi)
{
	const struct annotate_fn *fn = v->fn;
	const uint8_t *code;
	const char *from = NULL;
	struct disasm *d = NULL;
	size_t len, off = 0, a = 0, cap = 0;
	int arch = 0, err;

	len = symbolize_image_code(o->sym, (size_t)fn->image, lo, hi - lo, &code, &arch, &from);
	if (!len) {
		v->why_no_code = from;
		return;
	}
	if ((err = disasm_new(arch, &d)) < 0) {
		v->why_no_code = prof_strerror(err);
		return;
	}
	while (off < len) {
		struct insn *in;
		const struct symbolize_frame *f;

		v->insns = xgrow(v->insns, &cap, v->ninsns + 1, sizeof(*v->insns));
		in = &v->insns[v->ninsns++];
		memset(in, 0, sizeof(*in));
		off += disasm_one(d, code + off, len - off, lo + off, &in->d);
		while (a < fn->naddrs && fn->addrs[a].at < in->d.address)
			a++;
		for (; a < fn->naddrs && fn->addrs[a].at < in->d.address + in->d.size; a++) {
			in->self += fn->addrs[a].self;
			in->total += fn->addrs[a].total;
		}
		if ((f = line_at(o, fn, in->d.address))) {
			in->file = f->file;
			in->line = f->line;
		}
	}
	disasm_free(d);
}

/* Lays out fn; says through o->note what cannot be shown. */
static void view_init(struct view *v, const struct annotate_fn *fn, const struct annotate_write_opts *o)
{
	uint64_t lo, hi;
	int have_range;

	memset(v, 0, sizeof(*v));
	v->fn = fn;
	v->file = main_file(fn);
	for (size_t i = 0; i < fn->nsites; i++) {
		const struct annotate_site *s = &fn->sites[i];

		if (s->parent != ANNOTATE_NONE)
			continue;
		v->top = xrealloc(v->top, (v->ntop + 1) * sizeof(*v->top));
		v->top[v->ntop++] = i;
		if (same_file(s->file, v->file) && s->line) {
			if (!v->first || s->line < v->first)
				v->first = s->line;
			if (s->line > v->last)
				v->last = s->line;
		}
	}
	cmp_view = v;
	qsort(v->top, v->ntop, sizeof(*v->top), cmp_top);
	if (v->ntop)
		v->src = source_of(o, &fn->sites[v->top[0]]);
	have_range = code_range(o, fn, &lo, &hi) == 0;
	if (have_range && v->file) {
		uint64_t *starts = xmalloc(MAX_ROWS * sizeof(*starts));
		size_t n = symbolize_image_rows(o->sym, (size_t)fn->image, lo, hi, starts, MAX_ROWS);

		for (size_t i = 0; i < n; i++) {
			const struct symbolize_frame *f = line_at(o, fn, starts[i]);

			if (!f || !f->line || !same_file(f->file, v->file))
				continue;
			if (!v->first || f->line < v->first)
				v->first = f->line;
			if (f->line > v->last)
				v->last = f->line;
		}
		free(starts);
	}
	if (v->src && v->src->path && v->last > v->src->nlines) {
		struct buf m;

		buf_init(&m);
		buf_addstr(&m, "the source ");
		text_quote(&m, v->src->path);
		buf_addf(&m, " has %" PRIu32 " lines, but the line table names line %" PRIu32
			 " of it: it does not match the build", v->src->nlines, v->last);
		note(o, buf_detach(&m));
	}
	if (o->instructions) {
		if (fn->image < 0)
			v->why_no_code = "the trace holds no bytes of code a runtime compiled";
		else if (!have_range)
			v->why_no_code = "no symbol gives the function's extent";
		else
			decode(v, o, lo, hi);
		if (!v->ninsns)
			note(o, xasprintf("no instructions of '%s': %s", fn->name, v->why_no_code));
	}
}

static void view_release(struct view *v)
{
	free(v->top);
	free(v->insns);
}

/* The source of site's file, and notes about it said once per file. */
static const struct srcfile_file *source_of(const struct annotate_write_opts *o,
					   const struct annotate_site *s)
{
	const struct srcfile_file *sf;
	struct buf b;

	if (!s->file)
		return NULL;
	buf_init(&b);
	sf = srcfile_find(o->source, s->file, s->md5);
	if (!srcfile_first_sight(o->source, sf))
		return sf;
	if (!sf->path && !sf->pack) {
		buf_addstr(&b, "cannot find the source ");
		text_quote(&b, s->file);
		buf_addstr(&b, ": lines shown without text");
		for (size_t k = 0; k < sf->ntries; k++) {
			buf_addstr(&b, k ? "; " : " (tried ");
			text_quote(&b, sf->tries[k].path);
			buf_addf(&b, ": %s", sf->tries[k].why);
		}
		buf_addstr(&b, sf->ntries ? "); see --source-dir and --source-map" :
					    "; see --source-dir and --source-map");
		note(o, buf_detach(&b));
	} else if (sf->match == SRCFILE_MATCH_DIFFERS) {
		buf_addstr(&b, "the source ");
		text_quote(&b, sf->path);
		buf_addstr(&b, " does not match the build (its MD5 is not the one the line table gives): its text is shown as it is now");
		note(o, buf_detach(&b));
	}
	buf_release(&b);
	return sf;
}

/* ---- text ---- */

static void counts(struct buf *b, uint64_t self, uint64_t total, uint64_t of, int shown)
{
	if (!shown) {
		buf_addf(b, "%7s %8s %7s %8s", "", "", "", "");
		return;
	}
	buf_addf(b, "%6.1f%% %8" PRIu64 " %6.1f%% %8" PRIu64, of ? 100.0 * (double)self / (double)of : 0.0,
		 self, of ? 100.0 * (double)total / (double)of : 0.0, total);
}

/* Appends text (len bytes) as shown: tabs expanded to stops of 8, other
 * control bytes escaped, cut at MAX_TEXT. */
static void add_text(struct buf *b, const char *text, size_t len)
{
	size_t n = len < MAX_TEXT ? len : MAX_TEXT, col = 0;
	struct buf t;

	buf_init(&t);
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '\t') {
			do
				buf_addch(&t, ' ');
			while (++col % 8);
		} else {
			buf_addch(&t, text[i] ? text[i] : ' ');
			col++;
		}
	}
	text_escape(b, (const char *)t.data);
	if (len > MAX_TEXT)
		buf_addf(b, " [%zu bytes more]", len - MAX_TEXT);
	buf_release(&t);
}

static void line_row(struct buf *b, const struct annotate_write_opts *o, const struct view *v,
		     const struct annotate_site *s, uint32_t line, const struct srcfile_file *sf)
{
	const char *text = NULL;
	size_t len = 0;

	counts(b, s ? s->self : 0, s ? s->total : 0, v->fn->total, s != NULL);
	buf_addf(b, " %c ", s && s->total * 10 >= v->fn->total && s->total ? '*' : ' ');
	if (line)
		buf_addf(b, "%6" PRIu32, line);
	else
		buf_addf(b, "%6s", "?");
	if (sf && line)
		text = srcfile_line(o->source, sf, line, &len);
	if (text) {
		buf_addstr(b, "  ");
		add_text(b, text, len);
	}
	buf_addch(b, '\n');
}

static void inlined_rows(struct buf *b, const struct annotate_write_opts *o, const struct view *v,
			 size_t parent, int depth)
{
	const struct annotate_fn *fn = v->fn;

	for (size_t i = 0; i < fn->nsites; i++) {
		const struct annotate_site *s = &fn->sites[i];
		const struct srcfile_file *sf;
		const char *text = NULL, *base;
		size_t len = 0;

		if (s->parent != parent || !s->total)
			continue;
		counts(b, s->self, s->total, fn->total, 1);
		buf_addf(b, " %c %6s  %*s", s->total * 10 >= fn->total ? '*' : ' ', "", 2 * depth, "");
		buf_addstr(b, "inlined ");
		text_escape(b, s->function);
		base = s->file ? strrchr(s->file, '/') : NULL;
		buf_addstr(b, " (");
		text_escape(b, base ? base + 1 : s->file ? s->file : "?");
		if (s->line)
			buf_addf(b, ":%" PRIu32 ")", s->line);
		else
			buf_addstr(b, ":?)");
		sf = source_of(o, s);
		if (sf && s->line && (text = srcfile_line(o->source, sf, s->line, &len))) {
			while (len && (*text == ' ' || *text == '\t')) {
				text++;
				len--;
			}
			buf_addstr(b, "  ");
			add_text(b, text, len);
		}
		buf_addch(b, '\n');
		inlined_rows(b, o, v, i, depth + 1);
	}
}

static void fold_row(struct buf *b)
{
	buf_addf(b, "%7s %8s %7s %8s   %6s\n", "", "", "", "", "...");
}

/* The function's own line (file, line), or NULL. */
static const struct annotate_site *top_site(const struct view *v, const char *file, uint32_t line)
{
	for (size_t i = 0; i < v->ntop; i++) {
		const struct annotate_site *s = &v->fn->sites[v->top[i]];

		if (s->line == line && same_file(s->file, file))
			return s;
	}
	return NULL;
}

/* The lines of file: each with samples, and with text those within
 * context of one, the others folded. */
static void source_rows(struct buf *b, const struct annotate_write_opts *o, const struct view *v,
			const char *file, const struct srcfile_file *sf)
{
	uint32_t first = UINT32_MAX, last = 0, prev = 0, line;
	size_t ctx = o->context;

	for (size_t i = 0; i < v->ntop; i++) {
		const struct annotate_site *s = &v->fn->sites[v->top[i]];

		if (!same_file(s->file, file))
			continue;
		if (!s->line) {
			line_row(b, o, v, s, 0, sf);
			inlined_rows(b, o, v, v->top[i], 1);
			continue;
		}
		first = s->line < first ? s->line : first;
		last = s->line > last ? s->line : last;
	}
	if (!last)
		return;
	if (same_file(file, v->file) && v->first) {
		first = v->first < first ? v->first : first;
		last = v->last > last ? v->last : last;
	}
	for (line = first; line <= last && line; line++) {
		const struct annotate_site *s = top_site(v, file, line);
		size_t len;
		int near = 0, has_text = sf && srcfile_line(o->source, sf, line, &len);

		if (!s) {
			for (size_t d = 1; d <= ctx && !near; d++)
				near = (line > d && top_site(v, file, line - (uint32_t)d)) ||
				       top_site(v, file, line + (uint32_t)d);
			if (!near || !has_text)
				continue;
		}
		if (prev && line > prev + 1)
			fold_row(b);
		line_row(b, o, v, s && s->total ? s : NULL, line, sf);
		if (s)
			inlined_rows(b, o, v, (size_t)(s - v->fn->sites), 1);
		prev = line;
	}
}

static void insn_rows(struct buf *b, const struct annotate_write_opts *o, const struct view *v)
{
	const char *file = NULL;
	uint32_t line = UINT32_MAX;

	for (size_t i = 0; i < v->ninsns; i++) {
		const struct insn *in = &v->insns[i];
		char bytes[3 * 16 + 1] = "";

		if (i == 0 || in->line != line || !same_file(in->file, file)) {
			const struct annotate_site *s = top_site(v, in->file, in->line);

			file = in->file;
			line = in->line;
			line_row(b, o, v, s && s->total ? s : NULL, line,
				 same_file(file, v->file) ? v->src : NULL);
		}
		for (size_t k = 0; k < in->d.size && k < 8; k++)
			snprintf(bytes + 3 * k, 4, "%02x ", in->d.bytes[k]);
		counts(b, in->self, in->total, v->fn->total, in->total > 0);
		buf_addf(b, "   %6s  %12" PRIx64 ":  %-24s ", "", in->d.address, bytes);
		if (in->d.operands[0])
			buf_addf(b, "%-7s %s\n", in->d.mnemonic, in->d.operands);
		else
			buf_addf(b, "%s\n", in->d.mnemonic);
	}
}

static void write_fn(struct buf *b, const struct annotate *a, const struct annotate_fn *fn,
		     const struct annotate_write_opts *o)
{
	struct view v;
	const struct srcfile_file *sf = NULL;
	const char *shown = NULL;

	view_init(&v, fn, o);
	buf_addstr(b, "FUNCTION ");
	text_escape(b, fn->name);
	buf_addstr(b, " (");
	text_escape(b, fn->image_label ? fn->image_label : "?");
	buf_addf(b, ")\n  self %" PRIu64 " of %" PRIu64 " samples (%.1f%%), total %" PRIu64 " (%.1f%%)\n",
		 fn->self, a->samples, a->samples ? 100.0 * (double)fn->self / (double)a->samples : 0.0,
		 fn->total, a->samples ? 100.0 * (double)fn->total / (double)a->samples : 0.0);
	for (size_t i = 0; i < v.ntop; i++) {
		const struct annotate_site *s = &fn->sites[v.top[i]];
		const char *file = s->file;

		if (i && same_file(file, shown))
			continue;
		shown = file;
		sf = file ? source_of(o, s) : NULL;
		buf_addstr(b, "  source ");
		if (!file)
			buf_addstr(b, "unknown: the line table gives no file");
		else if (sf->path)
			text_quote(b, sf->path);
		else if (sf->pack)
			buf_addf(b, "in the pack %s", sf->pack);
		else
			buf_addstr(b, "not found");
		if (file && sf->path && strcmp(sf->path, file)) {
			buf_addstr(b, " for ");
			text_quote(b, file);
		}
		if (sf && sf->match == SRCFILE_MATCH_DIFFERS)
			buf_addstr(b, " (does not match the build)");
		buf_addf(b, "\n\n%7s %8s %7s %8s   %6s\n", "SELF%", "SELF", "TOTAL%", "TOTAL", "LINE");
		if (o->instructions && v.ninsns && same_file(file, v.file))
			insn_rows(b, o, &v);
		else
			source_rows(b, o, &v, file, sf);
		buf_addch(b, '\n');
	}
	view_release(&v);
}

int annotate_write(FILE *f, const struct annotate *a, const struct annotate_fn *const *fns, size_t n,
		   const struct annotate_write_opts *o)
{
	struct buf b;

	buf_init(&b);
	for (size_t i = 0; i < n; i++) {
		write_fn(&b, a, fns[i], o);
		if (fwrite(b.data, 1, b.len, f) != b.len)
			break;
		buf_reset(&b);
	}
	if (!n)
		fprintf(f, "no function of %" PRIu64 " samples to annotate\n", a->samples);
	buf_release(&b);
	return ferror(f) ? -EIO : 0;
}

/* ---- JSON ---- */

/* "file" and "line", each null where unknown. */
static void json_place(struct json *j, const char *file, uint32_t line)
{
	if (file)
		json_str(j, "file", file);
	else
		json_null(j, "file");
	if (line)
		json_u64(j, "line", line);
	else
		json_null(j, "line");
}

static void json_site(struct json *j, const struct annotate_write_opts *o, const struct annotate_fn *fn,
		      size_t i)
{
	const struct annotate_site *s = &fn->sites[i];
	const struct srcfile_file *sf = source_of(o, s);
	const char *text;
	size_t len;

	if (s->parent != ANNOTATE_NONE)
		json_str(j, "function", s->function);
	json_place(j, s->file, s->line);
	json_u64(j, "self", s->self);
	json_u64(j, "total", s->total);
	if (sf && s->line && (text = srcfile_line(o->source, sf, s->line, &len))) {
		char *t = xstrndup(text, len);

		json_str(j, "text", t);
		free(t);
	}
	json_array(j, "inlined");
	for (size_t k = 0; k < fn->nsites; k++) {
		if (fn->sites[k].parent != i || !fn->sites[k].total)
			continue;
		json_object(j, NULL);
		json_site(j, o, fn, k);
		json_end(j);
	}
	json_end(j);
}

static void json_fn(struct json *j, const struct annotate_fn *fn, const struct annotate_write_opts *o)
{
	struct view v;
	const struct srcfile_file *sf;

	view_init(&v, fn, o);
	json_object(j, NULL);
	json_str(j, "name", fn->name);
	json_str(j, "image", fn->image_label ? fn->image_label : "?");
	if (v.file)
		json_str(j, "file", v.file);
	else
		json_null(j, "file");
	json_u64(j, "self", fn->self);
	json_u64(j, "total", fn->total);
	json_object(j, "source");
	sf = v.src;
	if (sf && sf->path)
		json_str(j, "path", sf->path);
	else
		json_null(j, "path");
	if (sf && sf->pack)
		json_str(j, "pack", sf->pack);
	json_str(j, "match", !sf || (!sf->path && !sf->pack) ? "none"
			     : sf->match == SRCFILE_MATCH_MD5 ? "md5"
			     : sf->match == SRCFILE_MATCH_DIFFERS ? "differs" : "unchecked");
	if (v.first) {
		json_u64(j, "first_line", v.first);
		json_u64(j, "last_line", v.last);
	}
	json_array(j, "tried");
	for (size_t k = 0; sf && k < sf->ntries; k++) {
		json_object(j, NULL);
		json_str(j, "path", sf->tries[k].path);
		if (sf->tries[k].why)
			json_str(j, "why", sf->tries[k].why);
		else
			json_null(j, "why");
		json_end(j);
	}
	json_end(j);
	json_end(j);
	json_array(j, "lines");
	for (size_t i = 0; i < v.ntop; i++) {
		if (!fn->sites[v.top[i]].total)
			continue;
		json_object(j, NULL);
		json_site(j, o, fn, v.top[i]);
		json_end(j);
	}
	json_end(j);
	if (o->instructions) {
		json_array(j, "instructions");
		for (size_t i = 0; i < v.ninsns; i++) {
			const struct insn *in = &v.insns[i];
			char addr[32], bytes[3 * 16] = "", *text;

			snprintf(addr, sizeof(addr), "0x%" PRIx64, in->d.address);
			for (size_t k = 0; k < in->d.size && k < 16; k++)
				snprintf(bytes + 3 * k, 4, k ? " %02x" : "%02x", in->d.bytes[k]);
			text = in->d.operands[0] ? xasprintf("%s %s", in->d.mnemonic, in->d.operands)
						 : xstrdup(in->d.mnemonic);
			json_object(j, NULL);
			json_str(j, "address", addr);
			json_str(j, "bytes", bytes[0] == ' ' ? bytes + 1 : bytes);
			json_str(j, "text", text);
			json_u64(j, "self", in->self);
			json_u64(j, "total", in->total);
			json_place(j, in->file, in->line);
			json_end(j);
			free(text);
		}
		json_end(j);
		if (!v.ninsns && v.why_no_code)
			json_str(j, "no_instructions", v.why_no_code);
	}
	json_end(j);
	view_release(&v);
}

int annotate_write_json(FILE *f, const struct annotate *a, const struct annotate_fn *const *fns,
			size_t n, const struct annotate_write_opts *o)
{
	struct json j;
	struct buf b;

	json_report_begin(&j, &b, "annotate");
	json_u64(&j, "samples", a->samples);
	json_array(&j, "functions");
	for (size_t i = 0; i < n; i++)
		json_fn(&j, fns[i], o);
	json_end(&j);
	return json_report_write(&j, f);
}
