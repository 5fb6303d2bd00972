/*
 * offcpu.c: switch-out intervals turned into samples on the tick grid.
 *
 * Each thread seen off the CPU has an entry, kept in an array sorted by
 * tid (threads come and go far less often than they switch, and a lookup
 * is a binary search): its switch-out stack, in a buffer reused from one
 * switch to the next, its state, and the next grid tick it is due a sample
 * at. Emitting moves that tick on one period at a time, only once the
 * sample is taken, so a tick is never emitted twice, whether it is
 * reached by offcpu_advance() while the thread is out or by offcpu_in()
 * when it comes back, and a failed emission leaves it pending.
 */
#include "record/offcpu.h"

#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "format/trace.h"

struct off_thread {
	uint32_t tid;
	int out;          /* off the CPU now */
	uint8_t state;    /* TRACE_STATE_SLEEPING or TRACE_STATE_PREEMPTED */
	uint8_t flags;
	uint64_t next;    /* the next grid tick not emitted */
	uint64_t *addrs;  /* the switch-out stack, leaf first */
	size_t n, cap;
};

struct offcpu {
	uint64_t period, origin;
	struct off_thread *threads; /* sorted by tid */
	size_t nthreads, cap;
};

struct offcpu *offcpu_new(uint64_t period_ns, uint64_t origin_ns)
{
	struct offcpu *o;

	if (!period_ns)
		return NULL;
	o = xcalloc(1, sizeof(*o));
	o->period = period_ns;
	o->origin = origin_ns;
	return o;
}

void offcpu_free(struct offcpu *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->nthreads; i++)
		free(o->threads[i].addrs);
	free(o->threads);
	free(o);
}

/* The index of tid's entry, or of where it would go; *found says which. */
static size_t find(const struct offcpu *o, uint32_t tid, int *found)
{
	size_t lo = 0, hi = o->nthreads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < o->nthreads && o->threads[lo].tid == tid;
	return lo;
}

/* The first grid tick after time. */
static uint64_t tick_after(const struct offcpu *o, uint64_t time)
{
	if (time < o->origin)
		return o->origin;
	return o->origin + ((time - o->origin) / o->period + 1) * o->period;
}

void offcpu_out(struct offcpu *o, uint32_t tid, uint64_t time, int preempted,
		const uint64_t *addrs, size_t n, uint8_t flags)
{
	int found;
	size_t i = find(o, tid, &found);
	struct off_thread *th;

	if (!found) {
		o->threads = xgrow(o->threads, &o->cap, o->nthreads + 1, sizeof(*o->threads));
		memmove(&o->threads[i + 1], &o->threads[i], (o->nthreads - i) * sizeof(*o->threads));
		o->nthreads++;
		memset(&o->threads[i], 0, sizeof(o->threads[i]));
		o->threads[i].tid = tid;
	}
	th = &o->threads[i];
	th->out = 1;
	th->state = preempted ? TRACE_STATE_PREEMPTED : TRACE_STATE_SLEEPING;
	th->next = tick_after(o, time);
	offcpu_stack(o, tid, addrs, n, flags);
}

void offcpu_stack(struct offcpu *o, uint32_t tid, const uint64_t *addrs, size_t n, uint8_t flags)
{
	int found;
	size_t i = find(o, tid, &found);
	struct off_thread *th;

	if (!found || !o->threads[i].out)
		return;
	th = &o->threads[i];
	th->addrs = xgrow(th->addrs, &th->cap, n ? n : 1, sizeof(*th->addrs));
	if (n)
		memcpy(th->addrs, addrs, n * sizeof(*addrs));
	th->n = n;
	th->flags = flags;
}

int offcpu_due(const struct offcpu *o, uint32_t tid, uint64_t until)
{
	int found;
	size_t i = find(o, tid, &found);

	return found && o->threads[i].out && o->threads[i].next < until;
}

/* Emits th's pending ticks before until. */
static int emit_until(struct offcpu *o, struct off_thread *th, uint64_t until, offcpu_emit_fn emit,
		      void *ctx)
{
	int r;

	while (th->next < until) {
		if ((r = emit(ctx, th->next, th->tid, th->state, th->flags, th->addrs, th->n)) < 0)
			return r;
		th->next += o->period;
	}
	return 0;
}

int offcpu_in(struct offcpu *o, uint32_t tid, uint64_t time, offcpu_emit_fn emit, void *ctx)
{
	int found, r;
	size_t i = find(o, tid, &found);

	if (!found || !o->threads[i].out)
		return 0;
	if ((r = emit_until(o, &o->threads[i], time, emit, ctx)) < 0)
		return r;
	o->threads[i].out = 0;
	return 0;
}

int offcpu_advance(struct offcpu *o, uint64_t now, offcpu_emit_fn emit, void *ctx)
{
	int r;

	for (size_t i = 0; i < o->nthreads; i++)
		if (o->threads[i].out && (r = emit_until(o, &o->threads[i], now, emit, ctx)) < 0)
			return r;
	return 0;
}

void offcpu_forget(struct offcpu *o, uint32_t tid)
{
	int found;
	size_t i = find(o, tid, &found);

	if (!found)
		return;
	free(o->threads[i].addrs);
	memmove(&o->threads[i], &o->threads[i + 1], (o->nthreads - i - 1) * sizeof(*o->threads));
	o->nthreads--;
}
