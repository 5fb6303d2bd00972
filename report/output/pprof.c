/*
 * pprof.c: profile.proto from the export model.
 *
 * The message is built in parts, one buffer per repeated field, because
 * every part adds to the string table, which has to be complete before it
 * is written; the parts are then joined in field order. Samples are the
 * export samples sorted by what distinguishes them in pprof (stack, tid,
 * thread name, state) and merged, so the order and the counts do not
 * depend on how samples interleaved in the recording. Field numbers are
 * profile.proto's.
 */
#include "report/output/pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>
#include <zlib.h>

#include "common/diag.h"
#include "common/hmap.h"
#include "report/symbols/objfile.h"
#include "report/output/pprof_pb.h"

enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE, PROFILE_PERIOD,
};
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL };
enum { LABEL_KEY = 1, LABEL_STR, LABEL_NUM };
enum {
	MAPPING_ID = 1, MAPPING_MEMORY_START, MAPPING_MEMORY_LIMIT, MAPPING_FILE_OFFSET,
	MAPPING_FILENAME, MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS, MAPPING_HAS_FILENAMES,
	MAPPING_HAS_LINE_NUMBERS, MAPPING_HAS_INLINE_FRAMES,
};
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE };
enum { LINE_FUNCTION_ID = 1, LINE_LINE };
enum { FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME, FUNCTION_FILENAME };

/* The string table: index 0 is "", as profile.proto requires. */
struct strtab {
	struct buf out;           /* the encoded string_table fields */
	struct hmap index_of;     /* (XXH3, length) -> index */
	char **strs;              /* copies, to tell a hash collision */
	size_t n, cap;
};

static uint64_t str_index(struct strtab *st, const char *s)
{
	size_t len = strlen(s);
	uint64_t *slot = hmap_put(&st->index_of, XXH3_64bits(s, len), len, st->n, NULL);

	if (*slot < st->n && !strcmp(st->strs[*slot], s))
		return *slot;
	/* New, or a collision: a second entry for the collided string is
	 * still a valid table (pprof does not require unique strings). */
	st->strs = xgrow(st->strs, &st->cap, st->n + 1, sizeof(*st->strs));
	st->strs[st->n] = xstrdup(s);
	pprof_pb_bytes(&st->out, PROFILE_STRING_TABLE, s, len);
	return st->n++;
}

static void value_type(struct buf *b, unsigned field, struct strtab *st, const char *type,
		       const char *unit)
{
	struct buf m;

	buf_init(&m);
	pprof_pb_uint(&m, VALUE_TYPE_TYPE, str_index(st, type));
	pprof_pb_uint(&m, VALUE_TYPE_UNIT, str_index(st, unit));
	pprof_pb_bytes(b, field, m.data, m.len);
	buf_release(&m);
}

static void label(struct buf *b, struct strtab *st, const char *key, const char *str, uint64_t num)
{
	struct buf m;

	buf_init(&m);
	pprof_pb_uint(&m, LABEL_KEY, str_index(st, key));
	if (str)
		pprof_pb_uint(&m, LABEL_STR, str_index(st, str));
	else
		pprof_pb_int(&m, LABEL_NUM, (int64_t)num);
	pprof_pb_bytes(b, SAMPLE_LABEL, m.data, m.len);
	buf_release(&m);
}

/* What tells two pprof samples apart. */
static int cmp_sample(const void *a, const void *b)
{
	const struct export_sample *x = *(const struct export_sample *const *)a;
	const struct export_sample *y = *(const struct export_sample *const *)b;
	int c;

	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if ((c = strcmp(x->process, y->process)))
		return c;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if ((c = strcmp(x->thread, y->thread)))
		return c;
	return (x->state > y->state) - (x->state < y->state);
}

