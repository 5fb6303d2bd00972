/*
 * libwork.c: the Mach-O fixture library, a dylib on arm64 (the x86_64
 * program links it in directly):
 *
 *   lib_work -> scale        (scale inlined into lib_work)
 *   lib_work -> lib_mix      (noinline)
 */
#include "macho_fixture.h"

static volatile unsigned lib_sink;

static inline unsigned scale(unsigned x)
{
	return x * 7 + lib_sink;
}

NOINLINE unsigned lib_mix(unsigned x)
{
	lib_sink = x ^ (x << 5);
	return lib_sink;
}

unsigned lib_work(unsigned n)
{
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++)
		s += lib_mix(scale(i));
	return s;
}
