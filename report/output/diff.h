/*
 * diff.h: two sets of runs of one program compared, for 'prof-report diff'.
 *
 * Each side is one run or several. The runs are matched by frame name,
 * never by address, so a rebuilt or relocated program still matches; the
 * root frame (the process name) is taken as equal whatever it is, so a
 * renamed binary still matches too. A stack of only one side is kept,
 * with 0 in the other. A tick that landed in the kernel counts to the
 * user stack under it, without its [kernel] leaf: how much of a busy
 * loop's ticks land in the kernel (interrupts, preemption) follows the
 * machine's load, which differs from run to run, so it is not compared
 * apart; a change in system calls still shows in the functions that make
 * them.
 *
 * Every item compared, each function's self and total and each frame of
 * the differential flame graph, is tested for whether it changed by more
 * than noise (report/model/signif.h): per run, its count of the run's samples
 * (the default), its count, or its count per second, and the sides'
 * means compared with their sampling and run-to-run variance. The q
 * values are Benjamini and Hochberg's over one family: every function's
 * self and total together (all that the table and --check look at), or
 * the graph's frames; an item is significant at q < DIFF_Q.
 */
#ifndef REPORT_DIFF_H
#define REPORT_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/output/flamegraph.h"
#include "report/model/profile.h"
#include "report/model/signif.h"

/* The false discovery rate below which a change is significant. */
#define DIFF_Q 0.05

/* What a run's count of an item is compared as. */
enum diff_normalize {
	DIFF_SHARE,    /* a share of the run's samples (the default) */
	DIFF_COUNTS,   /* a number of samples: for runs of equal length */
	DIFF_DURATION, /* samples per second of the run */
};

/* The runs of one side as n profiles, each a whole trace or a slice of
 * one: part is the share of its trace's samples each holds (1 for a
 * whole trace), seconds the time it stands for (for DIFF_DURATION), and
 * traces how many traces they come from. */
struct diff_side {
	const struct profile *const *runs;
	const double *seconds, *part;
	size_t n, traces;
};

struct diff_stack {
	const char *const *frames; /* borrowed from a profile that has it */
	size_t nframes;
	uint64_t base, new;        /* raw sample counts of each side, summed */
	const uint64_t *runs;      /* per run, the base's then the new's */
};

struct diff {
	struct diff_stack *stacks; /* sorted as profiles are, no duplicates */
	size_t nstacks;
	uint64_t base_samples, new_samples;
	size_t nbase, nnew;        /* runs (profiles) of each side */
	size_t traces[2];          /* the traces of the base and the new side */
	int paired;                /* one trace a side, as as many slices each:
	                            * signif_compare_paired() */
	int normalize;             /* enum diff_normalize */
	double *exposure;          /* per run: what its counts are divided by */
	uint64_t *counts;          /* the stacks' per-run counts */
	const char **pool;         /* frames of base-only stacks, rooted anew */
};

/* The slices a side of one trace is cut into. */
#define DIFF_SLICES 10

/* Cuts the samples of st's trace t that o keeps into up to DIFF_SLICES
 * profiles of about as many samples each, in time order, into slices
 * (which borrow from st as profile_build's do; the caller frees each).
 * Returns how many have samples: 0 if there are too few samples to cut
 * (two a slice). */
size_t diff_slice(struct stacks *st, const struct trace *t, const struct profile_opts *o,
		  struct profile **slices);

/* Merges the runs of base and new (which must outlive d) into d, each
 * side with at least one run, every run with samples and, for
 * DIFF_DURATION, a length. Sides of one trace each and as many runs
 * (slices of it) are compared slice by slice. Release with
 * diff_release(). */
void diff_build(const struct diff_side *base, const struct diff_side *new, int normalize,
		struct diff *d);
void diff_release(struct diff *d);

/* The base count scaled to the new side's total, rounded to nearest. */
uint64_t diff_scaled_base(const struct diff *d, uint64_t base);

/* Writes d as two-column folded stacks, "stack BASE NEW", with BASE scaled
 * to the new total (flamegraph.pl's difference mode reads this). Returns 0,
 * or -EIO if f reports an error. */
int diff_write_folded(FILE *f, const struct diff *d);

/* One function's self or total, tested. */
struct diff_change {
	const char *name;
	int total;                 /* 0: self, 1: total */
	struct signif_result r;    /* in the unit of d's normalize */
};

struct diff_changes {
	struct diff_change *v;
	size_t n;
	size_t functions;          /* the functions compared */
	size_t traces[2];          /* of the base and the new side */
	uint64_t samples[2];       /* of the base and the new side */
	int normalize;
	size_t tests;              /* the changes counted for the q values,
	                            * one family: those that could be
	                            * significant (signif_adjust) */
	double detectable;         /* the smallest change detectable in any
	                            * function: the largest signif_detectable()
	                            * of a change counted, at q < DIFF_Q among
	                            * tests */
};

/* Tests the self and total of every function of d's runs, in d's stacks
 * (skipping the root and, with skip 2, the thread frames), into out, sorted by change,
 * largest growth first, then total before self, then by name. Names are
 * borrowed from the runs. Release with diff_changes_release(). */
void diff_changes(const struct diff *d, size_t skip, struct diff_changes *out);
void diff_changes_release(struct diff_changes *c);

struct diff_table_opts {
	size_t limit;              /* rows of each table; 0: 10, all with all */
	int all;                   /* also the changes that are not flagged */
	double threshold;          /* in the table's unit */
};
/* Writes the changes of c: tables of those that grew, then shrank (with
 * all, then held), largest first, each with its 95% interval, the two
 * sides' values, its q value and whether it is flagged; or, when none is
 * flagged and all is not set, one line that says so, with the
 * significant changes below the threshold if any, else the smallest
 * change detectable. Returns the number flagged, or -EIO. */
int diff_write_table(FILE *f, const struct diff_changes *c, const struct diff_table_opts *o);
/* Writes one line: the flagged changes, largest first (the first three),
 * or that none is, as the table does. Returns the number flagged, or
 * -EIO. */
int diff_write_summary(FILE *f, const struct diff_changes *c, double threshold);
/* Writes the changes of c as diff's JSON document (prof-json(5)): the
 * sides, the unit, the tests, and the changes flagged (with all, every
 * change, each saying whether it is flagged), in the table's order, each
 * with its name as written (json_string()), kind, change, 95% interval,
 * the sides' values, p and q; with check, the verdict of --check too.
 * Returns the number flagged, or -EIO. */
int diff_write_json(FILE *f, const struct diff_changes *c, const struct diff_table_opts *o,
		    int check);

/* Writes every change of c as an HTML table (<table id="changes">, a
 * row each, in the table's order: largest growth first), after a line
 * on the sides; a change not flagged at threshold has the class
 * "insignificant", and each figure its value in data-v, to sort by.
 * Returns the number flagged, or -EIO. */
int diff_write_html_table(FILE *f, const struct diff_changes *c, double threshold);

/* Writes the differential flame graph of d: frames as wide as the larger
 * of their two (normalised) counts, each frame tested as a function is;
 * those flagged red where the new side has more, blue where it has less
 * (swapped by negate), deeper for larger changes, the rest grey; every
 * tooltip gives both sides, the interval and the q value, and a legend
 * says what the colours mean. o gives the layout; its colour callbacks
 * and legend are this module's. Returns 0,
 * or -EIO. */
int diff_write_svg(FILE *f, const struct diff *d, const struct flamegraph_opts *o, int negate,
		   double threshold);

#endif
