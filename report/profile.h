/*
 * profile.h: a trace, filtered and symbolized, as weighted stacks.
 *
 * The model every output is written from: a list of distinct stacks of
 * frame names, root first, each with the number of samples that had it.
 * The root frame is the process name (the basename of argv[0], or "pid N"
 * if there is no command line); with thread_frames, a frame "NAME [TID]"
 * (the thread's name when sampled) follows the root. Stacks are compared
 * by name, never by address, so two addresses in one function merge.
 *
 * The list is sorted frame by frame, root first, bytewise (a stack sorts
 * before its extensions), and has no duplicates, so the same trace and
 * options always give the same profile.
 *
 * --focus and --exclude select whole stacks, as pprof's focus and ignore
 * do: a stack stays if one of its symbolized frames (not the root or
 * thread frame) matches focus, and goes if one matches exclude; exclude
 * wins. The frames above and below a match are kept, so a focused graph
 * still shows how the matching code was reached. The regexes are matched
 * against the frame names as shown (with --lines, "NAME (FILE:LINE)").
 */
#ifndef REPORT_PROFILE_H
#define REPORT_PROFILE_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hmap.h"
#include "format/trace.h"
#include "report/symbolize.h"

enum profile_state {
	PROFILE_STATE_ALL,     /* every sample */
	PROFILE_STATE_RUNNING, /* TRACE_STATE_RUNNING only */
	PROFILE_STATE_IDLE,    /* sleeping, disk wait, stopped or other;
	                        * samples of unknown state are in neither */
};

/* Which samples count. Everything is borrowed. An empty filter (all zero)
 * keeps every sample. */
struct profile_filter {
	const uint32_t *tids;     /* --tid: keep only these, if ntids > 0 */
	size_t ntids;
	const regex_t *thread_re; /* --thread: the name when sampled matches */
	int state;                /* enum profile_state */
	uint64_t from;            /* --from: ns since the recording started */
	uint64_t to;              /* --to: keep samples before this, if has_to */
	int has_to;
};

struct profile_opts {
	struct profile_filter filter;
	int thread_frames;        /* insert "NAME [TID]" under the root */
	const regex_t *focus;     /* --focus: keep only stacks with a frame that
	                           * matches (REG_NOSUB is enough); NULL: all */
	const regex_t *exclude;   /* --exclude: drop stacks with a frame that
	                           * matches; NULL: none */
};

struct profile_stack {
	const char **frames;      /* root first; borrowed (see profile_build) */
	size_t nframes;
	uint64_t count;
};

struct profile {
	struct profile_stack *stacks;
	size_t nstacks;
	uint64_t samples;         /* the sum of the counts: the samples that
	                           * passed the filter, focus and exclude */
};

/* What is known of a frame name, from its first occurrence: for colouring
 * by image or language. */
struct profile_frame_info {
	const char *image;        /* the image's label, or NULL if none */
	int lang;                 /* enum symbolize_lang */
	int resolved;             /* named by DWARF or a symbol table */
	int inlined;              /* inlined into its caller */
};

/* The info of frame name (compared by content), or NULL for the root and
 * thread frames and names the filtered samples never produced (a name only
 * in stacks that focus or exclude dropped may still have its info).
 * Borrowed until profile_free(). */
const struct profile_frame_info *profile_frame_info(const struct profile *p, const char *name);

/* Returns 1 if a sample of this state passes the state filter. */
int profile_state_match(int filter_state, int sample_state);
/* Returns 1 if sample s of t passes f. */
int profile_filter_match(const struct trace *t, const struct profile_filter *f,
			 const struct trace_sample *s);

/* Whether a stack whose symbolized frames (no root or thread frame) are
 * names[0..n) passes o's focus and exclude, as described above: 1 or 0.
 * memo is caller-owned (hmap_init() before, hmap_release() after) and
 * remembers what each name pointer matched, so it must only be reused with
 * the same o and names that stay valid. */
int profile_selected(const struct profile_opts *o, const char *const *names, size_t n,
		     struct hmap *memo);

/* Builds the profile of t's samples that pass o's filter, symbolized with
 * sym (which must outlive the profile: frame names are borrowed from it or
 * owned by the profile). Returns 0 and a new profile in *out; the caller
 * frees it with profile_free(). */
int profile_build(const struct trace *t, struct symbolize *sym, const struct profile_opts *o,
		  struct profile **out);
void profile_free(struct profile *p);

/* The root frame name for t: a heap string the caller frees. */
char *profile_root_name(const struct trace *t);

#endif
