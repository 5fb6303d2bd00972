/*
 * offcpu.h: a thread's time off the CPU, as samples on the tick grid.
 *
 * Wall mode without stopping anything samples a thread on the CPU by its
 * cpu-clock ticks, and learns of its time off the CPU from the kernel's
 * context switches: the switch out gives the time, the user stack and
 * whether the thread was preempted or blocked; the switch in gives the time
 * it came back. This module turns each such interval into the samples a
 * ticking sampler would have taken: one at every tick of the grid
 * origin + k * period that falls strictly inside it, with the switch-out
 * stack, in state TRACE_STATE_SLEEPING (blocked) or TRACE_STATE_PREEMPTED.
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

struct offcpu;

/* Receives one sample: as trace_writer_sample() takes it (addrs borrowed
 * for the call). Returns 0, or a negative error that stops the emission
 * and is returned to the caller. */
typedef int (*offcpu_emit_fn)(void *ctx, uint64_t time, uint32_t tid, uint8_t state,
			      uint8_t flags, const uint64_t *addrs, size_t n);

/* A new tracker whose grid ticks at origin_ns + k * period_ns, k >= 0, or
 * NULL if period_ns is 0. Caller frees with offcpu_free(). */
struct offcpu *offcpu_new(uint64_t period_ns, uint64_t origin_ns);
void offcpu_free(struct offcpu *o);

/* Thread tid left the CPU at time, preempted (non-zero) or blocked, with
 * the user stack addrs[0..n), leaf first (copied), whose samples get
 * flags. If it was already off the CPU (its switch in was lost), the new
 * interval replaces the old one, whose ticks not yet emitted are dropped:
 * when it came back is not known. */
void offcpu_out(struct offcpu *o, uint32_t tid, uint64_t time, int preempted,
		const uint64_t *addrs, size_t n, uint8_t flags);
/* Sets the stack and flags of the interval thread tid is off the CPU in
 * (copied), as offcpu_out() does: so a caller may give that none and walk
 * the stack only once offcpu_due() says a tick needs it. A thread not off
 * the CPU is left alone. */
void offcpu_stack(struct offcpu *o, uint32_t tid, const uint64_t *addrs, size_t n, uint8_t flags);
/* Whether thread tid is off the CPU with a grid tick before until that
 * is not emitted yet. */
int offcpu_due(const struct offcpu *o, uint32_t tid, uint64_t until);
/* Thread tid came back on the CPU at time: emits the grid ticks after its
 * switch out and before time that offcpu_advance() has not emitted yet.
 * A thread not off the CPU emits nothing. Returns 0 or emit's error; after
 * an error the ticks not emitted stay pending, and the thread stays off
 * the CPU. */
int offcpu_in(struct offcpu *o, uint32_t tid, uint64_t time, offcpu_emit_fn emit, void *ctx);
/* Emits, for every thread still off the CPU, the grid ticks after its
 * switch out and before now not emitted yet, thread by thread in order of
 * tid and each thread's in order of time; so a thread blocked for the
 * whole recording is seen, and a long block is written as it goes. now
 * must be a time up to which every switch in has been given. Returns 0 or
 * emit's first error (the ticks not emitted stay pending). */
int offcpu_advance(struct offcpu *o, uint64_t now, offcpu_emit_fn emit, void *ctx);
/* Thread tid ended: drops its entry and any ticks pending. */
void offcpu_forget(struct offcpu *o, uint32_t tid);

#endif
