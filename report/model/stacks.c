/*
 * stacks.c: per-node memos over the trace's prefix tree.
 *
 * Three, each filled on first use. The time of each node (the first
 * sample whose stack holds it) takes one pass over the samples, each walk
 * stopping at the first node already timed, since an earlier sample
 * reached it and so every caller above it. The frames of each node, as a
 * leaf and as a caller, are the symbolizer's (whose frames never move), so
 * a node costs one pointer per role. The verdict of focus and exclude is
 * a few bits per node: what its own frames matched as a leaf, and what
 * they and every caller's matched as a chain, which is its own match or'ed
 * with its parent's; a stack's verdict is its leaf's bits with its
 * parent's chain. The bits belong to one focus and exclude pair and are
 * cleared when another is asked for. Each name is matched once, however
 * many nodes show it. Whether a node's function starts a stack, as a
 * leaf and as a caller, is a few bits more, kept for the layer's life.
 */
#include "report/model/stacks.h"

#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/hmap.h"

/* The memo bits of a node. */
enum {
	CHAIN_DONE = 1,        /* CHAIN_* are set */
	CHAIN_FOCUS = 2,       /* a frame of the node or a caller matches focus */
	CHAIN_EXCLUDE = 4,
	LEAF_DONE = 8,         /* LEAF_* are set */
	LEAF_FOCUS = 16,       /* a frame of the node as a leaf matches focus */
	LEAF_EXCLUDE = 32,
};

/* The bits of a name, and of the frames of a node in one role. */
#define MATCH_FOCUS 1u
#define MATCH_EXCLUDE 2u

/* The bits of a node's own function: whether it starts a stack. */
enum {
	TOP_LEAF_DONE = 1,
	TOP_LEAF = 2,
	TOP_CALLER_DONE = 4,
	TOP_CALLER = 8,
};

#define NOT_TIMED UINT64_MAX

struct node_frames {
	const struct symbolize_frame *f; /* NULL: not resolved yet */
	size_t n;
};

struct stacks {
	const struct trace *t;
	struct symbolize *sym;
	uint64_t *time;              /* per node, or NULL until first needed */
	uint32_t *process;           /* per node, with time: a sample's of it */
	struct node_frames *leaf, *caller; /* per node, or NULL until then */
	uint32_t *nodes;             /* stacks_nodes()'s answer */
	size_t capnodes;
	/* The verdicts of one focus and exclude pair. */
	const regex_t *focus, *exclude;
	uint8_t *bits;               /* per node, or NULL */
	struct hmap name_bits;       /* (name pointer, 0) -> MATCH_* */
	uint32_t *walk;              /* nodes whose chain is being resolved */
	size_t capwalk;
	uint8_t *top;                /* per node TOP_* bits, or NULL */
};

struct stacks *stacks_new(const struct trace *t, struct symbolize *sym)
{
	struct stacks *s = xcalloc(1, sizeof(*s));

	s->t = t;
	s->sym = sym;
	hmap_init(&s->name_bits);
	return s;
}

void stacks_free(struct stacks *s)
{
	if (!s)
		return;
	free(s->time);
	free(s->process);
	free(s->leaf);
	free(s->caller);
	free(s->nodes);
	free(s->bits);
	hmap_release(&s->name_bits);
	free(s->walk);
	free(s->top);
	free(s);
}

const struct trace *stacks_trace(const struct stacks *s)
{
	return s->t;
}

static void time_nodes(struct stacks *s)
{
	const struct trace *t = s->t;

	s->time = xmalloc((t->nnodes ? t->nnodes : 1) * sizeof(*s->time));
	s->process = xcalloc(t->nnodes ? t->nnodes : 1, sizeof(*s->process));
	for (size_t i = 0; i < t->nnodes; i++)
		s->time[i] = NOT_TIMED;
	for (size_t i = 0; i < t->nsamples; i++) {
		struct trace_chain c;
		uint32_t n;

		for (trace_chain_init(&c, t, t->samples[i].stack); trace_chain_next(&c, &n);) {
			if (s->time[n] != NOT_TIMED)
				break;
			s->time[n] = t->samples[i].time;
			s->process[n] = trace_sample_process(t, &t->samples[i]);
		}
	}
}

