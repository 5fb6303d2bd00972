/*
 * diff.c: what changed between two sets of runs, and whether it is noise.
 *
 * Every run is a sorted list of stacks, so all the runs of both sides are
 * sorted together and equal stacks collapsed into one, which keeps each
 * run's count (a side of one trace comes as the slices diff_slice() cuts
 * by its samples' times). Everything after that is a test per item: the
 * functions' self and total (one top table per run, joined by name) and
 * the frames of the flame graph, whose frames are as wide as the larger
 * of their two normalised counts, so that what vanished stays visible,
 * and coloured by how much their subtree changed where that is
 * significant. A frame is
 * found again from its path in the flame graph's callbacks by a hash of
 * the names from the base up, the same hash this file computes for every
 * prefix of every stack beforehand.
 */
#include "report/output/diff.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/hmap.h"
#include "common/json.h"
#include "report/output/folded.h"
#include "report/model/stacks.h"
#include "common/text.h"
#include "report/output/top.h"

/* The frame report/model/stacks.c puts above a sample whose tick landed in
 * the kernel. */
#define KERNEL_FRAME "[kernel]"

/* The fill of a frame whose change is not significant. */
#define GREY_FILL 0xdcdcdcu

/* Stacks in profile order, but the root frame (the process) always equal. */
static int cmp_frames(const char *const *x, size_t nx, const char *const *y, size_t ny)
{
	size_t n = nx < ny ? nx : ny;
	int c;

	for (size_t i = 1; i < n; i++)
		if (x[i] != y[i] && (c = strcmp(x[i], y[i])))
			return c;
	return nx < ny ? -1 : nx > ny;
}

struct entry {
	const struct profile_stack *s;
	size_t nframes;            /* s's, without a [kernel] leaf */
	size_t run;                /* base runs first, then new runs */
	int base;
};

/* The frames of s that are compared: all but a [kernel] leaf, whose
 * ticks count to the user function under it. */
static size_t user_frames(const struct profile_stack *s)
{
	size_t n = s->nframes;

	return n > 1 && !strcmp(s->frames[n - 1], KERNEL_FRAME) ? n - 1 : n;
}

/* Equal stacks together, the new side's first, so that a stack of both
 * sides takes the new side's names (its root is the new process). */
static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = cmp_frames((const char *const *)x->s->frames, x->nframes,
			   (const char *const *)y->s->frames, y->nframes);

	if (c)
		return c;
	if (x->base != y->base)
		return x->base - y->base;
	return x->run < y->run ? -1 : x->run > y->run;
}

