/*
 * profile.c: from samples to sorted, deduplicated, named stacks.
 *
 * Three passes keep the work proportional to what is distinct rather than
 * to the number of samples: filtered samples are counted per (stack node,
 * thread frame); each distinct pair is symbolized into a list of names
 * (the caller frames of each prefix-tree node are resolved once and
 * memoised, since a node is shared by every stack through it; an image is
 * picked by the time of the first sample that reached the node); the lists are
 * sorted by name and equal neighbours merged, which both dedupes stacks
 * that differ only in addresses and makes the order deterministic.
 * --focus and --exclude then select among the merged stacks, so each
 * distinct stack, not each sample, is matched.
 */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "common/diag.h"
#include "common/hmap.h"

/* Stacks deeper than this are cut (the recorder caps depth already; this
 * bounds our scratch buffer and a hostile parent chain). */
#define PROFILE_MAX_DEPTH 65536

struct profile_priv {
	struct profile pub;
	const char **names;       /* all frames of all stacks */
	size_t nnames, capnames;
	char **owned;             /* strings formatted here */
	size_t nowned, capowned;
	const char **mnames;      /* per-node memo storage, while building */
	size_t nmnames, capmnames;
	struct hmap info_of;      /* (XXH3 of a name, length) -> index in infos */
	struct info {
		struct profile_frame_info pub;
		const char *name;
	} *infos;
	size_t ninfos, capinfos;
};

struct memo {
	uint32_t first, n;        /* n == UINT32_MAX: not yet resolved */
};

int profile_state_match(int filter_state, int st)
{
	switch (filter_state) {
	case PROFILE_STATE_RUNNING:
		return st == TRACE_STATE_RUNNING;
	case PROFILE_STATE_IDLE:
		return st > TRACE_STATE_RUNNING && st < TRACE_STATE__COUNT;
	default:
		return 1;
	}
}

static const char *name_at(const struct trace *t, uint32_t tid, uint64_t time)
{
	const struct trace_thread *th = trace_thread_find(t, tid);
	return th ? trace_thread_name_at(th, time) : "";
}

int profile_filter_match(const struct trace *t, const struct profile_filter *f,
			 const struct trace_sample *s)
{
	uint64_t rel = s->time > t->session.start_monotonic_ns
			       ? s->time - t->session.start_monotonic_ns : 0;
	size_t i;

	if (!profile_state_match(f->state, s->state))
		return 0;
	if (rel < f->from || (f->has_to && rel >= f->to))
		return 0;
	if (f->ntids) {
		for (i = 0; i < f->ntids; i++)
			if (f->tids[i] == s->tid)
				break;
		if (i == f->ntids)
			return 0;
	}
	if (f->thread_re && regexec(f->thread_re, name_at(t, s->tid, s->time), 0, NULL, 0))
		return 0;
	return 1;
}

char *profile_root_name(const struct trace *t)
{
	const char *a, *b;

	if (t->session.argc && t->session.argv && t->session.argv[0] && t->session.argv[0][0]) {
		a = t->session.argv[0];
		b = strrchr(a, '/');
		b = b ? b + 1 : a;
		if (b[0])
			return xstrdup(b);
	}
	return xasprintf("pid %u", t->session.pid);
}

/* One distinct (node, thread frame) and its count; the sample time of its
 * first occurrence picks which images were loaded. */
