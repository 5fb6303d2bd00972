/*
 * annotate.c: counting samples by function, source line and address.
 *
 * As the profile does, samples are first counted per distinct stack, and
 * each distinct stack is walked once with its count. Every node of the
 * trace's tree is looked up once per role (leaf, return address): which
 * function, site and address it counts for is kept per node, so the walk
 * costs a few array reads per frame. A site or address meets a stack
 * once at most in its total, however often recursion repeats it: each
 * remembers the last stack it counted.
 */
#include "report/model/annotate.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "common/diag.h"
#include "common/hmap.h"

/* What a node counts for in one role. */
struct role {
	uint32_t fn, site, addr;  /* fn UINT32_MAX: nothing */
	int known;
};

struct build {
	struct annotate *a;
	struct stacks *st;
	struct hmap fn_of, site_of, addr_of;
	size_t capfns;
	struct caps { size_t sites, addrs; } *caps; /* per function */
	size_t capcaps;
};

static uint64_t hash_str(const char *s)
{
	return s ? XXH3_64bits(s, strlen(s)) : 0;
}

/* The identity of the build of image img: its bytes, else its label. */
static uint64_t image_key(const struct trace *t, const struct symbolize_frame *f)
{
	if (f->image >= 0 && t->images[f->image].ident_len)
		return XXH3_64bits(t->images[f->image].ident, t->images[f->image].ident_len);
	return hash_str(f->image_label);
}

static uint32_t fn_index(struct build *b, const struct symbolize_frame *f)
{
	const struct trace *t = stacks_trace(b->st);
	struct annotate *a = b->a;
	int added;
	uint64_t *slot = hmap_put(&b->fn_of, hash_str(f->name), image_key(t, f), a->nfns, &added);

	if (added) {
		a->fns = xgrow(a->fns, &b->capfns, a->nfns + 1, sizeof(*a->fns));
		b->caps = xgrow(b->caps, &b->capcaps, a->nfns + 1, sizeof(*b->caps));
		a->fns[a->nfns] = (struct annotate_fn){ .name = f->name, .image_label = f->image_label,
							.image = f->image, .last = UINT64_MAX };
		b->caps[a->nfns] = (struct caps){ 0, 0 };
		a->nfns++;
	}
	return (uint32_t)*slot;
}

static uint32_t site_index(struct build *b, uint32_t fn, size_t parent,
			   const struct symbolize_frame *f)
{
	struct annotate_fn *af = &b->a->fns[fn];
	uint64_t k1 = (uint64_t)fn << 32 ^ f->line ^ (parent + 1) * 0x9e3779b97f4a7c15ull;
	uint64_t k2 = hash_str(f->file) ^ hash_str(f->signature) * 0xc2b2ae3d27d4eb4full;
	int added;
	uint64_t *slot = hmap_put(&b->site_of, k1, k2, af->nsites, &added);

	if (added) {
		af->sites = xgrow(af->sites, &b->caps[fn].sites, af->nsites + 1, sizeof(*af->sites));
		af->sites[af->nsites++] = (struct annotate_site){
			.function = f->name, .file = f->file, .md5 = f->file_md5, .line = f->line,
			.parent = parent, .last = UINT64_MAX };
	}
	return (uint32_t)*slot;
}

static uint32_t addr_index(struct build *b, uint32_t fn, uint64_t at)
{
	struct annotate_fn *af = &b->a->fns[fn];
	int added;
	uint64_t *slot = hmap_put(&b->addr_of, fn, at, af->naddrs, &added);

	if (added) {
		af->addrs = xgrow(af->addrs, &b->caps[fn].addrs, af->naddrs + 1, sizeof(*af->addrs));
		af->addrs[af->naddrs++] = (struct annotate_addr){ .at = at, .last = UINT64_MAX };
	}
	return (uint32_t)*slot;
}

/* What node counts for as a leaf (leaf != 0) or a return address. */
static struct role resolve_role(struct build *b, uint32_t node, int leaf)
{
	const struct symbolize_frame *fr;
	size_t n = stacks_frames(b->st, node, leaf, &fr);
	const struct symbolize_frame *outer = &fr[n - 1];
	struct role r = { .fn = UINT32_MAX, .known = 1 };
	size_t site;