static double exposure(int normalize, const struct diff_side *s, size_t i)
{
	return normalize == DIFF_SHARE ? (double)s->runs[i]->samples
	       : normalize == DIFF_DURATION ? s->seconds[i] : s->part[i];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

size_t diff_slice(struct stacks *st, const struct trace *t, const struct profile_opts *o,
		  struct profile **slices)
{
	uint64_t *times = xcalloc(t->nsamples + 1, sizeof(*times));
	size_t n = 0, made = 0;

	for (size_t i = 0; i < t->nsamples; i++)
		if (stacks_keep(st, &o->filter, &t->samples[i]))
			times[n++] = trace_since_start_ns(t, t->samples[i].time);
	qsort(times, n, sizeof(*times), cmp_u64);
	for (size_t k = 0; n >= 2 * DIFF_SLICES && k < DIFF_SLICES; k++) {
		struct profile_opts so = *o;

		so.filter.from = times[k * n / DIFF_SLICES];
		if (k + 1 < DIFF_SLICES) {
			so.filter.to = times[(k + 1) * n / DIFF_SLICES];
			so.filter.has_to = 1;
		}
		slices[made] = profile_build(st, &so);
		if (slices[made]->samples)
			made++;
		else
			profile_free(slices[made]);
	}
	free(times);
	return made;
}

void diff_build(const struct diff_side *base, const struct diff_side *new, int normalize,
		struct diff *d)
{
	const struct diff_side *sides[2] = { base, new };
	const char *root = NULL;
	size_t nruns = base->n + new->n, nentries = 0, pooled = 0, used = 0, run = 0, k = 0;
	struct entry *e;

	memset(d, 0, sizeof(*d));
	d->nbase = base->n;
	d->nnew = new->n;
	d->traces[0] = base->traces;
	d->traces[1] = new->traces;
	d->paired = base->traces == 1 && new->traces == 1 && base->n == new->n && base->n > 1;
	d->normalize = normalize;
	d->exposure = xcalloc(nruns, sizeof(*d->exposure));
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < sides[side]->n; i++) {
			const struct profile *p = sides[side]->runs[i];

			d->exposure[run++] = exposure(normalize, sides[side], i);
			nentries += p->nstacks;
			if (side == 0) {
				d->base_samples += p->samples;
				for (size_t j = 0; j < p->nstacks; j++)
					pooled += p->stacks[j].nframes;
			} else {
				d->new_samples += p->samples;
				if (!root && p->nstacks && p->stacks[0].nframes)
					root = p->stacks[0].frames[0];
			}
		}
	e = xcalloc(nentries + 1, sizeof(*e));
	nentries = run = 0;
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < sides[side]->n; i++, run++) {
			const struct profile *p = sides[side]->runs[i];

			for (size_t j = 0; j < p->nstacks; j++)
				e[nentries++] = (struct entry){ &p->stacks[j], user_frames(&p->stacks[j]),
								run, side == 0 };
		}
	qsort(e, nentries, sizeof(*e), cmp_entry);

	d->pool = xcalloc(pooled + 1, sizeof(*d->pool));
	d->stacks = xcalloc(nentries + 1, sizeof(*d->stacks));
	d->counts = xcalloc(nentries * nruns + 1, sizeof(*d->counts));
	for (size_t i = 0; i < nentries; k++) {
		struct diff_stack *s = &d->stacks[k];
		uint64_t *counts = d->counts + k * nruns;
		const struct profile_stack *first = e[i].s;

		s->frames = (const char *const *)first->frames;
		s->nframes = e[i].nframes;
		s->runs = counts;
		if (e[i].base && root && s->nframes) {
			/* only in the base: rooted under the new process, so
			 * that a renamed program still has one root */
			const char **f = d->pool + used;

			memcpy(f, first->frames, s->nframes * sizeof(*f));
			f[0] = root;
			used += s->nframes;
			s->frames = f;
		}
		for (; i < nentries && !cmp_frames(s->frames, s->nframes, (const char *const *)e[i].s->frames,
						   e[i].nframes);
		     i++) {
			counts[e[i].run] += e[i].s->count;
			*(e[i].base ? &s->base : &s->new) += e[i].s->count;
		}
	}
	d->nstacks = k;
	free(e);
}

void diff_release(struct diff *d)
{
	free(d->stacks);
	free(d->pool);
	free(d->counts);
	free(d->exposure);
	memset(d, 0, sizeof(*d));
}

uint64_t diff_scaled_base(const struct diff *d, uint64_t base)
{
	if (!d->base_samples)
		return 0;
	return (uint64_t)llround((double)base * (double)d->new_samples / (double)d->base_samples);
}

int diff_write_folded(FILE *f, const struct diff *d)
{
	struct buf b;
	int err = 0;

	buf_init(&b);
	for (size_t i = 0; i < d->nstacks && !err; i++) {
		const struct diff_stack *s = &d->stacks[i];

		buf_reset(&b);
		for (size_t k = 0; k < s->nframes; k++) {
			if (k)
				buf_addch(&b, ';');
			folded_escape(&b, s->frames[k]);
		}
		buf_addf(&b, " %llu %llu\n", (unsigned long long)diff_scaled_base(d, s->base),
			 (unsigned long long)s->new);
		if (fwrite(b.data, 1, b.len, f) != b.len)
			err = -EIO;
	}
	buf_release(&b);
	return err || ferror(f) ? -EIO : 0;
}

/* --- the tests ------------------------------------------------------- */

/* Tests the item whose per-run counts are x (the base's runs, then the
 * new's) and gives the result in the unit the tables show: percentage
 * points of share, samples, or samples per second. */
static void test_item(const struct diff *d, const double *x, struct signif_result *r)
{
	struct signif_side b = { x, d->exposure, d->nbase };
	struct signif_side n = { x + d->nbase, d->exposure + d->nbase, d->nnew };
	double unit = d->normalize == DIFF_SHARE ? 100 : 1;
	int model = d->normalize == DIFF_SHARE ? SIGNIF_SHARE : SIGNIF_RATE;

	if (d->paired)
		signif_compare_paired(model, &b, &n, r);
	else
		signif_compare(model, &b, &n, r);
	r->base *= unit;
	r->new *= unit;
	r->change *= unit;
	r->lo *= unit;
	r->hi *= unit;
	r->se *= unit;
}

