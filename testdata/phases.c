#define _GNU_SOURCE
/*
 * phases: three threads, one after another, each alone in the process
 * while it runs, for the time-range tests of the HTML page.
 *
 *   "one"    (the main thread) spins in phase_one, starts "two" and ends;
 *   "two"    spins in phase_two, starts "three" and ends;
 *   "three"  spins in phase_three and ends the process.
 *
 * Each phase lasts a third of the time given (default 1.2 s). The main
 * thread ends with pthread_exit(), so the process lives on without it.
 */
#include "fixture.h"

#include <pthread.h>
#include <stdlib.h>

static uint64_t phase_ns;

/* Inlined into each phase, so each is the caller of fixture_spin; seed
 * tells their bodies apart, so no compiler folds them into one. */
static inline __attribute__((always_inline)) void spin_for(uint64_t ns, uint64_t seed)
{
	uint64_t x = seed, until = fixture_now_ns() + ns;

	while (fixture_now_ns() < until)
		x = fixture_spin(100000, x);
	fixture_sink(x);
}

NOINLINE static void phase_three(void)
{
	spin_for(phase_ns, 3);
}

NOINLINE static void phase_two(void)
{
	spin_for(phase_ns, 2);
}

NOINLINE static void phase_one(void)
{
	spin_for(phase_ns, 1);
}

static void *three(void *arg)
{
	pthread_setname_np(pthread_self(), "three");
	phase_three();
	printf("phases: done\n");
	exit(0);
	return arg;
}

static void *two(void *arg)
{
	pthread_t t;

	pthread_setname_np(pthread_self(), "two");
	phase_two();
	pthread_create(&t, NULL, three, NULL);
	pthread_detach(t);
	return arg;
}

int main(int argc, char **argv)
{
	uint64_t units, deadline = fixture_args(argc, argv, &units);
	pthread_t t;

	if (argc < 2)
		deadline = fixture_now_ns() + 1200000000ull;
	phase_ns = (deadline - fixture_now_ns()) / 3;
	pthread_setname_np(pthread_self(), "one");
	phase_one();
	pthread_create(&t, NULL, two, NULL);
	pthread_detach(t);
	pthread_exit(NULL);
}
