/*
 * export.c: the samples of a trace with their stacks as locations.
 *
 * One pass over the samples the filter keeps. Each distinct stack, as
 * report/model/stacks.h shows it, is resolved once: its nodes become locations,
 * each distinct (address, frames) once, with the frames
 * report/model/stacks.c gives the node. The samples then only refer to their
 * stack.
 */
#include "report/model/export.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "common/diag.h"
#include "common/hmap.h"
#include "common/progress.h"

#define NO_LOCATION UINT64_MAX

struct builder {
	const struct trace *t;
	struct stacks *st;
	struct export *e;
	struct hmap loc_of;       /* (addr, its frames) -> location */
	struct hmap func_of;      /* (XXH3 of name, of file) -> function */
	uint64_t kernel_loc;      /* the [kernel] location, or NO_LOCATION */
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

/* The location of node in one role, added if it is new. The [kernel]
 * frame is one location of its own, at no address. */
static uint32_t location(struct builder *b, uint32_t node, int leaf)
{
	struct export *e = b->e;
	const struct symbolize_frame *fr;
	size_t nf = stacks_frames(b->st, node, leaf, &fr);
	int kernel = node == STACKS_NODE_KERNEL;
	uint64_t addr = kernel ? 0 : b->t->nodes[node].addr;
	uint64_t *slot;
	int added;

	if (kernel) {
		slot = &b->kernel_loc;
		added = *slot == NO_LOCATION;
		if (added)
			*slot = e->nlocs;
	} else {
		/* The symbolizer gives an address the same frames for one image
		 * and role, and for one code range of code compiled at run
		 * time, whose address may name other code in another process
		 * or at another time: the frames tell the locations apart. */
		slot = hmap_put(&b->loc_of, addr, (uint64_t)(uintptr_t)fr, e->nlocs, &added);
	}
	if (!added)
		return (uint32_t)*slot;
	e->frames = xgrow(e->frames, &b->capframes, e->nframes + nf, sizeof(*e->frames));
	e->frame_funcs = xrealloc(e->frame_funcs, b->capframes * sizeof(*e->frame_funcs));
	memcpy(e->frames + e->nframes, fr, nf * sizeof(*fr));
	for (size_t f = 0; f < nf; f++)
		e->frame_funcs[e->nframes + f] = function(b, &fr[f]);
	e->locs = xgrow(e->locs, &b->caplocs, e->nlocs + 1, sizeof(*e->locs));
	e->locs[e->nlocs] = (struct export_location){ .addr = addr, .image = fr[0].image,
						      .first = e->nframes, .nframes = nf };
	e->nframes += nf;
	return (uint32_t)e->nlocs++;
}

/* The stack of sample s as a new export stack: returns its index. */
static uint32_t add_stack(struct builder *b, const struct trace_sample *s)
{
	struct export *e = b->e;
	const uint32_t *nodes;
	size_t n = stacks_sample_nodes(b->st, s, &nodes), first = e->nstack_locs;

	e->stack_locs = xgrow(e->stack_locs, &b->capstack_locs, first + n, sizeof(*e->stack_locs));
	for (size_t i = 0; i < n; i++)
		e->stack_locs[first + i] = location(b, nodes[i], stacks_leaf(b->st, nodes, i));
	e->nstack_locs += n;
	e->stacks = xgrow(e->stacks, &b->capstacks, e->nstacks + 1, sizeof(*e->stacks));
	e->stacks[e->nstacks] = (struct export_stack){ .first = first, .nlocs = n };
	return (uint32_t)e->nstacks++;
}

struct export *export_build(struct stacks *st, const struct stacks_filter *f, struct progress *pg)
{
	const struct trace *t = stacks_trace(st);
	struct builder b = { .t = t, .st = st, .e = xcalloc(1, sizeof(*b.e)),
			     .kernel_loc = NO_LOCATION };
	struct export *e = b.e;
	struct hmap stack_of;     /* stacks_sample_key() -> export stack */
	struct hmap program_of;   /* (process, programs begun) -> e->programs */
	size_t capprograms = 0;

	e->processes = t->nprocesses > 1;
	hmap_init(&stack_of);
	hmap_init(&program_of);
	hmap_init(&b.loc_of);
	hmap_init(&b.func_of);
	progress_phase(pg, "symbolizing", "samples", t->nsamples);
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct trace_sample *s = &t->samples[i];
		uint32_t proc = trace_sample_process(t, s);
		const struct trace_process *p = proc < t->nprocesses ? &t->processes[proc] : NULL;
		uint64_t *slot, *prog;
		int added;

		progress_update(pg, i);
		if (!stacks_keep(st, f, s))
			continue;
		slot = hmap_put(&stack_of, stacks_sample_key(s), 0, 0, &added);
		if (added)
			*slot = add_stack(&b, s);
		prog = hmap_put(&program_of, proc, p ? stacks_execs_by(p, s->time) : 0, e->nprograms, &added);
		if (added) {
			e->programs = xgrow(e->programs, &capprograms, e->nprograms + 1, sizeof(*e->programs));
			e->programs[e->nprograms++] = stacks_process_name(t, proc, s->time);
		}
		e->samples = xgrow(e->samples, &b.capsamples, e->nsamples + 1, sizeof(*e->samples));
		e->samples[e->nsamples++] = (struct export_sample){
			.time = trace_since_start_ns(t, s->time),
			.tid = s->tid,
			.stack = (uint32_t)*slot,
			.state = s->state,
			.thread = trace_thread_name_at(trace_sample_thread(t, s), s->time),
			.pid = p ? p->pid : t->session.pid,
			.process = e->programs[*prog],
		};
	}
	hmap_release(&stack_of);
	hmap_release(&program_of);
	hmap_release(&b.loc_of);
	hmap_release(&b.func_of);
	return e;
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
	for (size_t i = 0; i < e->nprograms; i++)
		free(e->programs[i]);
	free(e->programs);
	free(e);
}

uint64_t export_period(const struct trace *t)
{
	uint32_t hz = t->session.rate_hz;

	return hz ? (1000000000ull + hz / 2) / hz : 0;
}
