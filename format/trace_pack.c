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
	free(img->path);
}

void trace_pack_free(struct trace_pack *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nimages; i++)
		image_release(&s->images[i]);
	free(s->images);
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

int trace_pack_parse_chunk(struct trace_pack *s, const uint8_t *raw, size_t n)
{
	struct trace_pack_image img = { 0 };
	const uint8_t *ident;
	size_t ident_len;
	uint64_t nstrings;
	int r = TRACE_E_CORRUPT;

	struct cursor c;

	cursor_init(&c, raw, n);
	cursor_u8(&c, &img.ident_kind);
	cursor_bytes(&c, TRACE_MAX_IDENT, &ident, &ident_len);
	if (!c.ok || !trace_ident_valid(img.ident_kind, ident_len))
		goto out;
	img.ident_len = (uint8_t)ident_len;
	memcpy(img.ident, ident, ident_len);
	if (!(img.path = trace_get_string(&c)))
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
	s->images = xgrow(s->images, &s->cap_images, s->nimages + 1, sizeof(*s->images));
	s->images[s->nimages++] = img;
	return 0;
out:
	image_release(&img);
	return r;
}

static int pack_chunk(void *ctx, const struct trace_chunk *c)
{
	return trace_pack_parse_chunk(ctx, c->raw, c->len);
}

int trace_pack_load_mem(const void *mem, size_t n, struct trace_pack **out)
{
	struct trace_pack *s;
	struct trace_walk w = { .types = 1u << TRACE_CHUNK_PACK, .fn = pack_chunk };
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

static int chunk_flush(struct trace_sink *k, struct buf *raw, const struct trace_pack_image *img,
		       struct chunk *ch)
{
	int r;

	if (!ch->naddrs)
		return 0;
	buf_reset(raw);
	buf_addch(raw, img->ident_kind);
	buf_put_bytes(raw, img->ident, img->ident_len);
	trace_put_string(raw, img->path);
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
	return 1;
}

static int write_image(struct trace_sink *k, struct buf *raw, const struct trace_pack_image *img)
{
	struct chunk ch = { 0 };
	int r = 0;

	if (!img->naddrs)
		return 0;
	if (!image_ok(img))
		return TRACE_E_USAGE;
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
		r = trace_sink_flush(&k);  /* a pack of no images: its header */
out:
	if (bytes)
		*bytes = k.bytes;
	trace_sink_release(&k);
	buf_release(&raw);
	return r;
}
