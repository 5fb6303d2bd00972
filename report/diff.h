/*
 * diff.h: two profiles of one program compared, for 'prof-report diff'.
 *
 * The runs are matched by frame name, never by address, so a rebuilt or
 * relocated program still matches; the root frame (the process name) is
 * taken as equal whatever it is, so a renamed binary still matches too.
 * Both runs are normalised by their sample totals: the base's counts are
 * scaled to the new run's total, so a count of either run reads as "new
 * run samples" and a change of 1 is one sample of the new run. A stack of
 * only one run is kept, with 0 in the other.
 */
#ifndef REPORT_DIFF_H
#define REPORT_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/flamegraph.h"
#include "report/profile.h"

struct diff_stack {
	const char *const *frames; /* borrowed from the profile that has it */
	size_t nframes;
	uint64_t base, new;        /* raw sample counts of each run */
};

struct diff {
	struct diff_stack *stacks; /* sorted as profiles are, no duplicates */
	size_t nstacks;
	uint64_t base_samples, new_samples;
	const char **pool;         /* frames of base-only stacks, rooted anew */
};

/* Merges base and new (which must outlive d) into d. Release with
 * diff_release(). */
void diff_build(const struct profile *base, const struct profile *new, struct diff *d);
void diff_release(struct diff *d);

/* The base count scaled to the new run's total, rounded to nearest. */
uint64_t diff_scaled_base(const struct diff *d, uint64_t base);

/* Writes d as two-column folded stacks, "stack BASE NEW", with BASE scaled
 * to the new total (flamegraph.pl's difference mode reads this). Returns 0,
 * or -EIO if f reports an error. */
int diff_write_folded(FILE *f, const struct diff *d);

/* One function's change: self and total as fractions of each run, and the
 * change in samples of the new run. */
struct diff_row {
	const char *name;
	double base_self, new_self, base_total, new_total;
	int64_t self_change, total_change;
};

/* The functions of both runs (skipping the root and, with skip 2, the
 * thread frames), sorted by the change of their self share, largest
 * growth first, then by total change and name. Caller frees *rows. */
void diff_rows(const struct profile *base, const struct profile *new, size_t skip,
	       struct diff_row **rows, size_t *n);
/* Writes the limit (0: 10) functions of rows whose self share grew most,
 * then those whose self share shrank most (then, in each, those whose
 * self share held but whose total moved), as two tables: the change of
 * self and total in percentage points, the self shares of both runs, and
 * the change of self and total in samples of the new run. Returns 0, or
 * -EIO. */
int diff_write_table(FILE *f, const struct diff_row *rows, size_t n, size_t limit);

/* Writes the differential flame graph of d: frames as wide as the larger
 * of their two (normalised) counts, red where the new run has more, blue
 * where it has less (swapped by negate), deeper for larger changes, with
 * both shares in every tooltip. o gives the layout; its colour callbacks
 * are this module's. Returns 0, or -EIO. */
int diff_write_svg(FILE *f, const struct diff *d, const struct flamegraph_opts *o, int negate);

#endif
