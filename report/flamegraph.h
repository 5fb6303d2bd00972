/*
 * flamegraph.h: a profile laid out as a flame graph and written as SVG.
 *
 * The layout merges the profile's stacks into a tree (children in the
 * profile's sorted order, so the picture is deterministic) under an "all"
 * frame, and gives each frame its horizontal extent in samples. Frames
 * narrower than minwidth pixels are not drawn; their samples still count
 * in their ancestors, which is what bounds the size of the SVG for any
 * number of stacks.
 */
#ifndef REPORT_FLAMEGRAPH_H
#define REPORT_FLAMEGRAPH_H

#include <stdio.h>

#include "report/profile.h"

struct flamegraph_opts {
	const char *title;     /* default "Flame Graph" */
	const char *subtitle;  /* may be NULL */
	unsigned width;        /* pixels, at least 1 */
	double minwidth;       /* pixels; 0 draws every frame */
};

/* Writes p as a standalone SVG document to f. Every name and title is
 * escaped for XML. Returns 0, or -EIO if f reports an error. */
int flamegraph_write_svg(FILE *f, const struct profile *p, const struct flamegraph_opts *o);

/* Appends s to b escaped as XML character data or attribute text: markup
 * characters become entities; control bytes, DEL and bytes that are not
 * valid UTF-8 become the visible text "\xHH"; at most max bytes of s are
 * used (the rest becomes "..."). */
struct buf;
void flamegraph_xml_escape(struct buf *b, const char *s, size_t max);

#endif
