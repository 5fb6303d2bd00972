/*
 * test_offcpu.c: switch-out intervals to samples on the tick grid: exact
 * tick counts on and off the grid, the state of preempted and blocked
 * threads, ticks reached by advance and then by the switch in emitted once,
 * forgetting, many threads, an emission error left pending, a stack
 * given after the switch out, once a tick is due; and stacks read from the
 * switch-out registers: held once the thread is known to have been out
 * when the read ended, thrown away when it was not, lost when there is
 * none, reused from the places a thread blocked at twice before, and
 * given by other means when the registers are not known; a thread
 * created loses its ticks until its first run.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/trace.h"
#include "record/offcpu.h"

#define MAX_EMITTED 20000

struct emitted {
	uint64_t time;
	uint32_t tid;
	uint8_t state;
	int stop;
	size_t n;
	uint64_t addrs[4];
};

struct sink {
	struct emitted e[MAX_EMITTED];
	size_t n;
	size_t fail_at; /* the call (from 1) that fails with -EIO; 0 never */
	size_t calls;
};

static int record_emit(void *ctx, uint64_t time, uint32_t tid, uint8_t state, const uint64_t *addrs, size_t n,
		       int stop)
{
	struct sink *s = ctx;
	struct emitted *e;

	if (++s->calls == s->fail_at)
		return -EIO;
	cr_assert_lt(s->n, MAX_EMITTED);
	cr_assert_leq(n, 4);
	e = &s->e[s->n++];
	e->time = time;
	e->tid = tid;
	e->state = state;
	e->stop = stop;
	e->n = n;
	if (n)
		memcpy(e->addrs, addrs, n * sizeof(*addrs));
	return 0;
}

static struct sink *sink_new(void)
{
	return calloc(1, sizeof(struct sink));
}