/* Benjamini-Hochberg over the n changes of v, one family: --check
 * looks at them all, so the false discovery rate is bounded over them
 * all. Returns how many were counted (signif_adjust). */
static size_t adjust(struct diff_change *v, size_t n)
{
	struct signif_result *r = xcalloc(n + 1, sizeof(*r));
	size_t m;

	for (size_t i = 0; i < n; i++)
		r[i] = v[i].r;
	m = signif_adjust(r, n, DIFF_Q);
	for (size_t i = 0; i < n; i++)
		v[i].r.q = r[i].q;
	free(r);
	return m;
}

struct func_entry {
	const struct top_row *row;
	size_t run;
};

static int cmp_func_entry(const void *a, const void *b)
{
	const struct func_entry *x = a, *y = b;
	int c = strcmp(x->row->name, y->row->name);

	return c ? c : x->run < y->run ? -1 : x->run > y->run;
}

static int cmp_change(const void *a, const void *b)
{
	const struct diff_change *x = a, *y = b;

	/* ties the other way round where the shrank table reads backwards */
	int flip = x->r.change < 0 ? -1 : 1;

	if (x->r.change != y->r.change)
		return x->r.change > y->r.change ? -1 : 1;
	if (x->total != y->total)
		return flip * (y->total - x->total);
	return flip * strcmp(x->name, y->name);
}

void diff_changes(const struct diff *d, size_t skip, struct diff_changes *out)
{
	struct top_opts o = { .group = TOP_GROUP_NAME, .sort = TOP_SORT_NAME, .skip = skip };
	size_t nruns = d->nbase + d->nnew, nentries = 0, run = 0, f = 0;
	struct top *tops = xcalloc(nruns, sizeof(*tops));
	struct profile p = { .stacks = xcalloc(d->nstacks + 1, sizeof(*p.stacks)) };
	struct func_entry *e;
	double *x = xcalloc(2 * nruns, sizeof(*x));

	/* each run's profile again from d's stacks, as they are compared */
	for (run = 0; run < nruns; run++) {
		p.nstacks = p.samples = 0;
		for (size_t i = 0; i < d->nstacks; i++)
			if (d->stacks[i].runs[run]) {
				p.stacks[p.nstacks++] = (struct profile_stack){
					.frames = (const char **)d->stacks[i].frames,
					.nframes = d->stacks[i].nframes, .count = d->stacks[i].runs[run]
				};
				p.samples += d->stacks[i].runs[run];
			}
		top_build(&p, &o, &tops[run]);
		nentries += tops[run].nrows;
	}
	free(p.stacks);
	e = xcalloc(nentries + 1, sizeof(*e));
	nentries = 0;
	for (run = 0; run < nruns; run++)
		for (size_t j = 0; j < tops[run].nrows; j++)
			e[nentries++] = (struct func_entry){ &tops[run].rows[j], run };
	qsort(e, nentries, sizeof(*e), cmp_func_entry);

	memset(out, 0, sizeof(*out));
	out->v = xcalloc(2 * nentries + 1, sizeof(*out->v));
	for (size_t i = 0; i < nentries; f++) {
		const char *name = e[i].row->name;

		memset(x, 0, 2 * nruns * sizeof(*x));
		for (; i < nentries && !strcmp(e[i].row->name, name); i++) {
			x[e[i].run] = (double)e[i].row->self;
			x[nruns + e[i].run] = (double)e[i].row->total;
		}
		for (int total = 0; total < 2; total++) {
			struct diff_change *c = &out->v[2 * f + (size_t)total];

			c->name = name;
			c->total = total;
			test_item(d, x + (size_t)total * nruns, &c->r);
		}
	}
	out->n = 2 * f;
	out->tests = adjust(out->v, out->n);
	for (size_t i = 0; i < out->n; i++) {
		const struct signif_result *r = &out->v[i].r;
		double least = r->least_p < DIFF_Q ? signif_detectable(r->se, r->df, DIFF_Q, out->tests) : 0;

		if (least > out->detectable)
			out->detectable = least;
	}
	qsort(out->v, out->n, sizeof(*out->v), cmp_change);
	out->functions = f;
	out->traces[0] = d->traces[0];
	out->traces[1] = d->traces[1];
	out->samples[0] = d->base_samples;
	out->samples[1] = d->new_samples;
	out->normalize = d->normalize;
	for (run = 0; run < nruns; run++)
		top_release(&tops[run]);
	free(tops);
	free(e);
	free(x);
}

