/*
 * html.c: the page of a profile (see html.h for what it holds).
 *
 * While the profile is built, each sample it keeps is counted in a cell
 * of (thread, time bin, stack key) and in its thread's bin by state, so
 * a million samples cost as many cells as are distinct. The profile's
 * stacks, sorted root first, then give the prefix tree in one pass (as
 * the flame graph's layout builds it), each key's stack its leaf node;
 * the cells, renamed to leaf nodes and sorted by thread, bin and node,
 * are written per thread. A tree of more than HTML_MAX_NODES nodes keeps
 * its busiest half and cuts the rest into one "[merged]" child of each
 * kept node they hang under: a node has at least its children's samples,
 * so the kept nodes are whole paths from the base.
 */
#include "report/output/html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/hmap.h"
#include "common/json.h"
#include "report/model/stacks.h"
#include "report/output/flamegraph.h"

#define FLUSH_AT (256u << 10)
#define MIN_BIN_NS 1000000ull
/* A bin lasts at least this many sampling periods, so a busy thread has
 * a few samples in each and its track is a steady bar, not a comb. */
#define BIN_PERIODS 4

/* States, in the order of a thread's "states" entries. */
enum { ST_RUNNING, ST_KERNEL, ST_PREEMPTED, ST_WAITING, ST__COUNT };

struct cell {
	uint32_t thread, bin;
	uint64_t key;             /* the profile's key, then a node */
	uint64_t count;
};

struct state_cell {
	uint32_t thread, bin;
	uint64_t n[ST__COUNT];
};

struct html_timeline {
	const struct trace *t;
	uint64_t bin_ns;
	uint32_t nbins;
	struct hmap cell_of, state_of;
	struct cell *cells;
	size_t ncells, capcells;
	struct state_cell *states;
	size_t nstates, capstates;
};

/* The bin after bin in 1, 2, 5, 10, 20, 50... ms, so that bin edges fall
 * on round times. */
static uint64_t next_bin(uint64_t bin)
{
	uint64_t lead = bin;

	while (lead % 10 == 0)
		lead /= 10;
	return lead == 2 ? bin / 2 * 5 : bin * 2;
}

struct html_timeline *html_timeline_new(const struct trace *t)
{
	struct html_timeline *tl = xcalloc(1, sizeof(*tl));
	uint64_t dur = trace_duration_ns(t), bin = MIN_BIN_NS;
	uint64_t least = t->session.rate_hz ? BIN_PERIODS * 1000000000ull / t->session.rate_hz : 0;

	while (dur / bin >= HTML_MAX_BINS || bin < least)
		bin = next_bin(bin);
	tl->t = t;
	tl->bin_ns = bin;
	tl->nbins = (uint32_t)(dur / bin + 1);
	hmap_init(&tl->cell_of);
	hmap_init(&tl->state_of);
	return tl;
}

void html_timeline_free(struct html_timeline *tl)
{
	if (!tl)
		return;
	hmap_release(&tl->cell_of);
	hmap_release(&tl->state_of);
	free(tl->cells);
	free(tl->states);
	free(tl);
}

/* A sample of unknown state was on a CPU: a cpu-mode sample is. */
static int state_of(const struct trace_sample *s)
{
	switch (s->state) {
	case TRACE_STATE_UNKNOWN:
	case TRACE_STATE_RUNNING:
		return s->flags & TRACE_SAMPLE_KERNEL ? ST_KERNEL : ST_RUNNING;
	case TRACE_STATE_PREEMPTED:
		return ST_PREEMPTED;
	default:
		return ST_WAITING;
	}
}

void html_timeline_sample(void *ctx, const struct trace_sample *s, size_t key)
{
	struct html_timeline *tl = ctx;
	uint64_t bin = trace_since_start_ns(tl->t, s->time) / tl->bin_ns;
	uint64_t where;
	uint64_t *slot;
	int added;

	if (bin >= tl->nbins)
		bin = tl->nbins - 1;
	where = (uint64_t)s->thread << 32 | bin;
	slot = hmap_put(&tl->cell_of, key, where, tl->ncells, &added);
	if (added) {
		tl->cells = xgrow(tl->cells, &tl->capcells, tl->ncells + 1, sizeof(*tl->cells));
		tl->cells[tl->ncells++] = (struct cell){ s->thread, (uint32_t)bin, key, 0 };
	}
	tl->cells[*slot].count++;
	slot = hmap_put(&tl->state_of, where, 0, tl->nstates, &added);
	if (added) {
		tl->states = xgrow(tl->states, &tl->capstates, tl->nstates + 1, sizeof(*tl->states));
		tl->states[tl->nstates++] = (struct state_cell){ .thread = s->thread, .bin = (uint32_t)bin };
	}
	tl->states[*slot].n[state_of(s)]++;
}

