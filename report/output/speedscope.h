/*
 * speedscope.h: the export model written as a speedscope file
 * (https://www.speedscope.app/file-format-schema.json), the JSON that
 * speedscope opens.
 *
 * The shared frames are the model's functions: a name and, where known,
 * the source file (and with lines, the line: with --lines a function is one
 * line of it, as its name says). There is one "sampled" profile per thread
 * that has samples, in the order of their first samples, named
 * "NAME [TID]" after the thread's name at its first sample: its samples
 * are the thread's stacks in recording order, root first, a run of equal
 * stacks merged into one sample of their summed weight. With a known rate,
 * the unit is nanoseconds and a sample weighs one period, startValue is
 * the thread's first sample since the start and endValue adds the total;
 * without one, the unit is "none", a sample weighs 1 and startValue is 0.
 * activeProfileIndex is the thread with the most samples (the first such);
 * with no samples, there are no profiles and no activeProfileIndex.
 */
#ifndef REPORT_SPEEDSCOPE_H
#define REPORT_SPEEDSCOPE_H

#include <stdio.h>

#include "common/buf.h"
#include "format/trace.h"
#include "report/model/export.h"

/* Writes e, the model of t, to f; lines as above. Returns 0, or -EIO if f
 * reports an error. */
int speedscope_write(FILE *f, const struct trace *t, const struct export *e, int lines);

#endif