struct key {
	uint32_t node, tid;
	const char *thread_name;
	uint64_t time, count;
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

static void note_info(struct profile_priv *p, const struct symbolize *sym,
		      const struct symbolize_frame *f)
{
	size_t len = strlen(f->name);
	int added;

	hmap_put(&p->info_of, XXH3_64bits(f->name, len), len, p->ninfos, &added);
	if (!added)
		return;
	p->infos = xgrow(p->infos, &p->capinfos, p->ninfos + 1, sizeof(*p->infos));
	p->infos[p->ninfos++] = (struct info){
		.pub = { .image = f->image >= 0 ? symbolize_image_label(sym, (size_t)f->image) : NULL,
			 .lang = f->lang, .resolved = f->resolved, .inlined = f->inlined },
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

/* The frames of node n's address as a return address, outermost first,
 * memoised per node: most nodes are shared by many stacks. */
static int node_frames(struct profile_priv *p, struct symbolize *sym, const struct trace *t,
		       uint32_t n, uint64_t time, struct memo *m)
{
	const struct symbolize_frame *fr;
	size_t nf, f;
	int err;

	if (m[n].n != UINT32_MAX)
		return 0;
	err = symbolize_addr(sym, t->nodes[n].addr, time, 0, &fr, &nf);
	if (err < 0)
		return err;
	p->mnames = xgrow(p->mnames, &p->capmnames, p->nmnames + nf, sizeof(*p->mnames));
	m[n].first = p->nmnames;
	m[n].n = (uint32_t)nf;
	for (f = nf; f-- > 0;) {
		p->mnames[p->nmnames++] = fr[f].name;
		note_info(p, sym, &fr[f]);
	}
	return 0;
}

/* Bits of a name's memo: whether it matches --focus and --exclude. */
#define MATCH_FOCUS 1u
#define MATCH_EXCLUDE 2u

int profile_selected(const struct profile_opts *o, const char *const *names, size_t n,
		     struct hmap *memo)
{
	unsigned any = 0;

	for (size_t f = 0; f < n; f++) {
		uint64_t *slot;
		int added;

		slot = hmap_put(memo, (uint64_t)(uintptr_t)names[f], 0, 0, &added);
		if (added) {
			unsigned bits = 0;

			if (o->focus && !regexec(o->focus, names[f], 0, NULL, 0))
				bits |= MATCH_FOCUS;
			if (o->exclude && !regexec(o->exclude, names[f], 0, NULL, 0))
				bits |= MATCH_EXCLUDE;
			*slot = bits;
		}
		any |= (unsigned)*slot;
	}
	if (o->focus && !(any & MATCH_FOCUS))
		return 0;
	return !(any & MATCH_EXCLUDE);
}

/* Keeps the stacks that profile_selected() keeps. The root and thread
 * frames are not matched (--thread selects threads). */
static void select_stacks(struct profile *pub, const struct profile_opts *o)
{
	struct hmap memo;
	size_t i, j, skip = o->thread_frames ? 2 : 1;

	hmap_init(&memo);
	pub->samples = 0;
	for (i = j = 0; i < pub->nstacks; i++) {
		struct profile_stack *st = &pub->stacks[i];

		if (!profile_selected(o, st->frames + skip, st->nframes - skip, &memo))
			continue;
		pub->samples += st->count;
		pub->stacks[j++] = *st;
	}
	pub->nstacks = j;
	hmap_release(&memo);
}

int profile_build(const struct trace *t, struct symbolize *sym, const struct profile_opts *o,
		  struct profile **out)
{
	struct profile_priv *p = xcalloc(1, sizeof(*p));
	struct profile *pub = &p->pub;

	hmap_init(&p->info_of);
	struct key *keys = NULL;
	size_t nkeys = 0, capkeys = 0, i, j, depth;
	uint32_t *chain = NULL;
	size_t *offsets = NULL;
	struct memo *memo = NULL;
	struct hmap seen;
	const char *root;
	int err = 0;

	hmap_init(&seen);
	for (i = 0; i < t->nsamples; i++) {
		const struct trace_sample *s = &t->samples[i];
		const char *tn = NULL;
		uint64_t *slot;
		int added;

		if (!profile_filter_match(t, &o->filter, s))
			continue;
		if (s->stack >= t->nnodes && s->stack != 0)
			continue; /* the reader drops these; be safe anyway */
		if (o->thread_frames)
			tn = name_at(t, s->tid, s->time);
		slot = hmap_put(&seen, (uint64_t)s->stack | (o->thread_frames ? (uint64_t)s->tid << 32 : 0),
				(uint64_t)(uintptr_t)tn, nkeys, &added);
		if (added) {
			keys = xgrow(keys, &capkeys, nkeys + 1, sizeof(*keys));
			keys[nkeys] = (struct key){ s->stack, s->tid, tn, s->time, 0 };
			nkeys++;
		}
		keys[*slot].count++;
		pub->samples++;
	}

	root = keep(p, profile_root_name(t));
	chain = xmalloc(PROFILE_MAX_DEPTH * sizeof(*chain));
	offsets = xmalloc((nkeys + 1) * sizeof(*offsets));
	memo = xmalloc((t->nnodes ? t->nnodes : 1) * sizeof(*memo));
	for (i = 0; i < t->nnodes; i++)
		memo[i].n = UINT32_MAX;
	pub->stacks = xcalloc(nkeys ? nkeys : 1, sizeof(*pub->stacks));
	for (i = 0; i < nkeys; i++) {
		struct key *k = &keys[i];
		const struct symbolize_frame *fr;
		uint32_t n;
		size_t d, nf, f;

		offsets[i] = p->nnames;
		p->names = xgrow(p->names, &p->capnames, p->nnames + 2, sizeof(*p->names));
		p->names[p->nnames++] = root;
		if (o->thread_frames)
			p->names[p->nnames++] = keep(p, xasprintf("%s [%u]",
					k->thread_name && k->thread_name[0] ? k->thread_name : "?", k->tid));
		/* Leaf first, up to the root. The tree is built append-only,
		 * so a parent is always older (smaller) than its child; a link
		 * that is not, or a chain deeper than the cap, ends the walk
		 * (hostile input cannot make it loop). */
		for (depth = 0, n = k->node; n && n < t->nnodes && depth < PROFILE_MAX_DEPTH;) {
			chain[depth++] = n;
			if (t->nodes[n].parent >= n)
				break;
			n = t->nodes[n].parent;
		}
		/* Root first: every caller as a return address, then the leaf.
		 * Each address's frames come innermost first; emit outermost
		 * first. */
		for (d = depth; d-- > 1;) {
			err = node_frames(p, sym, t, chain[d], k->time, memo);
			if (err < 0)
				goto out;
			p->names = xgrow(p->names, &p->capnames, p->nnames + memo[chain[d]].n,
					 sizeof(*p->names));
			memcpy(p->names + p->nnames, p->mnames + memo[chain[d]].first,
			       memo[chain[d]].n * sizeof(*p->names));
			p->nnames += memo[chain[d]].n;
		}
		if (depth) {
			err = symbolize_addr(sym, t->nodes[chain[0]].addr, k->time, 1, &fr, &nf);
			if (err < 0)
				goto out;
			p->names = xgrow(p->names, &p->capnames, p->nnames + nf, sizeof(*p->names));
			for (f = nf; f-- > 0;) {
				p->names[p->nnames++] = fr[f].name;
				note_info(p, sym, &fr[f]);
			}
		}
		pub->stacks[i].nframes = p->nnames - offsets[i];
		pub->stacks[i].count = k->count;
	}
	/* names may have moved while growing: point the stacks in now. */
	for (i = 0; i < nkeys; i++)
		pub->stacks[i].frames = p->names + offsets[i];
	qsort(pub->stacks, nkeys, sizeof(*pub->stacks), cmp_stack);
	for (i = j = 0; i < nkeys; i++) {
		if (j && !cmp_stack(&pub->stacks[j - 1], &pub->stacks[i]))
			pub->stacks[j - 1].count += pub->stacks[i].count;
		else
			pub->stacks[j++] = pub->stacks[i];
	}
	pub->nstacks = j;
	if (o->focus || o->exclude)
		select_stacks(pub, o);
out:
	hmap_release(&seen);
	free(keys);
	free(chain);
	free(offsets);
	free(memo);
	free(p->mnames);
	p->mnames = NULL;
	if (err < 0) {
		profile_free(pub);
		return err;
	}
	*out = pub;
	return 0;
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
	hmap_release(&p->info_of);
	free(p->infos);
	free(p);
}
