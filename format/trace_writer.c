/*
 * trace_writer.c: turns prof-record's stream of events into trace chunks.
 *
 * Records are buffered in call order into the current chunk; samples are
 * kept apart in columns (time deltas, thread indexes, states, flags, stack
 * codes), because zstd compresses a column of similar numbers far better
 * than interleaved rows. Each sample's stack is folded into a prefix tree
 * keyed by (parent node, address), so a stack seen before costs one small
 * code and only new nodes are written. When the chunk is flushed (by the
 * caller once a second, or by itself when it passes TRACE_CHUNK_TARGET) the
 * new nodes, then the samples, are appended as records and the chunk goes
 * to the container (format/trace_chunk.c), which compresses and writes it.
 * After a failed write, which leaves a regular file ending with its last
 * whole chunk, the writer refuses everything else, so a half-written
 * chunk can only be left at the end of a pipe or of a file that cannot be
 * truncated, where the reader counts it as lost.
 */
#include "format/trace.h"
#include "format/trace_codec.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/hmap.h"

/* The deepest stack one sample may carry; keeps one chunk under
 * TRACE_MAX_CHUNK whatever the caller passes. */
#define WRITER_MAX_DEPTH (1u << 20)

struct stack_entry {
	uint32_t node;
	uint32_t count; /* samples in this chunk */
	uint32_t first; /* order of first use, the tie-break */
	uint32_t rank;  /* its index in the record's stack table */
};

struct trace_writer {
	struct trace_sink sink;
	int err;       /* sticky: the first write error */
	int finished;
	uint64_t samples;
	uint64_t data_chunks;

	struct buf meta;  /* this chunk's records other than nodes and samples */
	struct buf raw;   /* the chunk being assembled */
	struct buf rec;   /* one record's payload */

	/* The stack prefix tree: (parent id, address) -> node id. */
	struct hmap tree;
	uint32_t next_node;    /* ids are dense; 0 is the root */
	uint32_t first_new;    /* first node id not yet written */
	uint64_t *last;        /* the last sample's stack, and its node: a */
	size_t nlast, cap_last; /* thread off the CPU repeats it tick after */
	uint32_t last_node;    /* tick, and blocked threads share theirs */
	struct buf new_parent; /* per new node: 0 (root) or id - parent */
	struct buf new_addr;   /* per new node: zigzag(addr - parent addr) */

	/* This chunk's samples, in columns. */
	uint64_t nsamp;
	uint64_t *times;
	size_t cap_times;
	uint32_t *sidx;  /* per sample: index into stacks */
	size_t cap_sidx;
	struct buf c_tid, c_state, c_flags;
	int64_t *deltas; /* scratch for the period */
	size_t cap_deltas;
	struct hmap tid_index; /* (tid, 0) -> index into tids */
	uint32_t *tids;
	size_t ntids, cap_tids;
	struct hmap stack_index; /* (node, 0) -> index into stacks */
	struct stack_entry *stacks;
	size_t nstacks, cap_stacks;
	struct stack_entry **order;
	size_t cap_order;

	uint64_t counters[TRACE_COUNTER__COUNT]; /* the values last written */
};

static void chunk_reset(struct trace_writer *w)
{
	buf_reset(&w->meta);
	buf_reset(&w->new_parent);
	buf_reset(&w->new_addr);
	w->first_new = w->next_node;
	w->nsamp = 0;
	buf_reset(&w->c_tid);
	buf_reset(&w->c_state);
	buf_reset(&w->c_flags);
	hmap_release(&w->tid_index);
	w->ntids = 0;
	hmap_release(&w->stack_index);
	w->nstacks = 0;
}

static size_t chunk_estimate(const struct trace_writer *w)
{
	return w->meta.len + w->new_parent.len + w->new_addr.len + w->nsamp * 3 +
	       w->c_tid.len + w->c_state.len + w->c_flags.len + w->nsamp * 2 +
	       w->ntids * 5 + w->nstacks * 5 + 64;
}

/* Appends type, length and the payload in w->rec to dst as one record. */
static void put_record(struct buf *dst, unsigned type, const struct buf *payload)
{
	buf_put_uvarint(dst, type);
	buf_put_bytes(dst, payload->data, payload->len);
}

