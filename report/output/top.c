/*
 * top.c: self and total samples per function (or image, or line), from
 * the profile's merged stacks rather than from the samples, so the work
 * is proportional to the distinct stacks.
 *
 * Each group name is interned once in a hash of its bytes; a row remembers
 * the last stack that added to its total, which is how a function that
 * recurses, or an image entered twice, counts once per stack.
 */
#include "report/output/top.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/hmap.h"
#include "common/json.h"
#include "common/text.h"

static const char unknown_image[] = "[unknown]";
static const char anon_group[] = TOP_ANON;
static const char jit_group[] = TOP_JIT;

/* The group of frame name under o: by image, code no file holds is JIT
 * code a code range names, or anonymous memory; by function or line, the
 * unnamed addresses of anonymous memory are one row, not one each, as
 * their names are only addresses. */
static const char *group_of(const struct profile *p, const struct top_opts *o, const char *name)
{
	const struct profile_frame_info *fi;

	if (o->group != TOP_GROUP_IMAGE) {
		if (!o->merge_anon)
			return name;
		fi = profile_frame_info(p, name);
		return fi && fi->region == TRACE_REGION_ANON && !fi->resolved ? anon_group : name;
	}
	fi = profile_frame_info(p, name);
	if (fi && fi->region == TRACE_REGION_JIT)
		return jit_group;
	if (fi && fi->region == TRACE_REGION_ANON)
		return anon_group;
	return fi && fi->image ? fi->image : unknown_image;
}

/* The row of name, added if new. Names are compared by content: a second
 * name with the same hash and length takes the next probe. */
static size_t intern(struct top *t, size_t *cap, uint64_t **last, struct hmap *m, const char *name)
{
	size_t len = strlen(name);
	uint64_t h = XXH3_64bits(name, len), *slot;
	int added;

	for (uint64_t probe = 0;; probe++) {
		slot = hmap_put(m, h, (uint64_t)len | probe << 48, t->nrows, &added);
		if (!added && strcmp(t->rows[*slot].name, name))
			continue;
		if (added) {
			size_t lcap = *cap;

			t->rows = xgrow(t->rows, cap, t->nrows + 1, sizeof(*t->rows));
			*last = xgrow(*last, &lcap, t->nrows + 1, sizeof(**last));
			t->rows[t->nrows] = (struct top_row){ .name = name };
			(*last)[t->nrows] = 0;
			t->nrows++;
		}
		return (size_t)*slot;
	}
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct top_row *)a)->name, ((const struct top_row *)b)->name);
}

static int cmp_self(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_total(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

void top_build(const struct profile *p, const struct top_opts *o, struct top *out)
{
	static const struct top_opts defaults = { .skip = 1 };
	struct hmap m;
	uint64_t *last = NULL; /* per row: 1 + the last stack added to total */
	size_t cap = 0, i, f, r;

	if (!o)
		o = &defaults;
	memset(out, 0, sizeof(*out));
	out->samples = p->samples;
	hmap_init(&m);
	for (i = 0; i < p->nstacks; i++) {
		const struct profile_stack *st = &p->stacks[i];

		for (f = o->skip; f < st->nframes; f++) {
			r = intern(out, &cap, &last, &m, group_of(p, o, st->frames[f]));
			if (last[r] != i + 1) {
				out->rows[r].total += st->count;
				last[r] = i + 1;
			}
			if (f + 1 == st->nframes)
				out->rows[r].self += st->count;
		}
	}
	hmap_release(&m);
	free(last);
	if (out->nrows)
		qsort(out->rows, out->nrows, sizeof(*out->rows),
		      o->sort == TOP_SORT_NAME ? cmp_name : o->sort == TOP_SORT_TOTAL ? cmp_total : cmp_self);
}

void top_release(struct top *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

static void add_share(struct buf *b, uint64_t part, uint64_t whole)
{
	buf_reset(b);
	if (!whole)
		buf_addstr(b, "-");
	else
		buf_addf(b, "%.1f%%", 100.0 * (double)part / (double)whole);
}

int top_write(FILE *f, const struct top *t, size_t limit, const char *heading, const char *noun)
{
	struct buf name, self, total;
	size_t i, n = limit && limit < t->nrows ? limit : t->nrows;

	buf_init(&name);
	buf_init(&self);
	buf_init(&total);
	fprintf(f, "%6s  %6s  %9s  %9s  %s\n", "SELF%", "TOTAL%", "SELF", "TOTAL", heading);
	for (i = 0; i < n; i++) {
		const struct top_row *r = &t->rows[i];

		buf_reset(&name);
		text_escape(&name, r->name);
		add_share(&self, r->self, t->samples);
		add_share(&total, r->total, t->samples);
		fprintf(f, "%6s  %6s  %9" PRIu64 "  %9" PRIu64 "  %s\n", (char *)self.data,
			(char *)total.data, r->self, r->total, (char *)name.data);
	}
	fprintf(f, "%" PRIu64 " sample%s, %zu %s%s", t->samples, t->samples == 1 ? "" : "s",
		t->nrows, noun, t->nrows == 1 ? "" : "s");
	if (n < t->nrows)
		fprintf(f, ", %zu shown", n);
	fputc('\n', f);
	buf_release(&name);
	buf_release(&self);
	buf_release(&total);
	return ferror(f) ? -EIO : 0;
}

/* A share of the samples in percent, or null if there are none. */
static void json_share(struct json *j, const char *key, uint64_t part, uint64_t whole)
{
	if (whole)
		json_double(j, key, 100.0 * (double)part / (double)whole, 6);
	else
		json_null(j, key);
}

int top_write_json(FILE *f, const struct top *t, size_t limit, const char *group)
{
	size_t n = limit && limit < t->nrows ? limit : t->nrows;
	struct buf b;
	struct json j;

	json_report_begin(&j, &b, "top");
	json_str(&j, "group", group);
	json_u64(&j, "samples", t->samples);
	json_u64(&j, "rows", t->nrows);
	json_array(&j, "functions");
	for (size_t i = 0; i < n; i++) {
		const struct top_row *r = &t->rows[i];

		json_object(&j, NULL);
		json_str(&j, "name", r->name);
		json_u64(&j, "self", r->self);
		json_u64(&j, "total", r->total);
		json_share(&j, "self_percent", r->self, t->samples);
		json_share(&j, "total_percent", r->total, t->samples);
		json_end(&j);
	}
	json_end(&j);
	return json_report_write(&j, f);
}
