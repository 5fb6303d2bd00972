/*
 * timing.c: per-stage clocks, for PROF_REPORT_TIMING.
 *
 * A thread's time belongs to its current stage; entering another stage
 * first adds the time since the last switch to the one being left. The
 * sums are shared by the threads, so they are added atomically; the
 * current stage and the time of the last switch are each thread's own.
 * The line is printed by an exit handler, so a command's own exit paths
 * need nothing.
 */
#include "timing.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static int enabled;
static _Atomic uint64_t spent[TIMING__N];
static uint64_t started;
static _Thread_local int current;
static _Thread_local uint64_t since;

static const char *const names[TIMING__N] = {
	[TIMING_OTHER] = "other",
	[TIMING_OPEN] = "open",
	[TIMING_LOCATE] = "locate",
	[TIMING_SYMBOLS] = "symbols",
	[TIMING_DECOMPRESS] = "decompress",
	[TIMING_INDEX] = "index",
	[TIMING_UNITS] = "units",
	[TIMING_LOOKUP] = "lookups",
	[TIMING_PROFILE] = "profile",
	[TIMING_OUTPUT] = "output",
	[TIMING_RELEASE] = "release",
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void report(void)
{
	struct rusage ru;
	uint64_t end = now_ns();

	timing_enter(TIMING_OTHER);
	fprintf(stderr, "prof-report: timing:");
	for (int i = 1; i < TIMING__N; i++)
		fprintf(stderr, " %s %.6f s,", names[i], (double)atomic_load(&spent[i]) / 1e9);
	fprintf(stderr, " %s %.6f s; total %.6f s", names[TIMING_OTHER],
		(double)atomic_load(&spent[TIMING_OTHER]) / 1e9, (double)(end - started) / 1e9);
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		fprintf(stderr, ", peak RSS %ld KiB", ru.ru_maxrss);
	fputc('\n', stderr);
}

void timing_init(void)
{
	const char *e = getenv("PROF_REPORT_TIMING");

	if (!e || !e[0] || !strcmp(e, "0"))
		return;
	enabled = 1;
	started = since = now_ns();
	current = TIMING_OTHER;
	atexit(report);
}

int timing_enter(int stage)
{
	int prev = current;
	uint64_t t;

	if (!enabled)
		return prev;
	t = now_ns();
	/* A thread's first switch starts its clock. */
	if (since)
		atomic_fetch_add(&spent[prev], t - since);
	since = t;
	current = stage;
	return prev;
}

void timing_leave(int prev)
{
	timing_enter(prev);
}
