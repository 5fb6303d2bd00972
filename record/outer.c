/*
 * outer.c: the outer frames of each thread's last complete walk.
 */
#include "outer.h"
#include "common/diag.h"
#include "common/hmap.h"

#include <stdlib.h>
#include <string.h>

/* The last KEPT complete walks of a thread are kept, the newest tried
 * first: a thread in a loop calls several functions from the same frame,
 * and a walk stopped in one of them meets the last walk that was in it.
 * A handler interrupting a loop needed 16 (the walks of the loop's
 * callees and the handler's own, each a slot), about 7 KiB a thread at
 * 30 frames a walk. */
#define KEPT 16

/* A frame as a join needs it. */
struct frame {
	uint64_t pc, sp, func, ra_at;
};

/* Kept frames checked against the stack at once, at most. */
#define CHECK_MAX 64
/* Frames just above a junction that need not be on the stack now. */
#define UNHELD 8

struct walk {
	size_t n, cap;
	struct frame *f;
};

struct kept {
	struct walk w[KEPT];
	unsigned next;          /* the slot the next walk is kept in */
	/* Each complete walk tests the joins the kept ones would have made
	 * for it: tests, and misses where the frames above the junction
	 * differed. A thread whose outer frames change under the same frame
	 * (a recursion that changes course) misses, and is joined no more. */
	uint32_t tests, misses;
};

/* Joins are made for a thread while at most 1 test in MISS_RATE missed. */
#define MISS_RATE 100
/* Tests counted before both counts are halved, so that the rate follows
 * what the thread does now. */
#define TESTS_SPAN 1024

struct outer {
	struct hmap by_tid;     /* tid -> struct kept * */
};

struct outer *outer_new(void)
{
	struct outer *o = xcalloc(1, sizeof(*o));
	hmap_init(&o->by_tid);
	return o;
}

static void kept_free(struct kept *k)
{
	for (unsigned i = 0; i < KEPT; i++)
		free(k->w[i].f);
	free(k);
}

void outer_free(struct outer *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->by_tid.cap; i++)
		if (o->by_tid.slots[i].used)
			kept_free((struct kept *)(uintptr_t)o->by_tid.slots[i].value);
	hmap_release(&o->by_tid);
	free(o);
}

/* Whether w is the walk pc/trail but for its leaf's pc. */
static int same(const struct walk *w, const uint64_t *pc, const struct unwind_frame *trail, size_t n)
{
	if (n == 0 || w->n != n || w->f[0].func != trail[0].func)
		return 0;
	for (size_t i = 1; i < n; i++)
		if (w->f[i].pc != pc[i])
			return 0;
	return 1;
}

/* Whether the new walk (pc, trail, n) and the kept walk w agree where a
 * join would take one for the other: at the first sp, going up, at which
 * both have a frame above frames of one function, their frames from
 * there to the end are in the same functions (by CFI; the call sites in
 * them may differ, as a loop calls from several; by pc where there is
 * no CFI). Returns 1 or 0, or -1
 * if they have no
 * such frame (frames in sp order only: past a signal frame that moved to
 * another stack, the merge may miss one, which is no test). */
static int agrees(const struct walk *w, const uint64_t *pc, const struct unwind_frame *trail, size_t n)
{
	size_t a = 1, b = 1;

	while (a < w->n && b < n) {
		uint64_t x = w->f[a].sp, y = trail[b].sp;

		if (x < y) {
			a++;
		} else if (y < x) {
			b++;
		} else if (!x || !w->f[a - 1].func || w->f[a - 1].func != trail[b - 1].func) {
			a++;
			b++;
		} else {
			if (w->n - a != n - b)
				return 0;
			for (; a < w->n; a++, b++)
				if (w->f[a].func != trail[b].func || (!w->f[a].func && w->f[a].pc != pc[b]))
					return 0;
			return 1;
		}
	}
	return -1;
}

