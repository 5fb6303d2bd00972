/*
 * split: one thread whose time divides 75/25 between two call paths,
 * main -> run -> path_a -> spin and main -> run -> path_b -> spin.
 *
 * Each unit of work is three calls to path_a and one to path_b of the same
 * cost, so a correct profiler sees 75% of samples under path_a. A last
 * argument after the time or the units sets the calls to path_a per call
 * to path_b: "split 1 2" spends two thirds in path_a, so that a diff has a
 * known change to find.
 *
 * A call's length varies, 0.5 to 1.5 times the mean, drawn the same way for
 * both paths: a unit takes about 1 ms, and were it always the same, on a
 * machine where it equals the sampling period every tick would land at the
 * same place in the unit (path_a had 86% of a run so).
 */
#include "fixture.h"

/* 100000 to 300000 steps, from the seed's high bits, which the generator
 * in fixture_spin mixes best. */
static uint64_t steps(uint64_t seed) { return 100000 + (seed >> 40) % 200001; }

NOINLINE static uint64_t path_a(uint64_t seed) { return fixture_spin(steps(seed), seed) + 1; }
NOINLINE static uint64_t path_b(uint64_t seed) { return fixture_spin(steps(seed), seed) + 2; }

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
