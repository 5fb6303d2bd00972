/*
 * thread_table.c: one pass over the samples, counting per tid.
 *
 * Threads are found through a hash of tid to row, so a trace with
 * thousands of short-lived threads stays linear. The sort at the end gives
 * the table its deterministic order.
 *
 * --focus and --exclude need the frames of each sample's stack. Rather
 * than symbolizing every sample, the verdict is memoised per prefix-tree
 * node: a node's frames as a caller are matched once, and what its whole
 * chain of callers matched is its own result or'ed with its parent's; the
 * leaf, which is looked up differently (at the address, not the address
 * minus one), has its own memo bits. So the work is one lookup per node.
 */
#include "thread_table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/hmap.h"
#include "report/text.h"

/* The memo bits of a node. */
enum {
	CHAIN_DONE = 1,        /* CHAIN_* are set */
	CHAIN_FOCUS = 2,       /* a frame of the node or a caller matches focus */
	CHAIN_EXCLUDE = 4,
	LEAF_DONE = 8,         /* LEAF_* are set */
	LEAF_FOCUS = 16,       /* a frame of the node as a leaf matches focus */
	LEAF_EXCLUDE = 32,
};

struct matcher {
	const struct trace *t;
	const struct thread_table_opts *o;
	uint8_t *memo;         /* per node */
	uint32_t *walk;        /* nodes whose chain is being resolved */
	size_t capwalk;
};

/* Bit 0: a frame of addr matches focus; bit 1: one matches exclude. */
static int match_addr(struct matcher *m, uint64_t addr, uint64_t time, int leaf)
{
	const struct symbolize_frame *fr;
	size_t n, i;
	int err, bits = 0;

	err = symbolize_addr(m->o->sym, addr, time, leaf, &fr, &n);
	if (err < 0)
		return err;
	for (i = 0; i < n; i++) {
		if (m->o->focus && !regexec(m->o->focus, fr[i].name, 0, NULL, 0))
			bits |= 1;
		if (m->o->exclude && !regexec(m->o->exclude, fr[i].name, 0, NULL, 0))
			bits |= 2;
	}
	return bits;
}

/* Resolves the CHAIN_* bits of node n (a valid node, not 0): its frames
 * as a return address and every caller's. A parent that is not older than
 * its child ends the chain, as in profile_build(). */
static int resolve_chain(struct matcher *m, uint32_t n, uint64_t time)
{
	const struct trace *t = m->t;
	size_t depth = 0;
	int bits;

	while (n && n < t->nnodes && !(m->memo[n] & CHAIN_DONE)) {
		m->walk = xgrow(m->walk, &m->capwalk, depth + 1, sizeof(*m->walk));
		m->walk[depth++] = n;
		if (t->nodes[n].parent >= n)
			break;
		n = t->nodes[n].parent;
	}
	while (depth-- > 0) {
		uint32_t k = m->walk[depth], parent = t->nodes[k].parent;

		bits = match_addr(m, t->nodes[k].addr, time, 0);
		if (bits < 0)
			return bits;
		m->memo[k] |= CHAIN_DONE | (bits & 1 ? CHAIN_FOCUS : 0) | (bits & 2 ? CHAIN_EXCLUDE : 0);
		if (parent && parent < k)
			m->memo[k] |= m->memo[parent] & (CHAIN_FOCUS | CHAIN_EXCLUDE);
	}
	return 0;
}

/* 1 if sample s passes focus and exclude, 0 if not, or a negative error. */
static int stack_passes(struct matcher *m, const struct trace_sample *s)
{
	const struct trace *t = m->t;
	uint32_t n = s->stack, parent;
	int focus = 0, exclude = 0, bits, err;

	if (n && n < t->nnodes) {
		if (!(m->memo[n] & LEAF_DONE)) {
			bits = match_addr(m, t->nodes[n].addr, s->time, 1);
			if (bits < 0)
				return bits;
			m->memo[n] |= LEAF_DONE | (bits & 1 ? LEAF_FOCUS : 0) | (bits & 2 ? LEAF_EXCLUDE : 0);
		}
		focus = !!(m->memo[n] & LEAF_FOCUS);
		exclude = !!(m->memo[n] & LEAF_EXCLUDE);
		parent = t->nodes[n].parent;
		if (parent && parent < n) {
			if ((err = resolve_chain(m, parent, s->time)) < 0)
				return err;
			focus |= !!(m->memo[parent] & CHAIN_FOCUS);
			exclude |= !!(m->memo[parent] & CHAIN_EXCLUDE);
		}
	}
	if (m->o->focus && !focus)
		return 0;
	return !exclude;
}

