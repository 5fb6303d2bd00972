/*
 * trace_reader.c: loads a trace, every byte of which is untrusted, into a
 * struct trace.
 *
 * The container (format/trace_chunk.c) hands over each intact chunk,
 * decompressed and checked against its checksums, and counts the rest;
 * this file reads the records inside data chunks and leaves a symbol
 * pack's chunks to format/trace_pack.c. Chunks can go missing, so nothing
 * depends on a chunk having been read except through ids the file spells
 * out: node records name their first id, and a sample or node whose stack
 * did not survive is dropped and counted rather than attached to the wrong
 * frames. The footer is checked against what was read, each loss gets the
 * times of the samples around it, and last the nodes whose samples see
 * different images are split (format/trace_images.c).
 */
#include "format/trace.h"
#include "format/trace_codec.h"
#include "format/trace_pack.h"

#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/diag.h"
#include "common/hmap.h"
#include "common/progress.h"

struct loader {
	struct trace *t;
	size_t cap_images, cap_threads, cap_nodes, cap_samples, cap_processes, cap_marks, cap_pauses, cap_code;
	struct hmap tids;   /* (tid, 0) -> index in t->threads, the latest
	                     * thread of that tid */
	struct hmap procs;  /* (id, 0) -> index in t->processes */
	int tid_reused;     /* some tid has several threads */
	int process_records; /* process records read */
	uint32_t last_tid;  /* the thread thread_get() found last, */
	size_t last;        /* at this index, if there is one */
	struct hmap images; /* (id, 0) -> index in t->images */
	int have_session;

	/* File node ids -> in-memory node ids. While every node has arrived
	 * in order the two are equal below ident_end; after the first gap
	 * the rest go through remap. */
	uint32_t ident_end;
	int ident_broken;
	struct hmap remap;
	uint64_t next_file_node;
};

#define NODE_MISSING UINT32_MAX
#define NO_THREAD UINT32_MAX

static uint32_t node_lookup(const struct loader *l, uint64_t fid)
{
	const uint64_t *v;

	if (fid < l->ident_end)
		return (uint32_t)fid;
	v = hmap_get(&l->remap, fid, 0);
	return v ? (uint32_t)*v : NODE_MISSING;
}