/* The times emitted, checked against want[0..n). */
static void assert_times(const struct sink *s, const uint64_t *want, size_t n, const char *what)
{
	cr_assert_eq(s->n, n, "%s: %zu samples, not %zu", what, s->n, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(s->e[i].time, want[i], "%s: sample %zu at %llu, not %llu", what, i,
			     (unsigned long long)s->e[i].time, (unsigned long long)want[i]);
}

/* One interval, out at t0 and in at t1, on a grid of 1000 from origin. */
static void one_interval(uint64_t origin, uint64_t t0, uint64_t t1, const uint64_t *want, size_t n)
{
	struct offcpu *o = offcpu_new(1000, origin);
	struct sink *s = sink_new();
	uint64_t stack[] = { 0x401000, 0x400500 };
	char what[64];

	snprintf(what, sizeof(what), "origin %llu, (%llu, %llu)", (unsigned long long)origin,
		 (unsigned long long)t0, (unsigned long long)t1);
	offcpu_out(o, 7, t0, 0, stack, 2, UNWIND_STOP_END);
	cr_assert_eq(offcpu_in(o, 7, t1, record_emit, s), 0);
	assert_times(s, want, n, what);
	offcpu_free(o);
	free(s);
}

Test(offcpu, ticks_strictly_inside_the_interval)
{
	one_interval(0, 0, 3000, (uint64_t[]){ 1000, 2000 }, 2);          /* both ends on the grid */
	one_interval(0, 500, 3500, (uint64_t[]){ 1000, 2000, 3000 }, 3);  /* both off it */
	one_interval(0, 999, 1001, (uint64_t[]){ 1000 }, 1);
	one_interval(0, 1000, 2000, (uint64_t[]){ 0 }, 0);                 /* one period, ticks at its ends */
	one_interval(0, 1000, 2001, (uint64_t[]){ 2000 }, 1);
	one_interval(0, 1001, 1999, (uint64_t[]){ 0 }, 0);
	one_interval(0, 1500, 1500, (uint64_t[]){ 0 }, 0);
	one_interval(0, 2500, 1500, (uint64_t[]){ 0 }, 0);                 /* in before out: nothing */
	one_interval(250, 0, 300, (uint64_t[]){ 250 }, 1);                 /* out before the origin */
	one_interval(250, 250, 2250, (uint64_t[]){ 1250 }, 1);
	one_interval(5000000000ull, 5000000001ull, 5000004000ull,
		     (uint64_t[]){ 5000001000ull, 5000002000ull, 5000003000ull }, 3);
}

/* An interval given no stack is due once a tick before the time asked
 * is pending, and its ticks carry the stack set later. */
Test(offcpu, due_then_stack_set_later)
{
	struct offcpu *o = offcpu_new(1000, 0);
	struct sink *s = sink_new();
	uint64_t stack[] = { 0x401000, 0x400500 };

	cr_assert_not(offcpu_due(o, 7, 5000), "a thread never out");
	offcpu_out(o, 7, 1500, 1, NULL, 0, UNWIND_STOP_END);
	cr_assert_not(offcpu_due(o, 7, 2000), "its first tick is 2000, not before");
	cr_assert(offcpu_due(o, 7, 2001));
	offcpu_stack(o, 7, stack, 2, UNWIND_STOP_DEPTH);
	cr_assert_eq(offcpu_advance(o, 2500, record_emit, s), 0);
	cr_assert_not(offcpu_due(o, 7, 2500), "2000 was emitted");
	cr_assert_eq(offcpu_in(o, 7, 3500, record_emit, s), 0);
	assert_times(s, (uint64_t[]){ 2000, 3000 }, 2, "out 1500, in 3500");
	for (size_t i = 0; i < 2; i++) {
		cr_assert_eq(s->e[i].n, 2);
		cr_assert_eq(s->e[i].addrs[1], 0x400500);
		cr_assert_eq(s->e[i].stop, UNWIND_STOP_DEPTH);
		cr_assert_eq(s->e[i].state, TRACE_STATE_PREEMPTED);
	}
	cr_assert_not(offcpu_due(o, 7, 9000), "back on the CPU");
	offcpu_stack(o, 7, stack, 1, UNWIND_STOP_END);  /* not out: left alone */
	offcpu_out(o, 7, 4200, 0, NULL, 0, UNWIND_STOP_END);
	cr_assert_eq(offcpu_in(o, 7, 5100, record_emit, s), 0);
	cr_assert_eq(s->n, 3);
	cr_assert_eq(s->e[2].n, 0, "a stack never set is empty, not the last one");
	offcpu_free(o);
	free(s);
}

Test(offcpu, preempted_and_blocked_keep_their_stack_and_flags)
{
	struct offcpu *o = offcpu_new(100, 0);
	struct sink *s = sink_new();
	uint64_t a[] = { 0x10, 0x20, 0x30 }, b[] = { 0x40 };

	offcpu_out(o, 1, 50, 1, a, 3, UNWIND_STOP_END);
	offcpu_out(o, 2, 50, 0, b, 1, UNWIND_STOP_DEPTH);
	offcpu_out(o, 3, 50, 0, NULL, 0, UNWIND_STOP_END);  /* an empty stack */
	a[0] = b[0] = 0xdead;                                    /* copied at the switch out */
	cr_assert_eq(offcpu_in(o, 1, 150, record_emit, s), 0);
	cr_assert_eq(offcpu_in(o, 2, 150, record_emit, s), 0);
	cr_assert_eq(offcpu_in(o, 3, 150, record_emit, s), 0);
	cr_assert_eq(s->n, 3);
	cr_assert_eq(s->e[0].tid, 1);
	cr_assert_eq(s->e[0].time, 100);
	cr_assert_eq(s->e[0].state, TRACE_STATE_PREEMPTED);
	cr_assert_eq(s->e[0].stop, UNWIND_STOP_END);
	cr_assert_eq(s->e[0].n, 3);
	cr_assert_eq(s->e[0].addrs[0], 0x10);
	cr_assert_eq(s->e[0].addrs[2], 0x30);
	cr_assert_eq(s->e[1].tid, 2);
	cr_assert_eq(s->e[1].state, TRACE_STATE_SLEEPING);
	cr_assert_eq(s->e[1].stop, UNWIND_STOP_DEPTH);
	cr_assert_eq(s->e[1].n, 1);
	cr_assert_eq(s->e[1].addrs[0], 0x40);
	cr_assert_eq(s->e[2].tid, 3);
	cr_assert_eq(s->e[2].n, 0);
	/* a thread back on the CPU is due nothing more, nor one never out */
	cr_assert_eq(offcpu_advance(o, 10000, record_emit, s), 0);
	cr_assert_eq(offcpu_in(o, 1, 10000, record_emit, s), 0);
	cr_assert_eq(offcpu_in(o, 99, 10000, record_emit, s), 0);
	cr_assert_eq(s->n, 3);
	offcpu_free(o);
	free(s);
}

Test(offcpu, advance_then_in_emits_each_tick_once)
{
	struct offcpu *o = offcpu_new(1000, 0);
	struct sink *s = sink_new();
	uint64_t a[] = { 0x10 };

	offcpu_out(o, 5, 500, 0, a, 1, UNWIND_STOP_END);
	cr_assert_eq(offcpu_advance(o, 2500, record_emit, s), 0);
	assert_times(s, (uint64_t[]){ 1000, 2000 }, 2, "advance to 2500");
	cr_assert_eq(offcpu_advance(o, 2500, record_emit, s), 0);
	cr_assert_eq(offcpu_advance(o, 2000, record_emit, s), 0);  /* earlier: nothing */
	cr_assert_eq(offcpu_advance(o, 3000, record_emit, s), 0);  /* a tick at now is not yet due */
	assert_times(s, (uint64_t[]){ 1000, 2000 }, 2, "advance again");
	cr_assert_eq(offcpu_in(o, 5, 4200, record_emit, s), 0);
	assert_times(s, (uint64_t[]){ 1000, 2000, 3000, 4000 }, 4, "then in");
	cr_assert_eq(offcpu_advance(o, 9000, record_emit, s), 0);
	cr_assert_eq(s->n, 4);

	/* out again: a new interval, its own ticks */
	offcpu_out(o, 5, 9000, 1, a, 1, UNWIND_STOP_END);
	cr_assert_eq(offcpu_in(o, 5, 9000, record_emit, s), 0);    /* in at once: nothing */
	offcpu_out(o, 5, 9100, 1, a, 1, UNWIND_STOP_END);
	cr_assert_eq(offcpu_advance(o, 10000, record_emit, s), 0);
	cr_assert_eq(offcpu_in(o, 5, 10000, record_emit, s), 0);   /* the tick at the switch in */
	cr_assert_eq(s->n, 4);
	offcpu_out(o, 5, 10000, 1, a, 1, UNWIND_STOP_END);
	cr_assert_eq(offcpu_in(o, 5, 11001, record_emit, s), 0);
	assert_times(s, (uint64_t[]){ 1000, 2000, 3000, 4000, 11000 }, 5, "later intervals");
	cr_assert_eq(s->e[4].state, TRACE_STATE_PREEMPTED);
	offcpu_free(o);
	free(s);
}

Test(offcpu, a_second_out_replaces_the_first)
{
	struct offcpu *o = offcpu_new(1000, 0);
	struct sink *s = sink_new();
	uint64_t a[] = { 0x10 }, b[] = { 0x20 };

	/* the switch in between was lost: when the thread ran is not known */
	offcpu_out(o, 5, 500, 0, a, 1, UNWIND_STOP_END);
	cr_assert_eq(offcpu_advance(o, 1500, record_emit, s), 0);
	offcpu_out(o, 5, 2500, 1, b, 1, UNWIND_STOP_END);
	cr_assert_eq(offcpu_in(o, 5, 4500, record_emit, s), 0);
	assert_times(s, (uint64_t[]){ 1000, 3000, 4000 }, 3, "replaced");
	cr_assert_eq(s->e[0].state, TRACE_STATE_SLEEPING);
	cr_assert_eq(s->e[0].addrs[0], 0x10);
	cr_assert_eq(s->e[1].state, TRACE_STATE_PREEMPTED);
	cr_assert_eq(s->e[1].addrs[0], 0x20);
	offcpu_free(o);
	free(s);
}

Test(offcpu, forget_drops_the_thread)
{
	struct offcpu *o = offcpu_new(1000, 0);
	struct sink *s = sink_new();
	uint64_t a[] = { 0x10 };

	for (uint32_t tid = 1; tid <= 3; tid++)
		offcpu_out(o, tid, 500, 0, a, 1, UNWIND_STOP_END);
	offcpu_forget(o, 2);
	offcpu_forget(o, 2);   /* twice, and one never seen: nothing */
	offcpu_forget(o, 42);
	cr_assert_eq(offcpu_advance(o, 1500, record_emit, s), 0);
	cr_assert_eq(s->n, 2);
	cr_assert_eq(s->e[0].tid, 1);
	cr_assert_eq(s->e[1].tid, 3);
	cr_assert_eq(offcpu_in(o, 2, 5000, record_emit, s), 0);
	cr_assert_eq(s->n, 2);
	/* a tid reused after its thread ended starts afresh */
	offcpu_out(o, 2, 4500, 1, a, 1, UNWIND_STOP_END);
	cr_assert_eq(offcpu_in(o, 2, 5500, record_emit, s), 0);
	cr_assert_eq(s->n, 3);
	cr_assert_eq(s->e[2].time, 5000);
	cr_assert_eq(s->e[2].state, TRACE_STATE_PREEMPTED);
	offcpu_free(o);
	offcpu_free(NULL);
	cr_assert_null(offcpu_new(0, 0));
	free(s);
}

Test(offcpu, many_threads)
{
	enum { N = 1000 };
	struct offcpu *o = offcpu_new(1000, 0);
	struct sink *s = sink_new();
	size_t per[N] = { 0 };
	uint64_t last[N] = { 0 };

	/* tids in a scrambled order; thread k goes out at k * 10 */
	for (uint32_t i = 0; i < N; i++) {
		uint32_t k = (i * 7919u) % N;
		uint64_t a[] = { 0x1000 + k };
		offcpu_out(o, 100000 + k, (uint64_t)k * 10, k % 2, a, 1, UNWIND_STOP_END);
	}
	cr_assert_eq(offcpu_advance(o, 20500, record_emit, s), 0);
	/* in order of tid, each thread's ticks in order of time */
	for (size_t i = 0; i < s->n; i++) {
		uint32_t k = s->e[i].tid - 100000;
		cr_assert_lt(k, N);
		if (i)
			cr_assert_geq(s->e[i].tid, s->e[i - 1].tid);
		cr_assert_gt(s->e[i].time, last[k]);
		last[k] = s->e[i].time;
		cr_assert_eq(s->e[i].addrs[0], 0x1000 + k);
		cr_assert_eq(s->e[i].state, k % 2 ? TRACE_STATE_PREEMPTED : TRACE_STATE_SLEEPING);
		per[k]++;
	}
	for (uint32_t k = 0; k < N; k++) /* ticks 1000 ... 20000 after k * 10 < 1000 */
		cr_assert_eq(per[k], (size_t)(20 - (k * 10) / 1000),
			     "thread %u: %zu", k, per[k]);
	/* the even ones end, the odd ones come back at 30000 */
	s->n = 0;
	for (uint32_t k = 0; k < N; k += 2)
		offcpu_forget(o, 100000 + k);
	for (uint32_t k = 1; k < N; k += 2)
		cr_assert_eq(offcpu_in(o, 100000 + k, 30000, record_emit, s), 0);
	cr_assert_eq(s->n, (size_t)(N / 2) * 9); /* 21000 ... 29000 */
	for (size_t i = 0; i < s->n; i++)
		cr_assert(s->e[i].tid % 2, "tid %u was forgotten", s->e[i].tid);
	s->n = 0;
	cr_assert_eq(offcpu_advance(o, 100000, record_emit, s), 0);
	cr_assert_eq(s->n, 0);
	offcpu_free(o);
	free(s);
}

Test(offcpu, emit_error_returned_and_its_ticks_left_pending)
{
	struct offcpu *o = offcpu_new(1000, 0);
	struct sink *s = sink_new();
	uint64_t a[] = { 0x10 };

	offcpu_out(o, 1, 500, 0, a, 1, UNWIND_STOP_END);
	offcpu_out(o, 2, 500, 0, a, 1, UNWIND_STOP_END);
	s->fail_at = 2; /* thread 1's second tick */
	cr_assert_eq(offcpu_advance(o, 3500, record_emit, s), -EIO);
	assert_times(s, (uint64_t[]){ 1000 }, 1, "until the error");
	cr_assert_eq(offcpu_advance(o, 3500, record_emit, s), 0);
	cr_assert_eq(s->n, 6);
	for (size_t i = 0; i < 6; i++) {
		cr_assert_eq(s->e[i].tid, i < 3 ? 1 : 2);
		cr_assert_eq(s->e[i].time, 1000 * (i % 3 + 1));
	}
	/* an error in the switch in: the thread stays out, the rest pending */
	s->n = 0;
	s->calls = 0;
	s->fail_at = 1;
	cr_assert_eq(offcpu_in(o, 1, 5500, record_emit, s), -EIO);
	cr_assert_eq(s->n, 0);
	cr_assert_eq(offcpu_in(o, 1, 5500, record_emit, s), 0);
	assert_times(s, (uint64_t[]){ 4000, 5000 }, 2, "in after the error");
	cr_assert_eq(offcpu_in(o, 1, 9000, record_emit, s), 0); /* back on the CPU now */
	cr_assert_eq(s->n, 2);
	offcpu_free(o);
	free(s);
}

/*
 * Stacks read from the switch-out registers while the thread is out.
 */

/* The read offcpu_read() calls: the stack is the registers' pc and sp,
 * as if the walk found just those two frames, read at a clock of its own. */
struct reader {
	uint64_t clock;         /* when the next read ends */
	int fail;               /* reads fail with -EFAULT */
	uint64_t salt;          /* added to the second frame: another stack */
	size_t calls;
	uint64_t frames[2];
};

static int fake_read(void *ctx, uint32_t tid, const struct unwind_regs *regs, const uint64_t **addrs,
		     size_t *n, int *stop, uint64_t *end)
{
	struct reader *rd = ctx;

	(void)tid;
	rd->calls++;
	*end = rd->clock;
	if (rd->fail)
		return -EFAULT;
	rd->frames[0] = regs->pc;
	rd->frames[1] = regs->sp + rd->salt;
	*addrs = rd->frames;
	*n = 2;
	*stop = UNWIND_STOP_END;
	return 0;
}

static struct offcpu_stats stats_of(const struct offcpu *o)
{
	struct offcpu_stats st;
	offcpu_stats(o, &st);
	return st;
}

/* A read that ended while the thread was still out holds: its ticks carry
 * the stack read, emitted once advance or the switch in passes the read's
 * end, and not before. */
Test(offcpu, read_holds_once_past_its_end)
{
	struct offcpu *o = offcpu_new(1000, 0);
	struct sink *s = sink_new();
	struct reader rd = { .clock = 1600 };
	struct unwind_regs r = { .pc = 0x401000, .sp = 0x7000 };

	offcpu_out_regs(o, 7, 500, 0, &r);
	offcpu_read(o, 900, fake_read, &rd);
	cr_assert_eq(rd.calls, 0, "no tick before 900 needs the stack");
	offcpu_read(o, 1500, fake_read, &rd);
	cr_assert_eq(rd.calls, 1);
	offcpu_read(o, 1700, fake_read, &rd);
	cr_assert_eq(rd.calls, 1, "read once");
	cr_assert_eq(offcpu_advance(o, 1550, record_emit, s), 0);
	cr_assert_eq(s->n, 0, "the read ends at 1600: not known to hold at 1550");
	cr_assert_eq(offcpu_advance(o, 2500, record_emit, s), 0);
	assert_times(s, (uint64_t[]){ 1000, 2000 }, 2, "held");
	cr_assert_eq(offcpu_in(o, 7, 3100, record_emit, s), 0);
	assert_times(s, (uint64_t[]){ 1000, 2000, 3000 }, 3, "then in");
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(s->e[i].n, 2);
		cr_assert_eq(s->e[i].addrs[0], 0x401000);
		cr_assert_eq(s->e[i].state, TRACE_STATE_SLEEPING);
	}
	cr_assert_eq(stats_of(o).reads, 1);
	cr_assert_eq(stats_of(o).ticks_lost, 0);
	offcpu_free(o);
	free(s);
}

