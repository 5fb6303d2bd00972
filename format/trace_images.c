/*
 * trace_images.c: which image an address names at a given time, and the
 * stack nodes the reader splits so that every sample of a node sees the
 * same images.
 *
 * A stack node is a (parent, address) pair and knows no time, but an
 * address means different code before and after an image at it is
 * unloaded and another loaded there: a plugin replaced, a library
 * dlclosed and dlopened again. A writer may well reuse the node (ours
 * does: its tree is keyed by address alone), so the reader makes the
 * time count. An address is named from the image that held it at the
 * time of the sample (trace_image_at(), the rule man/prof-trace.5 states),
 * and a node whose samples see different images is copied, with every
 * node below it on their stacks, once per image it is seen with. Each
 * client of struct trace can then name a node once, at the time of any
 * sample that holds it, and be right for all of them.
 *
 * Named code ranges (2.4, trace_code_at()) are split the same way: JIT
 * memory reused for other code, or code a runtime moved, gives one address
 * two names at two times, so what a sample sees at an address is the pair
 * of the image and the code range that name it at its time, and a node is
 * copied once per pair its samples see. Each client then names a node in
 * reused JIT memory at the time of any of its samples too.
 *
 * Most traces need none of it: only an address that two images cover, or
 * that an unloaded image covered, or that two code ranges cover, can change
 * meaning (and, with several processes, any address one of them covers),
 * and when no image overlaps another and none is unloaded, and no code
 * range overlaps another of its process (one pass over the sorted ranges),
 * nothing is walked. Otherwise the answer for an address changes only at
 * the load and unload times of images and the load times of code ranges,
 * so the samples of one leaf between two such times share one answer, and
 * each stack is walked once per such span.
 */
#include "format/trace.h"
#include "format/trace_codec.h"

#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/hmap.h"

/* Copies made past this many per node read are not made (a hostile trace
 * could ask for one per sample and frame); their samples are dropped. */
#define SPLIT_MAX_FACTOR 8
#define SPLIT_MAX_EXTRA (1u << 20)

static int covers(const struct trace_image *img, uint64_t addr)
{
	return addr >= img->start && addr - img->start < img->size;
}

static int loaded_at(const struct trace_image *img, uint64_t time)
{
	return img->time_loaded <= time && (!img->time_unloaded || time < img->time_unloaded);
}

long trace_image_at(const struct trace *t, uint32_t process, uint64_t addr, uint64_t time)
{
	long live = -1, next = -1;

	for (size_t i = 0; i < t->nimages; i++) {
		const struct trace_image *img = &t->images[i];

		if (img->process != process || !covers(img, addr))
			continue;
		/* Of images loaded at one time, the one recorded last wins, as
		 * the mapping made last is the one in place. */
		if (loaded_at(img, time)) {
			if (live < 0 || img->time_loaded >= t->images[live].time_loaded)
				live = (long)i;
		} else if (img->time_loaded > time) {
			/* loads are noticed late: the one noticed next */
			if (next < 0 || img->time_loaded <= t->images[next].time_loaded)
				next = (long)i;
		}
	}
	return live >= 0 ? live : next;
}

