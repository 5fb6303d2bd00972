/*
 * profile.h: a trace, filtered and symbolized, as weighted stacks.
 *
 * The model every output is written from: a list of distinct stacks of
 * frame names, root first, each with the number of samples that had it.
 * The root frame is the process name (the basename of argv[0], or "pid N"
 * if there is no command line); with process_frames, a frame "NAME [PID]"
 * (the same name, and the process's pid) follows the root, then with
 * thread_frames a frame "NAME [TID]" (the thread's name when sampled). Stacks are compared
 * by name, never by address, so two addresses in one function merge.
 *
 * The list is sorted frame by frame, root first, bytewise (a stack sorts
 * before its extensions), and has no duplicates, so the same trace and
 * options always give the same profile.
 *
 * The samples are those report/model/stacks.h's filter keeps, and the names
 * those it gives each node, so a filter and a name mean the same here as
 * in every other output.
 */
#ifndef REPORT_PROFILE_H
#define REPORT_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/progress.h"
#include "format/trace.h"
#include "report/model/stacks.h"
#include "report/symbols/symbolize.h"

struct profile_opts {
	struct stacks_filter filter;
	int process_frames;       /* insert "NAME [PID]" under the root */
	int thread_frames;        /* insert "NAME [TID]" under the root (and
	                           * the process frame) */
	struct progress *progress; /* hears the phases "folding" (samples) and
	                           * "symbolizing" (stacks), or NULL */
	/* Optional: told of each sample the filter keeps, with the number of
	 * its key (its stack as shown and its root and thread frames), keys
	 * numbered from 0 in order of first use; profile.key_stacks maps a
	 * key to its stack once the profile is built. */
	void (*sample)(void *ctx, const struct trace_sample *s, size_t key);
	void *ctx;
};

struct profile_stack {
	const char **frames;      /* root first; borrowed (see profile_build) */
	size_t nframes;
	uint64_t count;
	size_t key;               /* the first key (see sample) it has */
};

struct profile {
	struct profile_stack *stacks;
	size_t nstacks;
	uint64_t samples;         /* the sum of the counts: the samples that
	                           * passed the filter, focus and exclude */
	size_t *key_stacks;       /* with a sample callback: per key, the
	                           * index of its stack in stacks; else NULL */
};

/* What is known of a frame name, from its first occurrence: for colouring
 * by image or language. */
struct profile_frame_info {
	const char *image;        /* the image's label, or NULL if none */
	int lang;                 /* enum symbolize_lang */
	int resolved;             /* named by DWARF or a symbol table */
	int inlined;              /* inlined into its caller */
	int region;               /* enum trace_region of its address: in a
	                           * file, in a named code range (JIT), or in
	                           * anonymous memory; [kernel] is an image's */
};

/* The info of frame name (compared by content), or NULL for the root and
 * thread frames and names the profile's stacks do not have. Borrowed
 * until profile_free(). */
const struct profile_frame_info *profile_frame_info(const struct profile *p, const char *name);

/* Builds the profile of the samples of st's trace that pass o's filter,
 * named by st (which must outlive the profile: frame names are borrowed
 * from its symbolizer or owned by the profile). The caller frees it with
 * profile_free(). */
struct profile *profile_build(struct stacks *st, const struct profile_opts *o);
void profile_free(struct profile *p);

/* How many frames, from the root, stacks a and b have alike: a sorted
 * profile's stacks share that many with the one before, which is how
 * the trees of its frames are built in one pass. */
size_t profile_common_frames(const struct profile_stack *a, const struct profile_stack *b);

#endif