void diff_changes_release(struct diff_changes *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* Whether r is significant and, in the table's unit, at least threshold. */
static int is_flagged(const struct signif_result *r, double threshold)
{
	return r->q < DIFF_Q && fabs(r->change) >= threshold;
}

/* --- the table ------------------------------------------------------- */

enum { LEVEL, CHANGE, SIZE };

/* A value in the unit of normalize: a level, a change (signed) or the
 * size of a change. */
static void add_value(struct buf *b, int normalize, double v, int what)
{
	static const char *const units[][3] = {
		[DIFF_SHARE] = { "%", "pp", "pp" },
		[DIFF_COUNTS] = { "", "", "" },
		[DIFF_DURATION] = { "/s", "/s", "/s" },
	};

	buf_addf(b, what == CHANGE ? "%+.*f%s" : "%.*f%s", normalize == DIFF_SHARE ? 2 : 1, v,
		 units[normalize][what]);
}

static void add_q(struct buf *b, double q)
{
	if (q < 0.0001)
		buf_addstr(b, "<0.0001");
	else
		buf_addf(b, "%.4f", q);
}

/* "+8.12pp [+4.44, +11.80]" */
static void add_interval(struct buf *b, int normalize, const struct signif_result *r)
{
	buf_addch(b, '[');
	add_value(b, normalize, r->lo, CHANGE);
	buf_addstr(b, ", ");
	add_value(b, normalize, r->hi, CHANGE);
	buf_addch(b, ']');
}

static const char *const what_words[] = {
	[DIFF_SHARE] = "share",
	[DIFF_COUNTS] = "samples",
	[DIFF_DURATION] = "samples per second",
};

static int cmp_size(const void *a, const void *b)
{
	const struct diff_change *x = *(const struct diff_change *const *)a;
	const struct diff_change *y = *(const struct diff_change *const *)b;

	int c;

	if (fabs(x->r.change) != fabs(y->r.change))
		return fabs(x->r.change) > fabs(y->r.change) ? -1 : 1;
	if (x->total != y->total)
		return y->total - x->total;
	if ((c = strcmp(x->name, y->name)))
		return c;
	return x->r.change > y->r.change ? -1 : x->r.change < y->r.change;
}

/* The changes of c flagged at threshold, largest first, into *out (caller
 * frees). Returns how many. */
static size_t by_size(const struct diff_changes *c, double threshold,
		      const struct diff_change ***out)
{
	size_t n = 0;

	*out = xcalloc(c->n + 1, sizeof(**out));
	for (size_t i = 0; i < c->n; i++)
		if (is_flagged(&c->v[i].r, threshold))
			(*out)[n++] = &c->v[i];
	qsort(*out, n, sizeof(**out), cmp_size);
	return n;
}

/* "path_a total -8.99pp [-12.36pp, -5.62pp]" */
static void add_change(struct buf *b, int normalize, const struct diff_change *x)
{
	text_escape(b, x->name);
	buf_addstr(b, x->total ? " total " : " self ");
	add_value(b, normalize, x->r.change, CHANGE);
	buf_addch(b, ' ');
	add_interval(b, normalize, &x->r);
}

/* "no significant change", and "of THRESHOLD or more" if there is one */
static void add_held(struct buf *b, int normalize, double threshold)
{
	buf_addstr(b, "no significant change");
	if (threshold > 0) {
		buf_addstr(b, " of ");
		add_value(b, normalize, threshold, SIZE);
		buf_addstr(b, " or more");
	}
}

/* The line for no change flagged at threshold: the significant changes
 * that threshold hid, if any, else the smallest change detectable. */
static int write_none(FILE *f, const struct diff_changes *c, double threshold)
{
	const struct diff_change **small;
	size_t n = by_size(c, 0, &small);
	struct buf b;

	buf_init(&b);
	add_held(&b, c->normalize, n ? threshold : 0);
	buf_addf(&b, " (q < %.2f) in the self or total %s of %zu function%s; ", DIFF_Q,
		 what_words[c->normalize], c->functions, c->functions == 1 ? "" : "s");
	if (n) {
		buf_addf(&b, "%zu significant change%s below --threshold, the largest ", n,
			 n == 1 ? " is" : "s are");
		add_change(&b, c->normalize, small[0]);
	} else if (c->tests) {
		buf_addstr(&b, "the smallest change detectable at this sample size is ");
		add_value(&b, c->normalize, c->detectable, SIZE);
		buf_addf(&b, " (80%% power for a lone change among %zu test%s)", c->tests,
			 c->tests == 1 ? "" : "s");
	} else {
		buf_addstr(&b, "no change in them could be significant "
			       "(too few samples, or all or none of every run)");
	}
	fprintf(f, "%s\n", (char *)b.data);
	buf_release(&b);
	free(small);
	return ferror(f) ? -EIO : 0;
}

/* Writes the rows of one section, those whose change has sign sign, in
 * order of size. */
static void write_section(FILE *f, const struct diff_changes *c, const struct diff_table_opts *o,
			  const char *title, int sign, size_t limit)
{
	struct buf name, v[5];
	size_t shown = 0;

	fprintf(f, "%s\n%10s %-20s %9s %9s %8s  %-5s  %-5s  %s\n", title, "CHANGE", "  95% INTERVAL",
		"BASE", "NEW", "Q", "SIG", "KIND", "FUNCTION");
	buf_init(&name);
	for (int k = 0; k < 5; k++)
		buf_init(&v[k]);
	for (size_t i = 0; i < c->n && shown < limit; i++) {
		const struct diff_change *x = &c->v[sign < 0 ? c->n - 1 - i : i];
		int flagged = is_flagged(&x->r, o->threshold);

		if ((x->r.change > 0) - (x->r.change < 0) != sign || !(flagged || o->all))
			continue;
		for (int k = 0; k < 5; k++)
			buf_reset(&v[k]);
		add_value(&v[0], c->normalize, x->r.change, CHANGE);
		add_interval(&v[1], c->normalize, &x->r);
		add_value(&v[2], c->normalize, x->r.base, LEVEL);
		add_value(&v[3], c->normalize, x->r.new, LEVEL);
		add_q(&v[4], x->r.q);
		buf_reset(&name);
		text_escape(&name, x->name);
		fprintf(f, "%10s %-20s %9s %9s %8s  %-5s  %-5s  %s\n", (char *)v[0].data, (char *)v[1].data,
			(char *)v[2].data, (char *)v[3].data, (char *)v[4].data,
			flagged ? "yes" : x->r.q < DIFF_Q ? "small" : "no", x->total ? "total" : "self",
			(char *)name.data);
		shown++;
	}
	if (!shown)
		fprintf(f, "  (none)\n");
	buf_release(&name);
	for (int k = 0; k < 5; k++)
		buf_release(&v[k]);
}

static size_t count_flagged(const struct diff_changes *c, double threshold)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += (size_t)is_flagged(&c->v[i].r, threshold);
	return n;
}

