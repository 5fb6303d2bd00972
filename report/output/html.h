/*
 * html.h: a trace as one self-contained HTML page (prof-report html), and
 * a diff as one (prof-report diff --html).
 *
 * The page holds its data, script and style inline and loads nothing: its
 * Content-Security-Policy allows no request at all. The data is one JSON
 * document in <script type="application/json" id="prof-data">, written
 * with every '<', '>' and '&' as a \u escape (json_string()), so no name
 * can end the element or open markup; the script (report/output/html.js,
 * with the flame graph's report/output/flamegraph.js) reads it with
 * JSON.parse and puts names into the document only as text.
 *
 * The data of a profile page ("kind": "profile"):
 *
 *   "format": 1
 *   "title", "subtitle": strings (the command; what was recorded)
 *   "mode": "cpu" or "wall"; "rate_hz"; "duration_ns"
 *   "bin_ns", "nbins": the recording cut into nbins bins of bin_ns each,
 *       bin i covering [i * bin_ns, (i + 1) * bin_ns) since its start
 *   "palette": "hot", "image" or "lang"
 *   "funcs": [{"name", "image" (string or null), "fill": "#rrggbb"}]: the
 *       frame names; funcs[0] is "all", the base of every stack
 *   "nodes": [parent, func, parent, func, ...]: the stacks' prefix tree,
 *       node i's parent node and function at 2i and 2i + 1; node 0 is the
 *       base ("all", parent -1), its children the processes' names; a
 *       node's parent comes before it, and its siblings have distinct
 *       functions
 *   "merged": how many nodes were cut into "[merged]" nodes to keep the
 *       tree at HTML_MAX_NODES (0 if none was)
 *   "threads": [{"tid", "pid", "name", "process", "start_ns", "end_ns"
 *       (null if it outlived the recording), "samples" (its total),
 *       "states": [bin, running, kernel, preempted, waiting, ...] (five
 *       numbers per bin with samples, bins ascending; running is in user
 *       mode, kernel in kernel mode, waiting every other state),
 *       "stacks": [bin, node, count, ...] (three numbers per bin and leaf
 *       node with samples, ascending by bin, then node)}], the threads
 *       with samples, in the order the trace first saw them; in both
 *       lists a bin is written as the difference from the one before it
 *       (the first from 0), mostly a digit where the bin would be four
 *   "marks": [{"time_ns", "name", "source"}]
 *   "pauses": [[from_ns, to_ns], ...]
 *   "images": [{"time_ns", "path", "pid"}]: images loaded while recording
 *
 * Every time is in ns since the recording started. A diff page ("kind":
 * "diff") holds the differential flame graph as an inline SVG
 * (flamegraph.h, without its own script) and the change table as an HTML
 * table; its data has "title" and "subtitle" only.
 */
#ifndef REPORT_HTML_H
#define REPORT_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/trace.h"
#include "report/model/profile.h"

/* The most nodes a page's tree holds: past it, the stacks' rarest frames
 * are cut into "[merged]" nodes. */
#define HTML_MAX_NODES 200000
/* The most bins a recording is cut into; a bin is at least 1 ms and four
 * sampling periods, 1, 2 or 5 times a power of ten ms. */
#define HTML_MAX_BINS 2000

/* The samples of a profile by thread and time bin, gathered while the
 * profile is built: html_timeline_sample() is its profile_opts.sample,
 * with the timeline as ctx. */
struct html_timeline;
struct html_timeline *html_timeline_new(const struct trace *t);
void html_timeline_sample(void *ctx, const struct trace_sample *s, size_t key);
void html_timeline_free(struct html_timeline *tl);

struct html_opts {
	const char *title;        /* the page's title */
	const char *subtitle;     /* may be NULL */
	int palette;              /* enum flamegraph_palette */
};

/* Writes the page of p, built with tl's sample callback from t's samples,
 * to f. Returns 0, or -EIO if f reports an error. */
int html_write_profile(FILE *f, const struct trace *t, const struct profile *p,
		       const struct html_timeline *tl, const struct html_opts *o);

/* Writes a diff's page to f: body writes its content (the graph and the
 * table) to f, and returns 0 or -EIO. Returns 0, or -EIO. */
int html_write_diff(FILE *f, const struct html_opts *o, int (*body)(void *ctx, FILE *f), void *ctx);

#endif