/* A read that ended after the thread came back read a stack the thread
 * may have changed: thrown away, and with no earlier read to go by, the
 * interval's ticks are lost and counted. So are those of an interval
 * whose read failed, or that ended before any read. */
Test(offcpu, late_failed_or_missing_reads_lose_their_ticks)
{
	struct offcpu *o = offcpu_new(1000, 0);
	struct sink *s = sink_new();
	struct reader rd = { .clock = 1600 };
	struct unwind_regs r = { .pc = 0x401000, .sp = 0x7000 };
	struct offcpu_stats st;

	offcpu_out_regs(o, 7, 500, 0, &r);
	offcpu_read(o, 1500, fake_read, &rd);
	cr_assert_eq(offcpu_in(o, 7, 1550, record_emit, s), 0);     /* back before 1600 */
	offcpu_out_regs(o, 8, 500, 1, &r);
	rd.fail = 1;
	offcpu_read(o, 1500, fake_read, &rd);
	cr_assert_eq(offcpu_advance(o, 3500, record_emit, s), 0);   /* 1000 to 3000, lost */
	offcpu_out_regs(o, 9, 500, 0, &r);
	cr_assert_eq(offcpu_in(o, 9, 2500, record_emit, s), 0);     /* never read */
	cr_assert_eq(s->n, 0);
	st = stats_of(o);
	cr_assert_eq(st.reads, 2);
	cr_assert_eq(st.reads_late, 1);
	cr_assert_eq(st.reads_failed, 1);
	cr_assert_eq(st.unread, 1);
	cr_assert_eq(st.reused, 0);
	cr_assert_eq(st.ticks_lost, 1 + 3 + 2);
	offcpu_free(o);
	free(s);
}

