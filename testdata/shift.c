/*
 * shift: one thread whose time divides between main -> run -> path_a and
 * main -> run -> path_b in a proportion given on the command line, so two
 * runs can move time from one path to the other: `shift SECONDS TENTHS_A`
 * spends TENTHS_A tenths of its work in path_a and the rest in path_b.
 */
#include "fixture.h"

NOINLINE static uint64_t path_a(uint64_t seed) { return fixture_spin(100000, seed) + 1; }
NOINLINE static uint64_t path_b(uint64_t seed) { return fixture_spin(100000, seed) + 2; }

NOINLINE static uint64_t run(uint64_t deadline, unsigned tenths_a)
{
	uint64_t x = 1;

	while (fixture_now_ns() < deadline) {
		for (unsigned i = 0; i < 10; i++)
			x = i < tenths_a ? path_a(x) : path_b(x);
	}
	return x;
}

int main(int argc, char **argv)
{
	uint64_t t0 = fixture_now_ns();
	uint64_t deadline = t0 + (uint64_t)((argc > 1 ? atof(argv[1]) : 1.0) * 1e9);
	unsigned tenths_a = argc > 2 ? (unsigned)atoi(argv[2]) : 5;

	fixture_sink(run(deadline, tenths_a > 10 ? 10 : tenths_a));
	printf("shift: work took %.3f s\n", (double)(fixture_now_ns() - t0) / 1e9);
	return 0;
}