/* What the kernel ran for the user stack under it: a name, like a
 * function's, that no image of the trace holds; grouped and coloured by
 * image, it is an image of its own. */
static const struct symbolize_frame kernel_frame = {
	.name = "[kernel]",
	.resolved = 1,
	.lang = SYMBOLIZE_LANG_UNKNOWN,
	.image = -1,
	.image_label = "[kernel]",
	.code = -1,
};

size_t stacks_frames(struct stacks *s, uint32_t node, int leaf,
		     const struct symbolize_frame **frames)
{
	const struct trace *t = s->t;
	struct node_frames **memo = leaf ? &s->leaf : &s->caller, *m;

	if (node == STACKS_NODE_KERNEL) {
		*frames = &kernel_frame;
		return 1;
	}
	if (!s->sym || node == 0 || node >= t->nnodes)
		BUG("stacks_frames: node %u of %zu, %s symbolizer", node, t->nnodes,
		    s->sym ? "a" : "no");
	if (!s->time)
		time_nodes(s);
	if (!*memo)
		*memo = xcalloc(t->nnodes, sizeof(**memo));
	m = &(*memo)[node];
	if (!m->f)
		m->n = symbolize_addr(s->sym, s->process[node], t->nodes[node].addr,
				      s->time[node] != NOT_TIMED ? s->time[node] : 0, leaf, &m->f);
	*frames = m->f;
	return m->n;
}

int stacks_top_name(const char *name)
{
	static const char *const tops[] = {
		"runtime.goexit", "runtime.mstart", "runtime.mcall", "runtime.rt0_go",
	};

	for (size_t i = 0; i < sizeof(tops) / sizeof(*tops); i++) {
		size_t n = strlen(tops[i]);

		if (!strncmp(name, tops[i], n) && (name[n] == 0 || name[n] == ' '))
			return 1;
	}
	return 0;
}

/* Whether node's function, in one role, starts a stack: its outermost
 * frame (the one that holds the code) is named so. */
static int is_top(struct stacks *s, uint32_t node, int leaf)
{
	uint8_t done = leaf ? TOP_LEAF_DONE : TOP_CALLER_DONE, yes = leaf ? TOP_LEAF : TOP_CALLER;

	if (!s->sym || node == 0 || node >= s->t->nnodes)
		return 0;
	if (!s->top)
		s->top = xcalloc(s->t->nnodes, 1);
	if (!(s->top[node] & done)) {
		const struct symbolize_frame *fr;
		size_t n = stacks_frames(s, node, leaf, &fr);

		s->top[node] |= done;
		if (fr[n - 1].resolved && stacks_top_name(fr[n - 1].name))
			s->top[node] |= yes;
	}
	return !!(s->top[node] & yes);
}

/* The nodes of stack into s->nodes from index first on, up to the one
 * whose function starts the stack; returns the index after the last. */
static size_t walk_nodes(struct stacks *s, uint32_t stack, size_t first)
{
	struct trace_chain c;
	uint32_t n;
	size_t depth = first;

	for (trace_chain_init(&c, s->t, stack);
	     depth - first < STACKS_MAX_DEPTH && trace_chain_next(&c, &n);) {
		s->nodes = xgrow(s->nodes, &s->capnodes, depth + 1, sizeof(*s->nodes));
		s->nodes[depth++] = n;
		if (is_top(s, n, depth - 1 == first))
			break;
	}
	return depth;
}

size_t stacks_nodes(struct stacks *s, uint32_t stack, const uint32_t **nodes)
{
	size_t n = walk_nodes(s, stack, 0);

	*nodes = s->nodes;
	return n;
}

size_t stacks_sample_nodes(struct stacks *s, const struct trace_sample *smp, const uint32_t **nodes)
{
	size_t n = 0;

	if (smp->flags & TRACE_SAMPLE_KERNEL) {
		s->nodes = xgrow(s->nodes, &s->capnodes, 1, sizeof(*s->nodes));
		s->nodes[n++] = STACKS_NODE_KERNEL;
	}
	n = walk_nodes(s, smp->stack, n);
	*nodes = s->nodes;
	return n;
}

