/*
 * pack_build.c: a symbol pack from the symbolizer.
 *
 * The trace's samples are walked once, each node of each stack asked for
 * its frames once in each role (leaf, caller) it has; every named address
 * joins its image's list under the address looked up, so a leaf and a
 * return address that look up the same instruction are kept once. The
 * lists are sorted by image, in the trace's order, then by address, and
 * the strings of each image interned in order of first use, so the same
 * trace and debug files always give the same bytes. A frame named by the
 * trace's code records (code compiled at run time, the vDSO's functions)
 * is left out: the trace holds it.
 *
 * With code, each named address asks for the function that holds it once
 * no stored range holds it already, so a function costs one lookup
 * however many of its addresses were sampled. With sources, the file and
 * line of every frame of a named address are gathered, sorted by path,
 * and each file is read once, its wanted lines with their context merged
 * into runs. The code comes from the symbolizer's files and the text from
 * the path the frames name, each through one function below, the only
 * places that know where they are found.
 */
#include "report/output/pack_build.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/diag.h"
#include "common/hmap.h"
#include "common/progress.h"
#include "report/symbols/disasm.h"

struct entry {
	size_t image;       /* index into the pack's images */
	uint64_t at;
	const struct symbolize_frame *f; /* borrowed from the symbolizer */
	size_t n;
};

/* An address whose function's code is wanted. */
struct code_want {
	size_t image;       /* index into the trace's images */
	size_t pimage;      /* and into the pack's */
	uint64_t at;
};

/* A line of a source file that a frame names. */
struct line_want {
	const char *file;   /* borrowed from the symbolizer */
	uint32_t line;
};

struct builder {
	const struct trace *t;
	struct stacks *st;
	const struct pack_build_opts *o;
	struct trace_pack *out;
	long *image_of;     /* trace image -> pack image, -1 none, -2 not yet */
	struct hmap seen;   /* (pack image, at) */
	struct hmap met;    /* (trace image, at) */
	size_t *used, *named; /* per trace image */
	struct entry *entries;
	size_t nentries, capentries, nframes;
	struct code_want *code;
	size_t ncode, capcode;
	struct line_want *lines;
	size_t nlines, caplines;
};

/* The pack image for trace image i: one per identity. */
static long pack_image_of(struct builder *b, size_t i)
{
	const struct trace_image *img = &b->t->images[i];

	if (b->image_of[i] != -2)
		return b->image_of[i];
	b->image_of[i] = -1;
	if (!trace_ident_valid(img->ident_kind, img->ident_len))
		return -1;
	for (size_t k = 0; k < b->out->nimages; k++) {
		const struct trace_pack_image *si = &b->out->images[k];
		if (trace_ident_same(si->ident_kind, si->ident_len, si->ident, img->ident_kind,
			       img->ident_len, img->ident))
			return b->image_of[i] = (long)k;
	}
	trace_pack_add_image(b->out, img->ident_kind, img->ident, img->ident_len, img->path);
	return b->image_of[i] = (long)b->out->nimages - 1;
}

/* Adds the nf frames fr of link-time address at of trace image image
 * (pack image pimage), unless the pack has them already or the one held
 * does; with sources, their lines are wanted. */
static void add_entry(struct builder *b, size_t image, size_t pimage, uint64_t at,
		      const struct symbolize_frame *fr, size_t nf)
{
	const struct trace_pack_frame *had;
	char *const *had_strings;
	const struct pack_image *pi;
	int added;

	for (size_t k = 0; b->o->sources && k < nf; k++) {
		if (!fr[k].file || !fr[k].line)
			continue;
		b->lines = xgrow(b->lines, &b->caplines, b->nlines + 1, sizeof(*b->lines));
		b->lines[b->nlines++] = (struct line_want){ .file = fr[k].file, .line = fr[k].line };
	}
	hmap_put(&b->seen, (uint64_t)pimage, at, 0, &added);
	if (!added)
		return;
	pi = pack_find(b->o->have, &b->t->images[image]);
	if (pi && pack_image_lookup(pi, at, &had, &had_strings))
		return;
	b->entries = xgrow(b->entries, &b->capentries, b->nentries + 1, sizeof(*b->entries));
	b->entries[b->nentries++] = (struct entry){ .image = pimage, .at = at, .f = fr, .n = nf };
	b->nframes += nf;
}