static void samples(struct buf *b, struct strtab *st, const struct trace *t,
		    const struct export *e, uint64_t period)
{
	const struct export_sample **sorted = xmalloc((e->nsamples ? e->nsamples : 1) * sizeof(*sorted));
	uint64_t *ids = NULL;
	size_t capids = 0, i, j;
	struct buf m;

	buf_init(&m);
	for (i = 0; i < e->nsamples; i++)
		sorted[i] = &e->samples[i];
	qsort(sorted, e->nsamples, sizeof(*sorted), cmp_sample);
	for (i = 0; i < e->nsamples; i = j) {
		const struct export_sample *s = sorted[i];
		const struct export_stack *stk = &e->stacks[s->stack];
		uint64_t values[2];

		for (j = i + 1; j < e->nsamples && !cmp_sample(&sorted[i], &sorted[j]); j++)
			;
		ids = xgrow(ids, &capids, stk->nlocs ? stk->nlocs : 1, sizeof(*ids));
		for (size_t k = 0; k < stk->nlocs; k++)
			ids[k] = (uint64_t)e->stack_locs[stk->first + k] + 1;
		values[0] = j - i;
		values[1] = (j - i) * period;
		buf_reset(&m);
		pprof_pb_packed(&m, SAMPLE_LOCATION_ID, ids, stk->nlocs);
		pprof_pb_packed(&m, SAMPLE_VALUE, values, period ? 2 : 1);
		if (e->processes) {
			label(&m, st, "process", s->process, 0);
			label(&m, st, "pid", NULL, s->pid);
		}
		if (s->thread[0])
			label(&m, st, "thread", s->thread, 0);
		label(&m, st, "tid", NULL, s->tid);
		if (t->session.mode == TRACE_MODE_WALL)
			label(&m, st, "state", trace_state_name(s->state), 0);
		pprof_pb_bytes(b, PROFILE_SAMPLE, m.data, m.len);
	}
	buf_release(&m);
	free(ids);
	free(sorted);
}

/* Bits of what an image's locations have, for its mapping's has_* fields. */
#define HAS_FUNCTIONS 1u
#define HAS_FILENAMES 2u
#define HAS_LINE_NUMBERS 4u
#define HAS_INLINE_FRAMES 8u

static void mappings(struct buf *b, struct strtab *st, const struct trace *t,
		     const struct export *e)
{
	unsigned *has = xcalloc(t->nimages ? t->nimages : 1, sizeof(*has));
	char hex[2 * TRACE_MAX_IDENT + 1];
	struct buf m;

	for (size_t i = 0; i < e->nlocs; i++) {
		const struct export_location *l = &e->locs[i];

		if (l->image < 0)
			continue;
		for (size_t f = 0; f < l->nframes; f++) {
			const struct symbolize_frame *fr = &e->frames[l->first + f];

			has[l->image] |= (fr->resolved ? HAS_FUNCTIONS : 0) |
					 (fr->file ? HAS_FILENAMES : 0) |
					 (fr->line ? HAS_LINE_NUMBERS : 0);
		}
		if (l->nframes > 1)
			has[l->image] |= HAS_INLINE_FRAMES;
	}
	buf_init(&m);
	for (size_t i = 0; i < t->nimages; i++) {
		const struct trace_image *img = &t->images[i];

		objfile_hex(hex, img->ident, img->ident_len);
		buf_reset(&m);
		pprof_pb_uint(&m, MAPPING_ID, i + 1);
		pprof_pb_uint(&m, MAPPING_MEMORY_START, img->start);
		pprof_pb_uint(&m, MAPPING_MEMORY_LIMIT, img->start + img->size);
		pprof_pb_uint(&m, MAPPING_FILE_OFFSET, img->file_offset);
		pprof_pb_uint(&m, MAPPING_FILENAME, str_index(st, img->path ? img->path : ""));
		pprof_pb_uint(&m, MAPPING_BUILD_ID, str_index(st, hex));
		pprof_pb_uint(&m, MAPPING_HAS_FUNCTIONS, !!(has[i] & HAS_FUNCTIONS));
		pprof_pb_uint(&m, MAPPING_HAS_FILENAMES, !!(has[i] & HAS_FILENAMES));
		pprof_pb_uint(&m, MAPPING_HAS_LINE_NUMBERS, !!(has[i] & HAS_LINE_NUMBERS));
		pprof_pb_uint(&m, MAPPING_HAS_INLINE_FRAMES, !!(has[i] & HAS_INLINE_FRAMES));
		pprof_pb_bytes(b, PROFILE_MAPPING, m.data, m.len);
	}
	buf_release(&m);
	free(has);
}

static void locations(struct buf *b, const struct export *e)
{
	struct buf m, line;

	buf_init(&m);
	buf_init(&line);
	for (size_t i = 0; i < e->nlocs; i++) {
		const struct export_location *l = &e->locs[i];

		buf_reset(&m);
		pprof_pb_uint(&m, LOCATION_ID, i + 1);
		pprof_pb_uint(&m, LOCATION_MAPPING_ID, (uint64_t)(l->image + 1));
		pprof_pb_uint(&m, LOCATION_ADDRESS, l->addr);
		for (size_t f = l->first; f < l->first + l->nframes; f++) {
			buf_reset(&line);
			pprof_pb_uint(&line, LINE_FUNCTION_ID, (uint64_t)e->frame_funcs[f] + 1);
			pprof_pb_int(&line, LINE_LINE, e->frames[f].line);
			pprof_pb_bytes(&m, LOCATION_LINE, line.data, line.len);
		}
		pprof_pb_bytes(b, PROFILE_LOCATION, m.data, m.len);
	}
	buf_release(&line);
	buf_release(&m);
}

