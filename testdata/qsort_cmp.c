/*
 * qsort_cmp: a comparator called from the C library's qsort, which is
 * built without frame pointers on Debian: main -> run -> sort_keys ->
 * qsort -> (libc, frameless) -> qsort_compare. The comparator itself has
 * no frame either, so every sample in it needs .eh_frame CFI for the leaf
 * and for each libc frame to reach sort_keys.
 */
#include "fixture.h"

#define N 4096

static uint64_t keys[N];

__attribute__((noinline, optimize("omit-frame-pointer"))) static int qsort_compare(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	for (int i = 0; i < 40; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		y = y * 6364136223846793005u + 1442695040888963407u;
		__asm__ volatile("" : "+r"(x), "+r"(y));
	}
	return (x > y) - (x < y);
}

NOINLINE static void sort_keys(uint64_t *seed)
{
	for (size_t i = 0; i < N; i++)
		keys[i] = *seed = *seed * 6364136223846793005u + 1442695040888963407u;
	qsort(keys, N, sizeof(*keys), qsort_compare);
	fixture_sink(keys[0]);   /* so qsort is not a tail call */
}

NOINLINE static uint64_t run(uint64_t deadline, uint64_t units)
{
	uint64_t done = 0, seed = 1;

	while (units ? done < units : fixture_now_ns() < deadline) {
		sort_keys(&seed);
		done++;
	}
	return keys[0];
}

int main(int argc, char **argv)
{
	uint64_t units, deadline = fixture_args(argc, argv, &units);
	uint64_t t0 = fixture_now_ns();

	fixture_sink(run(deadline, units));
	printf("qsort_cmp: work took %.3f s\n", (double)(fixture_now_ns() - t0) / 1e9);
	return 0;
}
