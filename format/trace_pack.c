/*
 * trace_pack.c: symbol packs on disk.
 *
 * A pack is made of the trace's own chunks (format/trace_chunk.c writes
 * and walks them), so it inherits their header
 * checksums, zstd content checksums and resynchronisation: a damaged chunk
 * costs its own image's frames and nothing else. Each symbols chunk is
 * self-contained: one image identity, a string table, and the addresses
 * in ascending order with their frames. An image too large for one chunk
 * is split over several, each with the strings it uses, so that no chunk
 * depends on another. A chunk may end with a table of the frames whose
 * full signature differs from their name; a reader that predates it
 * ignores it, as this one ignores whatever may follow it one day.
 * An image's code, and the pack's source lines, which several images
 * share, are in chunks of types of their own (2.5), self-contained in the
 * same way, so that a 2.4 reader skips them whole and a pack can gain
 * them later by appending, as an embedded pack only ever grows.
 * Everything read is checked against the bytes that remain before use,
 * and indexes against the tables they point into.
 */
#include "format/trace_pack.h"
#include "format/trace_chunk.h"

#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/diag.h"

struct trace_pack *trace_pack_new(void)
{
	return xcalloc(1, sizeof(struct trace_pack));
}

static void image_release(struct trace_pack_image *img)
{
	for (size_t i = 0; i < img->nstrings; i++)
		free(img->strings[i]);
	free(img->strings);
	free(img->addrs);
	free(img->frames);
	for (size_t i = 0; i < img->ncode; i++)
		free(img->code[i].bytes);
	free(img->code);
	free(img->path);
}

static void source_release(struct trace_pack_source *src)
{
	for (size_t i = 0; i < src->nruns; i++) {
		free(src->runs[i].off);
		free(src->runs[i].text);
	}
	free(src->runs);
	free(src->path);
}

void trace_pack_free(struct trace_pack *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nimages; i++)
		image_release(&s->images[i]);
	free(s->images);
	for (size_t i = 0; i < s->nsources; i++)
		source_release(&s->sources[i]);
	free(s->sources);
	trace_load_status_release(&s->status);
	free(s);
}

struct trace_pack_image *trace_pack_add_image(struct trace_pack *s, int ident_kind,
					      const uint8_t *ident, size_t ident_len,
					      const char *path)
{
	struct trace_pack_image *img;

	s->images = xgrow(s->images, &s->cap_images, s->nimages + 1, sizeof(*s->images));
	img = &s->images[s->nimages++];
	memset(img, 0, sizeof(*img));
	img->ident_kind = (uint8_t)ident_kind;
	img->ident_len = (uint8_t)(ident_len <= TRACE_MAX_IDENT ? ident_len : 0);
	memcpy(img->ident, ident, img->ident_len);
	img->path = xstrdup(path ? path : "");
	return img;
}

/* --- code and sources --------------------------------------------------- */

/* The range of img that holds addr, or NULL. */
static const struct trace_pack_code *code_at(const struct trace_pack_image *img, uint64_t addr)
{
	size_t lo = 0, hi = img->ncode;

	/* The last range that starts at or before addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (img->code[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - img->code[lo - 1].start >= img->code[lo - 1].len)
		return NULL;
	return &img->code[lo - 1];
}

int trace_pack_add_code(struct trace_pack_image *img, uint64_t start, const uint8_t *p, size_t n)
{
	struct trace_pack_code *k;
	size_t i;

	if (!n || n > UINT64_MAX - start)
		return TRACE_E_USAGE;
	if (n > TRACE_PACK_MAX_CODE_RANGE || n > TRACE_PACK_MAX_CODE - img->code_bytes)
		return TRACE_E_TOOBIG;
	/* Where it goes: after every range that starts before it. */
	for (i = img->ncode; i > 0 && img->code[i - 1].start >= start; i--)
		;
	if ((i > 0 && img->code[i - 1].len > start - img->code[i - 1].start) ||
	    (i < img->ncode && img->code[i].start - start < n))
		return TRACE_E_USAGE;
	img->code = xgrow(img->code, &img->cap_code, img->ncode + 1, sizeof(*img->code));
	memmove(&img->code[i + 1], &img->code[i], (img->ncode - i) * sizeof(*img->code));
	k = &img->code[i];
	k->start = start;
	k->len = (uint32_t)n;
	k->bytes = xmalloc(n);
	memcpy(k->bytes, p, n);
	img->ncode++;
	img->code_bytes += n;
	return 0;
}

