/*
 * html.h: a trace as one self-contained HTML page (prof-report html), and
 * a diff as one (prof-report diff --html).
 *
 * The page holds its data, script and style inline and loads nothing: its
 * Content-Security-Policy allows no request at all. The data is one JSON
 * document in <script type="application/json" id="prof-data">, written
 * with every '<', '>' and '&' as a \u escape, so no name can end the
 * element or open markup; the script (report/output/html.js, with the
 * flame graph's report/output/flamegraph.js) reads it with JSON.parse and
 * puts names into the document only as text, never as markup.
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
 *       node's siblings have distinct functions
 *   "merged": how many stacks' frames were cut into "[merged]" nodes to
 *       keep the tree under HTML_MAX_NODES (0 if none was)
 *   "threads": [{"tid", "pid", "name", "process", "start_ns", "end_ns"
 *       (null if it outlived the recording), "samples" (its total),
 *       "states": [bin, running, kernel, preempted, waiting, ...] (five
 *       numbers per bin with samples, bins ascending; running is in user
 *       mode, kernel in kernel mode, waiting every other state),
 *       "stacks": [bin, node, count, ...] (three numbers per bin and leaf
 *       node with samples, ascending by bin, then node)}], in the order
 *       the trace first saw them
 *   "marks": [{"time_ns", "name", "source"}]
 *   "pauses": [[from_ns, to_ns], ...]
 *   "images": [{"time_ns", "path", "pid"}]: images loaded while recording
 *
 * A diff page ("kind": "diff") holds the differential flame graph as an
 * inline SVG (flamegraph.h, without its own script) and the change table
 * as an HTML table; its data has "title" and "subtitle" only.
 */
#ifndef REPORT_HTML_H
#define REPORT_HTML_H

#include <stdio.h>

#include "report/model/stacks.h"

/* The most nodes a page's tree holds: past it, the stacks' rarest frames
 * are cut into "[merged]" nodes. */
#define HTML_MAX_NODES 200000

#endif