/* A thread created waits for its first run: its ticks until then are
 * lost, counted apart, and never read; from its first switch out on it
 * is like any other. */
Test(offcpu, created_thread_loses_its_ticks_until_its_first_run)
{
	struct offcpu *o = offcpu_new(1000, 0);
	struct sink *s = sink_new();
	struct reader rd = { .clock = 1600 };
	uint64_t stack[] = { 0x401000 };
	const uint64_t want[] = { 5000 };
	struct offcpu_stats st;

	offcpu_created(o, 7, 500);
	offcpu_read(o, 2600, fake_read, &rd);
	cr_assert_eq(offcpu_in(o, 7, 3200, record_emit, s), 0);    /* 1000 to 3000 */
	offcpu_out(o, 7, 4500, 0, stack, 1, 0);
	cr_assert_eq(offcpu_in(o, 7, 5500, record_emit, s), 0);
	assert_times(s, want, 1, "after the first run");
	st = stats_of(o);
	cr_assert_eq(st.reads, 0);
	cr_assert_eq(st.ticks_lost, 3);
	cr_assert_eq(st.ticks_unstarted, 3);
	offcpu_free(o);
	free(s);
}

/* Thread 7 out at *t + 500 with regs, read at *t + 1100 and back at
 * *t + 1200; and the next interval 10000 later. */