static void functions(struct buf *b, struct strtab *st, const struct export *e)
{
	struct buf m;

	buf_init(&m);
	for (size_t i = 0; i < e->nfuncs; i++) {
		buf_reset(&m);
		pprof_pb_uint(&m, FUNCTION_ID, i + 1);
		pprof_pb_uint(&m, FUNCTION_NAME, str_index(st, e->funcs[i].name));
		pprof_pb_uint(&m, FUNCTION_FILENAME,
			      str_index(st, e->funcs[i].file ? e->funcs[i].file : ""));
		pprof_pb_bytes(b, PROFILE_FUNCTION, m.data, m.len);
	}
	buf_release(&m);
}

void pprof_encode(struct buf *b, const struct trace *t, const struct export *e)
{
	const char *kind = t->session.mode == TRACE_MODE_WALL ? "wall" : "cpu";
	uint64_t period = export_period(t);
	struct buf types, samp, maps, locs, fns;
	struct strtab st = { .n = 0 };

	buf_init(&st.out);
	hmap_init(&st.index_of);
	buf_init(&types);
	buf_init(&samp);
	buf_init(&maps);
	buf_init(&locs);
	buf_init(&fns);
	str_index(&st, "");
	value_type(&types, PROFILE_SAMPLE_TYPE, &st, "samples", "count");
	if (period)
		value_type(&types, PROFILE_SAMPLE_TYPE, &st, kind, "nanoseconds");
	samples(&samp, &st, t, e, period);
	mappings(&maps, &st, t, e);
	locations(&locs, e);
	functions(&fns, &st, e);
	buf_add(b, types.data, types.len);
	buf_add(b, samp.data, samp.len);
	buf_add(b, maps.data, maps.len);
	buf_add(b, locs.data, locs.len);
	buf_add(b, fns.data, fns.len);
	/* The table is complete once period_type's strings are in; they are
	 * already, from the sample types. */
	buf_reset(&types);
	if (period)
		value_type(&types, PROFILE_PERIOD_TYPE, &st, kind, "nanoseconds");
	buf_add(b, st.out.data, st.out.len);
	pprof_pb_int(b, PROFILE_TIME_NANOS, (int64_t)t->session.start_realtime_ns);
	pprof_pb_int(b, PROFILE_DURATION_NANOS, (int64_t)trace_duration_ns(t));
	buf_add(b, types.data, types.len);
	pprof_pb_int(b, PROFILE_PERIOD, (int64_t)period);
	for (size_t i = 0; i < st.n; i++)
		free(st.strs[i]);
	free(st.strs);
	hmap_release(&st.index_of);
	buf_release(&st.out);
	buf_release(&types);
	buf_release(&samp);
	buf_release(&maps);
	buf_release(&locs);
	buf_release(&fns);
}

int pprof_gzip(FILE *f, const void *p, size_t n)
{
	gz_header head = { .os = 255 }; /* no time, no name; "unknown" OS */
	unsigned char out[16384];
	z_stream z = { 0 };
	int zerr, err = 0;

	/* 15 window bits, +16 for a gzip wrapper. */
	if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return PPROF_E_ZLIB;
	if (deflateSetHeader(&z, &head) != Z_OK) {
		err = PPROF_E_ZLIB;
		goto out;
	}
	z.next_in = (unsigned char *)p;
	do {
		/* zlib counts in uInt: feed at most that much at a time. */
		size_t chunk = n > 1u << 30 ? 1u << 30 : n;

		z.avail_in = (uInt)chunk;
		n -= chunk;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zerr = deflate(&z, n ? Z_NO_FLUSH : Z_FINISH);
			if (zerr == Z_STREAM_ERROR) {
				err = PPROF_E_ZLIB;
				goto out;
			}
			if (fwrite(out, 1, sizeof(out) - z.avail_out, f) != sizeof(out) - z.avail_out) {
				err = -EIO;
				goto out;
			}
		} while (z.avail_out == 0);
	} while (n);
	if (zerr != Z_STREAM_END)
		err = PPROF_E_ZLIB;
	else if (ferror(f))
		err = -EIO;
out:
	deflateEnd(&z);
	return err;
}