/* Adds node's frames in one role, if they are named and new. */
static void add_node(struct builder *b, uint32_t node, int leaf)
{
	const struct symbolize_frame *fr;
	size_t nf = stacks_frames(b->st, node, leaf, &fr);
	uint64_t at;
	long img;
	int added;

	/* Frames a code record named (the vDSO's) are the trace's own: a
	 * report reads them from it, and needs no pack for them. */
	if (fr[0].image < 0 || fr[0].code >= 0)
		return;
	at = symbolize_lookup_offset(fr[0].offset, leaf);
	hmap_put(&b->met, (uint64_t)fr[0].image, at, 0, &added);
	if (!added)
		return;
	b->used[fr[0].image]++;
	if (!fr[nf - 1].resolved || nf > TRACE_PACK_MAX_FRAMES)
		return;
	if ((img = pack_image_of(b, (size_t)fr[0].image)) < 0)
		return;
	b->named[fr[0].image]++;
	if (b->o->code) {
		b->code = xgrow(b->code, &b->capcode, b->ncode + 1, sizeof(*b->code));
		b->code[b->ncode++] = (struct code_want){ .image = (size_t)fr[0].image,
							  .pimage = (size_t)img, .at = at };
	}
	add_entry(b, (size_t)fr[0].image, (size_t)img, at, fr, nf);
}

