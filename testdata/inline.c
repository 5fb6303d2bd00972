/*
 * inline: a call structure that is mostly inlined, for the DWARF
 * symbolizer's tests.
 *
 *   main -> run -> churn -> [mix_round -> [rotate_mix]]   two levels inlined
 *                -> settle -> [mix_round -> [rotate_mix]] the same chain
 *                           -> [fold]                     GCC inlines it
 *                -> rare_path                             a cold split
 *   main -> [fixture_args], [fixture_now_ns]              inlined from fixture.h
 *
 * Functions in [brackets] leave no out-of-line code: each address in them
 * belongs to an inline chain of two or three frames, with call sites in
 * two files. churn, settle and run are noinline, so each is a concrete
 * function. Half the units go through churn, half through settle, so a
 * profile splits 50/50 between them.
 */
#include "fixture.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

static volatile uint64_t rare_trigger;

ALWAYS_INLINE uint64_t rotate_mix(uint64_t x, unsigned r)
{
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9u;
	return (x << r) | (x >> (64 - r));
}

ALWAYS_INLINE uint64_t mix_round(uint64_t x, uint64_t k)
{
	uint64_t a = rotate_mix(x + k, 17);
	uint64_t b = rotate_mix(a ^ k, 31);
	return a + b;
}

/* Plain static, called once: GCC inlines it on its own at -O2. */
static uint64_t fold(uint64_t x, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		x = (x ^ (x >> 7)) * 31 + i;
	return x;
}

/* Cold and noinline: the call to it sits in a .text.unlikely part of its
 * caller, so the caller's range is split in two. */
__attribute__((noinline, cold)) static uint64_t rare_path(uint64_t x)
{
	fixture_sink(x);
	return x * 3;
}

NOINLINE static uint64_t churn(uint64_t x, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		x = mix_round(x, i);
		if (__builtin_expect(rare_trigger == x, 0))
			x = rare_path(x);
	}
	return x;
}

NOINLINE static uint64_t settle(uint64_t x, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		x = mix_round(x, ~i);
	return fold(x, n);
}

NOINLINE static uint64_t run(uint64_t deadline, uint64_t units)
{
	uint64_t x = 1, done = 0;

	while (units ? done < units : fixture_now_ns() < deadline) {
		x = churn(x, 100000);
		x = settle(x, 50000);
		done++;
	}
	return x;
}

int main(int argc, char **argv)
{
	uint64_t units, deadline = fixture_args(argc, argv, &units);
	uint64_t t0 = fixture_now_ns();

	fixture_sink(run(deadline, units));
	printf("inline: work took %.3f s\n", (double)(fixture_now_ns() - t0) / 1e9);
	return 0;
}
