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
 */
#include "report/output/pack_build.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/diag.h"
#include "common/hmap.h"
#include "common/progress.h"

struct entry {
	size_t image;       /* index into the pack's images */
	uint64_t at;
	const struct symbolize_frame *f; /* borrowed from the symbolizer */
	size_t n;
};

struct builder {
	const struct trace *t;
	struct stacks *st;
	struct pack *have;
	struct trace_pack *out;
	long *image_of;     /* trace image -> pack image, -1 none, -2 not yet */
	struct hmap seen;   /* (pack image, at) */
	struct hmap met;    /* (trace image, at) */
	size_t *used, *named; /* per trace image */
	struct entry *entries;
	size_t nentries, capentries, nframes;
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

/* Adds node's frames in one role, if they are named and new. */
static void add_node(struct builder *b, uint32_t node, int leaf)
{
	const struct symbolize_frame *fr;
	const struct trace_pack_frame *had;
	char *const *had_strings;
	const struct pack_image *pi;
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
	hmap_put(&b->seen, (uint64_t)img, at, 0, &added);
	if (!added)
		return;
	pi = pack_find(b->have, &b->t->images[fr[0].image]);
	if (pi && pack_image_lookup(pi, at, &had, &had_strings))
		return;
	b->entries = xgrow(b->entries, &b->capentries, b->nentries + 1, sizeof(*b->entries));
	b->entries[b->nentries++] = (struct entry){ .image = (size_t)img, .at = at, .f = fr, .n = nf };
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

struct trace_pack *pack_build(struct stacks *s, struct pack *have, struct pack_build_stats *st,
			      struct progress *pg)
{
	const struct trace *t = stacks_trace(s);
	struct builder b = { .t = t, .st = s, .have = have, .out = trace_pack_new() };
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
	if (b.nentries)
		qsort(b.entries, b.nentries, sizeof(*b.entries), cmp_entry);
	emit(&b);
	*st = (struct pack_build_stats){ .addrs = b.nentries, .frames = b.nframes, .used = b.used,
					 .named = b.named };
	for (size_t i = 0; i < b.out->nimages; i++)
		st->images += b.out->images[i].naddrs > 0;
	free(met);
	free(b.image_of);
	free(b.entries);
	hmap_release(&b.seen);
	hmap_release(&b.met);
	return b.out;
}
