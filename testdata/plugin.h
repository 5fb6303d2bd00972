/*
 * plugin.h: the body of the two plugins that the plugins fixture loads one
 * after the other, at one address. They are the same code under two names
 * of the same length (PLUG(x) is alpha_x in one and bravo_x in the other),
 * so that each address of one is, byte for byte, the same address of the
 * other: stacks in bravo are the stacks that were in alpha.
 */
#include "fixture.h"

uint64_t PLUG(run)(uint64_t seed, uint64_t deadline);

/* Not a tail call: hot keeps its frame while fixture_spin runs. */
NOINLINE static uint64_t PLUG(hot)(uint64_t x)
{
	return fixture_spin(100000, x) ^ x;
}

uint64_t PLUG(run)(uint64_t x, uint64_t deadline)
{
	while (fixture_now_ns() < deadline)
		x = PLUG(hot)(x);
	return x;
}