/* The stacks' prefix tree: node i is (parent[i], func[i]). */
struct tree {
	int64_t *parent;
	uint32_t *func;
	uint64_t *total;          /* samples at or under it */
	size_t n, cap;
	const char **funcs;       /* names; funcs[0] is "all" */
	size_t nfuncs, capfuncs;
	struct hmap func_of;      /* (XXH3 of a name, length) -> func */
	size_t *leaf;             /* per stack of the profile */
	size_t merged;            /* nodes cut */
};

static const char merged_name[] = "[merged]";

static uint32_t func_of(struct tree *tr, const char *name)
{
	size_t len = strlen(name);
	uint64_t h = XXH3_64bits(name, len);
	int added;
	uint64_t *slot;

	/* a collision of the 64-bit hash and length is taken as equal names */
	slot = hmap_put(&tr->func_of, h, len, tr->nfuncs, &added);
	if (added) {
		tr->funcs = xgrow(tr->funcs, &tr->capfuncs, tr->nfuncs + 1, sizeof(*tr->funcs));
		tr->funcs[tr->nfuncs++] = name;
	}
	return (uint32_t)*slot;
}

static size_t add_node(struct tree *tr, int64_t parent, uint32_t func)
{
	if (tr->n + 1 > tr->cap) {
		size_t cap = tr->cap;

		tr->parent = xgrow(tr->parent, &cap, tr->n + 1, sizeof(*tr->parent));
		tr->func = xrealloc(tr->func, cap * sizeof(*tr->func));
		tr->total = xrealloc(tr->total, cap * sizeof(*tr->total));
		tr->cap = cap;
	}
	tr->parent[tr->n] = parent;
	tr->func[tr->n] = func;
	tr->total[tr->n] = 0;
	return tr->n++;
}

/* The tree of p's stacks, sorted root first: each shares a prefix with
 * the one before, and only the frames past it are new nodes. */
static void build_tree(struct tree *tr, const struct profile *p)
{
	size_t *path = NULL, cap = 0;

	hmap_init(&tr->func_of);
	add_node(tr, -1, func_of(tr, "all"));
	tr->total[0] = p->samples;
	tr->leaf = xcalloc(p->nstacks ? p->nstacks : 1, sizeof(*tr->leaf));
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *st = &p->stacks[i], *prev = i ? &p->stacks[i - 1] : NULL;
		size_t common = 0;

		if (prev)
			common = profile_common_frames(st, prev);
		path = xgrow(path, &cap, st->nframes + 1, sizeof(*path));
		path[0] = 0;
		for (size_t d = common + 1; d <= st->nframes; d++)
			path[d] = add_node(tr, (int64_t)path[d - 1], func_of(tr, st->frames[d - 1]));
		for (size_t d = 1; d <= st->nframes; d++)
			tr->total[path[d]] += st->count;
		tr->leaf[i] = path[st->nframes];
	}
	free(path);
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Keeps the nodes with more samples than the (HTML_MAX_NODES / 2)th
 * busiest; every other node becomes its nearest kept ancestor's
 * "[merged]" child. Returns the map from old node numbers to new. */
static size_t *cut_tree(struct tree *tr)
{
	size_t n = tr->n, m = 0, *map = xmalloc(n * sizeof(*map)), *merged_of;
	int64_t *parent;
	uint32_t *func, mf;
	uint8_t *is_merged;
	uint64_t *sorted, least;

	if (n <= HTML_MAX_NODES) {
		for (size_t i = 0; i < n; i++)
			map[i] = i;
		return map;
	}
	sorted = xmalloc(n * sizeof(*sorted));
	memcpy(sorted, tr->total, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_desc);
	least = sorted[HTML_MAX_NODES / 2];
	free(sorted);
	mf = func_of(tr, merged_name);
	parent = xmalloc(n * sizeof(*parent));
	func = xmalloc(n * sizeof(*func));
	merged_of = xmalloc(n * sizeof(*merged_of));
	is_merged = xcalloc(n, 1);
	/* A parent comes before its children and has at least their
	 * samples, so a kept node's parent is kept and renamed already. */
	for (size_t i = 0; i < n; i++) {
		size_t up = i ? map[tr->parent[i]] : 0;

		if (i == 0 || tr->total[i] > least) {
			parent[m] = i ? (int64_t)up : -1;
			func[m] = tr->func[i];
			merged_of[m] = SIZE_MAX;
			map[i] = m++;
		} else if (is_merged[up]) {
			map[i] = up;
			tr->merged++;
		} else {
			if (merged_of[up] == SIZE_MAX) {
				parent[m] = (int64_t)up;
				func[m] = mf;
				is_merged[m] = 1;
				merged_of[up] = m++;
			}
			map[i] = merged_of[up];
			tr->merged++;
		}
	}
	free(tr->parent);
	free(tr->func);
	tr->parent = parent;
	tr->func = func;
	tr->n = m;
	free(merged_of);
	free(is_merged);
	return map;
}

