/*
 * dwspan.c: folding intervals with a sweep over their starts and a
 * max-heap of the intervals open at each point, so n intervals take
 * O(n log n) whatever their nesting.
 */
#include "dwspan.h"

#include <stdlib.h>

#include "common/diag.h"

void dwspan_add(struct dwspan_set *s, uint64_t lo, uint64_t hi, uint64_t prio, uint32_t owner)
{
	if (lo >= hi)
		return;
	s->iv = xgrow(s->iv, &s->cap, s->n + 1, sizeof(*s->iv));
	s->iv[s->n++] = (struct dwspan_interval){ .lo = lo, .hi = hi, .prio = prio, .owner = owner };
}

void dwspan_set_release(struct dwspan_set *s)
{
	free(s->iv);
	*s = (struct dwspan_set){ 0 };
}

static int cmp_interval(const void *a, const void *b)
{
	const struct dwspan_interval *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	return 0;
}

/* A max-heap of intervals by priority. */
static void heap_push(struct dwspan_interval *h, size_t *n, struct dwspan_interval v)
{
	size_t i = (*n)++;

	while (i > 0 && h[(i - 1) / 2].prio < v.prio) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static void heap_pop(struct dwspan_interval *h, size_t *n)
{
	struct dwspan_interval v = h[--*n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < *n) {
		if (c + 1 < *n && h[c + 1].prio > h[c].prio)
			c++;
		if (h[c].prio <= v.prio)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = v;
}

void dwspan_fold(struct dwspan_set *s, struct dwspan **out, size_t *nout)
{
	struct dwspan_interval *heap;
	struct dwspan *spans = NULL;
	size_t nheap = 0, n = 0, cap = 0, i = 0;
	uint64_t pos = 0;

	*out = NULL;
	*nout = 0;
	if (!s->n)
		return;
	qsort(s->iv, s->n, sizeof(*s->iv), cmp_interval);
	heap = xmalloc(s->n * sizeof(*heap));
	while (i < s->n || nheap) {
		uint64_t next, end;

		if (!nheap)
			pos = s->iv[i].lo;
		while (i < s->n && s->iv[i].lo <= pos) {
			if (s->iv[i].hi > pos)
				heap_push(heap, &nheap, s->iv[i]);
			i++;
		}
		while (nheap && heap[0].hi <= pos)
			heap_pop(heap, &nheap);
		if (!nheap)
			continue;
		next = i < s->n ? s->iv[i].lo : UINT64_MAX;
		end = heap[0].hi < next ? heap[0].hi : next;
		if (n && spans[n - 1].hi == pos && spans[n - 1].owner == heap[0].owner) {
			spans[n - 1].hi = end;
		} else {
			spans = xgrow(spans, &cap, n + 1, sizeof(*spans));
			spans[n++] = (struct dwspan){ .lo = pos, .hi = end, .owner = heap[0].owner };
		}
		pos = end;
	}
	free(heap);
	s->n = 0;
	*out = spans;
	*nout = n;
}

const void *dwspan_search(const void *v, size_t n, size_t size, uint64_t addr)
{
	const uint8_t *base = v;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const uint64_t *e = (const uint64_t *)(const void *)(base + mid * size);

		if (e[0] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= ((const uint64_t *)(const void *)(base + (lo - 1) * size))[1])
		return NULL;
	return base + (lo - 1) * size;
}
