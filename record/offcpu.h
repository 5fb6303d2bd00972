/*
 * offcpu.h: a thread's time off the CPU, as samples on the tick grid.
 *
 * Wall mode without stopping anything samples a thread on the CPU by its
 * cpu-clock ticks, and learns of its time off the CPU from the kernel's
 * context switches: the switch out gives the time, whether the thread was
 * preempted or blocked, and its user registers; the switch in gives the
 * time it came back. This module turns each such interval into the
 * samples a ticking sampler would have taken: one at every tick of the
 * grid origin + k * period that falls strictly inside it, with the
 * interval's stack, in state TRACE_STATE_SLEEPING (blocked) or
 * TRACE_STATE_PREEMPTED.
 *
 * An interval's stack is known at the switch out (offcpu_out(), from a
 * copy the kernel took), or read later from the registers while the thread
 * is still out (offcpu_out_regs()): a thread off the CPU does not touch
 * its stack, so the stack read at the first tick it is out is its stack
 * at the switch out, if it has not come back meanwhile. Most intervals of
 * a busy server end before the next tick and are never read. So each
 * round of the caller reads the stacks due (offcpu_read()), then gives
 * the switches in order, and a read that ended after its thread came back
 * is thrown away. An interval whose stack could not be read in time takes
 * the stack of the thread's last read that held, if it was read from the
 * same registers and the same stack was read from them each of the last
 * two times; otherwise its ticks are lost, and counted.
 *
 * It keeps one entry per thread that has been off the CPU, and nothing
 * else, so its memory is bounded by the threads alive. Times are the
 * trace's (nanoseconds of CLOCK_MONOTONIC) and must be given in order for
 * each thread. Nothing prints; no system call is made.
 */
#ifndef RECORD_OFFCPU_H
#define RECORD_OFFCPU_H

#include <stddef.h>
#include <stdint.h>

#include "record/unwind.h"

struct offcpu;

/* Receives one sample: as loop_sample() takes it (addrs borrowed for
 * the call, stop the enum unwind_stop of the stack's walk), without flags.
 * Returns 0, or a negative error that stops the emission and is returned
 * to the caller. */
typedef int (*offcpu_emit_fn)(void *ctx, uint64_t time, uint32_t tid, uint8_t state, const uint64_t *addrs,
			      size_t n, int stop);
/* Reads the stack of thread tid from regs as it is now: returns 0 with
 * *addrs (leaf first, borrowed until the next call), *n and *stop (enum
 * unwind_stop), or a negative error if it cannot be read; and sets *end
 * to the time the read ended either way. */
typedef int (*offcpu_read_fn)(void *ctx, uint32_t tid, const struct unwind_regs *regs,
			      const uint64_t **addrs, size_t *n, int *stop, uint64_t *end);

/* A new tracker whose grid ticks at origin_ns + k * period_ns, k >= 0, or
 * NULL if period_ns is 0. Caller frees with offcpu_free(). */
struct offcpu *offcpu_new(uint64_t period_ns, uint64_t origin_ns);
void offcpu_free(struct offcpu *o);

/* Thread tid left the CPU at time, preempted (non-zero) or blocked, with
 * the user stack addrs[0..n), leaf first (copied), whose walk ended for
 * stop (enum unwind_stop; UNWIND_STOP_DEPTH marks its samples truncated).
 * If it was already off the CPU (its switch in was lost), the new
 * interval replaces the old one, whose ticks not yet emitted are dropped:
 * when it came back is not known. */
void offcpu_out(struct offcpu *o, uint32_t tid, uint64_t time, int preempted, const uint64_t *addrs,
		size_t n, int stop);
/* The same, with the stack to be read from regs (offcpu_read()); regs
 * NULL: the stack is not known and never will be, and the interval's
 * ticks are lost. */
void offcpu_out_regs(struct offcpu *o, uint32_t tid, uint64_t time, int preempted,
		     const struct unwind_regs *regs);
/* Thread tid was created at time: it waits off the CPU for its first
 * run, with no switch out to say so and no stack yet, and its ticks until
 * then are lost (ticks_unstarted). */
void offcpu_created(struct offcpu *o, uint32_t tid, uint64_t time);
/* Sets the stack of the interval thread tid is off the CPU in, as
 * offcpu_out() takes it: so a caller may give that none and walk the stack
 * only once offcpu_due() says a tick needs it. A thread not off the CPU
 * is left alone. */
void offcpu_stack(struct offcpu *o, uint32_t tid, const uint64_t *addrs, size_t n, int stop);
/* Whether thread tid is off the CPU with a grid tick before until that
 * is not emitted yet. */
int offcpu_due(const struct offcpu *o, uint32_t tid, uint64_t until);

/* Reads with read the stack of each thread whose stack is to be read and
 * whose interval has a tick before now, in order of tid. A read holds if
 * its thread was still out when it ended: offcpu_in() and
 * offcpu_advance() tell, as they reach that time. */
void offcpu_read(struct offcpu *o, uint64_t now, offcpu_read_fn read, void *ctx);

/* The stack of the interval thread tid is off the CPU in, read by other
 * means, as offcpu_read() would, at time end: only for an interval whose
 * stack is not known (offcpu_out_regs() with regs NULL). */
void offcpu_read_done(struct offcpu *o, uint32_t tid, const uint64_t *addrs, size_t n, int stop, uint64_t end);

/* Thread tid came back on the CPU at time: emits the grid ticks after its
 * switch out and before time that offcpu_advance() has not emitted yet,
 * with the stack read if the read ended before time, else as an interval
 * never read. A thread not off the CPU emits nothing. Returns 0 or emit's error; after an error the ticks not
 * emitted stay pending, and the thread stays off the CPU. */
int offcpu_in(struct offcpu *o, uint32_t tid, uint64_t time, offcpu_emit_fn emit, void *ctx);
/* Emits, for every thread still off the CPU, the grid ticks after its
 * switch out and before now not emitted yet, thread by thread in order of
 * tid and each thread's in order of time; so a thread blocked for the
 * whole recording is seen, and a long block is written as it goes. A
 * thread whose stack is yet to be read waits for its read, and one read
 * after now for a later call. now must be a time up to which every switch
 * in has been given. Returns
 * 0 or emit's first error (the ticks not emitted stay pending). */
int offcpu_advance(struct offcpu *o, uint64_t now, offcpu_emit_fn emit, void *ctx);
/* The same, at the end, when no more switches will be given: a stack
 * read, or never read, is taken as it stands, so every tick before now is
 * emitted or lost. */
int offcpu_finish(struct offcpu *o, uint64_t now, offcpu_emit_fn emit, void *ctx);
/* Thread tid ended: drops its entry and any ticks pending. */
void offcpu_forget(struct offcpu *o, uint32_t tid);

/* What the stacks read came to, so far. */
struct offcpu_stats {
	uint64_t reads;         /* stacks read (offcpu_read()) */
	uint64_t reads_late;    /* of those, read after the thread came back */
	uint64_t reads_failed;  /* of those, that could not be read */
	uint64_t unread;        /* intervals with ticks whose thread came back
	                         * before a read */
	uint64_t reused;        /* intervals given the last read's stack */
	uint64_t ticks_lost;    /* ticks of intervals without a stack, not emitted */
	uint64_t ticks_unstarted; /* of those, of threads not run yet */
};
void offcpu_stats(const struct offcpu *o, struct offcpu_stats *st);

#endif