static int thread_passes(const struct trace_thread *th, uint32_t tid,
			 const struct profile_filter *f)
{
	size_t i;

	if (f->ntids) {
		for (i = 0; i < f->ntids; i++)
			if (f->tids[i] == tid)
				break;
		if (i == f->ntids)
			return 0;
	}
	if (!f->thread_re)
		return 1;
	if (!th || !th->nnames)
		return !regexec(f->thread_re, "", 0, NULL, 0);
	for (i = 0; i < th->nnames; i++)
		if (!regexec(f->thread_re, th->names[i].name ? th->names[i].name : "", 0, NULL, 0))
			return 1;
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct thread_table_row *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static struct thread_table_row *row_for(struct thread_table *tt, size_t *cap, struct hmap *m,
					const struct trace *t, uint32_t tid)
{
	const struct trace_thread *th;
	struct thread_table_row *r;
	uint64_t *slot;
	int added;

	slot = hmap_put(m, tid, 0, tt->nrows, &added);
	if (!added)
		return &tt->rows[*slot];
	tt->rows = xgrow(tt->rows, cap, tt->nrows + 1, sizeof(*tt->rows));
	r = &tt->rows[tt->nrows++];
	memset(r, 0, sizeof(*r));
	r->tid = tid;
	r->name = "";
	th = trace_thread_find(t, tid);
	if (th) {
		r->known = 1;
		r->start = th->time_start;
		r->end = th->time_end;
		if (th->nnames && th->names[th->nnames - 1].name)
			r->name = th->names[th->nnames - 1].name;
	}
	return r;
}

/* The timeline's span: the recording, cut to the filter's window. */
static void set_span(const struct trace *t, const struct profile_filter *f, struct thread_table *tt)
{
	uint64_t start = t->session.start_monotonic_ns, lo = start + f->from, hi = 0;
	size_t i;

	if (t->has_end)
		hi = t->end.time;
	for (i = 0; i < t->nsamples; i++)
		if (t->samples[i].time >= hi)
			hi = t->samples[i].time + 1;
	if (f->has_to && start + f->to < hi)
		hi = start + f->to;
	if (hi <= lo)
		hi = lo + 1;
	tt->span_from = lo;
	tt->span_to = hi;
	/* A slot narrower than the sampling period would leave gaps in a
	 * thread sampled at every tick: give each at least two periods. */
	if (t->session.rate_hz) {
		uint64_t periods = (uint64_t)((unsigned __int128)(hi - lo) * t->session.rate_hz /
					      1000000000u);

		if (periods / 2 < tt->nbins)
			tt->nbins = periods / 2 ? (unsigned)(periods / 2) : 1;
	}
}

static void add_to_bin(struct thread_table *tt, struct thread_table_row *r,
		       const struct trace_sample *s)
{
	struct thread_table_bin *b;
	uint64_t i = 0;
	uint32_t *c;

	if (!r->bins)
		r->bins = xcalloc(tt->nbins, sizeof(*r->bins));
	if (s->time > tt->span_from)
		i = (uint64_t)((unsigned __int128)(s->time - tt->span_from) * tt->nbins /
			       (tt->span_to - tt->span_from));
	if (i >= tt->nbins)
		i = tt->nbins - 1;
	b = &r->bins[i];
	if (s->state == TRACE_STATE_RUNNING)
		c = &b->running;
	else if (profile_state_match(PROFILE_STATE_IDLE, s->state))
		c = &b->waiting;
	else
		c = &b->unknown;
	if (*c < UINT32_MAX)
		(*c)++;
}

int thread_table_build(const struct trace *t, const struct thread_table_opts *o,
		       struct thread_table *out)
{
	const struct profile_filter *f = &o->filter;
	struct matcher m = { .t = t, .o = o };
	struct hmap map;
	size_t cap = 0, i;
	int err = 0, pass;

	memset(out, 0, sizeof(*out));
	hmap_init(&map);
	if (o->focus || o->exclude) {
		if (!o->sym)
			BUG("thread_table_build: focus or exclude without a symbolizer");
		m.memo = xcalloc(t->nnodes ? t->nnodes : 1, 1);
	}
	out->nbins = o->nbins;
	if (o->nbins)
		set_span(t, f, out);
	for (i = 0; i < t->nthreads; i++)
		if (thread_passes(&t->threads[i], t->threads[i].tid, f))
			row_for(out, &cap, &map, t, t->threads[i].tid);
	for (i = 0; i < t->nsamples; i++) {
		const struct trace_sample *s = &t->samples[i];
		struct thread_table_row *r;

		if (!profile_filter_match(t, f, s))
			continue;
		if (m.memo) {
			if ((pass = stack_passes(&m, s)) < 0) {
				err = pass;
				goto out;
			}
			if (!pass)
				continue;
		}
		r = row_for(out, &cap, &map, t, s->tid);
		if (!r->samples || s->time < r->first)
			r->first = s->time;
		if (!r->samples || s->time > r->last)
			r->last = s->time;
		r->samples++;
		if (s->state == TRACE_STATE_RUNNING)
			r->running++;
		else if (profile_state_match(PROFILE_STATE_IDLE, s->state))
			r->waiting++;
		if (out->nbins)
			add_to_bin(out, r, s);
		out->samples++;
	}
	if (out->nrows)
		qsort(out->rows, out->nrows, sizeof(*out->rows), cmp_row);
out:
	hmap_release(&map);
	free(m.memo);
	free(m.walk);
	return err;
}

void thread_table_release(struct thread_table *tt)
{
	for (size_t i = 0; i < tt->nrows; i++)
		free(tt->rows[i].bins);
	free(tt->rows);
	memset(tt, 0, sizeof(*tt));
}

void thread_table_add_time(struct buf *b, const struct trace *t, int valid, uint64_t ns)
{
	if (!valid) {
		buf_addstr(b, "-");
		return;
	}
	if (ns >= t->session.start_monotonic_ns)
		buf_addf(b, "%.3f", (double)(ns - t->session.start_monotonic_ns) / 1e9);
	else
		buf_addf(b, "-%.3f", (double)(t->session.start_monotonic_ns - ns) / 1e9);
}

void thread_table_add_share(struct buf *b, uint64_t part, uint64_t whole)
{
	if (!whole)
		buf_addstr(b, "-");
	else
		buf_addf(b, "%.1f%%", 100.0 * (double)part / (double)whole);
}

#define NAME_MAX_WIDTH 32

int thread_table_write(FILE *f, const struct trace *t, const struct thread_table *tt)
{
	struct buf name, cell[6];
	size_t i, w = 4;
	int k;

	buf_init(&name);
	buf_grow(&name, 0); /* an empty name is "", not NULL */
	for (k = 0; k < 6; k++)
		buf_init(&cell[k]);
	for (i = 0; i < tt->nrows; i++) {
		buf_reset(&name);
		text_escape(&name, tt->rows[i].name);
		if (name.len > w)
			w = name.len > NAME_MAX_WIDTH ? NAME_MAX_WIDTH : name.len;
	}
	fprintf(f, "%8s  %-*s  %8s  %7s  %7s  %9s  %9s  %9s  %9s\n", "TID", (int)w, "NAME",
		"SAMPLES", "RUNNING", "WAITING", "FIRST", "LAST", "START", "END");
	for (i = 0; i < tt->nrows; i++) {
		const struct thread_table_row *r = &tt->rows[i];

		buf_reset(&name);
		text_escape(&name, r->name);
		if (name.len > w) {
			/* Cut long names, marking the cut. */
			name.len = w - 1;
			buf_addch(&name, '~');
		}
		for (k = 0; k < 6; k++)
			buf_reset(&cell[k]);
		thread_table_add_share(&cell[0], r->running, r->samples);
		thread_table_add_share(&cell[1], r->waiting, r->samples);
		thread_table_add_time(&cell[2], t, r->samples > 0, r->first);
		thread_table_add_time(&cell[3], t, r->samples > 0, r->last);
		thread_table_add_time(&cell[4], t, r->known, r->start);
		thread_table_add_time(&cell[5], t, r->known && r->end, r->end);
		fprintf(f, "%8" PRIu32 "  %-*s  %8" PRIu64 "  %7s  %7s  %9s  %9s  %9s  %9s\n", r->tid,
			(int)w, (char *)name.data, r->samples, (char *)cell[0].data,
			(char *)cell[1].data, (char *)cell[2].data, (char *)cell[3].data,
			(char *)cell[4].data, (char *)cell[5].data);
	}
	fprintf(f, "%zu thread%s, %" PRIu64 " sample%s\n", tt->nrows, tt->nrows == 1 ? "" : "s",
		tt->samples, tt->samples == 1 ? "" : "s");
	buf_release(&name);
	for (k = 0; k < 6; k++)
		buf_release(&cell[k]);
	return ferror(f) ? -EIO : 0;
}

#define STEM_NAME_MAX 48

char *thread_table_file_stem(uint32_t tid, const char *name)
{
	char safe[STEM_NAME_MAX + 1];
	size_t i;

	for (i = 0; name && name[i] && i < STEM_NAME_MAX; i++) {
		unsigned char c = (unsigned char)name[i];

		safe[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
				  c == '.' || c == '_' || c == '-' ? (char)c : '_';
	}
	safe[i] = 0;
	return i ? xasprintf("%u-%s", tid, safe) : xasprintf("%u", tid);
}