int trace_pack_image_code_range(const struct trace_pack_image *im, uint64_t addr, uint64_t *start,
				uint64_t *end)
{
	const struct trace_pack_code *k = code_at(im, addr);

	if (!k)
		return TRACE_E_USAGE;
	*start = k->start;
	*end = k->start + k->len;
	return 0;
}

size_t trace_pack_image_code(const struct trace_pack_image *im, uint64_t addr, uint64_t size,
			     const uint8_t **code)
{
	const struct trace_pack_code *k = code_at(im, addr);
	uint64_t off, n;

	*code = NULL;
	if (!k || !size)
		return 0;
	off = addr - k->start;
	n = k->len - off;
	*code = k->bytes + off;
	return (size_t)(n < size ? n : size);
}

/* Where path's entries begin in s->sources (after, with after set), which
 * are sorted by path. */
static size_t source_bound(const struct trace_pack *s, const char *path, int after)
{
	size_t lo = 0, hi = s->nsources;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->sources[mid].path, path);
		if (c < 0 || (after && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Inserts src after the entries of its path. */
static void source_insert(struct trace_pack *s, const struct trace_pack_source *src)
{
	size_t i = source_bound(s, src->path, 1);

	s->sources = xgrow(s->sources, &s->cap_sources, s->nsources + 1, sizeof(*s->sources));
	memmove(&s->sources[i + 1], &s->sources[i], (s->nsources - i) * sizeof(*s->sources));
	s->sources[i] = *src;
	s->nsources++;
}

/* The length of a line of len bytes at p as stored: cut at
 * TRACE_PACK_MAX_LINE, and then before a UTF-8 sequence the cut splits. */
static size_t line_cut(const char *p, size_t len)
{
	size_t n = TRACE_PACK_MAX_LINE;

	if (len <= n)
		return len;
	for (int k = 0; k < 3 && n > 0 && ((unsigned char)p[n] & 0xc0) == 0x80; k++)
		n--;
	return n;
}

int trace_pack_add_source(struct trace_pack *s, const char *path, uint32_t first,
			  const char *const *lines, const size_t *lens, uint32_t n)
{
	struct trace_pack_source *src, fresh = { 0 };
	struct trace_pack_run *run;
	size_t plen = strlen(path), i = source_bound(s, path, 1), bytes = 0, at = 0;

	if (!plen || plen > TRACE_MAX_STRING || !first || !n || n - 1 > UINT32_MAX - first)
		return TRACE_E_USAGE;
	src = i > 0 && !strcmp(s->sources[i - 1].path, path) ? &s->sources[i - 1] : NULL;
	if (src) {
		run = &src->runs[src->nruns - 1];
		if (first < (uint64_t)run->first + run->n)
			return TRACE_E_USAGE;
	}
	for (uint32_t k = 0; k < n; k++)
		bytes += line_cut(lines[k], lens[k]) + 1;
	if (bytes > TRACE_PACK_MAX_SOURCE - s->source_bytes)
		return TRACE_E_TOOBIG;
	if (!src) {
		fresh.path = xstrdup(path);
		source_insert(s, &fresh);
		src = &s->sources[i];
	}
	src->runs = xgrow(src->runs, &src->cap_runs, src->nruns + 1, sizeof(*src->runs));
	run = &src->runs[src->nruns++];
	run->first = first;
	run->n = n;
	run->off = xmalloc(((size_t)n + 1) * sizeof(*run->off));
	run->text = xmalloc(bytes);
	for (uint32_t k = 0; k < n; k++) {
		size_t len = line_cut(lines[k], lens[k]);

		run->off[k] = (uint32_t)at;
		memcpy(run->text + at, lines[k], len);
		run->text[at + len] = 0;
		at += len + 1;
	}
	run->off[n] = (uint32_t)at;
	s->source_bytes += bytes;
	return 0;
}

int trace_pack_has_source(const struct trace_pack *s, const char *path)
{
	size_t i = source_bound(s, path, 0);

	return i < s->nsources && !strcmp(s->sources[i].path, path);
}

const char *trace_pack_source_line(const struct trace_pack *s, const char *path, uint32_t line,
				   size_t *len)
{
	for (size_t i = source_bound(s, path, 0); i < s->nsources && !strcmp(s->sources[i].path, path);
	     i++) {
		const struct trace_pack_source *src = &s->sources[i];
		size_t lo = 0, hi = src->nruns;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (src->runs[mid].first <= line)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && line - src->runs[lo - 1].first < src->runs[lo - 1].n) {
			const struct trace_pack_run *run = &src->runs[lo - 1];
			uint32_t k = line - run->first;

			*len = run->off[k + 1] - run->off[k] - 1;
			return run->text + run->off[k];
		}
	}
	*len = 0;
	return NULL;
}

/* --- reading ------------------------------------------------------------ */

static int get_u32(struct cursor *c, uint64_t max, uint32_t *out)
{
	uint64_t v;

	if (cursor_uleb(c, &v) < 0 || v > max) {
		c->ok = 0;
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int parse_frames(struct cursor *c, struct trace_pack_image *img)
{
	uint64_t n, delta, offset = 0;

	/* An address takes at least 2 bytes and a frame 4. */
	if (cursor_uleb(c, &n) < 0 || n == 0 || n > c->left / 6)
		return TRACE_E_CORRUPT;
	img->addrs = xgrow(NULL, &img->cap_addrs, (size_t)n, sizeof(*img->addrs));
	for (uint64_t i = 0; i < n; i++) {
		struct trace_pack_addr *a = &img->addrs[i];
		uint32_t nf;

		if (cursor_uleb(c, &delta) < 0 || (i && delta == 0) || delta > UINT64_MAX - offset)
			return TRACE_E_CORRUPT;
		offset += delta;
		if (get_u32(c, TRACE_PACK_MAX_FRAMES, &nf) < 0 || nf == 0)
			return TRACE_E_CORRUPT;
		a->offset = offset;
		a->first = (uint32_t)img->nframes;
		a->n = nf;
		img->frames = xgrow(img->frames, &img->cap_frames, img->nframes + nf,
				    sizeof(*img->frames));
		for (uint32_t k = 0; k < nf; k++) {
			struct trace_pack_frame *f = &img->frames[img->nframes++];
			uint8_t lang = 0;

			f->signature = 0;
			get_u32(c, img->nstrings - 1, &f->name);
			get_u32(c, img->nstrings, &f->file);
			get_u32(c, UINT32_MAX, &f->line);
			cursor_u8(c, &lang);
			f->lang = lang <= TRACE_PACK_LANG_GO ? lang : TRACE_PACK_LANG_UNKNOWN;
		}
		if (!c->ok)
			return TRACE_E_CORRUPT;
		img->naddrs++;
	}
	return 0;
}

/* The signature table that may follow the addresses: a uvarint count,
 * then that many (frame index delta, 1 + string index) pairs, frames in
 * ascending order. A pack written before signatures has none, and any
 * bytes after the table are for later versions. */
static int parse_signatures(struct cursor *c, struct trace_pack_image *img)
{
	uint64_t n, delta, at = 0;
	uint32_t sig;

	if (!c->left)
		return 0;
	if (cursor_uleb(c, &n) < 0 || n > img->nframes || n > c->left / 2)
		return TRACE_E_CORRUPT;
	for (uint64_t i = 0; i < n; i++) {
		if (cursor_uleb(c, &delta) < 0 || (i && delta == 0) || delta >= img->nframes - at)
			return TRACE_E_CORRUPT;
		at += delta;
		if (get_u32(c, img->nstrings, &sig) < 0 || sig == 0)
			return TRACE_E_CORRUPT;
		img->frames[at].signature = sig;
	}
	return 0;
}

/* The identity and path that open a symbols or code chunk. */
static int parse_image_head(struct cursor *c, struct trace_pack_image *img)
{
	const uint8_t *ident;
	size_t ident_len;

	cursor_u8(c, &img->ident_kind);
	cursor_bytes(c, TRACE_MAX_IDENT, &ident, &ident_len);
	if (!c->ok || !trace_ident_valid(img->ident_kind, ident_len))
		return -1;
	img->ident_len = (uint8_t)ident_len;
	memcpy(img->ident, ident, ident_len);
	return (img->path = trace_get_string(c)) ? 0 : -1;
}

static void image_append(struct trace_pack *s, const struct trace_pack_image *img)
{
	s->images = xgrow(s->images, &s->cap_images, s->nimages + 1, sizeof(*s->images));
	s->images[s->nimages++] = *img;
}

static int parse_symbols(struct trace_pack *s, const uint8_t *raw, size_t n)
{
	struct trace_pack_image img = { 0 };
	uint64_t nstrings;
	int r = TRACE_E_CORRUPT;
	struct cursor c;

	cursor_init(&c, raw, n);
	if (parse_image_head(&c, &img) < 0)
		goto out;
	/* A string takes at least its length byte; a name is needed. */
	if (cursor_uleb(&c, &nstrings) < 0 || nstrings == 0 || nstrings > c.left)
		goto out;
	img.strings = xgrow(NULL, &img.cap_strings, (size_t)nstrings, sizeof(*img.strings));
	for (; img.nstrings < nstrings; img.nstrings++)
		if (!(img.strings[img.nstrings] = trace_get_string(&c)))
			goto out;
	if ((r = parse_frames(&c, &img)) < 0 || (r = parse_signatures(&c, &img)) < 0)
		goto out;
	image_append(s, &img);
	return 0;
out:
	image_release(&img);
	return r;
}

/* A code chunk: the image's identity and path, then a uvarint count of
 * ranges, each its start less the end of the range before it (the first
 * less 0), its length and its bytes. Bytes after the ranges are for later
 * versions. */
static int parse_code(struct trace_pack *s, const uint8_t *raw, size_t n)
{
	struct trace_pack_image img = { 0 };
	uint64_t count, gap, len, end = 0;
	const uint8_t *p;
	struct cursor c;

	cursor_init(&c, raw, n);
	/* A range takes at least 3 bytes. */
	if (parse_image_head(&c, &img) < 0 || cursor_uleb(&c, &count) < 0 || count == 0 ||
	    count > c.left / 3)
		goto out;
	img.code = xgrow(NULL, &img.cap_code, (size_t)count, sizeof(*img.code));
	for (; img.ncode < count; img.ncode++) {
		struct trace_pack_code *k = &img.code[img.ncode];

		if (cursor_uleb(&c, &gap) < 0 || gap > UINT64_MAX - end ||
		    cursor_uleb(&c, &len) < 0 || len == 0 || len > TRACE_PACK_MAX_CODE_RANGE ||
		    len > UINT64_MAX - (end + gap) || cursor_take(&c, (size_t)len, &p) < 0)
			goto out;
		k->start = end + gap;
		k->len = (uint32_t)len;
		k->bytes = xmalloc((size_t)len);
		memcpy(k->bytes, p, (size_t)len);
		img.code_bytes += len;
		end = k->start + len;
	}
	image_append(s, &img);
	return 0;
out:
	image_release(&img);
	return TRACE_E_CORRUPT;
}

/* One file of a sources chunk: its path, a uvarint count of runs, and each
 * run's first line less the line after the run before it (the first less
 * 1), its count of lines and the lines. *bytes grows by the run texts'. */
static int parse_source(struct cursor *c, struct trace_pack_source *src, uint64_t *bytes)
{
	uint64_t nruns, gap, nlines, next = 1;
	struct buf text;

	/* A run takes at least 3 bytes, a line 1. */
	if (!(src->path = trace_get_string(c)) || !src->path[0] || cursor_uleb(c, &nruns) < 0 ||
	    nruns == 0 || nruns > c->left / 3)
		return -1;
	src->runs = xgrow(NULL, &src->cap_runs, (size_t)nruns, sizeof(*src->runs));
	buf_init(&text);
	while (src->nruns < nruns) {
		struct trace_pack_run *run = &src->runs[src->nruns];

		if (cursor_uleb(c, &gap) < 0 || gap > UINT32_MAX || next + gap > UINT32_MAX ||
		    cursor_uleb(c, &nlines) < 0 ||
		    nlines == 0 || nlines > c->left || nlines - 1 > UINT32_MAX - (next + gap))
			break;
		run->first = (uint32_t)(next + gap);
		run->n = (uint32_t)nlines;
		run->off = xmalloc(((size_t)nlines + 1) * sizeof(*run->off));
		run->text = NULL;
		src->nruns++;
		for (uint32_t k = 0; k < run->n; k++) {
			const uint8_t *p;
			size_t len;

			run->off[k] = (uint32_t)text.len;
			if (cursor_bytes(c, TRACE_PACK_MAX_LINE, &p, &len) < 0)
				break;
			buf_add(&text, p, len);
			buf_addch(&text, 0);
		}
		if (!c->ok)
			break;
		run->off[run->n] = (uint32_t)text.len;
		*bytes += text.len;
		run->text = buf_detach(&text);
		next = run->first + nlines;
	}
	buf_release(&text);
	return src->nruns == nruns && c->ok ? 0 : -1;
}

/* A sources chunk: a uvarint count of files, then the files. Bytes after
 * them are for later versions. */
static int parse_sources(struct trace_pack *s, const uint8_t *raw, size_t n)
{
	struct trace_pack_source *src = NULL;
	size_t nsrc = 0, cap = 0;
	uint64_t count, bytes = 0;
	int r = TRACE_E_CORRUPT;
	struct cursor c;

	cursor_init(&c, raw, n);
	/* A file takes at least 6 bytes: a path of 1, a run of an empty line. */
	if (cursor_uleb(&c, &count) < 0 || count == 0 || count > c.left / 6)
		goto out;
	src = xgrow(NULL, &cap, (size_t)count, sizeof(*src));
	while (nsrc < count) {
		memset(&src[nsrc], 0, sizeof(*src));
		if (parse_source(&c, &src[nsrc++], &bytes) < 0)
			goto out;
	}
	for (size_t i = 0; i < nsrc; i++)
		source_insert(s, &src[i]);
	s->source_bytes += bytes;
	nsrc = 0;
	r = 0;
out:
	for (size_t i = 0; i < nsrc; i++)
		source_release(&src[i]);
	free(src);
	return r;
}

int trace_pack_parse_chunk(struct trace_pack *s, int type, const uint8_t *raw, size_t n)
{
	switch (type) {
	case TRACE_CHUNK_PACK: return parse_symbols(s, raw, n);
	case TRACE_CHUNK_CODE: return parse_code(s, raw, n);
	case TRACE_CHUNK_SOURCES: return parse_sources(s, raw, n);
	default: return TRACE_E_USAGE;
	}
}

static int pack_chunk(void *ctx, const struct trace_chunk *c)
{
	return trace_pack_parse_chunk(ctx, c->h.type, c->raw, c->len);
}

int trace_pack_load_mem(const void *mem, size_t n, struct trace_pack **out)
{
	struct trace_pack *s;
	struct trace_walk w = { .types = TRACE_CHUNK_PACK_TYPES, .fn = pack_chunk };
	uint16_t major, minor;
	int r;

	*out = NULL;
	if (!mem && n)
		return TRACE_E_USAGE;
	r = trace_file_header_check(mem, n, TRACE_PACK_MAGIC, &major, &minor);
	if (r == TRACE_E_MAGIC)
		r = trace_file_header_check(mem, n, TRACE_MAGIC, &major, &minor);
	if (r < 0)
		return r;
	s = trace_pack_new();
	s->status.major = major;
	s->status.minor = minor;
	s->status.file_bytes = n;
	w.ctx = s;
	if ((r = trace_walk_chunks(mem, n, &w, &s->status)) < 0) {
		trace_pack_free(s);
		return r;
	}
	*out = s;
	return 0;
}

static int load_mem(const void *p, size_t n, void *out)
{
	return trace_pack_load_mem(p, n, out);
}

int trace_pack_load(const char *path, struct trace_pack **out)
{
	*out = NULL;
	return trace_load_path(path, load_mem, out);
}

/* --- writing ------------------------------------------------------------ */

/* One chunk being assembled: the strings it uses, renumbered in order of
 * first use, and its addresses. */
struct chunk {
	uint32_t *map;      /* image string -> chunk string + 1, 0 if unused */
	uint32_t *used;     /* chunk string -> image string */
	uint32_t nused;
	size_t strbytes;
	struct buf body;
	uint64_t naddrs, last;
	struct buf sigs;    /* the signature table's pairs */
	uint64_t nframes, nsigs, last_sig;
};

static uint32_t chunk_string(struct chunk *ch, const struct trace_pack_image *img, uint32_t i)
{
	if (!ch->map[i]) {
		ch->used[ch->nused++] = i;
		ch->map[i] = ch->nused;
		ch->strbytes += strlen(img->strings[i]) + 2;
	}
	return ch->map[i] - 1;
}

/* Starts raw with what opens a symbols or code chunk of img. */
static void image_head(struct buf *raw, const struct trace_pack_image *img)
{
	buf_reset(raw);
	buf_addch(raw, img->ident_kind);
	buf_put_bytes(raw, img->ident, img->ident_len);
	trace_put_string(raw, img->path);
}

static int chunk_flush(struct trace_sink *k, struct buf *raw, const struct trace_pack_image *img,
		       struct chunk *ch)
{
	int r;

	if (!ch->naddrs)
		return 0;
	image_head(raw, img);
	buf_put_uvarint(raw, ch->nused);
	for (uint32_t i = 0; i < ch->nused; i++) {
		const char *str = img->strings[ch->used[i]];
		trace_put_string(raw, str);
		ch->map[ch->used[i]] = 0;
	}
	buf_put_uvarint(raw, ch->naddrs);
	buf_add(raw, ch->body.data, ch->body.len);
	if (ch->nsigs) {
		buf_put_uvarint(raw, ch->nsigs);
		buf_add(raw, ch->sigs.data, ch->sigs.len);
	}
	r = trace_sink_chunk(k, TRACE_CHUNK_PACK, raw);
	ch->nused = 0;
	ch->strbytes = 0;
	ch->naddrs = 0;
	ch->last = 0;
	ch->nframes = ch->nsigs = ch->last_sig = 0;
	buf_reset(&ch->body);
	buf_reset(&ch->sigs);
	return r;
}

/* Whether img would read back: what the reader checks, checked here. */
static int image_ok(const struct trace_pack_image *img)
{
	if (!trace_ident_valid(img->ident_kind, img->ident_len) || !img->path ||
	    strlen(img->path) > TRACE_MAX_STRING)
		return 0;
	for (size_t i = 0; i < img->nstrings; i++)
		if (!img->strings[i] || strlen(img->strings[i]) > TRACE_MAX_STRING)
			return 0;
	for (size_t i = 0; i < img->naddrs; i++) {
		const struct trace_pack_addr *a = &img->addrs[i];
		if ((i && a->offset <= img->addrs[i - 1].offset) || !a->n ||
		    a->n > TRACE_PACK_MAX_FRAMES || a->first > img->nframes ||
		    a->n > img->nframes - a->first)
			return 0;
		for (uint32_t k = 0; k < a->n; k++) {
			const struct trace_pack_frame *f = &img->frames[a->first + k];
			if (f->name >= img->nstrings || f->file > img->nstrings ||
			    f->signature > img->nstrings)
				return 0;
		}
	}
	for (size_t i = 0; i < img->ncode; i++) {
		const struct trace_pack_code *c = &img->code[i];
		const struct trace_pack_code *prev = i ? c - 1 : NULL;
		if (!c->bytes || !c->len || c->len > TRACE_PACK_MAX_CODE_RANGE ||
		    c->len > UINT64_MAX - c->start ||
		    (prev && (c->start < prev->start || c->start - prev->start < prev->len)))
			return 0;
	}
	return 1;
}

static int write_frames(struct trace_sink *k, struct buf *raw, const struct trace_pack_image *img)
{
	struct chunk ch = { 0 };
	int r = 0;

	if (!img->naddrs)
		return 0;
	ch.map = xcalloc(img->nstrings + 1, sizeof(*ch.map));
	ch.used = xcalloc(img->nstrings + 1, sizeof(*ch.used));
	buf_init(&ch.body);
	buf_init(&ch.sigs);
	for (size_t i = 0; i < img->naddrs && r == 0; i++) {
		const struct trace_pack_addr *a = &img->addrs[i];

		buf_put_uvarint(&ch.body, a->offset - ch.last);
		ch.last = a->offset;
		buf_put_uvarint(&ch.body, a->n);
		for (uint32_t j = 0; j < a->n; j++) {
			const struct trace_pack_frame *f = &img->frames[a->first + j];
			buf_put_uvarint(&ch.body, chunk_string(&ch, img, f->name));
			buf_put_uvarint(&ch.body, f->file ? chunk_string(&ch, img, f->file - 1) + 1 : 0);
			buf_put_uvarint(&ch.body, f->line);
			buf_addch(&ch.body, f->lang);
			if (f->signature) {
				buf_put_uvarint(&ch.sigs, ch.nframes - ch.last_sig);
				buf_put_uvarint(&ch.sigs, chunk_string(&ch, img, f->signature - 1) + 1);
				ch.last_sig = ch.nframes;
				ch.nsigs++;
			}
			ch.nframes++;
		}
		ch.naddrs++;
		if (ch.body.len + ch.sigs.len + ch.strbytes >= TRACE_CHUNK_TARGET)
			r = chunk_flush(k, raw, img, &ch);
	}
	if (r == 0)
		r = chunk_flush(k, raw, img, &ch);
	free(ch.map);
	free(ch.used);
	buf_release(&ch.body);
	buf_release(&ch.sigs);
	return r;
}

/* The code of img, in chunks of ranges that pass TRACE_CHUNK_TARGET by at
 * most one range. */
static int write_code(struct trace_sink *k, struct buf *raw, const struct trace_pack_image *img)
{
	struct buf body;
	uint64_t n = 0, end = 0;
	int r = 0;

	buf_init(&body);
	for (size_t i = 0; i < img->ncode && r == 0; i++) {
		const struct trace_pack_code *c = &img->code[i];

		buf_put_uvarint(&body, c->start - end);
		buf_put_uvarint(&body, c->len);
		buf_add(&body, c->bytes, c->len);
		end = c->start + c->len;
		n++;
		if (body.len >= TRACE_CHUNK_TARGET || i + 1 == img->ncode) {
			image_head(raw, img);
			buf_put_uvarint(raw, n);
			buf_add(raw, body.data, body.len);
			r = trace_sink_chunk(k, TRACE_CHUNK_CODE, raw);
			buf_reset(&body);
			n = end = 0;
		}
	}
	buf_release(&body);
	return r;
}

static int write_image(struct trace_sink *k, struct buf *raw, const struct trace_pack_image *img)
{
	int r;

	if (!img->naddrs && !img->ncode)
		return 0;
	if (!image_ok(img))
		return TRACE_E_USAGE;
	if ((r = write_frames(k, raw, img)) < 0)
		return r;
	return write_code(k, raw, img);
}

/* Whether the sources of s would read back. */
static int sources_ok(const struct trace_pack *s)
{
	for (size_t i = 0; i < s->nsources; i++) {
		const struct trace_pack_source *src = &s->sources[i];
		uint64_t next = 1;

		if (!src->path || !src->path[0] || strlen(src->path) > TRACE_MAX_STRING || !src->nruns)
			return 0;
		for (size_t j = 0; j < src->nruns; j++) {
			const struct trace_pack_run *run = &src->runs[j];

			if (run->first < next || !run->n || run->n - 1 > UINT32_MAX - run->first)
				return 0;
			for (uint32_t l = 0; l < run->n; l++)
				if (run->off[l + 1] <= run->off[l] ||
				    run->off[l + 1] - run->off[l] - 1 > TRACE_PACK_MAX_LINE)
					return 0;
			next = (uint64_t)run->first + run->n;
		}
	}
	return 1;
}

/* The sources chunk being assembled: whole files in body; of the file
 * being written, its whole runs in runs, and of the run being written,
 * its lines. */
struct src_chunk {
	struct buf body, runs, lines;
	uint64_t nfiles, nruns, nlines;
	uint64_t next;   /* the line after the file's last run, from 1 */
	uint32_t first;  /* the run's first line */
};

static void src_end_run(struct src_chunk *ch)
{
	if (!ch->nlines)
		return;
	buf_put_uvarint(&ch->runs, ch->first - ch->next);
	buf_put_uvarint(&ch->runs, ch->nlines);
	buf_add(&ch->runs, ch->lines.data, ch->lines.len);
	ch->next = ch->first + ch->nlines;
	ch->nruns++;
	ch->nlines = 0;
	buf_reset(&ch->lines);
}

static void src_end_file(struct src_chunk *ch, const char *path)
{
	src_end_run(ch);
	if (ch->nruns) {
		trace_put_string(&ch->body, path);
		buf_put_uvarint(&ch->body, ch->nruns);
		buf_add(&ch->body, ch->runs.data, ch->runs.len);
		ch->nfiles++;
	}
	ch->nruns = 0;
	ch->next = 1;
	buf_reset(&ch->runs);
}

static int src_flush(struct trace_sink *k, struct buf *raw, struct src_chunk *ch)
{
	int r;

	if (!ch->nfiles)
		return 0;
	buf_reset(raw);
	buf_put_uvarint(raw, ch->nfiles);
	buf_add(raw, ch->body.data, ch->body.len);
	r = trace_sink_chunk(k, TRACE_CHUNK_SOURCES, raw);
	ch->nfiles = 0;
	buf_reset(&ch->body);
	return r;
}

/* The sources of s, in chunks that pass TRACE_CHUNK_TARGET by at most a
 * line: where a chunk ends inside a file, the next one holds the rest of
 * it under the same path. */
static int write_sources(struct trace_sink *k, struct buf *raw, const struct trace_pack *s)
{
	struct src_chunk ch = { .next = 1 };
	int r = 0;

	if (!sources_ok(s))
		return TRACE_E_USAGE;
	buf_init(&ch.body);
	buf_init(&ch.runs);
	buf_init(&ch.lines);
	for (size_t i = 0; i < s->nsources && r == 0; i++) {
		const struct trace_pack_source *src = &s->sources[i];

		for (size_t j = 0; j < src->nruns && r == 0; j++) {
			const struct trace_pack_run *run = &src->runs[j];

			for (uint32_t l = 0; l < run->n && r == 0; l++) {
				if (!ch.nlines)
					ch.first = run->first + l;
				buf_put_bytes(&ch.lines, run->text + run->off[l],
					      run->off[l + 1] - run->off[l] - 1);
				ch.nlines++;
				if (ch.body.len + ch.runs.len + ch.lines.len >= TRACE_CHUNK_TARGET) {
					src_end_file(&ch, src->path);
					r = src_flush(k, raw, &ch);
				}
			}
			src_end_run(&ch);
		}
		src_end_file(&ch, src->path);
	}
	if (r == 0)
		r = src_flush(k, raw, &ch);
	buf_release(&ch.body);
	buf_release(&ch.runs);
	buf_release(&ch.lines);
	return r;
}

int trace_pack_write(int fd, const struct trace_pack *s, int header, uint32_t seq,
		     uint64_t *bytes)
{
	struct trace_sink k;
	struct buf raw;
	int r;

	if (bytes)
		*bytes = 0;
	if (fd < 0 || !s)
		return TRACE_E_USAGE;
	buf_init(&raw);
	if ((r = trace_sink_init(&k, fd, seq)) < 0)
		goto out;
	if (header)
		trace_sink_header(&k, TRACE_PACK_MAGIC);
	for (size_t i = 0; i < s->nimages && r == 0; i++)
		r = write_image(&k, &raw, &s->images[i]);
	if (r == 0)
		r = write_sources(&k, &raw, s);
	if (r == 0)
		r = trace_sink_flush(&k);  /* a pack of no images: its header */
out:
	if (bytes)
		*bytes = k.bytes;
	trace_sink_release(&k);
	buf_release(&raw);
	return r;
}
