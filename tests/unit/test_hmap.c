/*
 * test_hmap.c: the hash map's deletion: every key left is still found
 * after deletions in the middle of probe runs (including runs that wrap
 * the table's end), deleted keys are gone, and a table whose keys come and
 * go keeps the size of what is in it.
 */
#include <criterion/criterion.h>

#include "common/hmap.h"

/* Puts keys 0..n-1 with value key + 1000. */
static void fill(struct hmap *m, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++)
		*hmap_put(m, k, 7, 0, NULL) = k + 1000;
}

Test(hmap, del_keeps_every_other_key)
{
	struct hmap m;

	hmap_init(&m);
	fill(&m, 3000);
	/* Every third key goes: with a half-full table many of them sit in
	 * runs of collisions, and some runs wrap the end of the table. */
	for (uint64_t k = 0; k < 3000; k += 3)
		cr_assert_eq(hmap_del(&m, k, 7), 1, "key %llu", (unsigned long long)k);
	cr_assert_eq(m.count, 2000);
	for (uint64_t k = 0; k < 3000; k++) {
		uint64_t *v = hmap_get(&m, k, 7);
		if (k % 3 == 0) {
			cr_assert_null(v, "key %llu deleted but found", (unsigned long long)k);
		} else {
			cr_assert_not_null(v, "key %llu lost by a deletion", (unsigned long long)k);
			cr_assert_eq(*v, k + 1000);
		}
	}
	cr_assert_eq(hmap_del(&m, 0, 7), 0, "a second deletion finds nothing");
	cr_assert_eq(hmap_del(&m, 1, 8), 0, "the second key is part of the key");
	hmap_release(&m);
}

Test(hmap, del_on_empty_map)
{
	struct hmap m;

	hmap_init(&m);
	cr_assert_eq(hmap_del(&m, 1, 0), 0);
	hmap_release(&m);
}

/* Thread ids: 200,000 come and go, at most 50 alive at once. The table
 * stays the size of 50, not of every key it held. */
Test(hmap, churn_stays_small)
{
	struct hmap m;

	hmap_init(&m);
	for (uint64_t k = 0; k < 200000; k++) {
		*hmap_put(&m, k, 0, 0, NULL) = k;
		if (k >= 50)
			cr_assert_eq(hmap_del(&m, k - 50, 0), 1);
	}
	cr_assert_eq(m.count, 50);
	cr_assert_leq(m.cap, 128, "capacity %zu for 50 keys", m.cap);
	for (uint64_t k = 200000 - 50; k < 200000; k++)
		cr_assert_not_null(hmap_get(&m, k, 0));
	hmap_release(&m);
}