int diff_write_table(FILE *f, const struct diff_changes *c, const struct diff_table_opts *o)
{
	size_t flagged = count_flagged(c, o->threshold);
	size_t limit = o->limit ? o->limit : o->all ? SIZE_MAX : 10;

	if (!flagged && !o->all)
		return write_none(f, c, o->threshold);
	fprintf(f, "base: %zu run%s, %llu samples; new: %zu run%s, %llu samples; by %s, "
		   "significant at q < %.2f\n\n",
		c->traces[0], c->traces[0] == 1 ? "" : "s", (unsigned long long)c->samples[0], c->traces[1],
		c->traces[1] == 1 ? "" : "s", (unsigned long long)c->samples[1], what_words[c->normalize],
		DIFF_Q);
	write_section(f, c, o, "grew:", 1, limit);
	fputc('\n', f);
	write_section(f, c, o, "shrank:", -1, limit);
	if (o->all) {
		fputc('\n', f);
		write_section(f, c, o, "held:", 0, limit);
		if (!flagged) {
			fputc('\n', f);
			write_none(f, c, o->threshold);
		}
	}
	return ferror(f) ? -EIO : (int)flagged;
}

int diff_write_summary(FILE *f, const struct diff_changes *c, double threshold)
{
	const struct diff_change **v;
	size_t n = by_size(c, threshold, &v);
	struct buf b;

	if (!n) {
		free(v);
		return write_none(f, c, threshold);
	}
	buf_init(&b);
	buf_addf(&b, "%zu significant change%s (q < %.2f):", n, n == 1 ? "" : "s", DIFF_Q);
	for (size_t i = 0; i < n && i < 3; i++) {
		buf_addstr(&b, i ? ", " : " ");
		add_change(&b, c->normalize, v[i]);
	}
	if (n > 3)
		buf_addf(&b, " and %zu more", n - 3);
	fprintf(f, "%s\n", (char *)b.data);
	buf_release(&b);
	free(v);
	return ferror(f) ? -EIO : (int)n;
}

