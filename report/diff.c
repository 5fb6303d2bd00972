/*
 * diff.c: what changed between two runs.
 *
 * Both profiles are sorted lists of stacks, so they merge in one pass, the
 * way sorted files are joined. Everything after that is arithmetic on the
 * merged list: folded output with both counts, the per-function table
 * (two top tables joined by name), and the flame graph, whose frames are
 * as wide as the larger of their two normalised counts, so that what
 * vanished stays visible, and coloured by how much their subtree changed.
 * A frame is found again from its path in the flame graph's callbacks by a
 * hash of the names from the base up, the same hash this file computes
 * for every prefix of every stack beforehand.
 */
#include "diff.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/hmap.h"
#include "report/folded.h"
#include "report/text.h"
#include "report/top.h"

/* Stacks in profile order, but the root frame (the process) always equal. */
static int cmp_frames(const struct diff_stack *x, const struct diff_stack *y)
{
	size_t n = x->nframes < y->nframes ? x->nframes : y->nframes;
	int c;

	for (size_t i = 1; i < n; i++)
		if (x->frames[i] != y->frames[i] && (c = strcmp(x->frames[i], y->frames[i])))
			return c;
	return x->nframes < y->nframes ? -1 : x->nframes > y->nframes;
}

static struct diff_stack from(const struct profile_stack *s, int base)
{
	return (struct diff_stack){ .frames = s->frames, .nframes = s->nframes,
				    .base = base ? s->count : 0, .new = base ? 0 : s->count };
}

/* A base-only stack under the new run's root frame, so that a renamed
 * program still has one root. */
static struct diff_stack rerooted(struct diff *d, size_t *used, const struct profile_stack *s,
				  const char *root)
{
	struct diff_stack r = from(s, 1);
	const char **f = d->pool + *used;

	if (!root || !s->nframes)
		return r;
	memcpy(f, s->frames, s->nframes * sizeof(*f));
	f[0] = root;
	*used += s->nframes;
	r.frames = f;
	return r;
}

void diff_build(const struct profile *base, const struct profile *new, struct diff *d)
{
	const char *root = new->nstacks && new->stacks[0].nframes ? new->stacks[0].frames[0] : NULL;
	size_t i = 0, j = 0, n = 0, pooled = 0, used = 0;

	for (i = 0; i < base->nstacks; i++)
		pooled += base->stacks[i].nframes;
	i = 0;
	memset(d, 0, sizeof(*d));
	d->pool = xcalloc(pooled + 1, sizeof(*d->pool));
	d->stacks = xcalloc(base->nstacks + new->nstacks + 1, sizeof(*d->stacks));
	while (i < base->nstacks || j < new->nstacks) {
		struct diff_stack b, w;
		int c;

		if (i == base->nstacks) {
			d->stacks[n++] = from(&new->stacks[j++], 0);
			continue;
		}
		if (j == new->nstacks) {
			d->stacks[n++] = rerooted(d, &used, &base->stacks[i++], root);
			continue;
		}
		b = from(&base->stacks[i], 1);
		w = from(&new->stacks[j], 0);
		c = cmp_frames(&b, &w);
		if (c < 0) {
			d->stacks[n++] = rerooted(d, &used, &base->stacks[i], root);
			i++;
		} else if (c > 0) {
			d->stacks[n++] = w;
			j++;
		} else {
			/* The new run's names, so the root is the new process. */
			w.base = b.base;
			d->stacks[n++] = w;
			i++;
			j++;
		}
	}
	d->nstacks = n;
	d->base_samples = base->samples;
	d->new_samples = new->samples;
}

