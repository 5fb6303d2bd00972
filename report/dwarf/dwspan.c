/*
 * dwspan.c: folding intervals with a sweep over their starts and a
 * max-heap of the intervals open at each point, so n intervals take
 * O(n log n) whatever their nesting.
 */
#include "report/dwarf/dwspan.h"

#include <stdlib.h>
#include <string.h>

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

/* Sorts s's intervals by lo into place, through tmp (room for s->n):
 * least significant byte first, stable, skipping each byte that all the
 * starts share (most of them, since a file's code is a few megabytes).
 * The order of equal starts does not matter to the fold, which takes
 * them all at once. It is qsort's answer at a fraction of its cost, which
 * a unit's tens of thousands of intervals made the larger part of a fold. */
static void sort_by_lo(struct dwspan_set *s, struct dwspan_interval *tmp)
{
	size_t count[8][256] = { { 0 } }, i, b;
	struct dwspan_interval *from = s->iv, *to = tmp, *t;

	for (i = 0; i < s->n; i++)
		for (b = 0; b < 8; b++)
			count[b][(s->iv[i].lo >> (8 * b)) & 0xff]++;
	for (b = 0; b < 8; b++) {
		size_t at = 0, k, c;

		if (count[b][(s->iv[0].lo >> (8 * b)) & 0xff] == s->n)
			continue;
		for (k = 0; k < 256; k++) {
			c = count[b][k];
			count[b][k] = at;
			at += c;
		}
		for (i = 0; i < s->n; i++)
			to[count[b][(from[i].lo >> (8 * b)) & 0xff]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	if (from != s->iv)
		memcpy(s->iv, from, s->n * sizeof(*from));
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
	heap = xmalloc(s->n * sizeof(*heap));
	sort_by_lo(s, heap);
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
