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
	uint64_t pc, sp, func;
};

struct walk {
	size_t n, cap;
	struct frame *f;
};

struct kept {
	struct walk w[KEPT];
	unsigned next;          /* the slot the next walk is kept in */
};

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
		w->f[j] = (struct frame){ pc[j], trail[j].sp, trail[j].func };
	w->n = n;
}

size_t outer_join(const struct outer *o, uint32_t tid, uint64_t *pc, size_t n, size_t max,
		  const struct unwind_frame *last, int *whole)
{
	uint64_t *slot = hmap_get(&o->by_tid, tid, 0);
	const struct kept *k = slot ? (const struct kept *)(uintptr_t)*slot : NULL;

	*whole = 0;
	if (!k || !last->next_sp || !last->func)
		return n;
	for (unsigned i = 1; i <= KEPT; i++) {
		const struct walk *w = &k->w[(k->next + KEPT - i) % KEPT];
		/* Frames lie ever higher up the stack: at most one has that sp. */
		for (size_t j = 1; j < w->n; j++) {
			if (w->f[j].sp != last->next_sp)
				continue;
			if (w->f[j - 1].func != last->func)
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
