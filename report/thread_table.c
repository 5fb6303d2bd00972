/*
 * thread_table.c: one pass over the samples, counting per tid.
 *
 * Threads are found through a hash of tid to row, so a trace with
 * thousands of short-lived threads stays linear. The sort at the end gives
 * the table its deterministic order.
 */
#include "thread_table.h"

#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/hmap.h"

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

int thread_table_build(const struct trace *t, const struct profile_filter *f,
		       struct thread_table *out)
{
	struct hmap m;
	size_t cap = 0, i;

	memset(out, 0, sizeof(*out));
	hmap_init(&m);
	for (i = 0; i < t->nthreads; i++)
		if (thread_passes(&t->threads[i], t->threads[i].tid, f))
			row_for(out, &cap, &m, t, t->threads[i].tid);
	for (i = 0; i < t->nsamples; i++) {
		const struct trace_sample *s = &t->samples[i];
		struct thread_table_row *r;

		if (!profile_filter_match(t, f, s))
			continue;
		r = row_for(out, &cap, &m, t, s->tid);
		if (!r->samples || s->time < r->first)
			r->first = s->time;
		if (!r->samples || s->time > r->last)
			r->last = s->time;
		r->samples++;
		if (s->state == TRACE_STATE_RUNNING)
			r->running++;
		else if (profile_state_match(PROFILE_STATE_IDLE, s->state))
			r->waiting++;
		out->samples++;
	}
	hmap_release(&m);
	if (out->nrows)
		qsort(out->rows, out->nrows, sizeof(*out->rows), cmp_row);
	return 0;
}

void thread_table_release(struct thread_table *tt)
{
	free(tt->rows);
	memset(tt, 0, sizeof(*tt));
}