static void held_at(struct offcpu *o, struct sink *s, struct reader *rd, const struct unwind_regs *regs,
		    uint64_t *t)
{
	offcpu_out_regs(o, 7, *t + 500, 0, regs);
	rd->clock = *t + 1100;
	offcpu_read(o, *t + 1050, fake_read, rd);
	cr_assert_eq(offcpu_in(o, 7, *t + 1200, record_emit, s), 0);
	*t += 10000;
}

/* The same, back before any read. */
static void unread_at(struct offcpu *o, struct sink *s, const struct unwind_regs *regs, uint64_t *t)
{
	offcpu_out_regs(o, 7, *t + 500, 0, regs);
	cr_assert_eq(offcpu_in(o, 7, *t + 1200, record_emit, s), 0);
	*t += 10000;
}

/* Reads held once, then held again with the same result, from one place
 * the thread blocks at, and from another: an interval at either that
 * cannot be read takes that place's stack; after one read only, or after
 * the same registers read a different stack, it does not. */
Test(offcpu, blocking_where_it_blocked_twice_reuses_that_stack)
{
	struct offcpu *o = offcpu_new(1000, 0);
	struct sink *s = sink_new();
	struct reader rd;
	struct unwind_regs a = { .pc = 0x401000, .sp = 0x7000 }, b = { .pc = 0x402000, .sp = 0x7100 };
	uint64_t t = 0;

	/* one held read at a, then an unread interval there: lost */
	memset(&rd, 0, sizeof(rd));
	held_at(o, s, &rd, &a, &t);
	unread_at(o, s, &a, &t);
	cr_assert_eq(s->n, 1, "the read's own tick only");
	cr_assert_eq(stats_of(o).ticks_lost, 1, "one held read is not enough");
	held_at(o, s, &rd, &a, &t);
	held_at(o, s, &rd, &b, &t);
	held_at(o, s, &rd, &b, &t);
	unread_at(o, s, &a, &t);
	unread_at(o, s, &b, &t);
	cr_assert_eq(s->n, 6);
	cr_assert_eq(s->e[4].addrs[0], 0x401000, "a's stack at a");
	cr_assert_eq(s->e[5].addrs[0], 0x402000, "b's stack at b");
	cr_assert_eq(stats_of(o).reused, 2);
	/* registers a thread was never read at: lost */
	{
		struct unwind_regs c = a;
		c.fp = 0x7200;
		unread_at(o, s, &c, &t);
		cr_assert_eq(stats_of(o).ticks_lost, 2, "other registers: no memo");
	}
	/* the same registers read another stack (a caller higher up that
	 * changed): no longer trusted until read the same twice again */
	rd.salt = 8;
	held_at(o, s, &rd, &a, &t);
	rd.salt = 0;
	unread_at(o, s, &a, &t);
	cr_assert_eq(stats_of(o).ticks_lost, 3, "a read another stack once");
	cr_assert_eq(stats_of(o).reused, 2);
	offcpu_free(o);
	free(s);
}

