/*
 * offcpu.c: switch-out intervals turned into samples on the tick grid.
 *
 * Each thread seen off the CPU has an entry, kept in an array sorted by
 * tid (threads come and go far less often than they switch, and a lookup
 * is a binary search): the interval's stack, in a buffer reused from one
 * switch to the next, how that stack is had, its state, and the next grid
 * tick it is due a sample at. Emitting moves that tick on one period at a
 * time, only once the sample is taken, so a tick is never emitted twice,
 * whether it is reached by offcpu_advance() while the thread is out or by
 * offcpu_in() when it comes back, and a failed emission leaves it pending.
 *
 * A stack to be read goes from OFF_UNREAD to OFF_READ when offcpu_read()
 * reads it; the read holds once the thread is known to have been out when
 * it ended (offcpu_advance() past that time, or a switch in after it),
 * and becomes the thread's memo, the last stack read and the registers it
 * was read from. An interval whose read came too late, failed, or never
 * came, takes the memo if the memo was read from the same registers twice
 * running with the same result (a thread that blocks where it blocked
 * before), else OFF_LOST: its ticks are counted, not emitted.
 */
#include "record/offcpu.h"

#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "format/trace.h"

/* How an interval's stack is had. */
enum off_how {
	OFF_KNOWN,      /* given, or read and held */
	OFF_UNREAD,     /* to be read from regs */
	OFF_READ,       /* read, until read_end is known to be inside the interval */
	OFF_LOST,       /* not to be had: its ticks are lost */
};

struct off_stack {
	uint64_t *addrs;        /* leaf first */
	size_t n, cap;
	int stop;               /* enum unwind_stop */
};

/* A read that held, and how many reads from its registers in a row read
 * the same stack. A thread has a few places it blocks or is preempted at
 * often (waiting for work, just after waking another thread). */
#define OFF_MEMOS 4
struct off_memo {
	struct unwind_regs regs;
	struct off_stack stack;
	unsigned runs;          /* 0: the slot is empty */
	uint64_t used;          /* the thread's reads_held when last read */
};

struct off_thread {
	uint32_t tid;
	int out;                /* off the CPU now */
	uint8_t state;          /* TRACE_STATE_SLEEPING or TRACE_STATE_PREEMPTED */
	uint8_t how;            /* enum off_how */
	uint8_t unstarted;      /* OFF_LOST: created, not run yet */
	uint64_t next;          /* the next grid tick not emitted */
	uint64_t read_end;      /* OFF_READ: when the read ended */
	int have_regs;          /* the stack to be read: from regs, else never */
	struct unwind_regs regs; /* the switch out's, if the stack is read */
	struct off_stack stack; /* the interval's */
	struct off_memo memo[OFF_MEMOS]; /* the last reads that held, from
	                                  * registers each of its own */
	uint64_t reads_held;    /* the memos' clock, for the least recent */
};

struct offcpu {
	uint64_t period, origin;
	struct off_thread *threads; /* sorted by tid */
	size_t nthreads, cap;
	struct offcpu_stats st;
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

static void thread_release(struct off_thread *th)
{
	free(th->stack.addrs);
	for (int k = 0; k < OFF_MEMOS; k++)
		free(th->memo[k].stack.addrs);
}

void offcpu_free(struct offcpu *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->nthreads; i++)
		thread_release(&o->threads[i]);
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

/* tid's entry if it is off the CPU, else NULL. */
static struct off_thread *out_thread(const struct offcpu *o, uint32_t tid)
{
	int found;
	size_t i = find(o, tid, &found);