/* --- HTML ------------------------------------------------------------- */

int diff_write_html_table(FILE *f, const struct diff_changes *c, double threshold)
{
	static const char *const heads[] = { "change", "95% interval", "base", "new", "q",
					     "significant", "kind", "function" };
	size_t flagged = count_flagged(c, threshold);
	struct buf b, v;

	buf_init(&b);
	buf_init(&v);
	buf_addf(&b, "<p id=\"sides\">base: %zu run%s, %llu samples; new: %zu run%s, %llu samples; "
		 "by %s; %zu significant change%s at q &lt; %.2f</p>\n<table id=\"changes\">\n<thead><tr>",
		 c->traces[0], c->traces[0] == 1 ? "" : "s", (unsigned long long)c->samples[0], c->traces[1],
		 c->traces[1] == 1 ? "" : "s", (unsigned long long)c->samples[1], what_words[c->normalize],
		 flagged, flagged == 1 ? "" : "s", DIFF_Q);
	for (size_t k = 0; k < sizeof(heads) / sizeof(*heads); k++)
		buf_addf(&b, "<th>%s</th>", heads[k]);
	buf_addstr(&b, "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < c->n; i++) {
		const struct diff_change *x = &c->v[i];
		int yes = is_flagged(&x->r, threshold);
		const double nums[] = { x->r.change, x->r.lo, x->r.base, x->r.new, x->r.q };

		buf_addf(&b, "<tr%s>", yes ? "" : " class=\"insignificant\"");
		for (int k = 0; k < 5; k++) {
			buf_reset(&v);
			if (k == 1)
				add_interval(&v, c->normalize, &x->r);
			else if (k == 4)
				add_q(&v, x->r.q);
			else
				add_value(&v, c->normalize, nums[k], k ? LEVEL : CHANGE);
			buf_addf(&b, "<td data-v=\"%.6g\">", nums[k]);
			flamegraph_xml_escape(&b, (const char *)v.data, v.len);
			buf_addstr(&b, "</td>");
		}
		buf_addf(&b, "<td>%s</td><td>%s</td><td>", yes ? "yes" : x->r.q < DIFF_Q ? "small" : "no",
			 x->total ? "total" : "self");
		flamegraph_xml_escape(&b, x->name, 4096);
		buf_addstr(&b, "</td></tr>\n");
		if (b.len > (64u << 10)) {
			fwrite(b.data, 1, b.len, f);
			buf_reset(&b);
		}
	}
	buf_addstr(&b, "</tbody>\n</table>\n");
	fwrite(b.data, 1, b.len, f);
	buf_release(&b);
	buf_release(&v);
	return ferror(f) ? -EIO : (int)flagged;
}

/* --- JSON ------------------------------------------------------------- */

static const char *const normalize_words[] = {
	[DIFF_SHARE] = "share",
	[DIFF_COUNTS] = "samples",
	[DIFF_DURATION] = "rate",
};

static const char *const unit_words[] = {
	[DIFF_SHARE] = "percentage points",
	[DIFF_COUNTS] = "samples",
	[DIFF_DURATION] = "samples per second",
};

static void json_side(struct json *j, const char *key, size_t runs, uint64_t samples)
{
	json_object(j, key);
	json_u64(j, "runs", runs);
	json_u64(j, "samples", samples);
	json_end(j);
}

