/*
 * annotate.h: the samples of each function by source line and by
 * address, for 'prof-report annotate'.
 *
 * A function here is the code of one concrete (out-of-line) function of
 * one build: every address whose frames end in it, with the code inlined
 * into it. Its self samples are those whose leaf is in that code, as
 * 'top' counts them for the leaf frame; its total samples those with an
 * address of it anywhere in the stack, once a stack. The frame [kernel]
 * and addresses that nothing names are no function.
 *
 * Each address of a stack gives the function's line there: the line
 * itself in code of the function's own, or the call that inlined the
 * code there, under which the inlined function's line is a site of its
 * own, and so on down the inline chain, as pprof's list and perf annotate
 * show inlined code. A site counts a sample's stack once in its total,
 * and in its self if the stack's leaf is at or under it. Each address
 * counts the same way; a return address is counted at the byte before it
 * (inside its call instruction), the address that was looked up.
 */
#ifndef REPORT_ANNOTATE_H
#define REPORT_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>

#include "common/progress.h"
#include "report/model/stacks.h"

#define ANNOTATE_NONE SIZE_MAX

struct annotate_site {
	const char *function;     /* the function the line is in: the
	                           * annotated one, or one inlined into it */
	const char *file;         /* NULL if unknown */
	const uint8_t *md5;       /* the file's MD5 its DWARF gives, or NULL */
	uint32_t line;            /* 0 if the line table gives none */
	uint64_t self, total;
	size_t parent;            /* the site (an index in the function's
	                           * sites) whose line inlined this one, or
	                           * ANNOTATE_NONE for a line of its own */
	uint64_t last;            /* the build's: the stack counted last */
};

struct annotate_addr {
	uint64_t at;              /* link-time address (raw, for code in no image) */
	uint64_t self, total;
	uint64_t last;            /* the build's */
};

struct annotate_fn {
	const char *name;
	const char *image_label;  /* the image's IMAGE, or "[jit]" */
	long image;               /* an image of the trace that holds it, or -1 */
	uint64_t self, total;
	struct annotate_site *sites; /* parents before their children */
	size_t nsites;
	struct annotate_addr *addrs; /* ascending by at */
	size_t naddrs;
	uint64_t last;            /* the build's */
};

struct annotate {
	struct annotate_fn *fns;  /* in the order first met */
	size_t nfns;
	uint64_t samples;         /* the samples that passed the filter */
};

/* Counts the samples of st that pass f into out, by function, site and
 * address; the frames are st's (names, files and lines borrowed from its
 * symbolizer, which must outlive out). progress, if not NULL, hears the
 * phases "folding" (samples) and "symbolizing" (stacks). Release with
 * annotate_release(). */
void annotate_build(struct stacks *st, const struct stacks_filter *f, struct progress *progress,
		    struct annotate *out);
void annotate_release(struct annotate *a);

/* The order of functions in a report: self descending, then total
 * descending, then name. For qsort() over struct annotate_fn pointers. */
int annotate_cmp_hot(const void *a, const void *b);

#endif