int stacks_leaf(struct stacks *s, const uint32_t *nodes, size_t i)
{
	uint32_t in;

	if (nodes[i] == STACKS_NODE_KERNEL)
		return 0;
	if (i == 0 || (in = nodes[i - 1]) == STACKS_NODE_KERNEL)
		return 1;
	if (!s->sym || in == 0 || in >= s->t->nnodes)
		return 0;
	if (!s->time)
		time_nodes(s);
	return symbolize_is_signal(s->sym, s->process[in], s->t->nodes[in].addr,
				   s->time[in] != NOT_TIMED ? s->time[in] : 0);
}

uint64_t stacks_sample_key(const struct trace_sample *smp)
{
	return (uint64_t)smp->stack | (smp->flags & TRACE_SAMPLE_KERNEL ? 1ull << 32 : 0);
}

int stacks_state_match(int filter_state, int st)
{
	switch (filter_state) {
	case STACKS_STATE_RUNNING:
		return st == TRACE_STATE_RUNNING;
	case STACKS_STATE_IDLE:
		return st > TRACE_STATE_RUNNING && st <= TRACE_STATE_OTHER;
	case STACKS_STATE_PREEMPTED:
		return st == TRACE_STATE_PREEMPTED;
	default:
		return 1;
	}
}

/* What the frames of node match in one role: MATCH_* bits. */
static unsigned match_node(struct stacks *s, uint32_t node, int leaf)
{
	const struct symbolize_frame *fr;
	size_t n = stacks_frames(s, node, leaf, &fr);
	unsigned bits = 0;

	for (size_t i = 0; i < n; i++) {
		int added;
		uint64_t *slot = hmap_put(&s->name_bits, (uint64_t)(uintptr_t)fr[i].name, 0, 0, &added);

		if (added) {
			if (s->focus && !regexec(s->focus, fr[i].name, 0, NULL, 0))
				*slot |= MATCH_FOCUS;
			if (s->exclude && !regexec(s->exclude, fr[i].name, 0, NULL, 0))
				*slot |= MATCH_EXCLUDE;
		}
		bits |= (unsigned)*slot;
	}
	return bits;
}

/* Sets the CHAIN_* bits of node n and of every caller above it that lacks
 * them, callers first. */
static void resolve_chain(struct stacks *s, uint32_t n)
{
	const struct trace *t = s->t;
	struct trace_chain c;
	size_t depth = 0;

	for (trace_chain_init(&c, t, n); trace_chain_next(&c, &n) && !(s->bits[n] & CHAIN_DONE);) {
		s->walk = xgrow(s->walk, &s->capwalk, depth + 1, sizeof(*s->walk));
		s->walk[depth++] = n;
	}
	while (depth-- > 0) {
		uint32_t k = s->walk[depth], parent = t->nodes[k].parent;
		unsigned m = match_node(s, k, 0);

		s->bits[k] |= CHAIN_DONE | (m & MATCH_FOCUS ? CHAIN_FOCUS : 0) |
			      (m & MATCH_EXCLUDE ? CHAIN_EXCLUDE : 0);
		if (parent && parent < k && !is_top(s, k, 0))
			s->bits[k] |= s->bits[parent] & (CHAIN_FOCUS | CHAIN_EXCLUDE);
	}
}

/* Whether sample smp's stack passes focus and exclude. */
static int selected(struct stacks *s, const struct stacks_filter *f, const struct trace_sample *smp)
{
	const struct trace *t = s->t;
	uint32_t node = smp->stack;
	int focus = 0, exclude = 0;

	if (s->focus != f->focus || s->exclude != f->exclude || !s->bits) {
		free(s->bits);
		s->bits = xcalloc(t->nnodes ? t->nnodes : 1, 1);
		hmap_release(&s->name_bits);
		hmap_init(&s->name_bits);
		s->focus = f->focus;
		s->exclude = f->exclude;
	}
	if (node && node < t->nnodes) {
		uint32_t parent = t->nodes[node].parent;

		if (!(s->bits[node] & LEAF_DONE)) {
			unsigned m = match_node(s, node, 1);

			s->bits[node] |= LEAF_DONE | (m & MATCH_FOCUS ? LEAF_FOCUS : 0) |
					 (m & MATCH_EXCLUDE ? LEAF_EXCLUDE : 0);
		}
		focus = !!(s->bits[node] & LEAF_FOCUS);
		exclude = !!(s->bits[node] & LEAF_EXCLUDE);
		if (parent && parent < node && !is_top(s, node, 1)) {
			resolve_chain(s, parent);
			focus |= !!(s->bits[parent] & CHAIN_FOCUS);
			exclude |= !!(s->bits[parent] & CHAIN_EXCLUDE);
		}
	}
	if (smp->flags & TRACE_SAMPLE_KERNEL) {
		unsigned m = match_node(s, STACKS_NODE_KERNEL, 1);

		focus |= !!(m & MATCH_FOCUS);
		exclude |= !!(m & MATCH_EXCLUDE);
	}
	if (f->focus && !focus)
		return 0;
	return !exclude;
}