	if (!outer->resolved)
		return r;
	r.fn = fn_index(b, outer);
	site = site_index(b, r.fn, ANNOTATE_NONE, outer);
	for (size_t k = n - 1; k-- > 0;)
		site = site_index(b, r.fn, site, &fr[k]);
	r.site = (uint32_t)site;
	r.addr = addr_index(b, r.fn, outer->image >= 0 ? symbolize_lookup_offset(outer->offset, leaf)
						      : outer->offset);
	return r;
}

/* Counts one stack of count samples; serial tells stacks apart. */
static void count_stack(struct build *b, struct role *roles, const uint32_t *nodes, size_t depth,
			uint64_t count, uint64_t serial)
{
	for (size_t d = 0; d < depth; d++) {
		uint32_t node = nodes[d];
		int leaf, self = d == 0;
		struct role *r;
		struct annotate_fn *af;
		struct annotate_addr *ad;

		if (node == STACKS_NODE_KERNEL)
			continue;
		leaf = stacks_leaf(b->st, nodes, d);
		r = &roles[2 * (size_t)node + (size_t)leaf];
		if (!r->known)
			*r = resolve_role(b, node, leaf);
		if (r->fn == UINT32_MAX)
			continue;
		af = &b->a->fns[r->fn];
		if (af->last != serial) {
			af->last = serial;
			af->total += count;
		}
		af->self += self ? count : 0;
		for (size_t s = r->site; s != ANNOTATE_NONE; s = af->sites[s].parent) {
			struct annotate_site *si = &af->sites[s];

			if (si->last != serial) {
				si->last = serial;
				si->total += count;
			}
			si->self += self ? count : 0;
		}
		ad = &af->addrs[r->addr];
		if (ad->last != serial) {
			ad->last = serial;
			ad->total += count;
		}
		ad->self += self ? count : 0;
	}
}

static int cmp_addr(const void *x, const void *y)
{
	const struct annotate_addr *a = x, *b = y;

	return (a->at > b->at) - (a->at < b->at);
}

struct distinct {
	const struct trace_sample *first;
	uint64_t count;
};

void annotate_build(struct stacks *st, const struct stacks_filter *f, struct progress *progress,
		    struct annotate *out)
{
	const struct trace *t = stacks_trace(st);
	struct build b = { .a = out, .st = st };
	struct distinct *keys = NULL;
	size_t nkeys = 0, capkeys = 0;
	struct role *roles;
	struct hmap seen;

	memset(out, 0, sizeof(*out));
	hmap_init(&b.fn_of);
	hmap_init(&b.site_of);
	hmap_init(&b.addr_of);
	hmap_init(&seen);
	progress_phase(progress, "folding", "samples", t->nsamples);
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct trace_sample *s = &t->samples[i];
		uint64_t *slot;
		int added;

		progress_update(progress, i);
		if (!stacks_keep(st, f, s))
			continue;
		slot = hmap_put(&seen, stacks_sample_key(s), 0, nkeys, &added);
		if (added) {
			keys = xgrow(keys, &capkeys, nkeys + 1, sizeof(*keys));
			keys[nkeys++] = (struct distinct){ s, 0 };
		}
		keys[*slot].count++;
		out->samples++;
	}
	roles = xcalloc(2 * (size_t)(t->nnodes ? t->nnodes : 1), sizeof(*roles));
	progress_phase(progress, "symbolizing", "stacks", nkeys);
	for (size_t i = 0; i < nkeys; i++) {
		const uint32_t *nodes;
		size_t depth = stacks_sample_nodes(st, keys[i].first, &nodes);

		progress_update(progress, i);
		count_stack(&b, roles, nodes, depth, keys[i].count, i);
	}
	for (size_t i = 0; i < out->nfns; i++)
		if (out->fns[i].naddrs > 1)
			qsort(out->fns[i].addrs, out->fns[i].naddrs, sizeof(*out->fns[i].addrs), cmp_addr);
	free(roles);
	free(keys);
	free(b.caps);
	hmap_release(&seen);
	hmap_release(&b.fn_of);
	hmap_release(&b.site_of);
	hmap_release(&b.addr_of);
}

void annotate_release(struct annotate *a)
{
	for (size_t i = 0; i < a->nfns; i++) {
		free(a->fns[i].sites);
		free(a->fns[i].addrs);
	}
	free(a->fns);
	memset(a, 0, sizeof(*a));
}

int annotate_cmp_hot(const void *x, const void *y)
{
	const struct annotate_fn *a = *(const struct annotate_fn *const *)x;
	const struct annotate_fn *b = *(const struct annotate_fn *const *)y;

	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->name, b->name);
}
