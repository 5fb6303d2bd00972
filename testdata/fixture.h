/*
 * fixture.h: the few helpers every fixture program shares.
 *
 * Fixtures have a known call structure, so an end-to-end test can assert on
 * the folded output. Each runs for a number of seconds given as argv[1] (or
 * a fixed amount of work with "-n UNITS") and prints how long its work took,
 * which is how the slowdown under a profiler is measured from the target
 * itself.
 */
#ifndef TESTDATA_FIXTURE_H
#define TESTDATA_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static inline uint64_t fixture_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A sink the optimiser cannot see through, so loops are not deleted and the
 * functions that call it keep their frames. */
static volatile uint64_t fixture_sink_store;
__attribute__((noinline, unused)) static void fixture_sink(uint64_t v) { fixture_sink_store = v; }

/* Burns n rounds of arithmetic. The volatile local lives in the frame, so
 * the frame is set up on entry rather than shrink-wrapped away, and frame
 * pointer unwinding sees the caller. */
__attribute__((noinline, unused)) static uint64_t fixture_spin(uint64_t n, uint64_t seed)
{
	volatile uint64_t x = seed;
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

/* Parses argv: "SECONDS" runs until that much time has passed; "-n UNITS"
 * runs a fixed number of work units. Returns the deadline (0 if by units). */
static inline uint64_t fixture_args(int argc, char **argv, uint64_t *units)
{
	*units = 0;
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		*units = strtoull(argv[2], NULL, 10);
		return 0;
	}
	return fixture_now_ns() + (uint64_t)((argc > 1 ? atof(argv[1]) : 2.0) * 1e9);
}

#endif