/* The last component of a command's argv[0], or NULL if it has none. */
static char *command_name(uint32_t argc, char *const *argv)
{
	const char *b;

	if (!argc || !argv || !argv[0] || !argv[0][0])
		return NULL;
	b = strrchr(argv[0], '/');
	b = b ? b + 1 : argv[0];
	return b[0] ? xstrdup(b) : NULL;
}

char *stacks_root_name(const struct trace *t)
{
	char *name = command_name(t->session.argc, t->session.argv);

	return name ? name : xasprintf("pid %u", t->session.pid);
}

size_t stacks_execs_by(const struct trace_process *p, uint64_t time)
{
	size_t k = 0;

	while (k < p->nexecs && p->execs[k].time <= time)
		k++;
	return k;
}

char *stacks_process_name(const struct trace *t, uint32_t process, uint64_t time)
{
	const struct trace_process *p;
	char *name = NULL;
	size_t k;

	if (process >= t->nprocesses)
		return stacks_root_name(t);
	/* Before its first exec a process runs the program its parent ran
	 * when it forked; the walk up is bounded, as parents may loop in a
	 * hostile trace (the reader cuts loops, this does not rely on it). */
	for (size_t depth = 0; depth <= t->nprocesses; depth++) {
		p = &t->processes[process];
		if ((k = stacks_execs_by(p, time)) || p->parent >= t->nprocesses)
			break;
		time = p->time_start;
		process = p->parent;
	}
	if (p->nexecs) {
		const struct trace_exec *e = &p->execs[k ? k - 1 : 0];
		name = command_name(e->argc, e->argv);
	}
	return name ? name : xasprintf("pid %u", p->pid);
}

/* --pid and --process: the sample's process has one of the pids, and
 * its name when sampled matches. */
static int process_passes(const struct trace *t, const struct stacks_filter *f, const struct trace_sample *smp)
{
	uint32_t proc = trace_sample_process(t, smp);
	uint32_t pid = proc < t->nprocesses ? t->processes[proc].pid : t->session.pid;
	size_t i;
	int match;
	char *name;

	if (f->npids) {
		for (i = 0; i < f->npids && f->pids[i] != pid; i++)
			;
		if (i == f->npids)
			return 0;
	}
	if (!f->process_re)
		return 1;
	name = stacks_process_name(t, proc, smp->time);
	match = !regexec(f->process_re, name, 0, NULL, 0);
	free(name);
	return match;
}

int stacks_keep(struct stacks *s, const struct stacks_filter *f, const struct trace_sample *smp)
{
	const struct trace *t = s->t;
	uint64_t rel = trace_since_start_ns(t, smp->time);
	size_t i;

	if (smp->stack >= t->nnodes && smp->stack != 0)
		return 0; /* the reader drops these; a hand-built trace may not */
	if (!stacks_state_match(f->state, smp->state))
		return 0;
	if (rel < f->from || (f->has_to && rel >= f->to))
		return 0;
	if (f->ntids) {
		for (i = 0; i < f->ntids; i++)
			if (f->tids[i] == smp->tid)
				break;
		if (i == f->ntids)
			return 0;
	}
	if (f->thread_re &&
	    regexec(f->thread_re, trace_thread_name_at(trace_sample_thread(t, smp), smp->time), 0,
		    NULL, 0))
		return 0;
	if ((f->npids || f->process_re) && !process_passes(t, f, smp))
		return 0;
	if (!f->focus && !f->exclude)
		return 1;
	return selected(s, f, smp);
}
