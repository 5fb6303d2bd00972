/*
 * cmd_diff.c: 'prof-report diff BASE NEW' or 'diff BASE... -- NEW...',
 * what changed between two runs or two sets of runs, and whether it is
 * more than noise: the functions whose self or total changed
 * significantly, with -o a differential flame graph that colours only
 * those frames, with --folded the two-column folded stacks flamegraph.pl's
 * difference mode reads, and with --check an exit status for CI. Every
 * trace is read with the same options, so a filter selects the same
 * threads or window in each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "report/cmd/cli_trace.h"
#include "report/cmd/cmds.h"
#include "report/output/diff.h"
#include "report/output/html.h"
#include "report/model/export.h"

static const char *const normalize_words[] = { "share", "none", "duration", NULL };
static const char *const subtitles[] = {
	"compared by share of samples; the interval and q value of each frame in its tooltip",
	"compared by samples; the interval and q value of each frame in its tooltip",
	"compared by samples per second; the interval and q value of each frame in its tooltip",
};

/* The seconds of t that r's window keeps, less those sampling was
 * paused. */
static double window_seconds(const struct cli_report *r, const struct trace *t)
{
	uint64_t s = trace_duration_ns(t), start = t->session.start_monotonic_ns;
	uint64_t from = r->from.set ? r->from.ns : 0;
	uint64_t to = r->to.set && r->to.ns < s ? r->to.ns : s;

	if (to <= from)
		return 0;
	return (double)(to - from - trace_paused_ns(t, start + from, start + to)) / 1e9;
}

/* The profiles of one side, and what diff_side points at. */
struct side {
	struct diff_side s;
	struct profile *slices[DIFF_SLICES];
	size_t nslices;
};

/* Opens the n traces of one side into ct and side, and a side of one
 * trace cut into its slices too. */
static void open_side(struct cli_report *r, int normalize, char **paths, size_t n,
		      struct cli_trace *ct, struct side *side)
{
	const struct profile **runs = xcalloc(n + DIFF_SLICES, sizeof(*runs));
	double *seconds = xcalloc(n + DIFF_SLICES, sizeof(*seconds));
	double *part = xcalloc(n + DIFF_SLICES, sizeof(*part));

	for (size_t i = 0; i < n; i++) {
		cli_open(r, NULL, &paths[i], 1, CLI_PROFILED, &ct[i]);
		runs[i] = ct[i].p;
		seconds[i] = window_seconds(r, ct[i].t);
		part[i] = 1;
		if (!ct[i].p->samples)
			die("'%s' has no samples to compare%s", paths[i],
			    "; check the filter options, which apply to every trace");
		if (normalize == DIFF_DURATION && !(seconds[i] > 0))
			die("'%s' has no duration; compare it by share (--normalize share)", paths[i]);
	}
	side->s = (struct diff_side){ runs, seconds, part, n, n };
	if (n == 1) {
		struct profile_opts po = cli_profile_opts(r);

		side->nslices = diff_slice(ct[0].stacks, ct[0].t, &po, side->slices);
	}
}

/* Makes the runs of a side of one trace its slices. */
static void use_slices(struct side *side, const struct cli_trace *ct)
{
	const struct profile **runs = (const struct profile **)side->s.runs;
	double *seconds = (double *)side->s.seconds, *part = (double *)side->s.part, whole = seconds[0];

	for (size_t k = 0; k < side->nslices; k++) {
		runs[k] = side->slices[k];
		part[k] = (double)runs[k]->samples / (double)ct->p->samples;
		seconds[k] = whole * part[k];
	}
	side->s.n = side->nslices;
}

static void close_side(struct side *side)
{
	for (size_t k = 0; k < side->nslices; k++)
		profile_free(side->slices[k]);
	free((void *)side->s.runs);
	free((void *)side->s.seconds);
	free((void *)side->s.part);
}

/* The content of the --html page: the graph, then the table. */
struct page {
	const struct diff *d;
	const struct diff_changes *c;
	struct flamegraph_opts fo;
	int negate;
	double threshold;
};

static int write_page(void *ctx, FILE *f)
{
	const struct page *pg = ctx;

	fputs("<div id=\"diff\">\n", f);
	if (diff_write_svg(f, pg->d, &pg->fo, pg->negate, pg->threshold) < 0 ||
	    diff_write_html_table(f, pg->c, pg->threshold) < 0)
		return -EIO;
	fputs("</div>\n", f);
	return ferror(f) ? -EIO : 0;
}