static int check_string(const char *s)
{
	if (!s)
		return TRACE_E_USAGE;
	return strlen(s) > TRACE_MAX_STRING ? TRACE_E_TOOBIG : 0;
}

static void emit_nodes(struct trace_writer *w)
{
	uint32_t count = w->next_node - w->first_new;

	if (!count)
		return;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, w->first_new);
	buf_put_uvarint(&w->rec, count);
	buf_add(&w->rec, w->new_parent.data, w->new_parent.len);
	buf_add(&w->rec, w->new_addr.data, w->new_addr.len);
	put_record(&w->raw, TRACE_REC_NODES, &w->rec);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The typical gap between samples: the median of the non-zero deltas (in
 * wall mode most deltas are 0, every thread sharing its tick's time). */
static int64_t period(struct trace_writer *w)
{
	size_t n = 0;

	w->deltas = xgrow(w->deltas, &w->cap_deltas, w->nsamp, sizeof(*w->deltas));
	for (uint64_t i = 1; i < w->nsamp; i++)
		if (w->times[i] != w->times[i - 1])
			w->deltas[n++] = (int64_t)(w->times[i] - w->times[i - 1]);
	if (!n)
		return 0;
	qsort(w->deltas, n, sizeof(*w->deltas), cmp_i64);
	return w->deltas[n / 2];
}

/* Arithmetic shift right by 16 of a two's complement value, portably. */
static int64_t high_part(uint64_t r)
{
	uint64_t h = r >> 16;
	if (r >> 63)
		h |= 0xffffull << 48;
	return (int64_t)h;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct stack_entry *x = *(struct stack_entry *const *)a;
	const struct stack_entry *y = *(struct stack_entry *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

static void emit_samples(struct trace_writer *w)
{
	size_t cols[6], base;

	uint32_t prev = 0;
	int64_t p;

	if (!w->nsamp)
		return;
	p = period(w);
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, w->nsamp);
	buf_put_uvarint(&w->rec, w->ntids);
	for (size_t i = 0; i < w->ntids; i++)
		buf_put_uvarint(&w->rec, w->tids[i]);
	/* The stack table, most used first, so hot stacks get the shortest
	 * codes; ids as deltas from the entry before. */
	w->order = xgrow(w->order, &w->cap_order, w->nstacks, sizeof(*w->order));
	for (size_t i = 0; i < w->nstacks; i++)
		w->order[i] = &w->stacks[i];
	qsort(w->order, w->nstacks, sizeof(*w->order), cmp_stack);
	buf_put_uvarint(&w->rec, w->nstacks);
	for (size_t i = 0; i < w->nstacks; i++) {
		w->order[i]->rank = (uint32_t)i;
		buf_put_svarint(&w->rec, (int64_t)w->order[i]->node - (int64_t)prev);
		prev = w->order[i]->node;
	}
	buf_put_uvarint(&w->rec, w->times[0]);
	buf_put_svarint(&w->rec, p);
	/* Each delta's residual against the period, offset by 2^15 and split
	 * into byte planes: bits 0-7, which jitter makes noise, bits 8-15,
	 * which are noise only for jitter past a microsecond or so, and the
	 * rest, 0 while jitter stays within +-32 us. Each column then gets a
	 * zstd block and an entropy table of its own. */
	for (int byte = 0; byte < 2; byte++) {
		cols[byte] = w->rec.len;
		for (uint64_t i = 1; i < w->nsamp; i++) {
			uint64_t u = w->times[i] - w->times[i - 1] - (uint64_t)p + TRACE_RESIDUAL_BIAS;
			buf_addch(&w->rec, (uint8_t)(u >> (8 * byte)));
		}
	}
	cols[2] = w->rec.len;
	for (uint64_t i = 1; i < w->nsamp; i++) {
		uint64_t u = w->times[i] - w->times[i - 1] - (uint64_t)p + TRACE_RESIDUAL_BIAS;
		buf_put_svarint(&w->rec, high_part(u));
	}
	cols[3] = w->rec.len;
	buf_add(&w->rec, w->c_tid.data, w->c_tid.len);
	cols[4] = w->rec.len;
	buf_add(&w->rec, w->c_state.data, w->c_state.len);
	buf_add(&w->rec, w->c_flags.data, w->c_flags.len);
	cols[5] = w->rec.len;
	for (uint64_t i = 0; i < w->nsamp; i++)
		buf_put_uvarint(&w->rec, w->stacks[w->sidx[i]].rank);
	buf_put_uvarint(&w->raw, TRACE_REC_SAMPLES);
	buf_put_uvarint(&w->raw, w->rec.len);
	base = w->raw.len;
	buf_add(&w->raw, w->rec.data, w->rec.len);
	for (int i = 0; i < 6; i++)
		w->sink.seg[w->sink.nseg++] = base + cols[i];
}

static int flush(struct trace_writer *w)
{
	int r;

	if (w->err)
		return w->err;
	if (!w->meta.len && w->next_node == w->first_new && !w->nsamp)
		return 0;
	buf_reset(&w->raw);
	w->sink.nseg = 0;
	buf_add(&w->raw, w->meta.data, w->meta.len);
	emit_nodes(w);
	emit_samples(w);
	r = trace_sink_chunk(&w->sink, TRACE_CHUNK_DATA, &w->raw);
	if (r < 0) {
		/* The chunk is gone, and so are the nodes in it: refuse
		 * everything from here on rather than write samples that
		 * point at them. */
		w->err = r;
		return r;
	}
	w->data_chunks++;
	chunk_reset(w);
	return 0;
}

static int usable(const struct trace_writer *w)
{
	if (!w || w->finished)
		return TRACE_E_USAGE;
	return w->err;
}

static int maybe_flush(struct trace_writer *w)
{
	if (chunk_estimate(w) >= TRACE_CHUNK_TARGET)
		return flush(w);
	return 0;
}

static void meta_record(struct trace_writer *w, unsigned type)
{
	put_record(&w->meta, type, &w->rec);
}

int trace_writer_new(int fd, const struct trace_session *s, struct trace_writer **out)
{
	struct trace_writer *w = NULL;
	const char *host;
	int r;

	*out = NULL;
	if (fd < 0 || !s || (s->argc && !s->argv))
		return TRACE_E_USAGE;
	if (s->argc > TRACE_MAX_ARGS)
		return TRACE_E_TOOBIG;
	host = s->host ? s->host : "";
	if ((r = check_string(host)) < 0)
		return r;
	for (uint32_t i = 0; i < s->argc; i++)
		if ((r = check_string(s->argv[i])) < 0)
			return r;

	w = xcalloc(1, sizeof(*w));
	w->next_node = 1;
	w->first_new = 1;
	buf_init(&w->meta);
	buf_init(&w->raw);
	buf_init(&w->rec);
	buf_init(&w->new_parent);
	buf_init(&w->new_addr);
	buf_init(&w->c_tid);
	buf_init(&w->c_state);
	buf_init(&w->c_flags);
	hmap_init(&w->tree);
	hmap_init(&w->tid_index);
	if ((r = trace_sink_init(&w->sink, fd, 0)) < 0)
		goto out;

	buf_reset(&w->rec);
	buf_addch(&w->rec, s->os);
	buf_addch(&w->rec, s->arch);
	buf_addch(&w->rec, s->mode);
	buf_put_uvarint(&w->rec, s->rate_hz);
	buf_put_uvarint(&w->rec, s->pid);
	buf_put_uvarint(&w->rec, s->start_realtime_ns);
	buf_put_uvarint(&w->rec, s->start_monotonic_ns);
	trace_put_string(&w->rec, host);
	buf_put_uvarint(&w->rec, s->argc);
	for (uint32_t i = 0; i < s->argc; i++)
		trace_put_string(&w->rec, s->argv[i]);
	buf_addch(&w->rec, s->sampler);
	buf_addch(&w->rec, s->kernel);
	buf_addch(&w->rec, s->kernel_paranoid);
	buf_addch(&w->rec, s->priority);
	buf_addch(&w->rec, s->rt_priority);
	buf_addch(&w->rec, s->part_kind);
	buf_put_uvarint(&w->rec, s->recording);
	buf_put_uvarint(&w->rec, s->part);
	buf_put_uvarint(&w->rec, s->window_ns);
	if (w->rec.len > TRACE_MAX_CHUNK / 2) {
		r = TRACE_E_TOOBIG; /* thousands of huge arguments */
		goto out;
	}
	meta_record(w, TRACE_REC_SESSION);

	/* The session goes out at once, alone, with the file header: a
	 * recorder killed in its first second still leaves a trace that
	 * loads, or an empty file. */
	trace_sink_header(&w->sink, TRACE_MAGIC);
	r = flush(w);
out:
	if (r < 0) {
		trace_writer_free(w);
		return r;
	}
	*out = w;
	return 0;
}

int trace_writer_image(struct trace_writer *w, uint32_t process, const struct trace_image *img)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!process || !img || !img->path || img->ident_len > TRACE_MAX_IDENT)
		return TRACE_E_USAGE;
	if ((r = check_string(img->path)) < 0 || (img->why && (r = check_string(img->why)) < 0))
		return r;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, img->id);
	buf_addch(&w->rec, img->ident_kind);
	buf_put_bytes(&w->rec, img->ident, img->ident_len);
	buf_addch(&w->rec, img->arch);
	trace_put_string(&w->rec, img->path);
	buf_put_uvarint(&w->rec, img->start);
	buf_put_uvarint(&w->rec, img->size);
	buf_put_uvarint(&w->rec, img->file_offset);
	buf_put_uvarint(&w->rec, img->bias);
	buf_put_uvarint(&w->rec, img->time_loaded);
	buf_put_uvarint(&w->rec, process);
	buf_addch(&w->rec, img->source);
	buf_addch(&w->rec, img->flags);
	trace_put_string(&w->rec, img->why ? img->why : "");
	meta_record(w, TRACE_REC_IMAGE);
	return maybe_flush(w);
}

