/*
 * workload.h: what the benchmark workloads share.
 *
 * Each workload times its own work, so that a profiler's start-up and
 * post-processing do not count, and prints one line:
 *
 *   NAME: UNITS units, work took SECONDS s, cpu SECONDS s
 *
 * (the second figure is the process's CPU time, all threads).
 * "SECONDS" as the argument runs for that long (which is how the harness
 * learns how many units fill a run); "-n UNITS" runs a fixed amount of
 * work, whose time under a profiler against its bare time is the slowdown.
 * An optional "-j THREADS" after either spreads the work over that many
 * threads, where the workload has threads. They build on the fixtures'
 * helpers (testdata/fixture.h), with frame pointers.
 */
#ifndef BENCH_WORKLOAD_H
#define BENCH_WORKLOAD_H

#include "testdata/fixture.h"

#include <pthread.h>
#include <sys/resource.h>

#define WORKLOAD_MAX_THREADS 64

struct workload {
	uint64_t units;         /* fixed work, or 0 to run until deadline */
	uint64_t deadline;      /* CLOCK_MONOTONIC ns, when units is 0 */
	unsigned threads;       /* -j, or the workload's default */
	uint64_t t0;
};

/* Parses "SECONDS | -n UNITS" and an optional "-j THREADS", then starts
 * the clock. */
static inline void workload_start(struct workload *w, int argc, char **argv, unsigned threads)
{
	w->deadline = fixture_args(argc, argv, &w->units);
	w->threads = threads;
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "-j") == 0 && atoi(argv[i + 1]) > 0)
			w->threads = (unsigned)atoi(argv[i + 1]);
	w->t0 = fixture_now_ns();
}

/* Whether a worker that has done `done` units of its `share` goes on. */
static inline int workload_more(const struct workload *w, uint64_t done, uint64_t share)
{
	return w->units ? done < share : fixture_now_ns() < w->deadline;
}

/* One of the threads that share the work: `share` units of it, or all it
 * can do before the deadline. */
struct workload_thread {
	pthread_t th;
	const struct workload *w;
	uint64_t share, done;
	unsigned index;
};

/* Runs fn in w->threads threads (at most WORKLOAD_MAX_THREADS), the units
 * shared equally, and returns the units they did in all. */
static inline uint64_t workload_threads(struct workload *w, void *(*fn)(void *))
{
	struct workload_thread k[WORKLOAD_MAX_THREADS];
	uint64_t done = 0;

	if (w->threads > WORKLOAD_MAX_THREADS)
		w->threads = WORKLOAD_MAX_THREADS;
	for (unsigned i = 0; i < w->threads; i++) {
		k[i] = (struct workload_thread){ .w = w, .index = i,
			.share = w->units / w->threads + (i < w->units % w->threads) };
		pthread_create(&k[i].th, NULL, fn, &k[i]);
	}
	for (unsigned i = 0; i < w->threads; i++) {
		pthread_join(k[i].th, NULL);
		done += k[i].done;
	}
	return done;
}

/* Prints the one line of results. */
static inline void workload_done(const struct workload *w, const char *name, uint64_t units)
{
	struct rusage ru;
	double wall = (double)(fixture_now_ns() - w->t0) / 1e9;

	getrusage(RUSAGE_SELF, &ru);
	printf("%s: %llu units, work took %.6f s, cpu %.6f s\n", name, (unsigned long long)units, wall,
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	fflush(stdout);
}

#endif
