/*
 * export.c: the samples of a trace with their stacks as locations.
 *
 * One pass over the samples. Each distinct recorded stack is resolved once,
 * at the time of the first sample that has it (which picks the images
 * loaded then, as the profile model does): its addresses become locations,
 * each distinct (address, image, leaf) resolved once through the
 * symbolizer's cache, and its frame names are matched against --focus and
 * --exclude once. The samples then only refer to their stack.
 */
#include "export.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "common/diag.h"
#include "common/hmap.h"

/* Stacks deeper than this are cut, as the profile model cuts them. */
#define EXPORT_MAX_DEPTH 65536

/* The stack_of value of a stack that focus or exclude dropped. */
#define DROPPED UINT64_MAX

struct builder {
	const struct trace *t;
	struct symbolize *sym;
	const struct profile_opts *o;
	struct export *e;
	struct hmap loc_of;       /* (addr, image+1 << 1 | leaf) -> location */
	struct hmap func_of;      /* (XXH3 of name, of file) -> function */
	struct hmap name_memo;    /* profile_selected()'s memo */
	uint64_t *addrs;          /* scratch: one stack, leaf first */
	const char **names;       /* scratch: its frame names */
	size_t capnames;
	size_t capframes, capfuncs, caplocs, capstack_locs, capstacks, capsamples;
};

/* The function of frame f, added if it is new. */
static uint32_t function(struct builder *b, const struct symbolize_frame *f)
{
	struct export *e = b->e;
	const char *file = f->file ? f->file : "";
	uint64_t *slot = hmap_put(&b->func_of, XXH3_64bits(f->name, strlen(f->name)),
				  XXH3_64bits(file, strlen(file)), e->nfuncs, NULL);
	const struct export_function *fn = *slot < e->nfuncs ? &e->funcs[*slot] : NULL;

	if (fn && !strcmp(fn->name, f->name) && !strcmp(fn->file ? fn->file : "", file))
		return (uint32_t)*slot;
	/* New, or a hash collision, which gets a function of its own. */
	e->funcs = xgrow(e->funcs, &b->capfuncs, e->nfuncs + 1, sizeof(*e->funcs));
	e->funcs[e->nfuncs] = (struct export_function){ f->name, f->file, f->line };
	return (uint32_t)e->nfuncs++;
}

/* Sets *out to the location of addr at time (a leaf or a return address),
 * resolving it if it is new. Returns 0 or the symbolizer's error. */
static int location(struct builder *b, uint64_t addr, uint64_t time, int leaf, uint32_t *out)
{
	struct export *e = b->e;
	long img = symbolize_image_find(b->sym, addr, time);
	const struct symbolize_frame *fr;
	uint64_t *slot;
	size_t nf;
	int added, err;

	slot = hmap_put(&b->loc_of, addr, ((uint64_t)(img + 1) << 1) | (uint64_t)leaf, e->nlocs,
			&added);
	*out = (uint32_t)*slot;
	if (!added)
		return 0;
	if ((err = symbolize_addr(b->sym, addr, time, leaf, &fr, &nf)) < 0)
		return err;
	e->frames = xgrow(e->frames, &b->capframes, e->nframes + nf, sizeof(*e->frames));
	e->frame_funcs = xrealloc(e->frame_funcs, b->capframes * sizeof(*e->frame_funcs));
	memcpy(e->frames + e->nframes, fr, nf * sizeof(*fr));
	for (size_t f = 0; f < nf; f++)
		e->frame_funcs[e->nframes + f] = function(b, &fr[f]);
	e->locs = xgrow(e->locs, &b->caplocs, e->nlocs + 1, sizeof(*e->locs));
	e->locs[e->nlocs] = (struct export_location){ .addr = addr, .image = img,
						      .first = e->nframes, .nframes = nf };
	e->nframes += nf;
	e->nlocs++;
	return 0;
}

/* Resolves the recorded stack id at time into a new export stack, and sets
 * *out to its index, or DROPPED if focus or exclude drop it. Returns 0 or
 * the symbolizer's error. */