void diff_release(struct diff *d)
{
	free(d->stacks);
	free(d->pool);
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

/* --- the table ------------------------------------------------------ */

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	double dx = x->new_self - x->base_self, dy = y->new_self - y->base_self;

	if (dx != dy)
		return dx > dy ? -1 : 1;
	dx = x->new_total - x->base_total;
	dy = y->new_total - y->base_total;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

void diff_rows(const struct profile *base, const struct profile *new, size_t skip,
	       struct diff_row **rows, size_t *n)
{
	struct top_opts o = { .group = TOP_GROUP_NAME, .sort = TOP_SORT_NAME, .skip = skip };
	struct top tb, tn;
	struct diff_row *r;
	size_t i = 0, j = 0, k = 0;
	double scale;

	top_build(base, &o, &tb);
	top_build(new, &o, &tn);
	scale = tb.samples ? (double)tn.samples / (double)tb.samples : 0;
	r = xcalloc(tb.nrows + tn.nrows + 1, sizeof(*r));
	while (i < tb.nrows || j < tn.nrows) {
		const struct top_row *x = i < tb.nrows ? &tb.rows[i] : NULL;
		const struct top_row *y = j < tn.nrows ? &tn.rows[j] : NULL;
		int c = !x ? 1 : !y ? -1 : strcmp(x->name, y->name);

		r[k].name = c <= 0 ? x->name : y->name;
		if (c <= 0) {
			r[k].base_self = share(x->self, tb.samples);
			r[k].base_total = share(x->total, tb.samples);
			r[k].self_change -= llround((double)x->self * scale);
			r[k].total_change -= llround((double)x->total * scale);
			i++;
		}
		if (c >= 0) {
			r[k].new_self = share(y->self, tn.samples);
			r[k].new_total = share(y->total, tn.samples);
			r[k].self_change += (int64_t)y->self;
			r[k].total_change += (int64_t)y->total;
			j++;
		}
		k++;
	}
	qsort(r, k, sizeof(*r), cmp_row);
	top_release(&tb);
	top_release(&tn);
	*rows = r;
	*n = k;
}

static void write_rows(FILE *f, const char *title, const struct diff_row *rows, size_t n,
		       int sign, size_t limit)
{
	struct buf name;
	size_t shown = 0;

	fprintf(f, "%s\n%10s %10s %16s %9s %9s  %s\n", title, "SELF", "TOTAL", "SELF BASE->NEW",
		"SAMPLES", "TOTAL", "FUNCTION");
	buf_init(&name);
	for (size_t i = 0; i < n && shown < limit; i++) {
		const struct diff_row *r = sign > 0 ? &rows[i] : &rows[n - 1 - i];
		double ds = 100 * (r->new_self - r->base_self), dt = 100 * (r->new_total - r->base_total);

		/* rows are sorted by self change, then total change: a caller
		 * whose own share held still but whose callees moved comes
		 * after every function whose own share moved. */
		if (sign > 0 ? !(ds > 0 || (ds == 0 && dt > 0)) : !(ds < 0 || (ds == 0 && dt < 0)))
			break;
		buf_reset(&name);
		text_escape(&name, r->name);
		fprintf(f, "%+8.2fpp %+8.2fpp %6.2f%%->%6.2f%% %+9lld %+9lld  %s\n", ds, dt,
			100 * r->base_self, 100 * r->new_self, (long long)r->self_change,
			(long long)r->total_change, (char *)name.data);
		shown++;
	}
	if (!shown)
		fprintf(f, "  (none)\n");
	buf_release(&name);
}

int diff_write_table(FILE *f, const struct diff_row *rows, size_t n, size_t limit)
{
	if (!limit)
		limit = 10;
	write_rows(f, "grew:", rows, n, 1, limit);
	fputc('\n', f);
	write_rows(f, "shrank:", rows, n, -1, limit);
	return ferror(f) ? -EIO : 0;
}

/* --- the flame graph ------------------------------------------------- */

struct graph {
	struct hmap at;       /* (prefix hash, depth) -> index in sums */
	struct { uint64_t base, new; } *sums;
	size_t nsums, capsums;
	double max_change;    /* the largest |new - base| of any frame */
	int negate;
	uint64_t new_total;
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
static void add_path(struct graph *g, const char *const *frames, size_t n, int reverse,
		     uint64_t base, uint64_t new)
{
	uint64_t h = 0;
	int added;

	for (size_t depth = 0; depth <= n; depth++) {
		uint64_t *slot;

		if (depth)
			h = step(h, frames[reverse ? n - depth : depth - 1]);
		slot = hmap_put(&g->at, h, depth, g->nsums, &added);
		if (added) {
			g->sums = xgrow(g->sums, &g->capsums, g->nsums + 1, sizeof(*g->sums));
			g->sums[g->nsums].base = g->sums[g->nsums].new = 0;
			g->nsums++;
		}
		g->sums[*slot].base += base;
		g->sums[*slot].new += new;
	}
}

static const void *find(const struct graph *g, const char *const *path, size_t depth,
			uint64_t *base, uint64_t *new)
{
	uint64_t *slot = hmap_get(&g->at, path_hash(path, depth), depth);

	if (!slot)
		return NULL;
	*base = g->sums[*slot].base;
	*new = g->sums[*slot].new;
	return slot;
}

/* White for no change, to full red or blue at the largest change. */
static uint32_t change_color(void *ctx, const char *const *path, size_t depth)
{
	const struct graph *g = ctx;
	uint64_t base, new;
	double change, r;
	unsigned fade;

	if (!find(g, path, depth, &base, &new))
		return FLAMEGRAPH_NO_COLOR;
	change = (double)new - (double)base;
	if (g->negate)
		change = -change;
	r = g->max_change > 0 ? fabs(change) / g->max_change : 0;
	fade = (unsigned)lround(250.0 - 210.0 * r);
	if (change > 0)
		return 0xff0000u | fade << 8 | fade;
	if (change < 0)
		return fade << 16 | fade << 8 | 0xffu;
	return 0xfafafau;
}

static void change_details(void *ctx, const char *const *path, size_t depth, struct buf *out)
{
	const struct graph *g = ctx;
	uint64_t base, new;
	double b, n;

	if (!find(g, path, depth, &base, &new))
		return;
	b = 100 * share(base, g->new_total);
	n = 100 * share(new, g->new_total);
	buf_addf(out, "base %.2f%%, new %.2f%%, %+.2f pp", b, n, n - b);
}

int diff_write_svg(FILE *f, const struct diff *d, const struct flamegraph_opts *o, int negate)
{
	struct profile p = { 0 };
	struct flamegraph_opts fo = *o;
	struct graph g = { .negate = negate, .new_total = d->new_samples };
	int err;

	hmap_init(&g.at);
	p.stacks = xcalloc(d->nstacks + 1, sizeof(*p.stacks));
	for (size_t i = 0; i < d->nstacks; i++) {
		const struct diff_stack *s = &d->stacks[i];
		uint64_t base = diff_scaled_base(d, s->base);

		p.stacks[i] = (struct profile_stack){ .frames = (const char **)s->frames,
						      .nframes = s->nframes,
						      .count = base > s->new ? base : s->new };
		p.samples += p.stacks[i].count;
		add_path(&g, s->frames, s->nframes, o->reverse, base, s->new);
	}
	p.nstacks = d->nstacks;
	for (size_t i = 0; i < g.nsums; i++) {
		double c = fabs((double)g.sums[i].new - (double)g.sums[i].base);
		if (c > g.max_change)
			g.max_change = c;
	}
	fo.frame_info = NULL;
	fo.color = change_color;
	fo.details = change_details;
	fo.ctx = &g;
	err = flamegraph_write_svg(f, &p, &fo);
	free(p.stacks);
	free(g.sums);
	hmap_release(&g.at);
	return err;
}
