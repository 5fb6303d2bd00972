/*
 * annotate: one function, loops, whose time divides 75/25 between two
 * loops, each on a line of its own, for prof-report annotate's test:
 *
 *   main -> run -> loops   line LOOP_A: 3n rounds of x = x * K + C
 *                          line LOOP_B:  n rounds of the same, in
 *                                        [mix_step], inlined here
 *
 * A round is one multiply and one add on a dependency chain, as long in
 * both loops, so 3n rounds take three times as long as n. The empty asm
 * after each round makes x a register the compiler knows nothing about:
 * it can neither fold rounds together, vectorize, nor merge the loops.
 * mix_step is always_inline, so its code sits in loops with DWARF that
 * names it inlined at LOOP_B's line. n is drawn anew for each call, 0.5
 * to 1.5 times its mean, so that a call's length does not keep step with
 * the sampling period (split.c says why).
 *
 * tests/e2e/test_annotate.sh finds the lines by the markers in their
 * comments; keep each loop, its marker and nothing else on its line.
 */
#include "fixture.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* One round: the multiply and add, then a register the compiler must
 * take as changed. */
#define ROUND(x) do { (x) = (x) * 6364136223846793005u + 1442695040888963407u; \
		      __asm__ volatile("" : "+r"(x)); } while (0)

ALWAYS_INLINE uint64_t mix_step(uint64_t x)
{
	ROUND(x);
	return x;
}

NOINLINE static uint64_t loops(uint64_t x, uint64_t n)
{
	for (uint64_t i = 0; i < 3 * n; i++) ROUND(x); /* LOOP_A */
	for (uint64_t i = 0; i < n; i++) x = mix_step(x); /* LOOP_B */
	return x;
}

/* 20000 to 60000 rounds for LOOP_B, from the seed's high bits: a call
 * takes 0.1 to 0.4 ms. */
static uint64_t rounds(uint64_t seed) { return 20000 + (seed >> 40) % 40001; }

NOINLINE static uint64_t run(uint64_t deadline, uint64_t units)
{
	uint64_t x = 1, done = 0;

	while (units ? done < units : fixture_now_ns() < deadline) {
		x = loops(x, rounds(x));
		done++;
	}
	return x;
}

int main(int argc, char **argv)
{
	uint64_t units, deadline = fixture_args(argc, argv, &units);
	uint64_t t0 = fixture_now_ns();

	fixture_sink(run(deadline, units));
	printf("annotate: work took %.3f s\n", (double)(fixture_now_ns() - t0) / 1e9);
	return 0;
}
