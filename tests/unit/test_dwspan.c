/*
 * test_dwspan.c: the fold of overlapping intervals into disjoint spans,
 * against a brute-force answer at every address: sets that nest, overlap,
 * share starts, and whose starts differ in one byte only (low, middle or
 * high, so the fold's sort has each of its passes to make or to skip).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "report/dwarf/dwspan.h"

struct iv {
	uint64_t lo, hi, prio;
	uint32_t owner;
};

/* The owner of the highest-priority interval holding addr, or -1. */
static int64_t brute(const struct iv *v, size_t n, uint64_t addr)
{
	int64_t owner = -1;
	uint64_t best = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].lo <= addr && addr < v[i].hi && (owner < 0 || v[i].prio > best)) {
			best = v[i].prio;
			owner = v[i].owner;
		}
	return owner;
}

/* Folds v and checks every address of [base, base + width] and the spans'
 * shape: sorted, disjoint, nonempty, adjacent ones of one owner merged. */
static void check(const struct iv *v, size_t n, uint64_t base, uint64_t width, uint64_t step)
{
	struct dwspan_set set = { 0 };
	struct dwspan *spans;
	size_t nspans;

	for (size_t i = 0; i < n; i++)
		dwspan_add(&set, v[i].lo, v[i].hi, v[i].prio, v[i].owner);
	dwspan_fold(&set, &spans, &nspans);
	cr_assert_eq(set.n, 0, "the fold empties the set");
	for (size_t i = 0; i < nspans; i++) {
		cr_assert_lt(spans[i].lo, spans[i].hi, "span %zu is empty", i);
		if (i)
			cr_assert(spans[i - 1].hi < spans[i].lo ||
				  (spans[i - 1].hi == spans[i].lo && spans[i - 1].owner != spans[i].owner),
				  "spans %zu and %zu overlap or were not merged", i - 1, i);
	}
	for (uint64_t a = base; a <= base + width; a += step) {
		const struct dwspan *s = dwspan_find(spans, nspans, a);
		int64_t want = brute(v, n, a);

		if (want < 0)
			cr_assert_null(s, "0x%llx: a span where no interval is", (unsigned long long)a);
		else
			cr_assert(s && s->owner == (uint32_t)want, "0x%llx: owner %d, want %lld",
				  (unsigned long long)a, s ? (int)s->owner : -1, (long long)want);
	}
	free(spans);
	dwspan_set_release(&set);
}

Test(dwspan, nested_and_overlapping)
{
	struct iv v[] = {
		{ 0x1000, 0x2000, 1, 1 },  /* a function */
		{ 0x1100, 0x1200, 2, 2 },  /* inlined in it */
		{ 0x1180, 0x11a0, 3, 3 },  /* inlined in that */
		{ 0x1100, 0x1140, 4, 4 },  /* same start, higher */
		{ 0x1f00, 0x2100, 5, 5 },  /* over the end */
		{ 0x3000, 0x3000, 6, 6 },  /* empty: dropped */
		{ 0x2800, 0x3000, 0, 7 },  /* alone, lowest */
		{ 0x0800, 0x4000, 0x100, 8 }, /* a unit over all, highest */
	};

	check(v, 8, 0x700, 0x3a00, 1);
	check(v, 7, 0x700, 0x3a00, 1);
	check(v, 3, 0x700, 0x3a00, 1);
}

/* Random sets whose starts share every byte but one: the sort's byte
 * there must order them, the others are passed over. */
Test(dwspan, random_against_brute_force)
{
	static struct iv v[400];
	unsigned seed = 12345;

	for (unsigned shift = 0; shift <= 56; shift += 8) {
		for (int round = 0; round < 4; round++) {
			size_t n = 50 + (size_t)round * 110;
			uint64_t base = 0x5500000000000000ull & ~(0xffull << shift);

			for (size_t i = 0; i < n; i++) {
				uint64_t lo = base + ((uint64_t)(rand_r(&seed) % 200) << shift);
				uint64_t len = (uint64_t)(rand_r(&seed) % 4 + 1) << shift;

				/* Priorities distinct, as the callers keep them. */
				v[i] = (struct iv){ lo, lo + len, (uint64_t)rand_r(&seed) * 1000 + i,
						    (uint32_t)i };
			}
			check(v, n, base, 210ull << shift, shift ? 1ull << (shift - 1) : 1);
		}
	}
}

Test(dwspan, empty_set)
{
	struct dwspan_set set = { 0 };
	struct dwspan *spans = (struct dwspan *)&set;
	size_t n = 7;

	dwspan_fold(&set, &spans, &n);
	cr_assert_null(spans);
	cr_assert_eq(n, 0);
	cr_assert_null(dwspan_find(spans, n, 0));
}
