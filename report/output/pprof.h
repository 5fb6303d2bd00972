/*
 * pprof.h: the export model written as a pprof profile, the gzip'd
 * perftools.profiles.Profile message of profile.proto that go tool pprof,
 * Pyroscope, Parca and Grafana read.
 *
 * What goes in:
 *  - sample types "samples"/"count" and, when the trace knows its rate,
 *    "cpu"/"nanoseconds" (or "wall"/"nanoseconds" for a wall-mode trace,
 *    whose samples include waiting threads), each sample worth one period;
 *    period_type and period say the same;
 *  - one mapping per image of the trace: its address range, file offset,
 *    path and build-id or UUID (lowercase hex), with has_functions,
 *    has_filenames, has_line_numbers and has_inline_frames set as far as
 *    its locations have them;
 *  - one location per export location: its address and mapping, and one
 *    line per frame, innermost first, as profile.proto orders inline
 *    chains; one function per distinct (name, source file);
 *  - one sample per distinct (stack, thread, name, state), in a fixed
 *    order, labelled "thread" (the name, unless it has none), "tid" and,
 *    in wall mode, "state";
 *  - time_nanos (the wall-clock start) and duration_nanos.
 *
 * The same model always gives the same bytes: strings, functions and ids
 * are numbered in order of first use, and the gzip header has no time or
 * name and the "unknown" operating system.
 */
#ifndef REPORT_PPROF_H
#define REPORT_PPROF_H

#include <stdio.h>

#include "common/buf.h"
#include "common/errors.h"
#include "format/trace.h"
#include "report/model/export.h"

/* Appends the encoded (not yet compressed) Profile message of e, the model
 * of t, to b. */
void pprof_encode(struct buf *b, const struct trace *t, const struct export *e);
/* Writes n bytes at p to f as one gzip member. Returns 0, -EIO if f
 * reports an error, or PPROF_E_ZLIB (common/errors.h). */
int pprof_gzip(FILE *f, const void *p, size_t n);

#endif