	return found && o->threads[i].out ? &o->threads[i] : NULL;
}

/* The first grid tick after time. */
static uint64_t tick_after(const struct offcpu *o, uint64_t time)
{
	if (time < o->origin)
		return o->origin;
	return o->origin + ((time - o->origin) / o->period + 1) * o->period;
}

static void stack_set(struct off_stack *st, const uint64_t *addrs, size_t n, int stop)
{
	st->addrs = xgrow(st->addrs, &st->cap, n ? n : 1, sizeof(*st->addrs));
	if (n)
		memcpy(st->addrs, addrs, n * sizeof(*addrs));
	st->n = n;
	st->stop = stop;
}

static int stack_same(const struct off_stack *a, const struct off_stack *b)
{
	return a->n == b->n && a->stop == b->stop && (!a->n || !memcmp(a->addrs, b->addrs, a->n * sizeof(*a->addrs)));
}

static int regs_same(const struct unwind_regs *a, const struct unwind_regs *b)
{
	return a->pc == b->pc && a->sp == b->sp && a->fp == b->fp && a->lr == b->lr;
}

/* th's entry, added out at time; the caller sets its stack. */
static struct off_thread *went_out(struct offcpu *o, uint32_t tid, uint64_t time, int preempted)
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
	th->unstarted = 0;
	th->state = preempted ? TRACE_STATE_PREEMPTED : TRACE_STATE_SLEEPING;
	th->next = tick_after(o, time);
	return th;
}

void offcpu_out(struct offcpu *o, uint32_t tid, uint64_t time, int preempted, const uint64_t *addrs,
		size_t n, int stop)
{
	struct off_thread *th = went_out(o, tid, time, preempted);

	th->how = OFF_KNOWN;
	stack_set(&th->stack, addrs, n, stop);
}

void offcpu_out_regs(struct offcpu *o, uint32_t tid, uint64_t time, int preempted,
		     const struct unwind_regs *regs)
{
	struct off_thread *th = went_out(o, tid, time, preempted);

	th->how = OFF_UNREAD;
	th->have_regs = regs != NULL;
	if (regs)
		th->regs = *regs;
}

void offcpu_created(struct offcpu *o, uint32_t tid, uint64_t time)
{
	struct off_thread *th = went_out(o, tid, time, 1);

	th->how = OFF_LOST;
	th->have_regs = 0;
	th->unstarted = 1;
}

void offcpu_stack(struct offcpu *o, uint32_t tid, const uint64_t *addrs, size_t n, int stop)
{
	struct off_thread *th = out_thread(o, tid);

	if (!th)
		return;
	th->how = OFF_KNOWN;
	stack_set(&th->stack, addrs, n, stop);
}

int offcpu_due(const struct offcpu *o, uint32_t tid, uint64_t until)
{
	const struct off_thread *th = out_thread(o, tid);

	return th && th->next < until;
}

/* th's memo read from its registers, or NULL. */
static struct off_memo *memo_of(struct off_thread *th)
{
	for (int k = 0; th->have_regs && k < OFF_MEMOS; k++)
		if (th->memo[k].runs && regs_same(&th->regs, &th->memo[k].regs))
			return &th->memo[k];
	return NULL;
}

/* An interval without a read that holds: the memo of its registers, if
 * they read the same stack the last two times, else lost. */
static void unread(struct offcpu *o, struct off_thread *th)
{
	struct off_memo *m = memo_of(th);

	if (m && m->runs >= 2) {
		stack_set(&th->stack, m->stack.addrs, m->stack.n, m->stack.stop);
		th->how = OFF_KNOWN;
		o->st.reused++;
	} else {
		th->how = OFF_LOST;
	}
}

/* th's read held: its stack is the interval's, and the memo of its
 * registers, in a slot of its own or the least recently read. */
static void held(struct off_thread *th)
{
	struct off_memo *m = memo_of(th);

	if (m && stack_same(&th->stack, &m->stack)) {
		m->runs++;
	} else {
		if (!m) {
			m = &th->memo[0];
			for (int k = 1; k < OFF_MEMOS; k++)
				if (th->memo[k].used < m->used)
					m = &th->memo[k];
			m->regs = th->regs;
		}
		stack_set(&m->stack, th->stack.addrs, th->stack.n, th->stack.stop);
		m->runs = 1;
	}
	m->used = ++th->reads_held;
	th->how = OFF_KNOWN;
}

