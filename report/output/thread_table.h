/*
 * thread_table.h: per-thread sample counts, states and timelines, for
 * 'threads' and its --split index.
 */
#ifndef REPORT_THREAD_TABLE_H
#define REPORT_THREAD_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "format/trace.h"
#include "report/model/stacks.h"

/* Which samples count, and what to keep of them. Everything is borrowed. */
struct thread_table_opts {
	struct stacks_filter filter;
	unsigned nbins;        /* timeline slots per row, at most; fewer if
	                        * the span holds fewer than two sampling
	                        * periods per slot; 0: no timeline */
};

/* The samples of one thread in one slot of the timeline, by state. */
struct thread_table_bin {
	uint32_t running;      /* TRACE_STATE_RUNNING (saturating) */
	uint32_t waiting;      /* sleeping, disk wait, stopped, other */
	uint32_t preempted;    /* TRACE_STATE_PREEMPTED */
	uint32_t unknown;      /* no state recorded */
};

struct thread_table_row {
	uint32_t process;      /* its process, an index in the trace's */
	uint32_t tid;
	const char *name;      /* the latest name; borrowed from the trace */
	uint64_t samples;      /* samples that passed the filter */
	uint64_t running;      /* of those, TRACE_STATE_RUNNING */
	uint64_t waiting;      /* sleeping, disk wait, stopped, other */
	uint64_t preempted;    /* TRACE_STATE_PREEMPTED */
	uint64_t first, last;  /* first and last sample time; valid if samples */
	int known;             /* the trace has a thread record for it */
	uint64_t start, end;   /* its lifetime (end 0: did not end) if known */
	struct thread_table_bin *bins; /* nbins slots, or NULL without samples */
};

struct thread_table {
	struct thread_table_row *rows;
	size_t nrows;
	uint64_t samples;
	/* The timeline: slot i of nbins covers the trace times from
	 * span_from + i * (span_to - span_from) / nbins on. The span is the
	 * recording (start to end, or to the last sample if it did not
	 * end), cut to --from and --to. nbins is 0 without a timeline. */
	unsigned nbins;
	uint64_t span_from, span_to;
};

/* Builds one row per thread of st's trace: every thread with a sample
 * passing o's filter, and every recorded thread that passes the filter's
 * tid and name filters (any of its names matching) even without samples.
 * Rows are sorted by samples, most first, then by tid. Release with
 * thread_table_release(). */
void thread_table_build(struct stacks *st, const struct thread_table_opts *o,
			struct thread_table *out);
void thread_table_release(struct thread_table *tt);

/* Writes tt as the 'threads' table to f: a heading, one line per row
 * (tid, name escaped for a terminal and cut to 32 columns, samples, the
 * share running, waiting and preempted, the first and last sample, the thread's
 * start and end), and a closing count line. Times are seconds since t's
 * start. Returns 0, or -EIO if f reports an error. */
int thread_table_write(FILE *f, const struct trace *t, const struct thread_table *tt);
/* Writes tt as the JSON document of 'threads --json' (prof-json(5)): the
 * schema version, the samples, and one object per row in the table's
 * order, with its pid, tid, name as written (json_string()), the sample
 * counts by state and the four times in seconds since t's start, or null.
 * Returns 0, or -EIO if f reports an error. */
int thread_table_write_json(FILE *f, const struct trace *t, const struct thread_table *tt);
/* Appends ns as seconds since t's start ("1.250", "-0.002"), or "-" if
 * not valid. */
void thread_table_add_time(struct buf *b, const struct trace *t, int valid, uint64_t ns);
/* Appends part as a percentage of whole ("12.5%"), or "-" if whole is 0. */
void thread_table_add_share(struct buf *b, uint64_t part, uint64_t whole);

/* A file name stem for a thread that is safe in any directory and unique
 * per tid: "TID-NAME" with every byte of name that is not an ASCII letter,
 * digit, '.', '_' or '-' replaced by '_' and name cut to 48 bytes, or just
 * "TID" if name is empty or NULL. It never contains '/', never starts with
 * '.', and two tids never give the same stem (the tid ends at the first
 * '-'). Caller frees. */
char *thread_table_file_stem(uint32_t tid, const char *name);

#endif