/* A thread has a few places: the least recently read is the one given up
 * for a fifth. */
Test(offcpu, memo_keeps_the_most_recent_places)
{
	struct offcpu *o = offcpu_new(1000, 0);
	struct sink *s = sink_new();
	struct reader rd = { 0 };
	struct unwind_regs r[5];
	uint64_t t = 0;

	for (int k = 0; k < 5; k++)
		r[k] = (struct unwind_regs){ .pc = 0x401000 + 0x100 * (uint64_t)k, .sp = 0x7000 };
	for (int k = 0; k < 5; k++)
		for (int twice = 0; twice < 2; twice++) {
			offcpu_out_regs(o, 7, t + 500, 0, &r[k]);
			rd.clock = t + 1100;
			offcpu_read(o, t + 1050, fake_read, &rd);
			cr_assert_eq(offcpu_in(o, 7, t + 1200, record_emit, s), 0);
			t += 10000;
		}
	for (int k = 0; k < 5; k++) {
		offcpu_out_regs(o, 7, t + 500, 0, &r[k]);
		cr_assert_eq(offcpu_in(o, 7, t + 1200, record_emit, s), 0);
		t += 10000;
	}
	cr_assert_eq(stats_of(o).reused, 4, "places 1 to 4");
	cr_assert_eq(stats_of(o).ticks_lost, 1, "place 0, given up for place 4");
	offcpu_free(o);
	free(s);
}

