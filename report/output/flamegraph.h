/*
 * flamegraph.h: a profile laid out as a flame graph and written as an
 * interactive, self-contained SVG.
 *
 * The layout merges the profile's stacks into a tree under an "all" frame
 * (children in bytewise name order, so the picture is deterministic) and
 * gives each frame its horizontal extent in samples. With reverse, every
 * stack is reversed first, so the leaves are at the base and callers are
 * merged above them.
 *
 * Frames narrower than minwidth pixels are not drawn one by one: each run
 * of such adjacent siblings becomes one grey "[N frames merged]" frame if
 * the run is at least minwidth wide, and is left out (its samples still
 * counted in its parent) if not. Every drawn frame is therefore at least
 * minwidth pixels wide, and the frames of one row do not overlap, so with
 * a drawing width W a row holds at most W/minwidth frames and the SVG at
 * most depth * W/minwidth, whatever the number of stacks. minwidth 0 draws
 * every frame.
 *
 * The document embeds its own CSS and JavaScript and loads nothing: hover
 * shows a frame's details in the status line (and its <title> is the
 * tooltip), a click zooms into a frame, Ctrl-F or F3 searches names with a
 * regular expression, and the zoom and search are kept in the URL's
 * fragment. Data from the profile only ever appears escaped, in text nodes
 * and attribute values, never in the script.
 */
#ifndef REPORT_FLAMEGRAPH_H
#define REPORT_FLAMEGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/model/profile.h"

struct buf;

/* How frames are coloured when no color callback decides. */
enum flamegraph_palette {
	FLAMEGRAPH_PALETTE_HOT,   /* reds to yellows, the shade hashed from the name */
	FLAMEGRAPH_PALETTE_IMAGE, /* one hue per image label, hashed from the label */
	FLAMEGRAPH_PALETTE_LANG,  /* Rust orange, C++ blue, C green, unresolved grey */
};

/* The fill of a "[N frames merged]" frame. */
#define FLAMEGRAPH_MERGED_FILL 0xc8c8c8u

/* What a color callback returns to leave a frame to the palette. */
#define FLAMEGRAPH_NO_COLOR UINT32_MAX

struct flamegraph_opts {
	const char *title;     /* NULL: "Flame Graph", or "Icicle Graph" if inverted */
	const char *subtitle;  /* may be NULL */
	unsigned width;        /* pixels */
	double minwidth;       /* pixels; 0 draws every frame */
	int reverse;           /* reverse every stack: leaves at the base */
	int inverted;          /* icicle: the base at the top, growing down */
	int palette;           /* enum flamegraph_palette */
	int embedded;          /* the <svg> element alone, of class
	                        * "flamegraph", for a page (html.h) that runs
	                        * flamegraph.js on it: no XML declaration and
	                        * no script */
	/* The image and language of a frame name, for the image and lang
	 * palettes (profile_frame_info fits); NULL, or a NULL answer, means
	 * nothing is known of that frame. */
	const struct profile_frame_info *(*frame_info)(const struct profile *p, const char *name);
	/* Optional, for callers that colour by their own data (diff): the fill
	 * of a frame as 0xRRGGBB, or FLAMEGRAPH_NO_COLOR for the palette's.
	 * path[0..depth-1] are the frames from the base up to this one, as
	 * drawn (so reversed with reverse); the "all" frame has depth 0. path
	 * is borrowed for the call. Not called for merged frames. */
	uint32_t (*color)(void *ctx, const char *const *path, size_t depth);
	/* Optional: appends plain text about the frame (same arguments) to
	 * out, which the tooltip shows on a line after the samples and the
	 * status line after a "; ". It is escaped like every name, so it is
	 * one line (a newline shows as \x0a). Appending nothing adds nothing. */
	void (*details)(void *ctx, const char *const *path, size_t depth, struct buf *out);
	void *ctx;             /* passed to color and details */
	/* Optional: the swatches of a legend under the title, what a fill
	 * means; with none, the lang palette shows its own. */
	const struct flamegraph_legend *legend;
	size_t nlegend;
};

/* One swatch of a legend: its fill as 0xRRGGBB, and its text. */
struct flamegraph_legend {
	uint32_t fill;
	const char *label;
};

/* Writes p as a standalone SVG document to f. Returns 0, or -EIO if f
 * reports an error. p and o are only read. */
int flamegraph_write_svg(FILE *f, const struct profile *p, const struct flamegraph_opts *o);

/* Appends s to b escaped as XML character data or attribute text: markup
 * characters become entities; control bytes, DEL and bytes that are not
 * valid UTF-8 become the visible text "\xHH"; at most max bytes of s are
 * used (the rest becomes "..."). */
void flamegraph_xml_escape(struct buf *b, const char *s, size_t max);

/* The fill, as 0xRRGGBB, that palette gives a frame called name of which
 * info (may be NULL) is known. Deterministic: hashed from the name (and,
 * for the image palette, the image label). */
uint32_t flamegraph_palette_color(int palette, const char *name,
				  const struct profile_frame_info *info);

#endif