/* A record of an id and a time, then a name or a process id, if given. */
static int id_time_record(struct trace_writer *w, unsigned type, uint32_t id, uint64_t time,
			  const char *name, uint32_t process)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (name && (r = check_string(name)) < 0)
		return r;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, id);
	buf_put_uvarint(&w->rec, time);
	if (name)
		trace_put_string(&w->rec, name);
	if (process)
		buf_put_uvarint(&w->rec, process);
	meta_record(w, type);
	return maybe_flush(w);
}

int trace_writer_image_unload(struct trace_writer *w, uint32_t id, uint64_t time)
{
	return id_time_record(w, TRACE_REC_IMAGE_UNLOAD, id, time, NULL, 0);
}

int trace_writer_signal_frame(struct trace_writer *w, uint32_t id, uint64_t start, uint64_t end)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (end <= start)
		return TRACE_E_USAGE;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, id);
	buf_put_uvarint(&w->rec, start);
	buf_put_uvarint(&w->rec, end - start);
	meta_record(w, TRACE_REC_SIGNAL_FRAME);
	return maybe_flush(w);
}

int trace_writer_mark(struct trace_writer *w, uint64_t time, int source, const char *name)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (source < TRACE_MARK_UNKNOWN || source > TRACE_MARK_APP || !name || !*name)
		return TRACE_E_USAGE;
	if ((r = check_string(name)) < 0)
		return r;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, time);
	buf_addch(&w->rec, (char)source);
	trace_put_string(&w->rec, name);
	meta_record(w, TRACE_REC_MARK);
	return maybe_flush(w);
}