int cmd_diff(int argc, char **argv)
{
	struct cli_report r = { 0 };
	struct cli_graph g = CLI_GRAPH_INIT;
	const char *output = NULL, *html = NULL;
	int negate = 0, folded = 0, all = 0, check = 0, json = 0, normalize = DIFF_SHARE;
	uint64_t limit = 0;
	double threshold = 0;
	const struct opt_option options[] = {
		OPT_STRING('o', "output", "FILE", &output,
			   "also write a differential flame graph to FILE ('-':\n"
			   "standard output, the table then to standard error)"),
		OPT_STRING(0, "html", "FILE", &html,
			   "also write a page with the differential flame graph\n"
			   "and every change, the insignificant greyed"),
		OPT_FLAG(0, "negate", &negate, "swap the colours: blue grew, red shrank"),
		OPT_FLAG(0, "folded", &folded,
			 "write \"STACK BASE NEW\" lines instead of the table\n"
			 "(BASE scaled to NEW's total)"),
		OPT_FLAG(0, "all", &all, "also the changes that are not significant, marked"),
		OPT_FLAG(0, "check", &check,
			 "print one line instead of the table (to standard error\n"
			 "with --folded), and exit 3 if a change is significant\n"
			 "(0 if none)"),
		OPT_FLAG(0, "json", &json,
			 "write the changes (and the verdict of --check) as JSON\n"
			 "(prof-json(5)) instead of the table"),
		OPT_DECIMAL(0, "threshold", "PP", &threshold, 1e12,
			    "ignore significant changes smaller than this (points\n"
			    "of share, or the unit of --normalize)"),
		OPT_WORD(0, "normalize", "HOW", &normalize, normalize_words,
			 "compare shares of the samples (share, the default),\n"
			 "sample counts (none) or samples per second (duration)"),
		OPT_UINT(0, "limit", "N", &limit, 1, SIZE_MAX,
			 "rows of each table (default 10, all with --all)"),
		CLI_OPT_THREAD_FRAMES(&r),
		CLI_GRAPH_OPTIONS(&g, "the title (default \"Differential Flame Graph\")"),
		CLI_REPORT_OPTIONS(&r),
		OPT_END,
	};
	const struct opt_command cmd = {
		"diff", "BASE NEW | BASE... -- NEW...", 2, -1,
		"Prints the functions whose self or total changed significantly from\n"
		"the trace BASE to the trace NEW (or from the traces before -- to those\n"
		"after it), each with its 95% interval and its q value, or says that\n"
		"none did and what change it could have seen. With -o, also writes a\n"
		"differential flame graph: red grew, blue shrank, grey not significant.\n"
		"Every trace is read with the same options.",
		options,
	};
	struct cli_trace *traces;
	struct side base = { 0 }, new = { 0 };
	struct diff d;
	struct diff_changes c;
	struct flamegraph_opts fo;
	size_t nbase, nnew, nafter = 0;
	int first, flagged = 0;
	FILE *text;     /* the table or the --check line */

	/* The operands after the first "--" are the new side's. */
	for (int i = argc - 1; i > 0; i--)
		if (!strcmp(argv[i], "--"))
			nafter = (size_t)(argc - 1 - i);
	first = opt_parse(&cmd, argc, argv);
	nnew = nafter ? nafter : 1;
	nbase = (size_t)(argc - first) - nnew;
	if (nafter ? !nbase : argc - first != 2)
		opt_usage_error(&cmd, nafter ? "no BASE trace before '--'"
				  : "give two traces, or the base traces, '--' and the new ones");
	if (folded && output && cli_output_is_stdout(output))
		opt_usage_error(&cmd, "options '--folded' and '-o -' both write to standard output");
	if (json && folded)
		opt_usage_error(&cmd, "options '--json' and '--folded' both write to standard output");
	if (json && output && cli_output_is_stdout(output))
		opt_usage_error(&cmd, "options '--json' and '-o -' both write to standard output");
	if (html && cli_output_is_stdout(html) && (folded || json || (output && cli_output_is_stdout(output))))
		opt_usage_error(&cmd, "option '--html -' and another output both write to standard output");

	/* standard output holds the graph, or the stacks, alone */
	text = (folded || (output && cli_output_is_stdout(output)) || (html && cli_output_is_stdout(html)))
		? stderr : stdout;
	r.names_only = 1;
	traces = xcalloc(nbase + nnew, sizeof(*traces));
	open_side(&r, normalize, argv + first, nbase, traces, &base);
	open_side(&r, normalize, argv + first + nbase, nnew, traces + nbase, &new);
	/* one trace a side: compared slice by slice as well (signif.h) */
	if (base.nslices == DIFF_SLICES && new.nslices == DIFF_SLICES) {
		use_slices(&base, &traces[0]);
		use_slices(&new, &traces[nbase]);
	}
	diff_build(&base.s, &new.s, normalize, &d);
	fo = cli_graph_opts(&g);
	if (!fo.title)
		fo.title = "Differential Flame Graph";
	fo.subtitle = subtitles[normalize];
	if (output) {
		FILE *f = cli_output_open(output);

		if (diff_write_svg(f, &d, &fo, negate, threshold) < 0)
			die_errno("cannot write '%s'", cli_output_is_stdout(output) ? "standard output" : output);
		if (f != stdout)   /* standard output is closed last */
			cli_output_close(output, f);
	}
	if (check || !folded || html)
		diff_changes(&d, 1 + (size_t)r.process_frames + (size_t)r.thread_frames, &c);
	if (html) {
		struct page pg = { &d, &c, fo, negate, threshold };
		struct html_opts ho = { .title = fo.title, .subtitle = fo.subtitle };
		FILE *f = cli_output_open(html);

		pg.fo.embedded = 1;
		if (html_write_diff(f, &ho, write_page, &pg) < 0)
			die_errno("cannot write '%s'", cli_output_is_stdout(html) ? "standard output" : html);
		if (f != stdout)
			cli_output_close(html, f);
	}
	if (folded && diff_write_folded(stdout, &d) < 0)
		die_errno("cannot write to standard output");
	if (check || !folded) {
		struct diff_table_opts o = { (size_t)limit, all, threshold };

		if (json)
			flagged = diff_write_json(text, &c, &o, check);
		else if (check)
			flagged = diff_write_summary(text, &c, threshold);
		else
			flagged = diff_write_table(text, &c, &o);
		if (flagged < 0)
			die_errno("cannot write to standard %s", text == stdout ? "output" : "error");
	}
	if (check || !folded || html)
		diff_changes_release(&c);
	diag_close_stdout();
	diff_release(&d);
	close_side(&base);
	close_side(&new);
	for (size_t i = 0; i < nbase + nnew; i++)
		cli_close(&traces[i]);
	free(traces);
	opt_release(&cmd);
	return check && flagged > 0 ? CMD_EXIT_CHANGED : 0;
}