int diff_write_json(FILE *f, const struct diff_changes *c, const struct diff_table_opts *o,
		    int check)
{
	size_t flagged = count_flagged(c, o->threshold);
	struct buf b;
	struct json j;

	json_report_begin(&j, &b, "diff");
	json_side(&j, "base", c->traces[0], c->samples[0]);
	json_side(&j, "new", c->traces[1], c->samples[1]);
	json_str(&j, "normalize", normalize_words[c->normalize]);
	json_str(&j, "unit", unit_words[c->normalize]);
	json_double(&j, "q_below", DIFF_Q, 6);
	json_double(&j, "threshold", o->threshold, 6);
	json_u64(&j, "functions", c->functions);
	json_u64(&j, "tests", c->tests);
	if (c->tests)
		json_double(&j, "detectable", c->detectable, 6);
	else
		json_null(&j, "detectable");
	json_u64(&j, "significant", flagged);
	if (check)
		json_str(&j, "verdict", flagged ? "changed" : "unchanged");
	json_array(&j, "changes");
	for (size_t i = 0; i < c->n; i++) {
		const struct diff_change *x = &c->v[i];
		int yes = is_flagged(&x->r, o->threshold);

		if (!yes && !o->all)
			continue;
		json_object(&j, NULL);
		json_str(&j, "name", x->name);
		json_str(&j, "kind", x->total ? "total" : "self");
		json_double(&j, "change", x->r.change, 6);
		json_array(&j, "interval");
		json_double(&j, NULL, x->r.lo, 6);
		json_double(&j, NULL, x->r.hi, 6);
		json_end(&j);
		json_double(&j, "base", x->r.base, 6);
		json_double(&j, "new", x->r.new, 6);
		json_double(&j, "p", x->r.p, 6);
		json_double(&j, "q", x->r.q, 6);
		json_bool(&j, "significant", yes);
		json_end(&j);
	}
	json_end(&j);
	return json_report_write(&j, f) < 0 ? -EIO : (int)flagged;
}

/* --- the flame graph ------------------------------------------------- */

struct graph {
	const struct diff *d;
	struct hmap at;       /* (prefix hash, depth) -> index in nodes */
	struct graph_node {
		uint64_t base, new;   /* scaled base, and new: what is drawn */
		struct signif_result r;
	} *nodes;
	size_t nnodes, capnodes;
	double *runs;         /* per node, the per-run counts */
	size_t capruns;
	double max_change;    /* the largest |change| of a flagged frame */
	double threshold;
	int negate;
};

static uint64_t step(uint64_t h, const char *name)
{
	return XXH3_64bits_withSeed(name, strlen(name) + 1, h);
}

static uint64_t path_hash(const char *const *path, size_t depth)
{
	uint64_t h = 0;

	for (size_t k = 0; k < depth; k++)
		h = step(h, path[k]);
	return h;
}

/* Adds a stack's counts to every frame it passes through, as drawn. */
static void add_path(struct graph *g, const struct diff_stack *s, int reverse)
{
	size_t nruns = g->d->nbase + g->d->nnew, n = s->nframes;
	uint64_t h = 0, base = diff_scaled_base(g->d, s->base);
	int added;

	for (size_t depth = 0; depth <= n; depth++) {
		uint64_t *slot;
		double *runs;

		if (depth)
			h = step(h, s->frames[reverse ? n - depth : depth - 1]);
		slot = hmap_put(&g->at, h, depth, g->nnodes, &added);
		if (added) {
			g->nodes = xgrow(g->nodes, &g->capnodes, g->nnodes + 1, sizeof(*g->nodes));
			memset(&g->nodes[g->nnodes], 0, sizeof(*g->nodes));
			g->runs = xgrow(g->runs, &g->capruns, (g->nnodes + 1) * nruns, sizeof(*g->runs));
			memset(g->runs + g->nnodes * nruns, 0, nruns * sizeof(*g->runs));
			g->nnodes++;
		}
		g->nodes[*slot].base += base;
		g->nodes[*slot].new += s->new;
		runs = g->runs + *slot * nruns;
		for (size_t k = 0; k < nruns; k++)
			runs[k] += (double)s->runs[k];
	}
}

static const struct graph_node *find(const struct graph *g, const char *const *path, size_t depth)
{
	uint64_t *slot = hmap_get(&g->at, path_hash(path, depth), depth);

	return slot ? &g->nodes[*slot] : NULL;
}

