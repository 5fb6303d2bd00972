#define _GNU_SOURCE
/*
 * faults: a target that changes under the profiler, for the fault
 * injection tests (tests/e2e/test_faults.sh). The first argument says how:
 *
 *   churn N       creates N short-lived threads, eight at a time, each
 *                 spinning in churn_work for about 2 ms, then exits 0;
 *   fork S        forks; the child spins for S/2 seconds and then execs
 *                 this program as "after S/2", the parent spins for S
 *                 seconds and reaps the child, exiting with its status;
 *   thread-exec S a thread other than the main one spins for S/2 seconds
 *                 and then execs this program as "after S/2" while the
 *                 main thread spins too;
 *   after S       spins for S seconds in after_exec and exits 0;
 *   exit S        four threads spin; after S seconds the main thread
 *                 calls exit(0) while they run;
 *   segv S        the same, but the main thread then dies of SIGSEGV;
 *   garbage-fp S  spins for S seconds in garbage_fp with the frame
 *                 pointer (x86_64 rbp) set to an unmapped address;
 *   naps S        a thread named "napper" sleeps 10 ms and spins 2 ms in
 *                 turn for S seconds, and prints how long it was asleep
 *                 ("faults: naps done, asleep A s of W s"): the time
 *                 wall mode must count it waiting.
 *
 * Each prints "faults: MODE done" when its work is done (for "segv", just
 * before the fault), so a test can tell a target that finished from one
 * that was killed or left stopped.
 */
#include "fixture.h"

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static double seconds;
static char *self;

NOINLINE static void spin_for(double s)
{
	uint64_t until = fixture_now_ns() + (uint64_t)(s * 1e9), x = 1;

	while (fixture_now_ns() < until)
		x = fixture_spin(10000, x);
	fixture_sink(x);
}

NOINLINE static void churn_work(void)
{
	spin_for(0.002);
	fixture_sink(0); /* not a tail call: churn_work keeps its frame */
}

static void *churn_thread(void *arg)
{
	churn_work();
	return arg;
}

NOINLINE static int churn(int n)
{
	pthread_t t[8];
	int made = 0;

	while (made < n) {
		int k = n - made < 8 ? n - made : 8;
		for (int i = 0; i < k; i++)
			if (pthread_create(&t[i], NULL, churn_thread, NULL) != 0)
				return 1;
		for (int i = 0; i < k; i++)
			pthread_join(t[i], NULL);
		made += k;
	}
	printf("faults: churn done (%d threads)\n", made);
	return 0;
}

static void exec_after(double s)
{
	char arg[32];

	snprintf(arg, sizeof(arg), "%g", s);
	fflush(stdout);
	execl(self, self, "after", arg, (char *)NULL);
	perror("faults: execl");
	_exit(127);
}

NOINLINE static void after_exec(void)
{
	spin_for(seconds);
	fixture_sink(0);
}

NOINLINE static int forked(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return 1;
	if (pid == 0) {
		spin_for(seconds / 2);
		exec_after(seconds / 2);
	}
	spin_for(seconds);
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	printf("faults: fork done (child status %d)\n", status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static void *exec_thread(void *arg)
{
	spin_for(seconds / 2);
	exec_after(seconds / 2);
	return arg;
}

NOINLINE static int thread_exec(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, exec_thread, NULL) != 0)
		return 1;
	spin_for(seconds * 2);
	/* Not reached: the exec ends this thread. */
	return 1;
}

static void *spinner(void *arg)
{
	spin_for(3600);
	return arg;
}

NOINLINE static void main_dies(int segv)
{
	pthread_t t;

	for (int i = 0; i < 4; i++)
		pthread_create(&t, NULL, spinner, NULL);
	spin_for(seconds);
	printf("faults: %s done\n", segv ? "segv" : "exit");
	fflush(stdout);
	if (segv)
		*(volatile int *)0 = 1;
	exit(0);
}

/* The loop runs with rbp pointing nowhere, so neither the frame-pointer
 * walk nor the CFI (whose CFA here is rbp-based) can leave it. */
NOINLINE static void garbage_fp(void)
{
	uint64_t until = fixture_now_ns() + (uint64_t)(seconds * 1e9);

	while (fixture_now_ns() < until) {
#ifdef __x86_64__
		__asm__ volatile("mov %%rbp, %%r11\n\t"
				 "movabs $0x5a5a5a5a5a5a5a50, %%rbp\n\t"
				 "mov $100000, %%ecx\n"
				 "1:\n\t"
				 "dec %%ecx\n\t"
				 "jnz 1b\n\t"
				 "mov %%r11, %%rbp"
				 ::: "rcx", "r11", "cc", "memory");
#else
		fixture_sink(fixture_spin(10000, 1));
#endif
	}
	printf("faults: garbage-fp done\n");
}

/* The time asleep, measured around each nanosleep: the thread is off
 * the CPU from just after the first clock read to just before the
 * second, so this is its time off the CPU within a few microseconds a
 * nap. */
static void *napper(void *arg)
{
	uint64_t start = fixture_now_ns(), until = start + (uint64_t)(seconds * 1e9), asleep = 0;
	struct timespec nap = { 0, 10 * 1000000 };

	pthread_setname_np(pthread_self(), "napper");
	while (fixture_now_ns() < until) {
		uint64_t t0 = fixture_now_ns();
		nanosleep(&nap, NULL);
		asleep += fixture_now_ns() - t0;
		spin_for(0.002);
	}
	printf("faults: naps done, asleep %.6f s of %.6f s\n", asleep / 1e9, (fixture_now_ns() - start) / 1e9);
	return arg;
}

NOINLINE static int naps(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, napper, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	self = argv[0];
	seconds = argc > 2 ? atof(argv[2]) : 1.0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "churn"))
		return churn(argc > 2 ? atoi(argv[2]) : 500);
	if (!strcmp(mode, "fork"))
		return forked();
	if (!strcmp(mode, "thread-exec"))
		return thread_exec();
	if (!strcmp(mode, "after")) {
		after_exec();
		printf("faults: after done\n");
		return 0;
	}
	if (!strcmp(mode, "garbage-fp")) {
		garbage_fp();
		return 0;
	}
	if (!strcmp(mode, "naps"))
		return naps();
	if (!strcmp(mode, "exit") || !strcmp(mode, "segv"))
		main_dies(!strcmp(mode, "segv"));
	fprintf(stderr, "usage: faults churn|fork|thread-exec|after|exit|segv|garbage-fp|naps [N|SECONDS]\n");
	return 2;
}
