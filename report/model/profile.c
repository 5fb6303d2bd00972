/*
 * profile.c: from samples to sorted, deduplicated, named stacks.
 *
 * Three passes keep the work proportional to what is distinct rather than
 * to the number of samples: the samples the filter keeps are counted per
 * (stack as report/model/stacks.h shows it, thread frame); each distinct pair becomes a list of names,
 * root first, from the frames report/model/stacks.c keeps per node; the lists
 * are sorted by name and equal neighbours merged, which both dedupes
 * stacks that differ only in addresses and makes the order deterministic.
 */
#include "report/model/profile.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "common/diag.h"
#include "common/hmap.h"
#include "common/progress.h"

struct profile_priv {
	struct profile pub;
	const char **names;       /* all frames of all stacks */
	size_t nnames, capnames;
	char **owned;             /* strings formatted here */
	size_t nowned, capowned;
	struct hmap info_of;      /* (XXH3 of a name, length) -> index in infos */
	struct info {
		struct profile_frame_info pub;
		const char *name;
	} *infos;
	size_t ninfos, capinfos;
};

/* One distinct (shown stack, root, thread frame) and its count. */
struct key {
	const struct trace_sample *first; /* a sample with this stack */
	const char *root;
	uint32_t pid, tid;
	const char *thread_name;
	uint64_t count;
};

static const char *keep(struct profile_priv *p, char *s)
{
	p->owned = xgrow(p->owned, &p->capowned, p->nowned + 1, sizeof(*p->owned));
	p->owned[p->nowned++] = s;
	return s;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct profile_stack *x = a, *y = b;
	size_t i, n = x->nframes < y->nframes ? x->nframes : y->nframes;
	int c;

	for (i = 0; i < n; i++) {
		if (x->frames[i] == y->frames[i])
			continue;
		c = strcmp(x->frames[i], y->frames[i]);
		if (c)
			return c;
	}
	return x->nframes < y->nframes ? -1 : x->nframes > y->nframes;
}

/* The info of frame f of node, first seen in sample smp's stack: the
 * region of node's address is the same for every sample that holds it
 * (the trace's split), so any such sample tells. */
static void note_info(struct profile_priv *p, struct stacks *st, const struct symbolize_frame *f,
		      uint32_t node, const struct trace_sample *smp)
{
	const struct trace *t = stacks_trace(st);
	size_t len = strlen(f->name);
	int added, region = TRACE_REGION_IMAGE;

	hmap_put(&p->info_of, XXH3_64bits(f->name, len), len, p->ninfos, &added);
	if (!added)
		return;
	if (node != STACKS_NODE_KERNEL && node < t->nnodes)
		region = trace_region_at(t, trace_sample_process(t, smp), t->nodes[node].addr, smp->time,
					 NULL, NULL);
	p->infos = xgrow(p->infos, &p->capinfos, p->ninfos + 1, sizeof(*p->infos));
	p->infos[p->ninfos++] = (struct info){
		.pub = { .image = f->image_label, .lang = f->lang, .resolved = f->resolved,
			 .inlined = f->inlined, .region = region },
		.name = f->name };
}

const struct profile_frame_info *profile_frame_info(const struct profile *pub, const char *name)
{
	const struct profile_priv *p = (const struct profile_priv *)pub;
	size_t len = strlen(name);
	uint64_t *slot = hmap_get(&p->info_of, XXH3_64bits(name, len), len);

	if (!slot || strcmp(p->infos[*slot].name, name))
		return NULL;
	return &p->infos[*slot].pub;
}

/* Appends the names of node's frames in one role, outermost first; smp
 * is a sample whose stack holds node. */
static void add_node(struct profile_priv *p, struct stacks *st, uint32_t node, int leaf,
		     const struct trace_sample *smp)
{
	const struct symbolize_frame *fr;
	size_t nf = stacks_frames(st, node, leaf, &fr);

	p->names = xgrow(p->names, &p->capnames, p->nnames + nf, sizeof(*p->names));
	for (size_t f = nf; f-- > 0;) {
		p->names[p->nnames++] = fr[f].name;
		note_info(p, st, &fr[f], node, smp);
	}
}

struct profile *profile_build(struct stacks *st, const struct profile_opts *o)
{
	const struct trace *t = stacks_trace(st);
	struct profile_priv *p = xcalloc(1, sizeof(*p));
	struct profile *pub = &p->pub;
	struct key *keys = NULL;
	size_t nkeys = 0, capkeys = 0, i, j;
	size_t *offsets;
	struct hmap seen, thread_of, root_of;
	size_t nthreads = 0, nroots = 0, caproots = 0;
	const char **roots = NULL;

