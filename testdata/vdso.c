/*
 * vdso: main -> run -> clock_gettime(CLOCK_MONOTONIC) in a loop, for
 * SECONDS: the time is spent in the vDSO, whose functions a profiler can
 * name only from the vDSO's own symbol table, in the process's memory
 * (perf names them so: __vdso_clock_gettime on x86_64).
 *
 * Prints "vdso: N calls" at the end.
 */
#include "fixture.h"

NOINLINE static uint64_t run(uint64_t deadline)
{
	struct timespec ts = { 0, 0 };
	uint64_t calls = 0, sum = 0;

	do {
		for (int i = 0; i < 1000; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sum += (uint64_t)ts.tv_nsec;
		}
		calls += 1000;
	} while ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec < deadline);
	fixture_sink(sum);
	return calls;
}

int main(int argc, char **argv)
{
	uint64_t units, deadline = fixture_args(argc, argv, &units);

	printf("vdso: %llu calls\n", (unsigned long long)run(deadline ? deadline : fixture_now_ns() + units * 1000000u));
	return 0;
}
