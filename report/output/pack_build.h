/*
 * pack_build.h: making a symbol pack, where the debug files are, for the
 * machines where they are not.
 *
 * pack_build() asks the symbolizer (through report/model/stacks.h) for the
 * frames of every address the trace's samples use and keeps those it
 * could name, keyed by the image's identity and the link-time address
 * looked up (a return address minus one, as report/symbols/symbolize.h looks it
 * up). The frames are kept whole: the inline chain with files and lines,
 * and each function's name with, where it differs, its full signature,
 * whatever --lines, --no-inline or --signatures a later report asks for.
 * On request it keeps, for annotating elsewhere, the code of each function
 * the samples fall in and the source lines of every frame, with context.
 * format/trace_pack.h writes them; report/symbols/pack.h serves them.
 */
#ifndef REPORT_PACK_BUILD_H
#define REPORT_PACK_BUILD_H

#include <stddef.h>

#include "common/progress.h"
#include "format/trace_pack.h"
#include "report/symbols/pack.h"
#include "report/model/stacks.h"
#include "report/symbols/srcfile.h"

/* Lines of context stored on either side of a frame's line. */
#define PACK_BUILD_CONTEXT 5

/* What pack_build() stores, beyond the frames, and from where. */
struct pack_build_opts {
	struct pack *have;  /* what a pack already holds, left out (may be
	                     * NULL): a trace's embedded pack is never
	                     * written twice */
	struct symbolize *sym; /* the symbolizer of the stacks, whose files
	                     * give the code */
	int code;           /* pack --asm: the code of each function that
	                     * holds a named address, as the image's files
	                     * have it (its first TRACE_PACK_MAX_CODE_RANGE
	                     * bytes), and the frames of each of its
	                     * instructions, so that its lines are known */
	int sources;        /* pack --sources: the lines of every frame's file
	                     * and line, PACK_BUILD_CONTEXT either side, as the
	                     * file that source finds has them now */
	struct srcfile *source; /* finds the sources, with sources */
	struct progress *progress; /* hears how far it is, or NULL */
};

/* What pack_build() put in its pack. */
struct pack_build_stats {
	size_t images;     /* identities with at least one address */
	size_t addrs;      /* addresses */
	size_t frames;     /* frames over all addresses */
	size_t functions;  /* functions whose code was stored */
	uint64_t code_bytes;
	size_t code_missing; /* addresses whose function's code no file here
	                      * holds (or past an image's cap) */
	size_t source_files; /* files with lines stored */
	size_t source_lines;
	size_t sources_missing; /* files that frames name and that were not
	                      * found: their first in path order is
	                      * missing (caller frees), with why (borrowed
	                      * from the source finder) */
	char *missing;
	const char *missing_why;
	int sources_capped; /* the pack's cap on source text was reached, and
	                     * lines of later files were left out */
	/* Per image of the trace (caller frees both): the distinct addresses
	 * the samples use in it, and how many of them the symbolizer named
	 * (those the given pack already held included). An image with
	 * addresses of which none is named, or without an identity, is not
	 * in the pack. */
	size_t *used, *named;
};

/* Builds the pack of every address the samples of s's trace use that its
 * symbolizer resolves: the symbolizer must be made without --addresses,
 * --no-inline, --lines or --signatures. What o->have holds is left out:
 * its addresses, code and lines. The progress hears the phases
 * "symbolizing" (in samples), and with code or sources, "reading code" (in
 * addresses) and "reading sources" (in files). Returns the new pack
 * (caller frees with trace_pack_free()), with counts in *st. */
struct trace_pack *pack_build(struct stacks *s, const struct pack_build_opts *o,
			      struct pack_build_stats *st);

#endif
