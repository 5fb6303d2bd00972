/*
 * busy: many threads that all compute and nap ("-j", default 500). Each
 * spins about a third of a millisecond, then sleeps 1 ms, so that with
 * more threads than CPUs every CPU stays busy and most threads wait for
 * one: what a profiler attached with -p to a loaded process of hundreds
 * of threads faces. It prints "ready" once every thread is running, then
 * runs for SECONDS, or until killed without it ("busy -j 1000"), and
 * reports its units (a spin and a nap) when the time is up.
 */
#include "workload.h"

#include <unistd.h>

static struct workload w;
static volatile uint64_t units;

NOINLINE static uint64_t busy_spin(uint64_t x) { return fixture_spin(100000, x); }

static void *busy(void *arg)
{
	struct timespec nap = { 0, 1000000 };
	uint64_t x = (uintptr_t)arg;

	for (;;) {
		x = busy_spin(x);
		__atomic_add_fetch(&units, 1, __ATOMIC_RELAXED);
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int forever = argc < 2 || strcmp(argv[1], "-j") == 0;

	workload_start(&w, argc, argv, 500);
	for (uintptr_t i = 0; i < w.threads; i++)
		if (pthread_create(&th, NULL, busy, (void *)i) != 0) {
			perror("busy: pthread_create");
			return 1;
		}
	printf("busy: ready, %u threads\n", w.threads);
	fflush(stdout);
	w.t0 = fixture_now_ns();
	while (forever || workload_more(&w, units, w.units))
		usleep(10000);
	workload_done(&w, "busy", units);
	_exit(0);  /* the threads never end */
}
