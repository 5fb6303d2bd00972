#define _GNU_SOURCE
/*
 * threads: several named threads with different behaviour, for thread
 * naming, state and per-thread tests.
 *
 *   "compute"  spins all the time in compute_loop (renamed "compute-2"
 *              halfway through, to test renames);
 *   "sleeper"  spins in sleeper_work for 20 ms, then sleeps 20 ms;
 *   "blocked"  blocks in blocked_wait on a pipe nobody writes to.
 *
 * The main thread sleeps until the deadline and then exits.
 */
#include "fixture.h"

#include <pthread.h>
#include <unistd.h>

static uint64_t deadline;
static int never_written[2];

NOINLINE static void compute_loop(void)
{
	uint64_t x = 1, half = fixture_now_ns() + (deadline - fixture_now_ns()) / 2;
	int renamed = 0;

	while (fixture_now_ns() < deadline) {
		x = fixture_spin(100000, x);
		if (!renamed && fixture_now_ns() > half) {
			pthread_setname_np(pthread_self(), "compute-2");
			renamed = 1;
		}
	}
	fixture_sink(x);
}

NOINLINE static void sleeper_work(void)
{
	uint64_t x = 1, until = fixture_now_ns() + 20000000;

	while (fixture_now_ns() < until)
		x = fixture_spin(100000, x);
	fixture_sink(x);
}

static void *compute(void *arg)
{
	pthread_setname_np(pthread_self(), "compute");
	compute_loop();
	return arg;
}

static void *sleeper(void *arg)
{
	pthread_setname_np(pthread_self(), "sleeper");
	while (fixture_now_ns() < deadline) {
		sleeper_work();
		usleep(20000);
	}
	return arg;
}

NOINLINE static void blocked_wait(void)
{
	char c;
	if (read(never_written[0], &c, 1) < 0)
		perror("read");
}

static void *blocked(void *arg)
{
	pthread_setname_np(pthread_self(), "blocked");
	blocked_wait();
	return arg;
}

int main(int argc, char **argv)
{
	uint64_t units;
	pthread_t t[3];

	deadline = fixture_args(argc, argv, &units);
	if (pipe(never_written) < 0)
		return 1;
	pthread_create(&t[0], NULL, compute, NULL);
	pthread_create(&t[1], NULL, sleeper, NULL);
	pthread_create(&t[2], NULL, blocked, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("threads: done\n");
	return 0; /* exits with "blocked" still blocked */
}