/* Registers not known (a thread off the CPU since before the recording):
 * never read by offcpu_read(), and lost unless its stack comes by other
 * means, which hold as a read does. At the end, a read not known to have
 * held is taken, and an interval never read is lost. */
Test(offcpu, stack_of_unknown_registers_comes_by_other_means)
{
	struct offcpu *o = offcpu_new(1000, 0);
	struct sink *s = sink_new();
	struct reader rd = { .clock = 1 };
	struct unwind_regs r = { .pc = 0x401000, .sp = 0x7000 };
	uint64_t peeked[] = { 0xabc, 0xdef, 0x123 };

	offcpu_out_regs(o, 1, 100, 1, NULL);
	offcpu_out_regs(o, 2, 100, 1, NULL);
	offcpu_out_regs(o, 3, 100, 1, NULL);
	offcpu_read(o, 5000, fake_read, &rd);
	cr_assert_eq(rd.calls, 0);
	offcpu_read_done(o, 1, peeked, 3, UNWIND_STOP_END, 150);
	offcpu_read_done(o, 2, peeked, 3, UNWIND_STOP_END, 150);
	cr_assert_eq(offcpu_in(o, 1, 2500, record_emit, s), 0);     /* after 150: held */
	assert_times(s, (uint64_t[]){ 1000, 2000 }, 2, "read by other means");
	cr_assert_eq(s->e[0].n, 3);
	cr_assert_eq(s->e[0].addrs[2], 0x123);
	cr_assert_eq(s->e[0].state, TRACE_STATE_PREEMPTED);
	offcpu_read_done(o, 1, peeked, 3, UNWIND_STOP_END, 150);    /* back on the CPU: ignored */
	offcpu_out_regs(o, 4, 100, 0, &r);
	offcpu_read_done(o, 4, peeked, 3, UNWIND_STOP_END, 150);    /* registers known: ignored */
	rd.clock = 4500;
	offcpu_read(o, 4000, fake_read, &rd);                       /* 4 read, at 4500 */
	offcpu_out_regs(o, 5, 100, 0, &r);                          /* 5 never read */
	cr_assert_eq(offcpu_finish(o, 5000, record_emit, s), 0);
	/* 2 (read done at 150) and 4 (read at 4500) hold; 3 and 5 are lost */
	cr_assert_eq(s->n, 2 + 4 + 4);
	for (size_t i = 2; i < s->n; i++)
		cr_assert(s->e[i].tid == 2 || s->e[i].tid == 4, "tid %u", s->e[i].tid);
	cr_assert_eq(stats_of(o).ticks_lost, 8);
	offcpu_free(o);
	free(s);
}