	hmap_init(&p->info_of);
	hmap_init(&seen);
	hmap_init(&thread_of);
	hmap_init(&root_of);
	progress_phase(o->progress, "folding", "samples", t->nsamples);
	for (i = 0; i < t->nsamples; i++) {
		const struct trace_sample *s = &t->samples[i];
		const char *tn = NULL;
		uint64_t *slot, thread = 0, root;
		uint32_t proc = trace_sample_process(t, s);
		size_t e = proc < t->nprocesses ? stacks_execs_by(&t->processes[proc], s->time) : 0;
		int added;

		progress_update(o->progress, i);
		if (!stacks_keep(st, &o->filter, s))
			continue;
		/* The root frame, the name of the program the process ran. */
		slot = hmap_put(&root_of, proc, e, nroots, &added);
		if (added) {
			roots = xgrow(roots, &caproots, nroots + 1, sizeof(*roots));
			roots[nroots++] = keep(p, stacks_process_name(t, proc, s->time));
		}
		root = *slot;
		if (o->thread_frames) {
			/* The thread frame, (tid, name when sampled), numbered. */
			tn = trace_thread_name_at(trace_sample_thread(t, s), s->time);
			thread = *hmap_put(&thread_of, s->tid, (uint64_t)(uintptr_t)tn, nthreads, &added);
			nthreads += added;
		}
		slot = hmap_put(&seen, stacks_sample_key(s), thread | root << 32, nkeys, &added);
		if (added) {
			keys = xgrow(keys, &capkeys, nkeys + 1, sizeof(*keys));
			keys[nkeys++] = (struct key){ s, roots[root],
						      proc < t->nprocesses ? t->processes[proc].pid : t->session.pid,
						      s->tid, tn, 0 };
		}
		keys[*slot].count++;
		pub->samples++;
		if (o->sample)
			o->sample(o->ctx, s, *slot);
	}

	offsets = xmalloc((nkeys + 1) * sizeof(*offsets));
	pub->stacks = xcalloc(nkeys ? nkeys : 1, sizeof(*pub->stacks));
	/* The frames of each stack, resolved here the first time a node is
	 * seen (or above, by --focus and --exclude). */
	progress_phase(o->progress, "symbolizing", "stacks", nkeys);
	for (i = 0; i < nkeys; i++) {
		struct key *k = &keys[i];
		const uint32_t *nodes;
		size_t depth = stacks_sample_nodes(st, k->first, &nodes);

		progress_update(o->progress, i);
		offsets[i] = p->nnames;
		p->names = xgrow(p->names, &p->capnames, p->nnames + 3, sizeof(*p->names));
		p->names[p->nnames++] = k->root;
		if (o->process_frames)
			p->names[p->nnames++] = keep(p, xasprintf("%s [%u]", k->root, k->pid));
		if (o->thread_frames)
			p->names[p->nnames++] = keep(p, xasprintf("%s [%u]",
					k->thread_name && k->thread_name[0] ? k->thread_name : "?", k->tid));
		/* Root first: every caller as a return address, then the leaf. */
		for (size_t d = depth; d-- > 0;)
			add_node(p, st, nodes[d], stacks_leaf(st, nodes, d), k->first);
		pub->stacks[i].nframes = p->nnames - offsets[i];
		pub->stacks[i].count = k->count;
		pub->stacks[i].key = i;
	}
	/* names may have moved while growing: point the stacks in now. */
	for (i = 0; i < nkeys; i++)
		pub->stacks[i].frames = p->names + offsets[i];
	qsort(pub->stacks, nkeys, sizeof(*pub->stacks), cmp_stack);
	if (o->sample)
		pub->key_stacks = xcalloc(nkeys ? nkeys : 1, sizeof(*pub->key_stacks));
	for (i = j = 0; i < nkeys; i++) {
		if (j && !cmp_stack(&pub->stacks[j - 1], &pub->stacks[i]))
			pub->stacks[j - 1].count += pub->stacks[i].count;
		else
			pub->stacks[j++] = pub->stacks[i];
		if (pub->key_stacks)
			pub->key_stacks[pub->stacks[i].key] = j - 1;
	}
	pub->nstacks = j;
	hmap_release(&seen);
	hmap_release(&thread_of);
	hmap_release(&root_of);
	free(roots);
	free(keys);
	free(offsets);
	return pub;
}

void profile_free(struct profile *pub)
{
	struct profile_priv *p = (struct profile_priv *)pub;
	size_t i;

	if (!pub)
		return;
	for (i = 0; i < p->nowned; i++)
		free(p->owned[i]);
	free(p->owned);
	free(p->names);
	free(pub->stacks);
	free(pub->key_stacks);
	hmap_release(&p->info_of);
	free(p->infos);
	free(p);
}

size_t profile_common_frames(const struct profile_stack *a, const struct profile_stack *b)
{
	size_t n = 0;

	while (n < a->nframes && n < b->nframes && !strcmp(a->frames[n], b->frames[n]))
		n++;
	return n;
}
