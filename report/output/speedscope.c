/*
 * speedscope.c: speedscope's JSON from the export model.
 *
 * The samples are grouped by thread with one sort of their indices (by
 * thread, then recording order), so a trace of many threads is written in
 * one pass over its samples. A thread is a tid of a process running one
 * program: a process that execs another has a profile for each, and with
 * several processes a profile is named "PROGRAM [PID] / THREAD [TID]". The document is built in a buffer that is
 * written out whenever it grows past a bound, so memory stays flat for a
 * long recording.
 */
#include "report/output/speedscope.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/hmap.h"
#include "common/json.h"
#include "report/model/profile.h"

#define FLUSH_AT (64u << 10)

static void frames(struct buf_out *w, const struct export *e, int lines)
{
	buf_addstr(&w->b, "\"shared\":{\"frames\":[");
	for (size_t i = 0; i < e->nfuncs; i++) {
		const struct export_function *fn = &e->funcs[i];

		buf_addstr(&w->b, i ? ",\n{\"name\":" : "\n{\"name\":");
		json_string(&w->b, fn->name);
		if (fn->file) {
			buf_addstr(&w->b, ",\"file\":");
			json_string(&w->b, fn->file);
		}
		if (lines && fn->line)
			buf_addf(&w->b, ",\"line\":%" PRIu32, fn->line);
		buf_addch(&w->b, '}');
		buf_out_maybe(w, FLUSH_AT);
	}
	buf_addstr(&w->b, "]},\n");
}

/* One stack as frame indices, root first. */
static void stack(struct buf *b, const struct export *e, const struct export_stack *st)
{
	int first = 1;

	buf_addch(b, '[');
	for (size_t k = st->nlocs; k-- > 0;) {
		const struct export_location *l = &e->locs[e->stack_locs[st->first + k]];

		for (size_t f = l->first + l->nframes; f-- > l->first;) {
			buf_addf(b, first ? "%" PRIu32 : ",%" PRIu32, e->frame_funcs[f]);
			first = 0;
		}
	}
	buf_addch(b, ']');
}

/* Whether stacks a and b show the same frames (different addresses in the
 * same functions do). */
static int same_frames(const struct export *e, uint32_t a, uint32_t b)
{
	const struct export_stack *x = &e->stacks[a], *y = &e->stacks[b];
	size_t i = 0, j = 0, fi = 0, fj = 0; /* location, and frame in it */

	if (a == b)
		return 1;
	for (;;) {
		const struct export_location *lx, *ly;

		while (i < x->nlocs && fi == e->locs[e->stack_locs[x->first + i]].nframes)
			i++, fi = 0;
		while (j < y->nlocs && fj == e->locs[e->stack_locs[y->first + j]].nframes)
			j++, fj = 0;
		if (i == x->nlocs || j == y->nlocs)
			return i == x->nlocs && j == y->nlocs;
		lx = &e->locs[e->stack_locs[x->first + i]];
		ly = &e->locs[e->stack_locs[y->first + j]];
		if (e->frame_funcs[lx->first + fi++] != e->frame_funcs[ly->first + fj++])
			return 0;
	}
}

/* A sample by its thread's rank (of first appearance), then its index. */
struct entry {
	size_t rank, idx;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The end of the run that starts at order[i], before to: of the same
 * thread, or with same_stack, also of the same frames. */
static size_t run_end(const struct export *e, const struct entry *order, size_t i, size_t to,
		      int same_stack)
{
	size_t j = i + 1;

	while (j < to && order[j].rank == order[i].rank &&
	       (!same_stack ||
		same_frames(e, e->samples[order[j].idx].stack, e->samples[order[i].idx].stack)))
		j++;
	return j;
}

/* The profile of one thread: order[from..to) are its samples. */
static void profile(struct buf_out *w, const struct export *e, const struct entry *order,
		    size_t from, size_t to, uint64_t period)
{
	const struct export_sample *s0 = &e->samples[order[from].idx];
	uint64_t weight = period ? period : 1, start = period ? s0->time : 0;
	const char *thread = s0->thread[0] ? s0->thread : "?";
	char *name = e->processes ? xasprintf("%s [%" PRIu32 "] / %s [%" PRIu32 "]", s0->process, s0->pid, thread,
					      s0->tid)
				  : xasprintf("%s [%" PRIu32 "]", thread, s0->tid);
	size_t i, j;

	buf_addstr(&w->b, "{\"type\":\"sampled\",\"name\":");
	json_string(&w->b, name);
	free(name);
	buf_addf(&w->b, ",\"unit\":\"%s\",\"startValue\":%" PRIu64 ",\"endValue\":%" PRIu64
		 ",\n\"samples\":[", period ? "nanoseconds" : "none", start,
		 start + (to - from) * weight);
	for (i = from; i < to; i = j) {
		j = run_end(e, order, i, to, 1);
		if (i > from)
			buf_addch(&w->b, ',');
		stack(&w->b, e, &e->stacks[e->samples[order[i].idx].stack]);
		buf_out_maybe(w, FLUSH_AT);
	}
	buf_addstr(&w->b, "],\n\"weights\":[");
	for (i = from; i < to; i = j) {
		j = run_end(e, order, i, to, 1);
		buf_addf(&w->b, i > from ? ",%" PRIu64 : "%" PRIu64, (j - i) * weight);
		buf_out_maybe(w, FLUSH_AT);
	}
	buf_addstr(&w->b, "]}");
}

int speedscope_write(FILE *f, const struct trace *t, const struct export *e, int lines)
{
	uint64_t period = export_period(t);
	size_t n = e->nsamples, nthreads = 0, active = 0, best = 0, i, j, k;
	struct entry *order = xmalloc((n ? n : 1) * sizeof(*order));
	struct buf_out w = { .f = f };
	struct hmap rank_of;      /* (tid and pid, program) -> rank of its first sample */
	char *root = stacks_root_name(t);

	hmap_init(&rank_of);
	for (i = 0; i < n; i++) {
		int added;

		const struct export_sample *s = &e->samples[i];

		order[i].rank = (size_t)*hmap_put(&rank_of, s->tid | (uint64_t)s->pid << 32,
						  (uint64_t)(uintptr_t)s->process, nthreads, &added);
		order[i].idx = i;
		nthreads += (size_t)added;
	}
	qsort(order, n, sizeof(*order), cmp_entry);
	for (i = k = 0; i < n; i = j, k++) {
		j = run_end(e, order, i, n, 0);
		if (j - i > best) {
			best = j - i;
			active = k;
		}
	}
	buf_init(&w.b);
	buf_addf(&w.b, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
		 "\"exporter\":\"prof-report (trace format %d.%d)\",\n\"name\":",
		 TRACE_FORMAT_MAJOR, TRACE_FORMAT_MINOR);
	json_string(&w.b, root);
	buf_addstr(&w.b, ",\n");
	if (n)
		buf_addf(&w.b, "\"activeProfileIndex\":%zu,\n", active);
	frames(&w, e, lines);
	buf_addstr(&w.b, "\"profiles\":[");
	for (i = 0; i < n; i = j) {
		j = run_end(e, order, i, n, 0);
		buf_addstr(&w.b, i ? ",\n" : "\n");
		profile(&w, e, order, i, j, period);
	}
	buf_addstr(&w.b, "]}\n");
	buf_out_flush(&w);
	if (!w.err && ferror(f))
		w.err = -EIO;
	buf_release(&w.b);
	hmap_release(&rank_of);
	free(root);
	free(order);
	return w.err;
}