void outer_keep(struct outer *o, uint32_t tid, const uint64_t *pc, const struct unwind_frame *trail,
		size_t n)
{
	uint64_t *slot = hmap_put(&o->by_tid, tid, 0, 0, NULL);
	struct kept *k = (struct kept *)(uintptr_t)*slot;
	struct walk *w;
	unsigned i;

	if (!k) {
		k = xcalloc(1, sizeof(*k));
		*slot = (uintptr_t)k;
	}
	for (i = 0; i < KEPT; i++) {
		int r = agrees(&k->w[i], pc, trail, n);
		if (r >= 0) {
			k->tests++;
			k->misses += r == 0;
		}
	}
	if (k->tests >= TESTS_SPAN) {
		k->tests /= 2;
		k->misses /= 2;
	}
	/* A walk that differs from one kept only in its leaf's pc (a thread
	 * in a loop) takes its place. */
	for (w = NULL, i = 0; !w && i < KEPT; i++)
		if (same(&k->w[i], pc, trail, n))
			w = &k->w[i];
	if (!w) {
		w = &k->w[k->next];
		k->next = (k->next + 1) % KEPT;
	}
	if (n > w->cap) {
		w->f = xrealloc(w->f, n * sizeof(*w->f));
		w->cap = n;
	}
	for (size_t j = 0; j < n; j++)
		w->f[j] = (struct frame){ pc[j], trail[j].sp, trail[j].func, trail[j].ra_at };
	w->n = n;
}

/* Whether the stack still holds the frames of w above frame j (those
 * read from the stack), but for at most UNHELD of them just above j: the
 * outer frames must still be there, as they were at the kept walk's time,
 * so that they were at the sample's; the few just above the junction may
 * have gone since (the thread returned from a short call, such as
 * clock_gettime, that the sample and the kept walk were both in). Frame
 * j's own return address is not asked for: it lies where its callee's
 * frame begins, and that callee may be another now. A recursion that
 * changes course is refused: its frames above the junction have changed
 * for more than UNHELD frames. */
static int holds(const struct walk *w, size_t j, outer_check_fn check, void *ctx)
{
	uint64_t at[CHECK_MAX], pc[CHECK_MAX];
	size_t n = 0;

	for (size_t i = j + 1 + UNHELD; i < w->n && n < CHECK_MAX; i++)
		if (w->f[i].ra_at) {
			at[n] = w->f[i].ra_at;
			pc[n++] = w->f[i].pc;
		}
	return n == 0 || check(ctx, at, pc, n);
}

size_t outer_join(const struct outer *o, uint32_t tid, uint64_t *pc, size_t n, size_t max,
		  const struct unwind_frame *last, outer_check_fn check, void *ctx, int *whole)
{
	uint64_t *slot = hmap_get(&o->by_tid, tid, 0);
	const struct kept *k = slot ? (const struct kept *)(uintptr_t)*slot : NULL;

	*whole = 0;
	if (!k || !last->next_sp || !last->func || k->misses * MISS_RATE > k->tests)
		return n;
	for (unsigned i = 1; i <= KEPT; i++) {
		const struct walk *w = &k->w[(k->next + KEPT - i) % KEPT];
		/* Frames lie ever higher up the stack: at most one has that sp. */
		for (size_t j = 1; j < w->n; j++) {
			if (w->f[j].sp != last->next_sp)
				continue;
			if (w->f[j - 1].func != last->func || !holds(w, j, check, ctx))
				break;
			while (j < w->n && n < max)
				pc[n++] = w->f[j++].pc;
			*whole = j == w->n;
			return n;
		}
	}
	return n;
}

void outer_forget(struct outer *o, uint32_t tid)
{
	uint64_t *slot = hmap_get(&o->by_tid, tid, 0);

	if (!slot)
		return;
	kept_free((struct kept *)(uintptr_t)*slot);
	hmap_del(&o->by_tid, tid, 0);
}