static int get_u32(struct cursor *c, uint32_t *out)
{
	uint64_t v;

	*out = 0;
	if (cursor_uleb(c, &v) < 0)
		return -1;
	if (v > UINT32_MAX) {
		c->ok = 0;
		c->left = 0;
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* A new thread of tid, from now on the one its tid names. */
static struct trace_thread *thread_add(struct loader *l, uint32_t tid, uint64_t time)
{
	struct trace *t = l->t;
	struct trace_thread *th;
	int added;

	*hmap_put(&l->tids, tid, 0, t->nthreads, &added) = t->nthreads;
	l->tid_reused |= !added;
	t->threads = xgrow(t->threads, &l->cap_threads, t->nthreads + 1, sizeof(*t->threads));
	th = &t->threads[t->nthreads];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->process = TRACE_NO_PROCESS;
	th->time_start = time;
	l->last_tid = tid;
	l->last = t->nthreads++;
	return th;
}

/* The thread tid names now, which a record that names it makes if there
 * is none. */
static struct trace_thread *thread_get(struct loader *l, uint32_t tid, uint64_t time)
{
	struct trace *t = l->t;
	const uint64_t *slot;

	/* Samples come in runs of one thread's. */
	if (t->nthreads && l->last_tid == tid)
		return &t->threads[l->last];
	slot = hmap_get(&l->tids, tid, 0);
	if (!slot)
		return thread_add(l, tid, time);
	l->last_tid = tid;
	l->last = *slot;
	return &t->threads[*slot];
}

/* The index of process id, which a record that names it makes if there
 * is none: known by its id alone until its process record is read. */
static uint32_t process_get(struct loader *l, uint32_t id, uint64_t time)
{
	struct trace *t = l->t;
	struct trace_process *p;
	int added;
	uint64_t *slot = hmap_put(&l->procs, id, 0, t->nprocesses, &added);

	if (!added)
		return (uint32_t)*slot;
	t->processes = xgrow(t->processes, &l->cap_processes, t->nprocesses + 1, sizeof(*t->processes));
	p = &t->processes[t->nprocesses];
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->parent = TRACE_NO_PROCESS;
	p->time_start = time;
	return (uint32_t)t->nprocesses++;
}

/* A process id field of a 2.x record: non-zero, a u32. */
static int get_process(struct loader *l, struct cursor *c, uint64_t time, uint32_t *index)
{
	uint32_t id;

	if (get_u32(c, &id) < 0 || !id) {
		c->ok = 0;
		return -1;
	}
	*index = process_get(l, id, time);
	return 0;
}

static int rec_session(struct loader *l, struct cursor *c)
{
	struct trace_session s = { 0 };
	uint64_t argc = 0;
	int r = TRACE_E_CORRUPT;

	if (l->have_session)
		return 0; /* the first one wins */
	cursor_u8(c, &s.os);
	cursor_u8(c, &s.arch);
	cursor_u8(c, &s.mode);
	get_u32(c, &s.rate_hz);
	get_u32(c, &s.pid);
	cursor_uleb(c, &s.start_realtime_ns);
	cursor_uleb(c, &s.start_monotonic_ns);
	s.host = trace_get_string(c);
	cursor_uleb(c, &argc);
	if (!c->ok)
		goto out;
	if (argc > TRACE_MAX_ARGS || argc > c->left) {
		r = argc > TRACE_MAX_ARGS ? TRACE_E_TOOBIG : TRACE_E_CORRUPT;
		goto out;
	}
	s.argv = xcalloc((size_t)argc + 1, sizeof(*s.argv));
	for (s.argc = 0; s.argc < argc; s.argc++) {
		s.argv[s.argc] = trace_get_string(c);
		if (!s.argv[s.argc])
			goto out;
	}
	/* 1.2's fields; a 1.1 session ends before them, and says nothing of
	 * its sampler. */
	s.kernel_paranoid = TRACE_PARANOID_UNKNOWN;
	if (c->left) {
		cursor_u8(c, &s.sampler);
		cursor_u8(c, &s.kernel);
		cursor_u8(c, &s.kernel_paranoid);
		if (!c->ok)
			goto out;
	}
	/* 1.3's; before, the recorder's priority was not recorded. */
	if (c->left) {
		cursor_u8(c, &s.priority);
		cursor_u8(c, &s.rt_priority);
		if (!c->ok)
			goto out;
	}
	/* 2.6's; before, every trace was a whole recording. */
	if (c->left) {
		uint64_t part;

		cursor_u8(c, &s.part_kind);
		cursor_uleb(c, &s.recording);
		cursor_uleb(c, &part);
		cursor_uleb(c, &s.window_ns);
		if (!c->ok || part > UINT32_MAX)
			goto out;
		s.part = (uint32_t)part;
		if (s.part_kind > TRACE_PART_SNAPSHOT)
			s.part_kind = TRACE_PART_WHOLE; /* a newer minor's: not told */
	}
	l->t->session = s;
	l->have_session = 1;
	return 0;
out:
	free(s.host);
	for (uint32_t i = 0; i < s.argc; i++)
		free(s.argv[i]);
	free(s.argv);
	return r;
}

static int rec_image(struct loader *l, struct cursor *c)
{
	struct trace *t = l->t;
	struct trace_image img = { 0 };
	const uint8_t *ident;
	size_t ident_len;
	int added;
	uint64_t *slot;

	get_u32(c, &img.id);
	cursor_u8(c, &img.ident_kind);
	cursor_bytes(c, TRACE_MAX_IDENT, &ident, &ident_len);
	cursor_u8(c, &img.arch);
	img.path = trace_get_string(c);
	cursor_uleb(c, &img.start);
	cursor_uleb(c, &img.size);
	cursor_uleb(c, &img.file_offset);
	cursor_uleb(c, &img.bias);
	cursor_uleb(c, &img.time_loaded);
	img.process = TRACE_NO_PROCESS; /* 1.x: the session's, once known */
	if (c->ok && t->status.major >= 2)
		get_process(l, c, img.time_loaded, &img.process);
	/* 2.1: how the file was read, and why not */
	if (c->ok && c->left) {
		cursor_u8(c, &img.source);
		cursor_u8(c, &img.flags);
		img.why = trace_get_string(c);
		if (img.why && !img.why[0]) {
			free(img.why);
			img.why = NULL;
		}
	}
	if (!c->ok) {
		free(img.path);
		free(img.why);
		return TRACE_E_CORRUPT;
	}
	/* An identity that names no build is none, for every reader of
	 * struct trace: nothing is looked up by it, nor shown as if it were. */
	if (trace_ident_valid(img.ident_kind, ident_len)) {
		img.ident_len = (uint8_t)ident_len;
		memcpy(img.ident, ident, ident_len);
	} else {
		img.ident_kind = TRACE_IDENT_NONE;
	}
	t->images = xgrow(t->images, &l->cap_images, t->nimages + 1, sizeof(*t->images));
	slot = hmap_put(&l->images, img.id, 0, t->nimages, &added);
	*slot = t->nimages; /* an id seen again names the newer image */
	t->images[t->nimages++] = img;
	return 0;
}

static int rec_image_unload(struct loader *l, struct cursor *c)
{
	uint32_t id;
	uint64_t time;
	const uint64_t *slot;

	get_u32(c, &id);
	cursor_uleb(c, &time);
	if (!c->ok)
		return TRACE_E_CORRUPT;
	slot = hmap_get(&l->images, id, 0);
	if (slot)
		l->t->images[*slot].time_unloaded = time;
	return 0;
}

/* At most this many signal trampolines are kept per image: a libc has
 * one or two. */
#define MAX_SIGNAL_FRAMES 16

static int rec_signal_frame(struct loader *l, struct cursor *c)
{
	uint32_t id;
	uint64_t start, size;
	const uint64_t *slot;
	struct trace_image *img;

	get_u32(c, &id);
	cursor_uleb(c, &start);
	cursor_uleb(c, &size);
	if (!c->ok || size == 0 || start > UINT64_MAX - size)
		return TRACE_E_CORRUPT;
	slot = hmap_get(&l->images, id, 0);
	if (!slot)
		return 0;
	img = &l->t->images[*slot];
	if (img->nsignal == MAX_SIGNAL_FRAMES)
		return 0;
	img->signal = xrealloc(img->signal, (img->nsignal + 1) * sizeof(*img->signal));
	img->signal[img->nsignal++] = (struct trace_range){ start, start + size };
	return 0;
}

/* Past TRACE_MAX_MARKS, marks are read and dropped. settle_marks() puts
 * them in order. */
static int rec_mark(struct loader *l, struct cursor *c)
{
	struct trace *t = l->t;
	uint64_t time;
	uint8_t source;
	char *name;

	cursor_uleb(c, &time);
	cursor_u8(c, &source);
	name = trace_get_string(c);
	if (!c->ok) {
		free(name);
		return TRACE_E_CORRUPT;
	}
	if (t->nmarks == TRACE_MAX_MARKS) {
		free(name);
		return 0;
	}
	t->marks = xgrow(t->marks, &l->cap_marks, t->nmarks + 1, sizeof(*t->marks));
	t->marks[t->nmarks++] = (struct trace_mark){
		.time = time,
		.source = source <= TRACE_MARK_APP ? source : TRACE_MARK_UNKNOWN,
		.name = name,
	};
	return 0;
}

static int rec_pause(struct loader *l, struct cursor *c)
{
	struct trace *t = l->t;
	uint64_t start, len;

	cursor_uleb(c, &start);
	cursor_uleb(c, &len);
	if (!c->ok || start > UINT64_MAX - len)
		return TRACE_E_CORRUPT;
	if (t->npauses == TRACE_MAX_MARKS)
		return 0;
	t->pauses = xgrow(t->pauses, &l->cap_pauses, t->npauses + 1, sizeof(*t->pauses));
	t->pauses[t->npauses++] = (struct trace_range){ start, start + len };
	return 0;
}

/* Past TRACE_MAX_CODE, code ranges are read and dropped. settle_code()
 * puts them in order. */
static int rec_code(struct loader *l, struct cursor *c)
{
	struct trace *t = l->t;
	struct trace_code k = { 0 };
	int r = TRACE_E_CORRUPT;

	cursor_uleb(c, &k.time);
	get_process(l, c, k.time, &k.process);
	cursor_uleb(c, &k.start);
	cursor_uleb(c, &k.size);
	cursor_u8(c, &k.source);
	k.name = trace_get_string(c);
	k.file = trace_get_string(c);
	get_u32(c, &k.line);
	if (!c->ok || !k.size || k.start > UINT64_MAX - k.size || !k.name[0])
		goto out;
	r = 0;
	if (t->ncode == TRACE_MAX_CODE)
		goto out;
	if (!k.file[0]) {
		free(k.file);
		k.file = NULL;
	}
	if (k.source > TRACE_CODE_VDSO)
		k.source = TRACE_CODE_UNKNOWN;
	if (k.size > t->code_max_size)
		t->code_max_size = k.size;
	t->code = xgrow(t->code, &l->cap_code, t->ncode + 1, sizeof(*t->code));
	t->code[t->ncode++] = k;
	return 0;
out:
	free(k.name);
	free(k.file);
	return r;
}

static int cmp_range(const void *a, const void *b)
{
	const struct trace_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

struct mark_order {
	uint64_t time;
	size_t index;
};

static int cmp_mark_order(const void *a, const void *b)
{
	const struct mark_order *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* Marks in order of time, those of one time in file order (chunks may
 * come out of order, and a hostile file in any). */
static void settle_marks(struct trace *t)
{
	struct mark_order *o;
	struct trace_mark *sorted;
	size_t i;

	for (i = 1; i < t->nmarks && t->marks[i - 1].time <= t->marks[i].time; i++)
		;
	if (i >= t->nmarks)
		return;
	o = xmalloc(t->nmarks * sizeof(*o));
	for (i = 0; i < t->nmarks; i++)
		o[i] = (struct mark_order){ t->marks[i].time, i };
	qsort(o, t->nmarks, sizeof(*o), cmp_mark_order);
	sorted = xmalloc(t->nmarks * sizeof(*sorted));
	for (i = 0; i < t->nmarks; i++)
		sorted[i] = t->marks[o[i].index];
	free(t->marks);
	t->marks = sorted;
	free(o);
}

struct code_order {
	const struct trace_code *k;
	size_t index;
};

static int cmp_code_order(const void *a, const void *b)
{
	const struct code_order *x = a, *y = b;

	if (x->k->process != y->k->process)
		return x->k->process < y->k->process ? -1 : 1;
	if (x->k->start != y->k->start)
		return x->k->start < y->k->start ? -1 : 1;
	if (x->k->time != y->k->time)
		return x->k->time < y->k->time ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* Code ranges in order of process, start and time, for trace_code_at(). */
static void settle_code(struct trace *t)
{
	struct code_order *o;
	struct trace_code *sorted;
	size_t i;

	if (t->ncode < 2)
		return;
	o = xmalloc(t->ncode * sizeof(*o));
	for (i = 0; i < t->ncode; i++)
		o[i] = (struct code_order){ &t->code[i], i };
	qsort(o, t->ncode, sizeof(*o), cmp_code_order);
	sorted = xmalloc(t->ncode * sizeof(*sorted));
	for (i = 0; i < t->ncode; i++)
		sorted[i] = *o[i].k;
	free(t->code);
	t->code = sorted;
	free(o);
}

static int rec_thread(struct loader *l, struct cursor *c, unsigned type)
{
	struct trace_thread *th;
	uint32_t tid, process = TRACE_NO_PROCESS;
	uint64_t time;
	char *name = NULL;
	size_t i;

	get_u32(c, &tid);
	cursor_uleb(c, &time);
	if (type == TRACE_REC_THREAD_NAME)
		name = trace_get_string(c);
	if (c->ok && type == TRACE_REC_THREAD_START && l->t->status.major >= 2)
		get_process(l, c, time, &process);
	if (!c->ok) {
		free(name);
		return TRACE_E_CORRUPT;
	}
	th = thread_get(l, tid, time);
	switch (type) {
	case TRACE_REC_THREAD_START:
		/* A tid used again: by another process, or after its thread
		 * ended. */
		if ((th->process != TRACE_NO_PROCESS && process != th->process) ||
		    (th->time_end && time >= th->time_end))
			th = thread_add(l, tid, time);
		th->process = process;
		if (!th->time_start || time < th->time_start)
			th->time_start = time;
		break;
	case TRACE_REC_THREAD_END:
		th->time_end = time;
		break;
	case TRACE_REC_THREAD_NAME:
		/* Kept oldest first even if chunks disagree; equal times keep
		 * their file order. */
		th->names = xrealloc(th->names, (th->nnames + 1) * sizeof(*th->names));
		for (i = th->nnames; i > 0 && th->names[i - 1].time > time; i--)
			th->names[i] = th->names[i - 1];
		th->names[i].time = time;
		th->names[i].name = name;
		th->nnames++;
		break;
	}
	return 0;
}

static int rec_process(struct loader *l, struct cursor *c)
{
	struct trace_process *p;
	uint32_t id, pid, parent, k, up;
	uint64_t time;

	get_u32(c, &id);
	get_u32(c, &pid);
	get_u32(c, &parent);
	cursor_uleb(c, &time);
	if (!c->ok || !id)
		return TRACE_E_CORRUPT;
	l->process_records++;
	/* process_get() may move the array: each index first. */
	k = process_get(l, id, time);
	up = parent && parent != id ? process_get(l, parent, time) : TRACE_NO_PROCESS;
	p = &l->t->processes[k];
	p->pid = pid;
	if (time < p->time_start)
		p->time_start = time;
	if (up != TRACE_NO_PROCESS)
		p->parent = up;
	return 0;
}

static int rec_process_exec(struct loader *l, struct cursor *c)
{
	struct trace_process *p;
	struct trace_exec e = { 0 };
	uint32_t id, k;
	uint64_t argc;
	size_t i;
	int r = TRACE_E_CORRUPT;

	get_u32(c, &id);
	cursor_uleb(c, &e.time);
	cursor_uleb(c, &argc);
	if (!c->ok || !id)
		return TRACE_E_CORRUPT;
	if (argc > TRACE_MAX_ARGS || argc > c->left)
		return argc > TRACE_MAX_ARGS ? TRACE_E_TOOBIG : TRACE_E_CORRUPT;
	e.argv = xcalloc((size_t)argc + 1, sizeof(*e.argv));
	for (e.argc = 0; e.argc < argc; e.argc++)
		if (!(e.argv[e.argc] = trace_get_string(c)))
			goto out;
	k = process_get(l, id, e.time);
	p = &l->t->processes[k];
	/* Kept oldest first, equal times in file order, as thread names. */
	p->execs = xrealloc(p->execs, (p->nexecs + 1) * sizeof(*p->execs));
	for (i = p->nexecs; i > 0 && p->execs[i - 1].time > e.time; i--)
		p->execs[i] = p->execs[i - 1];
	p->execs[i] = e;
	p->nexecs++;
	return 0;
out:
	for (i = 0; i < e.argc; i++)
		free(e.argv[i]);
	free(e.argv);
	return r;
}

static int rec_process_end(struct loader *l, struct cursor *c)
{
	struct trace_process *p;
	uint32_t id, k;
	uint64_t time;
	uint8_t exited;
	int64_t status;

	get_u32(c, &id);
	cursor_uleb(c, &time);
	cursor_u8(c, &exited);
	cursor_svarint(c, &status);
	if (!c->ok || !id || status < INT32_MIN || status > INT32_MAX)
		return TRACE_E_CORRUPT;
	k = process_get(l, id, time);
	p = &l->t->processes[k];
	p->time_end = time;
	p->has_exit = exited == TRACE_END_EXITED;
	p->exit_status = p->has_exit ? (int32_t)status : 0;
	p->out_of_reach = exited == TRACE_END_OUT_OF_REACH;
	return 0;
}

static int rec_nodes(struct loader *l, struct cursor *c)
{
	struct trace *t = l->t;
	uint64_t first, count;
	uint32_t *codes = NULL;
	int r = TRACE_E_CORRUPT;

	cursor_uleb(c, &first);
	cursor_uleb(c, &count);
	if (!c->ok || first < 1 || first < l->next_file_node || count > c->left / 2 ||
	    first + count > (uint64_t)UINT32_MAX)
		goto out;
	if (first > l->next_file_node)
		l->ident_broken = 1; /* a chunk with nodes went missing */
	l->next_file_node = first + count;
	codes = xmalloc((size_t)count * sizeof(*codes) + 1);
	for (uint64_t i = 0; i < count; i++)
		get_u32(c, &codes[i]);
	if (!c->ok)
		goto out;
	t->nodes = xgrow(t->nodes, &l->cap_nodes, t->nnodes + (size_t)count, sizeof(*t->nodes));
	for (uint64_t i = 0; i < count; i++) {
		uint64_t fid = first + i;
		uint32_t parent;
		int64_t delta;

		if (cursor_svarint(c, &delta) < 0 || codes[i] >= fid)
			goto out;
		parent = codes[i] ? node_lookup(l, fid - codes[i]) : 0;
		if (parent == NODE_MISSING) {
			l->ident_broken = 1;
			continue;
		}
		if (!l->ident_broken && fid == l->ident_end && fid == t->nnodes) {
			l->ident_end++;
		} else {
			l->ident_broken = 1;
			hmap_put(&l->remap, fid, 0, t->nnodes, NULL);
		}
		t->nodes[t->nnodes].parent = parent;
		t->nodes[t->nnodes].addr = t->nodes[parent].addr + (uint64_t)delta;
		t->nnodes++;
	}
	r = 0;
out:
	free(codes);
	return r;
}

static int rec_samples(struct loader *l, struct cursor *c)
{
	struct trace *t = l->t;
	uint64_t n, ntids, nstacks, t0, time, fid = 0;
	uint32_t *tids = NULL;   /* the record's thread table */
	uint32_t *stacks = NULL; /* its stack table, as in-memory node ids */
	struct trace_sample *s;
	int64_t period;
	const uint8_t *lo0, *lo1;
	size_t kept = 0;
	int r = TRACE_E_CORRUPT;

	cursor_uleb(c, &n);
	if (!c->ok)
		goto out;
	if (!n)
		return 0;
	/* Each sample has at least a byte in each of four columns, and each
	 * table entry a byte, so these bound every allocation below. */
	if (n > c->left / 4)
		goto out;
	cursor_uleb(c, &ntids);
	if (!c->ok || !ntids || ntids > n || ntids > c->left)
		goto out;
	tids = xmalloc((size_t)ntids * sizeof(*tids));
	for (uint64_t i = 0; i < ntids; i++)
		get_u32(c, &tids[i]);
	cursor_uleb(c, &nstacks);
	if (!c->ok || !nstacks || nstacks > n || nstacks > c->left)
		goto out;
	stacks = xmalloc((size_t)nstacks * sizeof(*stacks));
	for (uint64_t i = 0; i < nstacks; i++) {
		int64_t d;
		if (cursor_svarint(c, &d) < 0)
			goto out;
		fid += (uint64_t)d;
		if (fid > UINT32_MAX)
			goto out;
		stacks[i] = node_lookup(l, fid);
	}
	cursor_uleb(c, &t0);
	cursor_svarint(c, &period);
	if (!c->ok || cursor_take(c, (size_t)(n - 1), &lo0) < 0 ||
	    cursor_take(c, (size_t)(n - 1), &lo1) < 0)
		goto out;

	t->samples = xgrow(t->samples, &l->cap_samples, t->nsamples + (size_t)n, sizeof(*t->samples));
	s = t->samples + t->nsamples;
	time = t0;
	for (uint64_t i = 0; i < n; i++) {
		int64_t hi = 0;
		if (i) {
			if (cursor_svarint(c, &hi) < 0)
				goto out;
			/* delta = period - bias + (hi << 16 | lo1 << 8 | lo0),
			 * modulo 2^64 */
			time += (uint64_t)period - TRACE_RESIDUAL_BIAS +
				((uint64_t)hi << 16 | (uint64_t)lo1[i - 1] << 8 | lo0[i - 1]);
		}
		memset(&s[i], 0, sizeof(s[i]));
		s[i].time = time;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t idx;
		if (cursor_uleb(c, &idx) < 0 || idx >= ntids)
			goto out;
		s[i].tid = tids[idx];
	}
	for (uint64_t i = 0; i < n; i++)
		cursor_u8(c, &s[i].state);
	for (uint64_t i = 0; i < n; i++)
		cursor_u8(c, &s[i].flags);
	if (!c->ok)
		goto out;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t idx;
		if (cursor_uleb(c, &idx) < 0 || idx >= nstacks)
			goto out;
		if (stacks[idx] == NODE_MISSING) {
			t->status.samples_dropped++;
			continue;
		}
		s[kept] = s[i];
		s[kept].stack = stacks[idx];
		kept++;
	}
	for (size_t i = 0; i < kept; i++) {
		thread_get(l, s[i].tid, s[i].time);
		s[i].thread = (uint32_t)l->last;
	}
	t->nsamples += kept;
	r = 0;
out:
	free(tids);
	free(stacks);
	return r;
}

static int rec_counters(struct loader *l, struct cursor *c)
{
	uint64_t n, key, value;

	cursor_uleb(c, &n);
	if (!c->ok || n > c->left / 2)
		return TRACE_E_CORRUPT;
	for (uint64_t i = 0; i < n; i++) {
		cursor_uleb(c, &key);
		cursor_uleb(c, &value);
		if (!c->ok)
			return TRACE_E_CORRUPT;
		if (key < TRACE_COUNTER__COUNT)
			l->t->counters[key] = value; /* unknown keys: newer minor */
	}
	return 0;
}

static int rec_end(struct loader *l, struct cursor *c)
{
	struct trace_end e = { 0 };
	uint8_t has_exit;
	int64_t status;

	cursor_uleb(c, &e.time);
	cursor_u8(c, &has_exit);
	cursor_svarint(c, &status);
	if (!c->ok || status < INT32_MIN || status > INT32_MAX)
		return TRACE_E_CORRUPT;
	e.has_exit = has_exit == 1; /* other values: a newer minor's, not told */
	e.exit_status = (int32_t)status;
	l->t->end = e;
	l->t->has_end = 1;
	return 0;
}

/* Applies the records of one data chunk. Records before a bad one stay. */
static int parse_data(struct loader *l, const uint8_t *p, size_t n)
{
	struct cursor c;

	cursor_init(&c, p, n);
	while (c.left > 0) {
		uint64_t type;
		const uint8_t *body;
		size_t len;
		struct cursor rc;
		int r = 0;

		if (cursor_uleb(&c, &type) < 0 || cursor_bytes(&c, c.left, &body, &len) < 0)
			return TRACE_E_CORRUPT;
		cursor_init(&rc, body, len);
		switch (type) {
		case TRACE_REC_SESSION: r = rec_session(l, &rc); break;
		case TRACE_REC_IMAGE: r = rec_image(l, &rc); break;
		case TRACE_REC_IMAGE_UNLOAD: r = rec_image_unload(l, &rc); break;
		case TRACE_REC_THREAD_START:
		case TRACE_REC_THREAD_NAME:
		case TRACE_REC_THREAD_END: r = rec_thread(l, &rc, (unsigned)type); break;
		case TRACE_REC_NODES: r = rec_nodes(l, &rc); break;
		case TRACE_REC_SAMPLES: r = rec_samples(l, &rc); break;
		case TRACE_REC_COUNTERS: r = rec_counters(l, &rc); break;
		case TRACE_REC_END: r = rec_end(l, &rc); break;
		case TRACE_REC_PROCESS: r = rec_process(l, &rc); break;
		case TRACE_REC_PROCESS_EXEC: r = rec_process_exec(l, &rc); break;
		case TRACE_REC_PROCESS_END: r = rec_process_end(l, &rc); break;
		case TRACE_REC_SIGNAL_FRAME: r = rec_signal_frame(l, &rc); break;
		case TRACE_REC_MARK: r = rec_mark(l, &rc); break;
		case TRACE_REC_PAUSE: r = rec_pause(l, &rc); break;
		case TRACE_REC_CODE: r = rec_code(l, &rc); break;
		default: break; /* a newer minor version's record */
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* The footer counts what was written before it; what was read must agree
 * unless a loss before it explains the difference. */
static int parse_footer(struct loader *l, const struct trace_chunk *k)
{
	struct trace_load_status *st = &l->t->status;
	uint64_t *f = st->footer, got;
	struct cursor c;
	int agrees, lost;

	cursor_init(&c, k->raw, k->len);
	for (int i = 0; i < 4; i++)
		cursor_uleb(&c, &f[i]);
	if (!c.ok)
		return TRACE_E_CORRUPT;
	st->has_footer = 1;
	st->footer_seq = k->h.seq;
	got = l->t->nsamples + st->samples_dropped;
	st->samples_missing = f[1] > got ? f[1] - got : 0;
	agrees = f[0] == k->h.seq && f[1] == got && f[2] == l->next_file_node - 1 && f[3] == k->offset;
	lost = st->chunks_missing || st->chunks_damaged || st->bytes_damaged;
	if (!agrees && !lost) {
		struct trace_loss loss = {
			.kind = TRACE_LOSS_DAMAGED, .damage = TRACE_DAMAGE_FOOTER,
			.held = TRACE_HELD_FOOTER, .seq = k->h.seq, .offset = k->offset, .samples_before = l->t->nsamples,
		};
		trace_loss_note(st, &loss);
	}
	st->complete = agrees && !lost;
	return 0;
}

/* One decompressed chunk of the trace: records, the footer, or a part of
 * a symbol pack (format/trace_pack.c). */
static int read_chunk(void *ctx, const struct trace_chunk *c)
{
	struct loader *l = ctx;

	if (c->h.type == TRACE_CHUNK_FOOTER)
		return parse_footer(l, c);
	if ((1u << c->h.type) & TRACE_CHUNK_PACK_TYPES) {
		if (!l->t->pack)
			l->t->pack = trace_pack_new();
		return trace_pack_parse_chunk(l->t->pack, c->h.type, c->raw, c->len);
	}
	return parse_data(l, c->raw, c->len);
}

static uint64_t samples_read(void *ctx)
{
	return ((struct loader *)ctx)->t->nsamples;
}

/* Gives each loss the times of the samples around it: the latest read
 * before it and the earliest read after (times may go backwards). */
static void time_losses(struct trace *t)
{
	struct trace_load_status *st = &t->status;
	uint64_t edge = 0;
	size_t i = 0, k;
	int any = 0;

	for (k = 0; k < st->nlosses; k++) {
		struct trace_loss *loss = &st->losses[k];
		for (; i < loss->samples_before && i < t->nsamples; i++, any = 1)
			if (!any || t->samples[i].time > edge)
				edge = t->samples[i].time;
		if (any) {
			loss->has |= TRACE_LOSS_BEFORE;
			loss->time_before = edge;
		}
	}
	any = 0;
	for (i = t->nsamples, k = st->nlosses; k-- > 0;) {
		struct trace_loss *loss = &st->losses[k];
		for (; i > loss->samples_before; i--, any = 1)
			if (!any || t->samples[i - 1].time < edge)
				edge = t->samples[i - 1].time;
		if (any) {
			loss->has |= TRACE_LOSS_AFTER;
			loss->time_after = edge;
		}
	}
}

/* Every thread and image in a process: a 1.x trace's, or a 2.x trace's
 * in which no process record was read, in one made of the session (its
 * pid, its command from the start, the end's exit status), the first; a
 * thread or image that named none, in the first. */
static void settle_processes(struct loader *l)
{
	struct trace *t = l->t;
	size_t i;

	if (!l->process_records) {
		uint32_t k = t->nprocesses ? 0 : process_get(l, 1, t->session.start_monotonic_ns);
		struct trace_process *p = &t->processes[k];

		p->pid = t->session.pid;
		if (t->session.argc && !p->nexecs) {
			p->execs = xcalloc(1, sizeof(*p->execs));
			p->nexecs = 1;
			p->execs[0].time = t->session.start_monotonic_ns;
			p->execs[0].argc = t->session.argc;
			p->execs[0].argv = xcalloc((size_t)t->session.argc + 1, sizeof(char *));
			for (uint32_t k = 0; k < t->session.argc; k++)
				p->execs[0].argv[k] = xstrdup(t->session.argv[k]);
		}
		if (t->has_end && t->end.has_exit) {
			p->time_end = t->end.time;
			p->has_exit = 1;
			p->exit_status = t->end.exit_status;
		}
	}
	for (i = 0; i < t->nthreads; i++)
		if (t->threads[i].process == TRACE_NO_PROCESS)
			t->threads[i].process = 0;
	for (i = 0; i < t->nimages; i++)
		if (t->images[i].process == TRACE_NO_PROCESS)
			t->images[i].process = 0;
}

/* With a tid reused, each sample of it is its thread's that had started
 * by the sample's time (the first one's, if none had): a chunk's thread
 * records are read before its samples, so the order read does not tell. */
static void settle_reused_tids(struct loader *l)
{
	struct trace *t = l->t;
	uint32_t *next;      /* per thread: the next thread of its tid, or NO_THREAD */
	struct hmap first;   /* (tid, 0) -> its first thread */
	size_t i;

	if (!l->tid_reused)
		return;
	next = xmalloc((t->nthreads ? t->nthreads : 1) * sizeof(*next));
	hmap_init(&first);
	for (i = t->nthreads; i-- > 0;) {
		int added;
		uint64_t *slot = hmap_put(&first, t->threads[i].tid, 0, i, &added);

		next[i] = added ? NO_THREAD : (uint32_t)*slot;
		*slot = i;
	}
	for (i = 0; i < t->nsamples; i++) {
		struct trace_sample *s = &t->samples[i];
		const uint64_t *slot = hmap_get(&first, s->tid, 0);
		uint32_t k;

		if (!slot)
			continue;
		s->thread = (uint32_t)*slot;
		for (k = next[s->thread]; k != NO_THREAD && t->threads[k].time_start <= s->time; k = next[k])
			s->thread = k;
	}
	hmap_release(&first);
	free(next);
}

void trace_settle(struct trace *t, size_t cap_nodes)
{
	/* A parent chain that comes back to its process (a hostile trace's)
	 * is cut there, so the processes are a forest. */
	for (size_t i = 0; i < t->nprocesses; i++) {
		uint32_t up = t->processes[i].parent;

		for (size_t steps = 0; up != TRACE_NO_PROCESS && steps < t->nprocesses; steps++) {
			if (up == i) {
				t->processes[i].parent = TRACE_NO_PROCESS;
				break;
			}
			up = t->processes[up].parent;
		}
	}
	settle_marks(t);
	settle_code(t);
	if (t->npauses > 1) /* qsort may not be given NULL */
		qsort(t->pauses, t->npauses, sizeof(*t->pauses), cmp_range);
	trace_split_by_image(t, cap_nodes);
}

static int load(const void *mem, size_t n, struct progress *pg, struct trace **out)
{
	const uint8_t *p = mem;
	struct loader l = { 0 };
	struct trace_walk w = {
		.types = 1u << TRACE_CHUNK_DATA | 1u << TRACE_CHUNK_FOOTER | TRACE_CHUNK_PACK_TYPES,
		.fn = read_chunk,
		.mark = samples_read,
		.ctx = &l,
		.progress = pg,
	};
	uint16_t major, minor;
	int r;

	*out = NULL;
	if (!p && n)
		return TRACE_E_USAGE;
	if ((r = trace_file_header_check(p, n, TRACE_MAGIC, &major, &minor)) < 0)
		return r;

	l.t = xcalloc(1, sizeof(*l.t));
	l.t->status.major = major;
	l.t->status.minor = minor;
	l.t->status.file_bytes = n;
	hmap_init(&l.tids);
	hmap_init(&l.procs);
	hmap_init(&l.images);
	hmap_init(&l.remap);
	l.next_file_node = 1;
	l.ident_end = 1;
	l.t->nodes = xgrow(NULL, &l.cap_nodes, 1, sizeof(*l.t->nodes));
	l.t->nodes[0].addr = 0;
	l.t->nodes[0].parent = 0;
	l.t->nnodes = 1;
	progress_phase(pg, "reading trace", "bytes", n);
	if ((r = trace_walk_chunks(p, n, &w, &l.t->status)) < 0)
		goto out;
	if (!l.t->status.has_footer && l.t->status.ends_whole) {
		struct trace_loss loss = { .kind = TRACE_LOSS_UNFINISHED,
					   .seq = l.t->status.next_seq, .offset = n,
					   .samples_before = l.t->nsamples };
		trace_loss_note(&l.t->status, &loss);
	}
	time_losses(l.t);
	r = l.have_session ? 0 : TRACE_E_EMPTY;
	if (r == 0) {
		settle_processes(&l);
		settle_reused_tids(&l);
		trace_settle(l.t, l.cap_nodes);
	}
out:
	hmap_release(&l.tids);
	hmap_release(&l.procs);
	hmap_release(&l.images);
	hmap_release(&l.remap);
	if (r < 0) {
		trace_free(l.t);
		return r;
	}
	*out = l.t;
	return 0;
}

int trace_load_mem(const void *mem, size_t n, struct trace **out)
{
	return load(mem, n, NULL, out);
}

/* What trace_load_path() hands the file's bytes to. */
struct load_ctx {
	struct progress *pg;
	struct trace **out;
};

static int load_file(const void *p, size_t n, void *ctx)
{
	struct load_ctx *c = ctx;

	return load(p, n, c->pg, c->out);
}

int trace_load(const char *path, struct trace **out)
{
	return trace_load_progress(path, NULL, out);
}

int trace_load_progress(const char *path, struct progress *pg, struct trace **out)
{
	struct load_ctx c = { pg, out };

	*out = NULL;
	return trace_load_path(path, load_file, &c);
}

static void session_release(struct trace_session *s)
{
	free(s->host);
	for (uint32_t i = 0; i < s->argc; i++)
		free(s->argv[i]);
	free(s->argv);
}

void trace_free(struct trace *t)
{
	if (!t)
		return;
	session_release(&t->session);
	for (size_t i = 0; i < t->nfiles; i++) {
		free(t->files[i].path);
		session_release(&t->files[i].session);
		trace_load_status_release(&t->files[i].status);
		trace_pack_free(t->files[i].pack);
	}
	free(t->files);
	for (size_t i = 0; i < t->nimages; i++) {
		free(t->images[i].path);
		free(t->images[i].why);
		free(t->images[i].signal);
	}
	free(t->images);
	for (size_t i = 0; i < t->nthreads; i++) {
		for (size_t j = 0; j < t->threads[i].nnames; j++)
			free(t->threads[i].names[j].name);
		free(t->threads[i].names);
	}
	free(t->threads);
	for (size_t i = 0; i < t->nprocesses; i++) {
		for (size_t j = 0; j < t->processes[i].nexecs; j++) {
			for (uint32_t k = 0; k < t->processes[i].execs[j].argc; k++)
				free(t->processes[i].execs[j].argv[k]);
			free(t->processes[i].execs[j].argv);
		}
		free(t->processes[i].execs);
	}
	free(t->processes);
	for (size_t i = 0; i < t->nmarks; i++)
		free(t->marks[i].name);
	free(t->marks);
	free(t->pauses);
	for (size_t i = 0; i < t->ncode; i++) {
		free(t->code[i].name);
		free(t->code[i].file);
	}
	free(t->code);
	free(t->nodes);
	free(t->samples);
	trace_pack_free(t->pack);
	trace_load_status_release(&t->status);
	free(t);
}

const struct trace_thread *trace_thread_find(const struct trace *t, uint32_t tid)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == tid)
			return &t->threads[i];
	return NULL;
}

const struct trace_thread *trace_sample_thread(const struct trace *t, const struct trace_sample *s)
{
	/* A trace built by hand may leave s->thread 0. */
	if (s->thread < t->nthreads && t->threads[s->thread].tid == s->tid)
		return &t->threads[s->thread];
	return trace_thread_find(t, s->tid);
}

const char *trace_thread_name_at(const struct trace_thread *th, uint64_t time)
{
	const char *name;

	if (!th || !th->nnames)
		return "";
	name = th->names[0].name;
	for (size_t i = 1; i < th->nnames && th->names[i].time <= time; i++)
		name = th->names[i].name;
	return name ? name : "";
}

uint64_t trace_end_ns(const struct trace *t)
{
	uint64_t end = 0;

	if (t->has_end)
		return t->end.time;
	/* Samples are in the order they were written, not that of their
	 * times: in wall mode, a thread's ticks off the CPU are written when
	 * it comes back. So the last sample need not be the latest. */
	for (size_t i = 0; i < t->nsamples; i++)
		if (t->samples[i].time > end)
			end = t->samples[i].time;
	return end;
}

uint64_t trace_duration_ns(const struct trace *t)
{
	return trace_since_start_ns(t, trace_end_ns(t));
}

uint64_t trace_since_start_ns(const struct trace *t, uint64_t time)
{
	uint64_t start = t->session.start_monotonic_ns;

	return time > start ? time - start : 0;
}

double trace_since_start_s(const struct trace *t, uint64_t time)
{
	uint64_t start = t->session.start_monotonic_ns;

	return time >= start ? (double)trace_since_start_ns(t, time) / 1e9 : -(double)(start - time) / 1e9;
}

long trace_mark_find(const struct trace *t, const char *name, uint64_t time)
{
	for (size_t i = 0; i < t->nmarks; i++)
		if (t->marks[i].time >= time && !strcmp(t->marks[i].name, name))
			return (long)i;
	return -1;
}

uint64_t trace_paused_ns(const struct trace *t, uint64_t from, uint64_t to)
{
	uint64_t sum = 0, covered = from;

	/* Pauses may overlap in a hand-built file: each instant counts once. */
	for (size_t i = 0; i < t->npauses; i++) {
		uint64_t a = t->pauses[i].start > covered ? t->pauses[i].start : covered;
		uint64_t b = t->pauses[i].end < to ? t->pauses[i].end : to;

		if (b > a) {
			sum += b - a;
			covered = b;
		}
	}
	return sum;
}

void trace_chain_init(struct trace_chain *c, const struct trace *t, uint32_t stack)
{
	c->t = t;
	c->next = t && stack < t->nnodes ? stack : 0;
}

int trace_chain_next(struct trace_chain *c, uint32_t *node)
{
	uint32_t n = c->next, parent;

	if (!n)
		return 0;
	*node = n;
	parent = c->t->nodes[n].parent;
	c->next = parent < n ? parent : 0;
	return 1;
}

size_t trace_stack(const struct trace *t, uint32_t stack, uint64_t *out, size_t max)
{
	struct trace_chain c;
	uint32_t node;
	size_t n = 0;

	for (trace_chain_init(&c, t, stack); trace_chain_next(&c, &node); n++)
		if (n < max && out)
			out[n] = t->nodes[node].addr;
	return n;
}
