/*
 * sort: one thread that sorts with the C library's qsort, whose comparator
 * does real work. glibc's qsort is a merge sort: main -> run -> qsort ->
 * msort_with_tmp (static, recursive) -> compare. Only the debug file of
 * libc names msort_with_tmp, so this is the fixture for libc6-dbg.
 */
#include "fixture.h"

#define N 4096

static uint64_t keys[N];

NOINLINE static int compare(const void *a, const void *b)
{
	uint64_t x = fixture_spin(40, *(const uint64_t *)a), y = fixture_spin(40, *(const uint64_t *)b);

	return (x > y) - (x < y);
}

NOINLINE static uint64_t run(uint64_t deadline, uint64_t units)
{
	uint64_t done = 0, seed = 1;

	while (units ? done < units : fixture_now_ns() < deadline) {
		for (size_t i = 0; i < N; i++)
			keys[i] = seed = seed * 6364136223846793005u + 1442695040888963407u;
		qsort(keys, N, sizeof(*keys), compare);
		done++;
	}
	return keys[0];
}

int main(int argc, char **argv)
{
	uint64_t units, deadline = fixture_args(argc, argv, &units);
	uint64_t t0 = fixture_now_ns();

	fixture_sink(run(deadline, units));
	printf("sort: work took %.3f s\n", (double)(fixture_now_ns() - t0) / 1e9);
	return 0;
}
