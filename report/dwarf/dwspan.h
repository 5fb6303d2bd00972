/*
 * dwspan.h: overlapping address intervals folded into disjoint spans,
 * each owned by the highest-priority interval that covers it, and the
 * binary search that finds the span of an address.
 *
 * DWARF describes code by ranges that nest and overlap: units that claim
 * the same bytes, functions with inlined instances inside. Folding them
 * once turns every later lookup into one search.
 */
#ifndef REPORT_DWSPAN_H
#define REPORT_DWSPAN_H

#include <stddef.h>
#include <stdint.h>

/* A disjoint address span [lo, hi) and what owns it. */
struct dwspan {
	uint64_t lo, hi;
	uint32_t owner;
};

/* Intervals waiting to be folded. Zero it to start. */
struct dwspan_set {
	struct dwspan_interval {
		uint64_t lo, hi;
		uint64_t prio;
		uint32_t owner;
	} *iv;
	size_t n, cap;
};

/* Adds [lo, hi) owned by owner at priority prio (empty ones are dropped). */
void dwspan_add(struct dwspan_set *s, uint64_t lo, uint64_t hi, uint64_t prio, uint32_t owner);
/* Folds s's intervals into disjoint spans sorted by address, each owned
 * by the highest-priority interval covering it (priorities are the
 * caller's to keep distinct); adjacent spans of one owner merge. Empties
 * s. The caller frees *out. */
void dwspan_fold(struct dwspan_set *s, struct dwspan **out, size_t *nout);
void dwspan_set_release(struct dwspan_set *s);

/* The element of v holding addr, or NULL: v is n elements of size bytes
 * each, every one starting with uint64_t lo, hi, sorted by lo and
 * disjoint (spans, line rows). */
const void *dwspan_search(const void *v, size_t n, size_t size, uint64_t addr);
#define dwspan_find(v, n, addr) \
	((const struct dwspan *)dwspan_search(v, n, sizeof(struct dwspan), addr))

#endif
