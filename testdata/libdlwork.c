/*
 * libdlwork.so: a library that the dlopen fixture loads after it starts, so
 * the recorder must notice a new image mid-capture.
 */
#include "fixture.h"

uint64_t dl_hot(uint64_t seed);

/* Not a tail call: dl_hot keeps its frame while fixture_spin runs. */
__attribute__((noinline)) uint64_t dl_hot(uint64_t seed)
{
	return fixture_spin(100000, seed) ^ seed;
}