static int cmp_cell(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->bin != y->bin)
		return x->bin < y->bin ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_state(const void *a, const void *b)
{
	const struct state_cell *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->bin < y->bin ? -1 : x->bin > y->bin;
}

static const char style[] =
#include "report/output/html.css.h"
	;
static const char flamegraph_script[] =
#include "report/output/flamegraph.js.h"
	;
static const char page_script[] =
#include "report/output/html.js.h"
	;

static const char *const palette_names[] = { "hot", "image", "lang" };

/* The page up to its data's first byte. */
static void write_head(struct buf_out *w, const char *title, const char *kind)
{
	buf_addstr(&w->b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		   "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n<title>");
	flamegraph_xml_escape(&w->b, title, 4096);
	buf_addf(&w->b, "</title>\n<style>\n%s</style></head>\n<body data-kind=\"%s\">\n"
		 "<script type=\"application/json\" id=\"prof-data\">", style, kind);
}

/* The page's scripts and end. */
static void write_tail(struct buf_out *w)
{
	buf_addf(&w->b, "<script>\n%s</script>\n<script>\n%s</script>\n</body></html>\n",
		 flamegraph_script, page_script);
	buf_out_flush(w);
}

/* The data's first members, every page's. */
static void write_common(struct json *j, const char *kind, const struct html_opts *o)
{
	json_object(j, NULL);
	json_str(j, "kind", kind);
	json_u64(j, "format", 1);
	json_str(j, "title", o->title);
	json_str(j, "subtitle", o->subtitle ? o->subtitle : "");
}

int html_write_diff(FILE *f, const struct html_opts *o, int (*body)(void *ctx, FILE *f), void *ctx)
{
	struct buf_out w = { .f = f };
	struct json j;

	buf_init(&w.b);
	write_head(&w, o->title, "diff");
	json_init_line(&j, &w.b);
	write_common(&j, "diff", o);
	json_end(&j);
	json_finish(&j);
	buf_addstr(&w.b, "</script>\n");
	buf_out_flush(&w);
	if (!w.err && body(ctx, f) < 0)
		w.err = -EIO;
	write_tail(&w);
	if (ferror(f))
		w.err = -EIO;
	buf_release(&w.b);
	return w.err;
}

static void write_funcs(struct buf_out *w, struct json *j, const struct tree *tr, const struct profile *p,
			int palette)
{
	json_array(j, "funcs");
	for (size_t i = 0; i < tr->nfuncs; i++) {
		const char *name = tr->funcs[i];
		const struct profile_frame_info *info = i ? profile_frame_info(p, name) : NULL;
		uint32_t fill = name == merged_name ? FLAMEGRAPH_MERGED_FILL
						    : flamegraph_palette_color(palette, name, info);
		char hex[8];

		json_object(j, NULL);
		json_str(j, "name", name);
		if (info && info->image)
			json_str(j, "image", info->image);
		else
			json_null(j, "image");
		snprintf(hex, sizeof(hex), "#%06x", (unsigned)fill);
		json_str(j, "fill", hex);
		json_end(j);
		buf_out_maybe(w, FLUSH_AT);
	}
	json_end(j);
}

static void write_threads(struct buf_out *w, struct json *j, const struct trace *t,
			  const struct html_timeline *tl)
{
	size_t c = 0, s = 0;

	json_array(j, "threads");
	while (c < tl->ncells) {
		uint32_t ti = tl->cells[c].thread;
		const struct trace_thread *th = &t->threads[ti];
		const struct trace_process *pr = th->process < t->nprocesses ? &t->processes[th->process] : NULL;
		uint64_t last = th->time_end ? th->time_end : t->session.start_monotonic_ns + trace_duration_ns(t);
		char *process = stacks_process_name(t, th->process, last);
		const char *name = th->nnames ? th->names[th->nnames - 1].name : "";
		uint64_t samples = 0;
		size_t e;

		for (e = c; e < tl->ncells && tl->cells[e].thread == ti; e++)
			samples += tl->cells[e].count;
		json_object(j, NULL);
		json_u64(j, "tid", th->tid);
		json_u64(j, "pid", pr ? pr->pid : t->session.pid);
		json_str(j, "name", name ? name : "");
		json_str(j, "process", process);
		json_u64(j, "start_ns", trace_since_start_ns(t, th->time_start));
		if (th->time_end)
			json_u64(j, "end_ns", trace_since_start_ns(t, th->time_end));
		else
			json_null(j, "end_ns");
		json_u64(j, "samples", samples);
		json_array(j, "states");
		for (uint32_t bin = 0; s < tl->nstates && tl->states[s].thread == ti; s++) {
			json_u64(j, NULL, tl->states[s].bin - bin);
			bin = tl->states[s].bin;
			for (int k = 0; k < ST__COUNT; k++)
				json_u64(j, NULL, tl->states[s].n[k]);
			buf_out_maybe(w, FLUSH_AT);
		}
		json_end(j);
		json_array(j, "stacks");
		for (uint32_t bin = 0; c < e; c++) {
			json_u64(j, NULL, tl->cells[c].bin - bin);
			bin = tl->cells[c].bin;
			json_u64(j, NULL, tl->cells[c].key);
			json_u64(j, NULL, tl->cells[c].count);
			buf_out_maybe(w, FLUSH_AT);
		}
		json_end(j);
		json_end(j);
		free(process);
	}
	json_end(j);
}

