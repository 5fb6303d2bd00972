/*
 * pack.c: making symbol packs from a symbolizer, and serving frames from
 * them.
 *
 * Making one walks the trace's samples once, asking the symbolizer for
 * each distinct (stack node, leaf) it meets; every named address joins its
 * image's list under the address looked up, so a leaf and a return address
 * that look up the same instruction are kept once. The lists are sorted
 * by image, in the trace's order, then by address, and the strings of each
 * image interned in order of first use, so the same trace and debug files
 * always give the same bytes.
 *
 * Serving: an identity is looked up once per report, in the packs in the
 * order they were added; the first pack with chunks for it serves it
 * alone, and each address is a binary search in those chunks.
 */
#include "pack.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/diag.h"
#include "common/hmap.h"
#include "report/symbolize.h"

_Static_assert((int)SYMBOLIZE_LANG_C == (int)TRACE_SYMS_LANG_C &&
		       (int)SYMBOLIZE_LANG_CXX == (int)TRACE_SYMS_LANG_CXX &&
		       (int)SYMBOLIZE_LANG_RUST == (int)TRACE_SYMS_LANG_RUST,
	       "a frame's language is stored as its enum symbolize_lang value");

struct pack_source {
	struct trace_syms *s;
	char *origin;
	int own;
};

struct pack_image {
	const struct pack_source *src;  /* NULL: no pack has the identity */
	uint8_t kind, len, ident[TRACE_MAX_IDENT];
	size_t *chunks;                 /* indexes into src->s->images */
	size_t nchunks;
	size_t naddrs;
};

struct pack {
	struct pack_source *src;
	size_t nsrc, capsrc;
	struct pack_image **images;     /* identities asked for so far */
	size_t nimages, capimages;
};

static int same_ident(int kind, size_t len, const uint8_t *ident, int kind2, size_t len2,
		      const uint8_t *ident2)
{
	return kind == kind2 && len == len2 && !memcmp(ident, ident2, len);
}

struct pack *pack_new(void)
{
	return xcalloc(1, sizeof(struct pack));
}

void pack_free(struct pack *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nsrc; i++) {
		if (p->src[i].own)
			trace_syms_free(p->src[i].s);
		free(p->src[i].origin);
	}
	for (size_t i = 0; i < p->nimages; i++) {
		free(p->images[i]->chunks);
		free(p->images[i]);
	}
	free(p->src);
	free(p->images);
	free(p);
}

void pack_add(struct pack *p, struct trace_syms *s, const char *origin, int own)
{
	p->src = xgrow(p->src, &p->capsrc, p->nsrc + 1, sizeof(*p->src));
	p->src[p->nsrc++] = (struct pack_source){ .s = s, .origin = xstrdup(origin), .own = own };
}

const struct pack_image *pack_find(struct pack *p, const struct trace_image *img)
{
	struct pack_image *pi;

	if (!p)
		return NULL;
	for (size_t i = 0; i < p->nimages; i++) {
		pi = p->images[i];
		if (same_ident(pi->kind, pi->len, pi->ident, img->ident_kind, img->ident_len,
			       img->ident))
			return pi->src ? pi : NULL;
	}
	pi = xcalloc(1, sizeof(*pi));
	pi->kind = img->ident_kind;
	pi->len = img->ident_len <= TRACE_MAX_IDENT ? img->ident_len : 0;
	memcpy(pi->ident, img->ident, pi->len);
	for (size_t i = 0; i < p->nsrc && !pi->src; i++) {
		const struct trace_syms *s = p->src[i].s;
		size_t cap = 0;

		for (size_t k = 0; k < s->nimages; k++) {
			const struct trace_syms_image *si = &s->images[k];
			if (!same_ident(si->ident_kind, si->ident_len, si->ident, pi->kind, pi->len,
					pi->ident))
				continue;
			pi->chunks = xgrow(pi->chunks, &cap, pi->nchunks + 1, sizeof(*pi->chunks));
			pi->chunks[pi->nchunks++] = k;
			pi->naddrs += si->naddrs;
		}
		if (pi->nchunks)
			pi->src = &p->src[i];
	}
	p->images = xgrow(p->images, &p->capimages, p->nimages + 1, sizeof(*p->images));
	p->images[p->nimages++] = pi;
	return pi->src ? pi : NULL;
}

const char *pack_image_origin(const struct pack_image *pi)
{
	return pi->src->origin;
}

size_t pack_image_naddrs(const struct pack_image *pi)
{
	return pi->naddrs;
}

size_t pack_image_lookup(const struct pack_image *pi, uint64_t at,
			 const struct trace_syms_frame **frames, char *const **strings)
{
	for (size_t c = 0; c < pi->nchunks; c++) {
		const struct trace_syms_image *si = &pi->src->s->images[pi->chunks[c]];
		size_t lo = 0, hi = si->naddrs;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (si->addrs[mid].offset < at)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < si->naddrs && si->addrs[lo].offset == at) {
			*frames = &si->frames[si->addrs[lo].first];
			*strings = si->strings;
			return si->addrs[lo].n;
		}
	}
	return 0;
}

/* --- building --------------------------------------------------------- */

struct entry {
	size_t image;       /* index into the pack's images */
	uint64_t at;
	size_t first, n;    /* into the builder's frames */
};

struct builder {
	const struct trace *t;
	struct symbolize *sym;
	struct pack *have;
	struct trace_syms *out;
	long *image_of;     /* trace image -> pack image, -1 none, -2 not yet */
	struct hmap seen;   /* (pack image, at) */
	struct entry *entries;
	size_t nentries, capentries;
	struct symbolize_frame *frames;
	size_t nframes, capframes;
};