/* Flagged frames from white to full red or blue at the largest change;
 * the rest grey. */
static uint32_t change_color(void *ctx, const char *const *path, size_t depth)
{
	const struct graph *g = ctx;
	const struct graph_node *n = find(g, path, depth);
	double change, r;
	unsigned fade;

	if (!n)
		return FLAMEGRAPH_NO_COLOR;
	if (!depth || !is_flagged(&n->r, g->threshold))
		return GREY_FILL;
	change = g->negate ? -n->r.change : n->r.change;
	r = g->max_change > 0 ? fabs(change) / g->max_change : 0;
	fade = (unsigned)lround(220.0 - 190.0 * r); /* 0x1e at the largest */
	return change > 0 ? 0xff0000u | fade << 8 | fade : fade << 16 | fade << 8 | 0xffu;
}

static void change_details(void *ctx, const char *const *path, size_t depth, struct buf *out)
{
	const struct graph *g = ctx;
	const struct graph_node *n = find(g, path, depth);
	int normalize = g->d->normalize;

	if (!n || !depth)
		return;
	buf_addstr(out, "base ");
	add_value(out, normalize, n->r.base, LEVEL);
	buf_addstr(out, ", new ");
	add_value(out, normalize, n->r.new, LEVEL);
	buf_addstr(out, ": ");
	add_value(out, normalize, n->r.change, CHANGE);
	buf_addstr(out, " ");
	add_interval(out, normalize, &n->r);
	buf_addstr(out, ", q ");
	add_q(out, n->r.q);
	/* as the table's SIG column says it */
	buf_addstr(out, is_flagged(&n->r, g->threshold) ? ", significant"
			: n->r.q < DIFF_Q ? ", small: significant, below --threshold"
			: ", not significant");
}

int diff_write_svg(FILE *f, const struct diff *d, const struct flamegraph_opts *o, int negate,
		   double threshold)
{
	struct profile p = { 0 };
	struct flamegraph_opts fo = *o;
	struct graph g = { .d = d, .negate = negate, .threshold = threshold };
	size_t nruns = d->nbase + d->nnew;
	const char *grew = "grew, q < 0.05 (deeper: a larger change)", *shrank = "shrank, q < 0.05";
	struct buf held;
	struct flamegraph_legend legend[] = {
		{ 0xff1e1eu, negate ? shrank : grew },
		{ 0x1e1effu, negate ? grew : shrank },
		{ GREY_FILL, NULL },
	};
	struct signif_result *r;
	int err;

	buf_init(&held);
	add_held(&held, d->normalize, threshold);
	legend[2].label = (char *)held.data;
	hmap_init(&g.at);
	p.stacks = xcalloc(d->nstacks + 1, sizeof(*p.stacks));
	for (size_t i = 0; i < d->nstacks; i++) {
		const struct diff_stack *s = &d->stacks[i];
		uint64_t base = diff_scaled_base(d, s->base);

		p.stacks[i] = (struct profile_stack){ .frames = (const char **)s->frames,
						      .nframes = s->nframes,
						      .count = base > s->new ? base : s->new };
		p.samples += p.stacks[i].count;
		add_path(&g, s, o->reverse);
	}
	p.nstacks = d->nstacks;
	/* node 0 is the "all" frame, 100% on both sides: not a test */
	r = xcalloc(g.nnodes + 1, sizeof(*r));
	for (size_t i = 1; i < g.nnodes; i++)
		test_item(d, g.runs + i * nruns, &r[i]);
	if (g.nnodes > 1)
		signif_adjust(r + 1, g.nnodes - 1, DIFF_Q);
	for (size_t i = 1; i < g.nnodes; i++) {
		g.nodes[i].r = r[i];
		if (is_flagged(&g.nodes[i].r, threshold) && fabs(r[i].change) > g.max_change)
			g.max_change = fabs(r[i].change);
	}
	free(r);
	fo.legend = legend;
	fo.nlegend = sizeof(legend) / sizeof(*legend);
	fo.frame_info = NULL;
	fo.color = change_color;
	fo.details = change_details;
	fo.ctx = &g;
	err = flamegraph_write_svg(f, &p, &fo);
	free(p.stacks);
	free(g.nodes);
	free(g.runs);
	hmap_release(&g.at);
	buf_release(&held);
	return err;
}