void offcpu_read(struct offcpu *o, uint64_t now, offcpu_read_fn read, void *ctx)
{
	for (size_t i = 0; i < o->nthreads; i++) {
		struct off_thread *th = &o->threads[i];
		const uint64_t *addrs;
		size_t n;
		int stop;

		if (!th->out || th->how != OFF_UNREAD || !th->have_regs || th->next >= now)
			continue;
		o->st.reads++;
		if (read(ctx, th->tid, &th->regs, &addrs, &n, &stop, &th->read_end) < 0) {
			o->st.reads_failed++;
			unread(o, th);
			continue;
		}
		stack_set(&th->stack, addrs, n, stop);
		th->how = OFF_READ;
	}
}

void offcpu_read_done(struct offcpu *o, uint32_t tid, const uint64_t *addrs, size_t n, int stop, uint64_t end)
{
	struct off_thread *th = out_thread(o, tid);

	if (!th || th->how != OFF_UNREAD || th->have_regs)
		return;
	o->st.reads++;
	stack_set(&th->stack, addrs, n, stop);
	th->read_end = end;
	th->how = OFF_READ;
}

/* Settles th's stack as of time, up to which every switch in is known:
 * a read that ended by then held; at the end (time UINT64_MAX) a stack
 * not read is settled as such. */
static void settle(struct offcpu *o, struct off_thread *th, uint64_t time, int came_back)
{
	if (th->how == OFF_READ && th->read_end <= time) {
		held(th);
	} else if (th->how == OFF_READ && came_back) {
		o->st.reads_late++;
		unread(o, th);
	} else if (th->how == OFF_UNREAD && (came_back || time == UINT64_MAX) && th->next < time) {
		o->st.unread++;
		unread(o, th);
	}
}

/* Emits th's pending ticks before until; a lost interval's are counted. */
static int emit_until(struct offcpu *o, struct off_thread *th, uint64_t until, offcpu_emit_fn emit,
		      void *ctx)
{
	int r;

	while (th->next < until) {
		if (th->how == OFF_LOST) {
			o->st.ticks_lost++;
			o->st.ticks_unstarted += th->unstarted;
		} else if ((r = emit(ctx, th->next, th->tid, th->state, th->stack.addrs, th->stack.n,
				   th->stack.stop)) < 0)
			return r;
		th->next += o->period;
	}
	return 0;
}

int offcpu_in(struct offcpu *o, uint32_t tid, uint64_t time, offcpu_emit_fn emit, void *ctx)
{
	struct off_thread *th = out_thread(o, tid);
	int r;

	if (!th)
		return 0;
	settle(o, th, time, 1);
	if ((r = emit_until(o, th, time, emit, ctx)) < 0)
		return r;
	th->out = 0;
	return 0;
}

static int advance(struct offcpu *o, uint64_t now, uint64_t settled, offcpu_emit_fn emit, void *ctx)
{
	int r;

	for (size_t i = 0; i < o->nthreads; i++) {
		struct off_thread *th = &o->threads[i];

		if (!th->out)
			continue;
		settle(o, th, settled, 0);
		if (th->how != OFF_KNOWN && th->how != OFF_LOST)
			continue;
		if ((r = emit_until(o, th, now, emit, ctx)) < 0)
			return r;
	}
	return 0;
}

int offcpu_advance(struct offcpu *o, uint64_t now, offcpu_emit_fn emit, void *ctx)
{
	return advance(o, now, now, emit, ctx);
}

int offcpu_finish(struct offcpu *o, uint64_t now, offcpu_emit_fn emit, void *ctx)
{
	return advance(o, now, UINT64_MAX, emit, ctx);
}

void offcpu_forget(struct offcpu *o, uint32_t tid)
{
	int found;
	size_t i = find(o, tid, &found);

	if (!found)
		return;
	thread_release(&o->threads[i]);
	memmove(&o->threads[i], &o->threads[i + 1], (o->nthreads - i - 1) * sizeof(*o->threads));
	o->nthreads--;
}

void offcpu_stats(const struct offcpu *o, struct offcpu_stats *st)
{
	*st = o->st;
}