int trace_writer_code(struct trace_writer *w, uint32_t process, const struct trace_code *c)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!process || !c->size || c->start > UINT64_MAX - c->size || !c->name || !*c->name ||
	    c->source > TRACE_CODE_VDSO)
		return TRACE_E_USAGE;
	if ((r = check_string(c->name)) < 0 || (c->file && (r = check_string(c->file)) < 0))
		return r;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, c->time);
	buf_put_uvarint(&w->rec, process);
	buf_put_uvarint(&w->rec, c->start);
	buf_put_uvarint(&w->rec, c->size);
	buf_addch(&w->rec, (char)c->source);
	trace_put_string(&w->rec, c->name);
	trace_put_string(&w->rec, c->file ? c->file : "");
	buf_put_uvarint(&w->rec, c->line);
	meta_record(w, TRACE_REC_CODE);
	return maybe_flush(w);
}

int trace_writer_pause(struct trace_writer *w, uint64_t start, uint64_t end)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (end < start)
		return TRACE_E_USAGE;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, start);
	buf_put_uvarint(&w->rec, end - start);
	meta_record(w, TRACE_REC_PAUSE);
	return maybe_flush(w);
}

int trace_writer_thread_start(struct trace_writer *w, uint32_t process, uint32_t tid, uint64_t time)
{
	if (!process)
		return TRACE_E_USAGE;
	return id_time_record(w, TRACE_REC_THREAD_START, tid, time, NULL, process);
}

