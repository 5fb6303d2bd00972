/*
 * frameless: a leaf without a frame of its own, called from a named
 * caller: main -> run -> frameless_caller -> frameless_leaf. The leaf is
 * built without a frame pointer (GCC at -O2 does the same to many leaves
 * on its own), so the frame-pointer walk cannot see frameless_caller from
 * the leaf's samples; the .eh_frame CFI of the leaf can.
 */
#include "fixture.h"

__attribute__((noinline, optimize("omit-frame-pointer"))) static uint64_t frameless_leaf(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

NOINLINE static uint64_t frameless_caller(uint64_t seed)
{
	volatile uint64_t keep = frameless_leaf(200000, seed);
	return keep;
}

NOINLINE static uint64_t run(uint64_t deadline, uint64_t units)
{
	uint64_t done = 0, acc = 1;

	while (units ? done < units : fixture_now_ns() < deadline) {
		acc += frameless_caller(acc);
		done++;
	}
	return acc;
}

int main(int argc, char **argv)
{
	uint64_t units, deadline = fixture_args(argc, argv, &units);
	uint64_t t0 = fixture_now_ns();

	fixture_sink(run(deadline, units));
	printf("frameless: work took %.3f s\n", (double)(fixture_now_ns() - t0) / 1e9);
	return 0;
}