static int add_stack(struct builder *b, uint32_t id, uint64_t time, uint64_t *out)
{
	struct export *e = b->e;
	size_t n = trace_stack(b->t, id, b->addrs, EXPORT_MAX_DEPTH), first = e->nstack_locs;
	size_t nnames = 0;
	int err;

	*out = DROPPED;
	if (n > EXPORT_MAX_DEPTH)
		n = EXPORT_MAX_DEPTH;
	e->stack_locs = xgrow(e->stack_locs, &b->capstack_locs, first + n, sizeof(*e->stack_locs));
	for (size_t i = 0; i < n; i++)
		if ((err = location(b, b->addrs[i], time, i == 0, &e->stack_locs[first + i])) < 0)
			return err;
	if (b->o->focus || b->o->exclude) {
		for (size_t i = 0; i < n; i++) {
			const struct export_location *l = &e->locs[e->stack_locs[first + i]];

			b->names = xgrow(b->names, &b->capnames, nnames + l->nframes, sizeof(*b->names));
			for (size_t f = 0; f < l->nframes; f++)
				b->names[nnames++] = e->frames[l->first + f].name;
		}
		if (!profile_selected(b->o, b->names, nnames, &b->name_memo))
			return 0;
	}
	e->nstack_locs += n;
	e->stacks = xgrow(e->stacks, &b->capstacks, e->nstacks + 1, sizeof(*e->stacks));
	e->stacks[e->nstacks] = (struct export_stack){ .first = first, .nlocs = n };
	*out = e->nstacks++;
	return 0;
}

int export_build(const struct trace *t, struct symbolize *sym, const struct profile_opts *o,
		 struct export **out)
{
	struct builder b = { .t = t, .sym = sym, .o = o, .e = xcalloc(1, sizeof(*b.e)) };
	struct export *e = b.e;
	struct hmap stack_of;     /* recorded stack id -> export stack, or DROPPED */
	int err = 0;

	hmap_init(&stack_of);
	hmap_init(&b.loc_of);
	hmap_init(&b.func_of);
	hmap_init(&b.name_memo);
	b.addrs = xmalloc(EXPORT_MAX_DEPTH * sizeof(*b.addrs));
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct trace_sample *s = &t->samples[i];
		const struct trace_thread *th;
		uint64_t *slot;
		int added;

		if (!profile_filter_match(t, &o->filter, s))
			continue;
		slot = hmap_put(&stack_of, s->stack, 0, 0, &added);
		if (added) {
			uint64_t st;

			if ((err = add_stack(&b, s->stack, s->time, &st)) < 0)
				goto out;
			slot = hmap_get(&stack_of, s->stack, 0);
			*slot = st;
		}
		if (*slot == DROPPED)
			continue;
		th = trace_thread_find(t, s->tid);
		e->samples = xgrow(e->samples, &b.capsamples, e->nsamples + 1, sizeof(*e->samples));
		e->samples[e->nsamples++] = (struct export_sample){
			.time = s->time > t->session.start_monotonic_ns
					? s->time - t->session.start_monotonic_ns : 0,
			.tid = s->tid,
			.stack = (uint32_t)*slot,
			.state = s->state,
			.thread = th ? trace_thread_name_at(th, s->time) : "",
		};
	}
out:
	hmap_release(&stack_of);
	hmap_release(&b.loc_of);
	hmap_release(&b.func_of);
	hmap_release(&b.name_memo);
	free(b.addrs);
	free(b.names);
	if (err < 0) {
		export_free(e);
		return err;
	}
	*out = e;
	return 0;
}

void export_free(struct export *e)
{
	if (!e)
		return;
	free(e->frames);
	free(e->frame_funcs);
	free(e->funcs);
	free(e->locs);
	free(e->stack_locs);
	free(e->stacks);
	free(e->samples);
	free(e);
}

uint64_t export_duration(const struct trace *t)
{
	uint64_t start = t->session.start_monotonic_ns, end = 0;

	if (t->has_end)
		end = t->end.time;
	else if (t->nsamples)
		end = t->samples[t->nsamples - 1].time;
	return end > start ? end - start : 0;
}

uint64_t export_period(const struct trace *t)
{
	uint32_t hz = t->session.rate_hz;

	return hz ? (1000000000ull + hz / 2) / hz : 0;
}