static int valid_ident(const struct trace_image *img)
{
	if (img->ident_kind == TRACE_IDENT_MACHO_UUID)
		return img->ident_len == 16;
	return img->ident_kind == TRACE_IDENT_GNU_BUILD_ID && img->ident_len >= 2 &&
	       img->ident_len <= TRACE_MAX_IDENT;
}

/* The pack image for trace image i: one per identity. */
static long pack_image_of(struct builder *b, size_t i)
{
	const struct trace_image *img = &b->t->images[i];

	if (b->image_of[i] != -2)
		return b->image_of[i];
	b->image_of[i] = -1;
	if (!valid_ident(img))
		return -1;
	for (size_t k = 0; k < b->out->nimages; k++) {
		const struct trace_syms_image *si = &b->out->images[k];
		if (same_ident(si->ident_kind, si->ident_len, si->ident, img->ident_kind,
			       img->ident_len, img->ident))
			return b->image_of[i] = (long)k;
	}
	trace_syms_add_image(b->out, img->ident_kind, img->ident, img->ident_len, img->path);
	return b->image_of[i] = (long)b->out->nimages - 1;
}

static void add_addr(struct builder *b, uint64_t addr, uint64_t time, int leaf)
{
	const struct symbolize_frame *fr;
	const struct trace_syms_frame *had;
	char *const *had_strings;
	const struct pack_image *pi;
	struct entry *e;
	size_t nf;
	uint64_t at;
	long img;
	int added;

	if (symbolize_addr(b->sym, addr, time, leaf, &fr, &nf) < 0 || !nf || fr[0].image < 0 ||
	    !fr[nf - 1].resolved || nf > TRACE_SYMS_MAX_FRAMES)
		return;
	if ((img = pack_image_of(b, (size_t)fr[0].image)) < 0)
		return;
	at = symbolize_lookup_offset(fr[0].offset, leaf);
	hmap_put(&b->seen, (uint64_t)img, at, 0, &added);
	if (!added)
		return;
	pi = pack_find(b->have, &b->t->images[fr[0].image]);
	if (pi && pack_image_lookup(pi, at, &had, &had_strings))
		return;
	b->frames = xgrow(b->frames, &b->capframes, b->nframes + nf, sizeof(*b->frames));
	memcpy(&b->frames[b->nframes], fr, nf * sizeof(*fr));
	b->entries = xgrow(b->entries, &b->capentries, b->nentries + 1, sizeof(*b->entries));
	e = &b->entries[b->nentries++];
	*e = (struct entry){ .image = (size_t)img, .at = at, .first = b->nframes, .n = nf };
	b->nframes += nf;
}

static int cmp_entry(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;

	if (a->image != b->image)
		return a->image < b->image ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

/* The index of str in img's strings, added if new. */
static uint32_t intern(struct trace_syms_image *img, struct hmap *strings, const char *str)
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
		struct trace_syms_image *img = &b->out->images[e->image];
		struct trace_syms_addr *a;

		if (e->image != cur) {
			hmap_release(&strings);
			hmap_init(&strings);
			cur = e->image;
		}
		img->addrs = xgrow(img->addrs, &img->cap_addrs, img->naddrs + 1, sizeof(*img->addrs));
		a = &img->addrs[img->naddrs++];
		*a = (struct trace_syms_addr){ .offset = e->at, .first = (uint32_t)img->nframes,
					       .n = (uint32_t)e->n };
		img->frames = xgrow(img->frames, &img->cap_frames, img->nframes + e->n,
				    sizeof(*img->frames));
		for (size_t k = 0; k < e->n; k++) {
			const struct symbolize_frame *f = &b->frames[e->first + k];
			struct trace_syms_frame *o = &img->frames[img->nframes++];

			o->name = intern(img, &strings, f->name);
			o->file = f->file ? intern(img, &strings, f->file) + 1 : 0;
			o->line = f->line;
			o->lang = (uint8_t)f->lang;
		}
	}
	hmap_release(&strings);
}

int pack_build(const struct trace *t, struct symbolize *sym, struct pack *have,
	       struct trace_syms **out, struct pack_stats *st)
{
	struct builder b = { .t = t, .sym = sym, .have = have, .out = trace_syms_new() };

	b.image_of = xmalloc((t->nimages + 1) * sizeof(*b.image_of));
	for (size_t i = 0; i < t->nimages; i++)
		b.image_of[i] = -2;
	hmap_init(&b.seen);
	{
		struct hmap nodes; /* (node, leaf) met */

		hmap_init(&nodes);
		for (size_t i = 0; i < t->nsamples; i++) {
			uint32_t n = t->samples[i].stack;
			int leaf = 1, added;

			for (; n && n < t->nnodes; n = t->nodes[n].parent, leaf = 0) {
				hmap_put(&nodes, n, (uint64_t)leaf, 0, &added);
				/* A caller met before: so were all of its. */
				if (!added && !leaf)
					break;
				if (added)
					add_addr(&b, t->nodes[n].addr, t->samples[i].time, leaf);
			}
		}
		hmap_release(&nodes);
	}
	if (b.nentries)
		qsort(b.entries, b.nentries, sizeof(*b.entries), cmp_entry);
	emit(&b);
	*st = (struct pack_stats){ .addrs = b.nentries, .frames = b.nframes };
	for (size_t i = 0; i < b.out->nimages; i++)
		st->images += b.out->images[i].naddrs > 0;
	*out = b.out;
	free(b.image_of);
	free(b.entries);
	free(b.frames);
	hmap_release(&b.seen);
	return 0;
}
