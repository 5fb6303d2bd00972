/*
 * trace_merge.c: several trace files as one trace.
 *
 * A long recording can be cut into files (prof-record --switch-output),
 * each a whole trace that begins by re-stating what was live at its start
 * with the ids and times it had, or kept as snapshots of its last seconds
 * (--ring), which may overlap. The reader loads each file alone; this file
 * lays them on one timeline in the order of their start. What several
 * files re-state is kept once: a process by its trace id, pid and
 * first-seen time, a thread by its process, tid and start, an image by its
 * process, id, identity, range and load time, and code ranges, programs,
 * names, marks and pauses when they are identical. Processes and images
 * that only share an id (two recordings both start at 1) stay apart, the
 * later ones given new ids. The stack nodes of every file are keyed by
 * (parent, address) into one tree, so equal stacks are one stack, and a
 * snapshot gives only its samples after those of the snapshots of its
 * recording before it. Last, the reader's own last steps run on the whole
 * (trace_settle()), so that it keeps every promise of struct trace.
 */
#include "format/trace.h"
#include "format/trace_codec.h"
#include "format/trace_pack.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/hmap.h"

struct merger {
	struct trace *t;            /* the whole */
	size_t cap_processes, cap_images, cap_threads, cap_nodes, cap_samples, cap_marks, cap_pauses, cap_code;
	struct hmap processes;      /* (id << 32 | pid, time_start) -> index */
	struct hmap threads;        /* (process << 32 | tid, time_start) -> index */
	struct hmap images;         /* (process << 32 | id, time_loaded) -> index */
	struct hmap process_ids;    /* (id, 0): the ids given */
	struct hmap image_ids;      /* likewise */
	uint32_t max_process_id, max_image_id;
	struct hmap nodes;          /* (parent, addr) -> node */
	struct hmap code;           /* hash of a code range -> index */
	struct hmap marks;          /* hash of a mark -> index */
	struct hmap pauses;         /* (start, end) -> index */
	struct hmap last_sample;    /* (recording, 0) -> the latest sample time of
	                             * its snapshots merged so far */
};

/* Where one file's processes, threads and nodes went in the whole. */
struct file_map {
	uint32_t *process, *thread, *node;
};

static char **strings_dup(char *const *v, uint32_t n)
{
	char **out = xcalloc((size_t)n + 1, sizeof(*out));

	for (uint32_t i = 0; i < n; i++)
		out[i] = xstrdup(v[i] ? v[i] : "");
	return out;
}

static int strings_same(char *const *a, uint32_t na, char *const *b, uint32_t nb)
{
	if (na != nb)
		return 0;
	for (uint32_t i = 0; i < na; i++)
		if (strcmp(a[i] ? a[i] : "", b[i] ? b[i] : ""))
			return 0;
	return 1;
}

static void session_copy(struct trace_session *to, const struct trace_session *from)
{
	*to = *from;
	to->host = xstrdup(from->host ? from->host : "");
	to->argv = strings_dup(from->argv, from->argc);
}

