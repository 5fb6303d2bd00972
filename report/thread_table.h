/*
 * thread_table.h: per-thread sample counts and states, for 'threads'.
 */
#ifndef REPORT_THREAD_TABLE_H
#define REPORT_THREAD_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "format/trace.h"
#include "report/profile.h"

struct thread_table_row {
	uint32_t tid;
	const char *name;      /* the latest name; borrowed from the trace */
	uint64_t samples;      /* samples that passed the filter */
	uint64_t running;      /* of those, TRACE_STATE_RUNNING */
	uint64_t waiting;      /* sleeping, disk wait, stopped, other */
	uint64_t first, last;  /* first and last sample time; valid if samples */
	int known;             /* the trace has a thread record for it */
	uint64_t start, end;   /* its lifetime (end 0: did not end) if known */
};

struct thread_table {
	struct thread_table_row *rows;
	size_t nrows;
	uint64_t samples;
};

/* Builds one row per thread of t: every thread with a sample passing f,
 * and every recorded thread that passes f's tid and name filters (any of
 * its names matching) even without samples. Rows are sorted by samples,
 * most first, then by tid. Returns 0; release with thread_table_release(). */
int thread_table_build(const struct trace *t, const struct profile_filter *f,
		       struct thread_table *out);
void thread_table_release(struct thread_table *tt);

#endif
