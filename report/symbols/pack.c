/*
 * pack.c: serving frames from symbol packs.
 *
 * An identity is looked up once per report, in the packs in the order
 * they were added; the first pack with chunks for it serves it alone, and
 * each address, and each address of code, is a binary search in those
 * chunks. A source file is looked up in each pack in turn, by a binary
 * search of its sorted paths.
 */
#include "report/symbols/pack.h"

#include <stdlib.h>
#include <string.h>

#include "common/diag.h"

struct pack_source {
	struct trace_pack *s;
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
			trace_pack_free(p->src[i].s);
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

void pack_add(struct pack *p, struct trace_pack *s, const char *origin, int own)
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
		if (trace_ident_same(pi->kind, pi->len, pi->ident, img->ident_kind, img->ident_len,
			       img->ident))
			return pi->src ? pi : NULL;
	}
	pi = xcalloc(1, sizeof(*pi));
	pi->kind = img->ident_kind;
	pi->len = img->ident_len <= TRACE_MAX_IDENT ? img->ident_len : 0;
	memcpy(pi->ident, img->ident, pi->len);
	for (size_t i = 0; i < p->nsrc && !pi->src; i++) {
		const struct trace_pack *s = p->src[i].s;
		size_t cap = 0;

		for (size_t k = 0; k < s->nimages; k++) {
			const struct trace_pack_image *si = &s->images[k];
			if (!trace_ident_same(si->ident_kind, si->ident_len, si->ident, pi->kind, pi->len,
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

static int cmp_addr_offset(const void *key, const void *elem)
{
	uint64_t at = *(const uint64_t *)key, off = ((const struct trace_pack_addr *)elem)->offset;

	return (at > off) - (at < off);
}

size_t pack_image_lookup(const struct pack_image *pi, uint64_t at,
			 const struct trace_pack_frame **frames, char *const **strings)
{
	for (size_t c = 0; c < pi->nchunks; c++) {
		const struct trace_pack_image *si = &pi->src->s->images[pi->chunks[c]];
		const struct trace_pack_addr *a =
			si->naddrs ? bsearch(&at, si->addrs, si->naddrs, sizeof(*si->addrs), cmp_addr_offset)
				   : NULL;

		if (a) {
			*frames = &si->frames[a->first];
			*strings = si->strings;
			return a->n;
		}
	}
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

size_t pack_image_addrs(const struct pack_image *pi, uint64_t lo, uint64_t hi, uint64_t *out,
			size_t max)
{
	size_t n = 0, k = 0;

	for (size_t c = 0; c < pi->nchunks; c++) {
		const struct trace_pack_image *si = &pi->src->s->images[pi->chunks[c]];

		for (size_t a = 0; a < si->naddrs && n < max; a++)
			if (si->addrs[a].offset >= lo && si->addrs[a].offset < hi)
				out[n++] = si->addrs[a].offset;
	}
	if (n > 1)
		qsort(out, n, sizeof(*out), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!k || out[k - 1] != out[i])
			out[k++] = out[i];
	return k;
}

size_t pack_image_code(const struct pack_image *pi, uint64_t addr, uint64_t size,
		       const uint8_t **code)
{
	size_t n = 0;

	*code = NULL;
	for (size_t c = 0; c < pi->nchunks && !n; c++)
		n = trace_pack_image_code(&pi->src->s->images[pi->chunks[c]], addr, size, code);
	return n;
}

int pack_image_code_range(const struct pack_image *pi, uint64_t addr, uint64_t *start, uint64_t *end)
{
	int err = TRACE_E_USAGE;

	for (size_t c = 0; c < pi->nchunks && err < 0; c++)
		err = trace_pack_image_code_range(&pi->src->s->images[pi->chunks[c]], addr, start, end);
	return err;
}

/* The first pack of p that holds the source file at path, or NULL. */
static const struct pack_source *source_pack(const struct pack *p, const char *path)
{
	for (size_t i = 0; p && i < p->nsrc; i++)
		if (trace_pack_has_source(p->src[i].s, path))
			return &p->src[i];
	return NULL;
}

const char *pack_source_origin(struct pack *p, const char *path)
{
	const struct pack_source *ps = source_pack(p, path);

	return ps ? ps->origin : NULL;
}

const char *pack_source_line(struct pack *p, const char *path, uint32_t line, size_t *len)
{
	const struct pack_source *ps = source_pack(p, path);

	*len = 0;
	return ps ? trace_pack_source_line(ps->s, path, line, len) : NULL;
}
