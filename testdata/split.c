/*
 * split: one thread whose time divides 75/25 between two call paths,
 * main -> run -> path_a -> spin and main -> run -> path_b -> spin.
 *
 * Each unit of work is three calls to path_a and one to path_b of the same
 * cost, so a correct profiler sees 75% of samples under path_a. A last
 * argument after the time or the units sets the calls to path_a per call
 * to path_b: "split 1 2" spends two thirds in path_a, so that a diff has a
 * known change to find.
 */
#include "fixture.h"

NOINLINE static uint64_t path_a(uint64_t seed) { return fixture_spin(200000, seed) + 1; }
NOINLINE static uint64_t path_b(uint64_t seed) { return fixture_spin(200000, seed) + 2; }

NOINLINE static uint64_t run(uint64_t deadline, uint64_t units, unsigned a_calls)
{
	uint64_t x = 1, done = 0;

	while (units ? done < units : fixture_now_ns() < deadline) {
		for (unsigned i = 0; i < a_calls; i++)
			x = path_a(x);
		x = path_b(x);
		done++;
	}
	return x;
}

int main(int argc, char **argv)
{
	uint64_t units, deadline = fixture_args(argc, argv, &units);
	uint64_t t0 = fixture_now_ns();
	int last = units ? 3 : 2;
	unsigned a_calls = argc > last ? (unsigned)strtoul(argv[last], NULL, 10) : 3;

	fixture_sink(run(deadline, units, a_calls));
	printf("split: work took %.3f s\n", (double)(fixture_now_ns() - t0) / 1e9);
	return 0;
}