long trace_code_at(const struct trace *t, uint32_t process, uint64_t addr, uint64_t time)
{
	size_t lo = 0, hi = t->ncode;
	long live = -1, next = -1;

	/* The first range of a later process, or of this one starting past
	 * addr; those before it that can reach addr start within the
	 * largest size below it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct trace_code *k = &t->code[mid];

		if (k->process < process || (k->process == process && k->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct trace_code *k = &t->code[lo];

		if (k->process != process || addr - k->start >= t->code_max_size)
			break;
		if (addr - k->start >= k->size)
			continue;
		if (k->time <= time) {
			if (live < 0 || k->time > t->code[live].time)
				live = (long)lo;
		} else if (next < 0 || k->time < t->code[next].time) {
			next = (long)lo;
		}
	}
	return live >= 0 ? live : next;
}

int trace_image_anonymous(const struct trace_image *img)
{
	const char *p = img->path;

	if (!p || !p[0])
		return 0;
	return !strcmp(p, "//anon") || !strncmp(p, "[anon", 5) || !strcmp(p, "[heap]") ||
	       !strncmp(p, "[stack", 6);
}

int trace_region_at(const struct trace *t, uint32_t process, uint64_t addr, uint64_t time, long *image,
		    long *code)
{
	long i = trace_image_at(t, process, addr, time), k = -1;
	int region = TRACE_REGION_IMAGE;

	if (i < 0 || trace_image_anonymous(&t->images[i])) {
		k = t->ncode ? trace_code_at(t, process, addr, time) : -1;
		region = k >= 0 ? TRACE_REGION_JIT : TRACE_REGION_ANON;
	}
	if (image)
		*image = i;
	if (code)
		*code = k;
	return region;
}

/* The index of the first code range of process that starts at or after
 * addr, or t->ncode. */
static size_t code_first(const struct trace *t, uint32_t process, uint64_t addr)
{
	size_t lo = 0, hi = t->ncode;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct trace_code *k = &t->code[mid];

		if (k->process < process || (k->process == process && k->start < addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t trace_code_count(const struct trace *t, uint32_t process, uint64_t start, uint64_t end)
{
	size_t i = code_first(t, process, start), n = 0;

	for (; i < t->ncode && t->code[i].process == process && t->code[i].start < end; i++)
		n++;
	return n;
}

uint32_t trace_sample_process(const struct trace *t, const struct trace_sample *s)
{
	const struct trace_thread *th = trace_sample_thread(t, s);

	return th ? th->process : 0;
}

/* The address space cut where an image or a code range starts or ends;
 * each piece says whether its addresses can name different images or code
 * ranges at different times, or in different processes. */
struct pieces {
	uint64_t *start;  /* ascending */
	uint8_t *timed;
	size_t n;
};

struct edge {
	uint64_t addr;
	int cover, unloaded; /* +1 where an image starts, -1 where it ends */
	int code;            /* +1 where a code range starts, -1 where it ends */
};

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Whether any code range overlaps another of its process: the ranges are
 * in order of process and start, so one pass that keeps the furthest end
 * so far tells. */
static int code_overlaps(const struct trace *t)
{
	uint64_t end = 0;

	for (size_t i = 0; i < t->ncode; i++) {
		const struct trace_code *k = &t->code[i];

		if (i && k->process == t->code[i - 1].process && k->start < end)
			return 1;
		if (!i || k->process != t->code[i - 1].process || k->start + k->size > end)
			end = k->start + k->size;
	}
	return 0;
}

/* Fills p and returns whether any piece is timed. With several
 * processes, an address one of them maps may be another's unmapped.
 * Code ranges are cut in only when they can change an address's meaning:
 * when two of one process overlap, or several processes have any. */
static int cut_pieces(const struct trace *t, struct pieces *p)
{
	int several = t->nprocesses > 1;
	size_t ncode = t->ncode && (several || code_overlaps(t)) ? t->ncode : 0;
	struct edge *e = xmalloc((2 * (t->nimages + ncode) + 1) * sizeof(*e));
	size_t ne = 0, i;
	int cover = 0, unloaded = 0, code = 0, any = 0;

	for (i = 0; i < t->nimages; i++) {
		const struct trace_image *img = &t->images[i];
		int u = img->time_unloaded != 0;
		uint64_t end = img->start + img->size;

		if (!img->size)
			continue;
		if (end < img->start)
			end = UINT64_MAX; /* the last byte of the space is lost */
		e[ne++] = (struct edge){ img->start, 1, u, 0 };
		e[ne++] = (struct edge){ end, -1, -u, 0 };
	}
	for (i = 0; i < ncode; i++) {
		/* a reader keeps none that passes the end of the space */
		e[ne++] = (struct edge){ t->code[i].start, 0, 0, 1 };
		e[ne++] = (struct edge){ t->code[i].start + t->code[i].size, 0, 0, -1 };
	}
	qsort(e, ne, sizeof(*e), cmp_edge);
	p->start = xmalloc((ne + 1) * sizeof(*p->start));
	p->timed = xmalloc(ne + 1);
	p->n = 0;
	for (i = 0; i < ne;) {
		uint64_t at = e[i].addr;
		for (; i < ne && e[i].addr == at; i++) {
			cover += e[i].cover;
			unloaded += e[i].unloaded;
			code += e[i].code;
		}
		p->start[p->n] = at;
		p->timed[p->n] = cover > 1 || unloaded > 0 || code > 1 || (several && (cover > 0 || code > 0));
		any |= p->timed[p->n++];
	}
	free(e);
	return any;
}

static int timed(const struct pieces *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n;

	/* the last piece starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->start[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && p->timed[lo - 1];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The span of time a sample falls in: how many load and unload times are
 * at or before it. */
static uint64_t span_of(const uint64_t *times, size_t n, uint64_t time)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (times[mid] <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Node flags while splitting. */
#define NODE_TIMED 1 /* its address can name different images */
#define NODE_CHAIN 2 /* it or a node above it is timed */

/* What a sample sees at an address, the image and the code range that
 * name it then, is numbered in order of first sight: its view. */
struct split {
	struct trace *t;
	size_t cap_nodes, max_nodes;
	uint32_t *seen;       /* per node read: 2 + the view its samples see, 0 if none yet */
	struct hmap copies;   /* (parent | (2 + view) << 32, address) -> node */
	struct hmap images;   /* (address, where) -> 2 + the view of it then */
	struct hmap views;    /* (2 + image, 2 + code range) -> view */
	uint32_t nviews;
};

/* Where in time and space a sample is: its span of time and its process. */
static uint64_t where_of(uint64_t span, uint32_t process)
{
	return span | (uint64_t)process << 32;
}

/* 2 + the view of addr in process in this span of time, a sample's time
 * in it: the image and the code range that name it. */
static uint32_t image_code(struct split *sp, uint64_t addr, uint64_t span, uint32_t process, uint64_t time)
{
	int added;
	uint64_t *slot = hmap_put(&sp->images, addr, where_of(span, process), 0, &added);

	if (added) {
		uint64_t img = (uint64_t)(trace_image_at(sp->t, process, addr, time) + 2);
		uint64_t code = sp->t->ncode ? (uint64_t)(trace_code_at(sp->t, process, addr, time) + 2) : 1;
		uint64_t *view = hmap_put(&sp->views, img, code, sp->nviews, &added);

		sp->nviews += added;
		*slot = *view + 2;
	}
	return (uint32_t)*slot;
}

/* The node for address addr under parent, seen with image code (0 for
 * an address whose image never changes), copied if need be; or 0 when
 * the cap is reached. */
static uint32_t copy_node(struct split *sp, uint32_t parent, uint64_t addr, uint32_t code)
{
	struct trace *t = sp->t;
	uint64_t *slot;
	int added;

	slot = hmap_get(&sp->copies, parent | (uint64_t)code << 32, addr);
	if (slot)
		return (uint32_t)*slot;
	if (t->nnodes >= sp->max_nodes)
		return 0;
	slot = hmap_put(&sp->copies, parent | (uint64_t)code << 32, addr, t->nnodes, &added);
	t->nodes = xgrow(t->nodes, &sp->cap_nodes, t->nnodes + 1, sizeof(*t->nodes));
	t->nodes[t->nnodes] = (struct trace_node){ .addr = addr, .parent = parent };
	t->status.nodes_split++;
	return (uint32_t)t->nnodes++;
}

/* The node that stands for the stack of sample s with each address seen at
 * the sample's time, made if need be; 0 if it could not be. */
static uint32_t split_stack(struct split *sp, const uint8_t *flags, uint32_t **chain,
			    size_t *cap, const struct trace_sample *s, uint64_t span)
{
	struct trace *t = sp->t;
	struct trace_chain c;
	uint32_t cur = 0, n;
	size_t depth = 0;
	int copied = 0;

	for (trace_chain_init(&c, t, s->stack); trace_chain_next(&c, &n);) {
		*chain = xgrow(*chain, cap, depth + 1, sizeof(**chain));
		(*chain)[depth++] = n;
	}
	while (depth--) {
		uint32_t code = 0;

		n = (*chain)[depth];
		if (flags[n] & NODE_TIMED)
			code = image_code(sp, t->nodes[n].addr, span, trace_sample_process(t, s), s->time);
		if (!copied) {
			if (code && !sp->seen[n])
				sp->seen[n] = code;
			if (!code || sp->seen[n] == code) {
				cur = n;
				continue;
			}
			copied = 1;
		}
		if (!(cur = copy_node(sp, cur, t->nodes[n].addr, code)))
			return 0;
	}
	return cur;
}

void trace_split_by_image(struct trace *t, size_t cap_nodes)
{
	struct split sp = { .t = t, .cap_nodes = cap_nodes };
	struct pieces p;
	struct hmap done; /* (leaf, where) -> node */
	uint64_t *times = NULL;
	uint8_t *flags = NULL;
	uint32_t *chain = NULL;
	size_t nread = t->nnodes, ntimes = 0, capchain = 0, kept = 0, i;

	if (!cut_pieces(t, &p))
		goto out;
	flags = xcalloc(nread, 1);
	for (i = 1; i < nread; i++) {
		flags[i] = timed(&p, t->nodes[i].addr) ? NODE_TIMED : 0;
		if ((flags[i] | flags[t->nodes[i].parent]) & (NODE_TIMED | NODE_CHAIN))
			flags[i] |= NODE_CHAIN;
	}
	times = xmalloc((2 * t->nimages + t->ncode + 1) * sizeof(*times));
	for (i = 0; i < t->nimages; i++) {
		times[ntimes++] = t->images[i].time_loaded;
		if (t->images[i].time_unloaded)
			times[ntimes++] = t->images[i].time_unloaded;
	}
	for (i = 0; i < t->ncode; i++)
		times[ntimes++] = t->code[i].time;
	qsort(times, ntimes, sizeof(*times), cmp_u64);
	sp.seen = xcalloc(nread, sizeof(*sp.seen));
	sp.max_nodes = nread * SPLIT_MAX_FACTOR + SPLIT_MAX_EXTRA;
	if (sp.max_nodes > UINT32_MAX)
		sp.max_nodes = UINT32_MAX;
	hmap_init(&sp.copies);
	hmap_init(&sp.images);
	hmap_init(&sp.views);
	hmap_init(&done);
	for (i = 0; i < t->nsamples; i++) {
		struct trace_sample *s = &t->samples[i];
		uint64_t span, *slot;
		int added;

		if (!(flags[s->stack] & NODE_CHAIN)) {
			t->samples[kept++] = *s;
			continue;
		}
		span = span_of(times, ntimes, s->time);
		slot = hmap_put(&done, s->stack, where_of(span, trace_sample_process(t, s)), 0, &added);
		if (added)
			*slot = split_stack(&sp, flags, &chain, &capchain, s, span);
		if (!*slot) {
			/* past the cap: its frames cannot be named right */
			t->status.samples_dropped++;
			continue;
		}
		t->samples[kept] = *s;
		t->samples[kept++].stack = (uint32_t)*slot;
	}
	t->nsamples = kept;
	hmap_release(&sp.copies);
	hmap_release(&sp.images);
	hmap_release(&sp.views);
	hmap_release(&done);
out:
	free(p.start);
	free(p.timed);
	free(times);
	free(flags);
	free(sp.seen);
	free(chain);
}
