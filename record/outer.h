/*
 * outer.h: the outer frames of each thread, for walks that run out of
 * stack.
 *
 * A perf_event sample carries a copy of only the top of the user stack
 * (source_perf_linux.c's STACK_WINDOW), and the outer frames of a
 * program such as a server's worker (main, its event loop, the frame it
 * was forked from) often lie beyond it. Those frames rarely change over a
 * thread's life. So each walk that reaches the outermost frame is kept,
 * per thread, with where each of its frames lay (struct unwind_frame),
 * and a later walk of the thread that stops for want of bytes
 * (UNWIND_STOP_WINDOW) is completed from it where the two meet: at the
 * frame the kept walk had at the stopped frame's CFA, provided that the
 * kept walk's frame just below it was in the same function (by its CFI)
 * as the stopped one, and that the thread's stack still holds the kept
 * frames' return addresses where the kept walk found them. A walk is
 * never completed from another thread's, nor at a frame whose place or
 * function differs, nor with frames the stack no longer has (a thread
 * whose outer frames change, such as a recursion that changes course,
 * gets no stale ones).
 */
#ifndef RECORD_OUTER_H
#define RECORD_OUTER_H

#include <stddef.h>
#include <stdint.h>

#include "unwind.h"

struct outer;

struct outer *outer_new(void);
void outer_free(struct outer *o);
/* Keeps the walk of thread tid that reached its outermost frame: n
 * frames, leaf first, and each one's trail. */
void outer_keep(struct outer *o, uint32_t tid, const uint64_t *pc, const struct unwind_frame *trail,
		size_t n);
/* Says whether the thread's stack holds, now, each return address pc[i]
 * at address at[i] (n of them): 1 if so, else 0. */
typedef int (*outer_check_fn)(void *ctx, const uint64_t *at, const uint64_t *pc, size_t n);

/* Completes a walk of tid that stopped for want of bytes after n frames
 * (pc, leaf first, with room for max; last is the trail of pc[n - 1],
 * whose next_sp is its caller's sp) with a kept walk's frames from where
 * they meet, if check says the thread's stack still holds them: then they
 * were there before the sample and after it. Returns the new number of
 * frames, n if none meets and holds; *whole says whether the kept frames
 * all fitted. */
size_t outer_join(const struct outer *o, uint32_t tid, uint64_t *pc, size_t n, size_t max,
		  const struct unwind_frame *last, outer_check_fn check, void *ctx, int *whole);
/* Forgets thread tid's walk (it ended). */
void outer_forget(struct outer *o, uint32_t tid);

#endif
