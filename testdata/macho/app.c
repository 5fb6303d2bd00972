/*
 * app.c: the Mach-O fixture program, built for arm64 and x86_64. Its call
 * structure is fixed so that a test can put a sample in each function and
 * know the answer:
 *
 *   main -> run -> path_a -> step -> mix    (step and mix inlined into path_a)
 *   main -> run -> path_b -> mix            (mix inlined into path_b)
 *   main -> run -> path_b -> lib_work       (in libwork.dylib on arm64)
 *
 * The noinline functions keep their frames; the static inline ones become
 * DW_TAG_inlined_subroutine entries at -O1, which the fixture rules check.
 */
#include "macho_fixture.h"

static volatile unsigned sink;

static inline unsigned mix(unsigned x)
{
	return (x * 2654435761u) ^ (x >> 13);
}

static inline unsigned step(unsigned x)
{
	return mix(x + 1) + sink;
}

NOINLINE unsigned path_a(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink = step(i);
	return sink;
}

NOINLINE unsigned path_b(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink = mix(i);
	return sink + lib_work(n);
}

NOINLINE unsigned run(unsigned n)
{
	return path_a(3 * n) + path_b(n);
}

int main(void)
{
	return (int)(run(1000) & 0x7f);
}
