/*
 * thread_table.c: one pass over the samples, counting per tid.
 *
 * Threads are found through a hash of (tid, process) to row, so a trace
 * with thousands of short-lived threads stays linear, and a tid that two
 * processes had is two rows. The sort at the end gives the table its
 * deterministic order: process by process, as the trace lists them, each
 * one's busiest thread first; with several processes each group has a
 * line of its own.
 *
 * Which samples count is report/model/stacks.h's filter, --focus and --exclude
 * included, so a row counts exactly the samples the other outputs show.
 */
#include "report/output/thread_table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/hmap.h"
#include "common/json.h"
#include "common/text.h"

static int thread_passes(const struct trace_thread *th, uint32_t tid,
			 const struct stacks_filter *f)
{
	size_t i;

	if (f->ntids) {
		for (i = 0; i < f->ntids; i++)
			if (f->tids[i] == tid)
				break;
		if (i == f->ntids)
			return 0;
	}
	if (!f->thread_re)
		return 1;
	if (!th || !th->nnames)
		return !regexec(f->thread_re, "", 0, NULL, 0);
	for (i = 0; i < th->nnames; i++)
		if (!regexec(f->thread_re, th->names[i].name ? th->names[i].name : "", 0, NULL, 0))
			return 1;
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct thread_table_row *x = a, *y = b;

	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The row of thread tid of process (an index in t's), and th its record
 * if the trace has one. */
static struct thread_table_row *row_for(struct thread_table *tt, size_t *cap, struct hmap *m,
					uint32_t process, uint32_t tid, const struct trace_thread *th)
{
	struct thread_table_row *r;
	uint64_t *slot;
	int added;

	slot = hmap_put(m, tid, process, tt->nrows, &added);
	if (!added)
		return &tt->rows[*slot];
	tt->rows = xgrow(tt->rows, cap, tt->nrows + 1, sizeof(*tt->rows));
	r = &tt->rows[tt->nrows++];
	memset(r, 0, sizeof(*r));
	r->process = process;
	r->tid = tid;
	r->name = "";
	if (th) {
		r->known = 1;
		r->start = th->time_start;
		r->end = th->time_end;
		if (th->nnames && th->names[th->nnames - 1].name)
			r->name = th->names[th->nnames - 1].name;
	}
	return r;
}

/* The timeline's span: the recording, cut to the filter's window. */
static void set_span(const struct trace *t, const struct stacks_filter *f, struct thread_table *tt)
{
	uint64_t start = t->session.start_monotonic_ns, lo = start + f->from, hi = trace_end_ns(t);
	size_t i;

	/* past every sample, even one after the end record */
	for (i = 0; i < t->nsamples; i++)
		if (t->samples[i].time >= hi)
			hi = t->samples[i].time + 1;
	if (f->has_to && start + f->to < hi)
		hi = start + f->to;
	if (hi <= lo)
		hi = lo + 1;
	tt->span_from = lo;
	tt->span_to = hi;
	/* A slot narrower than the sampling period would leave gaps in a
	 * thread sampled at every tick: give each at least two periods. */
	if (t->session.rate_hz) {
		uint64_t periods = (uint64_t)((unsigned __int128)(hi - lo) * t->session.rate_hz /
					      1000000000u);

		if (periods / 2 < tt->nbins)
			tt->nbins = periods / 2 ? (unsigned)(periods / 2) : 1;
	}
}

/* The column a sample's state counts in, as the filter's states say. */
enum column { COLUMN_RUNNING, COLUMN_WAITING, COLUMN_PREEMPTED, COLUMN_UNKNOWN };

static enum column column_of(const struct trace_sample *s)
{
	if (stacks_state_match(STACKS_STATE_RUNNING, s->state))
		return COLUMN_RUNNING;
	if (stacks_state_match(STACKS_STATE_IDLE, s->state))
		return COLUMN_WAITING;
	if (stacks_state_match(STACKS_STATE_PREEMPTED, s->state))
		return COLUMN_PREEMPTED;
	return COLUMN_UNKNOWN;
}

static void add_to_bin(struct thread_table *tt, struct thread_table_row *r,
		       const struct trace_sample *s)
{
	struct thread_table_bin *b;
	uint64_t i = 0;
	uint32_t *c;

	if (!r->bins)
		r->bins = xcalloc(tt->nbins, sizeof(*r->bins));
	if (s->time > tt->span_from)
		i = (uint64_t)((unsigned __int128)(s->time - tt->span_from) * tt->nbins /
			       (tt->span_to - tt->span_from));
	if (i >= tt->nbins)
		i = tt->nbins - 1;
	b = &r->bins[i];
	c = (uint32_t *[]){ &b->running, &b->waiting, &b->preempted, &b->unknown }[column_of(s)];
	if (*c < UINT32_MAX)
		(*c)++;
}

void thread_table_build(struct stacks *st, const struct thread_table_opts *o,
			struct thread_table *out)
{
	const struct trace *t = stacks_trace(st);
	const struct stacks_filter *f = &o->filter;
	struct hmap map;
	size_t cap = 0, i;

	memset(out, 0, sizeof(*out));
	hmap_init(&map);
	out->nbins = o->nbins;
	if (o->nbins)
		set_span(t, f, out);
	for (i = 0; i < t->nthreads; i++)
		if (thread_passes(&t->threads[i], t->threads[i].tid, f))
			row_for(out, &cap, &map, t->threads[i].process, t->threads[i].tid, &t->threads[i]);
	for (i = 0; i < t->nsamples; i++) {
		const struct trace_sample *s = &t->samples[i];
		struct thread_table_row *r;
		uint64_t *c;

		if (!stacks_keep(st, f, s))
			continue;
		r = row_for(out, &cap, &map, trace_sample_process(t, s), s->tid, trace_sample_thread(t, s));
		if (!r->samples || s->time < r->first)
			r->first = s->time;
		if (!r->samples || s->time > r->last)
			r->last = s->time;
		r->samples++;
		c = (uint64_t *[]){ &r->running, &r->waiting, &r->preempted, NULL }[column_of(s)];
		if (c)
			(*c)++;
		if (out->nbins)
			add_to_bin(out, r, s);
		out->samples++;
	}
	if (out->nrows)
		qsort(out->rows, out->nrows, sizeof(*out->rows), cmp_row);
	hmap_release(&map);
}

void thread_table_release(struct thread_table *tt)
{
	for (size_t i = 0; i < tt->nrows; i++)
		free(tt->rows[i].bins);
	free(tt->rows);
	memset(tt, 0, sizeof(*tt));
}

void thread_table_add_time(struct buf *b, const struct trace *t, int valid, uint64_t ns)
{
	if (!valid) {
		buf_addstr(b, "-");
		return;
	}
	buf_addf(b, "%.3f", trace_since_start_s(t, ns));
}

void thread_table_add_share(struct buf *b, uint64_t part, uint64_t whole)
{
	if (!whole)
		buf_addstr(b, "-");
	else
		buf_addf(b, "%.1f%%", 100.0 * (double)part / (double)whole);
}

#define NAME_MAX_WIDTH 32

/* The line over the rows of a process, from row i on: "pid PID: NAME, N
 * samples", NAME the program it ran last. */
static void write_process(FILE *f, const struct trace *t, const struct thread_table *tt, size_t i)
{
	uint32_t proc = tt->rows[i].process;
	uint64_t n = 0;
	struct buf name;
	char *prog = stacks_process_name(t, proc, UINT64_MAX);

	for (size_t k = i; k < tt->nrows && tt->rows[k].process == proc; k++)
		n += tt->rows[k].samples;
	buf_init(&name);
	buf_grow(&name, 0); /* an empty name is "", not NULL */
	text_escape(&name, prog);
	fprintf(f, "pid %" PRIu32 ": %s, %" PRIu64 " sample%s\n",
		proc < t->nprocesses ? t->processes[proc].pid : t->session.pid, (char *)name.data, n,
		n == 1 ? "" : "s");
	buf_release(&name);
	free(prog);
}

int thread_table_write(FILE *f, const struct trace *t, const struct thread_table *tt)
{
	struct buf name, cell[7];
	size_t i, w = 4;
	int k;

	buf_init(&name);
	buf_grow(&name, 0); /* an empty name is "", not NULL */
	for (k = 0; k < 7; k++)
		buf_init(&cell[k]);
	for (i = 0; i < tt->nrows; i++) {
		buf_reset(&name);
		text_escape(&name, tt->rows[i].name);
		if (name.len > w)
			w = name.len > NAME_MAX_WIDTH ? NAME_MAX_WIDTH : name.len;
	}
	fprintf(f, "%8s  %-*s  %8s  %7s  %7s  %9s  %9s  %9s  %9s  %9s\n", "TID", (int)w, "NAME",
		"SAMPLES", "RUNNING", "WAITING", "PREEMPTED", "FIRST", "LAST", "START", "END");
	for (i = 0; i < tt->nrows; i++) {
		const struct thread_table_row *r = &tt->rows[i];

		if (t->nprocesses > 1 && (!i || r->process != tt->rows[i - 1].process))
			write_process(f, t, tt, i);
		buf_reset(&name);
		text_escape(&name, r->name);
		if (name.len > w) {
			/* Cut long names, marking the cut. */
			name.len = w - 1;
			buf_addch(&name, '~');
		}
		for (k = 0; k < 7; k++)
			buf_reset(&cell[k]);
		thread_table_add_share(&cell[0], r->running, r->samples);
		thread_table_add_share(&cell[1], r->waiting, r->samples);
		thread_table_add_share(&cell[2], r->preempted, r->samples);
		thread_table_add_time(&cell[3], t, r->samples > 0, r->first);
		thread_table_add_time(&cell[4], t, r->samples > 0, r->last);
		thread_table_add_time(&cell[5], t, r->known, r->start);
		thread_table_add_time(&cell[6], t, r->known && r->end, r->end);
		fprintf(f, "%8" PRIu32 "  %-*s  %8" PRIu64 "  %7s  %7s  %9s  %9s  %9s  %9s  %9s\n",
			r->tid, (int)w, (char *)name.data, r->samples, (char *)cell[0].data,
			(char *)cell[1].data, (char *)cell[2].data, (char *)cell[3].data,
			(char *)cell[4].data, (char *)cell[5].data, (char *)cell[6].data);
	}
	fprintf(f, "%zu thread%s, %" PRIu64 " sample%s\n", tt->nrows, tt->nrows == 1 ? "" : "s",
		tt->samples, tt->samples == 1 ? "" : "s");
	buf_release(&name);
	for (k = 0; k < 7; k++)
		buf_release(&cell[k]);
	return ferror(f) ? -EIO : 0;
}

/* A time as seconds since t's start, to the nanosecond, or null. */
static void json_time(struct json *j, const char *key, const struct trace *t, int valid, uint64_t ns)
{
	if (valid)
		json_double(j, key, trace_since_start_s(t, ns), 12);
	else
		json_null(j, key);
}

int thread_table_write_json(FILE *f, const struct trace *t, const struct thread_table *tt)
{
	struct buf b;
	struct json j;

	json_report_begin(&j, &b, "threads");
	json_u64(&j, "samples", tt->samples);
	json_array(&j, "threads");
	for (size_t i = 0; i < tt->nrows; i++) {
		const struct thread_table_row *r = &tt->rows[i];

		json_object(&j, NULL);
		json_u64(&j, "pid", r->process < t->nprocesses ? t->processes[r->process].pid : t->session.pid);
		json_u64(&j, "tid", r->tid);
		json_str(&j, "name", r->name);
		json_u64(&j, "samples", r->samples);
		json_u64(&j, "running", r->running);
		json_u64(&j, "waiting", r->waiting);
		json_u64(&j, "preempted", r->preempted);
		json_time(&j, "first", t, r->samples > 0, r->first);
		json_time(&j, "last", t, r->samples > 0, r->last);
		json_time(&j, "start", t, r->known, r->start);
		json_time(&j, "end", t, r->known && r->end, r->end);
		json_end(&j);
	}
	json_end(&j);
	return json_report_write(&j, f);
}

#define STEM_NAME_MAX 48

char *thread_table_file_stem(uint32_t tid, const char *name)
{
	char safe[STEM_NAME_MAX + 1];
	size_t i;

	for (i = 0; name && name[i] && i < STEM_NAME_MAX; i++) {
		unsigned char c = (unsigned char)name[i];

		safe[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
				  c == '.' || c == '_' || c == '-' ? (char)c : '_';
	}
	safe[i] = 0;
	return i ? xasprintf("%u-%s", tid, safe) : xasprintf("%u", tid);
}
