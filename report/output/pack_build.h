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
 * format/trace_pack.h writes them; report/symbols/pack.h serves them.
 */
#ifndef REPORT_PACK_BUILD_H
#define REPORT_PACK_BUILD_H

#include <stddef.h>

#include "common/progress.h"
#include "format/trace_pack.h"
#include "report/symbols/pack.h"
#include "report/model/stacks.h"

/* What pack_build() put in its pack. */
struct pack_build_stats {
	size_t images;     /* identities with at least one address */
	size_t addrs;      /* addresses */
	size_t frames;     /* frames over all addresses */
	/* Per image of the trace (caller frees both): the distinct addresses
	 * the samples use in it, and how many of them the symbolizer named
	 * (those the given pack already held included). An image with
	 * addresses of which none is named, or without an identity, is not
	 * in the pack. */
	size_t *used, *named;
};

/* Builds the pack of every address the samples of st's trace use that its
 * symbolizer resolves: the symbolizer must be made without --addresses,
 * --no-inline, --lines or --signatures. An address that have (may be NULL) already
 * holds is left out, so that a trace's embedded pack is never written
 * twice. pg (NULL: nobody) hears how far it is, as the phase "symbolizing"
 * in samples. Returns the new pack (caller frees with trace_pack_free()),
 * with counts in *st. */
struct trace_pack *pack_build(struct stacks *s, struct pack *have, struct pack_build_stats *st,
			      struct progress *pg);

#endif