int trace_writer_thread_name(struct trace_writer *w, uint32_t tid, uint64_t time, const char *name)
{
	if (!name)
		return TRACE_E_USAGE;
	return id_time_record(w, TRACE_REC_THREAD_NAME, tid, time, name, 0);
}

int trace_writer_thread_end(struct trace_writer *w, uint32_t tid, uint64_t time)
{
	return id_time_record(w, TRACE_REC_THREAD_END, tid, time, NULL, 0);
}

int trace_writer_process(struct trace_writer *w, uint32_t id, uint32_t pid, uint32_t parent, uint64_t time)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!id || id == parent)
		return TRACE_E_USAGE;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, id);
	buf_put_uvarint(&w->rec, pid);
	buf_put_uvarint(&w->rec, parent);
	buf_put_uvarint(&w->rec, time);
	meta_record(w, TRACE_REC_PROCESS);
	return maybe_flush(w);
}

int trace_writer_process_exec(struct trace_writer *w, uint32_t id, uint64_t time, uint32_t argc,
			      char *const *argv)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!id || argc > TRACE_MAX_ARGS || (argc && !argv))
		return TRACE_E_USAGE;
	for (uint32_t i = 0; i < argc; i++)
		if ((r = check_string(argv[i])) < 0)
			return r;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, id);
	buf_put_uvarint(&w->rec, time);
	buf_put_uvarint(&w->rec, argc);
	for (uint32_t i = 0; i < argc; i++)
		trace_put_string(&w->rec, argv[i]);
	if (w->rec.len > TRACE_MAX_CHUNK / 2)
		return TRACE_E_TOOBIG;
	meta_record(w, TRACE_REC_PROCESS_EXEC);
	return maybe_flush(w);
}

int trace_writer_process_end(struct trace_writer *w, uint32_t id, uint64_t time, int kind, int32_t status)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!id || kind < TRACE_END_UNTOLD || kind > TRACE_END_OUT_OF_REACH)
		return TRACE_E_USAGE;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, id);
	buf_put_uvarint(&w->rec, time);
	buf_addch(&w->rec, (char)kind);
	buf_put_svarint(&w->rec, kind == TRACE_END_EXITED ? status : 0);
	meta_record(w, TRACE_REC_PROCESS_END);
	return maybe_flush(w);
}

/* Returns the node for the stack addrs[0..n) (leaf first), adding any
 * nodes the tree lacks, root side first, to this chunk's new nodes. */
static uint32_t stack_node(struct trace_writer *w, const uint64_t *addrs, size_t n)
{
	uint32_t node = 0;
	uint64_t parent_addr = 0;

	if (n && n == w->nlast && !memcmp(addrs, w->last, n * sizeof(*addrs)))
		return w->last_node;
	for (size_t i = n; i-- > 0;) {
		int added;
		uint64_t *slot = hmap_put(&w->tree, node, addrs[i], w->next_node, &added);
		if (added) {
			uint32_t id = w->next_node++;
			buf_put_uvarint(&w->new_parent, node ? id - node : 0);
			buf_put_svarint(&w->new_addr, (int64_t)(addrs[i] - parent_addr));
		}
		node = (uint32_t)*slot;
		parent_addr = addrs[i];
	}
	w->last = xgrow(w->last, &w->cap_last, n ? n : 1, sizeof(*w->last));
	if (n)
		memcpy(w->last, addrs, n * sizeof(*addrs));
	w->nlast = n;
	w->last_node = node;
	return node;
}

/* Returns the chunk-local index of key in one of the record tables. */
static uint32_t tid_index(struct trace_writer *w, uint32_t tid)
{
	int added;
	uint64_t *slot = hmap_put(&w->tid_index, tid, 0, w->ntids, &added);

	if (added) {
		w->tids = xgrow(w->tids, &w->cap_tids, w->ntids + 1, sizeof(*w->tids));
		w->tids[w->ntids++] = tid;
	}
	return (uint32_t)*slot;
}