static void write_events(struct json *j, const struct trace *t)
{
	json_array(j, "marks");
	for (size_t i = 0; i < t->nmarks; i++) {
		json_object(j, NULL);
		json_u64(j, "time_ns", trace_since_start_ns(t, t->marks[i].time));
		json_str(j, "name", t->marks[i].name);
		json_str(j, "source", trace_mark_source_name(t->marks[i].source));
		json_end(j);
	}
	json_end(j);
	json_array(j, "pauses");
	for (size_t i = 0; i < t->npauses; i++) {
		json_array(j, NULL);
		json_u64(j, NULL, trace_since_start_ns(t, t->pauses[i].start));
		json_u64(j, NULL, trace_since_start_ns(t, t->pauses[i].end));
		json_end(j);
	}
	json_end(j);
	json_array(j, "images");
	for (size_t i = 0; i < t->nimages; i++) {
		const struct trace_image *im = &t->images[i];

		if (!im->time_loaded)
			continue;
		json_object(j, NULL);
		json_u64(j, "time_ns", trace_since_start_ns(t, im->time_loaded));
		json_str(j, "path", im->path ? im->path : "");
		json_u64(j, "pid", im->process < t->nprocesses ? t->processes[im->process].pid : t->session.pid);
		json_end(j);
	}
	json_end(j);
}

int html_write_profile(FILE *f, const struct trace *t, const struct profile *p,
		       const struct html_timeline *tl_in, const struct html_opts *o)
{
	struct html_timeline *tl = (struct html_timeline *)tl_in;
	struct buf_out w = { .f = f };
	struct tree tr = { 0 };
	struct json j;
	size_t *map, n;

	build_tree(&tr, p);
	map = cut_tree(&tr);
	/* each cell's key becomes its leaf node, and cells alike merge */
	for (size_t i = 0; i < tl->ncells; i++)
		tl->cells[i].key = map[tr.leaf[p->key_stacks[tl->cells[i].key]]];
	if (tl->ncells) /* a trace without samples has none, nor states */
		qsort(tl->cells, tl->ncells, sizeof(*tl->cells), cmp_cell);
	n = 0;
	for (size_t i = 0; i < tl->ncells; i++) {
		struct cell *c = &tl->cells[i];

		if (n && !cmp_cell(&tl->cells[n - 1], c))
			tl->cells[n - 1].count += c->count;
		else
			tl->cells[n++] = *c;
	}
	tl->ncells = n;
	hmap_release(&tl->cell_of);
	hmap_init(&tl->cell_of);
	if (tl->nstates)
		qsort(tl->states, tl->nstates, sizeof(*tl->states), cmp_state);

	buf_init(&w.b);
	write_head(&w, o->title, "profile");
	json_init_line(&j, &w.b);
	write_common(&j, "profile", o);
	json_str(&j, "mode", trace_mode_name(t->session.mode));
	json_u64(&j, "rate_hz", t->session.rate_hz);
	json_u64(&j, "duration_ns", trace_duration_ns(t));
	json_u64(&j, "bin_ns", tl->bin_ns);
	json_u64(&j, "nbins", tl->nbins);
	json_str(&j, "palette", palette_names[o->palette]);
	write_funcs(&w, &j, &tr, p, o->palette);
	json_array(&j, "nodes");
	for (size_t i = 0; i < tr.n; i++) {
		json_i64(&j, NULL, tr.parent[i]);
		json_u64(&j, NULL, tr.func[i]);
		buf_out_maybe(&w, FLUSH_AT);
	}
	json_end(&j);
	json_u64(&j, "merged", tr.merged);
	write_threads(&w, &j, t, tl);
	write_events(&j, t);
	json_end(&j);
	json_finish(&j);
	buf_addstr(&w.b, "</script>\n");
	write_tail(&w);
	if (ferror(f))
		w.err = -EIO;
	buf_release(&w.b);
	free(map);
	free(tr.parent);
	free(tr.func);
	free(tr.total);
	free(tr.funcs);
	free(tr.leaf);
	hmap_release(&tr.func_of);
	return w.err;
}