static int cmp_entry(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;

	if (a->image != b->image)
		return a->image < b->image ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

/* The index of str in img's strings, added if new. */
static uint32_t intern(struct trace_pack_image *img, struct hmap *strings, const char *str)
{
	size_t len = strlen(str);
	uint64_t h = XXH3_64bits(str, len);
	int added;
	uint64_t *slot = hmap_put(strings, h, len, img->nstrings, &added);

	/* Another string with the same hash and length: rare enough to
	 * store it twice rather than chain. */
	if (!added && !strcmp(img->strings[*slot], str))
		return (uint32_t)*slot;
	img->strings = xgrow(img->strings, &img->cap_strings, img->nstrings + 1,
			     sizeof(*img->strings));
	img->strings[img->nstrings] = xstrdup(str);
	return (uint32_t)img->nstrings++;
}

static void emit(struct builder *b)
{
	struct hmap strings;
	size_t cur = SIZE_MAX;

	hmap_init(&strings);
	for (size_t i = 0; i < b->nentries; i++) {
		const struct entry *e = &b->entries[i];
		struct trace_pack_image *img = &b->out->images[e->image];
		struct trace_pack_addr *a;

		if (e->image != cur) {
			hmap_release(&strings);
			hmap_init(&strings);
			cur = e->image;
		}
		img->addrs = xgrow(img->addrs, &img->cap_addrs, img->naddrs + 1, sizeof(*img->addrs));
		a = &img->addrs[img->naddrs++];
		*a = (struct trace_pack_addr){ .offset = e->at, .first = (uint32_t)img->nframes,
					       .n = (uint32_t)e->n };
		img->frames = xgrow(img->frames, &img->cap_frames, img->nframes + e->n,
				    sizeof(*img->frames));
		for (size_t k = 0; k < e->n; k++) {
			const struct symbolize_frame *f = &e->f[k];
			struct trace_pack_frame *o = &img->frames[img->nframes++];

			o->name = intern(img, &strings, f->name);
			o->signature = strcmp(f->signature, f->name)
					       ? intern(img, &strings, f->signature) + 1 : 0;
			o->file = f->file ? intern(img, &strings, f->file) + 1 : 0;
			o->line = f->line;
			o->lang = (uint8_t)f->lang;
		}
	}
	hmap_release(&strings);
}

/* --- code ----------------------------------------------------------------- */

/* The code of the function that holds link-time address at in trace image
 * i, as the image's files have it: returns how many bytes (0 if the symbol
 * table bounds no function there, or no file holds its bytes), with its
 * start in *lo and the bytes in *code, borrowed from the symbolizer. */
static size_t function_code(struct symbolize *sym, size_t i, uint64_t at, uint64_t *lo,
			    const uint8_t **code, int *arch)
{
	uint64_t hi = 0;
	const char *from;

	*lo = 0;
	if (symbolize_image_function(sym, i, at, lo, &hi) < 0 || hi <= *lo)
		return 0;
	return symbolize_image_code(sym, i, *lo, hi - *lo, code, arch, &from);
}

/* The frames of every instruction of the n bytes of code at lo, of trace
 * image image (pack image pimage): a report from the pack alone then
 * knows the line of each instruction annotate --asm lists, not only of
 * those with samples. */
static void add_instructions(struct builder *b, size_t image, size_t pimage, uint64_t lo,
			     const uint8_t *code, size_t n, int arch)
{
	struct disasm *d;
	struct disasm_insn in;

	if (disasm_new(arch, &d) < 0)
		return;
	for (size_t off = 0; off < n;) {
		const struct symbolize_frame *fr;
		size_t nf;

		off += disasm_one(d, code + off, n - off, lo + off, &in);
		nf = symbolize_image_addr(b->o->sym, image, in.address, &fr);
		if (fr[nf - 1].resolved && nf <= TRACE_PACK_MAX_FRAMES)
			add_entry(b, image, pimage, in.address, fr, nf);
	}
	disasm_free(d);
}

static int cmp_code_want(const void *x, const void *y)
{
	const struct code_want *a = x, *b = y;

	if (a->pimage != b->pimage)
		return a->pimage < b->pimage ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

/* Stores the code of the function of each wanted address that neither the
 * pack being built nor the one held already holds. */
static void add_code(struct builder *b, struct pack_build_stats *st)
{
	struct progress *pg = b->o->progress;

	if (b->ncode)
		qsort(b->code, b->ncode, sizeof(*b->code), cmp_code_want);
	progress_phase(pg, "reading code", "addresses", b->ncode);
	for (size_t i = 0; i < b->ncode; i++) {
		const struct code_want *w = &b->code[i];
		struct trace_pack_image *img = &b->out->images[w->pimage];
		const struct pack_image *pi = pack_find(b->o->have, &b->t->images[w->image]);
		const uint8_t *code;
		uint64_t lo;
		size_t n;
		int arch;

		progress_update(pg, i);
		if (trace_pack_image_code(img, w->at, 1, &code) ||
		    (pi && pack_image_code(pi, w->at, 1, &code)))
			continue;
		n = function_code(b->o->sym, w->image, w->at, &lo, &code, &arch);
		if (n > TRACE_PACK_MAX_CODE_RANGE)
			n = TRACE_PACK_MAX_CODE_RANGE;
		/* A function cut at the cap, or one whose symbol overlaps a
		 * stored one, leaves its address without code. */
		if (!n || trace_pack_add_code(img, lo, code, n) < 0) {
			st->code_missing++;
			continue;
		}
		st->functions++;
		st->code_bytes += n;
		add_instructions(b, w->image, w->pimage, lo, code, n, arch);
	}
}

/* --- sources --------------------------------------------------------------- */

static int cmp_line_want(const void *x, const void *y)
{
	const struct line_want *a = x, *b = y;
	int c = strcmp(a->file, b->file);

	if (c)
		return c;
	return (a->line > b->line) - (a->line < b->line);
}

/* Adds lines first to last of f, those that have lacks, to the pack:
 * returns 0 or TRACE_E_TOOBIG. */
static int add_run(struct builder *b, const struct srcfile_file *f, uint32_t first, uint32_t last,
		   struct pack_build_stats *st)
{
	const char **lines = xmalloc((last - first + 1) * sizeof(*lines));
	size_t *lens = xmalloc((last - first + 1) * sizeof(*lens)), len;
	int r = 0;

	for (uint32_t l = first, end; l <= last && r == 0; l = end + 1) {
		end = l;
		if (pack_source_line(b->o->have, f->want, l, &len))
			continue;
		while (end < last && !pack_source_line(b->o->have, f->want, end + 1, &len))
			end++;
		for (uint32_t k = l; k <= end; k++)
			lines[k - l] = srcfile_line(b->o->source, f, k, &lens[k - l]);
		r = trace_pack_add_source(b->out, f->want, l, lines, lens, end - l + 1);
		if (r == 0)
			st->source_lines += end - l + 1;
	}
	free(lines);
	free(lens);
	return r;
}

/* Stores the wanted lines of the file at path, w[0 .. n), with context. */
static int add_file(struct builder *b, const char *path, const struct line_want *w, size_t n,
		    struct pack_build_stats *st)
{
	const struct srcfile_file *f = srcfile_find(b->o->source, path, NULL);
	size_t before = st->source_lines;
	int r = 0;

	if (!f->path) {
		if (!st->sources_missing++) {
			st->missing = xstrdup(path);
			st->missing_why = f->ntries ? f->tries[f->ntries - 1].why : "not looked for";
		}
		return 0;
	}
	for (size_t i = 0; i < n && r == 0;) {
		uint64_t first = w[i].line > PACK_BUILD_CONTEXT ? w[i].line - PACK_BUILD_CONTEXT : 1;
		uint64_t last = (uint64_t)w[i].line + PACK_BUILD_CONTEXT;

		/* Lines whose context meets or overlaps: one run. */
		for (i++; i < n && w[i].line <= last + PACK_BUILD_CONTEXT + 1; i++)
			last = (uint64_t)w[i].line + PACK_BUILD_CONTEXT;
		if (last > f->nlines)
			last = f->nlines;
		if (first <= last)
			r = add_run(b, f, (uint32_t)first, (uint32_t)last, st);
	}
	st->source_files += st->source_lines > before;
	return r;
}

/* Stores the lines of every wanted file, until the pack's cap. */
static void add_sources(struct builder *b, struct pack_build_stats *st)
{
	struct progress *pg = b->o->progress;
	size_t files = 0;

	if (b->nlines)
		qsort(b->lines, b->nlines, sizeof(*b->lines), cmp_line_want);
	for (size_t i = 0; i < b->nlines; i++)
		files += !i || strcmp(b->lines[i].file, b->lines[i - 1].file);
	progress_phase(pg, "reading sources", "files", files);
	files = 0;
	for (size_t i = 0, j; i < b->nlines; i = j) {
		for (j = i + 1; j < b->nlines && !strcmp(b->lines[j].file, b->lines[i].file); j++)
			;
		progress_update(pg, files++);
		if (add_file(b, b->lines[i].file, b->lines + i, j - i, st) == TRACE_E_TOOBIG) {
			st->sources_capped = 1;
			break;
		}
	}
}

struct trace_pack *pack_build(struct stacks *s, const struct pack_build_opts *o,
			      struct pack_build_stats *st)
{
	const struct trace *t = stacks_trace(s);
	struct builder b = { .t = t, .st = s, .o = o, .out = trace_pack_new() };
	struct progress *pg = o->progress;
	uint8_t *met = xcalloc(t->nnodes ? t->nnodes : 1, 1); /* per node: 1 leaf, 2 caller */

	b.image_of = xmalloc((t->nimages + 1) * sizeof(*b.image_of));
	for (size_t i = 0; i < t->nimages; i++)
		b.image_of[i] = -2;
	b.used = xcalloc(t->nimages + 1, sizeof(*b.used));
	b.named = xcalloc(t->nimages + 1, sizeof(*b.named));
	hmap_init(&b.seen);
	hmap_init(&b.met);
	progress_phase(pg, "symbolizing", "samples", t->nsamples);
	for (size_t i = 0; i < t->nsamples; i++) {
		struct trace_chain c;
		uint32_t n;
		int leaf = 1;

		progress_update(pg, i);
		for (trace_chain_init(&c, t, t->samples[i].stack); trace_chain_next(&c, &n); leaf = 0) {
			uint8_t role = leaf ? 1 : 2;

			/* A caller met before: so were all of its. */
			if (met[n] & role) {
				if (leaf)
					continue;
				break;
			}
			met[n] |= role;
			add_node(&b, n, leaf);
		}
	}
	*st = (struct pack_build_stats){ .used = b.used, .named = b.named };
	/* The code first: its instructions' frames go in with the rest. */
	if (o->code)
		add_code(&b, st);
	if (b.nentries)
		qsort(b.entries, b.nentries, sizeof(*b.entries), cmp_entry);
	emit(&b);
	st->addrs = b.nentries;
	st->frames = b.nframes;
	if (o->sources)
		add_sources(&b, st);
	for (size_t i = 0; i < b.out->nimages; i++)
		st->images += b.out->images[i].naddrs > 0;
	free(met);
	free(b.image_of);
	free(b.entries);
	free(b.code);
	free(b.lines);
	hmap_release(&b.seen);
	hmap_release(&b.met);
	return b.out;
}
