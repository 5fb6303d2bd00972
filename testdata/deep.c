/*
 * deep: recursion 10,000 frames deep, spinning at the bottom: main -> run
 * -> deep_down x 10000 -> fixture_spin. A recorder's --max-depth must cut
 * these stacks cleanly and mark them truncated, without a crash or a hang.
 */
#include "fixture.h"

#define DEPTH 10000

NOINLINE static uint64_t deep_down(int n, uint64_t seed)
{
	volatile uint64_t pad = seed;   /* a frame per level, no tail call */

	if (n == 0)
		return fixture_spin(5000000, seed);
	return deep_down(n - 1, seed + 1) + pad;
}

NOINLINE static uint64_t run(uint64_t deadline, uint64_t units)
{
	uint64_t done = 0, acc = 1;

	while (units ? done < units : fixture_now_ns() < deadline) {
		acc += deep_down(DEPTH, acc);
		done++;
	}
	return acc;
}

int main(int argc, char **argv)
{
	uint64_t units, deadline = fixture_args(argc, argv, &units);
	uint64_t t0 = fixture_now_ns();

	fixture_sink(run(deadline, units));
	printf("deep: work took %.3f s\n", (double)(fixture_now_ns() - t0) / 1e9);
	return 0;
}