static uint32_t stack_index(struct trace_writer *w, uint32_t node)
{
	int added;
	uint64_t *slot = hmap_put(&w->stack_index, node, 0, w->nstacks, &added);
	struct stack_entry *e;

	if (added) {
		w->stacks = xgrow(w->stacks, &w->cap_stacks, w->nstacks + 1, sizeof(*w->stacks));
		e = &w->stacks[w->nstacks];
		e->node = node;
		e->count = 0;
		e->first = (uint32_t)w->nstacks++;
	}
	w->stacks[*slot].count++;
	return (uint32_t)*slot;
}

int trace_writer_sample(struct trace_writer *w, uint64_t time, uint32_t tid, uint8_t state,
			uint8_t flags, const uint64_t *addrs, size_t n)
{
	uint32_t node;
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (n && !addrs)
		return TRACE_E_USAGE;
	if (n > WRITER_MAX_DEPTH || (uint64_t)w->next_node + n > UINT32_MAX)
		return TRACE_E_TOOBIG;
	node = stack_node(w, addrs, n);
	w->times = xgrow(w->times, &w->cap_times, w->nsamp + 1, sizeof(*w->times));
	w->times[w->nsamp] = time;
	w->sidx = xgrow(w->sidx, &w->cap_sidx, w->nsamp + 1, sizeof(*w->sidx));
	w->sidx[w->nsamp] = stack_index(w, node);
	buf_put_uvarint(&w->c_tid, tid_index(w, tid));
	buf_addch(&w->c_state, state);
	buf_addch(&w->c_flags, flags);
	w->nsamp++;
	w->samples++;
	return maybe_flush(w);
}

int trace_writer_counters(struct trace_writer *w, const uint64_t *counters)
{
	uint32_t changed = 0;
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!counters)
		return TRACE_E_USAGE;
	for (int i = 0; i < TRACE_COUNTER__COUNT; i++)
		changed += counters[i] != w->counters[i];
	if (!changed)
		return 0;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, changed);
	for (int i = 0; i < TRACE_COUNTER__COUNT; i++) {
		if (counters[i] == w->counters[i])
			continue;
		buf_put_uvarint(&w->rec, (uint64_t)i);
		buf_put_uvarint(&w->rec, counters[i]);
		w->counters[i] = counters[i];
	}
	meta_record(w, TRACE_REC_COUNTERS);
	return maybe_flush(w);
}

int trace_writer_flush(struct trace_writer *w)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	return flush(w);
}

int trace_writer_finish(struct trace_writer *w, const struct trace_end *end)
{
	uint64_t before;
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (end) {
		buf_reset(&w->rec);
		buf_put_uvarint(&w->rec, end->time);
		buf_addch(&w->rec, end->has_exit ? 1 : 0);
		buf_put_svarint(&w->rec, end->exit_status);
		meta_record(w, TRACE_REC_END);
	}
	if ((r = flush(w)) < 0)
		return r;
	before = w->sink.bytes;
	buf_reset(&w->raw);
	buf_put_uvarint(&w->raw, w->data_chunks);
	buf_put_uvarint(&w->raw, w->samples);
	buf_put_uvarint(&w->raw, w->next_node - 1u);
	buf_put_uvarint(&w->raw, before);
	if ((r = trace_sink_chunk(&w->sink, TRACE_CHUNK_FOOTER, &w->raw)) < 0) {
		w->err = r;
		return r;
	}
	w->finished = 1;
	return 0;
}

uint64_t trace_writer_bytes(const struct trace_writer *w)
{
	return w ? w->sink.bytes : 0;
}

uint64_t trace_writer_samples(const struct trace_writer *w)
{
	return w ? w->samples : 0;
}

void trace_writer_free(struct trace_writer *w)
{
	if (!w)
		return;
	trace_sink_release(&w->sink);
	buf_release(&w->meta);
	buf_release(&w->raw);
	buf_release(&w->rec);
	buf_release(&w->new_parent);
	buf_release(&w->new_addr);
	free(w->times);
	free(w->deltas);
	buf_release(&w->c_tid);
	buf_release(&w->c_state);
	buf_release(&w->c_flags);
	hmap_release(&w->tree);
	free(w->last);
	hmap_release(&w->tid_index);
	hmap_release(&w->stack_index);
	free(w->tids);
	free(w->stacks);
	free(w->order);
	free(w->sidx);
	free(w);
}