static int same_text(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* An id for a process or image of the whole: its own, unless an earlier
 * one has it, then one past the largest given. */
static uint32_t take_id(struct hmap *ids, uint32_t *max, uint32_t id)
{
	int added;

	hmap_put(ids, id, 0, 0, &added);
	if (!added) {
		id = *max + 1;
		hmap_put(ids, id, 0, 0, NULL);
	}
	if (id > *max)
		*max = id;
	return id;
}

/* Adds exec e to p unless p has it, oldest first, equal times in the
 * order met, as the reader keeps them. */
static void exec_add(struct trace_process *p, const struct trace_exec *e)
{
	size_t i;

	for (i = 0; i < p->nexecs; i++)
		if (p->execs[i].time == e->time && strings_same(p->execs[i].argv, p->execs[i].argc, e->argv, e->argc))
			return;
	p->execs = xrealloc(p->execs, (p->nexecs + 1) * sizeof(*p->execs));
	for (i = p->nexecs; i > 0 && p->execs[i - 1].time > e->time; i--)
		p->execs[i] = p->execs[i - 1];
	p->execs[i].time = e->time;
	p->execs[i].argc = e->argc;
	p->execs[i].argv = strings_dup(e->argv, e->argc);
	p->nexecs++;
}

/* A file's process in the whole: the one of its trace id, pid and
 * first-seen time, or a new one. A later file knows more of its end. */
static uint32_t merge_process(struct merger *m, const struct trace_process *fp)
{
	struct trace *t = m->t;
	struct trace_process *p;
	int added;
	uint64_t *slot = hmap_put(&m->processes, (uint64_t)fp->id << 32 | fp->pid, fp->time_start,
				  t->nprocesses, &added);
	uint32_t k = (uint32_t)*slot;

	if (added) {
		t->processes = xgrow(t->processes, &m->cap_processes, t->nprocesses + 1, sizeof(*t->processes));
		p = &t->processes[t->nprocesses++];
		*p = *fp;
		p->id = take_id(&m->process_ids, &m->max_process_id, fp->id);
		p->parent = TRACE_NO_PROCESS;
		p->nexecs = 0;
		p->execs = NULL;
	}
	p = &t->processes[k];
	if (fp->time_end) {
		p->time_end = fp->time_end;
		p->has_exit = fp->has_exit;
		p->exit_status = fp->exit_status;
		p->out_of_reach = fp->out_of_reach;
	}
	for (size_t i = 0; i < fp->nexecs; i++)
		exec_add(p, &fp->execs[i]);
	return k;
}

/* Adds name to th's history unless it has it, as exec_add() does. */
static void name_add(struct trace_thread *th, const struct trace_name *n)
{
	size_t i;

	for (i = 0; i < th->nnames; i++)
		if (th->names[i].time == n->time && same_text(th->names[i].name, n->name))
			return;
	th->names = xrealloc(th->names, (th->nnames + 1) * sizeof(*th->names));
	for (i = th->nnames; i > 0 && th->names[i - 1].time > n->time; i--)
		th->names[i] = th->names[i - 1];
	th->names[i].time = n->time;
	th->names[i].name = xstrdup(n->name ? n->name : "");
	th->nnames++;
}

static uint32_t merge_thread(struct merger *m, const struct trace_thread *ft, uint32_t process)
{
	struct trace *t = m->t;
	struct trace_thread *th;
	int added;
	uint64_t *slot = hmap_put(&m->threads, (uint64_t)process << 32 | ft->tid, ft->time_start,
				  t->nthreads, &added);
	uint32_t k = (uint32_t)*slot;

	if (added) {
		t->threads = xgrow(t->threads, &m->cap_threads, t->nthreads + 1, sizeof(*t->threads));
		th = &t->threads[t->nthreads++];
		*th = *ft;
		th->process = process;
		th->nnames = 0;
		th->names = NULL;
	}
	th = &t->threads[k];
	if (ft->time_end)
		th->time_end = ft->time_end;
	for (size_t i = 0; i < ft->nnames; i++)
		name_add(th, &ft->names[i]);
	return k;
}

static int image_same(const struct trace_image *a, const struct trace_image *b)
{
	return a->start == b->start && a->size == b->size &&
	       trace_ident_same(a->ident_kind, a->ident_len, a->ident, b->ident_kind, b->ident_len, b->ident);
}

static void signal_add(struct trace_image *img, const struct trace_range *r)
{
	for (size_t i = 0; i < img->nsignal; i++)
		if (img->signal[i].start == r->start && img->signal[i].end == r->end)
			return;
	img->signal = xrealloc(img->signal, (img->nsignal + 1) * sizeof(*img->signal));
	img->signal[img->nsignal++] = *r;
}

/* A file's image in the whole: the one of its process, id and load time,
 * if its identity and range agree; else a new one. */
static void merge_image(struct merger *m, const struct trace_image *fi, uint32_t process)
{
	struct trace *t = m->t;
	struct trace_image *img;
	int added;
	uint64_t *slot = hmap_put(&m->images, (uint64_t)process << 32 | fi->id, fi->time_loaded, t->nimages,
				  &added);
	size_t k = (size_t)*slot;

	if (added || !image_same(&t->images[k], fi)) {
		k = t->nimages;
		t->images = xgrow(t->images, &m->cap_images, t->nimages + 1, sizeof(*t->images));
		img = &t->images[t->nimages++];
		*img = *fi;
		img->id = take_id(&m->image_ids, &m->max_image_id, fi->id);
		img->process = process;
		img->path = fi->path ? xstrdup(fi->path) : NULL;
		img->why = fi->why ? xstrdup(fi->why) : NULL;
		img->nsignal = 0;
		img->signal = NULL;
	}
	img = &t->images[k];
	if (fi->time_unloaded)
		img->time_unloaded = fi->time_unloaded;
	for (size_t i = 0; i < fi->nsignal; i++)
		signal_add(img, &fi->signal[i]);
}

/* The slot of the 128-bit hash of b's bytes, for things that are kept
 * once when they are identical in every field b spells out. */
static uint64_t *key_put(struct hmap *map, const struct buf *b, uint64_t index, int *added)
{
	XXH128_hash_t h = XXH3_128bits(b->data, b->len);

	return hmap_put(map, h.low64, h.high64, index, added);
}

static void merge_code(struct merger *m, const struct trace_code *fk, uint32_t process)
{
	struct trace *t = m->t;
	struct trace_code *k;
	struct buf b;
	int added;

	buf_init(&b);
	buf_addf(&b, "%u %llu %llu %llu %u %u %zu:%s %s", process, (unsigned long long)fk->time,
		 (unsigned long long)fk->start, (unsigned long long)fk->size, fk->source, fk->line,
		 strlen(fk->name), fk->name, fk->file ? fk->file : "");
	key_put(&m->code, &b, t->ncode, &added);
	buf_release(&b);
	if (!added || t->ncode == TRACE_MAX_CODE)
		return;
	t->code = xgrow(t->code, &m->cap_code, t->ncode + 1, sizeof(*t->code));
	k = &t->code[t->ncode++];
	*k = *fk;
	k->process = process;
	k->name = xstrdup(fk->name);
	k->file = fk->file ? xstrdup(fk->file) : NULL;
	if (k->size > t->code_max_size)
		t->code_max_size = k->size;
}

static void merge_mark(struct merger *m, const struct trace_mark *fm)
{
	struct trace *t = m->t;
	struct buf b;
	int added;

	buf_init(&b);
	buf_addf(&b, "%llu %u %s", (unsigned long long)fm->time, fm->source, fm->name);
	key_put(&m->marks, &b, t->nmarks, &added);
	buf_release(&b);
	if (!added || t->nmarks == TRACE_MAX_MARKS)
		return;
	t->marks = xgrow(t->marks, &m->cap_marks, t->nmarks + 1, sizeof(*t->marks));
	t->marks[t->nmarks] = *fm;
	t->marks[t->nmarks++].name = xstrdup(fm->name);
}

static void merge_pause(struct merger *m, const struct trace_range *r)
{
	struct trace *t = m->t;
	int added;

	hmap_put(&m->pauses, r->start, r->end, t->npauses, &added);
	if (!added || t->npauses == TRACE_MAX_MARKS)
		return;
	t->pauses = xgrow(t->pauses, &m->cap_pauses, t->npauses + 1, sizeof(*t->pauses));
	t->pauses[t->npauses++] = *r;
}

/* The file's stack nodes in the whole's tree. A loaded trace's parents
 * precede their children; a parent that does not is taken as the root, as
 * trace_chain_next() ends a walk there. */
static void merge_nodes(struct merger *m, const struct trace *f, uint32_t *map)
{
	struct trace *t = m->t;

	map[0] = 0;
	for (size_t i = 1; i < f->nnodes; i++) {
		uint32_t parent = f->nodes[i].parent < i ? map[f->nodes[i].parent] : 0;
		int added;
		uint64_t *slot = hmap_put(&m->nodes, parent, f->nodes[i].addr, t->nnodes, &added);

		if (added) {
			t->nodes = xgrow(t->nodes, &m->cap_nodes, t->nnodes + 1, sizeof(*t->nodes));
			t->nodes[t->nnodes].addr = f->nodes[i].addr;
			t->nodes[t->nnodes++].parent = parent;
		}
		map[i] = (uint32_t)*slot;
	}
}

/* The file's samples; of a snapshot, only those after the latest of the
 * snapshots of its recording before it, which held the rest. */
static void merge_samples(struct merger *m, const struct trace *f, const struct file_map *fm,
			  struct trace_file *file)
{
	struct trace *t = m->t;
	uint64_t *last = NULL, after = 0;
	int held = 0;

	if (f->session.part_kind == TRACE_PART_SNAPSHOT) {
		int added;

		last = hmap_put(&m->last_sample, f->session.recording, 0, 0, &added);
		held = !added;
		after = *last;
	}
	t->samples = xgrow(t->samples, &m->cap_samples, t->nsamples + f->nsamples, sizeof(*t->samples));
	for (size_t i = 0; i < f->nsamples; i++) {
		struct trace_sample s = f->samples[i];

		if (held && s.time <= after) {
			file->samples_overlap++;
			continue;
		}
		if (last && s.time > *last)
			*last = s.time;
		s.thread = fm->thread[s.thread];
		s.stack = fm->node[s.stack];
		t->samples[t->nsamples++] = s;
		file->samples++;
	}
}

/* What loading found, summed; the losses stay each file's own. */
static void status_add(struct trace_load_status *to, const struct trace_load_status *st, int first)
{
	if (first) {
		to->major = st->major;
		to->minor = st->minor;
		to->has_footer = to->complete = 1;
	}
	to->file_bytes += st->file_bytes;
	to->chunks += st->chunks;
	to->chunks_skipped += st->chunks_skipped;
	to->chunks_missing += st->chunks_missing;
	to->chunks_damaged += st->chunks_damaged;
	to->bytes_damaged += st->bytes_damaged;
	to->bytes_cut += st->bytes_cut;
	to->samples_dropped += st->samples_dropped;
	to->samples_missing += st->samples_missing;
	to->has_footer &= st->has_footer;
	to->complete &= st->complete;
	to->ends_whole = st->ends_whole;
}

/* Adds file f, loaded from path, to the whole. */
static void merge_file(struct merger *m, struct trace *f, const char *path, int first)
{
	struct trace *t = m->t;
	struct trace_file *file = &t->files[t->nfiles++];
	struct file_map fm = {
		.process = xmalloc((f->nprocesses + 1) * sizeof(*fm.process)),
		.thread = xmalloc((f->nthreads + 1) * sizeof(*fm.thread)),
		.node = xmalloc(f->nnodes * sizeof(*fm.node)),
	};
	size_t i;

	memset(file, 0, sizeof(*file));
	file->path = xstrdup(path);
	session_copy(&file->session, &f->session);
	file->start = f->session.start_monotonic_ns;
	file->end = trace_end_ns(f);
	file->status = f->status;       /* its losses move with it */
	memset(&f->status, 0, sizeof(f->status));
	file->pack = f->pack;
	f->pack = NULL;
	status_add(&t->status, &file->status, first);

	for (i = 0; i < f->nprocesses; i++)
		fm.process[i] = merge_process(m, &f->processes[i]);
	for (i = 0; i < f->nprocesses; i++) {
		struct trace_process *p = &t->processes[fm.process[i]];
		uint32_t up = f->processes[i].parent;

		if (up != TRACE_NO_PROCESS && p->parent == TRACE_NO_PROCESS && fm.process[up] != fm.process[i])
			p->parent = fm.process[up];
	}
	for (i = 0; i < f->nthreads; i++)
		fm.thread[i] = merge_thread(m, &f->threads[i], fm.process[f->threads[i].process]);
	for (i = 0; i < f->nimages; i++)
		merge_image(m, &f->images[i], fm.process[f->images[i].process]);
	for (i = 0; i < f->ncode; i++)
		merge_code(m, &f->code[i], fm.process[f->code[i].process]);
	for (i = 0; i < f->nmarks; i++)
		merge_mark(m, &f->marks[i]);
	for (i = 0; i < f->npauses; i++)
		merge_pause(m, &f->pauses[i]);
	merge_nodes(m, f, fm.node);
	merge_samples(m, f, &fm, file);
	for (i = 0; i < TRACE_COUNTER__COUNT; i++) {
		if (i != TRACE_COUNTER_MAX_SAMPLE_RATE)
			t->counters[i] += f->counters[i];
		else if (f->counters[i] > t->counters[i])
			t->counters[i] = f->counters[i]; /* a value, not a count */
	}
	/* The files are in order of their start: the last one's end is the
	 * whole's. */
	t->has_end = f->has_end;
	t->end = f->end;
	free(fm.process);
	free(fm.thread);
	free(fm.node);
}

/* Whether a and b were recorded on one machine: the same host, system
 * and architecture, so one clock and one address space. */
static int same_machine(const struct trace_session *a, const struct trace_session *b)
{
	return a->os == b->os && a->arch == b->arch && same_text(a->host, b->host);
}

/* Whether a and b are one file of a recording: the same part of it,
 * started at the same instant. */
static int same_part(const struct trace_session *a, const struct trace_session *b)
{
	return a->start_monotonic_ns == b->start_monotonic_ns && a->start_realtime_ns == b->start_realtime_ns &&
	       a->pid == b->pid && a->recording == b->recording && a->part_kind == b->part_kind &&
	       a->part == b->part;
}

/* The order the files are merged in: of their start, then of their
 * part, then as given. */
static struct trace **sort_parts;

static int cmp_part(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct trace_session *s = &sort_parts[x]->session, *u = &sort_parts[y]->session;

	if (s->start_monotonic_ns != u->start_monotonic_ns)
		return s->start_monotonic_ns < u->start_monotonic_ns ? -1 : 1;
	if (s->part != u->part)
		return s->part < u->part ? -1 : 1;
	return (x > y) - (x < y);
}

int trace_merge(struct trace **parts, const char *const *paths, size_t n, struct trace **out, size_t *bad)
{
	struct merger m = { 0 };
	size_t *order = NULL, i, j;
	int r = 0;

	*out = NULL;
	if (!n)
		return TRACE_E_USAGE;
	for (i = 1; i < n && r == 0; i++) {
		const struct trace_session *a = &parts[0]->session, *b = &parts[i]->session;

		if (!same_machine(a, b)) {
			r = TRACE_E_MACHINES;
			prof_error_note(r, "'%s' was recorded on '%s' (%s, %s) and '%s' on '%s' (%s, %s), "
					"whose clocks and addresses have nothing in common; report each alone, "
					"or compare them with 'prof-report diff'",
					paths[0], a->host ? a->host : "", trace_os_name(a->os), trace_arch_name(a->arch),
					paths[i], b->host ? b->host : "", trace_os_name(b->os), trace_arch_name(b->arch));
		}
		for (j = 0; j < i && r == 0; j++) {
			if (!same_part(&parts[j]->session, b))
				continue;
			r = TRACE_E_TWICE;
			prof_error_note(r, "'%s' and '%s' are one file (%s %" PRIu32 " of the recording, "
					"started at the same instant), whose samples would count twice; name it once",
					paths[j], paths[i], b->part_kind == TRACE_PART_SNAPSHOT ? "snapshot" : "part",
					b->part);
		}
		if (r && bad)
			*bad = i;
	}
	if (r)
		goto out;
	order = xmalloc(n * sizeof(*order));
	for (i = 0; i < n; i++)
		order[i] = i;
	sort_parts = parts;
	qsort(order, n, sizeof(*order), cmp_part);
	sort_parts = NULL;

	m.t = xcalloc(1, sizeof(*m.t));
	m.t->files = xcalloc(n, sizeof(*m.t->files));
	m.t->nodes = xgrow(NULL, &m.cap_nodes, 1, sizeof(*m.t->nodes));
	m.t->nodes[0] = (struct trace_node){ 0, 0 };
	m.t->nnodes = 1;
	session_copy(&m.t->session, &parts[order[0]]->session);
	hmap_init(&m.processes);
	hmap_init(&m.threads);
	hmap_init(&m.images);
	hmap_init(&m.process_ids);
	hmap_init(&m.image_ids);
	hmap_init(&m.nodes);
	hmap_init(&m.code);
	hmap_init(&m.marks);
	hmap_init(&m.pauses);
	hmap_init(&m.last_sample);
	for (i = 0; i < n; i++)
		merge_file(&m, parts[order[i]], paths[order[i]], i == 0);
	trace_settle(m.t, m.cap_nodes);
	hmap_release(&m.processes);
	hmap_release(&m.threads);
	hmap_release(&m.images);
	hmap_release(&m.process_ids);
	hmap_release(&m.image_ids);
	hmap_release(&m.nodes);
	hmap_release(&m.code);
	hmap_release(&m.marks);
	hmap_release(&m.pauses);
	hmap_release(&m.last_sample);
	*out = m.t;
out:
	for (i = 0; i < n; i++)
		trace_free(parts[i]);
	free(order);
	return r;
}

int trace_load_many(const char *const *paths, size_t n, struct progress *pg, struct trace **out, size_t *bad)
{
	struct trace **parts;
	int r = 0;

	*out = NULL;
	if (n == 1) {
		if (bad)
			*bad = 0;
		return trace_load_progress(paths[0], pg, out);
	}
	parts = xcalloc(n ? n : 1, sizeof(*parts));
	for (size_t i = 0; i < n && r == 0; i++) {
		if ((r = trace_load_progress(paths[i], pg, &parts[i])) < 0 && bad)
			*bad = i;
	}
	if (r == 0)
		r = trace_merge(parts, paths, n, out, bad);
	else
		for (size_t i = 0; i < n; i++)
			trace_free(parts[i]);
	free(parts);
	return r;
}
