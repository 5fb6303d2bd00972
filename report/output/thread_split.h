/*
 * thread_split.h: 'threads --split DIR', one folded file and one flame
 * graph per thread and an index.html that links them, with a timeline of
 * when each thread ran and waited, and of the recording's marks and
 * pauses.
 *
 * Files are created only inside the directory given, through one
 * descriptor opened once, with O_CREAT|O_EXCL|O_NOFOLLOW: a symbolic link
 * or a file already there is never written through or replaced. Their
 * names come from thread_table_file_stem(), which no thread name can turn
 * into a path or make collide. The directory must be new or empty, so that
 * its index.html describes exactly the files beside it.
 */
#ifndef REPORT_THREAD_SPLIT_H
#define REPORT_THREAD_SPLIT_H

#include "common/errors.h"
#include "format/trace.h"
#include "report/output/flamegraph.h"
#include "report/model/profile.h"
#include "report/model/stacks.h"
#include "report/output/thread_table.h"

/* What goes into each thread's files. Everything is borrowed. */
struct thread_split_opts {
	/* The filters, frames and focus of every output; filter.tids is
	 * replaced by each thread's tid in turn. */
	struct profile_opts profile;
	/* The flame graph options; a NULL title becomes "NAME [TID]" and the
	 * subtitle is replaced by the thread's counts. */
	struct flamegraph_opts graph;
};

/* Creates directory path (mode 0777 less the umask) if it is missing, and
 * opens it. Returns 0 and the descriptor in *dirfd (the caller closes it),
 * THREAD_SPLIT_E_NOTEMPTY (common/errors.h: our error, so that the caller
 * can name the fix) if it holds any entry, or a negative errno. */
int thread_split_open_dir(const char *path, int *dirfd);

/* Writes, into the directory open at dirfd, for every row of tt (a table
 * of st's trace) with samples, STEM.folded and STEM.svg (STEM from
 * thread_table_file_stem()), then index.html: a table of every row,
 * linking its files, and an inline SVG timeline with one strip per row
 * from tt's bins (tt must have been built with nbins > 0 and the same
 * filters as o), with the trace's marks (lines, named where the names do
 * not run into each other) and pauses (hatched bands) within tt's span
 * over it. The output depends on nothing but its inputs. Returns 0, or a
 * negative error; then *failed (if failed is not NULL) is the name of the
 * file that could not be written, which the caller frees, or NULL. */
int thread_split_write(int dirfd, struct stacks *st, const struct thread_table *tt,
		       const struct thread_split_opts *o, char **failed);

#endif
