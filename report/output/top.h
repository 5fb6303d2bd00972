/*
 * top.h: the function table of 'prof-report top', from a profile.
 *
 * Each row is a group of frames, by default one function name, with two
 * counts: self, the samples whose leaf frame is in the group (where the
 * time was spent), and total, the samples with a frame of the group
 * anywhere in their stack (the time spent in it and in what it called).
 * A group that appears more than once in a stack (recursion, or two
 * functions of one image) counts once in that stack's total, so no total
 * exceeds the number of samples.
 *
 * The root frame (the process) and the thread frames are not functions
 * and are not counted; a sample whose stack has no other frame counts only
 * in the table's sample total, so the self column may sum to less than it.
 */
#ifndef REPORT_TOP_H
#define REPORT_TOP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/model/profile.h"

/* What a row groups. TOP_GROUP_NAME is one frame name: a function, or
 * "FUNCTION (FILE:LINE)" in a profile symbolized with lines, which groups
 * by source line; with merge_anon, every unnamed frame of anonymous memory
 * (its name only its address) is one row, TOP_ANON, as perf shows such
 * code as [unknown]. TOP_GROUP_IMAGE is the
 * image label of each frame's name (profile_frame_info()); code that no
 * file holds is TOP_JIT where a code range of the trace names it (JIT
 * code, by the runtime's perf map or jitdump) and TOP_ANON where none does
 * (anonymous memory, such as JIT code nothing named), and "[unknown]" is
 * left for a frame of no image and no address (none the report makes). */
enum top_group { TOP_GROUP_NAME, TOP_GROUP_IMAGE };

#define TOP_ANON "[anon]"
#define TOP_JIT "[jit]"

/* The order of the rows: self or total descending, or name ascending;
 * ties broken by name (bytewise), so the order is total and deterministic. */
enum top_sort { TOP_SORT_SELF, TOP_SORT_TOTAL, TOP_SORT_NAME };

struct top_opts {
	int group;           /* enum top_group */
	int sort;            /* enum top_sort */
	size_t skip;         /* leading frames that are not functions: 1 for
	                      * the root, 2 with thread frames */
	int merge_anon;      /* by function or line, every unnamed frame of
	                      * anonymous memory is one row, TOP_ANON (a
	                      * profile of profile_build() only; top sets it
	                      * but with --addresses) */
};

struct top_row {
	const char *name;    /* the group: borrowed from the profile, or a
	                      * static "[unknown]", TOP_ANON or TOP_JIT */
	uint64_t self, total;
};

struct top {
	struct top_row *rows;
	size_t nrows;
	uint64_t samples;    /* the profile's samples: the 100% of the percents */
};

/* Builds the table of p under o (NULL: by name, sorted by self, skipping
 * the root), sorted. Names are borrowed from p, which must outlive out.
 * Release with top_release(). */
void top_build(const struct profile *p, const struct top_opts *o, struct top *out);
void top_release(struct top *t);

/* Writes t to f as a table: a heading line, one line per row (only the
 * first limit rows if limit is not 0), and a closing line with the sample
 * and row counts. heading titles the name column ("FUNCTION", "IMAGE",
 * "LINE"); noun is what a row is, singular ("function"), for the closing
 * line. Names are escaped for a terminal (common/text.h). Returns 0, or
 * -EIO if f reports an error. */
int top_write(FILE *f, const struct top *t, size_t limit, const char *heading,
	      const char *noun);
/* Writes t to f as top's JSON document (prof-json(5)): the schema
 * version, group (what a row is: "function", "image" or "line"), the
 * samples, the row count, and the rows (only the first limit if limit is
 * not 0), each with its name as written (json_string()), self and total
 * samples and shares. Returns 0, or -EIO if f reports an error. */
int top_write_json(FILE *f, const struct top *t, size_t limit, const char *group);

#endif
