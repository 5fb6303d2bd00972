/*
 * sig: a program that does most of its work in a signal handler, the way
 * timers, watchdogs and runtimes' preemption do. A POSIX timer sends
 * SIGUSR1 every 5 ms; the handler, hx_in_handler, computes for about 3 ms
 * while main spins in hx_main_loop. A profiler that walks through the
 * signal frame sees
 *   main -> hx_main_loop -> [signal frame] -> hx_in_handler
 * in about 60% of samples; one that stops at the signal frame loses main.
 * "sig SECONDS alt" runs the handler on an alternate signal stack
 * (sigaltstack), so the walk must leave that stack for the thread's.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"

static volatile sig_atomic_t handled;

static NOINLINE void hx_in_handler(void)
{
	uint64_t end = fixture_now_ns() + 3000000;

	while (fixture_now_ns() < end)
		fixture_sink(fixture_spin(2000, end));
	handled++;
}

static void on_signal(int sig)
{
	(void)sig;
	hx_in_handler();
}

static NOINLINE void hx_main_loop(uint64_t deadline)
{
	while (fixture_now_ns() < deadline)
		fixture_sink(fixture_spin(1000, deadline));
}

int main(int argc, char **argv)
{
	uint64_t units, deadline = fixture_args(argc, argv, &units);
	struct sigaction sa;
	struct sigevent ev;
	struct itimerspec its = { .it_interval = { 0, 5000000 }, .it_value = { 0, 5000000 } };
	timer_t timer;
	stack_t alt;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	if (argc > 2 && !strcmp(argv[argc - 1], "alt")) {
		alt.ss_sp = malloc(1 << 16);
		alt.ss_size = 1 << 16;
		alt.ss_flags = 0;
		if (!alt.ss_sp || sigaltstack(&alt, NULL) < 0)
			return 1;
		sa.sa_flags = SA_ONSTACK;
	}
	sigaction(SIGUSR1, &sa, NULL);
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGUSR1;
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) < 0 || timer_settime(timer, 0, &its, NULL) < 0)
		return 1;
	if (!deadline)
		deadline = fixture_now_ns() + units * 1000000;
	hx_main_loop(deadline);
	/* No handler in the printf below: its frames are in no walk before. */
	timer_delete(timer);
	printf("sig: %d signals handled\n", (int)handled);
	return 0;
}
